//! The bridge's side of the native messaging port: writing messages to the extension, and
//! reading its messages into answers for the calls waiting on them.
//!
//! Bad input from the browser never ends the bridge and never leaves a call waiting for an
//! answer that will not come: a message that is too large is read past, and one that cannot be
//! read (not UTF-8, not JSON, not a message Sightline knows) is logged; when either was an
//! answer, the call it answered gets an error saying so. Only the port closing ends the bridge.

use std::sync::Arc;

use sightline_core::protocol::{ExtensionToHost, HostToExtension, ToolOutput, WIRE_PROTOCOL};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, watch};

use crate::transport::link::ExtensionInfo;
use crate::transport::native_messaging::{self, FrameError, Incoming};
use crate::transport::pending::{PendingCalls, Waiting};

/// Writes each message to the extension until the channel closes or the port breaks. A message
/// too large for the port is dropped with an error in the log (calls are checked before they
/// are queued, so this is only ever a bug).
pub async fn write<W: AsyncWrite + Unpin>(mut port: W, mut outgoing: mpsc::Receiver<HostToExtension>) {
    while let Some(message) = outgoing.recv().await {
        let body = match serde_json::to_vec(&message) {
            Ok(body) => body,
            Err(e) => {
                tracing::error!("cannot encode a message for the extension: {e}");
                continue;
            }
        };
        if let Err(e) = native_messaging::write_message(&mut port, &body).await {
            tracing::error!("writing to the extension failed: {e}");
            if matches!(e, FrameError::Io(_)) {
                return;
            }
        }
    }
}

/// Reads the extension's messages until the port closes. Returns an error only when the port
/// itself failed.
pub async fn read<R: AsyncRead + Unpin>(
    mut port: R,
    pending: Arc<PendingCalls<ToolOutput>>,
    extension: watch::Sender<Option<ExtensionInfo>>,
) -> anyhow::Result<()> {
    loop {
        match native_messaging::read_message(&mut port).await {
            Ok(Some(Incoming::Message(body))) => handle(&body, &pending, &extension),
            Ok(Some(Incoming::Oversized { len, head })) => {
                let error = Incoming::oversized_error(len);
                tracing::error!("{error}; read past it");
                fail_call(
                    &pending,
                    &head,
                    format!(
                        "the browser's answer was {:.1} MiB, over the {} MiB a native messaging host accepts ({error}); \
                         ask for less (one page of a snapshot, or one region)",
                        len as f64 / (1024.0 * 1024.0),
                        native_messaging::MAX_FROM_BROWSER / (1024 * 1024)
                    ),
                );
            }
            Ok(None) => {
                tracing::info!("the browser closed the port");
                return Ok(());
            }
            Err(FrameError::Truncated) => {
                tracing::warn!("the browser closed the port in the middle of a message");
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Handles one message from the extension.
fn handle(body: &[u8], pending: &PendingCalls<ToolOutput>, extension: &watch::Sender<Option<ExtensionInfo>>) {
    let message: ExtensionToHost = match serde_json::from_slice(body) {
        Ok(message) => message,
        Err(e) => {
            let what = match std::str::from_utf8(body) {
                Err(utf8) => format!("is not valid UTF-8 ({utf8})"),
                Ok(_) => format!("is not a message this host understands ({e})"),
            };
            tracing::warn!("a {}-byte message from the extension {what}", body.len());
            fail_call(
                pending,
                body,
                format!(
                    "the browser's answer could not be read: it {what}. Are the extension and sightline-host the same \
                     version? Run `sightline-host doctor`."
                ),
            );
            return;
        }
    };
    match message {
        ExtensionToHost::Hello { version, protocol, browser } => {
            tracing::info!(%version, protocol, %browser, "extension connected");
            if protocol != WIRE_PROTOCOL {
                tracing::error!("extension speaks wire protocol {protocol}, bridge speaks {WIRE_PROTOCOL}");
            }
            extension.send_replace(Some(ExtensionInfo { version, browser, protocol }));
        }
        ExtensionToHost::Result { id, output } => {
            if !pending.resolve(id, output) {
                tracing::warn!(id, "result for a call nobody waits for (answered, timed out, cancelled or unknown)");
            }
        }
        ExtensionToHost::Waiting { id, time_limit_ms, question } => {
            let waiting = Waiting { time_limit: std::time::Duration::from_millis(time_limit_ms), question };
            if !pending.waiting(id, waiting) {
                tracing::warn!(id, "a waiting note for a call nobody waits for");
            }
        }
        ExtensionToHost::Answered { id, allowed } => {
            if !pending.answered(id, allowed) {
                tracing::warn!(id, "an answered note for a call nobody waits for");
            }
        }
    }
}

/// Answers the call a message that could not be used was answering, if it says which.
fn fail_call(pending: &PendingCalls<ToolOutput>, message: &[u8], error: String) {
    match result_id(message) {
        Some(id) if pending.resolve(id, ToolOutput::error(error)) => {
            tracing::warn!(id, "answered the call with an error instead");
        }
        _ => tracing::warn!("it answered no call that is waiting"),
    }
}

/// The call id of a result message that cannot be parsed whole: `{"type":"result","id":N,…`,
/// as the browser writes it (keys in the order the extension set them, no spaces). Messages of
/// any other kind give `None`, so no call is failed by mistake.
pub fn result_id(message: &[u8]) -> Option<u64> {
    let text = String::from_utf8_lossy(&message[..message.len().min(native_messaging::OVERSIZED_HEAD)]);
    let rest = text.trim_start().strip_prefix(r#"{"type":"result","id":"#)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use sightline_core::protocol::ToolOutput;

    use super::*;

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut bytes = (body.len() as u32).to_ne_bytes().to_vec();
        bytes.extend_from_slice(body);
        bytes
    }

    #[test]
    fn a_result_id_is_read_only_from_a_result() {
        assert_eq!(result_id(br#"{"type":"result","id":42,"output":{"text":"\xff"#), Some(42));
        assert_eq!(result_id(b"{\"type\":\"result\",\"id\":7,\"output\":\xff\xfe"), Some(7));
        assert_eq!(result_id(br#"{"type":"progress","id":42}"#), None);
        assert_eq!(result_id(br#"{"type":"result","id":"x"}"#), None);
        assert_eq!(result_id(b""), None);
    }

    /// Reads `input` as the port and returns what each of `calls` waiting ids got.
    async fn answers(input: Vec<u8>, calls: usize) -> (anyhow::Result<()>, Vec<Option<ToolOutput>>) {
        let pending = Arc::new(PendingCalls::new());
        let waiters: Vec<_> = (0..calls).map(|_| pending.register()).collect();
        let (extension, _) = watch::channel(None);
        let outcome = read(&input[..], pending.clone(), extension).await;
        let mut got = Vec::new();
        for waiter in waiters {
            got.push(waiter.wait(std::time::Duration::from_millis(1)).await.ok());
        }
        (outcome, got)
    }

    #[tokio::test]
    async fn an_unreadable_answer_fails_its_call_and_the_next_answer_still_arrives() {
        let mut input = frame(b"{\"type\":\"result\",\"id\":1,\"output\":{\"text\":\"\xff\xfe\"}}");
        input.extend(frame(br#"{"type":"result","id":99,"output":{"text":"stray"}}"#));
        input.extend(frame(br#"{"type":"result","id":2,"output":{"text":"fine"}}"#));
        let (outcome, got) = answers(input, 2).await;
        assert!(outcome.is_ok());
        let first = got[0].clone().expect("call 1 answered");
        assert!(first.is_error && first.text.contains("not valid UTF-8"), "{first:?}");
        assert_eq!(got[1], Some(ToolOutput::text("fine")));
    }

    #[tokio::test]
    async fn an_oversized_answer_fails_its_call_with_its_size() {
        let len = native_messaging::MAX_FROM_BROWSER + 10;
        let mut body = br#"{"type":"result","id":1,"output":{"text":""#.to_vec();
        body.resize(len, b'x');
        let mut input = frame(&body);
        input.extend(frame(br#"{"type":"result","id":2,"output":{"text":"fine"}}"#));
        let (outcome, got) = answers(input, 2).await;
        assert!(outcome.is_ok());
        let first = got[0].clone().expect("call 1 answered");
        assert!(first.is_error && first.text.contains("64.0 MiB") && first.text.contains("exceeds"), "{first:?}");
        assert_eq!(got[1], Some(ToolOutput::text("fine")));
    }

    #[tokio::test]
    async fn a_port_closed_mid_message_ends_reading_without_an_error() {
        let mut input = 100u32.to_ne_bytes().to_vec();
        input.extend_from_slice(b"{\"type\":");
        let (outcome, got) = answers(input, 1).await;
        assert!(outcome.is_ok());
        assert_eq!(got, vec![None]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        /// Any sequence of frames with any bodies: reading never panics, ends when the input
        /// ends, and a well-formed answer placed after them still reaches its call.
        #[test]
        fn garbage_from_the_browser_never_stops_a_later_answer(
            bodies in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..200), 0..6)
        ) {
            let mut input = Vec::new();
            for body in &bodies {
                input.extend(frame(body));
            }
            // Call 2 is answered last; garbage may have failed call 1 or nothing.
            input.extend(frame(br#"{"type":"result","id":2,"output":{"text":"fine"}}"#));
            let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
            let (outcome, got) = runtime.block_on(answers(input, 2));
            prop_assert!(outcome.is_ok());
            prop_assert_eq!(got[1].clone(), Some(ToolOutput::text("fine")));
        }
    }
}
