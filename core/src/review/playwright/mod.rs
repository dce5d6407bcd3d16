//! A session exported as a Playwright Test spec in TypeScript: the agent's navigations, clicks,
//! typing, selects, checks, uploads, dialogs and key presses, each element found by role and
//! accessible name ([`locators`]), each action followed by web-first assertions for what it
//! visibly changed ([`assertions`]), so the spec does again without a model what the agent did
//! and fails when the page no longer behaves the same.
//!
//! Made from the recorded calls alone, where secrets were already masked: a value typed into a
//! secret field was never recorded, so the spec reads it from an environment variable
//! (`SIGHTLINE_PASSWORD`) named after the field, and lists the variables it needs at its top.

pub mod assertions;
pub mod locators;

use std::collections::BTreeSet;

use serde_json::Value;

use super::export::SessionExport;
use super::session_log::CallRecord;
use super::target::ActionTarget;
use crate::urls::secrets::MASK;
use locators::{comment_text, js, locate};

/// Which calls go into a spec: those that ended at a page version in `from..=to` (all when
/// unset).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpecRange {
    /// The first version.
    pub from_version: Option<u64>,
    /// The last version.
    pub to_version: Option<u64>,
}

impl SpecRange {
    fn holds(&self, call: &CallRecord) -> bool {
        let Some(version) = call.version_after else { return self.from_version.is_none() && self.to_version.is_none() };
        self.from_version.is_none_or(|f| version >= f) && self.to_version.is_none_or(|t| version <= t)
    }
}

/// The spec for the calls of `export` in `range`, or what the agent should do to get one.
pub fn playwright_spec(export: &SessionExport, range: SpecRange) -> Result<String, String> {
    let calls: Vec<&CallRecord> = export.calls.iter().filter(|c| range.holds(c) && !c.is_error).collect();
    let mut writer = Writer::default();
    for (i, call) in calls.iter().enumerate() {
        // A dialog is answered by a handler set before the action that opens it.
        let next_action = calls[i + 1..].iter().find(|c| replayed(&c.tool));
        if let Some(next) = next_action.filter(|c| c.tool == "browser_handle_dialog") {
            writer.dialog_handler(&next.args);
        }
        writer.call(call);
    }
    if writer.actions == 0 {
        let range = match (range.from_version, range.to_version) {
            (None, None) => "this tab".to_owned(),
            (f, t) => format!(
                "versions {} to {}",
                f.map_or("the first".to_owned(), |v| format!("v{v}")),
                t.map_or("the last".to_owned(), |v| format!("v{v}"))
            ),
        };
        return Err(format!(
            "no navigation or action on {range} was recorded to make a test of: act on the page first (browser_navigate, browser_click…), or widen from_version/to_version"
        ));
    }
    Ok(writer.finish(export))
}

/// Whether a call of `tool` is replayed in the spec (anything else only reads the page).
fn replayed(tool: &str) -> bool {
    matches!(
        tool,
        "browser_navigate"
            | "browser_click"
            | "browser_type"
            | "browser_press_key"
            | "browser_select_option"
            | "browser_hover"
            | "browser_handle_dialog"
            | "browser_fill_form"
            | "browser_file_upload"
    )
}

/// The spec as it is written.
#[derive(Default)]
struct Writer {
    body: Vec<String>,
    /// Environment variables the spec reads, with what each is for.
    parameters: BTreeSet<(String, String)>,
    actions: usize,
}

impl Writer {
    fn line(&mut self, text: impl Into<String>) {
        self.body.push(format!("  {}", text.into()));
    }

    fn dialog_handler(&mut self, args: &Value) {
        let accept = args.get("accept").and_then(Value::as_bool).unwrap_or(true);
        let answer = match args.get("prompt_text").and_then(Value::as_str) {
            Some(text) if accept => js(text),
            _ => String::new(),
        };
        let how = if accept { format!("dialog.accept({answer})") } else { "dialog.dismiss()".to_owned() };
        self.line(format!("page.once(\"dialog\", (dialog) => void {how});"));
    }

    fn call(&mut self, call: &CallRecord) {
        if !replayed(&call.tool) {
            return;
        }
        let args = &call.args;
        let text = |name: &str| args.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
        let target = |element_ref: &str| call.targets.iter().find(|t| t.element_ref == element_ref.trim());
        self.body.push(String::new());
        self.line(format!("// {}. {}", call.seq, comment_text(&call.tool)));
        let before = self.body.len();
        match call.tool.as_str() {
            "browser_navigate" => {
                match (args.get("url").and_then(Value::as_str), args.get("go").and_then(Value::as_str)) {
                    (Some(url), _) => {
                        let url = self.url(url);
                        self.line(format!("await page.goto({url});"));
                    }
                    (None, Some("back")) => self.line("await page.goBack();"),
                    (None, Some("forward")) => self.line("await page.goForward();"),
                    _ => self.line("await page.reload();"),
                }
            }
            "browser_click" => {
                let how = if args.get("double").and_then(Value::as_bool) == Some(true) { "dblclick" } else { "click" };
                let button = args.get("button").and_then(Value::as_str).filter(|b| *b != "left");
                let options = button.map(|b| format!("{{ button: {} }}", js(b))).unwrap_or_default();
                self.on(target(&text("ref")), &text("ref"), &format!("{how}({options})"));
            }
            "browser_hover" => self.on(target(&text("ref")), &text("ref"), "hover()"),
            "browser_type" => {
                let element = target(&text("ref"));
                let value = self.value(&text("text"), element);
                self.on(element, &text("ref"), &format!("fill({value})"));
                if args.get("submit").and_then(Value::as_bool) == Some(true) {
                    self.on(element, &text("ref"), "press(\"Enter\")");
                }
            }
            "browser_select_option" => {
                let values: Vec<String> = args
                    .get("values")
                    .and_then(Value::as_array)
                    .map(|v| v.iter().filter_map(Value::as_str).map(js).collect())
                    .unwrap_or_default();
                let values = if values.len() == 1 { values[0].clone() } else { format!("[{}]", values.join(", ")) };
                self.on(target(&text("ref")), &text("ref"), &format!("selectOption({values})"));
            }
            "browser_press_key" => match args.get("ref").and_then(Value::as_str) {
                Some(r) => self.on(target(r), r, &format!("press({})", js(&text("key")))),
                None => self.line(format!("await page.keyboard.press({});", js(&text("key")))),
            },
            "browser_fill_form" => self.fill_form(call),
            "browser_file_upload" => self.upload(call),
            // Answered by the handler set before the action that opened it.
            _ => self.line("// the dialog was answered by the handler set before the action that opened it"),
        }
        if self.body.len() > before {
            self.actions += 1;
        }
        for assertion in assertions::assertions(&call.answer) {
            self.line(assertion);
        }
    }

    /// `await <locator>.<action>;`, with the locator's reason for not being role and name.
    fn on(&mut self, target: Option<&ActionTarget>, element_ref: &str, action: &str) {
        let Some(target) = target else {
            self.line(format!(
                "// {} could not be found again: the page the agent acted on did not record it",
                comment_text(element_ref)
            ));
            return;
        };
        let located = locate(target);
        if let Some(why) = located.why {
            self.line(format!("// {why}"));
        }
        self.line(format!("await {}.{action};", located.expression));
    }

    fn fill_form(&mut self, call: &CallRecord) {
        let fields = call.args.get("fields").and_then(Value::as_array).cloned().unwrap_or_default();
        for field in fields {
            let get = |name: &str| field.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
            let element_ref = get("ref");
            let target = call.targets.iter().find(|t| t.element_ref == element_ref);
            let action = match get("type").as_str() {
                "checkbox" | "radio" if get("value") == "false" => "uncheck()".to_owned(),
                "checkbox" | "radio" => "check()".to_owned(),
                "combobox" => format!("selectOption({})", js(&get("value"))),
                "slider" => format!("fill({})", js(&get("value"))),
                _ => format!("fill({})", self.value(&get("value"), target)),
            };
            self.on(target, &element_ref, &action);
        }
    }

    fn upload(&mut self, call: &CallRecord) {
        let count = call.args.get("paths").and_then(Value::as_array).map_or(0, Vec::len);
        let files: Vec<String> = (1..=count)
            .map(|n| {
                let name = format!("SIGHTLINE_UPLOAD_{n}");
                self.parameters.insert((name.clone(), format!("the path of file {n} to upload")));
                format!("param({})", js(&name))
            })
            .collect();
        let files = format!("[{}]", files.join(", "));
        match call.args.get("ref").and_then(Value::as_str) {
            Some(r) => {
                let target = call.targets.iter().find(|t| t.element_ref == r);
                self.on(target, r, &format!("setInputFiles({files})"));
            }
            None => self.line(format!(
                "// the file chooser was opened by the action before; its files:\n  const files = {files};"
            )),
        }
    }

    /// A typed value as a literal, or as a parameter when it was masked.
    fn value(&mut self, text: &str, target: Option<&ActionTarget>) -> String {
        if text != MASK && !target.is_some_and(|t| t.secret) {
            return js(text);
        }
        let label = target.map(|t| t.name.as_str()).unwrap_or_default();
        let name = parameter_name(label, self.parameters.len() + 1);
        self.parameters.insert((name.clone(), format!("the value of the secret field \"{}\"", comment_text(label))));
        format!("param({})", js(&name))
    }

    /// A URL as a literal, or a template reading its masked parameters from the environment.
    fn url(&mut self, url: &str) -> String {
        if !url.contains(MASK) {
            return js(url);
        }
        let mut out = String::from("`");
        for (i, part) in url.split(MASK).enumerate() {
            if i > 0 {
                let key = out.rsplit(['?', '&']).next().unwrap_or_default().trim_end_matches('=').to_owned();
                let name = parameter_name(&format!("url {key}"), self.parameters.len() + 1);
                self.parameters.insert((name.clone(), format!("the secret URL parameter \"{}\"", comment_text(&key))));
                out.push_str(&format!("${{encodeURIComponent(param({}))}}", js(&name)));
            }
            out.push_str(&part.replace('\\', "\\\\").replace('`', "\\`").replace("${", "\\${"));
        }
        out.push('`');
        out
    }

    fn finish(self, export: &SessionExport) -> String {
        let title = export.title.as_deref().filter(|t| !t.is_empty()).unwrap_or("a Sightline session");
        let mut out = vec![
            format!("// Exported by {} at {} from tab {}.", export.exported_by, export.exported_at, export.tab),
            "// What an agent did, replayed without a model; each step checks what the agent saw change.".to_owned(),
        ];
        if !self.parameters.is_empty() {
            out.push(
                "// Values the agent typed into secret fields are not in this file. Set before running:".to_owned(),
            );
            out.extend(self.parameters.iter().map(|(name, about)| format!("//   {name}: {about}")));
        }
        out.push("import { test, expect } from \"@playwright/test\";".to_owned());
        out.push(String::new());
        if !self.parameters.is_empty() {
            out.push("function param(name: string): string {".to_owned());
            out.push("  const value = process.env[name];".to_owned());
            out.push(
                "  if (value === undefined) throw new Error(`set ${name} in the environment to run this test`);"
                    .to_owned(),
            );
            out.push("  return value;".to_owned());
            out.push("}".to_owned());
            out.push(String::new());
        }
        out.push(format!("test({}, async ({{ page }}) => {{", js(&comment_text(title))));
        out.extend(self.body.into_iter().skip_while(String::is_empty));
        out.push("});".to_owned());
        out.push(String::new());
        out.join("\n")
    }
}

/// `SIGHTLINE_<LABEL>` from a field's label (`Password` → `SIGHTLINE_PASSWORD`), or a numbered
/// name when the label has no letters or digits.
pub fn parameter_name(label: &str, number: usize) -> String {
    let mut name = String::new();
    for c in label.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_uppercase());
        } else if !name.ends_with('_') && !name.is_empty() {
            name.push('_');
        }
    }
    let name = name.trim_end_matches('_');
    if name.is_empty() { format!("SIGHTLINE_SECRET_{number}") } else { format!("SIGHTLINE_{name}") }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
