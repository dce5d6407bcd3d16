//! `browser_export_test`: the session's calls on a tab as a Playwright Test spec, written by
//! `sightline_core::review::playwright` from the calls the panel keeps (secrets already masked
//! there). Only this session's calls go in: a spec says what this agent did.

use sightline_core::protocol::{ExportTestParams, ToolOutput};
use sightline_core::review::{SessionExport, SpecRange, playwright_spec};

use super::{Failure, target_tab};
use crate::chrome;
use crate::state::{Custody, ReviewState};

/// `browser_export_test`.
pub async fn export_test(
    custody: &Custody<'_>,
    review: &ReviewState,
    version: &str,
    session: &str,
    params: ExportTestParams,
) -> Result<ToolOutput, Failure> {
    let tab = target_tab(custody, session, params.tab, false).await?;
    let mut model = review.session_log.borrow().model(tab);
    model.calls.retain(|c| c.session == session);
    let page = chrome::get_tab(tab).await.ok();
    let page = page.map_or((None, None), |p| (p.title, p.url.as_deref().map(sightline_core::urls::redact_url)));
    let export = SessionExport::new(model, Vec::new(), page, version, crate::timer::epoch_ms());
    let range = SpecRange { from_version: params.from_version, to_version: params.to_version };
    playwright_spec(&export, range)
        .map(ToolOutput::text)
        .map_err(|why| Failure::Explained(format!("browser_export_test: {why}")))
}
