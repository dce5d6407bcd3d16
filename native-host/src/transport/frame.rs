//! The framing spoken over a bridge socket: a `u32` big-endian length, then that many bytes of
//! JSON. The limit and the buffer live here, in one place.
//!
//! The limit is a little above the 64 MiB the browser carries from the extension, so every
//! answer the extension can send also fits, wrapped, on its way to the MCP server. A frame over
//! it is refused before a byte is written ([`FrameError::TooLarge`]), so the writer can send
//! an error in its place and the connection carries on.

use std::io;

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Largest frame either side accepts on a bridge socket.
pub const MAX_FRAME: usize = crate::transport::native_messaging::MAX_FROM_BROWSER + 64 * 1024;

// Every answer the browser can carry fits, wrapped in `{"type":"result","id":…,"output":…}`.
const _: () = assert!(MAX_FRAME >= crate::transport::native_messaging::MAX_FROM_BROWSER + 100);

/// A framing failure.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// A frame over [`MAX_FRAME`]. When writing, nothing was written.
    #[error("a frame of {len} bytes exceeds the {MAX_FRAME}-byte limit of a bridge socket")]
    TooLarge {
        /// Its size.
        len: usize,
    },
    /// A frame whose bytes are not the JSON message expected.
    #[error("malformed frame: {0}")]
    Malformed(serde_json::Error),
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Reads one frame. `Ok(None)` on a clean EOF between frames.
pub async fn read_frame<R: AsyncRead + Unpin, T: DeserializeOwned>(reader: &mut R) -> Result<Option<T>, FrameError> {
    let len = match reader.read_u32().await {
        Ok(len) => len as usize,
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    if len > MAX_FRAME {
        return Err(FrameError::TooLarge { len });
    }
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).await?;
    serde_json::from_slice(&body).map(Some).map_err(FrameError::Malformed)
}

/// Writes one frame and flushes it; writes nothing if it is too large.
pub async fn write_frame<W: AsyncWrite + Unpin, T: Serialize>(writer: &mut W, message: &T) -> Result<(), FrameError> {
    let body = serde_json::to_vec(message).map_err(FrameError::Malformed)?;
    if body.len() > MAX_FRAME {
        return Err(FrameError::TooLarge { len: body.len() });
    }
    writer.write_u32(body.len() as u32).await?;
    writer.write_all(&body).await?;
    writer.flush().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[tokio::test]
    async fn frames_round_trip() {
        let mut buf = Vec::new();
        write_frame(&mut buf, &serde_json::json!({"x": [1, 2]})).await.unwrap();
        let back: Option<serde_json::Value> = read_frame(&mut &buf[..]).await.unwrap();
        assert_eq!(back.unwrap(), serde_json::json!({"x": [1, 2]}));
    }

    #[tokio::test]
    async fn malformed_frames_are_told_apart() {
        let mut buf = 3u32.to_be_bytes().to_vec();
        buf.extend_from_slice(b"{{{");
        let err = read_frame::<_, serde_json::Value>(&mut &buf[..]).await.unwrap_err();
        assert!(matches!(err, FrameError::Malformed(_)), "{err}");
    }

    #[tokio::test]
    async fn an_announced_length_over_the_limit_is_refused_before_allocating() {
        let buf = u32::MAX.to_be_bytes();
        let err = read_frame::<_, serde_json::Value>(&mut &buf[..]).await.unwrap_err();
        assert!(matches!(err, FrameError::TooLarge { len } if len == u32::MAX as usize), "{err}");
    }

    #[tokio::test]
    async fn an_oversized_frame_is_not_written_at_all() {
        let mut buf = Vec::new();
        let big = "x".repeat(MAX_FRAME);
        let err = write_frame(&mut buf, &big).await.unwrap_err();
        assert!(matches!(err, FrameError::TooLarge { .. }), "{err}");
        assert!(buf.is_empty());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        /// Whatever bytes arrive, reading ends in a message, an EOF or a typed error: never a
        /// panic, never a read past the input.
        #[test]
        fn arbitrary_bytes_never_panic_the_reader(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
            runtime.block_on(async {
                let mut slice = &bytes[..];
                for _ in 0..8 {
                    match read_frame::<_, serde_json::Value>(&mut slice).await {
                        Ok(Some(_)) => continue,
                        Ok(None) | Err(_) => break,
                    }
                }
            });
        }
    }
}
