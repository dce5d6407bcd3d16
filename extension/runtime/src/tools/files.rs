//! `browser_file_upload`: files for a file input by ref, or for the file chooser an agent's
//! action opened. The paths were checked by the host (absolute, existing, readable files in
//! ordinary places) and resolved before the call reached the browser: they name the files
//! themselves, not links to them. The extension cannot look at the file system.

use sightline_core::protocol::FileUploadParams;
use sightline_core::refs::NodeKey;

use super::CallContext;
use super::actions::{ActionResult, act, on_tab};
use crate::error::ToolError;
use crate::input::{self, NodeTarget};
use crate::state::Reach;

/// Called on the element: `"ok"`, `"single"` for a file input that takes one file, `"disabled"`,
/// or what it is when it is not a file input.
const FILE_INPUT: &str = r#"function (count) {
  if (this.localName !== 'input' || this.type !== 'file') return '<' + this.localName + (this.type ? ' type=' + this.type : '') + '>';
  if (this.disabled) return 'disabled';
  return count > 1 && !this.multiple ? 'single' : 'ok';
}"#;

/// `browser_file_upload`.
pub async fn upload(reach: &Reach<'_>, session: &str, params: FileUploadParams, ctx: &CallContext) -> ActionResult {
    let params = &params;
    on_tab(reach, session, params.tab, params.element_ref.as_deref(), ctx, |tab, node| async move {
        upload_on(reach, session, tab, node.zip(params.element_ref.as_deref()), params, ctx).await
    })
    .await
}

/// Gives the files of `params` to the file input `node` (with its ref), or else to the file
/// chooser an action opened, on the tab, locked and attached.
async fn upload_on(
    reach: &Reach<'_>,
    session: &str,
    tab: i32,
    node: Option<(NodeKey, &str)>,
    params: &FileUploadParams,
    ctx: &CallContext,
) -> ActionResult {
    let tool = "browser_file_upload";
    let paths = params.paths.clone();
    let count = paths.len();
    match node {
        Some((node, r)) => {
            let at = NodeTarget::of(reach.custody.tabs, tab, &node);
            match input::call_on_with(&at, &node, r, FILE_INPUT, serde_json::json!([{"value": count}])).await? {
                serde_json::Value::String(s) if s == "ok" => {}
                serde_json::Value::String(s) if s == "single" => {
                    return Err(ToolError::Invalid(format!("{r} takes one file, not {count}")).into());
                }
                serde_json::Value::String(s) if s == "disabled" => {
                    return Err(ToolError::element(r, crate::error::ElementProblem::ReadOnly).into());
                }
                other => {
                    let what = other.as_str().unwrap_or("element").to_owned();
                    return Err(ToolError::Invalid(format!("{r} is a {what}, not a file input")).into());
                }
            }
            let id = node.backend_node_id;
            act(reach, session, tab, None, ctx, tool, async move {
                let files = serde_json::json!({"files": paths, "backendNodeId": id});
                at.send::<serde_json::Value>("DOM.setFileInputFiles", files)
                    .await
                    .map_err(|e| input::node_error(e, r))?;
                Ok(())
            })
            .await
        }
        None => {
            let chooser =
                reach.custody.tabs.registry.borrow_mut().sessions.get_mut(&tab).and_then(|s| s.chooser.take());
            let Some(chooser) = chooser else {
                return Err(ToolError::Arguments(
                    "no file chooser is open: give the file input's `ref`, or first click what opens the chooser",
                )
                .into());
            };
            if count > 1 && !chooser.multiple {
                return Err(ToolError::Invalid(format!("the file chooser takes one file, not {count}")).into());
            }
            let target = crate::chrome::DebuggeeTarget::main(tab);
            let at = NodeTarget::frame(target, String::new());
            act(reach, session, tab, None, ctx, tool, async move {
                // No paths cancels the chooser: the input keeps what it had.
                if count > 0 {
                    let files = serde_json::json!({"files": paths, "backendNodeId": chooser.backend_node_id});
                    at.send::<serde_json::Value>("DOM.setFileInputFiles", files)
                        .await
                        .map_err(|e| input::node_error(e, "the chooser's file input"))?;
                }
                Ok(())
            })
            .await
        }
    }
}
