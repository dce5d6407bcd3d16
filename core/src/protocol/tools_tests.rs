//! The declarations read back: names, wire tags, reading a call by name, and what each
//! per-tool method answers.

use super::*;
use crate::protocol::{CallError, HostStep, TabUse};
use serde_json::{Map, json};

#[test]
fn every_tool_has_one_name_and_its_wire_tag_is_that_name() {
    let mut names: Vec<&str> = TOOLS.iter().map(|spec| spec.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), TOOLS.len(), "a name is declared twice");
    for spec in TOOLS {
        // The extension reads the tagged form; a tag it does not know is an unknown variant,
        // whereas a known tag with missing arguments fails on the arguments.
        match serde_json::from_value::<ToolCall>(json!({"tool": spec.name, "args": {}})) {
            Ok(call) => {
                assert_eq!(call.name(), spec.name);
                assert_eq!(serde_json::to_value(&call).unwrap()["tool"], spec.name);
            }
            Err(e) => assert!(!e.to_string().contains("unknown variant"), "{}: {e}", spec.name),
        }
    }
}

#[test]
fn a_call_is_read_by_name_exactly_as_the_extension_reads_it_from_the_wire() {
    let args = json!({"ref": "e3", "double": true, "tab": 7});
    let call = ToolCall::from_arguments("browser_click", args.as_object().unwrap().clone()).unwrap();
    let wire: ToolCall = serde_json::from_value(json!({"tool": "browser_click", "args": args})).unwrap();
    assert_eq!(call, wire);
    assert_eq!((call.name(), call.tab(), call.element_ref()), ("browser_click", Some(7), Some("e3")));
    assert_eq!(call.spec().tab, TabUse::Page);

    let unknown = ToolCall::from_arguments("browser_click", Map::from_iter([("foo".to_owned(), json!(1))]));
    let Err(CallError::Arguments(e)) = unknown else { panic!("{unknown:?}") };
    assert!(e.to_string().contains("unknown field `foo`"), "{e}");
    let teleport = ToolCall::from_arguments("browser_teleport", Map::new());
    assert!(matches!(teleport, Err(CallError::NoSuchTool)), "{teleport:?}");
}

#[test]
fn a_tool_that_touches_no_tab_names_none() {
    for spec in TOOLS.iter().filter(|spec| spec.tab == TabUse::NoTab) {
        let call = ToolCall::from_arguments(spec.name, Map::new()).unwrap();
        assert_eq!(call.tab(), None, "{}", spec.name);
    }
    let checkpoint = ToolCall::BrowserCheckpoint(Default::default());
    assert_eq!(checkpoint.spec().tab, TabUse::NoTab);
}

#[test]
fn only_the_upload_names_paths_for_the_host_to_check() {
    for spec in TOOLS {
        let declared = spec.host_step.is_some();
        let call = ToolCall::from_arguments(spec.name, Map::new());
        if let Ok(mut call) = call {
            assert_eq!(call.upload_paths_mut().is_some(), declared, "{}", spec.name);
        }
    }
    let mut upload = ToolCall::BrowserFileUpload(FileUploadParams { paths: vec!["/a".into()], ..Default::default() });
    assert_eq!(upload.upload_paths_mut().map(|p| p.len()), Some(1));
    assert_eq!(upload.spec().host_step, Some(HostStep::CheckUploadPaths));
}

#[test]
fn agent_actions_are_described_without_typed_text() {
    let typed = ToolCall::BrowserType(TypeParams {
        element_ref: "e4".into(),
        text: "hunter2".into(),
        submit: true,
        ..Default::default()
    });
    assert_eq!(typed.action(), Some((ActionKind::Type, "type into e4 and submit".into())));
    let click = ToolCall::BrowserClick(ClickParams { element_ref: "e12".into(), double: true, ..Default::default() });
    assert_eq!(click.action(), Some((ActionKind::Click, "double-click e12".into())));
    let back = ToolCall::BrowserNavigate(NavigateParams { go: Some(HistoryMove::Back), ..Default::default() });
    assert_eq!(back.action(), Some((ActionKind::Navigate, "go back".into())));
    let load = ToolCall::BrowserNavigate(NavigateParams { url: Some("example.com".into()), ..Default::default() });
    assert_eq!(load.action(), Some((ActionKind::Navigate, "navigate".into())), "the action's url says where");
    let key = ToolCall::BrowserPressKey(PressKeyParams {
        key: "Enter".into(),
        element_ref: Some("e2".into()),
        ..Default::default()
    });
    assert_eq!(key.action(), Some((ActionKind::Key, "press Enter on e2".into())));
    assert_eq!(ToolCall::GetChangesSince(Default::default()).action(), None);
}

#[test]
fn tools_that_only_read_record_no_action() {
    for spec in TOOLS.iter().filter(|spec| spec.effect == Effect::Reads) {
        if let Ok(call) = ToolCall::from_arguments(spec.name, Map::new()) {
            assert_eq!(call.action(), None, "{}", spec.name);
        }
    }
}
