//! Incremental scans through the provider interface: state in, changed/removed sessions out.

use std::io::Write;

mod common;

use agent_sessions_core::provider::{Provider, ScanProgress};
use agent_sessions_core::ProviderKind;

#[test]
fn claude_rescans_report_only_what_changed() {
    let dir = common::fixture_copy(ProviderKind::Claude, "2.1.9");
    let set = common::provider_set(ProviderKind::Claude, dir.path());
    let p: &dyn Provider = set.get(ProviderKind::Claude).unwrap();
    let progress = ScanProgress::default();
    let first = p.scan(&Vec::new(), &progress).unwrap();
    assert_eq!(first.changed.len(), 7);

    let again = p.scan(&first.state, &progress).unwrap();
    assert!(again.changed.is_empty() && again.removed.is_empty());

    let project = dir.path().join("projects/-home-bob-projects-demo");
    let file = project.join("289ec80f-2fef-473d-9b5b-54a4657fd742.jsonl");
    let before = first
        .changed
        .iter()
        .find(|s| file == s.source_path)
        .unwrap()
        .counts;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    writeln!(f, r#"{{"type":"user","uuid":"new-1","sessionId":"289ec80f-2fef-473d-9b5b-54a4657fd742","timestamp":"2026-12-01T00:00:00Z","message":{{"role":"user","content":"one more thing"}}}}"#).unwrap();
    drop(f);
    let grown = p.scan(&again.state, &progress).unwrap();
    assert_eq!(grown.changed.len(), 1);
    assert_eq!(grown.changed[0].counts.user, before.user + 1);
    assert_eq!(
        grown.changed[0].updated_at.unwrap().to_rfc3339(),
        "2026-12-01T00:00:00+00:00"
    );

    std::fs::remove_file(&file).unwrap();
    let removed = p.scan(&grown.state, &progress).unwrap();
    assert_eq!(removed.removed.len(), 1);
    assert_eq!(
        removed.removed[0].id,
        "289ec80f-2fef-473d-9b5b-54a4657fd742"
    );

    // State from another version (or garbage) means a full scan, never an error.
    let full = p.scan(&b"not a state".to_vec(), &progress).unwrap();
    assert_eq!(full.changed.len(), 6);
}
