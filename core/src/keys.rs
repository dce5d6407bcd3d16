//! Key names and chords for `browser_press_key`, resolved to the fields of CDP's
//! `Input.dispatchKeyEvent`.
//!
//! A chord is `Modifier+...+Key`, e.g. `Control+Shift+ArrowLeft`. Key names follow the DOM's
//! `KeyboardEvent.key` values (`Enter`, `Escape`, `PageDown`, `a`, `F5`); a single character
//! stands for itself.

use serde::Serialize;

/// CDP modifier bits.
pub mod modifier {
    /// Alt / Option.
    pub const ALT: u32 = 1;
    /// Control.
    pub const CONTROL: u32 = 2;
    /// Meta / Command.
    pub const META: u32 = 4;
    /// Shift.
    pub const SHIFT: u32 = 8;
}

/// One key press, ready to be sent as `keyDown` then `keyUp`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyPress {
    /// `KeyboardEvent.key`.
    pub key: String,
    /// `KeyboardEvent.code`.
    pub code: String,
    /// Legacy key code (`windowsVirtualKeyCode`).
    pub windows_virtual_key_code: u32,
    /// Text the key inserts, if any (absent when a modifier other than Shift is held).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Modifier bits held during the press.
    pub modifiers: u32,
}

/// Why a key name was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Nothing to press.
    #[error("no key given; name one, e.g. `Enter` or `Control+a`")]
    Empty,
    /// An unknown key name.
    #[error(
        "unknown key `{0}`; use a KeyboardEvent.key name such as Enter, Tab, Escape, ArrowDown, PageUp, F5, or a single character"
    )]
    Unknown(String),
}

const NAMED: &[(&str, &str, u32, Option<&str>)] = &[
    ("Enter", "Enter", 13, Some("\r")),
    ("Tab", "Tab", 9, Some("\t")),
    ("Backspace", "Backspace", 8, None),
    ("Delete", "Delete", 46, None),
    ("Escape", "Escape", 27, None),
    ("ArrowUp", "ArrowUp", 38, None),
    ("ArrowDown", "ArrowDown", 40, None),
    ("ArrowLeft", "ArrowLeft", 37, None),
    ("ArrowRight", "ArrowRight", 39, None),
    ("Home", "Home", 36, None),
    ("End", "End", 35, None),
    ("PageUp", "PageUp", 33, None),
    ("PageDown", "PageDown", 34, None),
    ("Insert", "Insert", 45, None),
    ("Space", "Space", 32, Some(" ")),
    ("Shift", "ShiftLeft", 16, None),
    ("Control", "ControlLeft", 17, None),
    ("Alt", "AltLeft", 18, None),
    ("Meta", "MetaLeft", 91, None),
    ("CapsLock", "CapsLock", 20, None),
    ("ContextMenu", "ContextMenu", 93, None),
];

/// Aliases agents commonly use.
fn canonical(name: &str) -> &str {
    match name.to_ascii_lowercase().as_str() {
        "enter" | "return" => "Enter",
        "esc" | "escape" => "Escape",
        "tab" => "Tab",
        "backspace" => "Backspace",
        "delete" | "del" => "Delete",
        "up" | "arrowup" => "ArrowUp",
        "down" | "arrowdown" => "ArrowDown",
        "left" | "arrowleft" => "ArrowLeft",
        "right" | "arrowright" => "ArrowRight",
        "home" => "Home",
        "end" => "End",
        "pageup" => "PageUp",
        "pagedown" => "PageDown",
        "insert" => "Insert",
        "space" | "spacebar" => "Space",
        "shift" => "Shift",
        "control" | "ctrl" => "Control",
        "alt" | "option" => "Alt",
        "meta" | "cmd" | "command" | "super" => "Meta",
        "capslock" => "CapsLock",
        "contextmenu" => "ContextMenu",
        _ => name,
    }
}

fn modifier_bit(name: &str) -> Option<u32> {
    match canonical(name) {
        "Alt" => Some(modifier::ALT),
        "Control" => Some(modifier::CONTROL),
        "Meta" => Some(modifier::META),
        "Shift" => Some(modifier::SHIFT),
        _ => None,
    }
}

/// Parses a chord such as `Control+Shift+a` or `Enter`.
pub fn parse_chord(chord: &str) -> Result<KeyPress, KeyError> {
    let chord = chord.trim();
    if chord.is_empty() {
        return Err(KeyError::Empty);
    }
    // A lone "+" is the plus key; "Control++" is Control with plus.
    let (mods_part, key_name) = match chord.strip_suffix('+') {
        Some(rest) if rest.is_empty() || rest.ends_with('+') => (rest.trim_end_matches('+'), "+"),
        _ => match chord.rsplit_once('+') {
            Some((mods, key)) => (mods, key),
            None => ("", chord),
        },
    };
    let mut modifiers = 0;
    for name in mods_part.split('+').filter(|s| !s.is_empty()) {
        modifiers |= modifier_bit(name).ok_or_else(|| KeyError::Unknown(name.to_owned()))?;
    }
    let mut press = resolve_key(key_name)?;
    press.modifiers |= modifiers;
    // Chords with Control, Alt or Meta are shortcuts, not text.
    if modifiers & (modifier::CONTROL | modifier::ALT | modifier::META) != 0 {
        press.text = None;
    }
    Ok(press)
}

fn resolve_key(name: &str) -> Result<KeyPress, KeyError> {
    let canonical_name = canonical(name);
    if let Some(&(key, code, vk, text)) = NAMED.iter().find(|(k, ..)| *k == canonical_name) {
        let key = if key == "Space" { " " } else { key };
        return Ok(KeyPress {
            key: key.into(),
            code: code.into(),
            windows_virtual_key_code: vk,
            text: text.map(str::to_owned),
            modifiers: 0,
        });
    }
    if let Some(n) = canonical_name.strip_prefix('F').and_then(|n| n.parse::<u32>().ok())
        && (1..=24).contains(&n)
    {
        return Ok(KeyPress {
            key: canonical_name.into(),
            code: canonical_name.into(),
            windows_virtual_key_code: 111 + n,
            text: None,
            modifiers: 0,
        });
    }
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Ok(character(c));
    }
    Err(KeyError::Unknown(name.to_owned()))
}

/// The press for a single character.
fn character(c: char) -> KeyPress {
    let (code, vk, shifted) = if c.is_ascii_alphabetic() {
        (format!("Key{}", c.to_ascii_uppercase()), c.to_ascii_uppercase() as u32, c.is_ascii_uppercase())
    } else if c.is_ascii_digit() {
        (format!("Digit{c}"), c as u32, false)
    } else {
        match c {
            ' ' => ("Space".into(), 32, false),
            '-' => ("Minus".into(), 189, false),
            '=' => ("Equal".into(), 187, false),
            '+' => ("Equal".into(), 187, true),
            ',' => ("Comma".into(), 188, false),
            '.' => ("Period".into(), 190, false),
            '/' => ("Slash".into(), 191, false),
            ';' => ("Semicolon".into(), 186, false),
            '\'' => ("Quote".into(), 222, false),
            '[' => ("BracketLeft".into(), 219, false),
            ']' => ("BracketRight".into(), 221, false),
            '\\' => ("Backslash".into(), 220, false),
            '`' => ("Backquote".into(), 192, false),
            _ => (String::new(), 0, false),
        }
    };
    KeyPress {
        key: c.to_string(),
        code,
        windows_virtual_key_code: vk,
        text: Some(c.to_string()),
        modifiers: if shifted { modifier::SHIFT } else { 0 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enter_inserts_a_carriage_return() {
        let p = parse_chord("Enter").unwrap();
        assert_eq!(
            (p.key.as_str(), p.code.as_str(), p.windows_virtual_key_code, p.text.as_deref()),
            ("Enter", "Enter", 13, Some("\r"))
        );
    }

    #[test]
    fn control_chords_carry_the_modifier_and_no_text() {
        let p = parse_chord("Control+a").unwrap();
        assert_eq!(p.modifiers, modifier::CONTROL);
        assert_eq!(p.code, "KeyA");
        assert_eq!(p.text, None);
    }

    #[test]
    fn aliases_and_case_are_forgiven() {
        assert_eq!(parse_chord("ctrl+shift+left").unwrap().modifiers, modifier::CONTROL | modifier::SHIFT);
        assert_eq!(parse_chord("esc").unwrap().key, "Escape");
    }

    #[test]
    fn uppercase_letters_hold_shift() {
        let p = parse_chord("A").unwrap();
        assert_eq!((p.modifiers, p.text.as_deref()), (modifier::SHIFT, Some("A")));
    }

    #[test]
    fn plus_can_be_the_key_itself() {
        assert_eq!(parse_chord("+").unwrap().key, "+");
        let p = parse_chord("Control++").unwrap();
        assert_eq!((p.key.as_str(), p.modifiers & modifier::CONTROL), ("+", modifier::CONTROL));
    }

    #[test]
    fn function_keys_map_to_their_codes() {
        assert_eq!(parse_chord("F5").unwrap().windows_virtual_key_code, 116);
    }

    #[test]
    fn unknown_names_are_explained() {
        let err = parse_chord("Hyper+x").unwrap_err();
        assert_eq!(err, KeyError::Unknown("Hyper".into()));
        assert!(parse_chord("Florp").unwrap_err().to_string().contains("unknown key `Florp`"));
        assert_eq!(parse_chord("  ").unwrap_err(), KeyError::Empty);
    }
}
