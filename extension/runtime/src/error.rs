//! The runtime's one error type: why a tool call failed, worded for the agent (what happened,
//! and what to do next). Variants carry what callers match on; nothing matches on message text.
//! The browser's own messages are classified once, where they arrive (`chrome` for extension
//! API errors, `cdp` for protocol errors).

pub use sightline_core::actions::ElementProblem;
use sightline_core::capture::plan::CaptureError;
use sightline_core::changes::ChangesError;
use sightline_core::keys::KeyError;
use sightline_core::page_state::PageError;
use sightline_core::refs::RefError;
use sightline_core::urls::UrlError;

use crate::cdp::CdpError;
use crate::chrome::ChromeError;

/// A tool failure.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ToolError {
    /// A CDP command failed.
    #[error(transparent)]
    Cdp(#[from] CdpError),
    /// A `chrome.*` call failed.
    #[error(transparent)]
    Browser(#[from] ChromeError),
    /// The page state cannot answer (a future version, an unknown region…).
    #[error(transparent)]
    Page(#[from] PageError),
    /// A ref that cannot be used.
    #[error(transparent)]
    Ref(#[from] RefError),
    /// A change report or checkpoint request that cannot be served.
    #[error(transparent)]
    Changes(#[from] ChangesError),
    /// A capture that could not be assembled.
    #[error(transparent)]
    Capture(#[from] CaptureError),
    /// A key or chord that does not exist.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// An element the action cannot be done to.
    #[error("{element_ref} {problem}")]
    Element {
        /// The ref the agent gave.
        element_ref: String,
        /// What is wrong with it.
        problem: ElementProblem,
    },
    /// The person's site permissions refuse the call (the text says which rule, and that
    /// nothing was done).
    #[error("{0}")]
    NotPermitted(String),
    /// The agent may not use this tab.
    #[error(
        "tab {tab} is not shared with Sightline. Use browser_tabs to list the tabs you may use, open one with \
         browser_tabs new, or ask the user to share this tab with the Sightline toolbar button."
    )]
    NotShared {
        /// The tab.
        tab: i32,
    },
    /// The tab was shared once; the grant was withdrawn.
    #[error("tab {tab} is no longer shared with Sightline: {reason}")]
    Revoked {
        /// The tab.
        tab: i32,
        /// Why, e.g. "the user stopped sharing it".
        reason: String,
    },
    /// Another MCP session holds the tab.
    #[error(
        "tab {tab} is in use by another agent: you cannot read it, act on it or close it. Only the person can hand it \
         to you (from the Sightline popup or panel); use your own tabs (browser_tabs lists them) or open one"
    )]
    HeldByAnother {
        /// The tab.
        tab: i32,
    },
    /// The session lost its current tab and named none since.
    #[error(
        "{}, so you have no current tab and this call was not run. Name the tab to act on with `tab` (browser_tabs \
         lists the tabs you may use), or open one with browser_tabs new",
        loss.describe(*tab)
    )]
    CurrentTabLost {
        /// The tab it lost.
        tab: i32,
        /// How.
        loss: sightline_core::tab_refs::TabLoss,
    },
    /// A ref used on another tab than its own, or of a tab the session lost.
    #[error(transparent)]
    ForeignRef(#[from] sightline_core::tab_refs::ForeignRef),
    /// The user cancelled Sightline's debugging (the infobar) and has not shared a tab since.
    #[error(
        "the user stopped Sightline (they cancelled its debugging bar): no tab can be opened or controlled until \
         they share one again with the Sightline toolbar button"
    )]
    Stopped,
    /// No tab is named, current or controlled.
    #[error(
        "there is no tab to act on yet: open one with browser_navigate (with a url) or browser_tabs new, or ask the \
         user to share a tab with the Sightline toolbar button"
    )]
    NoTab,
    /// The person has pointed at nothing on the tab.
    #[error(
        "the user has not selected anything on tab {tab}: ask them to select the element in DevTools' Elements \
         panel, or to click Pick in the Sightline panel and then the element"
    )]
    NothingSelected {
        /// The tab.
        tab: i32,
    },
    /// What the person selected is not in the page as the agent reads it.
    #[error(
        "what the user selected on tab {tab} is not in the page you read: it was removed, the page navigated, or it \
         is not shown (hidden or covered). Ask them to select it again"
    )]
    SelectionNotShown {
        /// The tab.
        tab: i32,
    },
    /// The browser refuses debugging on this tab.
    #[error(
        "Sightline cannot control tab {tab}: the browser refuses debugging there ({message}). Pages such as \
         chrome:// URLs, the Web Store and other extensions' pages are off limits; navigate it to a web page."
    )]
    Refused {
        /// The tab.
        tab: i32,
        /// The browser's words.
        message: String,
    },
    /// Attaching the debugger, or enabling what the runtime listens to, failed.
    #[error("could not prepare tab {tab} for control: {source}")]
    Prepare {
        /// The tab.
        tab: i32,
        /// What failed.
        source: Box<ToolError>,
    },
    /// A page could not be loaded.
    #[error("could not load {url}: {error}")]
    LoadFailed {
        /// The URL, its secrets masked.
        url: String,
        /// The browser's error, e.g. `net::ERR_NAME_NOT_RESOLVED`.
        error: String,
    },
    /// A history move with no entry to move to.
    #[error("there is no page to go {direction} to in this tab's history")]
    NoHistory {
        /// `back` or `forward`.
        direction: &'static str,
    },
    /// A history move to an entry whose URL Sightline does not load.
    #[error(
        "did not go {direction}: that page in this tab's history is {url}, which Sightline does not load: {why}. \
         The tab stays on its page"
    )]
    HistoryRefused {
        /// `back` or `forward`.
        direction: &'static str,
        /// The entry's URL, its secrets masked.
        url: String,
        /// Why the URL is refused.
        why: UrlError,
    },
    /// The page shows a dialog and waits for it: nothing else can read or act on it.
    #[error("{}", dialog.blocks(tool))]
    DialogOpen {
        /// The tool that was not run.
        tool: &'static str,
        /// The dialog.
        dialog: sightline_core::dialogs::OpenDialog,
    },
    /// `browser_handle_dialog` with no dialog to answer.
    #[error("tab {tab} shows no dialog to answer")]
    NoDialog {
        /// The tab.
        tab: i32,
    },
    /// What an element offers does not include what was asked for.
    #[error("{0}")]
    Options(String),
    /// A URL Sightline will not load.
    #[error(transparent)]
    Url(#[from] UrlError),
    /// Arguments that do not make a call.
    #[error("{0}")]
    Arguments(&'static str),
    /// Arguments that do not make a call, with what was given.
    #[error("{0}")]
    Invalid(String),
    /// One field of `browser_fill_form` could not be filled.
    #[error("field {} ({name:?}, {element_ref}): {source}{}", index + 1, filled_before(*filled))]
    Field {
        /// Its position among the fields, from 0.
        index: usize,
        /// How many fields were filled before it failed.
        filled: usize,
        /// Its name, as the agent gave it.
        name: String,
        /// Its ref.
        element_ref: String,
        /// What went wrong.
        source: Box<ToolError>,
    },
    /// A wait whose condition did not come true in time.
    #[error("{0}")]
    NotYet(String),
    /// A script a tool ran in the page did not finish in time.
    #[error(
        "{tool} timed out: {what} had not finished after {} s (a long loop, or a promise that never settles), and \
         what it did meanwhile is unknown. Take a browser_snapshot to see the page.",
        .after_ms / 1000
    )]
    TimedOut {
        /// The tool.
        tool: &'static str,
        /// What it ran.
        what: &'static str,
        /// How long it waited.
        after_ms: u32,
    },
    /// The browser returned something the runtime cannot use.
    #[error("{what} came back in an unexpected shape: {message}")]
    Unexpected {
        /// What was asked for.
        what: &'static str,
        /// The decoding error.
        message: String,
    },
}

/// What a field's error adds about the fields before it.
fn filled_before(filled: usize) -> String {
    match filled {
        0 => ". No field was filled.".to_owned(),
        1 => ". The field before it was filled; the others were not.".to_owned(),
        n => format!(". The {n} fields before it were filled; the others were not."),
    }
}

impl ToolError {
    /// `self`, or, when it is a command that got no answer in time, that `tool` timed out
    /// running `what`.
    pub fn or_timed_out(self, tool: &'static str, what: &'static str) -> ToolError {
        match self {
            ToolError::Cdp(CdpError::Timeout { ms, .. }) => ToolError::TimedOut { tool, what, after_ms: ms },
            other => other,
        }
    }

    /// The error for element `element_ref` having `problem`.
    pub fn element(element_ref: &str, problem: ElementProblem) -> ToolError {
        ToolError::Element { element_ref: element_ref.to_owned(), problem }
    }
}
