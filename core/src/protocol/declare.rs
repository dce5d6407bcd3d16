//! The macro each tool is declared with, once, in [`super::tools`].
//!
//! From one declaration per tool it writes the [`super::ToolCall`] enum (one variant holding
//! the tool's parameter type, tagged on the wire with the tool's name), the [`super::TOOLS`]
//! table of [`super::ToolSpec`]s, and the `ToolCall` methods that answer per tool what its
//! declaration says: its spec, the tab and element it names, how the timeline describes it,
//! the paths the host checks, and reading a call from a tool name and its arguments. Every
//! method is a match over all tools, so a tool cannot be declared without saying each of
//! these things.

/// Declares the tools. Each entry:
///
/// ```text
/// Variant {
///     name: "browser_x",
///     params: XParams,
///     description: "What tools/list says.",
///     output: Text | PageAnswer | Fields("field": "json type", …) | Facts(Type),
///     effect: Effect::…,
///     gate: Gate::…,
///     tab: Page | PageOrNew | Tabs | Records | NoTab,
///     element: |p| <the element ref it names, Option<&str>>,
///     action: |p| <how the timeline records it, Option<(ActionKind, String)>>,
///     upload_paths: field,   // only for a tool whose host step checks files
/// }
/// ```
macro_rules! declare_tools {
    ($(
        $variant:ident {
            name: $name:literal,
            params: $params:ty,
            description: $description:literal,
            output: $output:ident $(($($output_args:tt)*))?,
            effect: $effect:expr,
            gate: $gate:expr,
            tab: $tab:ident,
            element: |$element_p:pat_param| $element:expr,
            action: |$action_p:pat_param| $action:expr,
            $(upload_paths: $upload_field:ident,)?
        }
    ),* $(,)?) => {
        /// One tool call: the tool's name (`tool`) and its arguments (`args`).
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(tag = "tool", content = "args")]
        pub enum ToolCall {
            $(
                #[doc = concat!("`", $name, "`")]
                #[serde(rename = $name)]
                $variant($params),
            )*
        }

        /// Each tool's spec, by the name of its [`ToolCall`] variant.
        #[allow(non_upper_case_globals, reason = "named after the variants they describe")]
        mod specs {
            use super::*;
            use $crate::protocol::tool_spec::*;
            $(
                pub const $variant: ToolSpec = ToolSpec {
                    name: $name,
                    description: $description,
                    output: tool_output!($output $(($($output_args)*))?),
                    effect: $effect,
                    gate: $gate,
                    tab: TabUse::$tab,
                    host_step: host_step!($($upload_field)?),
                    #[cfg(feature = "schemars")]
                    input_schema: input_schema_of::<$params>,
                };
            )*
        }

        /// Every tool, in the order declared.
        pub const TOOLS: &[$crate::protocol::tool_spec::ToolSpec] = &[$(specs::$variant),*];

        impl ToolCall {
            /// The declaration of the tool this call is for.
            pub fn spec(&self) -> &'static $crate::protocol::tool_spec::ToolSpec {
                match self {
                    $(ToolCall::$variant(_) => &specs::$variant,)*
                }
            }

            /// The tool's MCP name.
            pub fn name(&self) -> &'static str {
                self.spec().name
            }

            /// What this call does to the user's world. Today the tool's declared effect; the
            /// place where a call's arguments may make it more precise.
            pub fn effect(&self) -> $crate::protocol::tool_spec::Effect {
                self.spec().effect
            }

            /// The tab the call names explicitly, if any.
            pub fn tab(&self) -> Option<u32> {
                match self {
                    $(ToolCall::$variant(p) => tab_argument!($tab, p),)*
                }
            }

            /// The element ref the call names, if any.
            pub fn element_ref(&self) -> Option<&str> {
                match self {
                    $(ToolCall::$variant($element_p) => $element,)*
                }
            }

            /// The kind and a short description of the action this call performs, as the
            /// timeline records it; `None` for tools that do not act on a page. A navigation's
            /// URL is not repeated: the action's `url` (the tab's URL afterwards) says where it
            /// went. Typed text never appears.
            pub fn action(&self) -> Option<($crate::changes::ActionKind, String)> {
                match self {
                    $(ToolCall::$variant($action_p) => $action,)*
                }
            }

            /// The file paths the host checks before the call leaves it
            /// ([`HostStep::CheckUploadPaths`](crate::protocol::HostStep::CheckUploadPaths)),
            /// to be replaced by what they resolve to.
            pub fn upload_paths_mut(&mut self) -> Option<&mut Vec<String>> {
                match self {
                    $(ToolCall::$variant(p) => upload_paths!(p $(, $upload_field)?),)*
                }
            }

            /// Reads the call of the tool called `name` from its `arguments`, exactly as the
            /// extension reads it from the wire.
            pub fn from_arguments(
                name: &str,
                arguments: $crate::protocol::tool_spec::JsonObject,
            ) -> Result<ToolCall, $crate::protocol::tool_spec::CallError> {
                use $crate::protocol::tool_spec::CallError;
                match name {
                    $(
                        $name => serde_json::from_value::<$params>(serde_json::Value::Object(arguments))
                            .map(ToolCall::$variant)
                            .map_err(CallError::Arguments),
                    )*
                    _ => Err(CallError::NoSuchTool),
                }
            }
        }
    };
}

/// The [`Output`](super::Output) an entry's `output:` names.
macro_rules! tool_output {
    (Text) => {
        Output::Text
    };
    (PageAnswer) => {
        Output::PageAnswer
    };
    (Fields($($field:literal: $ty:literal),* $(,)?)) => {
        Output::Fields(&[$(($field, $ty)),*])
    };
    (Facts($facts:ty)) => {
        Output::Facts(Facts {
            type_name: std::any::type_name::<$facts>,
            #[cfg(feature = "schemars")]
            schema: output_schema_of::<$facts>,
        })
    };
}

/// The host step of an entry: checking uploads when it names its paths field.
macro_rules! host_step {
    () => {
        None
    };
    ($field:ident) => {
        Some(HostStep::CheckUploadPaths)
    };
}

/// The tab an entry's parameters name: every tool that uses a tab takes a `tab` argument.
macro_rules! tab_argument {
    (NoTab, $p:ident) => {{
        let _ = $p;
        None
    }};
    ($tab_use:ident, $p:ident) => {
        $p.tab
    };
}

/// The upload paths of an entry's parameters, when it declares them.
macro_rules! upload_paths {
    ($p:ident) => {{
        let _ = $p;
        None
    }};
    ($p:ident, $field:ident) => {
        Some(&mut $p.$field)
    };
}

pub(super) use {declare_tools, host_step, tab_argument, tool_output, upload_paths};
