//! Bundle export on every fixture session: the archive opens and checks, is private, carries
//! the agent's own records byte for byte (OpenCode's as its own `opencode export` writes
//! them), and a share-safe one leaves out the records and every planted secret.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use agent_sessions_core::bundle::manifest::FileKind;
use agent_sessions_core::bundle::{self, Bundle, Mode};
use agent_sessions_core::{Catalog, Error, ProviderKind, ScanProgress, SessionMeta};
use serde_json::Value;

/// A fixture store: the copied one, or OpenCode's v2 store built from its script.
struct Store {
    root: PathBuf,
    _tmp: Option<tempfile::TempDir>,
}

fn versions(kind: ProviderKind) -> Vec<String> {
    let dir = common::repo().join("testdata").join(kind.as_str());
    let mut out: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.path().join(common::store_dir(kind)).is_dir() || e.path().join("build.sql").is_file()
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    assert!(!out.is_empty());
    out
}

fn store(kind: ProviderKind, version: &str) -> Store {
    let dir = common::repo()
        .join("testdata")
        .join(kind.as_str())
        .join(version);
    let script = dir.join("build.sql");
    if !script.exists() {
        return Store {
            root: common::fixture(kind, version).canonicalize().unwrap(),
            _tmp: None,
        };
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join(common::store_dir(kind));
    std::fs::create_dir_all(&root).unwrap();
    let conn = rusqlite::Connection::open(root.join("opencode.db")).unwrap();
    conn.execute_batch(&std::fs::read_to_string(script).unwrap())
        .unwrap();
    Store {
        root,
        _tmp: Some(tmp),
    }
}

fn listing(kind: ProviderKind, root: &Path) -> (Catalog, Vec<SessionMeta>) {
    let catalog = common::catalog(kind, root);
    let sessions = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    (catalog, sessions)
}

fn descendants(all: &[SessionMeta], id: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut todo = vec![id.to_owned()];
    while let Some(p) = todo.pop() {
        for s in all
            .iter()
            .filter(|s| s.parent_id.as_deref() == Some(p.as_str()))
        {
            if out.insert(s.id.clone()) {
                todo.push(s.id.clone());
            }
        }
    }
    out
}

/// Writes the bundle of `s` into `dir`; the path.
fn save(
    catalog: &Catalog,
    all: &[SessionMeta],
    s: &SessionMeta,
    mode: Mode,
    dir: &Path,
) -> Result<PathBuf, Error> {
    let prepared = bundle::prepare(catalog, all, s, mode)?;
    let path = dir.join(prepared.file_name());
    let saved = prepared.save(&path, false)?;
    assert_eq!(saved.path, path);
    Ok(path)
}

fn is_v2(s: &SessionMeta) -> bool {
    s.source_path.extension().is_some_and(|e| e == "db")
        && s.format_version.is_none()
        && s.provider == ProviderKind::Opencode
}

#[test]
fn every_fixture_session_bundles_with_its_own_records_and_opens_checked() {
    let out = tempfile::tempdir().unwrap();
    let mut bundles = 0;
    for kind in ProviderKind::ALL {
        for version in versions(kind) {
            let store = store(kind, &version);
            let (catalog, all) = listing(kind, &store.root);
            for s in all.iter().filter(|s| s.parent_id.is_none()) {
                let dir = tempfile::tempdir_in(out.path()).unwrap();
                let path = match save(&catalog, &all, s, Mode::Complete, dir.path()) {
                    Ok(p) => p,
                    // OpenCode's v2 rows have no released OpenCode that reads them back.
                    Err(Error::Bundle(e)) if version == "v2-synthetic" => {
                        assert_eq!(e.code(), "unsupported", "{version} {}: {e}", s.id);
                        assert!(e.to_string().contains("v2 tables"), "{e}");
                        continue;
                    }
                    // Qwen Code before 0.5 has no resume: nothing to restore a bundle into.
                    Err(Error::Bundle(e)) if kind == ProviderKind::Qwen && version == "0.1.4" => {
                        assert_eq!(e.code(), "unsupported", "{version} {}: {e}", s.id);
                        assert!(
                            e.to_string().contains("before 0.5 cannot be resumed"),
                            "{e}"
                        );
                        continue;
                    }
                    Err(e) => panic!("{kind} {version} {}: {e}", s.id),
                };
                bundles += 1;
                let what = format!("{kind} {version} {}", s.id);
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
                    assert_eq!(mode & 0o777, 0o600, "{what}");
                }
                let b = Bundle::open(&path).unwrap_or_else(|e| panic!("{what}: {e}"));
                let m = &b.manifest;
                assert_eq!(m.mode, Mode::Complete);
                assert_eq!(m.source.provider, kind);
                assert_eq!(m.session.id, s.id);
                assert_eq!(m.session.counts, s.counts, "{what}");
                let subs: BTreeSet<String> = m.subagents.iter().map(|x| x.id.clone()).collect();
                let expected = descendants(&all, &s.id);
                let bundled_v2 = all.iter().filter(|x| expected.contains(&x.id) && is_v2(x));
                assert_eq!(subs, expected, "{what}: subagents");
                // Every session of the bundle has its records in it (or a note says why).
                for id in std::iter::once(&s.id).chain(&subs) {
                    let has = m.native_files().any(|f| f.session.as_deref() == Some(id));
                    let noted = m.notes.iter().any(|n| n.contains(id.as_str()));
                    assert!(has || noted, "{what}: nothing of {id}");
                }
                assert_eq!(bundled_v2.count(), 0);
                // Claude and Codex records are the store's files, byte for byte.
                for f in m.native_files() {
                    let bytes = b.read(&f.path).unwrap();
                    match kind {
                        ProviderKind::Claude
                        | ProviderKind::Codex
                        | ProviderKind::Gemini
                        | ProviderKind::Qwen
                        | ProviderKind::Copilot => {
                            let source = store_file(kind, &store.root, &all, f);
                            assert_eq!(
                                bytes,
                                std::fs::read(&source).unwrap(),
                                "{what}: {}",
                                f.path
                            );
                        }
                        ProviderKind::Opencode => {
                            let doc: Value = serde_json::from_slice(&bytes).unwrap();
                            assert_eq!(doc["info"]["id"].as_str(), f.session.as_deref());
                        }
                        // Cline's are its files below `data/`, byte for byte.
                        ProviderKind::Cline => {
                            let rel = f.path.strip_prefix("native/cline/").unwrap();
                            let source = store.root.join("data").join(rel);
                            assert_eq!(bytes, std::fs::read(&source).unwrap(), "{what}");
                        }
                        // An Aider run: its bytes of the history file, from its header on.
                        ProviderKind::Aider => {
                            let file = std::fs::read(&s.source_path).unwrap();
                            assert!(bytes.starts_with(b"# aider chat started at "), "{what}");
                            let at = file.windows(bytes.len()).position(|w| w == bytes);
                            assert!(at.is_some(), "{what}: not the file's bytes");
                        }
                    }
                }
                let transcript: Value =
                    serde_json::from_slice(&b.read("transcript.json").unwrap()).unwrap();
                assert_eq!(transcript["schema_version"], "agent-sessions.export.v1");
                assert_eq!(transcript["session"]["id"].as_str(), Some(s.id.as_str()));
                let md = String::from_utf8(b.read("transcript.md").unwrap()).unwrap();
                assert!(md.starts_with('#'), "{what}: {}", &md[..md.len().min(80)]);
            }
        }
    }
    assert!(bundles >= 40, "only {bundles} bundles");
}

/// Where the store keeps a Claude or Codex file of the bundle.
fn store_file(
    kind: ProviderKind,
    root: &Path,
    all: &[SessionMeta],
    f: &bundle::manifest::FileEntry,
) -> PathBuf {
    let rel = f.path.strip_prefix(&format!("native/{kind}/")).unwrap();
    match kind {
        ProviderKind::Codex => root.join(rel),
        // The owner's own file (a Qwen subagent's `.meta.json` beside it).
        ProviderKind::Gemini | ProviderKind::Qwen | ProviderKind::Copilot => {
            let owner = f.session.as_deref().unwrap();
            let s = all.iter().find(|s| s.id == owner).unwrap();
            if rel.ends_with(".meta.json") {
                s.source_path.with_extension("meta.json")
            } else {
                s.source_path.clone()
            }
        }
        _ => {
            let owner = f.session.as_deref().unwrap();
            let s = all.iter().find(|s| s.id == owner).unwrap();
            // The project folder: beside a main or flat transcript, two up from a nested one.
            let project = if s.source_path.parent().unwrap().ends_with("subagents") {
                s.source_path.ancestors().nth(3).unwrap()
            } else {
                s.source_path.parent().unwrap()
            };
            project.join(rel)
        }
    }
}

#[test]
fn opencode_records_are_what_opencode_export_writes() {
    let mut compared = 0;
    for version in ["1.2.27", "1.18.33", "0.5.29-then-1.0.0"] {
        let exports = common::repo()
            .join("testdata/opencode")
            .join(version)
            .join("exports");
        let store = store(ProviderKind::Opencode, version);
        let (catalog, all) = listing(ProviderKind::Opencode, &store.root);
        let dir = tempfile::tempdir().unwrap();
        let mut ours = std::collections::BTreeMap::new();
        for s in all.iter().filter(|s| s.parent_id.is_none()) {
            let own = tempfile::tempdir_in(dir.path()).unwrap();
            let path = save(&catalog, &all, s, Mode::Complete, own.path()).unwrap();
            let b = Bundle::open(&path).unwrap();
            for f in b.manifest.native_files() {
                let doc: Value = serde_json::from_slice(&b.read(&f.path).unwrap()).unwrap();
                ours.insert(f.session.clone().unwrap(), doc);
            }
        }
        for e in std::fs::read_dir(&exports).unwrap().flatten() {
            let theirs: Value = serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap();
            let id = theirs["info"]["id"].as_str().unwrap().to_owned();
            let doc = ours
                .get(&id)
                .unwrap_or_else(|| panic!("{version}: no records of {id}"));
            assert_eq!(doc["info"], theirs["info"], "{version} {id}: info");
            let ours_m = doc["messages"].as_array().unwrap();
            let theirs_m = theirs["messages"].as_array().unwrap();
            assert_eq!(ours_m.len(), theirs_m.len(), "{version} {id}: messages");
            for (a, b) in ours_m.iter().zip(theirs_m) {
                assert_eq!(a["info"], b["info"], "{version} {id}: message");
                assert_eq!(a["parts"], b["parts"], "{version} {id}: parts");
            }
            compared += 1;
        }
    }
    assert!(compared >= 15, "{compared}");
}

/// Secrets made at run time, so no token-shaped string is committed.
fn planted() -> Vec<(&'static str, String)> {
    let key_body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC".repeat(3);
    let b64 = |s: &str| {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s)
    };
    vec![
        (
            "private_key",
            format!("-----BEGIN RSA PRIVATE KEY-----\n{key_body}\n{key_body}\n-----END RSA PRIVATE KEY-----"),
        ),
        (
            "jwt",
            format!(
                "{}.{}.{}",
                b64(r#"{"alg":"HS256","typ":"JWT"}"#),
                b64(r#"{"sub":"1234567890","name":"planted"}"#),
                "c2lnbmF0dXJlLXBsYW50ZWQtZm9yLXRlc3Rz"
            ),
        ),
        ("token", format!("sk-ant-api03-{}", "Xy9".repeat(12))),
        ("token", format!("ghp_{}", "A1b2".repeat(9))),
        ("token", format!("AKIA{}", "Q7".repeat(8))),
        ("token", format!("xoxb-{}", "123456789012-abc".repeat(2))),
        ("assignment", "hunter2-planted-password".to_owned()),
        ("home_path", "/home/planted-user".to_owned()),
    ]
}

#[test]
fn share_safe_bundles_leave_no_planted_secret_of_any_rule() {
    let store = common::fixture_copy(ProviderKind::Claude, "2.1.332");
    let id = "9d22e384-6685-4b75-ac35-088162e4c4a9";
    let file = store
        .path()
        .join("projects/-home-bob-projects-demo")
        .join(format!("{id}.jsonl"));
    let secrets = planted();
    let prompt = format!(
        "please use these: {}\n{}\nexport API_KEY={} GITHUB_TOKEN={} AWS={} SLACK={}\nDB_PASSWORD={}\ncd {}/work",
        secrets[0].1, secrets[1].1, secrets[2].1, secrets[3].1, secrets[4].1, secrets[5].1, secrets[6].1, secrets[7].1
    );
    // A user prompt appended to the session, shaped like the session's own records.
    let text = std::fs::read_to_string(&file).unwrap();
    let template: Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|r| r["type"] == "user" && r["message"]["content"].is_string())
        .unwrap();
    let mut record = template.clone();
    record["uuid"] = Value::from("00000000-0000-4000-8000-000000000001");
    record["parentUuid"] = Value::Null;
    record["message"]["content"] = Value::from(prompt.clone());
    std::fs::write(&file, format!("{text}{}\n", record)).unwrap();

    let (catalog, all) = listing(ProviderKind::Claude, store.path());
    let s = all.iter().find(|s| s.id == id).unwrap();
    let out = tempfile::tempdir().unwrap();
    // The complete bundle has them (the plant worked)…
    let complete =
        Bundle::open(&save(&catalog, &all, s, Mode::Complete, out.path()).unwrap()).unwrap();
    let md = String::from_utf8(complete.read("transcript.md").unwrap()).unwrap();
    for (_, secret) in &secrets {
        let line = secret.lines().next().unwrap();
        assert!(md.contains(line), "not planted: {line}");
    }
    // …the share-safe one has none, and counts every rule.
    let safe_dir = tempfile::tempdir().unwrap();
    let prepared = bundle::prepare(&catalog, &all, s, Mode::ShareSafe).unwrap();
    let counts = prepared.redaction().unwrap();
    let path = safe_dir.path().join(prepared.file_name());
    prepared.save(&path, false).unwrap();
    let safe = Bundle::open(&path).unwrap();
    assert_eq!(safe.manifest.redaction, Some(counts));
    assert_eq!(safe.manifest.native_files().count(), 0);
    // The sender's host name stays out of a share-safe manifest.
    assert_eq!(safe.manifest.source.host, None);
    assert!(counts.private_key >= 1, "{counts:?}");
    assert!(counts.jwt >= 1, "{counts:?}");
    assert!(counts.token >= 4, "{counts:?}");
    assert!(counts.assignment >= 1, "{counts:?}");
    assert!(counts.home_path >= 2, "{counts:?}");
    for f in &safe.manifest.files {
        let text = String::from_utf8(safe.read(&f.path).unwrap()).unwrap();
        if f.kind == FileKind::Transcript {
            serde_json::from_str::<Value>(&text).unwrap();
        }
        for (rule, secret) in &secrets {
            for piece in secret
                .lines()
                .filter(|l| l.len() > 8 && !l.starts_with("-----"))
            {
                assert!(!text.contains(piece), "{rule} left in {}: {piece}", f.path);
            }
        }
        assert!(!text.contains("/home/bob"), "home path left in {}", f.path);
        for rule in ["private_key", "jwt", "token", "assignment"] {
            assert!(
                text.contains(&format!("[REDACTED:{rule}]")),
                "{rule} in {}",
                f.path
            );
        }
    }
    assert_eq!(
        safe.manifest.session.cwd.as_deref(),
        Some("~/projects/demo")
    );
}

#[test]
fn a_subagent_alone_makes_only_a_share_safe_bundle() {
    let store = store(ProviderKind::Claude, "2.1.332");
    let (catalog, all) = listing(ProviderKind::Claude, &store.root);
    let sub = all.iter().find(|s| s.parent_id.is_some()).unwrap();
    let err = bundle::prepare(&catalog, &all, sub, Mode::Complete)
        .err()
        .unwrap();
    assert_eq!(err.code(), "unsupported");
    assert!(err.to_string().contains("parent session"), "{err}");
    assert!(bundle::prepare(&catalog, &all, sub, Mode::ShareSafe).is_ok());
}

#[test]
fn an_existing_file_is_kept_unless_replacing_is_asked() {
    let store = store(ProviderKind::Codex, "0.171.0");
    let (catalog, all) = listing(ProviderKind::Codex, &store.root);
    let s = all.iter().find(|s| s.parent_id.is_none()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.agent-session.zip");
    std::fs::write(&path, b"mine").unwrap();
    let err = bundle::prepare(&catalog, &all, s, Mode::Complete)
        .unwrap()
        .save(&path, false)
        .unwrap_err();
    assert_eq!(err.code(), "file_exists");
    assert_eq!(std::fs::read(&path).unwrap(), b"mine");
    bundle::prepare(&catalog, &all, s, Mode::Complete)
        .unwrap()
        .save(&path, true)
        .unwrap();
    assert!(Bundle::open(&path).is_ok());
    // Nothing but the bundle is left in the folder (no temporary files).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
