//! Golden tests over the real stores in `testdata/`: the scan matches the independently computed
//! `EXPECTED.json`, and scan and transcript output match the committed golden files.

use std::path::{Path, PathBuf};

use agent_sessions_core::{Catalog, ProviderKind, Roots, ScanProgress, SessionMeta};
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

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

fn claude_catalog(root: &Path) -> Catalog {
    let roots = Roots {
        claude: vec![root.to_path_buf()],
        ..Roots::default()
    };
    Catalog::new(&roots, &[ProviderKind::Claude])
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

/// Checks ids, parents, cwd and user/assistant counts against `EXPECTED.json`.
fn check_expected(sessions: &[SessionMeta], expected: &Path) {
    let want: Value = serde_json::from_slice(&std::fs::read(expected).unwrap()).unwrap();
    let mut want: Vec<(String, Value, Value, u64, u64)> = want["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_owned(),
                s["parent_id"].clone(),
                s["cwd"].clone(),
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
                s.cwd.clone().map(Value::from).unwrap_or(Value::Null),
                s.counts.user,
                s.counts.assistant,
            )
        })
        .collect();
    want.sort_by(|a, b| a.0.cmp(&b.0));
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(got, want, "scan differs from {}", expected.display());
}

/// Compares `value` (with `root` made relative) to a golden file, or rewrites it with
/// UPDATE_GOLDEN=1.
fn golden(value: &impl serde::Serialize, root: &Path, file: &Path) {
    let text = serde_json::to_string_pretty(value).unwrap();
    let text = text.replace(&root.to_string_lossy().into_owned(), "$ROOT") + "\n";
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, &text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(file).unwrap_or_else(|_| {
        panic!(
            "missing golden {}; run with UPDATE_GOLDEN=1",
            file.display()
        )
    });
    assert!(
        want == text,
        "{} differs from the output; rerun with UPDATE_GOLDEN=1 and review the diff",
        file.display()
    );
}

#[test]
fn claude_scan_matches_expected_counts_and_golden() {
    for dir in versions("claude") {
        let root = dir.join("dot-claude").canonicalize().unwrap();
        let catalog = claude_catalog(&root);
        let sessions = scan(&catalog);
        check_expected(&sessions, &dir.join("EXPECTED.json"));
        golden(&sessions, &root, &dir.join("expected/scan.json"));
    }
}

#[test]
fn claude_transcripts_match_golden_and_their_scan_counts() {
    for dir in versions("claude") {
        let root = dir.join("dot-claude").canonicalize().unwrap();
        let catalog = claude_catalog(&root);
        for session in scan(&catalog) {
            let transcript = catalog.load(&session).unwrap();
            assert_eq!(transcript.diagnostics.parse_errors, 0);
            assert_eq!(
                transcript.session.counts, session.counts,
                "{}: transcript counts differ from the scan",
                session.id
            );
            let file = dir
                .join("expected/show")
                .join(format!("{}.json", session.id));
            golden(&transcript, &root, &file);
        }
    }
}

#[test]
fn claude_public_samples_match_expected() {
    let public = repo().join("../shared/fixtures/public/claude");
    let Ok(entries) = std::fs::read_dir(&public) else {
        eprintln!("no public samples at {}; skipped", public.display());
        return;
    };
    for dir in entries.flatten().map(|e| e.path()) {
        let catalog = claude_catalog(&dir);
        let sessions = scan(&catalog);
        check_expected(&sessions, &dir.join("EXPECTED.json"));
        for s in &sessions {
            let t = catalog.load(s).unwrap();
            assert_eq!(t.session.counts, s.counts, "{}", s.id);
        }
    }
}
