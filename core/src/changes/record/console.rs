//! Console messages from CDP: `console.*` calls (format specifiers applied as browsers do),
//! uncaught exceptions and unhandled rejections, and the browser's own log entries, each with
//! its 1-based source location.
//!
//! A message is rendered to one line of text the way a console shows it; the objects it names
//! are never kept. Failed resource loads reported by the browser log are left to the network
//! side, so a failure is never counted twice.

use serde_json::Value;

use super::{number, text};
use crate::changes::entries::{ConsoleEntry, ConsoleLevel, SourceLocation};

/// A CDP call frame's location, 1-based.
fn frame_location(frame: &Value) -> Option<SourceLocation> {
    let url = text(&frame["url"]);
    if url.is_empty() {
        return None;
    }
    let line = number(&frame["lineNumber"]).map_or(0, |l| l as u32 + 1);
    let column = number(&frame["columnNumber"]).map_or(0, |c| c as u32 + 1);
    Some(SourceLocation { url: url.to_owned(), line, column })
}

fn top_frame(stack: &Value) -> Option<SourceLocation> {
    stack["callFrames"].as_array()?.iter().find_map(frame_location)
}

/// `console.*` calls: level from the call type, text from the arguments (format specifiers
/// applied), location from the top of the stack.
pub(super) fn console_api(tab: u32, params: &Value, now_ms: u64) -> Option<ConsoleEntry> {
    let kind = text(&params["type"]);
    let level = match kind {
        "error" | "assert" => ConsoleLevel::Error,
        "warning" => ConsoleLevel::Warning,
        "info" => ConsoleLevel::Info,
        "debug" => ConsoleLevel::Debug,
        "endGroup" | "clear" => return None,
        _ => ConsoleLevel::Log,
    };
    let args = params["args"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut message = format_arguments(args);
    if kind == "assert" {
        message =
            if message.is_empty() { "Assertion failed".to_owned() } else { format!("Assertion failed: {message}") };
    }
    Some(ConsoleEntry { level, text: message, source: top_frame(&params["stackTrace"]), time_ms: now_ms, tab })
}

/// Uncaught exceptions and unhandled rejections: `Uncaught Error: boom`.
pub(super) fn exception(tab: u32, params: &Value, now_ms: u64) -> ConsoleEntry {
    let details = &params["exceptionDetails"];
    let prefix = text(&details["text"]).trim();
    let thrown = details.get("exception").filter(|e| e.is_object()).map(remote_text).unwrap_or_default();
    let first_line = thrown.lines().next().unwrap_or_default().trim();
    let message = match (prefix.is_empty(), first_line.is_empty()) {
        (_, true) => prefix.to_owned(),
        (true, false) => first_line.to_owned(),
        (false, false) if prefix.contains(first_line) => prefix.to_owned(),
        (false, false) => format!("{prefix} {first_line}"),
    };
    let source = frame_location(details).or_else(|| top_frame(&details["stackTrace"]));
    ConsoleEntry { level: ConsoleLevel::Error, text: message, source, time_ms: now_ms, tab }
}

/// Browser messages (deprecations, interventions, security). Failed resource loads are left
/// out: the request itself is recorded as failed, and counting it twice would mislead.
pub(super) fn log_entry(tab: u32, params: &Value, now_ms: u64) -> Option<ConsoleEntry> {
    let entry = &params["entry"];
    if text(&entry["source"]) == "network" {
        return None;
    }
    let level = match text(&entry["level"]) {
        "error" => ConsoleLevel::Error,
        "warning" => ConsoleLevel::Warning,
        "info" => ConsoleLevel::Info,
        _ => ConsoleLevel::Debug,
    };
    let source = top_frame(&entry["stackTrace"]).or_else(|| {
        let url = text(&entry["url"]);
        (!url.is_empty()).then(|| SourceLocation {
            url: url.to_owned(),
            line: number(&entry["lineNumber"]).map_or(0, |l| l as u32 + 1),
            column: 0,
        })
    });
    Some(ConsoleEntry { level, text: text(&entry["text"]).to_owned(), source, time_ms: now_ms, tab })
}

/// A CDP `RemoteObject` as a console shows it in one line.
fn remote_text(object: &Value) -> String {
    match text(&object["type"]) {
        "string" => text(&object["value"]).to_owned(),
        "undefined" => "undefined".to_owned(),
        _ => {
            if let Some(special) = object["unserializableValue"].as_str() {
                return special.to_owned();
            }
            if let Some(preview) = object.get("preview").filter(|p| p.is_object())
                && text(&object["subtype"]) != "error"
            {
                return preview_text(preview);
            }
            if let Some(description) = object["description"].as_str() {
                return description.to_owned();
            }
            match object.get("value") {
                Some(Value::String(s)) => s.clone(),
                Some(value) => value.to_string(),
                None => text(&object["type"]).to_owned(),
            }
        }
    }
}

/// `{a: 1, b: "x"}` or `[1, 2]` from an object preview.
fn preview_text(preview: &Value) -> String {
    let array = text(&preview["subtype"]) == "array";
    let mut parts: Vec<String> = preview["properties"]
        .as_array()
        .map(|props| {
            props
                .iter()
                .map(|p| {
                    let value = match text(&p["type"]) {
                        "string" => format!("{:?}", text(&p["value"])),
                        _ => text(&p["value"]).to_owned(),
                    };
                    if array { value } else { format!("{}: {value}", text(&p["name"])) }
                })
                .collect()
        })
        .unwrap_or_default();
    if preview["overflow"].as_bool() == Some(true) {
        parts.push("…".to_owned());
    }
    if array { format!("[{}]", parts.join(", ")) } else { format!("{{{}}}", parts.join(", ")) }
}

/// The arguments of a console call as one message, with `%s`, `%d`, `%i`, `%f`, `%o`, `%O`
/// and `%c` in a leading string applied as browsers do.
fn format_arguments(args: &[Value]) -> String {
    let mut rest = args.iter();
    let mut out = String::new();
    if let Some(first) = args.first()
        && text(&first["type"]) == "string"
        && args.len() > 1
    {
        rest.next();
        let format = text(&first["value"]);
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            match chars.peek().copied() {
                Some('%') => {
                    chars.next();
                    out.push('%');
                }
                Some(spec @ ('s' | 'd' | 'i' | 'f' | 'o' | 'O' | 'c')) => {
                    chars.next();
                    let Some(arg) = rest.next() else {
                        out.push('%');
                        out.push(spec);
                        continue;
                    };
                    match spec {
                        'c' => {}
                        'd' | 'i' => {
                            let n = number(&arg["value"]).or_else(|| text(&arg["description"]).parse().ok());
                            match n {
                                Some(n) => out.push_str(&format!("{}", n.trunc())),
                                None => out.push_str("NaN"),
                            }
                        }
                        _ => out.push_str(&remote_text(arg)),
                    }
                }
                _ => out.push('%'),
            }
        }
    } else if let Some(first) = rest.next() {
        out.push_str(&remote_text(first));
    }
    for arg in rest {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&remote_text(arg));
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::Recorder;
    use super::super::fixtures::{NOW, console, one};
    use super::*;

    #[test]
    fn console_error_keeps_its_text_and_one_based_source() {
        let entry = console(one(
            &mut Recorder::default(),
            "Runtime.consoleAPICalled",
            json!({"type": "error", "args": [{"type": "string", "value": "Checkout failed"}],
                   "stackTrace": {"callFrames": [{"url": "http://x/app.js", "lineNumber": 11, "columnNumber": 4}]}}),
        ));
        assert_eq!(entry.level, ConsoleLevel::Error);
        assert_eq!(entry.text, "Checkout failed");
        assert_eq!(entry.source, Some(SourceLocation { url: "http://x/app.js".into(), line: 12, column: 5 }));
        assert_eq!((entry.tab, entry.time_ms), (7, NOW));
    }

    #[test]
    fn format_specifiers_are_applied_and_extra_arguments_appended() {
        let args = json!([
            {"type": "string", "value": "%cOrder %s failed after %d ms (100%%)"},
            {"type": "string", "value": "color: red"},
            {"type": "string", "value": "NW-1"},
            {"type": "number", "value": 12.7, "description": "12.7"},
            {"type": "object", "className": "Object", "description": "Object",
             "preview": {"type": "object", "properties": [{"name": "a", "type": "number", "value": "1"},
                                                           {"name": "b", "type": "string", "value": "x"}]}},
        ]);
        let entry =
            console(one(&mut Recorder::default(), "Runtime.consoleAPICalled", json!({"type": "log", "args": args})));
        assert_eq!(entry.text, "Order NW-1 failed after 12 ms (100%) {a: 1, b: \"x\"}");
        assert_eq!(entry.level, ConsoleLevel::Log);
    }

    #[test]
    fn warnings_and_asserts_map_to_their_levels() {
        let mut recorder = Recorder::default();
        let warn = console(one(
            &mut recorder,
            "Runtime.consoleAPICalled",
            json!({"type": "warning", "args": [{"type": "string", "value": "w"}]}),
        ));
        assert_eq!(warn.level, ConsoleLevel::Warning);
        let assert = console(one(&mut recorder, "Runtime.consoleAPICalled", json!({"type": "assert", "args": []})));
        assert_eq!((assert.level, assert.text.as_str()), (ConsoleLevel::Error, "Assertion failed"));
        assert!(
            recorder
                .event(7, None, "Runtime.consoleAPICalled", &json!({"type": "endGroup", "args": []}), NOW)
                .is_empty()
        );
    }

    #[test]
    fn uncaught_exceptions_read_like_the_console_shows_them() {
        let entry = console(one(
            &mut Recorder::default(),
            "Runtime.exceptionThrown",
            json!({"exceptionDetails": {"text": "Uncaught (in promise)", "lineNumber": 2, "columnNumber": 8,
                   "url": "http://x/app.js",
                   "exception": {"type": "object", "subtype": "error", "description": "Error: gave up\n    at http://x/app.js:3:9"}}}),
        ));
        assert_eq!(entry.text, "Uncaught (in promise) Error: gave up");
        assert_eq!(entry.source, Some(SourceLocation { url: "http://x/app.js".into(), line: 3, column: 9 }));
        assert_eq!(entry.level, ConsoleLevel::Error);
    }

    #[test]
    fn browser_log_entries_are_kept_but_failed_loads_are_left_to_the_network_ring() {
        let mut recorder = Recorder::default();
        let entry = console(one(
            &mut recorder,
            "Log.entryAdded",
            json!({"entry": {"source": "deprecation", "level": "warning", "text": "Old API", "url": "http://x/a.js", "lineNumber": 4}}),
        ));
        assert_eq!((entry.level, entry.text.as_str()), (ConsoleLevel::Warning, "Old API"));
        assert_eq!(entry.source.map(|s| s.line), Some(5));
        let failed_load =
            json!({"entry": {"source": "network", "level": "error", "text": "Failed to load resource: 500"}});
        assert!(recorder.event(7, None, "Log.entryAdded", &failed_load, NOW).is_empty());
    }
}
