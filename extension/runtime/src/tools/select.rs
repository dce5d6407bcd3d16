//! `browser_select_text`: selects the text of an element, or the first occurrence of some
//! words in it (compared with runs of white space as one space, as a snapshot writes them), the
//! way a person drags over them: the page's `selectionchange` and selection-based menus follow.

use sightline_core::protocol::SelectTextParams;
use sightline_core::snapshot::escape;

use super::CallContext;
use super::actions::{ActionResult, act, act_on_ref, on_tab};
use super::page::on_document;
use crate::error::ToolError;
use crate::input;
use crate::state::Reach;

/// Called on the element with the words wanted (or `null` for all of its text): selects them
/// and answers `{selected}`, or `{missing: true}`.
const SELECT_TEXT: &str = r#"function (wanted) {
  const doc = this.nodeType === 9 ? this : this.ownerDocument;
  const root = this.nodeType === 9 ? this.body : this;
  const norm = (s) => s.replace(/\s+/g, ' ');
  if (root.localName === 'input' || root.localName === 'textarea') {
    const value = root.value;
    const at = wanted ? value.indexOf(wanted) : 0;
    if (at < 0) return { missing: true };
    root.focus();
    if (!wanted) { root.select(); return { selected: value }; }
    // Some types (email, number) only select whole.
    try { root.setSelectionRange(at, at + wanted.length); } catch (e) { return { whole: root.type }; }
    return { selected: value.slice(at, at + wanted.length) };
  }
  // The element's text with white space runs as one space, and where each character came from.
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let text = '';
  const from = [];
  while (walker.nextNode()) {
    const node = walker.currentNode;
    for (let i = 0; i < node.data.length; i++) {
      const c = /\s/.test(node.data[i]) ? ' ' : node.data[i];
      if (c === ' ' && text.endsWith(' ')) continue;
      text += c;
      from.push([node, i]);
    }
  }
  const goal = wanted ? norm(wanted).trim() : text.trim();
  const start = goal ? text.indexOf(goal) : -1;
  if (start < 0) return { missing: true };
  const last = from[start + goal.length - 1];
  const range = doc.createRange();
  range.setStart(from[start][0], from[start][1]);
  range.setEnd(last[0], last[1] + 1);
  const selection = doc.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  return { selected: norm(range.toString()) };
}"#;

/// `browser_select_text`.
pub async fn select_text(
    reach: &Reach<'_>,
    session: &str,
    params: SelectTextParams,
    ctx: &CallContext,
) -> ActionResult {
    if params.text.as_deref().is_some_and(|t| t.trim().is_empty()) {
        return Err(ToolError::Arguments("`text` is empty: leave it out to select all of the element's text").into());
    }
    if params.element_ref.is_none() && params.text.is_none() {
        return Err(ToolError::Arguments("give `text` to select on the page, or the `ref` of an element").into());
    }
    let tool = "browser_select_text";
    let args = serde_json::json!([{"value": params.text}]);
    let noted = std::cell::RefCell::new(None);
    let what = params.element_ref.clone().unwrap_or_else(|| "the page".to_owned());
    let (noted_ref, what_ref, wanted) = (&noted, &what, &params.text);
    let record = move |outcome: serde_json::Value| match outcome["selected"].as_str() {
        Some(selected) => {
            *noted_ref.borrow_mut() = Some(selected.to_owned());
            Ok(())
        }
        None => match outcome["whole"].as_str() {
            Some(kind) => Err(ToolError::Invalid(format!(
                "{what_ref} is an <input type={kind}>, whose text is selected whole: leave out `text`"
            ))),
            None => Err(ToolError::Invalid(format!(
                "{what_ref} has no text {}; take a browser_snapshot to see what it says",
                escape::quote(wanted.as_deref().unwrap_or(""))
            ))),
        },
    };
    let mut answer =
        match &params.element_ref {
            Some(element_ref) => {
                act_on_ref(reach, session, params.tab, element_ref, None, ctx, tool, |at, node, _| async move {
                    record(input::call_on_with(&at, &node, element_ref, SELECT_TEXT, args).await?)
                })
                .await?
            }
            None => {
                on_tab(reach, session, params.tab, None, ctx, |tab, _| async move {
                    act(reach, session, tab, None, ctx, tool, async move {
                        record(on_document(tab, SELECT_TEXT, args).await?)
                    })
                    .await
                })
                .await?
            }
        };
    if let Some(selected) = noted.take()
        && !answer.is_error
    {
        let chars = selected.chars().count();
        let shown = escape::quote(&escape::cap(&selected, 200));
        answer.text = format!("! selected {shown} ({chars} characters)\n{}", answer.text);
    }
    Ok(answer)
}
