//! The bundle reader against hostile archives: zip-slip names (`../`, absolute, drive letters,
//! backslashes), symbolic links, zip bombs (entry and total size, entry count, ratio, a size
//! that lies), bad checksums, unsafe ids and titles, missing or future manifests, truncated and
//! randomly damaged archives. Each is refused with a clear error, without a panic, and nothing
//! is written anywhere (the folder holding the bundle is the same before and after).

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use agent_sessions_core::bundle::{Bundle, BundleError, Limits, Mode};
use agent_sessions_core::{bundle, ProviderKind, ScanProgress};
use proptest::prelude::*;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;

const ID: &str = "7938f0db-aeb3-409b-ab80-42085a5431da";

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A minimal valid Claude manifest listing `files` (path, bytes, kind, owner).
fn manifest(files: &[(&str, &[u8], &str, Option<&str>)]) -> Value {
    json!({
        "format": "agent-sessions.bundle",
        "format_version": 1,
        "app_version": "0.1.0",
        "created_at": "2026-12-01T00:00:00Z",
        "mode": "complete",
        "source": { "provider": "claude", "tool_version": "2.1.332", "host": "h" },
        "session": {
            "id": ID, "parent_id": null, "title": "t", "cwd": "/w", "git_branch": null,
            "model": null, "agent": null, "created_at": null, "updated_at": null,
            "counts": { "user": 1, "assistant": 1, "tool_calls": 0 }, "tokens": null
        },
        "files": files.iter().map(|(p, b, kind, owner)| json!({
            "path": p, "kind": kind, "session": owner, "size": b.len(), "sha256": sha(b)
        })).collect::<Vec<_>>(),
    })
}

fn good_files() -> Vec<(String, Vec<u8>, &'static str, Option<&'static str>)> {
    vec![
        (
            "transcript.json".into(),
            br#"{"schema_version":"agent-sessions.export.v1"}"#.to_vec(),
            "transcript",
            None,
        ),
        ("transcript.md".into(), b"# t\n".to_vec(), "markdown", None),
        (
            format!("native/claude/{ID}.jsonl"),
            format!("{{\"type\":\"user\",\"sessionId\":\"{ID}\",\"cwd\":\"/w\"}}\n").into_bytes(),
            "native",
            Some(ID),
        ),
    ]
}

/// Writes a zip of `entries` (name, bytes) with `manifest` as `manifest.json` (when given).
fn write_zip(path: &Path, entries: &[(String, Vec<u8>)], manifest: Option<&Value>) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let opts = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        zip.start_file(name.as_str(), opts).unwrap();
        zip.write_all(bytes).unwrap();
    }
    if let Some(m) = manifest {
        zip.start_file("manifest.json", opts).unwrap();
        zip.write_all(&serde_json::to_vec(m).unwrap()).unwrap();
    }
    zip.finish().unwrap();
}

/// A bundle of the good files with `edit` applied to the manifest and `extra` entries added.
fn bundle_with(dir: &Path, edit: impl FnOnce(&mut Value), extra: &[(String, Vec<u8>)]) -> PathBuf {
    bundle_of(dir, good_files(), edit, extra)
}

fn bundle_of(
    dir: &Path,
    files: Vec<(String, Vec<u8>, &str, Option<&str>)>,
    edit: impl FnOnce(&mut Value),
    extra: &[(String, Vec<u8>)],
) -> PathBuf {
    let listed: Vec<(&str, &[u8], &str, Option<&str>)> = files
        .iter()
        .map(|(p, b, k, o)| (p.as_str(), b.as_slice(), *k, *o))
        .collect();
    let mut m = manifest(&listed);
    edit(&mut m);
    let mut entries: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|(p, b, _, _)| (p.clone(), b.clone()))
        .collect();
    entries.extend(extra.iter().cloned());
    let path = dir.join("b.agent-session.zip");
    write_zip(&path, &entries, Some(&m));
    path
}

/// Bytes that do not compress.
fn noise(n: usize, seed: u32) -> Vec<u8> {
    (0..n as u32)
        .map(|j| (j ^ seed).wrapping_mul(2_654_435_761).to_le_bytes()[3])
        .collect()
}

/// Opens `path`, expecting a refusal whose code is `code` and whose message names `says`;
/// the folder is unchanged.
fn refused(path: &Path, limits: Limits, code: &str, says: &str) {
    let dir = path.parent().unwrap().parent().unwrap();
    let before = common::snapshot(dir);
    let err = Bundle::open_with(path, limits)
        .err()
        .unwrap_or_else(|| panic!("accepted; expected {code}"));
    assert_eq!(err.code(), code, "{err}");
    assert!(
        err.to_string().contains(says),
        "{err} (expected to mention {says:?})"
    );
    assert_eq!(common::snapshot(dir), before, "something was written");
}

fn work() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let inner = t.path().join("in");
    std::fs::create_dir(&inner).unwrap();
    (t, inner)
}

#[test]
fn a_well_formed_bundle_opens() {
    let (_t, dir) = work();
    let path = bundle_with(&dir, |_| {}, &[]);
    let b = Bundle::open(&path).unwrap();
    assert_eq!(b.manifest.session.id, ID);
    assert_eq!(b.read("transcript.md").unwrap(), b"# t\n");
}

#[test]
fn zip_slip_names_and_links_are_refused() {
    for name in [
        "../evil.txt",
        "native/../../evil.txt",
        "/tmp/evil.txt",
        "\\evil.txt",
        "native\\..\\evil.txt",
        "C:/evil.txt",
        "C:\\evil.txt",
        "D:evil.txt",
        "native//evil.txt",
        "./evil.txt",
    ] {
        let (_t, dir) = work();
        let path = bundle_with(&dir, |_| {}, &[(name.to_owned(), b"x".to_vec())]);
        refused(
            &path,
            Limits::default(),
            "bundle_unsafe",
            "nothing was written",
        );
        assert!(!dir.parent().unwrap().join("evil.txt").exists());
    }
    // A symbolic link entry, even under a listed name.
    let (_t, dir) = work();
    let path = dir.join("link.zip");
    let files = good_files();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    for (p, b, _, _) in &files {
        if p.starts_with("native/") {
            zip.add_symlink(p.as_str(), "/etc/passwd", SimpleFileOptions::default())
                .unwrap();
        } else {
            zip.start_file(p.as_str(), SimpleFileOptions::default())
                .unwrap();
            zip.write_all(b).unwrap();
        }
    }
    let listed: Vec<(&str, &[u8], &str, Option<&str>)> = files
        .iter()
        .map(|(p, b, k, o)| (p.as_str(), b.as_slice(), *k, *o))
        .collect();
    zip.start_file("manifest.json", SimpleFileOptions::default())
        .unwrap();
    zip.write_all(&serde_json::to_vec(&manifest(&listed)).unwrap())
        .unwrap();
    zip.finish().unwrap();
    refused(&path, Limits::default(), "bundle_unsafe", "symbolic link");
    // A folder entry.
    let (_t, dir) = work();
    let path = dir.join("dir.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    zip.add_directory("native/claude", SimpleFileOptions::default())
        .unwrap();
    zip.finish().unwrap();
    refused(&path, Limits::default(), "bundle_unsafe", "");
}

/// A change made to a good manifest.
type Edit = Box<dyn Fn(&mut Value)>;

#[test]
fn manifests_naming_unsafe_places_ids_or_titles_are_refused() {
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "unlisted native",
            Box::new(|m| m["files"][2]["path"] = json!("native/claude/../x.jsonl")),
            "bundle_unsafe",
        ),
        (
            "id with a path",
            Box::new(|m| m["session"]["id"] = json!("../../etc")),
            "bundle_unsafe",
        ),
        (
            "codex id for claude",
            Box::new(|m| m["session"]["id"] = json!("ses_abc")),
            "bundle_unsafe",
        ),
        (
            "bidi title",
            Box::new(|m| m["session"]["title"] = json!("evil\u{202e}txt.exe")),
            "bundle_unsafe",
        ),
        (
            "newline title",
            Box::new(|m| m["session"]["title"] = json!("a\nrm -rf /")),
            "bundle_unsafe",
        ),
        (
            "huge title",
            Box::new(|m| m["session"]["title"] = json!("x".repeat(5000))),
            "bundle_unsafe",
        ),
        (
            "escape in cwd",
            Box::new(|m| m["session"]["cwd"] = json!("/w\u{1b}]0;x\u{7}")),
            "bundle_unsafe",
        ),
        (
            "native of another session",
            Box::new(|m| m["files"][2]["session"] = json!("00000000-0000-4000-8000-000000000000")),
            "bundle_unsafe",
        ),
        (
            "orphan subagent",
            Box::new(
                |m| m["subagents"] = json!([{ "id": "agent-1", "parent_id": "00000000-0000-4000-8000-000000000000", "title": null, "cwd": null, "git_branch": null, "model": null, "agent": null, "created_at": null, "updated_at": null, "counts": {"user":0,"assistant":0,"tool_calls":0}, "tokens": null }]),
            ),
            "bundle_manifest",
        ),
        (
            "share-safe with records",
            Box::new(|m| m["mode"] = json!("share_safe")),
            "bundle_manifest",
        ),
        (
            "other format",
            Box::new(|m| m["format"] = json!("something.else")),
            "bundle_manifest",
        ),
        (
            "no version",
            Box::new(|m| {
                m.as_object_mut().unwrap().remove("format_version");
            }),
            "bundle_manifest",
        ),
        (
            "text version",
            Box::new(|m| m["format_version"] = json!("1")),
            "bundle_manifest",
        ),
        (
            "future version",
            Box::new(|m| m["format_version"] = json!(2)),
            "bundle_version",
        ),
        (
            "version zero",
            Box::new(|m| m["format_version"] = json!(0)),
            "bundle_version",
        ),
        (
            "listed twice",
            Box::new(|m| {
                let f = m["files"][1].clone();
                m["files"].as_array_mut().unwrap().push(f);
            }),
            "bundle_manifest",
        ),
        (
            "listed, missing",
            Box::new(|m| {
                m["files"].as_array_mut().unwrap().push(json!({"path": "transcript2.md", "kind": "markdown", "size": 1, "sha256": "0".repeat(64)}))
            }),
            "bundle_unsafe",
        ),
        (
            "bad checksum",
            Box::new(|m| m["files"][0]["sha256"] = json!("0".repeat(64))),
            "bundle_checksum",
        ),
        (
            "checksum not hex",
            Box::new(|m| m["files"][0]["sha256"] = json!("zz")),
            "bundle_manifest",
        ),
        (
            "size too small",
            Box::new(|m| m["files"][2]["size"] = json!(3)),
            "bundle_checksum",
        ),
        (
            "size too big",
            Box::new(|m| m["files"][2]["size"] = json!(100000)),
            "bundle_checksum",
        ),
    ];
    for (what, edit, code) in cases {
        let (_t, dir) = work();
        let path = bundle_with(&dir, |m| edit(m), &[]);
        let before = common::snapshot(dir.parent().unwrap());
        let err = Bundle::open(&path)
            .err()
            .unwrap_or_else(|| panic!("{what}: accepted"));
        assert_eq!(err.code(), code, "{what}: {err}");
        assert_eq!(common::snapshot(dir.parent().unwrap()), before);
    }
    // The future version says to update, not that the manifest is malformed.
    let (_t, dir) = work();
    let path = bundle_with(
        &dir,
        |m| {
            m["format_version"] = json!(7);
            m["files"] = json!("a newer layout");
        },
        &[],
    );
    let err = Bundle::open(&path).unwrap_err();
    assert!(err.to_string().contains("newer agent-sessions"), "{err}");
}

#[test]
fn missing_manifests_and_unlisted_entries_are_refused() {
    let (_t, dir) = work();
    let path = dir.join("none.zip");
    let files: Vec<(String, Vec<u8>)> = good_files()
        .into_iter()
        .map(|(p, b, _, _)| (p, b))
        .collect();
    write_zip(&path, &files, None);
    refused(
        &path,
        Limits::default(),
        "bundle_manifest",
        "no manifest.json",
    );
    let (_t, dir) = work();
    let path = bundle_with(
        &dir,
        |_| {},
        &[("native/claude/extra.jsonl".into(), b"{}\n".to_vec())],
    );
    refused(&path, Limits::default(), "bundle_unsafe", "does not list");
    let (_t, dir) = work();
    let path = dir.join("notzip.agent-session.zip");
    std::fs::write(&path, b"PK\x03\x04 this is not really a zip").unwrap();
    refused(
        &path,
        Limits::default(),
        "bundle_invalid",
        "not a complete zip archive",
    );
}

#[test]
fn zip_bombs_are_refused_before_they_unpack() {
    let small = Limits {
        entries: 8,
        entry_bytes: 64 << 10,
        total_bytes: 128 << 10,
        ratio: 50,
        ratio_from: 16 << 10,
        ..Limits::default()
    };
    // One entry larger than an entry may be (declared).
    let (_t, dir) = work();
    let mut files = good_files();
    files[1].1 = noise(100 << 10, 1);
    let path = bundle_of(&dir, files, |_| {}, &[]);
    refused(&path, small, "bundle_too_large", "more than the");
    // Many entries.
    let (_t, dir) = work();
    let extra: Vec<(String, Vec<u8>)> = (0..10).map(|i| (format!("x{i}"), Vec::new())).collect();
    let path = bundle_with(&dir, |_| {}, &extra);
    refused(&path, small, "bundle_too_large", "entries");
    // In total.
    let (_t, dir) = work();
    let extra: Vec<(String, Vec<u8>)> = (0..3)
        .map(|i| (format!("x{i}"), noise(60 << 10, i)))
        .collect();
    let path = bundle_with(&dir, |_| {}, &extra);
    refused(&path, small, "bundle_too_large", "unpacks to more than");
    // Ratio: zeros pack a thousandfold.
    let (_t, dir) = work();
    let path = bundle_with(&dir, |_| {}, &[("zeros".into(), vec![0u8; 60 << 10])]);
    refused(&path, small, "bundle_too_large", "zip bomb");
    // An archive (and manifest) that lie about the size: the read stops at the declared size,
    // whatever the data would unpack to.
    let (_t, dir) = work();
    let path = bundle_with(&dir, |m| m["files"][2]["size"] = json!(4), &[]);
    let mut bytes = std::fs::read(&path).unwrap();
    let name = format!("native/claude/{ID}.jsonl");
    let real = good_files()[2].1.len() as u32;
    assert!(patch_sizes(&mut bytes, name.as_bytes(), real, 4) >= 1);
    std::fs::write(&path, &bytes).unwrap();
    refused(
        &path,
        Limits::default(),
        "bundle_too_large",
        "more than its 4 bytes",
    );
}

/// Sets the uncompressed size of entry `name` to `to` in every header that says `from`; how
/// many headers were changed.
fn patch_sizes(bytes: &mut [u8], name: &[u8], from: u32, to: u32) -> usize {
    let mut n = 0;
    for i in 0..bytes.len().saturating_sub(46) {
        let sig = &bytes[i..i + 4];
        let (size_at, name_len_at, name_at) = if sig == b"PK\x01\x02" {
            (i + 24, i + 28, i + 46)
        } else if sig == b"PK\x03\x04" {
            (i + 22, i + 26, i + 30)
        } else {
            continue;
        };
        let len = u16::from_le_bytes([bytes[name_len_at], bytes[name_len_at + 1]]) as usize;
        if bytes.get(name_at..name_at + len) == Some(name)
            && bytes[size_at..size_at + 4] == from.to_le_bytes()
        {
            bytes[size_at..size_at + 4].copy_from_slice(&to.to_le_bytes());
            n += 1;
        }
    }
    n
}

/// A real bundle of a fixture session (with a subagent), for the damage tests: made once,
/// copied into `dir`.
fn real_bundle(dir: &Path) -> PathBuf {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let bytes = BYTES.get_or_init(|| {
        let root = common::fixture(ProviderKind::Claude, "2.1.332");
        let catalog = common::catalog(ProviderKind::Claude, &root);
        let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
        let s = all.iter().find(|s| s.id.starts_with("3783a6bc")).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("real.agent-session.zip");
        bundle::prepare(&catalog, &all, s, Mode::Complete)
            .unwrap()
            .save(&path, false)
            .unwrap();
        std::fs::read(path).unwrap()
    });
    let path = dir.join("real.agent-session.zip");
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn truncated_archives_are_refused_at_every_length() {
    let (_t, dir) = work();
    let good = std::fs::read(real_bundle(&dir)).unwrap();
    let cut = dir.join("cut.zip");
    let step = (good.len() / 300).max(1);
    for len in (0..good.len()).step_by(step).chain([good.len() - 1]) {
        std::fs::write(&cut, &good[..len]).unwrap();
        let err = Bundle::open(&cut)
            .err()
            .unwrap_or_else(|| panic!("accepted at {len}"));
        assert!(
            matches!(
                err,
                BundleError::Invalid(_)
                    | BundleError::Checksum(_)
                    | BundleError::Manifest(_)
                    | BundleError::TooLarge(_)
            ),
            "{len}: {err}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Damage anywhere (changed bytes, a cut, inserted bytes) never panics, and whatever opens
    /// still has exactly the files the manifest lists, checked.
    #[test]
    fn damaged_bundles_never_panic_and_never_pass_altered_files(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in proptest::option::of(any::<prop::sample::Index>()),
        insert in proptest::option::of((any::<prop::sample::Index>(), proptest::collection::vec(any::<u8>(), 1..32))),
    ) {
        let (_t, dir) = work();
        let path = real_bundle(&dir);
        let good = Bundle::open(&path).unwrap();
        let originals: Vec<(String, Vec<u8>)> = good
            .manifest
            .files
            .iter()
            .map(|f| (f.path.clone(), good.read(&f.path).unwrap()))
            .collect();
        let mut bytes = std::fs::read(&path).unwrap();
        for (at, b) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= b | 1;
        }
        if let Some((at, more)) = insert {
            let i = at.index(bytes.len());
            bytes.splice(i..i, more);
        }
        if let Some(at) = cut {
            bytes.truncate(at.index(bytes.len()));
        }
        std::fs::write(&path, &bytes).unwrap();
        let before = common::snapshot(dir.parent().unwrap());
        if let Ok(b) = Bundle::open(&path) {
            for f in &b.manifest.files {
                let now = b.read(&f.path).unwrap();
                let was = originals.iter().find(|(p, _)| p == &f.path);
                // A changed manifest may list other files; the ones it shares must be intact.
                if let Some((_, was)) = was {
                    if b.manifest.files.iter().find(|g| g.path == f.path).map(|g| &g.sha256) == good.manifest.files.iter().find(|g| g.path == f.path).map(|g| &g.sha256) {
                        prop_assert_eq!(&now, was);
                    }
                }
            }
        }
        prop_assert_eq!(common::snapshot(dir.parent().unwrap()), before);
    }

    /// Any entry name either is refused or stays inside the folder it would be written under.
    #[test]
    fn entry_names_never_leave_the_folder(name in "[a-zA-Z0-9./\\\\:_ -]{0,40}") {
        if bundle::manifest::check_name(&name).is_ok() {
            let p = Path::new(&name);
            prop_assert!(p.is_relative());
            prop_assert!(p.components().all(|c| matches!(c, std::path::Component::Normal(_))));
            prop_assert!(!name.contains('\\') && !name.contains(':'));
        }
    }
}

/// `n` tool results of `bytes` each beside the good files (a Claude session's folder holds
/// them), written with `opts`.
fn results(n: usize, bytes: &[u8]) -> Vec<(String, Vec<u8>, &'static str, Option<&'static str>)> {
    let mut files = good_files();
    files.extend((0..n).map(|i| {
        (
            format!("native/claude/{ID}/tool-results/r{i:04}.txt"),
            bytes.to_vec(),
            "native",
            Some(ID),
        )
    }));
    files
}

/// The offset of each central directory record's local header (`name` → where its offset is
/// written, the offset).
fn central_offsets(bytes: &[u8]) -> Vec<(String, usize, u32)> {
    let mut out = Vec::new();
    for i in 0..bytes.len().saturating_sub(46) {
        if &bytes[i..i + 4] != b"PK\x01\x02" {
            continue;
        }
        let len = u16::from_le_bytes([bytes[i + 28], bytes[i + 29]]) as usize;
        let name = String::from_utf8_lossy(&bytes[i + 46..i + 46 + len]).into_owned();
        let at = i + 42;
        let offset = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        out.push((name, at, offset));
    }
    out
}

/// Finding 6 of issue 29: 64 directory entries pointing at one compressed stream unpacked it
/// 64 times (a 136 KB bundle wrote 1.1 GB). Entries must lie apart in the archive.
#[test]
fn entries_sharing_one_compressed_stream_are_refused() {
    let (_t, dir) = work();
    let files = results(64, &vec![b'a'; 512 << 10]);
    let path = bundle_of(&dir, files, |_| {}, &[]);
    let mut bytes = std::fs::read(&path).unwrap();
    let offsets = central_offsets(&bytes);
    let (_, _, first) = offsets
        .iter()
        .find(|(n, _, _)| n.ends_with("r0000.txt"))
        .unwrap()
        .clone();
    let mut patched = 0;
    for (name, at, _) in &offsets {
        if name.contains("/tool-results/r") {
            bytes[*at..*at + 4].copy_from_slice(&first.to_le_bytes());
            patched += 1;
        }
    }
    assert_eq!(patched, 64);
    std::fs::write(&path, &bytes).unwrap();
    refused(
        &path,
        Limits::default(),
        "bundle_unsafe",
        "share bytes of the archive",
    );
    // Two entries only, the second at the first's data.
    let (_t, dir) = work();
    let path = bundle_of(&dir, results(2, &vec![b'b'; 4096]), |_| {}, &[]);
    let mut bytes = std::fs::read(&path).unwrap();
    let offsets = central_offsets(&bytes);
    let first = offsets
        .iter()
        .find(|(n, _, _)| n.ends_with("r0000.txt"))
        .unwrap()
        .2;
    let (_, at, _) = offsets
        .iter()
        .find(|(n, _, _)| n.ends_with("r0001.txt"))
        .unwrap();
    bytes[*at..*at + 4].copy_from_slice(&first.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    refused(
        &path,
        Limits::default(),
        "bundle_unsafe",
        "r0000.txt and native/claude",
    );
}

/// Finding 6: entries of up to 1 MiB skipped the ratio check, so 1,024 of them unpacked 1.3 MB
/// into 1.1 GB. The whole archive's ratio is limited once it unpacks to more than 64 MiB.
#[test]
fn many_small_entries_that_pack_a_thousandfold_are_refused() {
    let (_t, dir) = work();
    // 80 entries of 1 MiB (at the per-entry ratio's threshold): 80 MiB from about 100 KB.
    let path = bundle_of(&dir, results(80, &vec![0u8; 1 << 20]), |_| {}, &[]);
    assert!(std::fs::metadata(&path).unwrap().len() < 200 << 10);
    refused(
        &path,
        Limits::default(),
        "bundle_too_large",
        "times its own",
    );
}

/// The whole archive's limits, at their boundaries: what it unpacks to in all (exactly the
/// limit passes, a byte less refuses), and its ratio to the archive's size (likewise), which
/// applies only above its threshold.
#[test]
fn the_total_size_and_ratio_limits_hold_at_their_boundaries() {
    let (_t, dir) = work();
    let path = bundle_of(&dir, results(8, &vec![0u8; 32 << 10]), |_| {}, &[]);
    let opened = Bundle::open(&path).unwrap();
    let (total, size) = (opened.unpacked, opened.size);
    let files: u64 = opened.manifest.files.iter().map(|f| f.size).sum();
    assert!(
        total > files && total < files + 4096,
        "the manifest counts too: {total}"
    );
    assert!(total / size > 10, "{total} from {size}");
    let at = |total_bytes, total_ratio, total_ratio_from| Limits {
        total_bytes,
        total_ratio,
        total_ratio_from,
        ..Limits::default()
    };
    assert_eq!(
        Bundle::open_with(&path, at(total, 1000, 0))
            .unwrap()
            .unpacked,
        total
    );
    refused(
        &path,
        at(total - 1, 1000, 0),
        "bundle_too_large",
        "unpacks to more than",
    );
    let ratio = total.div_ceil(size);
    Bundle::open_with(&path, at(u64::MAX, ratio, 0)).unwrap();
    refused(
        &path,
        at(u64::MAX, ratio - 1, 0),
        "bundle_too_large",
        "times its own",
    );
    // Below the threshold the ratio does not count; at it, it does.
    Bundle::open_with(&path, at(u64::MAX, 1, total)).unwrap();
    refused(
        &path,
        at(u64::MAX, 1, total - 1),
        "bundle_too_large",
        "times its own",
    );
}
