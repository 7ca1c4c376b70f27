//! What a window is shown of a blob reads no more than it shows: a Claude spilled tool output
//! of gigabytes (a sparse file here) is read up to the text cap, an image past its cap is not
//! read at all, and images within it are read whole.

mod common;

use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;

use agent_sessions_core::blob::{self, BlobView, MAX_IMAGE_BYTES, MAX_TEXT_BYTES};
use agent_sessions_core::provider::ScanProgress;
use agent_sessions_core::{Catalog, ProviderKind, SessionMeta};

const SESSION: &str = "bde0a626-a69a-4954-8861-5b8029a4f65f";
const KEY: &str = "tool-results/toolu_mock0019.txt";
const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

/// A copy of the Claude 2.1.9 store, its catalog, the session with a spilled output, and the
/// spilled file.
fn store() -> (tempfile::TempDir, Catalog, SessionMeta, PathBuf) {
    let dir = common::fixture_copy(ProviderKind::Claude, "2.1.9");
    let catalog = Catalog::new(&common::roots(ProviderKind::Claude, dir.path()), &[]);
    let session = catalog
        .scan(&ScanProgress::default())
        .unwrap()
        .sessions
        .into_iter()
        .find(|s| s.id == SESSION)
        .unwrap();
    let file = dir
        .path()
        .join("projects/-home-bob-projects-demo")
        .join(SESSION)
        .join(KEY);
    assert!(file.is_file(), "{}", file.display());
    (dir, catalog, session, file)
}

/// Replaces the spilled file with `head` followed by zeros (a hole: no disk, no time) up to
/// `size` bytes.
fn spill(file: &PathBuf, head: &[u8], size: u64) {
    let mut f = OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(file)
        .unwrap();
    f.write_all(head).unwrap();
    f.set_len(size).unwrap();
}

/// This process's peak resident memory in kB, where the system tells it (Linux).
fn peak_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    line.trim().trim_end_matches("kB").trim().parse().ok()
}

#[test]
fn a_huge_spilled_output_is_read_only_as_far_as_it_is_shown() {
    let (_dir, catalog, session, file) = store();
    let text: String = (0..200_000).map(|i| format!("line {i}\n")).collect();
    assert!(text.len() > MAX_TEXT_BYTES);
    let size = 3u64 << 30;
    spill(&file, text.as_bytes(), size);
    // Read whole, this would be 3 GiB in memory; the window's view reads a megabyte.
    let before = peak_kb();
    let view = blob::load_view(&catalog, &session, KEY).unwrap();
    if let (Some(before), Some(after)) = (before, peak_kb()) {
        assert!(
            after.saturating_sub(before) < 256 << 10,
            "peak memory grew by {} kB",
            after - before
        );
    }
    match view {
        BlobView::Text {
            text: shown,
            truncated,
            bytes,
        } => {
            assert!(truncated);
            assert_eq!(bytes as u64, size);
            assert_eq!(shown.len(), MAX_TEXT_BYTES);
            assert_eq!(shown, text[..MAX_TEXT_BYTES]);
        }
        other => panic!("{other:?}"),
    }
    let (head, whole) = catalog.blob_head(&session, KEY, 10).unwrap();
    assert_eq!((head.as_slice(), whole), (&b"line 0\nlin"[..], size));
}

#[test]
fn images_are_read_whole_within_their_cap_and_not_at_all_past_it() {
    let (_dir, catalog, session, file) = store();
    // Past the image cap: said to be too large, and only the head was read to know it.
    spill(&file, PNG, 2 * MAX_IMAGE_BYTES as u64);
    assert_eq!(
        blob::load_view(&catalog, &session, KEY).unwrap(),
        BlobView::TooLarge {
            mime: "image/png",
            bytes: 2 * MAX_IMAGE_BYTES
        }
    );
    // Between the text cap and the image cap: the whole image.
    let mid = 3 * MAX_TEXT_BYTES;
    spill(&file, PNG, mid as u64);
    match blob::load_view(&catalog, &session, KEY).unwrap() {
        BlobView::Image {
            mime,
            base64,
            bytes,
        } => {
            assert_eq!((mime, bytes), ("image/png", mid));
            // base64 of every byte: 4 characters for each 3.
            assert_eq!(base64.len(), mid.div_ceil(3) * 4);
        }
        other => panic!("{other:?}"),
    }
    // Small: the head is the whole image.
    spill(&file, PNG, PNG.len() as u64);
    assert_eq!(
        blob::load_view(&catalog, &session, KEY).unwrap(),
        blob::view(PNG)
    );
    // Gone: an unknown key, as `read` says.
    std::fs::remove_file(&file).unwrap();
    let gone = blob::load_view(&catalog, &session, KEY).unwrap_err();
    assert_eq!(gone.code(), "blob_not_found", "{gone}");
}
