//! Chrome's native messaging framing: each message is a `u32` length in native byte order
//! followed by that many bytes of UTF-8 JSON.
//!
//! Chrome refuses messages to the browser larger than 1 MB and sends at most 64 MiB the other
//! way; both limits are enforced here so an oversized message fails with a clear error instead
//! of Chrome silently closing the port. A message from the browser over its limit is read past
//! and reported as [`Incoming::Oversized`] (with its first bytes, to tell which call it
//! answered) rather than ending the port: the stream stays in step, and nothing else is lost.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Largest message Chrome accepts from a native host.
pub const MAX_TO_BROWSER: usize = 1024 * 1024;
/// Largest message Chrome sends to a native host.
pub const MAX_FROM_BROWSER: usize = 64 * 1024 * 1024;

/// A framing failure.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The message is larger than the direction allows.
    #[error("message of {len} bytes exceeds the {limit}-byte native messaging limit ({direction})")]
    TooLarge {
        /// Size of the message.
        len: usize,
        /// The limit it broke.
        limit: usize,
        /// Which way the message was going.
        direction: &'static str,
    },
    /// The stream ended in the middle of a message.
    #[error("the browser closed the port in the middle of a message")]
    Truncated,
    /// Any other I/O failure.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// How many leading bytes of an oversized message are kept.
pub const OVERSIZED_HEAD: usize = 4096;

/// One message read from the browser.
#[derive(Debug, PartialEq, Eq)]
pub enum Incoming {
    /// A message's bytes.
    Message(Vec<u8>),
    /// A message over [`MAX_FROM_BROWSER`], read past without keeping it.
    Oversized {
        /// Its announced (and read) size.
        len: usize,
        /// Its first bytes (at most [`OVERSIZED_HEAD`]).
        head: Vec<u8>,
    },
}

impl Incoming {
    /// What went wrong with an oversized message, for the call it answered.
    pub fn oversized_error(len: usize) -> FrameError {
        FrameError::TooLarge { len, limit: MAX_FROM_BROWSER, direction: "from the browser" }
    }
}

/// Reads one message from the browser. `Ok(None)` means the port closed cleanly.
pub async fn read_message<R: AsyncRead + Unpin>(reader: &mut R) -> Result<Option<Incoming>, FrameError> {
    let mut len_bytes = [0u8; 4];
    match reader.read_exact(&mut len_bytes).await {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    let len = u32::from_ne_bytes(len_bytes) as usize;
    let truncated = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => FrameError::Truncated,
        _ => FrameError::Io(e),
    };
    if len > MAX_FROM_BROWSER {
        let mut head = vec![0u8; OVERSIZED_HEAD];
        reader.read_exact(&mut head).await.map_err(truncated)?;
        let rest = (len - OVERSIZED_HEAD) as u64;
        let skipped = tokio::io::copy(&mut reader.take(rest), &mut tokio::io::sink()).await?;
        if skipped < rest {
            return Err(FrameError::Truncated);
        }
        return Ok(Some(Incoming::Oversized { len, head }));
    }
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).await.map_err(truncated)?;
    Ok(Some(Incoming::Message(body)))
}

/// Writes one message to the browser and flushes it.
pub async fn write_message<W: AsyncWrite + Unpin>(writer: &mut W, body: &[u8]) -> Result<(), FrameError> {
    check_outgoing(body.len())?;
    writer.write_all(&(body.len() as u32).to_ne_bytes()).await?;
    writer.write_all(body).await?;
    writer.flush().await?;
    Ok(())
}

/// Fails when a message of `len` bytes could not be sent to the browser.
pub fn check_outgoing(len: usize) -> Result<(), FrameError> {
    if len > MAX_TO_BROWSER {
        return Err(FrameError::TooLarge { len, limit: MAX_TO_BROWSER, direction: "to the browser" });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_written_message_reads_back_identically() {
        let mut buf = Vec::new();
        write_message(&mut buf, br#"{"a":1}"#).await.unwrap();
        assert_eq!(&buf[..4], &7u32.to_ne_bytes());
        let mut slice = &buf[..];
        assert_eq!(read_message(&mut slice).await.unwrap().unwrap(), Incoming::Message(br#"{"a":1}"#.to_vec()));
        assert!(read_message(&mut slice).await.unwrap().is_none(), "clean EOF after the last message");
    }

    #[tokio::test]
    async fn messages_over_one_megabyte_are_refused_before_writing() {
        let mut buf = Vec::new();
        let body = vec![b' '; MAX_TO_BROWSER + 1];
        let err = write_message(&mut buf, &body).await.unwrap_err();
        assert!(matches!(err, FrameError::TooLarge { limit: MAX_TO_BROWSER, .. }));
        assert!(buf.is_empty(), "nothing may reach the browser");
    }

    #[tokio::test]
    async fn an_announced_length_over_64_mib_is_an_error_not_an_allocation() {
        // Read past, keeping only its head; the message after it reads normally.
        let len = MAX_FROM_BROWSER + 1;
        let mut frame = (len as u32).to_ne_bytes().to_vec();
        frame.extend_from_slice(br#"{"type":"result","id":7,"output":{"text":""#);
        frame.resize(4 + len, b'x');
        frame.extend_from_slice(&2u32.to_ne_bytes());
        frame.extend_from_slice(b"{}");
        let mut slice = &frame[..];
        let Incoming::Oversized { len: read, head } = read_message(&mut slice).await.unwrap().unwrap() else {
            panic!("not reported as oversized")
        };
        assert_eq!((read, head.len()), (len, OVERSIZED_HEAD));
        assert!(head.starts_with(br#"{"type":"result","id":7"#));
        let err = Incoming::oversized_error(read);
        assert!(matches!(err, FrameError::TooLarge { limit: MAX_FROM_BROWSER, .. }), "{err}");
        assert!(err.to_string().contains("exceeds"), "{err}");
        assert_eq!(read_message(&mut slice).await.unwrap().unwrap(), Incoming::Message(b"{}".to_vec()));
    }

    #[tokio::test]
    async fn an_oversized_message_cut_short_is_reported_as_truncated() {
        let frame = ((MAX_FROM_BROWSER + 1) as u32).to_ne_bytes();
        let err = read_message(&mut &frame[..]).await.unwrap_err();
        assert!(matches!(err, FrameError::Truncated), "{err}");
    }

    #[tokio::test]
    async fn a_message_cut_short_is_reported_as_truncated() {
        let mut frame = 10u32.to_ne_bytes().to_vec();
        frame.extend_from_slice(b"{\"a\"");
        let err = read_message(&mut &frame[..]).await.unwrap_err();
        assert!(matches!(err, FrameError::Truncated));
    }
}
