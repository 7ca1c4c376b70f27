//! Blobs on demand: a spilled tool output, a large tool result or an image that a transcript
//! names by key (`ToolPart::output_blob`, `Part::File::blob`) and the providers read only when
//! asked (`Catalog::blob`).
//!
//! Two things are decided here, for every front end: an unknown key is a `blob_not_found`
//! error however the provider failed to find it, and what a window may show of the bytes
//! ([`view`]): an image only when its bytes are PNG, JPEG, GIF or WebP (sniffed from the
//! bytes, never from a name or a MIME type the transcript states, so an SVG or an HTML page
//! can never be shown as an image), otherwise text (to be shown escaped), cut at a cap.

use base64::Engine;
use serde::Serialize;

use crate::catalog::Catalog;
use crate::error::{Error, ProviderError};
use crate::model::SessionMeta;

/// The largest image a window is sent (as base64, a third more).
pub const MAX_IMAGE_BYTES: usize = 16 * 1024 * 1024;
/// How much text a window is sent; the rest is counted, not sent.
pub const MAX_TEXT_BYTES: usize = 1024 * 1024;

/// The bytes behind `key` in `session`. A key the session does not have (including a spilled
/// output file that is gone) is [`Error::BlobNotFound`].
pub fn read(catalog: &Catalog, session: &SessionMeta, key: &str) -> Result<Vec<u8>, Error> {
    found(catalog.blob(session, key), session, key)
}

/// What a window shows of the blob behind `key` ([`view`]), reading no more of it than it
/// shows: the text cap's worth first, and the whole blob only when those bytes are an image it
/// may show (at most [`MAX_IMAGE_BYTES`]). A spilled output of gigabytes costs a megabyte.
pub fn load_view(catalog: &Catalog, session: &SessionMeta, key: &str) -> Result<BlobView, Error> {
    // One byte past the cap tells whether the cut falls inside a character.
    let (head, size) = found(
        catalog.blob_head(session, key, MAX_TEXT_BYTES + 1),
        session,
        key,
    )?;
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    match image_mime(&head) {
        Some(mime) if size > MAX_IMAGE_BYTES => Ok(BlobView::TooLarge { mime, bytes: size }),
        Some(_) if size > head.len() => {
            let (whole, _) = found(
                catalog.blob_head(session, key, MAX_IMAGE_BYTES),
                session,
                key,
            )?;
            Ok(view(&whole))
        }
        Some(_) => Ok(view(&head)),
        None => Ok(view_head(&head, size)),
    }
}

/// A file that is not there is a key the session does not have.
fn found<T>(result: Result<T, Error>, session: &SessionMeta, key: &str) -> Result<T, Error> {
    match result {
        Err(Error::Provider(ProviderError::Io { source, .. }))
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Err(ProviderError::BlobNotFound {
                session: session.id.clone(),
                key: key.to_owned(),
                reason: "its file is not there".into(),
            }
            .into())
        }
        other => other,
    }
}

/// The image MIME type of `bytes`, when they are one of the formats a window may show.
pub fn image_mime(bytes: &[u8]) -> Option<&'static str> {
    let kind = infer::get(bytes)?;
    match kind.mime_type() {
        m @ ("image/png" | "image/jpeg" | "image/gif" | "image/webp") => Some(m),
        _ => None,
    }
}

/// What a window shows of a blob.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum BlobView {
    /// An image of a sniffed type, its bytes in base64 (for a `data:` URL of that type).
    Image {
        mime: &'static str,
        base64: String,
        bytes: usize,
    },
    /// An image over [`MAX_IMAGE_BYTES`]: not sent.
    TooLarge { mime: &'static str, bytes: usize },
    /// Anything else, as text (invalid UTF-8 replaced), at most [`MAX_TEXT_BYTES`] of it.
    Text {
        text: String,
        truncated: bool,
        bytes: usize,
    },
}

/// What a window shows of a blob, from all its bytes.
pub fn view(bytes: &[u8]) -> BlobView {
    let size = bytes.len();
    if let Some(mime) = image_mime(bytes) {
        if size > MAX_IMAGE_BYTES {
            return BlobView::TooLarge { mime, bytes: size };
        }
        return BlobView::Image {
            mime,
            base64: base64::engine::general_purpose::STANDARD.encode(bytes),
            bytes: size,
        };
    }
    view_head(bytes, size)
}

/// The text view of a blob of `size` bytes from its first bytes (`head`, at least
/// [`MAX_TEXT_BYTES`] + 1 of them when there are more).
fn view_head(head: &[u8], size: usize) -> BlobView {
    let mut end = head.len().min(MAX_TEXT_BYTES);
    // Not in the middle of a character: back up over continuation bytes.
    while end < head.len() && end > 0 && (head[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    BlobView::Text {
        text: String::from_utf8_lossy(&head[..end]).into_owned(),
        truncated: end < size,
        bytes: size,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] =
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

    #[test]
    fn only_raster_images_are_images() {
        assert_eq!(image_mime(PNG), Some("image/png"));
        assert_eq!(
            image_mime(b"\xff\xd8\xff\xe0\0\x10JFIF\0"),
            Some("image/jpeg")
        );
        assert_eq!(image_mime(b"GIF89a\x01\0\x01\0"), Some("image/gif"));
        assert_eq!(image_mime(b"RIFF\x1a\0\0\0WEBPVP8 "), Some("image/webp"));
        let svg = b"<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>";
        assert_eq!(image_mime(svg), None);
        assert_eq!(image_mime(b"<!DOCTYPE html><html><script>x</script>"), None);
        assert_eq!(image_mime(b"%PDF-1.7"), None);
        match view(svg) {
            BlobView::Text {
                text, truncated, ..
            } => {
                assert!(text.starts_with("<?xml") && !truncated)
            }
            other => panic!("{other:?}"),
        }
        match view(PNG) {
            BlobView::Image {
                mime,
                base64,
                bytes,
            } => {
                assert_eq!((mime, bytes), ("image/png", PNG.len()));
                assert!(base64.starts_with("iVBORw0KGgo"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn text_is_cut_at_the_cap_on_a_character_boundary() {
        let mut bytes = vec![b'a'; MAX_TEXT_BYTES - 1];
        bytes.extend("é and more".as_bytes());
        match view(&bytes) {
            BlobView::Text {
                text,
                truncated,
                bytes: n,
            } => {
                assert!(truncated);
                assert_eq!(n, bytes.len());
                assert_eq!(text.len(), MAX_TEXT_BYTES - 1);
                assert!(!text.contains('\u{fffd}'));
            }
            other => panic!("{other:?}"),
        }
        let mut big = PNG.to_vec();
        big.resize(MAX_IMAGE_BYTES + 1, 0);
        assert_eq!(
            view(&big),
            BlobView::TooLarge {
                mime: "image/png",
                bytes: MAX_IMAGE_BYTES + 1
            }
        );
    }
}
