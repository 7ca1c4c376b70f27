//! OpenCode specifics beyond the golden files: one id in several storage generations, reading
//! while OpenCode writes (open write transaction, uncheckpointed WAL), incremental scans.

mod common;

use std::path::Path;

use agent_sessions_core::provider::{ProviderSet, ScanOutput, ScanProgress};
use agent_sessions_core::{ProviderKind, SessionMeta};
use rusqlite::Connection;

fn scan(set: &ProviderSet, state: &[u8]) -> ScanOutput {
    set.get(ProviderKind::Opencode)
        .unwrap()
        .scan(&state.to_vec(), &ScanProgress::default())
        .unwrap()
}

fn find<'a>(sessions: &'a [SessionMeta], id: &str) -> &'a SessionMeta {
    sessions
        .iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("no {id}"))
}

const DB_SESSION: &str = "ses_dd4339e7fffeEdarK7FDG4nA4y";

/// Writes a legacy JSON copy of `id` (one prompt, one answer) updated at `updated` ms.
fn json_copy(root: &Path, id: &str, updated: i64) {
    let session = root.join("storage/session/prj");
    std::fs::create_dir_all(&session).unwrap();
    std::fs::write(
        session.join(format!("{id}.json")),
        format!(r#"{{"id":"{id}","version":"1.0.98","projectID":"prj","directory":"/json/copy","title":"json copy","time":{{"created":1,"updated":{updated}}}}}"#),
    )
    .unwrap();
    let msg = root.join("storage/message").join(id);
    std::fs::create_dir_all(&msg).unwrap();
    std::fs::write(
        msg.join("msg_1.json"),
        format!(r#"{{"id":"msg_1","sessionID":"{id}","role":"user","time":{{"created":1}}}}"#),
    )
    .unwrap();
    let part = root.join("storage/part/msg_1");
    std::fs::create_dir_all(&part).unwrap();
    std::fs::write(
        part.join("prt_1.json"),
        r#"{"id":"prt_1","messageID":"msg_1","type":"text","text":"from json"}"#,
    )
    .unwrap();
}

#[test]
fn a_session_in_json_and_db_appears_once_and_the_newer_copy_wins() {
    let dir = common::fixture_copy(ProviderKind::Opencode, "1.18.33");
    let set = common::provider_set(ProviderKind::Opencode, dir.path());
    json_copy(dir.path(), DB_SESSION, 1);
    let out = scan(&set, &[]);
    assert_eq!(out.changed.len(), 7);
    let s = find(&out.changed, DB_SESSION);
    assert_eq!(
        s.title.as_deref(),
        Some("Listing project files"),
        "the DB copy is newer"
    );
    assert!(s.source_path.ends_with("opencode.db"));

    json_copy(dir.path(), DB_SESSION, 4_000_000_000_000);
    let again = scan(&set, &out.state);
    assert_eq!(
        again.changed.len(),
        1,
        "only the session whose winner changed"
    );
    let s = &again.changed[0];
    assert_eq!(s.title.as_deref(), Some("json copy"));
    assert_eq!((s.counts.user, s.counts.assistant), (1, 0));
    // Load applies the same rule as the scan.
    let t = set.get(ProviderKind::Opencode).unwrap().load(s).unwrap();
    assert_eq!(t.session.title.as_deref(), Some("json copy"));
    assert_eq!(t.messages.len(), 1);
}

#[test]
fn legacy_json_and_db_sessions_list_together() {
    let dir = common::fixture_copy(ProviderKind::Opencode, "1.18.33");
    common::copy_dir(
        &common::fixture(ProviderKind::Opencode, "1.0.98").join("storage"),
        &dir.path().join("storage"),
    );
    let out = scan(
        &common::provider_set(ProviderKind::Opencode, dir.path()),
        &[],
    );
    assert_eq!(out.changed.len(), 13);
    assert_eq!(out.diagnostics.parse_errors, 0);
}

#[test]
fn reads_while_opencode_holds_a_write_transaction_and_sees_the_wal() {
    let dir = common::fixture_copy(ProviderKind::Opencode, "1.18.33");
    let set = common::provider_set(ProviderKind::Opencode, dir.path());
    let first = scan(&set, &[]);

    let writer = Connection::open(dir.path().join("opencode.db")).unwrap();
    writer.pragma_update(None, "journal_mode", "wal").unwrap();
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    writer
        .execute(
            "UPDATE session SET title = 'renamed in wal', time_updated = time_updated + 1 WHERE id = ?1",
            [DB_SESSION],
        )
        .unwrap();
    writer
        .execute_batch("BEGIN IMMEDIATE; UPDATE session SET title = 'uncommitted' WHERE id = 'ses_dd4341096ffef285TaeIhrVhqh';")
        .unwrap();
    assert!(
        std::fs::metadata(dir.path().join("opencode.db-wal"))
            .unwrap()
            .len()
            > 0
    );

    let started = std::time::Instant::now();
    let out = scan(&set, &first.state);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(out.diagnostics.parse_errors, 0, "{:?}", out.diagnostics);
    assert_eq!(
        out.changed.len(),
        1,
        "only the session whose time_updated moved"
    );
    assert_eq!(out.changed[0].title.as_deref(), Some("renamed in wal"));
    writer.execute_batch("ROLLBACK").unwrap();

    writer
        .execute("DELETE FROM session WHERE id = ?1", [DB_SESSION])
        .unwrap();
    let gone = scan(&set, &out.state);
    assert_eq!(gone.removed.len(), 1);
    assert_eq!(gone.removed[0].id, DB_SESSION);
}

#[test]
fn an_unreadable_database_is_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("opencode.db"), b"not sqlite at all").unwrap();
    let out = scan(
        &common::provider_set(ProviderKind::Opencode, dir.path()),
        &[],
    );
    assert!(out.changed.is_empty());
    assert_eq!(out.diagnostics.items.len(), 1);
    assert!(out.diagnostics.items[0]
        .reason
        .starts_with("cannot read the database"));
}

// --- OpenCode 0.x: the per-project storage (`project/<slug>/storage/session/…`) -------------

/// In `testdata/opencode/0.1.174`: TOOL + CHAT in the git project, and the session of the
/// directory outside any repository (OpenCode's `global` project folder).
const V01_TOOL: &str = "ses_dd0e9b0eaffeKsfVJ6zJ8dwZv7";
const V01_GLOBAL: &str = "ses_dd0e97670ffeGfiLTWbt77hd1j";
/// In `testdata/opencode/0.5.29-then-1.0.0`: the session 1.0.0 continued after copying it, one
/// it copied and left alone, and one outside a repository, which it did not copy.
const UPGRADE_CONTINUED: &str = "ses_dd0e8b802ffeMfByDBmL8JiUZl";
const UPGRADE_COPIED: &str = "ses_dd0e8d11dffexu3RWZO0KIBwOD";
const UPGRADE_GLOBAL: &str = "ses_dd0e8b10fffe7GhhluQdcXdptU";

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn is_0_x(s: &SessionMeta) -> bool {
    s.source_path
        .components()
        .any(|c| c.as_os_str() == "project")
}

/// The recording script saved OpenCode's own view of each 0.x store: its `serve` API's session
/// list and every session's messages (0.1: `{id, role, parts, metadata}`; 0.5: `{info, parts}`).
/// Our scan lists the same sessions with the same parents and titles, and each transcript holds
/// the same messages in the same order with every text, reasoning and tool part.
#[test]
fn zero_x_sessions_hold_what_opencode_s_own_server_shows() {
    let mut parts_checked = 0;
    for version in ["0.1.174", "0.5.29"] {
        let root = common::fixture(ProviderKind::Opencode, version);
        let set = common::provider_set(ProviderKind::Opencode, &root);
        let provider = set.get(ProviderKind::Opencode).unwrap();
        let out = scan(&set, &[]);
        assert!(out.diagnostics.items.is_empty(), "{:?}", out.diagnostics);
        let mut listed = Vec::new();
        for project in std::fs::read_dir(root.parent().unwrap().join("server")).unwrap() {
            let project = project.unwrap().path();
            for s in json(&project.join("sessions.json")).as_array().unwrap() {
                let id = s["id"].as_str().unwrap();
                listed.push(id.to_owned());
                let ours = find(&out.changed, id);
                assert_eq!(ours.parent_id.as_deref(), s["parentID"].as_str(), "{id}");
                assert_eq!(ours.title.as_deref(), s["title"].as_str(), "{id}");
                let transcript = provider.load(ours).unwrap();
                assert_eq!(transcript.session.counts, ours.counts, "{id}");
                let text = serde_json::to_string(&transcript).unwrap();
                let theirs = json(&project.join(format!("{id}.json")));
                let theirs = theirs.as_array().unwrap();
                let their_ids: Vec<&str> = theirs
                    .iter()
                    .map(|m| m["info"]["id"].as_str().or(m["id"].as_str()).unwrap())
                    .collect();
                let our_ids: Vec<&str> =
                    transcript.messages.iter().map(|m| m.id.as_str()).collect();
                assert_eq!(our_ids, their_ids, "{version} {id}");
                for part in theirs.iter().flat_map(|m| m["parts"].as_array().unwrap()) {
                    let needle = match part["type"].as_str().unwrap() {
                        "step-start" | "step-finish" => continue,
                        "text" | "reasoning" => part["text"].as_str().unwrap(),
                        "tool" => part["callID"].as_str().unwrap(),
                        "tool-invocation" => part["toolInvocation"]["toolCallId"].as_str().unwrap(),
                        "patch" => part["files"][0].as_str().unwrap(),
                        other => panic!("{id}: part type {other} not checked"),
                    };
                    let needle = serde_json::to_string(needle).unwrap();
                    assert!(text.contains(&needle), "{version} {id}: {needle} missing");
                    parts_checked += 1;
                }
            }
        }
        listed.sort();
        let mut ours: Vec<String> = out.changed.iter().map(|s| s.id.clone()).collect();
        ours.sort();
        assert_eq!(ours, listed, "{version}: the sessions OpenCode lists");
    }
    assert!(parts_checked > 40, "only {parts_checked} parts checked");
}

/// 1.0 copies a git project's 0.x sessions into `storage/session/<projectID>/` and leaves the
/// old files (it skips the `global` folder). Each id is one session: the copy 1.0 continued is
/// newer and wins; an untouched copy ties and the newer layout wins; the global one exists only
/// in 0.x. Without 1.0's copies the 0.x files alone give every session, as 0.5 left it.
#[test]
fn a_0_x_session_copied_by_1_0_appears_once_and_the_copy_1_0_continued_wins() {
    let root = common::fixture(ProviderKind::Opencode, "0.5.29-then-1.0.0");
    let set = common::provider_set(ProviderKind::Opencode, &root);
    let out = scan(&set, &[]);
    assert_eq!(out.changed.len(), 6);
    let continued = find(&out.changed, UPGRADE_CONTINUED);
    assert!(!is_0_x(continued), "{}", continued.source_path.display());
    assert_eq!((continued.counts.user, continued.counts.assistant), (2, 2));
    assert_eq!(continued.cwd.as_deref(), Some("/tmp/demo-project"));
    assert_eq!(continued.repo_root.as_deref(), Some("/tmp/demo-project"));
    let loaded = set
        .get(ProviderKind::Opencode)
        .unwrap()
        .load(continued)
        .unwrap();
    assert_eq!(loaded.messages.len(), 4);
    assert!(!is_0_x(find(&out.changed, UPGRADE_COPIED)));
    assert!(is_0_x(find(&out.changed, UPGRADE_GLOBAL)));

    let dir = common::fixture_copy(ProviderKind::Opencode, "0.5.29-then-1.0.0");
    std::fs::remove_dir_all(dir.path().join("storage")).unwrap();
    let set = common::provider_set(ProviderKind::Opencode, dir.path());
    let out = scan(&set, &[]);
    assert_eq!(out.changed.len(), 6);
    assert!(out.changed.iter().all(is_0_x));
    let before = find(&out.changed, UPGRADE_CONTINUED);
    assert_eq!((before.counts.user, before.counts.assistant), (1, 1));
    let loaded = set
        .get(ProviderKind::Opencode)
        .unwrap()
        .load(before)
        .unwrap();
    assert_eq!(loaded.messages.len(), 2);
}

/// 0.1 writes each message file without touching the session file: the next scan still sees
/// the new prompt, and an unchanged store costs no re-read.
#[test]
fn a_prompt_added_to_a_0_1_session_is_seen_by_the_next_scan() {
    let dir = common::fixture_copy(ProviderKind::Opencode, "0.1.174");
    let set = common::provider_set(ProviderKind::Opencode, dir.path());
    let first = scan(&set, &[]);
    assert_eq!(find(&first.changed, V01_TOOL).counts.user, 2);
    let again = scan(&set, &first.state);
    assert!(again.changed.is_empty() && again.removed.is_empty());

    let messages = dir
        .path()
        .join("project/tmp-demo-project/storage/session/message")
        .join(V01_TOOL);
    let first_prompt = std::fs::read_dir(&messages)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .min()
        .unwrap();
    let mut prompt = json(&first_prompt);
    prompt["id"] = "msg_zzzzzzzzzzzz".into();
    prompt["parts"][0]["text"] = "one more".into();
    std::fs::write(messages.join("msg_zzzzzzzzzzzz.json"), prompt.to_string()).unwrap();
    let next = scan(&set, &again.state);
    assert_eq!(next.changed.len(), 1);
    assert_eq!(next.changed[0].id, V01_TOOL);
    assert_eq!(next.changed[0].counts.user, 3);
}

/// A project folder linking back to the store, and a session's message folder swapped for a
/// link to another session's: neither is followed, both are reported, and the scan ends.
#[cfg(unix)]
#[test]
fn links_in_a_0_x_store_are_reported_not_followed() {
    let dir = common::fixture_copy(ProviderKind::Opencode, "0.1.174");
    let project = dir.path().join("project");
    std::os::unix::fs::symlink(dir.path(), project.join("loop")).unwrap();
    let messages = project
        .join("global/storage/session/message")
        .join(V01_GLOBAL);
    std::fs::remove_dir_all(&messages).unwrap();
    let other = project
        .join("tmp-demo-project/storage/session/message")
        .join(V01_TOOL);
    std::os::unix::fs::symlink(other, &messages).unwrap();

    let out = scan(
        &common::provider_set(ProviderKind::Opencode, dir.path()),
        &[],
    );
    assert_eq!(out.changed.len(), 4);
    let global = find(&out.changed, V01_GLOBAL);
    assert_eq!((global.counts.user, global.counts.assistant), (0, 0));
    let linked: Vec<_> = out
        .diagnostics
        .items
        .iter()
        .filter(|d| d.reason.contains("symbolic link"))
        .collect();
    assert_eq!(linked.len(), 2, "{:?}", out.diagnostics);
}

/// A broken message file costs that message and a diagnostic, not the session.
#[test]
fn an_unreadable_0_x_message_file_is_a_diagnostic() {
    let dir = common::fixture_copy(ProviderKind::Opencode, "0.1.174");
    let messages = dir
        .path()
        .join("project/tmp-demo-project/storage/session/message")
        .join(V01_TOOL);
    let last = std::fs::read_dir(&messages)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .max()
        .unwrap();
    std::fs::write(&last, b"{ not json").unwrap();
    let out = scan(
        &common::provider_set(ProviderKind::Opencode, dir.path()),
        &[],
    );
    let s = find(&out.changed, V01_TOOL);
    assert_eq!((s.counts.user, s.counts.assistant), (2, 1));
    assert_eq!(out.diagnostics.items.len(), 1);
    assert!(out.diagnostics.items[0].reason.contains("invalid JSON"));
}

/// 0.1 parts have no ids: a tool part's blob key names its message and position.
#[test]
fn a_0_1_tool_output_is_a_blob_keyed_by_message_and_position() {
    let root = common::fixture(ProviderKind::Opencode, "0.1.174");
    let set = common::provider_set(ProviderKind::Opencode, &root);
    let provider = set.get(ProviderKind::Opencode).unwrap();
    let out = scan(&set, &[]);
    let session = find(&out.changed, V01_TOOL);
    let answer = &provider.load(session).unwrap().messages[1];
    // step-start, text, then the bash call: position 2.
    let blob = provider
        .blob(session, &format!("part:{}.2", answer.id))
        .unwrap();
    let blob = String::from_utf8(blob).unwrap();
    assert!(blob.contains("hello-from-tool"), "{blob}");
}

/// Loading reads the metadata of the copy shown from its rows; when they cannot be read, the
/// load says so (which database, why) instead of showing the messages under a header with no
/// title, folder or times, as if the session had none.
#[test]
fn a_copy_whose_metadata_cannot_be_read_fails_to_load_with_the_reason() {
    let dir = common::fixture_copy(ProviderKind::Opencode, "1.18.33");
    let set = common::provider_set(ProviderKind::Opencode, dir.path());
    let out = scan(&set, &[]);
    let listed = find(&out.changed, DB_SESSION).clone();
    assert!(listed.title.is_some() && listed.cwd.is_some());
    // The rows' metadata joins the projects; the messages do not.
    Connection::open(dir.path().join("opencode.db"))
        .unwrap()
        .execute_batch("PRAGMA foreign_keys = OFF; DROP TABLE project")
        .unwrap();
    match set.get(ProviderKind::Opencode).unwrap().load(&listed) {
        Ok(t) => panic!(
            "loaded under a blank header: title {:?}, cwd {:?}",
            t.session.title, t.session.cwd
        ),
        Err(e) => {
            let e = e.to_string();
            assert!(e.contains("opencode.db") && e.contains("project"), "{e}");
        }
    }
}
