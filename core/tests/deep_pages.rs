//! Deep pages: a page nested tens of thousands of elements deep compiles on a stack no larger
//! than the extension's wasm stack (1 MiB), and what lies at the bottom still reaches the agent:
//! the button there has a ref and its name, the text on the way down is read in order, and what
//! the page hid on the way down stays hidden.
//!
//! The captures are built here in the exact flat shape `DOMSnapshot.captureSnapshot` returns,
//! without an accessibility tree (as the extension captures), so the engine derives every role
//! and name itself.

use serde_json::{Value, json};
use sightline_core::capture::Capture;
use sightline_core::refs::RefRegistry;
use sightline_core::snapshot::depth::{DEEPEST, RULING_KEPT};
use sightline_core::snapshot::render::{RenderOptions, render};
use sightline_core::snapshot::tree::PageTree;
use sightline_core::snapshot::{Snapshot, compile};

/// The stack the extension's runtime has: the default of the wasm32 target.
const WASM_STACK: usize = 1024 * 1024;

/// A page built node by node, parents before children, as `DOMSnapshot` lists them.
struct FlatPage {
    strings: Vec<String>,
    parent: Vec<i64>,
    node_type: Vec<i64>,
    node_name: Vec<i64>,
    node_value: Vec<i64>,
    attributes: Vec<Vec<i64>>,
    layout: Vec<(i64, &'static str, &'static str)>,
}

impl FlatPage {
    /// A document with `<html>` and `<body>`; returns it and the body's index.
    fn new() -> (FlatPage, i64) {
        let mut page = FlatPage {
            strings: Vec::new(),
            parent: Vec::new(),
            node_type: Vec::new(),
            node_name: Vec::new(),
            node_value: Vec::new(),
            attributes: Vec::new(),
            layout: Vec::new(),
        };
        let document = page.node(-1, 9, "#document", None, &[]);
        let html = page.element(document, "HTML", &[]);
        let body = page.element(html, "BODY", &[]);
        (page, body)
    }

    fn string(&mut self, s: &str) -> i64 {
        match self.strings.iter().rposition(|x| x == s) {
            Some(i) => i as i64,
            None => {
                self.strings.push(s.to_owned());
                self.strings.len() as i64 - 1
            }
        }
    }

    fn node(&mut self, parent: i64, kind: i64, name: &str, value: Option<&str>, attrs: &[(&str, &str)]) -> i64 {
        let name = self.string(name);
        let value = value.map(|v| self.string(v)).unwrap_or(-1);
        let attrs = attrs.iter().flat_map(|(k, v)| [*k, *v]).map(|s| self.string(s)).collect();
        self.parent.push(parent);
        self.node_type.push(kind);
        self.node_name.push(name);
        self.node_value.push(value);
        self.attributes.push(attrs);
        self.parent.len() as i64 - 1
    }

    /// A laid-out, visible block element.
    fn element(&mut self, parent: i64, tag: &str, attrs: &[(&str, &str)]) -> i64 {
        let index = self.node(parent, 1, tag, None, attrs);
        self.layout.push((index, "block", "1"));
        index
    }

    /// An element with `opacity: 0`, hiding all it holds.
    fn transparent(&mut self, parent: i64, tag: &str) -> i64 {
        let index = self.node(parent, 1, tag, None, &[]);
        self.layout.push((index, "block", "0"));
        index
    }

    fn text(&mut self, parent: i64, text: &str) -> i64 {
        let index = self.node(parent, 3, "#text", Some(text), &[]);
        self.layout.push((index, "inline", "1"));
        index
    }

    /// `levels` nested `<div>`s under `parent`; returns the innermost.
    fn nest(&mut self, parent: i64, levels: usize) -> i64 {
        self.nest_of(parent, levels, &[("DIV", &[])])
    }

    /// `levels` nested elements under `parent`, `pattern` repeated from the top; returns the
    /// innermost.
    fn nest_of(&mut self, parent: i64, levels: usize, pattern: &[Tag]) -> i64 {
        (0..levels).fold(parent, |at, level| {
            let (tag, attrs) = pattern[level % pattern.len()];
            self.element(at, tag, attrs)
        })
    }

    fn capture(mut self) -> Capture {
        let mut styles = Vec::new();
        let mut bounds = Vec::new();
        let mut node_index = Vec::new();
        for (n, (index, display, opacity)) in std::mem::take(&mut self.layout).into_iter().enumerate() {
            let style = [display, "visible", opacity, "rgba(0, 0, 0, 0)", "auto", "normal", "static", "auto", "none"];
            styles.push(style.iter().map(|s| self.string(s)).collect::<Vec<_>>());
            bounds.push(vec![8.0, n as f64 * 2.0, 600.0, 18.0]);
            node_index.push(index);
        }
        let count = self.parent.len() as i64;
        let (url, title, frame) = (self.string("https://deep.test/"), self.string("Deep page"), self.string("MAIN"));
        let paint: Vec<i64> = (0..node_index.len() as i64).collect();
        let capture: Value = json!({
            "main": {
                "frameTree": {"frameTree": {"frame": {"id": "MAIN", "loaderId": "L1", "url": "https://deep.test/"}}},
                "snapshot": {
                    "documents": [{
                        "documentURL": url, "title": title, "frameId": frame,
                        "nodes": {
                            "parentIndex": self.parent, "nodeType": self.node_type, "nodeName": self.node_name,
                            "nodeValue": self.node_value, "backendNodeId": (1..=count).collect::<Vec<_>>(),
                            "attributes": self.attributes,
                        },
                        "layout": {"nodeIndex": node_index, "styles": styles, "bounds": bounds, "text": [],
                                   "paintOrders": paint},
                    }],
                    "strings": self.strings,
                },
                "axTrees": [],
            },
            "layout": {"cssVisualViewport": {"pageX": 0, "pageY": 0, "clientWidth": 1280, "clientHeight": 800}},
        });
        serde_json::from_value(capture).expect("a capture")
    }
}

/// An element's tag and attributes.
type Tag = (&'static str, &'static [(&'static str, &'static str)]);

/// A page `depth` elements deep: a line of text at the top, one halfway down, and a button at
/// the bottom.
fn deep_page(depth: usize) -> Capture {
    let (mut page, body) = FlatPage::new();
    let top = page.element(body, "P", &[]);
    page.text(top, "At the top");
    let halfway = page.nest(body, depth / 2);
    let note = page.element(halfway, "P", &[]);
    page.text(note, "Halfway down");
    let bottom = page.nest(halfway, depth - depth / 2);
    let button = page.element(bottom, "BUTTON", &[]);
    page.text(button, "Deep button");
    page.capture()
}

/// Runs `work` on a thread with the wasm stack's size; a stack overflow aborts the test.
fn on_wasm_sized_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(WASM_STACK)
        .spawn(work)
        .expect("a thread")
        .join()
        .expect("the work ran to its end")
}

fn rendered(snapshot: &Snapshot) -> String {
    render(snapshot, 1, &RenderOptions { ceiling_tokens: usize::MAX, ..Default::default() }).text
}

/// Compiles a page `depth` deep on a wasm-sized stack; checks the button has a ref and its
/// name, and the text on the way down is read in order.
fn compiles_with_the_button_reachable(depth: usize) {
    let capture = deep_page(depth);
    let snapshot = on_wasm_sized_stack(move || compile(&capture, &mut RefRegistry::default()));
    let text = rendered(&snapshot);
    let button = snapshot.elements.iter().find(|e| e.facts.role == "button");
    let button = button.unwrap_or_else(|| panic!("no button in the snapshot of a page {depth} deep:\n{text}"));
    assert_eq!(button.facts.name, "Deep button", "{text}");
    assert_eq!(snapshot.elements.len(), 1, "{text}");
    let line = format!("e{} button \"Deep button\"", button.number);
    let at = |wanted: &str| text.find(wanted).unwrap_or_else(|| panic!("{wanted:?} is missing:\n{text}"));
    assert!(at("At the top") < at("Halfway down") && at("Halfway down") < at(&line), "{text}");
}

#[test]
fn a_page_twenty_thousand_deep_compiles_on_the_wasm_stack_with_its_button_reachable() {
    compiles_with_the_button_reachable(20_000);
}

#[test]
fn a_page_a_hundred_thousand_deep_compiles_on_the_wasm_stack_with_its_button_reachable() {
    compiles_with_the_button_reachable(100_000);
}

#[test]
fn every_kind_of_nesting_far_past_the_bound_compiles_on_the_wasm_stack() {
    // What each stage walks in its own way: wrappers, inline runs, lists, tables, named groups,
    // controls inside controls, labels, regions, headings, drawings, and what hides its content.
    // The stack a walk needs depends on how deep the tree is once bounded, not on how deep the
    // page was: a few times the bound shows it, at a fraction of the time.
    let patterns: &[&[Tag]] = &[
        &[("SPAN", &[])],
        &[("UL", &[]), ("LI", &[])],
        &[("OL", &[]), ("LI", &[]), ("P", &[])],
        &[("TABLE", &[]), ("TBODY", &[]), ("TR", &[]), ("TD", &[])],
        &[("DIV", &[("role", "table")]), ("DIV", &[("role", "row")]), ("DIV", &[("role", "cell")])],
        &[("FIELDSET", &[]), ("DIV", &[("role", "group"), ("aria-label", "Options")])],
        &[("A", &[("href", "#deeper")])],
        &[("BUTTON", &[])],
        &[("DIV", &[("onclick", "go()"), ("tabindex", "0")])],
        &[("LABEL", &[])],
        &[("SECTION", &[("aria-label", "Part")]), ("NAV", &[]), ("DIV", &[("role", "dialog")])],
        &[("H2", &[]), ("DETAILS", &[]), ("SUMMARY", &[])],
        &[("SVG", &[]), ("G", &[])],
        &[("SPAN", &[("aria-hidden", "true")])],
        &[("SELECT", &[]), ("OPTGROUP", &[])],
    ];
    for &pattern in patterns {
        let (mut page, body) = FlatPage::new();
        let bottom = page.nest_of(body, 6 * DEEPEST, pattern);
        let button = page.element(bottom, "BUTTON", &[]);
        page.text(button, "Deep button");
        let capture = page.capture();
        let snapshot = on_wasm_sized_stack(move || compile(&capture, &mut RefRegistry::default()));
        let text = rendered(&snapshot);
        assert!(text.contains("Deep button"), "{pattern:?}: the button's text is lost:\n{text}");
    }
}

#[test]
fn what_a_page_hides_deep_down_stays_hidden() {
    let (mut page, body) = FlatPage::new();
    let above = page.nest(body, 1_000);
    let hidden = page.transparent(above, "DIV");
    let under = page.nest(hidden, 19_000);
    let p = page.element(under, "P", &[]);
    page.text(p, "Never shown");
    let shown = page.element(above, "P", &[]);
    page.text(shown, "Shown beside it");
    let capture = page.capture();
    let snapshot = on_wasm_sized_stack(move || compile(&capture, &mut RefRegistry::default()));
    let text = rendered(&snapshot);
    assert!(text.contains("Shown beside it"), "{text}");
    assert!(!text.contains("Never shown"), "text under an `opacity: 0` element reached the agent:\n{text}");
}

/// Depth of every node of `tree` (from its roots), and the order a walk reads them in.
fn depths_and_reading_order(tree: &PageTree) -> (usize, Vec<usize>) {
    let mut deepest = 0;
    let mut order = Vec::new();
    let mut stack = vec![(tree.root, 0)];
    while let Some((id, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        order.push(id);
        stack.extend(tree.nodes[id].children.iter().rev().map(|&c| (c, depth + 1)));
    }
    (deepest, order)
}

#[test]
fn a_deep_tree_is_folded_within_its_bound_losing_no_node_and_no_order() {
    for depth in [DEEPEST - 4, DEEPEST - 3, 5_000] {
        let capture = deep_page(depth);
        let tree = PageTree::build(&capture);
        let (deepest, order) = depths_and_reading_order(&tree);
        // Below the document: <html>, <body>, the nest, the button and its text.
        let levels = depth + 4;
        if levels <= DEEPEST {
            assert_eq!(deepest, levels, "a tree within the bound is left as it is");
        } else {
            assert!(deepest < levels && deepest <= DEEPEST + RULING_KEPT, "{depth}: {deepest} levels after folding");
        }
        assert_eq!(order.len(), tree.nodes.len(), "{depth}: every node is still in the tree");
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{depth}: nodes are read in document order");
        for (id, node) in tree.nodes.iter().enumerate() {
            for &c in &node.children {
                assert_eq!(tree.nodes[c].parent, Some(id), "{depth}: a child knows its parent");
            }
        }
    }
}
