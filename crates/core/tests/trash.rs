//! Trash and delete through the core API: a failure part way puts everything back, a busy
//! database leaves every row, a stale plan does nothing, and the cache drops a session at once.
//! (The CLI tests run the whole thing against the real Codex and OpenCode command lines.)

#![cfg(target_os = "linux")]

mod common;

use std::path::Path;
use std::sync::Mutex;

use agent_sessions_core::actions::trash::{self, Mode, Request, Step, Tools};
use agent_sessions_core::config::ActionSettings;
use agent_sessions_core::provider::SessionKey;
use agent_sessions_core::service::Service;
use agent_sessions_core::{Error, Library, ProviderKind, ScanProgress, SessionMeta};
use agent_sessions_test_support::age;

/// `$XDG_DATA_HOME` (where the trash is) belongs to the whole process: one test at a time.
static TRASH_HOME: Mutex<()> = Mutex::new(());

const ALLOWED: ActionSettings = ActionSettings {
    allow_delete: true,
    allow_permanent_delete: true,
};

fn store(kind: ProviderKind, version: &str) -> tempfile::TempDir {
    let dir = common::fixture_copy(kind, version);
    age(dir.path());
    dir
}

fn sessions(lib: &mut Library) -> Vec<SessionMeta> {
    lib.sessions(&ScanProgress::default()).unwrap().sessions
}

fn find<'a>(all: &'a [SessionMeta], id: &str) -> &'a SessionMeta {
    all.iter().find(|s| s.id == id).unwrap()
}

/// The plan for session `id` of `all`, with every opt-in on and no agent on PATH.
fn plan_for(
    catalog: &agent_sessions_core::Catalog,
    all: &[SessionMeta],
    id: &str,
    mode: Mode,
    subagents: Option<bool>,
) -> trash::Plan {
    let request = Request { mode, subagents };
    trash::plan(
        catalog,
        all,
        find(all, id),
        request,
        &ALLOWED,
        &Tools::default(),
    )
    .unwrap()
}

/// Every file under `dir`: (path, a hash of its bytes).
fn files(dir: &Path) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                std::fs::read(e.path()).unwrap().hash(&mut h);
                out.push((e.path().to_string_lossy().into_owned(), h.finish()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_file_that_cannot_go_puts_back_those_that_went() {
    let _one = TRASH_HOME.lock().unwrap_or_else(|e| e.into_inner());
    let data = tempfile::tempdir().unwrap();
    std::env::set_var("XDG_DATA_HOME", data.path());
    let root = store(ProviderKind::Claude, "2.1.332");
    let id = "5fec8eab-4b33-416d-b6fa-02f90e2a8cfc";
    let catalog = common::catalog(ProviderKind::Claude, root.path());
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let mut plan = plan_for(&catalog, &all, id, Mode::Trash, None);
    // The transcript and its tool-results folder.
    let Step::OsTrash { items } = &mut plan.steps[0] else {
        panic!("{:?}", plan.steps)
    };
    assert_eq!(items.len(), 2, "{items:?}");
    // A file whose name is too long for its `.trashinfo` beside it cannot go to the trash.
    let long = root.path().join("x".repeat(250));
    std::fs::write(&long, "x").unwrap();
    let mut extra = items[0].clone();
    extra.path = long.clone();
    items.push(extra);
    let before = files(root.path());

    let err = trash::execute(&catalog, &all, &plan, &ALLOWED).unwrap_err();
    let Error::Trash(e) = &err else {
        panic!("{err}")
    };
    assert_eq!(e.code(), "trash_failed");
    assert!(!e.is_refusal());
    assert!(
        err.to_string()
            .contains("the 2 moved before it were put back"),
        "{err}"
    );
    assert!(err.to_string().contains("nothing was changed"), "{err}");
    assert_eq!(files(root.path()), before, "everything is where it was");
    let in_trash: Vec<_> = std::fs::read_dir(data.path().join("Trash/files"))
        .unwrap()
        .collect();
    assert!(in_trash.is_empty(), "{in_trash:?}");
}

#[test]
fn a_busy_database_keeps_every_row_and_every_file() {
    let root = store(ProviderKind::Opencode, "1.18.33");
    let id = "ses_dd434d2d3ffeSwAnDCKAB0MBV0";
    let catalog = common::catalog(ProviderKind::Opencode, root.path());
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let plan = plan_for(&catalog, &all, id, Mode::Permanent, Some(true));
    let Step::DeleteRows { rows, .. } = &plan.steps[0] else {
        panic!("{:?}", plan.steps)
    };
    assert!(
        rows.iter().any(|(t, n)| t == "message" && *n > 0),
        "{rows:?}"
    );
    // OpenCode (another connection) holds a write transaction for longer than we wait.
    let before = files(root.path());
    let db = root.path().join("opencode.db");
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let err = trash::execute(&catalog, &all, &plan, &ALLOWED).unwrap_err();
    assert!(err.to_string().contains("busy"), "{err}");
    assert!(err.to_string().contains("nothing was changed"), "{err}");
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    assert_eq!(files(root.path()), before);
    let n: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT count(*) FROM session WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(n, 1);
}

#[test]
fn a_plan_made_before_a_change_is_not_run() {
    let root = store(ProviderKind::Claude, "2.1.332");
    let id = "7938f0db-aeb3-409b-ab80-42085a5431da";
    let catalog = common::catalog(ProviderKind::Claude, root.path());
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let plan = plan_for(&catalog, &all, id, Mode::Trash, None);
    // The opt-in is checked again.
    let off = ActionSettings {
        allow_delete: false,
        allow_permanent_delete: false,
    };
    let err = trash::execute(&catalog, &all, &plan, &off).unwrap_err();
    assert_eq!(err.code(), "delete_disabled");
    // The agent wrote to it meanwhile.
    let transcript = &find(&all, id).source_path;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(transcript)
        .unwrap();
    std::io::Write::write_all(&mut f, b"\n").unwrap();
    drop(f);
    let now = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let err = trash::execute(&catalog, &now, &plan, &ALLOWED).unwrap_err();
    assert_eq!(err.code(), "session_recent", "{err}");
    // Gone from the listing.
    let others: Vec<SessionMeta> = now.into_iter().filter(|s| s.id != id).collect();
    let err = trash::execute(&catalog, &others, &plan, &ALLOWED).unwrap_err();
    assert_eq!(err.code(), "stale_plan", "{err}");
    assert!(transcript.exists());
}

#[test]
fn the_cache_drops_a_session_at_once() {
    let root = store(ProviderKind::Claude, "2.1.332");
    let cache = tempfile::tempdir().unwrap();
    let roots = common::roots(ProviderKind::Claude, root.path());
    let mut lib = Library::open(&roots, &[], Some(cache.path().to_path_buf()));
    let all = sessions(&mut lib);
    let gone = find(&all, "7938f0db-aeb3-409b-ab80-42085a5431da").clone();
    lib.index_text(&ScanProgress::default()).unwrap();
    let filter = agent_sessions_core::index::SearchFilter {
        limit: 50,
        ..Default::default()
    };
    let hits = lib.search_indexed("hello", &filter).unwrap();
    assert!(hits.iter().any(|h| h.session_id == gone.id), "{hits:?}");
    let keys = vec![agent_sessions_core::provider::SessionKey::of(&gone)];
    lib.forget(&keys).unwrap();
    // Without a refresh (the files are all still there): neither listed nor found.
    let listed = lib.listed(&ScanProgress::default()).unwrap().sessions;
    assert_eq!(listed.len(), all.len() - 1);
    assert!(!listed.iter().any(|s| s.id == gone.id));
    let hits = lib.search_indexed("hello", &filter).unwrap();
    assert!(!hits.iter().any(|h| h.session_id == gone.id), "{hits:?}");
}

/// Trashes session `id` as the app and the remote server do on `service`: planned and run on
/// its listing, its rows dropped from the cache at once, forgotten by the service. Its keys.
fn trash_through(service: &Service, id: &str) -> Vec<SessionKey> {
    let mut lib = service.library();
    let all = lib.listed(&ScanProgress::default()).unwrap().sessions;
    let plan = plan_for(lib.catalog(), &all, id, Mode::Trash, Some(true));
    trash::execute(lib.catalog(), &all, &plan, &ALLOWED).unwrap();
    lib.forget(&plan.keys()).unwrap();
    drop(lib);
    service.forget_listed(&[(ProviderKind::Claude, id.to_owned())]);
    plan.keys()
}

/// Two front ends on one cache (two app windows' processes, or the remote server processes
/// of an app's two connections to a host): a session one of them trashes (to the real OS
/// trash) is a removal in the other's change feed too, even once the first one's refresh has
/// taken the removal from the cache's store state (before, the other's refresh found nothing
/// left to report, and its clients kept the session). With its refresh loop running, the
/// other's feed reports the next trash as well.
#[test]
fn a_trash_is_a_removal_in_the_feed_of_another_front_end_on_the_cache() {
    let _one = TRASH_HOME.lock().unwrap_or_else(|e| e.into_inner());
    let data = tempfile::tempdir().unwrap();
    std::env::set_var("XDG_DATA_HOME", data.path());
    let root = store(ProviderKind::Claude, "2.1.332");
    let cache = tempfile::tempdir().unwrap();
    let roots = common::roots(ProviderKind::Claude, root.path());
    let acting = Service::new(roots.clone(), Some(cache.path().to_path_buf()));
    let other = Service::new(roots, Some(cache.path().to_path_buf()));
    let listed = other.refresh().unwrap().sessions;
    let cursor = other.seq();

    let gone = trash_through(&acting, "5fec8eab-4b33-416d-b6fa-02f90e2a8cfc");
    assert_eq!(gone.len(), 1, "{gone:?}");
    assert!(!gone[0].source_path.exists());
    assert!(data.path().join("Trash/files").read_dir().unwrap().count() > 0);
    // The acting one lists again (its window's list): its refresh takes the removal.
    let now = acting.refresh().unwrap().sessions;
    assert_eq!(now.len(), listed.len() - 1);
    assert_eq!(acting.changes_since(acting.seq()).removed, Vec::new());

    let after = other.refresh().unwrap().sessions;
    assert_eq!(after.len(), listed.len() - 1);
    let delta = other.delta(cursor).unwrap();
    assert_eq!(delta.removed, gone, "{delta:?}");
    assert!(delta.changed.is_empty(), "{delta:?}");
    assert!(
        other.delta(delta.seq).unwrap().removed.is_empty(),
        "said once"
    );

    // The other's loop running (an app's worker, a server's `watch`).
    let (tx, rx) = std::sync::mpsc::channel();
    other.start(move |e| {
        let _ = tx.send(e);
    });
    let cursor = other.seq();
    let gone = trash_through(&acting, "7938f0db-aeb3-409b-ab80-42085a5431da");
    acting.refresh().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while other.changes_since(cursor).removed != gone {
        assert!(std::time::Instant::now() < deadline, "never reported");
        let _ = rx.recv_timeout(std::time::Duration::from_millis(200));
    }
    assert!(other.changes_since(cursor).changed.is_empty());
}
