//! Golden tests over the real stores in `testdata/`: the scan matches the independently computed
//! `EXPECTED.json`, and scan and transcript output match the committed golden files.

use std::path::{Path, PathBuf};

mod common;

use agent_sessions_core::{Catalog, ProviderKind, ScanProgress, SessionMeta};
use common::{catalog, repo, store_dir, Canonical};
use serde_json::Value;

fn versions(provider: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo().join("testdata").join(provider))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("EXPECTED.json").exists())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no {provider} fixtures");
    dirs
}

fn scan(catalog: &Catalog) -> Vec<SessionMeta> {
    let report = catalog.scan(&ScanProgress::default()).unwrap();
    assert_eq!(
        report.diagnostics.parse_errors, 0,
        "{:?}",
        report.diagnostics
    );
    report.sessions
}

/// Checks ids, parents, cwd and user/assistant counts against `EXPECTED.json`. An Aider run
/// (given with its `file` and `header`: its directory is the folder holding the file, recorded
/// elsewhere) is expected in that folder under `root`.
fn check_expected(sessions: &[SessionMeta], expected: &Path, root: &Path) {
    let want: Value = serde_json::from_slice(&std::fs::read(expected).unwrap()).unwrap();
    let mut want: Vec<(String, Value, Value, u64, u64)> = want["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_owned(),
                s["parent_id"].clone(),
                // Only an Aider run has a `header` (its run's first line).
                match s["file"].as_str().filter(|_| s.get("header").is_some()) {
                    Some(file) => Value::from(
                        root.join(file)
                            .parent()
                            .unwrap()
                            .to_string_lossy()
                            .into_owned(),
                    ),
                    None => s["cwd"].clone(),
                },
                s["counts"]["user"].as_u64().unwrap(),
                s["counts"]["assistant"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut got: Vec<(String, Value, Value, u64, u64)> = sessions
        .iter()
        .map(|s| {
            (
                s.id.clone(),
                s.parent_id.clone().map(Value::from).unwrap_or(Value::Null),
                cwd_or_hashed(s, &want),
                s.counts.user,
                s.counts.assistant,
            )
        })
        .collect();
    want.sort_by(|a, b| a.0.cmp(&b.0));
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(got, want, "scan differs from {}", expected.display());
}

/// The session's directory; for one the store does not name (a project folder that is a
/// sha256 of it, nothing to match the hash against: Qwen Code 0.1.4), the expected directory
/// when the folder is its hash — proof it is that directory, which the expected file knows
/// from where the recording ran.
fn cwd_or_hashed(s: &SessionMeta, want: &[(String, Value, Value, u64, u64)]) -> Value {
    use sha2::{Digest, Sha256};
    if let Some(cwd) = &s.cwd {
        return Value::from(cwd.clone());
    }
    let expected = want.iter().find(|w| w.0 == s.id).and_then(|w| w.2.as_str());
    let hashed = expected.filter(|dir| {
        let hash: String = Sha256::digest(dir.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        s.source_path
            .ancestors()
            .any(|a| a.file_name().is_some_and(|n| n == hash.as_str()))
    });
    hashed.map(Value::from).unwrap_or(Value::Null)
}

/// Compares `value` (with `root` made relative) to a golden file, or rewrites it with
/// UPDATE_GOLDEN=1.
fn golden(value: &impl serde::Serialize, root: &Path, file: &Path) {
    let text = serde_json::to_string_pretty(value).unwrap();
    let text = common::with_root_placeholder(&text, root) + "\n";
    common::golden_text(&text, file);
}

/// The store of a fixture version: the copied store, or one built from `build.sql` (OpenCode's
/// v2 generation, which no released version writes) into a temporary directory.
fn store_root(kind: ProviderKind, dir: &Path) -> (PathBuf, Option<tempfile::TempDir>) {
    let script = dir.join("build.sql");
    if !script.exists() {
        return (dir.join(store_dir(kind)).canonical(), None);
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join(store_dir(kind));
    std::fs::create_dir_all(&root).unwrap();
    let conn = rusqlite::Connection::open(root.join("opencode.db")).unwrap();
    conn.execute_batch(&std::fs::read_to_string(script).unwrap())
        .unwrap();
    drop(conn);
    (root.canonical(), Some(tmp))
}

/// A store inside this checkout (Aider's fixtures are repositories' folders, whose sessions
/// ran in them) folds under the checkout's repository, which is elsewhere on each machine.
fn without_checkout(session: &mut SessionMeta) {
    let checkout = repo().canonical();
    let inside = |d: &str| Path::new(d).starts_with(&checkout);
    if session.repo_root.is_some() && session.cwd.as_deref().is_some_and(inside) {
        session.repo_root = Some("$CHECKOUT".into());
    }
}

fn scan_matches_expected_counts_and_golden(kind: ProviderKind) {
    for dir in versions(kind.as_str()) {
        let (root, _tmp) = store_root(kind, &dir);
        let mut sessions = scan(&catalog(kind, &root));
        sessions.iter_mut().for_each(without_checkout);
        check_expected(&sessions, &dir.join("EXPECTED.json"), &root);
        golden(&sessions, &root, &dir.join("expected/scan.json"));
    }
}

fn transcripts_match_golden_and_their_scan_counts(kind: ProviderKind) {
    for dir in versions(kind.as_str()) {
        let (root, _tmp) = store_root(kind, &dir);
        let catalog = catalog(kind, &root);
        for session in scan(&catalog) {
            let mut transcript = catalog.load(&session).unwrap();
            without_checkout(&mut transcript.session);
            assert_eq!(transcript.diagnostics.parse_errors, 0);
            assert_eq!(
                transcript.session.counts, session.counts,
                "{}: transcript counts differ from the scan",
                session.id
            );
            // What indexing and streaming read: the same messages, without the metadata.
            let mut streamed = Vec::new();
            catalog
                .load_each(&session, &mut |m| streamed.push(m))
                .unwrap();
            assert!(
                streamed == transcript.messages,
                "{}: load_each differs from load",
                session.id
            );
            let file = dir
                .join("expected/show")
                .join(format!("{}.json", session.id));
            golden(&transcript, &root, &file);
        }
    }
}

/// The public real-world samples each provider must have.
fn public_samples(kind: ProviderKind) -> &'static [&'static str] {
    match kind {
        ProviderKind::Claude => &["codemie-code", "marot-spotter"],
        ProviderKind::Codex => &["codemie-code"],
        ProviderKind::Opencode
        | ProviderKind::Gemini
        | ProviderKind::Qwen
        | ProviderKind::Cline
        | ProviderKind::Copilot
        | ProviderKind::Aider => &[],
    }
}

/// Public real-world samples, read in place when `../shared/fixtures/public` exists (it is not
/// part of this repository). Where it exists, every sample must be there: a missing one fails.
fn public_samples_match_expected(kind: ProviderKind) {
    let shared = repo().join("../shared/fixtures/public");
    if !shared.is_dir() {
        eprintln!("no public samples at {}; skipped", shared.display());
        return;
    }
    let public = shared.join(kind.as_str());
    for name in public_samples(kind) {
        let expected = public.join(name).join("EXPECTED.json");
        assert!(
            expected.is_file(),
            "public sample missing: {}",
            expected.display()
        );
    }
    let entries = std::fs::read_dir(&public).unwrap();
    for dir in entries.flatten().map(|e| e.path()) {
        let root = match kind {
            ProviderKind::Claude => dir.clone(),
            _ => dir.join(store_dir(kind)),
        };
        let catalog = catalog(kind, &root);
        let sessions = scan(&catalog);
        check_expected(&sessions, &dir.join("EXPECTED.json"), &root);
        for s in &sessions {
            let t = catalog.load(s).unwrap();
            assert_eq!(t.session.counts, s.counts, "{}", s.id);
        }
    }
}

#[test]
fn claude_scan_matches_expected_counts_and_golden() {
    scan_matches_expected_counts_and_golden(ProviderKind::Claude);
}

#[test]
fn claude_transcripts_match_golden_and_their_scan_counts() {
    transcripts_match_golden_and_their_scan_counts(ProviderKind::Claude);
}

#[test]
fn claude_public_samples_match_expected() {
    public_samples_match_expected(ProviderKind::Claude);
}

#[test]
fn codex_scan_matches_expected_counts_and_golden() {
    scan_matches_expected_counts_and_golden(ProviderKind::Codex);
}

#[test]
fn codex_transcripts_match_golden_and_their_scan_counts() {
    transcripts_match_golden_and_their_scan_counts(ProviderKind::Codex);
}

#[test]
fn codex_public_samples_match_expected() {
    public_samples_match_expected(ProviderKind::Codex);
}

#[test]
fn copilot_scan_matches_expected_counts_and_golden() {
    scan_matches_expected_counts_and_golden(ProviderKind::Copilot);
}

#[test]
fn copilot_transcripts_match_golden_and_their_scan_counts() {
    transcripts_match_golden_and_their_scan_counts(ProviderKind::Copilot);
}

#[test]
fn opencode_scan_matches_expected_counts_and_golden() {
    scan_matches_expected_counts_and_golden(ProviderKind::Opencode);
}

#[test]
fn opencode_transcripts_match_golden_and_their_scan_counts() {
    transcripts_match_golden_and_their_scan_counts(ProviderKind::Opencode);
}

/// Every message and every content part of OpenCode's own `opencode export` appears in our
/// transcript (step-start/step-finish are bookkeeping we do not show).
#[test]
fn opencode_transcripts_hold_everything_the_export_holds() {
    let mut checked = 0;
    for dir in versions("opencode") {
        let Ok(exports) = std::fs::read_dir(dir.join("exports")) else {
            continue;
        };
        let root = dir.join(store_dir(ProviderKind::Opencode));
        let catalog = catalog(ProviderKind::Opencode, &root);
        let sessions = scan(&catalog);
        for export in exports.flatten() {
            let export: Value =
                serde_json::from_slice(&std::fs::read(export.path()).unwrap()).unwrap();
            let id = export["info"]["id"].as_str().unwrap();
            let session = sessions.iter().find(|s| s.id == id).unwrap();
            let ours = serde_json::to_value(catalog.load(session).unwrap()).unwrap();
            let ours_text = ours.to_string();
            let our_ids: Vec<&str> = ours["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["id"].as_str().unwrap())
                .collect();
            for m in export["messages"].as_array().unwrap() {
                let mid = m["info"]["id"].as_str().unwrap();
                assert!(our_ids.contains(&mid), "{id}: message {mid} missing");
                for p in m["parts"].as_array().unwrap() {
                    // A fragment of our JSON that shows the part is there.
                    let encoded = |s: &str| {
                        serde_json::to_string(s)
                            .unwrap()
                            .trim_matches('"')
                            .to_owned()
                    };
                    let needle = match p["type"].as_str().unwrap() {
                        "step-start" | "step-finish" => continue,
                        "text" | "reasoning" => encoded(p["text"].as_str().unwrap()),
                        "tool" => encoded(p["callID"].as_str().unwrap()),
                        "patch" => encoded(p["files"][0].as_str().unwrap()),
                        "compaction" => r#""kind":"compaction""#.to_owned(),
                        other => panic!("{id}: export part type {other} not checked"),
                    };
                    assert!(
                        ours_text.contains(&needle),
                        "{id}: part {} ({}) missing",
                        p["id"],
                        p["type"]
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} parts checked");
}

#[test]
fn gemini_scan_matches_expected_counts_and_golden() {
    scan_matches_expected_counts_and_golden(ProviderKind::Gemini);
}

#[test]
fn gemini_transcripts_match_golden_and_their_scan_counts() {
    transcripts_match_golden_and_their_scan_counts(ProviderKind::Gemini);
}

#[test]
fn qwen_scan_matches_expected_counts_and_golden() {
    scan_matches_expected_counts_and_golden(ProviderKind::Qwen);
}

#[test]
fn qwen_transcripts_match_golden_and_their_scan_counts() {
    transcripts_match_golden_and_their_scan_counts(ProviderKind::Qwen);
}

#[test]
fn cline_scan_matches_expected_counts_and_golden() {
    scan_matches_expected_counts_and_golden(ProviderKind::Cline);
}

#[test]
fn cline_transcripts_match_golden_and_their_scan_counts() {
    transcripts_match_golden_and_their_scan_counts(ProviderKind::Cline);
}

#[test]
fn aider_scan_matches_expected_counts_and_golden() {
    scan_matches_expected_counts_and_golden(ProviderKind::Aider);
}

#[test]
fn aider_transcripts_match_golden_and_their_scan_counts() {
    transcripts_match_golden_and_their_scan_counts(ProviderKind::Aider);
}

/// Aider's runs against what `EXPECTED.json` says beyond the common fields: each run's model,
/// and its errors, shown as error notices in its transcript.
#[test]
fn aider_runs_have_their_models_and_errors() {
    use agent_sessions_core::model::{NoticeKind, Part};
    for dir in versions("aider") {
        let (root, _tmp) = store_root(ProviderKind::Aider, &dir);
        let catalog = catalog(ProviderKind::Aider, &root);
        let sessions = scan(&catalog);
        let want: Value =
            serde_json::from_slice(&std::fs::read(dir.join("EXPECTED.json")).unwrap()).unwrap();
        for w in want["sessions"].as_array().unwrap() {
            let s = sessions.iter().find(|s| s.id == w["id"]).unwrap();
            assert_eq!(s.model.as_deref(), w["model"].as_str(), "{}", s.id);
            let errors = catalog
                .load(s)
                .unwrap()
                .messages
                .iter()
                .flat_map(|m| &m.parts)
                .filter(
                    |p| matches!(p, Part::Notice { source, .. } if *source == NoticeKind::Error),
                )
                .count();
            assert_eq!(
                errors as u64,
                w["counts"]["errors"].as_u64().unwrap(),
                "{}",
                s.id
            );
        }
    }
}
