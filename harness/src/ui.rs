//! The extension's own pages (the Sightline panel, the popup, the options page) opened as
//! ordinary tabs of the test browser through its DevTools endpoint, read through their DOM and
//! saved as PNG screenshots under `target/ui/`.
//!
//! The browser must run with [`crate::browser::REMOTE_DEBUGGING`].

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use base64::Engine;
use serde_json::{Value, json};

use crate::cdp::CdpConnection;
use crate::{EXTENSION_ID, paths};

/// The target of an open extension page whose URL contains `url_part`, if there is one.
fn open_extension_page(cdp: &mut CdpConnection, url_part: &str) -> anyhow::Result<Option<Value>> {
    let targets = cdp.call(None, "Target.getTargets", json!({}))?;
    Ok(targets["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| {
            t["type"] == "page"
                && t["url"].as_str().is_some_and(|u| u.starts_with("chrome-extension:") && u.contains(url_part))
        })
        .cloned())
}

/// One extension page in a tab of its own, under the test's control.
pub struct ExtensionPage {
    cdp: CdpConnection,
    session: String,
    target: String,
}

impl ExtensionPage {
    /// Opens `chrome-extension://<id>/<path>` in a new tab `width` × `height` CSS pixels large.
    pub fn open(devtools: &str, path: &str, width: u32, height: u32) -> anyhow::Result<ExtensionPage> {
        let mut cdp = CdpConnection::connect(devtools)?;
        let url = format!("chrome-extension://{EXTENSION_ID}/{path}");
        let created = cdp.call(None, "Target.createTarget", json!({"url": "about:blank"}))?;
        let target = created["targetId"].as_str().context("no target id")?.to_owned();
        let attached = cdp.call(None, "Target.attachToTarget", json!({"targetId": target, "flatten": true}))?;
        let session = attached["sessionId"].as_str().context("no session id")?.to_owned();
        let mut page = ExtensionPage { cdp, session, target };
        page.send("Page.enable", json!({}))?;
        page.send(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        )?;
        page.send("Page.navigate", json!({"url": url}))?;
        page.wait_for(
            "document.readyState === 'complete' && location.href.startsWith('chrome-extension:')",
            Duration::from_secs(10),
        )?;
        Ok(page)
    }

    /// Takes control of an extension page the extension opened itself (a question window),
    /// whose URL contains `url_part`, waiting for it at most `timeout`.
    pub fn attach(devtools: &str, url_part: &str, timeout: Duration) -> anyhow::Result<ExtensionPage> {
        let mut cdp = CdpConnection::connect(devtools)?;
        let deadline = Instant::now() + timeout;
        let target = loop {
            match open_extension_page(&mut cdp, url_part)? {
                Some(target) => break target,
                None if Instant::now() > deadline => bail!("no extension page at {url_part} after {timeout:?}"),
                None => std::thread::sleep(Duration::from_millis(100)),
            }
        };
        let target = target["targetId"].as_str().context("no target id")?.to_owned();
        let attached = cdp.call(None, "Target.attachToTarget", json!({"targetId": target, "flatten": true}))?;
        let session = attached["sessionId"].as_str().context("no session id")?.to_owned();
        let mut page = ExtensionPage { cdp, session, target };
        page.send("Page.enable", json!({}))?;
        page.wait_for("document.readyState === 'complete' && location.href.startsWith('chrome-extension:')", timeout)?;
        Ok(page)
    }

    /// Waits (at most `timeout`) until no extension page whose URL contains `url_part` is open:
    /// a question window closes a moment after its answer, and the next question must not be
    /// mistaken for it.
    pub fn wait_closed(devtools: &str, url_part: &str, timeout: Duration) -> anyhow::Result<()> {
        let mut cdp = CdpConnection::connect(devtools)?;
        let deadline = Instant::now() + timeout;
        loop {
            if open_extension_page(&mut cdp, url_part)?.is_none() {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("the extension page at {url_part} is still open after {timeout:?}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The page's URL.
    pub fn url(&mut self) -> anyhow::Result<String> {
        Ok(self.eval("location.href")?.as_str().unwrap_or_default().to_owned())
    }

    fn send(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        self.cdp.call(Some(&self.session), method, params)
    }

    /// Evaluates `expression` in the page (awaiting a promise it returns); returns its value.
    pub fn eval(&mut self, expression: &str) -> anyhow::Result<Value> {
        let params = json!({"expression": expression, "awaitPromise": true, "returnByValue": true});
        let result = self.send("Runtime.evaluate", params)?;
        if let Some(exception) = result.get("exceptionDetails") {
            bail!("evaluating {expression} failed: {exception}");
        }
        Ok(result["result"]["value"].clone())
    }

    /// Evaluates `expression` until it is truthy (at most `timeout`); returns its value.
    pub fn wait_for(&mut self, expression: &str, timeout: Duration) -> anyhow::Result<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let value = self.eval(expression)?;
            let truthy = !matches!(&value, Value::Null | Value::Bool(false)) && value != json!(0) && value != json!("");
            if truthy {
                return Ok(value);
            }
            if Instant::now() > deadline {
                let body = self.eval("document.body ? document.body.innerText : ''").unwrap_or_default();
                bail!("{expression} was still {value} after {timeout:?}; the page reads:\n{body}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Clicks the element `selector` finds as a person would: the pointer pressed and released
    /// at its centre (CDP `Input` events, which the page cannot tell from a real mouse).
    ///
    /// A window the browser has only just opened may drop the first press before its first
    /// frame is drawn, as a person's hand may miss: the click is checked to have reached the
    /// element (a trusted `click` on it or inside it) and, with the window brought to the front,
    /// pressed again, at most five times; each miss is logged with what the page showed.
    /// A page that goes away at the click (a window that closes on its answer) counts as reached.
    pub fn click(&mut self, selector: &str) -> anyhow::Result<()> {
        let selector = Value::String(selector.to_owned());
        let measure = format!(
            "(() => {{ const e = document.querySelector({selector}); if (!e) return null; e.scrollIntoView({{block: 'center'}}); \
             window.__reached = false; \
             if (!e.__watched) {{ e.__watched = true; e.addEventListener('click', (ev) => {{ if (ev.isTrusted) window.__reached = true; }}, {{capture: true}}); }} \
             const r = e.getBoundingClientRect(); \
             const on = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2); \
             return [r.x + r.width / 2, r.y + r.height / 2, innerWidth, innerHeight, !!on && e.contains(on) && !e.disabled]; }})()"
        );
        for _ in 0..5 {
            // A window the browser just opened can still change size (its frame is drawn a
            // moment after its page), and a layout that fills the window then moves every
            // button: a press at the old place would land on its neighbour. Press only where
            // two looks 150 ms apart agree and the element is what lies there, and (as a person
            // waits for a greyed-out button) once it is enabled.
            let mut centre = self.eval(&measure)?;
            for _ in 0..20 {
                std::thread::sleep(Duration::from_millis(150));
                let again = self.eval(&measure)?;
                let settled = again == centre && again[4] == json!(true);
                centre = again;
                if settled {
                    break;
                }
            }
            let (Some(x), Some(y)) = (centre[0].as_f64(), centre[1].as_f64()) else {
                bail!("nothing on the page matches {selector}");
            };
            self.send("Input.dispatchMouseEvent", json!({"type": "mouseMoved", "x": x, "y": y}))?;
            self.press_at(x, y)?;
            match self.eval("window.__reached === true") {
                Ok(Value::Bool(false)) => {
                    let seen = self
                        .eval(&format!(
                            "(() => {{ const e = document.querySelector({selector}); const at = document.elementFromPoint({x}, {y}); \
                             return {{viewport: [innerWidth, innerHeight], at: at ? at.outerHTML.slice(0, 80) : null, \
                             disabled: !!(e && e.disabled), visibility: document.visibilityState, focus: document.hasFocus()}}; }})()"
                        ))
                        .unwrap_or_default();
                    eprintln!("ui: the click on {selector} at ({x}, {y}) did not reach it ({seen}); pressing again");
                    // A person sees the window in front of them before they click in it.
                    self.send("Page.bringToFront", json!({}))?;
                    std::thread::sleep(Duration::from_millis(200));
                }
                _ => return Ok(()),
            }
        }
        bail!("five clicks on {selector} never reached it")
    }

    /// Presses the pointer at once at the centre of what `selector` finds, without waiting for
    /// it to stand still or come alive (a hand already on its way); returns whether it was
    /// disabled and whether it was what lay at that point, just before the press.
    pub fn press_now(&mut self, selector: &str) -> anyhow::Result<(bool, bool)> {
        let selector = Value::String(selector.to_owned());
        let seen = self.eval(&format!(
            "(() => {{ const e = document.querySelector({selector}); if (!e) return null; const r = e.getBoundingClientRect(); \
             const x = r.x + r.width / 2, y = r.y + r.height / 2; const on = document.elementFromPoint(x, y); \
             return [x, y, !!e.disabled, !!on && e.contains(on)]; }})()"
        ))?;
        let (Some(x), Some(y)) = (seen[0].as_f64(), seen[1].as_f64()) else {
            bail!("nothing on the page matches {selector}");
        };
        self.press_at(x, y)?;
        Ok((seen[2] == json!(true), seen[3] == json!(true)))
    }

    /// The left button pressed and released at (`x`, `y`), CSS pixels of the viewport.
    fn press_at(&mut self, x: f64, y: f64) -> anyhow::Result<()> {
        for (kind, buttons) in [("mousePressed", 1), ("mouseReleased", 0)] {
            self.send(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1}),
            )?;
        }
        Ok(())
    }

    /// Gives the page a viewport of `width` × `height` CSS pixels, as when its window changes
    /// size (the page sees a `resize`).
    pub fn resize(&mut self, width: u32, height: u32) -> anyhow::Result<()> {
        let metrics = json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false});
        self.send("Emulation.setDeviceMetricsOverride", metrics)?;
        Ok(())
    }

    /// Picks `value` in the `<select>` that `selector` finds, as a person choosing from its list:
    /// the pick fires the page's `change` handlers.
    pub fn choose(&mut self, selector: &str, value: &str) -> anyhow::Result<()> {
        let (selector, value) = (Value::String(selector.to_owned()), Value::String(value.to_owned()));
        let chosen = self.eval(&format!(
            "(() => {{ const s = document.querySelector({selector}); if (!s || ![...s.options].some((o) => o.value === {value})) return false; \
             s.focus(); s.value = {value}; s.dispatchEvent(new Event('input', {{bubbles: true}})); \
             s.dispatchEvent(new Event('change', {{bubbles: true}})); return true; }})()"
        ))?;
        anyhow::ensure!(chosen == json!(true), "{selector} offers no {value}");
        Ok(())
    }

    /// Shows the page in the dark colour scheme (or back in the light one).
    pub fn dark(&mut self, dark: bool) -> anyhow::Result<()> {
        let value = if dark { "dark" } else { "light" };
        self.send(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": value}]}),
        )?;
        Ok(())
    }

    /// Saves a PNG screenshot of the page as `target/ui/<name>`; returns its path.
    pub fn screenshot(&mut self, name: &str) -> anyhow::Result<PathBuf> {
        let shot = self.send("Page.captureScreenshot", json!({"format": "png"}))?;
        let data = shot["data"].as_str().context("no screenshot data")?;
        let png = base64::engine::general_purpose::STANDARD.decode(data)?;
        let dir = paths::workspace_root().join("target/ui");
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(name);
        std::fs::write(&path, png)?;
        Ok(path)
    }

    /// Closes the page's tab.
    pub fn close(mut self) -> anyhow::Result<()> {
        let target = self.target.clone();
        self.cdp.call(None, "Target.closeTarget", json!({"targetId": target}))?;
        Ok(())
    }
}
