//! One session in two files (a Claude project folder copied beside itself) on a remote host:
//! a reference with the file the list gave reads that file's transcript, on the first page and
//! on later ones; without one the id is `ambiguous_id`; a user's typed path names one too.

mod common;

use agent_sessions_core::{ProviderKind, SessionMeta};
use agent_sessions_remote::protocol::*;
use agent_sessions_remote::Client;
use agent_sessions_test_support::SameIdStore;

use common::*;

fn text(page: &ShowResult) -> String {
    serde_json::to_string(&page.messages).unwrap()
}

#[test]
fn the_listed_file_names_each_copy_and_the_bare_id_is_ambiguous() {
    let store = SameIdStore::create();
    let cache = tempfile::tempdir().unwrap();
    let server = memory(claude_roots(store.root()), cache.path());
    let mut client = Client::connect(Box::new(server)).unwrap();
    let listed: Vec<SessionMeta> = client
        .list(&ListParams::default())
        .unwrap()
        .sessions
        .into_iter()
        .filter(|s| s.id == store.id)
        .collect();
    assert_eq!(listed.len(), 2, "both files are listed");

    let bare = client.first_page(SessionRef::exact(ProviderKind::Claude, store.id));
    assert_eq!(bare.unwrap_err().code(), "ambiguous_id");

    for meta in &listed {
        let (own, other) = if meta.source_path == store.copy {
            (store.copy_text, store.original_text)
        } else {
            (store.original_text, store.copy_text)
        };
        let first = client.first_page(SessionRef::listed(meta)).unwrap();
        assert_eq!(first.session.source_path, meta.source_path);
        assert!(text(&first).contains(own) && !text(&first).contains(other));
        // A later page names the session as the first one did: the same file's messages.
        let params = |offset| ShowParams {
            session: SessionRef::listed(meta),
            offset,
            limit: 1,
        };
        let second = client.show(&params(1)).unwrap();
        assert_eq!(second.session.source_path, meta.source_path);
        assert_eq!(second.messages, first.messages[1..2]);
        // A user's path (the CLI's `--host` sends what was typed) names that file's session.
        let typed = SessionRef::named(meta.source_path.display().to_string());
        let page = client.first_page(typed).unwrap();
        assert_eq!(page.session.source_path, meta.source_path);
    }
}

/// A trash plan for a copy named by its listed file (as the app names every session) is made
/// over the whole listing: the copy's own subagent is planned, and the other file is named as
/// the one keeping what the store holds by id. (Planned over the named file alone, the plan
/// had no subagents and would have taken the other copy's todo lists and file history.)
#[test]
fn a_trash_plan_named_by_file_sees_the_subagents_and_the_other_copy() {
    let store = SameIdStore::create();
    allow_delete();
    let cache = tempfile::tempdir().unwrap();
    let server = memory(claude_roots(store.root()), cache.path());
    let mut client = Client::connect(Box::new(server)).unwrap();
    let listed = client.list(&ListParams::default()).unwrap().sessions;
    for (file, other) in [
        (&store.copy, &store.original),
        (&store.original, &store.copy),
    ] {
        let meta = listed.iter().find(|s| &s.source_path == file).unwrap();
        let params = TrashParams {
            session: SessionRef::listed(meta),
            permanent: false,
            subagents: Some(true),
            plan: None,
        };
        let plan = client.trash(&params).unwrap().plan;
        assert_eq!(plan.session.source_path, *file);
        assert_eq!(plan.subagents.len(), 1, "{file:?}: its own subagent");
        let folder = file.parent().unwrap();
        assert!(
            plan.subagents
                .iter()
                .all(|s| s.source_path.starts_with(folder)),
            "{:?}",
            plan.subagents
        );
        let other = other.display().to_string();
        assert!(
            plan.notes.iter().any(|n| n.contains(&other)),
            "{:?}",
            plan.notes
        );
    }
}

/// On one connection (the server keeps its listing), trashing the copy named by its file takes
/// the copy and its subagent only; the next list has the original and not the copy, the bare
/// id then names the original, and the original folder is byte-identical. With the host's
/// cache and without one.
#[test]
#[cfg_attr(
    windows,
    ignore = "moves files to the Recycle Bin, which Wine does not implement (E_NOTIMPL)"
)]
fn a_trashed_copy_leaves_the_kept_listing_and_the_original_stays() {
    let data = tempfile::tempdir().unwrap();
    // The OS trash of this test binary's only test that runs a trash.
    std::env::set_var("XDG_DATA_HOME", data.path());
    allow_delete();
    for cached in [true, false] {
        let store = SameIdStore::create();
        let scratch = tempfile::tempdir().unwrap();
        let cache = match cached {
            true => scratch.path().to_path_buf(),
            false => unopenable(scratch.path()),
        };
        let server = memory(claude_roots(store.root()), &cache);
        let mut client = Client::connect(Box::new(server)).unwrap();
        let listed = client.list(&ListParams::default()).unwrap().sessions;
        let copy = listed.iter().find(|s| s.source_path == store.copy).unwrap();
        let original_folder = store.original.parent().unwrap();
        let before = agent_sessions_test_support::snapshot(original_folder);
        let mut params = TrashParams {
            session: SessionRef::listed(copy),
            permanent: false,
            subagents: Some(true),
            plan: None,
        };
        let plan = client.trash(&params).unwrap().plan;
        params.plan = Some(plan);
        let done = client.trash(&params).unwrap();
        assert!(done.done.is_some(), "cached {cached}: {:?}", done.warnings);
        assert!(!store.copy.exists(), "cached {cached}");

        let copy_folder = store.copy.parent().unwrap();
        let after = client.list(&ListParams::default()).unwrap().sessions;
        assert!(
            after
                .iter()
                .all(|s| !s.source_path.starts_with(copy_folder)),
            "cached {cached}: the copy is still listed"
        );
        assert!(after.iter().any(|s| s.source_path == store.original));
        let page = client
            .first_page(SessionRef::exact(ProviderKind::Claude, store.id))
            .unwrap();
        assert_eq!(page.session.source_path, store.original, "cached {cached}");
        assert!(text(&page).contains(store.original_text));
        assert_eq!(
            agent_sessions_test_support::snapshot(original_folder),
            before,
            "cached {cached}"
        );
    }
}
