//! What is wrong with the element an action was aimed at, in the words the agent reads after
//! the ref (`e12 is covered by …`): what happened, and what to do next.

/// What is wrong with the element an action was aimed at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ElementProblem {
    /// It has no box to click.
    #[error("has no visible box to click (hidden, collapsed or zero-size); take a browser_snapshot")]
    NoBox,
    /// It cannot take keyboard focus.
    #[error("cannot take keyboard focus, so it cannot be typed into")]
    NotFocusable,
    /// It is disabled or read-only.
    #[error("is disabled or read-only")]
    ReadOnly,
    /// An input of a type that takes no text (a checkbox, a file input).
    #[error("is an <input type={0}>, which does not take typed text; use browser_click (or browser_press_key) instead")]
    NotTextInput(String),
    /// A date, time or colour field did not take the value (the browser found it malformed).
    #[error("did not take {value}: an <input type={kind}> takes its value as {format}, and it keeps the value it had")]
    ValueNotTaken {
        /// The value asked for, quoted.
        value: String,
        /// The input's type.
        kind: String,
        /// The format it takes.
        format: &'static str,
    },
    /// Not a text field or editable area.
    #[error("is not editable; type into a textbox or an editable area")]
    NotEditable,
    /// Something else is on top of it where a click would land, even centred in the viewport.
    #[error(
        "is covered by {by}, which would get the click instead; close or move what covers it (take a \
         browser_snapshot: it may be an overlay with a button to dismiss it)"
    )]
    Covered {
        /// What is on top.
        by: String,
    },
    /// Once the pointer came to rest over it, the page took it away (a hover closed the list it
    /// was in), and a press where it was would reach something else.
    #[error(
        "was taken away once the pointer came to rest over it (the page hid or moved it on hover), and a click \
         where it was would reach {instead}; nothing was pressed. Take a browser_snapshot"
    )]
    GoneOnHover {
        /// What a press there would reach.
        instead: String,
    },
    /// A field whose value is masked: a picture of it alone would show only what is masked.
    #[error(
        "is a field whose value Sightline masks (a password, a one-time code, card or bank data), so a screenshot of \
         it alone is refused; screenshots of the page show it painted over"
    )]
    Masked,
    /// Another frame (an iframe laid over it, or one it holds) would receive the click.
    #[error(
        "would not get this click: another frame would receive it ({what}), so nothing was clicked. A page can lay \
         a frame of another site over its own controls; take a browser_snapshot and act only if the page is what \
         you expect"
    )]
    OtherFrame {
        /// The frame, as far as it is known (its element and address).
        what: String,
    },
    /// Focus did not stay on it, so typed text or keys would go elsewhere.
    #[error("did not keep the focus ({holder} has it), so nothing was typed; take a browser_snapshot")]
    Unfocused {
        /// What has the focus.
        holder: String,
    },
}
