//! `trash` over the protocol on a host whose store holds a name that is not UTF-8: the plan
//! crosses as JSON (such a name lossily), the client sends it back as it showed it, and the
//! host runs its own plan, on the names' bytes.
#![cfg(target_os = "linux")]

mod common;

use std::os::unix::ffi::OsStrExt;

use agent_sessions_remote::protocol::*;
use agent_sessions_remote::Client;

use common::*;

/// Before, the host could not write the plan (serde refused the path) and, once it could, the
/// plan sent back never equalled the host's (its path lossy): `stale_plan`.
#[test]
fn a_session_in_a_folder_named_not_in_utf8_is_planned_and_trashed_over_the_protocol() {
    let data = tempfile::tempdir().unwrap();
    // The OS trash of this test binary's only test.
    std::env::set_var("XDG_DATA_HOME", data.path());
    allow_delete();
    let store = claude_copy();
    let project = store
        .path()
        .join("projects")
        .join(std::ffi::OsStr::from_bytes(b"-home-\xfe"));
    std::fs::rename(
        store.path().join("projects/-home-bob-projects-demo"),
        &project,
    )
    .unwrap();
    agent_sessions_test_support::age(store.path());
    let id = "9d22e384-6685-4b75-ac35-088162e4c4a9";
    let transcript = project.join(format!("{id}.jsonl"));
    let cache = tempfile::tempdir().unwrap();
    let mut client =
        Client::connect(Box::new(memory(claude_roots(store.path()), cache.path()))).unwrap();
    let listed = client.list(&ListParams::default()).unwrap().sessions;
    let session = listed.iter().find(|s| s.id == id).unwrap();
    let shown = transcript.to_string_lossy();
    assert_eq!(session.source_path.as_os_str(), shown.as_ref());

    let mut params = TrashParams {
        session: SessionRef::listed(session),
        permanent: false,
        subagents: Some(true),
        plan: None,
    };
    let planned = client.trash(&params).unwrap();
    assert!(planned.done.is_none());
    assert_eq!(planned.plan.session.source_path.as_os_str(), shown.as_ref());
    params.plan = Some(planned.plan);
    let done = client.trash(&params).unwrap();
    assert!(done.done.is_some(), "{:?}", done.warnings);
    assert!(!transcript.exists());
    assert!(data
        .path()
        .join(format!("Trash/files/{id}.jsonl"))
        .is_file());
    let after = client.list(&ListParams::default()).unwrap().sessions;
    assert!(!after.iter().any(|s| s.id == id));
}
