//! Builds captures in the exact shape CDP returns them (`DOMSnapshot.captureSnapshot`,
//! `Accessibility.getFullAXTree`, `Page.getFrameTree`) from a compact description of a page, so
//! page-state tests control node ids and documents precisely: the same backend id is the same
//! node, a new loader id is a new document.

#![allow(dead_code)]

use serde_json::{Value, json};
use sightline_core::capture::Capture;

/// An element or a text node of a built page.
#[derive(Debug, Clone)]
pub enum Node {
    /// Text.
    Text(String),
    /// An element.
    Element {
        /// Backend node id.
        id: i64,
        /// Tag name.
        tag: String,
        /// Attributes.
        attrs: Vec<(String, String)>,
        /// Accessible role (as Chrome reports it).
        role: String,
        /// Accessible name.
        name: String,
        /// Accessibility properties (`checked`, `disabled`, `level`…).
        props: Vec<(String, Value)>,
        /// `display`.
        display: String,
        /// The current value of a field (`inputValue`).
        value: Option<String>,
        /// `-webkit-text-security` (`none` unless set).
        text_security: String,
        /// Children.
        children: Vec<Node>,
    },
}

fn element(id: i64, tag: &str, role: &str, name: &str, display: &str, children: Vec<Node>) -> Node {
    Node::Element {
        id,
        tag: tag.into(),
        attrs: Vec::new(),
        role: role.into(),
        name: name.into(),
        props: Vec::new(),
        display: display.into(),
        value: None,
        text_security: "none".into(),
        children,
    }
}

/// A text node.
pub fn text(t: &str) -> Node {
    Node::Text(t.into())
}

/// A paragraph.
pub fn p(id: i64, t: &str) -> Node {
    element(id, "p", "paragraph", "", "block", vec![text(t)])
}

/// Preformatted text (`<pre>`, `white-space: pre`).
pub fn pre(id: i64, t: &str) -> Node {
    element(id, "pre", "generic", "", "block", vec![text(t)])
}

/// A paragraph of several children (text and inline links).
pub fn para(id: i64, children: Vec<Node>) -> Node {
    element(id, "p", "paragraph", "", "block", children)
}

/// A link inside a sentence.
pub fn inline_link(id: i64, name: &str) -> Node {
    let mut n = element(id, "a", "link", name, "inline", vec![text(name)]);
    if let Node::Element { attrs, .. } = &mut n {
        attrs.push(("href".into(), format!("#{id}")));
    }
    n
}

/// A heading.
pub fn h(id: i64, level: u8, t: &str) -> Node {
    let mut n = element(id, &format!("h{level}"), "heading", t, "block", vec![text(t)]);
    if let Node::Element { props, .. } = &mut n {
        props.push(("level".into(), json!(level)));
    }
    n
}

/// A button.
pub fn button(id: i64, name: &str) -> Node {
    element(id, "button", "button", name, "inline-block", vec![text(name)])
}

/// A link (a block of its own, one per line).
pub fn link(id: i64, name: &str) -> Node {
    let mut n = element(id, "a", "link", name, "block", vec![text(name)]);
    if let Node::Element { attrs, .. } = &mut n {
        attrs.push(("href".into(), format!("#{id}")));
    }
    n
}

/// A checkbox with a name.
pub fn checkbox(id: i64, name: &str, checked: bool) -> Node {
    let mut n = element(id, "input", "checkbox", name, "inline-block", vec![]);
    if let Node::Element { attrs, props, .. } = &mut n {
        attrs.push(("type".into(), "checkbox".into()));
        props.push(("checked".into(), json!(if checked { "true" } else { "false" })));
    }
    n
}

/// A text field (`<input>` with `attrs`, e.g. `type`, `name`, `id`, `autocomplete`) labelled
/// `label`, holding `value`.
pub fn field(id: i64, attrs: &[(&str, &str)], label: &str, value: &str) -> Node {
    let mut n = element(id, "input", "textbox", label, "inline-block", vec![]);
    if let Node::Element { attrs: a, value: v, .. } = &mut n {
        a.extend(attrs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        *v = Some(value.to_owned());
    }
    n
}

/// Sets an element's computed `-webkit-text-security`.
pub fn with_text_security(mut n: Node, value: &str) -> Node {
    if let Node::Element { text_security, .. } = &mut n {
        *text_security = value.to_owned();
    }
    n
}

/// A landmark region (`navigation`, `main`, `banner`, `contentinfo`…) with a label.
pub fn landmark(id: i64, role: &str, label: &str, children: Vec<Node>) -> Node {
    let tag = match role {
        "navigation" => "nav",
        "main" => "main",
        "banner" => "header",
        "contentinfo" => "footer",
        _ => "section",
    };
    element(id, tag, role, label, "block", children)
}

/// A modal dialog.
pub fn modal(id: i64, label: &str, children: Vec<Node>) -> Node {
    let mut n = element(id, "div", "dialog", label, "block", children);
    if let Node::Element { attrs, .. } = &mut n {
        attrs.push(("role".into(), "dialog".into()));
        attrs.push(("aria-modal".into(), "true".into()));
    }
    n
}

/// Sets an accessibility property on an element.
pub fn with_prop(mut n: Node, key: &str, value: Value) -> Node {
    if let Node::Element { props, .. } = &mut n {
        props.push((key.into(), value));
    }
    n
}

/// A page: one document of the main frame.
pub struct Page {
    /// Loader id of the document.
    pub loader: String,
    /// URL.
    pub url: String,
    /// Title.
    pub title: String,
    /// The body's children.
    pub body: Vec<Node>,
}

/// A page in document `loader`.
pub fn page(loader: &str, body: Vec<Node>) -> Page {
    Page { loader: loader.into(), url: "https://shop.test/".into(), title: "Shop".into(), body }
}

struct Builder {
    strings: Vec<String>,
    parent: Vec<i64>,
    node_type: Vec<i64>,
    node_name: Vec<i64>,
    node_value: Vec<i64>,
    backend: Vec<i64>,
    attributes: Vec<Vec<i64>>,
    layout_index: Vec<i64>,
    styles: Vec<Vec<i64>>,
    bounds: Vec<Vec<f64>>,
    paint: Vec<i64>,
    ax: Vec<Value>,
    values: (Vec<i64>, Vec<i64>),
    next_text_id: i64,
    y: f64,
}

impl Builder {
    fn string(&mut self, s: &str) -> i64 {
        match self.strings.iter().position(|x| x == s) {
            Some(i) => i as i64,
            None => {
                self.strings.push(s.to_owned());
                (self.strings.len() - 1) as i64
            }
        }
    }

    fn push(
        &mut self,
        parent: i64,
        kind: i64,
        name: &str,
        value: Option<&str>,
        backend: i64,
        attrs: &[(String, String)],
    ) -> i64 {
        let index = self.parent.len() as i64;
        self.parent.push(parent);
        self.node_type.push(kind);
        let name = self.string(name);
        self.node_name.push(name);
        let value = value.map(|v| self.string(v)).unwrap_or(-1);
        self.node_value.push(value);
        self.backend.push(backend);
        let attrs: Vec<i64> = attrs.iter().flat_map(|(k, v)| [k.clone(), v.clone()]).map(|s| self.string(&s)).collect();
        self.attributes.push(attrs);
        index
    }

    fn layout(&mut self, node: i64, display: &str, height: f64) {
        self.layout_with(node, display, "normal", height, "none");
    }

    fn layout_with(&mut self, node: i64, display: &str, white_space: &str, height: f64, text_security: &str) {
        let styles =
            [display, "visible", "1", "rgba(0, 0, 0, 0)", "auto", white_space, "static", "auto", text_security];
        let styles: Vec<i64> = styles.iter().map(|s| self.string(s)).collect();
        self.layout_index.push(node);
        self.styles.push(styles);
        self.bounds.push(vec![8.0, self.y, 800.0, height]);
        self.paint.push(self.paint.len() as i64);
        self.y += height;
    }

    fn add(&mut self, parent: i64, node: &Node) -> Option<String> {
        match node {
            Node::Text(t) => {
                self.next_text_id += 1;
                let id = self.next_text_id;
                let index = self.push(parent, 3, "#text", Some(t), id, &[]);
                self.layout(index, "inline", 17.0);
                None
            }
            Node::Element { id, tag, attrs, role, name, props, display, value, text_security, children } => {
                let index = self.push(parent, 1, &tag.to_uppercase(), None, *id, attrs);
                let white_space = if tag == "pre" { "pre" } else { "normal" };
                self.layout_with(index, display, white_space, 1.0, text_security);
                if let Some(value) = value {
                    let value = self.string(value);
                    self.values.0.push(index);
                    self.values.1.push(value);
                }
                let child_ax: Vec<String> = children.iter().filter_map(|c| self.add(index, c)).collect();
                let properties: Vec<Value> =
                    props.iter().map(|(k, v)| json!({"name": k, "value": {"type": "string", "value": v}})).collect();
                let ax_id = format!("ax{id}");
                self.ax.push(json!({
                    "nodeId": ax_id,
                    "ignored": false,
                    "role": {"type": "role", "value": role},
                    "name": {"type": "computedString", "value": name},
                    "properties": properties,
                    "childIds": child_ax,
                    "backendDOMNodeId": id,
                    "frameId": "MAIN",
                }));
                Some(ax_id)
            }
        }
    }
}

/// The capture Chrome would return for `page`.
pub fn capture(page: &Page) -> Capture {
    let mut b = Builder {
        strings: Vec::new(),
        parent: Vec::new(),
        node_type: Vec::new(),
        node_name: Vec::new(),
        node_value: Vec::new(),
        backend: Vec::new(),
        attributes: Vec::new(),
        layout_index: Vec::new(),
        styles: Vec::new(),
        bounds: Vec::new(),
        paint: Vec::new(),
        ax: Vec::new(),
        values: (Vec::new(), Vec::new()),
        next_text_id: 100_000,
        y: 0.0,
    };
    let document = b.push(-1, 9, "#document", None, 1, &[]);
    b.layout(document, "block", 0.0);
    let html = b.push(document, 1, "HTML", None, 2, &[]);
    b.layout(html, "block", 0.0);
    let body = b.push(html, 1, "BODY", None, 3, &[]);
    b.layout(body, "block", 0.0);
    let children: Vec<String> = page.body.iter().filter_map(|n| b.add(body, n)).collect();
    b.ax.insert(
        0,
        json!({"nodeId": "root", "ignored": false, "role": {"type": "role", "value": "RootWebArea"},
               "name": {"type": "computedString", "value": page.title}, "childIds": children, "backendDOMNodeId": 1,
               "frameId": "MAIN"}),
    );
    let url = b.string(&page.url);
    let title = b.string(&page.title);
    let frame = b.string("MAIN");
    let snapshot = json!({
        "documents": [{
            "documentURL": url, "title": title, "frameId": frame,
            "nodes": {
                "parentIndex": b.parent, "nodeType": b.node_type, "nodeName": b.node_name,
                "nodeValue": b.node_value, "backendNodeId": b.backend, "attributes": b.attributes,
                "inputValue": {"index": b.values.0, "value": b.values.1}
            },
            "layout": {"nodeIndex": b.layout_index, "styles": b.styles, "bounds": b.bounds, "text": [], "paintOrders": b.paint}
        }],
        "strings": b.strings
    });
    let capture = json!({
        "main": {
            "frameTree": {"frameTree": {"frame": {"id": "MAIN", "loaderId": page.loader, "url": page.url}}},
            "snapshot": snapshot,
            "axTrees": [{"frameId": "MAIN", "tree": {"nodes": b.ax}}]
        },
        "layout": {"cssVisualViewport": {"clientWidth": 1280, "clientHeight": 800}}
    });
    serde_json::from_value(capture).expect("built capture parses")
}
