//! What a tool is, said once: the vocabulary of a tool's declaration in [`super::tools`].
//!
//! A [`ToolSpec`] holds everything about a tool that is not its handler: its name, the
//! description an agent reads, its parameter type's schema, the shape of its structured
//! output, what it does to the user's world ([`Effect`]), when a session may use it
//! ([`Gate`]), how it picks a tab ([`TabUse`]) and what the host does before forwarding it
//! ([`HostStep`]). The native host lists and serves tools from [`super::TOOLS`]; the extension
//! runtime compiles against the same declarations and names each tool's handler in one
//! exhaustive match.

use serde_json::{Map, Value};

/// A JSON object: a schema, or the arguments of a call.
pub type JsonObject = Map<String, Value>;

/// One tool, as declared in [`super::tools`].
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    /// The MCP name, which is also the `tool` tag of a [`super::ToolCall`] on the wire.
    pub name: &'static str,
    /// What `tools/list` says the tool does. Every word is paid for in every session.
    pub description: &'static str,
    /// The structured content the tool answers with beside its text, if any.
    pub output: Output,
    /// What the tool does to the user's world.
    pub effect: Effect,
    /// When a session may list and call it.
    pub gate: Gate,
    /// How it picks the tab it works on.
    pub tab: TabUse,
    /// What the host does to a call before it leaves for the browser.
    pub host_step: Option<HostStep>,
    /// The JSON Schema of its parameter type, as derived (the host compacts it for listing).
    #[cfg(feature = "schemars")]
    pub input_schema: fn() -> JsonObject,
}

impl ToolSpec {
    /// The JSON Schema of the tool's structured output, as declared; `None` for a tool that
    /// answers with text (and images) only.
    #[cfg(feature = "schemars")]
    pub fn output_schema(&self) -> Option<JsonObject> {
        match self.output {
            Output::Text => None,
            Output::PageAnswer => Some(object_of(&[("kind", "string")])),
            Output::Fields(fields) => Some(object_of(fields)),
            Output::Facts(facts) => Some((facts.schema)()),
        }
    }
}

/// The structured content (MCP `structuredContent`) a tool answers with beside its text,
/// declared to clients as its `outputSchema`.
#[derive(Debug, Clone, Copy)]
pub enum Output {
    /// Text (some tools add an image), with no structured content declared.
    Text,
    /// What a tool that acts on the page answers: the kind of answer (`full`, `no_change`,
    /// `delta`, `overlay_opened`, `overlay_closed`, `dialog_opened`), with the facts of that kind
    /// (the version among them) beside it. Only the kind is declared: every byte of a schema is
    /// paid for in every session.
    PageAnswer,
    /// A small object with these fields, each with its JSON type.
    Fields(&'static [(&'static str, &'static str)]),
    /// Facts whose schema is derived from their type (what the type writes, not what it reads).
    Facts(Facts),
}

/// A type of structured facts: its name and, with the `schemars` feature, its schema.
#[derive(Debug, Clone, Copy)]
pub struct Facts {
    /// The Rust type's path (`std::any::type_name`).
    pub type_name: fn() -> &'static str,
    /// Its JSON Schema for what it serializes to, without the type's own title and description.
    #[cfg(feature = "schemars")]
    pub schema: fn() -> JsonObject,
}

/// How a tool touches the user's world, from the user's side: what a client (and a permission
/// rule) judges a call by before it runs.
///
/// Finer classes of acting (a submit, a payment, a download, an upload, leaving the site,
/// running a script) are to come as further variants, and a call's own arguments may refine
/// its tool's class ([`super::ToolCall::effect`]). Every match on an effect is exhaustive, so
/// a new class makes each place that judges effects decide what it means there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Reads the page or Sightline's own records; nothing in the page or beyond it changes.
    Reads,
    /// Changes only Sightline's own bookkeeping (checkpoints), never the page.
    Bookkeeps,
    /// Changes what the page shows without committing anything (hover, scroll).
    Gentle,
    /// Acts in the page or the browser as the user would: may submit, buy, send or close.
    Acts,
}

/// When a session may list and call a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Always.
    Open,
    /// Only in a session started with this optional group (`sightline-host mcp --caps`); a
    /// call without it is refused with the way to turn it on.
    Cap(Cap),
    /// Listed only while the user allows it in the extension's options (for `browser_evaluate`,
    /// "Let agents run JavaScript in pages"); the host learns the option from each answer, and
    /// the extension refuses the tool while it is off, whatever the host believes.
    AllowedInOptions,
}

/// An optional group of tools, listed only when `sightline-host mcp --caps` names it (the names
/// follow Playwright MCP's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// Clicks and drags at coordinates, a last resort for what has no element, such as a canvas.
    Vision,
}

impl Cap {
    /// Every group.
    pub const ALL: [Cap; 1] = [Cap::Vision];

    /// The name `--caps` takes.
    pub fn name(self) -> &'static str {
        match self {
            Cap::Vision => "vision",
        }
    }

    /// What the group adds, for `--help`.
    pub fn help(self) -> &'static str {
        match self {
            Cap::Vision => "clicks and drags at coordinates, a last resort for what has no ref (a canvas)",
        }
    }

    /// The group called `name`.
    pub fn from_name(name: &str) -> Option<Cap> {
        Cap::ALL.into_iter().find(|cap| cap.name() == name)
    }
}

/// How a tool picks the tab it works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TabUse {
    /// One tab's page: the tab its `tab` argument names, else the session's current tab.
    Page,
    /// As [`TabUse::Page`], and it opens a tab for the agent when the session has none.
    PageOrNew,
    /// Lists, opens, selects or closes the agent's tabs; `tab` names one to select or close.
    Tabs,
    /// What was recorded across the agent's tabs; `tab` narrows it to one.
    Records,
    /// No tab at all.
    NoTab,
}

/// What the host does to a call before it leaves for the browser, which cannot do it itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostStep {
    /// Checks the files named for upload ([`super::ToolCall::upload_paths_mut`]) and gives the
    /// browser the paths they resolve to, which are what was checked: the extension cannot look
    /// at the file system.
    CheckUploadPaths,
}

/// Why a tool name and its arguments are not a call.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No tool has that name.
    #[error("no tool has that name")]
    NoSuchTool,
    /// The arguments do not fit the tool's parameter type (a missing or unknown argument, a
    /// value of the wrong type); serde's message names which.
    #[error("failed to deserialize parameters: {0}")]
    Arguments(serde_json::Error),
}

/// An object schema with these fields, each of this JSON type.
#[cfg(feature = "schemars")]
fn object_of(fields: &[(&str, &str)]) -> JsonObject {
    let properties: JsonObject =
        fields.iter().map(|(name, ty)| ((*name).to_owned(), serde_json::json!({"type": ty}))).collect();
    let mut schema = JsonObject::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    schema
}

/// The JSON Schema of what `T` accepts, as JSON Schema 2020-12 (the draft MCP names), without
/// the type's own title and description (the tool's description says it).
#[cfg(feature = "schemars")]
pub fn input_schema_of<T: schemars::JsonSchema>() -> JsonObject {
    root_schema::<T>(schemars::generate::SchemaSettings::draft2020_12())
}

/// The JSON Schema of what `T` writes, as [`input_schema_of`] but for serializing: a field
/// written with its default is always present.
#[cfg(feature = "schemars")]
pub fn output_schema_of<T: schemars::JsonSchema>() -> JsonObject {
    root_schema::<T>(schemars::generate::SchemaSettings::draft2020_12().for_serialize())
}

#[cfg(feature = "schemars")]
fn root_schema<T: schemars::JsonSchema>(settings: schemars::generate::SchemaSettings) -> JsonObject {
    let schema = settings.into_generator().into_root_schema_for::<T>();
    // Every parameter and facts type is a struct, whose schema is an object (a unit test checks
    // each tool's).
    let mut object = schema.as_object().cloned().unwrap_or_default();
    object.remove("title");
    object.remove("description");
    object
}
