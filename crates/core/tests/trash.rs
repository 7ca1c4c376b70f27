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

/// A trash of this test's own (`$XDG_DATA_HOME`), the other tests kept out while it is held.
fn own_trash() -> (std::sync::MutexGuard<'static, ()>, tempfile::TempDir) {
    let one = TRASH_HOME.lock().unwrap_or_else(|e| e.into_inner());
    let data = tempfile::tempdir().unwrap();
    std::env::set_var("XDG_DATA_HOME", data.path());
    (one, data)
}

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
    let (_one, data) = own_trash();
    let store = store(ProviderKind::Claude, "2.1.332");
    cannot_go_puts_back(store.path(), &data);
}

/// The same with the store's root a link (`~/.claude` linked to a dotfiles folder): the trash
/// records each item by its resolved folder, and the items are found there to be put back
/// (before, none was: "not found in the trash to put back").
#[test]
fn a_store_reached_through_a_link_is_put_back_too() {
    let (_one, data) = own_trash();
    let store = store(ProviderKind::Claude, "2.1.332");
    let linked = tempfile::tempdir().unwrap();
    let root = linked.path().join("dot-claude");
    std::os::unix::fs::symlink(store.path(), &root).unwrap();
    cannot_go_puts_back(&root, &data);
}

/// A plan whose last file cannot go to the trash, run on the Claude store at `root`: the files
/// moved before it are put back and the error says so.
fn cannot_go_puts_back(root: &Path, data: &tempfile::TempDir) {
    let id = "5fec8eab-4b33-416d-b6fa-02f90e2a8cfc";
    let catalog = common::catalog(ProviderKind::Claude, root);
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let mut plan = plan_for(&catalog, &all, id, Mode::Trash, None);
    // The transcript and its tool-results folder.
    let Step::OsTrash { items } = &mut plan.steps[0] else {
        panic!("{:?}", plan.steps)
    };
    assert_eq!(items.len(), 2, "{items:?}");
    // A file whose name is too long for its `.trashinfo` beside it cannot go to the trash.
    let long = root.join(DEMO).join("x".repeat(250));
    std::fs::write(&long, "x").unwrap();
    let mut extra = items[0].clone();
    extra.path = long.clone();
    items.push(extra);
    let before = files(root);

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
    assert_eq!(files(root), before, "everything is where it was");
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
    let (_one, data) = own_trash();
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

// Hostile stores (issue 29, finding 1): a name or id from the store never makes a plan reach
// beyond the session's own files.

const DEMO: &str = "projects/-home-bob-projects-demo";

/// The code of a refusal `plan` gave, or the plan it should not have made.
fn refusal(result: Result<trash::Plan, Error>) -> String {
    match result {
        Ok(plan) => panic!("planned instead of refusing: {:#?}", plan.steps),
        Err(e) => e.code().to_owned(),
    }
}

/// The plan for the session read from `file`, with every opt-in on and no agent on PATH.
fn plan_of_file(
    catalog: &agent_sessions_core::Catalog,
    all: &[SessionMeta],
    file: &Path,
    mode: Mode,
) -> Result<trash::Plan, Error> {
    let session = all
        .iter()
        .find(|s| s.source_path == file)
        .unwrap_or_else(|| panic!("{} is not listed: {all:#?}", file.display()));
    let request = Request {
        mode,
        subagents: Some(true),
    };
    trash::plan(catalog, all, session, request, &ALLOWED, &Tools::default())
}

/// A Claude transcript saved as `..jsonl` was session `.`, whose plan took the whole project
/// folder, `file-history/` and `session-env/`; `.jsonl` was session `.jsonl`. Neither has the
/// shape of a Claude id, so neither is planned on, and nothing moves.
#[test]
fn claude_transcripts_named_dot_dot_or_dot_are_not_planned_on() {
    for name in ["..jsonl", ".jsonl"] {
        let root = store(ProviderKind::Claude, "2.1.332");
        let own = "7938f0db-aeb3-409b-ab80-42085a5431da";
        let hostile = root.path().join(DEMO).join(name);
        std::fs::copy(
            root.path().join(DEMO).join(format!("{own}.jsonl")),
            &hostile,
        )
        .unwrap();
        for shared in ["file-history", "session-env"] {
            let dir = root.path().join(shared).join(own);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("kept"), "another session's").unwrap();
        }
        age(root.path());
        let catalog = common::catalog(ProviderKind::Claude, root.path());
        let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
        let before = files(root.path());
        let code = refusal(plan_of_file(&catalog, &all, &hostile, Mode::Trash));
        assert_eq!(code, "invalid_session_id", "{name}");
        assert_eq!(files(root.path()), before, "{name}");
    }
}

/// OpenCode 1.0 JSON storage: a session's id is read from its file, and `copies_of` and the
/// message folder are built from it: ids with a separator, `..`, `.` or nothing are refused.
#[test]
fn opencode_ids_of_the_wrong_shape_are_not_planned_on() {
    let root = store(ProviderKind::Opencode, "1.0.98");
    let sessions = root
        .path()
        .join("storage/session/40041ed1ede9f53e0342dcfd885f99802fb4b28a");
    let model =
        std::fs::read_to_string(sessions.join("ses_dd4234628ffemWI43oty88yayo.json")).unwrap();
    let hostile = [
        "..",
        ".",
        "",
        "ses_a/../../x",
        "../storage",
        "ses_x\\..\\..",
    ];
    for (n, id) in hostile.iter().enumerate() {
        let text = model.replace("ses_dd4234628ffemWI43oty88yayo", id);
        std::fs::write(sessions.join(format!("ses_hostile{n}.json")), text).unwrap();
    }
    age(root.path());
    let catalog = common::catalog(ProviderKind::Opencode, root.path());
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let before = files(root.path());
    let mut planned = 0;
    for (n, id) in hostile.iter().enumerate() {
        let file = sessions.join(format!("ses_hostile{n}.json"));
        if !all.iter().any(|s| s.source_path == file) {
            continue; // not listed at all (the reader drops it)
        }
        let code = refusal(plan_of_file(&catalog, &all, &file, Mode::Permanent));
        assert_eq!(code, "invalid_session_id", "{id:?}");
        planned += 1;
    }
    assert!(planned >= 4, "only {planned} hostile ids were listed");
    assert_eq!(files(root.path()), before);
}

/// Codex reads a session's id from its rollout's `session_meta`: one that is not a UUID is
/// refused with the same code as every agent's.
#[test]
fn codex_ids_of_the_wrong_shape_are_not_planned_on() {
    let root = store(ProviderKind::Codex, "0.63.0");
    let day = root.path().join("sessions/2026/11/30");
    let model = day.join("rollout-2026-11-30T09-24-44-01a22bc5-5db7-7111-89da-1ae412354ddc.jsonl");
    let text = std::fs::read_to_string(&model).unwrap();
    let hostile = day.join("rollout-2026-11-30T09-24-47-hostile.jsonl");
    std::fs::write(
        &hostile,
        text.replace("01a22bc5-5db7-7111-89da-1ae412354ddc", "../../x"),
    )
    .unwrap();
    age(root.path());
    let catalog = common::catalog(ProviderKind::Codex, root.path());
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let code = refusal(plan_of_file(&catalog, &all, &hostile, Mode::Trash));
    assert_eq!(code, "invalid_session_id");
}

/// A message file `..json` or `.json` in `storage/message/<id>/` named the part folder
/// `storage/part/.` (every session's parts) or `storage/part/`: the delete moved 67 parts of
/// other sessions and could not put them back. Now such a name names no part folder (it is no
/// message), the session goes whole, and every other session's file is where it was.
#[test]
fn opencode_message_files_named_dot_dot_or_dot_reach_no_other_part() {
    let (_one, _data) = own_trash();
    let root = store(ProviderKind::Opencode, "1.0.98");
    let id = "ses_dd4233f85ffeF6TN3TEhX5oKKw";
    let storage = root.path().join("storage");
    for name in ["..json", ".json"] {
        std::fs::write(storage.join("message").join(id).join(name), "{}").unwrap();
    }
    age(root.path());
    let catalog = common::catalog(ProviderKind::Opencode, root.path());
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let plan = plan_for(&catalog, &all, id, Mode::Permanent, Some(true));
    let part = storage.join("part");
    for step in &plan.steps {
        if let Step::OsTrash { items } = step {
            for i in items {
                let p = i.path.to_string_lossy();
                assert!(
                    !p.ends_with('.') && !p.ends_with('/') && i.path != part,
                    "{p} is not one of the session's own files"
                );
            }
        }
    }
    let going: Vec<String> = plan.targets().iter().map(|t| t.id.clone()).collect();
    let messages_of_others: Vec<String> = std::fs::read_dir(storage.join("message"))
        .unwrap()
        .flatten()
        .filter(|e| !going.contains(&e.file_name().to_string_lossy().into_owned()))
        .flat_map(|e| std::fs::read_dir(e.path()).unwrap().flatten())
        .map(|m| {
            m.file_name()
                .to_string_lossy()
                .trim_end_matches(".json")
                .to_owned()
        })
        .collect();
    let before = files(root.path());
    trash::execute(&catalog, &all, &plan, &ALLOWED).unwrap();
    let after: std::collections::BTreeMap<_, _> = files(root.path()).into_iter().collect();
    let mut kept = 0;
    for (path, hash) in &before {
        let own = going.iter().any(|g| path.contains(g.as_str()));
        let others_part = messages_of_others.iter().any(|m| path.contains(m.as_str()));
        if others_part || !own && !path.contains("/part/") {
            assert_eq!(after.get(path), Some(hash), "{path} went or changed");
            kept += 1;
        }
    }
    assert!(kept > 20, "only {kept} files of other sessions checked");
}

/// `storage/message/<id>` a link to another session's message folder: the link goes (the
/// trash moves a link, never what it points to), and nothing is planned from what is behind it.
#[test]
fn an_opencode_message_folder_that_is_a_link_names_no_parts() {
    let root = store(ProviderKind::Opencode, "1.0.98");
    let (id, other) = (
        "ses_dd4233f85ffeF6TN3TEhX5oKKw",
        "ses_dd4234628ffemWI43oty88yayo",
    );
    let messages = root.path().join("storage/message");
    std::fs::remove_dir_all(messages.join(id)).unwrap();
    std::os::unix::fs::symlink(messages.join(other), messages.join(id)).unwrap();
    let catalog = common::catalog(ProviderKind::Opencode, root.path());
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let plan = plan_for(&catalog, &all, id, Mode::Permanent, Some(true));
    let theirs: Vec<std::path::PathBuf> = std::fs::read_dir(messages.join(other))
        .unwrap()
        .flatten()
        .map(|m| {
            let name = m.file_name().to_string_lossy().replace(".json", "");
            root.path().join("storage/part").join(name)
        })
        .collect();
    assert!(!theirs.is_empty());
    for step in &plan.steps {
        if let Step::OsTrash { items } = step {
            for i in items {
                assert!(
                    !theirs.contains(&i.path),
                    "{} is {other}'s",
                    i.path.display()
                );
            }
        }
    }
}

/// Every path of every step is checked before anything runs: a plan whose step names `.` or
/// `..`, an empty name, a store's own folder, a path outside the store, or a path through a
/// linked folder is refused (`unsafe_path`) and nothing moves, here or outside.
#[test]
fn a_step_reaching_outside_its_folder_is_refused_and_nothing_moves() {
    let (_one, data) = own_trash();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("precious"), "not the store's").unwrap();
    let root = store(ProviderKind::Claude, "2.1.332");
    let id = "5fec8eab-4b33-416d-b6fa-02f90e2a8cfc";
    let demo = root.path().join(DEMO);
    std::os::unix::fs::symlink(outside.path(), demo.join("linked")).unwrap();
    let catalog = common::catalog(ProviderKind::Claude, root.path());
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let plan = plan_for(&catalog, &all, id, Mode::Trash, None);
    let mut raw = root.path().as_os_str().to_owned();
    raw.push(format!("/{DEMO}/"));
    let forged = [
        demo.join("."),
        demo.join(id).join(".."),
        std::path::PathBuf::from(raw),
        root.path().join("projects"),
        root.path().join(".."),
        outside.path().join("precious"),
        demo.join("linked").join("precious"),
    ];
    let before = (files(root.path()), files(outside.path()));
    for path in forged {
        let mut plan = plan.clone();
        let Step::OsTrash { items } = &mut plan.steps[0] else {
            panic!("{:?}", plan.steps)
        };
        // Last, so the session's own files would have gone first.
        let mut extra = items[0].clone();
        extra.path = path.clone();
        items.push(extra);
        let err = trash::execute(&catalog, &all, &plan, &ALLOWED).unwrap_err();
        assert_eq!(err.code(), "unsafe_path", "{}: {err}", path.display());
        assert!(
            err.to_string().contains("nothing was done"),
            "{}: {err}",
            path.display()
        );
        assert_eq!(
            (files(root.path()), files(outside.path())),
            before,
            "{}",
            path.display()
        );
    }
    assert!(
        !data.path().join("Trash/files").exists()
            || std::fs::read_dir(data.path().join("Trash/files"))
                .unwrap()
                .count()
                == 0
    );
}

/// The same check guards Codex's own archive (renames inside the store): a move whose target
/// leaves `archived_sessions/` is refused before anything is renamed or written.
#[test]
fn a_codex_archive_move_leaving_its_folder_is_refused() {
    let root = store(ProviderKind::Codex, "0.63.0");
    let catalog = common::catalog(ProviderKind::Codex, root.path());
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let id = "01a22bc5-5db7-7111-89da-1ae412354ddc";
    let mut plan = plan_for(&catalog, &all, id, Mode::Trash, Some(true));
    let Step::Archive { moves, .. } = &mut plan.steps[0] else {
        panic!("{:?}", plan.steps)
    };
    let name = moves[0].to.file_name().unwrap().to_owned();
    moves[0].to = root.path().join("archived_sessions/..").join(name);
    let before = files(root.path());
    let err = trash::execute(&catalog, &all, &plan, &ALLOWED).unwrap_err();
    assert_eq!(err.code(), "unsafe_path", "{err}");
    assert_eq!(files(root.path()), before);
}

/// The OpenCode store at `root` aged (no agent writing it), scanned, and the deletion of
/// session `id` with its children planned.
fn opencode_deletion(
    root: &Path,
    id: &str,
) -> (agent_sessions_core::Catalog, Vec<SessionMeta>, trash::Plan) {
    age(root);
    let catalog = common::catalog(ProviderKind::Opencode, root);
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let plan = plan_for(&catalog, &all, id, Mode::Permanent, Some(true));
    (catalog, all, plan)
}

/// A rollback that cannot put everything back says what is where: a session with a JSON copy
/// and database rows; its files go to the trash, the rows cannot be deleted (OpenCode holds
/// the database), and meanwhile something new took the place of its message folder. The
/// others are put back, and the error names the folder's place in the trash and why.
#[test]
fn a_rollback_that_cannot_finish_says_where_each_file_is() {
    let (_one, data) = own_trash();
    let root = store(ProviderKind::Opencode, "1.2.27");
    let id = "ses_dd430093fffe4wX4rdvuGTxHc5";
    let storage = root.path().join("storage");
    // Its 1.0 JSON copy, as a store migrated to the database can still hold.
    let model = common::fixture(ProviderKind::Opencode, "1.0.98")
        .join("storage/session/40041ed1ede9f53e0342dcfd885f99802fb4b28a/ses_dd4234628ffemWI43oty88yayo.json");
    let session_file = storage.join(format!("session/p/{id}.json"));
    std::fs::create_dir_all(session_file.parent().unwrap()).unwrap();
    let text = std::fs::read_to_string(model).unwrap();
    std::fs::write(
        &session_file,
        text.replace("ses_dd4234628ffemWI43oty88yayo", id),
    )
    .unwrap();
    let messages = storage.join("message").join(id);
    std::fs::create_dir_all(&messages).unwrap();
    // A message and its part, each saying whose it is (else they would stay where they are).
    std::fs::write(
        messages.join("msg_a.json"),
        format!(r#"{{"id":"msg_a","sessionID":"{id}"}}"#),
    )
    .unwrap();
    let parts = storage.join("part/msg_a");
    std::fs::create_dir_all(&parts).unwrap();
    std::fs::write(
        parts.join("prt_a.json"),
        format!(r#"{{"id":"prt_a","sessionID":"{id}","messageID":"msg_a"}}"#),
    )
    .unwrap();
    let (catalog, all, plan) = opencode_deletion(root.path(), id);
    let Step::OsTrash { items } = &plan.steps[0] else {
        panic!("{:?}", plan.steps)
    };
    let moved: Vec<std::path::PathBuf> = items.iter().map(|i| i.path.clone()).collect();
    assert!(
        moved.contains(&messages) && moved.contains(&parts),
        "{moved:?}"
    );

    let db = root.path().join("opencode.db");
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let err = std::thread::scope(|s| {
        let run = s.spawn(|| trash::execute(&catalog, &all, &plan, &ALLOWED));
        // The files are in the trash while the rows wait for the database (5 s).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while moved.iter().any(|p| p.exists()) {
            assert!(std::time::Instant::now() < deadline, "never moved");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        std::fs::create_dir(&messages).unwrap();
        std::fs::write(messages.join("new.json"), "written since").unwrap();
        run.join().unwrap().unwrap_err()
    });
    holder.execute_batch("ROLLBACK").unwrap();
    let text = err.to_string();
    assert_eq!(err.code(), "trash_failed", "{text}");
    let place = data.path().join("Trash/files").join(id);
    assert!(
        text.contains(&format!(
            "{} is still in the trash, at {} (something else is at {} now)",
            messages.display(),
            place.display(),
            messages.display()
        )),
        "{text}"
    );
    assert!(place.join("msg_a.json").exists(), "where the error says");
    for p in moved.iter().filter(|p| **p != messages) {
        assert!(p.exists(), "{} was not put back: {text}", p.display());
        assert!(text.contains(&p.display().to_string()), "{text}");
    }
    assert!(text.contains("put back: "), "{text}");
    assert_eq!(
        std::fs::read_to_string(messages.join("new.json")).unwrap(),
        "written since"
    );
}

// Names that are not UTF-8 (issue 29, finding 2): a plan names such a file exactly where it is
// compared and run, and lossily where people read it (its JSON).

/// Bytes as a file name (Linux allows any but `/` and NUL).
fn os(bytes: &[u8]) -> &std::ffi::OsStr {
    std::os::unix::ffi::OsStrExt::from_bytes(bytes)
}

/// The Claude fixture with its project folder renamed `-home-\xfe`: every session in it has a
/// path that is not UTF-8 (and an id of Claude's shape). Returns the store and the folder.
fn claude_store_not_in_utf8() -> (tempfile::TempDir, std::path::PathBuf) {
    let root = store(ProviderKind::Claude, "2.1.332");
    let folder = root.path().join("projects").join(os(b"-home-\xfe"));
    std::fs::rename(root.path().join(DEMO), &folder).unwrap();
    (root, folder)
}

/// A session under a folder whose name is not UTF-8: its plan is written to JSON (the CLI's
/// `--json`, the app, the remote: before, serde refused the path and the CLI panicked, after
/// moving the files), the JSON read back names the same plan, a plan naming another file that
/// reads alike does not; a failure part way puts the files back under their own names, and the
/// plan run moves them to the trash, recorded by their bytes.
#[test]
fn a_plan_for_a_file_named_not_in_utf8_is_shown_and_runs_on_its_bytes() {
    let (_one, data) = own_trash();
    let (root, folder) = claude_store_not_in_utf8();
    let id = "5fec8eab-4b33-416d-b6fa-02f90e2a8cfc";
    let catalog = common::catalog(ProviderKind::Claude, root.path());
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let plan = plan_for(&catalog, &all, id, Mode::Trash, None);
    let transcript = folder.join(format!("{id}.jsonl"));
    assert_eq!(plan.session.source_path, transcript);

    let json = serde_json::to_value(&plan).expect("the plan is written to JSON");
    let shown = transcript.to_string_lossy();
    assert_eq!(json["session"]["source_path"], shown.as_ref());
    assert_eq!(json["steps"][0]["items"][0]["path"], shown.as_ref());
    let back: trash::Plan = serde_json::from_value(json).unwrap();
    assert_ne!(back, plan, "the JSON is lossy");
    assert!(
        plan.is_shown_as(&back),
        "what a client shows names this plan"
    );
    assert!(plan.is_shown_as(&plan));
    let mut other = plan.clone();
    other.session.source_path = root
        .path()
        .join("projects")
        .join(os(b"-home-\xff"))
        .join(format!("{id}.jsonl"));
    assert!(!plan.is_shown_as(&other), "another file that reads alike");
    let mut other = back.clone();
    other.notes.push("not what was planned".into());
    assert!(!plan.is_shown_as(&other));

    // The last item cannot go: the two before it come back under their own names.
    let before = common::snapshot(root.path());
    let mut failing = plan.clone();
    let Step::OsTrash { items } = &mut failing.steps[0] else {
        panic!("{:?}", failing.steps)
    };
    assert_eq!(items.len(), 2, "{items:?}");
    let long = folder.join("x".repeat(250));
    std::fs::write(&long, "x").unwrap();
    let mut extra = items[0].clone();
    extra.path = long.clone();
    items.push(extra);
    let err = trash::execute(&catalog, &all, &failing, &ALLOWED).unwrap_err();
    assert_eq!(err.code(), "trash_failed", "{err}");
    assert!(
        err.to_string()
            .contains("the 2 moved before it were put back"),
        "{err}"
    );
    std::fs::remove_file(&long).unwrap();
    assert_eq!(
        common::snapshot(root.path()),
        before,
        "everything is where it was"
    );

    trash::execute(&catalog, &all, &plan, &ALLOWED).unwrap();
    assert!(!transcript.exists() && !folder.join(id).exists());
    let trashed = data.path().join("Trash");
    let info = std::fs::read_to_string(trashed.join(format!("info/{id}.jsonl.trashinfo"))).unwrap();
    assert!(info.contains("/-home-%FE/"), "{info}");
    let file = trashed.join(format!("files/{id}.jsonl"));
    assert_eq!(
        std::fs::read(file).unwrap(),
        before.iter().find(|(p, _)| *p == transcript).unwrap().1
    );
}

/// A Codex rollout whose name is not UTF-8, archived here (no Codex on PATH): the move keeps
/// its bytes, and the plan's JSON shows it.
#[test]
fn a_codex_rollout_named_not_in_utf8_is_archived_under_its_own_name() {
    let root = store(ProviderKind::Codex, "0.63.0");
    let id = "01a22bc5-5db7-7111-89da-1ae412354ddc";
    let day = root.path().join("sessions/2026/11/30");
    let rollout = day.join(format!("rollout-2026-11-30T09-24-44-{id}.jsonl"));
    let mut name = b"rollout-2026-11-30T09-24-44-\xff".to_vec();
    name.extend_from_slice(format!("{id}.jsonl").as_bytes());
    let renamed = day.join(os(&name));
    std::fs::rename(&rollout, &renamed).unwrap();
    let catalog = common::catalog(ProviderKind::Codex, root.path());
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let plan = plan_for(&catalog, &all, id, Mode::Trash, Some(true));
    let json = serde_json::to_value(&plan).expect("the plan is written to JSON");
    assert_eq!(
        json["steps"][0]["moves"][0]["from"],
        renamed.to_string_lossy().as_ref()
    );
    let bytes = std::fs::read(&renamed).unwrap();
    trash::execute(&catalog, &all, &plan, &ALLOWED).unwrap();
    let archived = root.path().join("archived_sessions").join(os(&name));
    assert_eq!(std::fs::read(archived).unwrap(), bytes);
    assert!(!renamed.exists());
}

// OpenCode's JSON storage keeps a message's parts in `storage/part/<message id>/`, a folder
// named by the message alone: a message file in this session's folder decides which part
// folders go with the session, so it is believed only when it and its parts say they are this
// session's.

const OC_SESSION: &str = "ses_dd4233f85ffeF6TN3TEhX5oKKw";
const OC_OTHER: &str = "ses_dd4234628ffemWI43oty88yayo";

/// One message file of [`OC_OTHER`] planted in [`OC_SESSION`]'s message folder under its own
/// plain name, as `planted` (the other's message file, given its bytes) rewrites it. The
/// deletion of the session leaves the planted file where it is, with a note naming it, and
/// every file of the other session (its parts first) stays byte for byte.
fn a_planted_message_takes_no_parts(planted: impl Fn(&str) -> String) {
    let (_one, _data) = own_trash();
    let root = store(ProviderKind::Opencode, "1.0.98");
    let storage = root.path().join("storage");
    let theirs = storage.join("message").join(OC_OTHER);
    let message = std::fs::read_dir(&theirs)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .min()
        .unwrap();
    let name = message.file_name().unwrap().to_owned();
    let their_parts = storage.join("part").join(message.file_stem().unwrap());
    assert!(their_parts.read_dir().unwrap().count() > 0);
    let text = std::fs::read_to_string(&message).unwrap();
    let plant = storage.join("message").join(OC_SESSION).join(&name);
    std::fs::write(&plant, planted(&text)).unwrap();
    let (catalog, all, plan) = opencode_deletion(root.path(), OC_SESSION);
    let Step::OsTrash { items } = &plan.steps[0] else {
        panic!("{:?}", plan.steps)
    };
    let going: Vec<&Path> = items.iter().map(|i| i.path.as_path()).collect();
    assert!(!going.contains(&their_parts.as_path()), "{going:#?}");
    assert!(!going.contains(&plant.as_path()), "{going:#?}");
    let shown = plant.display().to_string();
    assert!(
        plan.notes.iter().any(|n| n.contains(&shown)),
        "{:#?}",
        plan.notes
    );
    // The session's own messages and their parts still go.
    let own_message = std::fs::read_dir(storage.join("message").join(OC_SESSION))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| *p != plant)
        .unwrap();
    let own_parts = storage.join("part").join(own_message.file_stem().unwrap());
    assert!(going.contains(&own_message.as_path()) && going.contains(&own_parts.as_path()));

    let before = common::snapshot(root.path());
    trash::execute(&catalog, &all, &plan, &ALLOWED).unwrap();
    let after = common::snapshot(root.path());
    let kept: Vec<_> = before
        .iter()
        .filter(|(p, _)| p.starts_with(&their_parts) || p.starts_with(&theirs) || *p == plant)
        .collect();
    assert!(kept.len() > 3, "{kept:?}");
    for file in kept {
        assert!(after.contains(file), "{} went or changed", file.0.display());
    }
    assert!(!own_message.exists() && !own_parts.exists());
    let now = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    assert!(!now.iter().any(|s| s.id == OC_SESSION));
    let other = find(&now, OC_OTHER);
    assert!(!catalog.load(other).unwrap().messages.is_empty());
}

/// A copy of another session's message file (its `sessionID` the other's) in this session's
/// folder: before, the other's part folder was planned and went to the trash with this session.
#[test]
fn an_opencode_message_of_another_session_takes_none_of_its_parts() {
    a_planted_message_takes_no_parts(|text| text.to_owned());
}

/// The same file rewritten to say it is this session's: its parts still say whose they are.
#[test]
fn an_opencode_message_claiming_another_sessions_parts_takes_none_of_them() {
    a_planted_message_takes_no_parts(|text| text.replace(OC_OTHER, OC_SESSION));
}

// Codex is told its store by `CODEX_HOME`, a string in the plan: a store folder whose name is
// not UTF-8 cannot be named to it.

/// A stand-in for Codex that has `archive` and `delete` (`--help` is all a plan asks it).
fn codex_with_commands(dir: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let program = dir.join("codex");
    std::fs::write(
        &program,
        "#!/bin/sh\nprintf 'Usage: codex\\n\\nCommands:\\n  archive  Archive\\n  delete  Delete\\n'\n",
    )
    .unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    program
}

/// Before, the plan ran Codex with `CODEX_HOME` the folder's lossy name: another folder, where
/// Codex would archive or delete nothing (or make a new home). Now the archive is made here
/// (with a note saying why), and a deletion, which only Codex makes, is refused.
#[test]
fn codex_is_not_run_on_a_store_it_cannot_be_told() {
    let bin = tempfile::tempdir().unwrap();
    let tools = Tools::default().with(ProviderKind::Codex, codex_with_commands(bin.path()));
    let id = "01a22bc5-5db7-7111-89da-1ae412354ddc";
    let fixture = store(ProviderKind::Codex, "0.63.0");
    let plan_in = |root: &Path, mode: Mode| {
        let catalog = common::catalog(ProviderKind::Codex, root);
        let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
        let request = Request {
            mode,
            subagents: Some(true),
        };
        trash::plan(&catalog, &all, find(&all, id), request, &ALLOWED, &tools)
    };
    // The stand-in is Codex enough: in a store named in UTF-8 its own command is the plan.
    let plan = plan_in(fixture.path(), Mode::Trash).unwrap();
    assert!(
        matches!(plan.steps[0], Step::Agent { .. }),
        "{:?}",
        plan.steps
    );

    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join(os(b"codex-\xff"));
    std::fs::rename(fixture.path(), &root).unwrap();
    let plan = plan_in(&root, Mode::Trash).unwrap();
    assert!(
        matches!(plan.steps[0], Step::Archive { .. }),
        "{:?}",
        plan.steps
    );
    assert!(
        plan.notes.iter().any(|n| n.contains("not UTF-8")),
        "{:?}",
        plan.notes
    );
    let err = plan_in(&root, Mode::Permanent).unwrap_err();
    assert_eq!(err.code(), "agent_missing", "{err}");
    assert!(err.to_string().contains("not UTF-8"), "{err}");
}

/// A session file is believed by what it says, not by its name: a second `<this id>.json` in
/// another project folder whose `id` says it is another session's is that session's file, so
/// deleting this session leaves it (before: it went with this session, named by its stem).
#[test]
fn an_opencode_session_file_named_for_this_session_but_saying_another_stays() {
    let (_one, _data) = own_trash();
    let root = store(ProviderKind::Opencode, "1.0.98");
    let sessions = root.path().join("storage/session");
    let find = |id: &str| {
        std::fs::read_dir(&sessions)
            .unwrap()
            .flatten()
            .map(|d| d.path().join(format!("{id}.json")))
            .find(|p| p.exists())
            .unwrap()
    };
    let (mine, theirs) = (find(OC_SESSION), find(OC_OTHER));
    let plant = sessions.join("planted").join(format!("{OC_SESSION}.json"));
    std::fs::create_dir_all(plant.parent().unwrap()).unwrap();
    std::fs::copy(&theirs, &plant).unwrap();
    let (catalog, all, plan) = opencode_deletion(root.path(), OC_SESSION);
    let Step::OsTrash { items } = &plan.steps[0] else {
        panic!("{:?}", plan.steps)
    };
    let going: Vec<&Path> = items.iter().map(|i| i.path.as_path()).collect();
    assert!(going.contains(&mine.as_path()), "{going:#?}");
    assert!(!going.contains(&plant.as_path()), "{going:#?}");
    trash::execute(&catalog, &all, &plan, &ALLOWED).unwrap();
    assert!(!mine.exists());
    assert_eq!(
        std::fs::read(&plant).unwrap(),
        std::fs::read(&theirs).unwrap()
    );
}

/// A GitHub Copilot CLI session goes to the trash with all that is its own and nothing else:
/// a 1.0.x session its folder (log, workspace.yaml, checkpoints, file backups) and its lock in
/// `.session-operation-locks/`, a flat 0.0.3xx log and a ≤ 0.0.341 history document their
/// file; every other session stays listed; deleting one outright is refused with the reason.
#[test]
fn copilot_sessions_go_to_the_trash_with_their_folder_and_lock() {
    let (_one, data) = own_trash();
    for (version, id, own) in [
        (
            "1.0.102",
            "373a9440-329a-4fec-b25e-02d27d658ae7",
            &[
                "session-state/373a9440-329a-4fec-b25e-02d27d658ae7",
                "session-state/.session-operation-locks/373a9440-329a-4fec-b25e-02d27d658ae7.lock",
            ][..],
        ),
        (
            "0.0.365",
            "5f0e2c1d-7b3a-4c9e-8d21-6a4b3c2d1e0f",
            &["session-state/5f0e2c1d-7b3a-4c9e-8d21-6a4b3c2d1e0f.jsonl"][..],
        ),
        (
            "0.0.340",
            "0b9d4a4e-1f7e-4a51-9d2e-3f0c1c2b5a10",
            &["history-session-state/session_0b9d4a4e-1f7e-4a51-9d2e-3f0c1c2b5a10_1760086800000.json"][..],
        ),
    ] {
        let store = store(ProviderKind::Copilot, version);
        let root = store.path();
        let catalog = common::catalog(ProviderKind::Copilot, root);
        let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
        let permanent = trash::plan(
            &catalog,
            &all,
            find(&all, id),
            Request {
                mode: Mode::Permanent,
                subagents: None,
            },
            &ALLOWED,
            &Tools::default(),
        );
        let Err(e) = permanent else {
            panic!("{version}: a permanent deletion was planned")
        };
        assert!(e.to_string().contains("GitHub Copilot CLI"), "{e}");
        let plan = plan_for(&catalog, &all, id, Mode::Trash, None);
        let Step::OsTrash { items } = &plan.steps[0] else {
            panic!("{:?}", plan.steps)
        };
        let planned: Vec<std::path::PathBuf> = items.iter().map(|i| i.path.clone()).collect();
        let want: Vec<std::path::PathBuf> = own.iter().map(|p| root.join(p)).collect();
        assert_eq!(planned, want, "{version}");
        let others: Vec<_> = files(root)
            .into_iter()
            .filter(|(p, _)| !own.iter().any(|o| p.starts_with(&*root.join(o).to_string_lossy())))
            .collect();
        trash::execute(&catalog, &all, &plan, &ALLOWED).unwrap();
        assert_eq!(files(root), others, "{version}: only the session's own files went");
        let left = catalog.scan(&ScanProgress::default()).unwrap().sessions;
        assert_eq!(left.len(), all.len() - 1, "{version}");
        assert!(left.iter().all(|s| s.id != id), "{version}");
        assert!(data.path().join("Trash/files").read_dir().unwrap().count() >= own.len());
    }
}

/// The recorded Aider store (two repositories), scanned, and the run in the middle of
/// `demo`'s history.
struct Aider {
    store: tempfile::TempDir,
    catalog: agent_sessions_core::Catalog,
    all: Vec<SessionMeta>,
    history: std::path::PathBuf,
    /// The history's bytes before anything ran.
    before: Vec<u8>,
    id: String,
    /// The run's bytes: from its header to the next run's.
    start: usize,
    end: usize,
}

impl Aider {
    fn new() -> Aider {
        let store = store(ProviderKind::Aider, "0.86.2");
        let history = store.path().join("demo/.aider.chat.history.md");
        let before = std::fs::read(&history).unwrap();
        let text = String::from_utf8_lossy(&before);
        let headers: Vec<usize> = text
            .match_indices("# aider chat started at ")
            .map(|(i, _)| i)
            .collect();
        // Its id, as tests/record/expected.py computed it (EXPECTED.json, the run at line 39).
        let fixture = agent_sessions_test_support::fixture(ProviderKind::Aider, "0.86.2");
        let expected: serde_json::Value =
            serde_json::from_slice(&std::fs::read(fixture.join("EXPECTED.json")).unwrap()).unwrap();
        let id = expected["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["file"] == "demo/.aider.chat.history.md" && s["line"] == 39)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let catalog = common::catalog(ProviderKind::Aider, store.path());
        let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
        Aider {
            store,
            catalog,
            all,
            history,
            before,
            id,
            start: headers[1],
            end: headers[2],
        }
    }

    fn plan(&self, mode: Mode) -> trash::Plan {
        plan_for(&self.catalog, &self.all, &self.id, mode, None)
    }

    fn execute(&self, plan: &trash::Plan) -> Result<trash::Done, Error> {
        trash::execute(&self.catalog, &self.all, plan, &ALLOWED)
    }

    /// The history without the run.
    fn cut(&self) -> Vec<u8> {
        [&self.before[..self.start], &self.before[self.end..]].concat()
    }
}

fn the_cut(plan: &trash::Plan) -> &trash::Cut {
    match &plan.steps[..] {
        [Step::Cut(cut)] => cut,
        steps => panic!("{steps:?}"),
    }
}

/// The files in the trash under `data` (`$XDG_DATA_HOME`).
fn in_trash(data: &tempfile::TempDir) -> Vec<Vec<u8>> {
    let files = data.path().join("Trash/files");
    std::fs::read_dir(files)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| std::fs::read(e.path()).unwrap())
        .collect()
}

/// Trash cuts one run out of the real history: the file is its bytes before and after the run
/// (every other run byte for byte, the other repository untouched), the run is a file of its
/// own in the OS trash, and a scan lists every other run under the same id.
#[test]
fn an_aider_run_is_cut_out_of_its_history_and_kept_in_the_trash() {
    let (_one, data) = own_trash();
    let a = Aider::new();
    let other_repo = files(&a.store.path().join("naïve-проект"));
    let plan = a.plan(Mode::Trash);
    let cut = the_cut(&plan);
    assert_eq!((cut.start, cut.end), (a.start as u64, a.end as u64));
    assert!(
        plan.notes.iter().any(|n| n.contains("cut out of")),
        "{:?}",
        plan.notes
    );

    a.execute(&plan).unwrap();
    assert_eq!(std::fs::read(&a.history).unwrap(), a.cut());
    assert_eq!(files(&a.store.path().join("naïve-проект")), other_repo);
    assert_eq!(
        in_trash(&data),
        [a.before[a.start..a.end].to_vec()],
        "the run alone is in the trash"
    );
    // Nothing else was left beside the history (no temporary file, no copy).
    let beside = std::fs::read_dir(a.history.parent().unwrap()).unwrap();
    assert_eq!(beside.count(), 2);

    let left = a.catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let ids = |s: &[SessionMeta]| {
        let mut v: Vec<String> = s.iter().map(|s| s.id.clone()).collect();
        v.sort();
        v
    };
    let want: Vec<String> = ids(&a.all).into_iter().filter(|i| *i != a.id).collect();
    assert_eq!(ids(&left), want);
}

/// Delete cuts the same bytes and keeps nothing.
#[test]
fn an_aider_run_deleted_for_good_leaves_nothing_in_the_trash() {
    let (_one, data) = own_trash();
    let a = Aider::new();
    let plan = a.plan(Mode::Permanent);
    assert_eq!(the_cut(&plan).keep_as, None);
    a.execute(&plan).unwrap();
    assert_eq!(std::fs::read(&a.history).unwrap(), a.cut());
    assert!(in_trash(&data).is_empty());
}

/// Aider wrote to the history after the plan (same length, other bytes: only the hash tells):
/// nothing is cut, the file keeps what Aider wrote, the trash stays empty.
#[test]
fn an_aider_history_written_since_the_plan_is_not_cut() {
    let (_one, data) = own_trash();
    let a = Aider::new();
    let plan = a.plan(Mode::Trash);
    let mut changed = a.before.clone();
    changed[a.start + 30] ^= 1;
    std::fs::write(&a.history, &changed).unwrap();
    age(a.store.path());
    let err = a.execute(&plan).unwrap_err();
    assert_eq!(err.code(), "stale_plan", "{err}");
    assert!(err.to_string().contains("written to since"), "{err}");
    assert_eq!(std::fs::read(&a.history).unwrap(), changed);
    assert!(in_trash(&data).is_empty());
}

/// A cut that fails part way (the name its copy is kept under was taken after the plan)
/// leaves the history byte for byte, that file as it was (never removed: it is not ours), and
/// no temporary file; planned again, the taken name is refused up front, saying what to do.
#[test]
fn a_failed_aider_cut_leaves_the_history_byte_for_byte() {
    let (_one, data) = own_trash();
    let a = Aider::new();
    let plan = a.plan(Mode::Trash);
    let keep = the_cut(&plan).keep_as.clone().unwrap();
    std::fs::write(&keep, "mine").unwrap();
    let folder = files(a.history.parent().unwrap());
    let err = a.execute(&plan).unwrap_err();
    assert_eq!(err.code(), "trash_failed", "{err}");
    assert!(err.to_string().contains("nothing was changed"), "{err}");
    assert_eq!(files(a.history.parent().unwrap()), folder);
    assert!(in_trash(&data).is_empty());
    let request = Request {
        mode: Mode::Trash,
        subagents: None,
    };
    let session = find(&a.all, &a.id);
    let again = trash::plan(
        &a.catalog,
        &a.all,
        session,
        request,
        &ALLOWED,
        &Tools::default(),
    );
    let again = again.unwrap_err();
    assert!(again.to_string().contains("move it away"), "{again}");
}

/// A cut step pointed at another file than its session's (a plan sent by a remote client) is
/// refused before anything is read or written.
#[test]
fn an_aider_cut_of_another_file_is_refused() {
    let a = Aider::new();
    let mut plan = a.plan(Mode::Permanent);
    let other = a.store.path().join("naïve-проект/.aider.chat.history.md");
    let before = std::fs::read(&other).unwrap();
    let Step::Cut(cut) = &mut plan.steps[0] else {
        panic!("{:?}", plan.steps)
    };
    cut.file = other.clone();
    let err = a.execute(&plan).unwrap_err();
    assert_eq!(err.code(), "unsafe_path", "{err}");
    assert_eq!(std::fs::read(&other).unwrap(), before);
}

/// The ids a Cline index lists: 3.x's `sessions` rows, 2.x's `taskHistory.json` entries.
fn cline_index(root: &Path, v3: bool) -> Vec<String> {
    let data = root.join("data");
    if v3 {
        let conn = rusqlite::Connection::open(data.join("db/sessions.db")).unwrap();
        let mut stmt = conn
            .prepare("SELECT session_id FROM sessions ORDER BY session_id")
            .unwrap();
        let ids = stmt.query_map([], |r| r.get(0)).unwrap();
        return ids.map(Result::unwrap).collect();
    }
    let text = std::fs::read(data.join("state/taskHistory.json")).unwrap();
    let tasks: Vec<serde_json::Value> = serde_json::from_slice(&text).unwrap();
    tasks
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Cline lists a session from its index entry even when its folder is gone (seen with Cline
/// 3.0.65's `cline history`): the trash takes the folder to the OS trash and the entry out of
/// the index — the 3.x session's row and its subagent's, the 2.x task's entry — and nothing else.
#[test]
fn a_cline_session_leaves_its_index_with_its_folder() {
    let (_one, data) = own_trash();
    for (version, id, folder, gone) in [
        (
            "3.0.65",
            "1796568635963_quxl9",
            "data/sessions/1796568635963_quxl9",
            &[
                "1796568635963_quxl9",
                "1796568635963_quxl9__agent_1796568636237_3o8jsw",
            ][..],
        ),
        (
            "2.18.0",
            "1796568459073",
            "data/tasks/1796568459073",
            &["1796568459073"][..],
        ),
    ] {
        let store = store(ProviderKind::Cline, version);
        let root = store.path();
        let v3 = version.starts_with('3');
        let before = cline_index(root, v3);
        let catalog = common::catalog(ProviderKind::Cline, root);
        let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
        let plan = plan_for(&catalog, &all, id, Mode::Trash, Some(true));
        let Step::OsTrash { items } = &plan.steps[0] else {
            panic!("{:?}", plan.steps)
        };
        assert_eq!(items[0].path, root.join(folder), "{version}");
        trash::execute(&catalog, &all, &plan, &ALLOWED).unwrap();
        assert!(!root.join(folder).exists(), "{version}");
        let want: Vec<String> = before
            .into_iter()
            .filter(|i| !gone.contains(&i.as_str()))
            .collect();
        assert_eq!(
            cline_index(root, v3),
            want,
            "{version}: only its entries went"
        );
        assert!(data.path().join("Trash/files").read_dir().unwrap().count() >= 1);
    }
}

/// The index entry goes last: when it cannot go (Cline holds its database), the folder comes
/// back from the trash and the row stays, so Cline lists the session whole.
#[test]
fn a_busy_cline_index_puts_the_folder_back() {
    let (_one, _data) = own_trash();
    let store = store(ProviderKind::Cline, "3.0.65");
    let root = store.path();
    let id = "1796568592650_62ic8";
    let catalog = common::catalog(ProviderKind::Cline, root);
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let plan = plan_for(&catalog, &all, id, Mode::Trash, None);
    let before = files(root);
    let holder = rusqlite::Connection::open(root.join("data/db/sessions.db")).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let err = trash::execute(&catalog, &all, &plan, &ALLOWED).unwrap_err();
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    assert!(err.to_string().contains("busy"), "{err}");
    assert!(err.to_string().contains("put back"), "{err}");
    assert!(cline_index(root, true).contains(&id.to_owned()));
    let now: Vec<_> = files(root)
        .into_iter()
        .filter(|(p, _)| !p.contains("/db/"))
        .collect();
    let was: Vec<_> = before
        .into_iter()
        .filter(|(p, _)| !p.contains("/db/"))
        .collect();
    assert_eq!(now, was);
}

/// A task list that is not Cline's JSON array is never rewritten: the trash is refused before
/// anything moves, and says which file.
#[test]
fn a_damaged_cline_task_list_refuses_the_trash() {
    let store = store(ProviderKind::Cline, "2.18.0");
    let root = store.path();
    let history = root.join("data/state/taskHistory.json");
    let mut text = std::fs::read(&history).unwrap();
    text.truncate(text.len() / 2);
    std::fs::write(&history, &text).unwrap();
    age(root);
    let catalog = common::catalog(ProviderKind::Cline, root);
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let before = files(root);
    let request = Request {
        mode: Mode::Trash,
        subagents: None,
    };
    let err = trash::plan(
        &catalog,
        &all,
        find(&all, "1796568459073"),
        request,
        &ALLOWED,
        &Tools::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("taskHistory.json"), "{err}");
    assert_eq!(files(root), before);
}

/// The entries of a Cline task list as written: each entry's own bytes.
fn cline_entries(history: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(history).unwrap();
    let list: Vec<Box<serde_json::value::RawValue>> = serde_json::from_str(&text).unwrap();
    list.iter().map(|e| e.get().to_owned()).collect()
}

/// Trashing a 2.x task takes its entry out of `taskHistory.json` and leaves every other entry
/// byte for byte as Cline wrote it (its keys in Cline's order, not re-serialised); restoring
/// the task's bundle afterwards (the way back: its folder and its entry) gives a list that
/// reads as Cline's again, the other entries still untouched and the task listed at its end.
#[test]
fn a_trashed_cline_task_leaves_the_other_entries_byte_for_byte_and_restores() {
    let (_one, _data) = own_trash();
    let store = store(ProviderKind::Cline, "2.18.0");
    let root = store.path().canonicalize().unwrap();
    let history = root.join("data/state/taskHistory.json");
    let id = "1796568500313";
    let before = cline_entries(&history);
    let others: Vec<String> = before
        .iter()
        .filter(|e| !e.contains(&format!("\"id\":\"{id}\"")))
        .cloned()
        .collect();
    assert_eq!(others.len() + 1, before.len());
    let catalog = common::catalog(ProviderKind::Cline, &root);
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let session = find(&all, id);
    let work = tempfile::tempdir().unwrap();
    let bundle_path = work.path().join("task.agent-session.zip");
    agent_sessions_core::bundle::prepare(
        &catalog,
        &all,
        session,
        agent_sessions_core::bundle::Mode::Complete,
    )
    .unwrap()
    .save(&bundle_path, false)
    .unwrap();

    let plan = plan_for(&catalog, &all, id, Mode::Trash, None);
    trash::execute(&catalog, &all, &plan, &ALLOWED).unwrap();
    assert_eq!(cline_entries(&history), others, "only its entry went");

    let catalog = common::catalog(ProviderKind::Cline, &root);
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    assert!(all.iter().all(|s| s.id != id));
    let dir = session.cwd.clone().map(std::path::PathBuf::from).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    let target = agent_sessions_core::bundle::Target {
        root: root.clone(),
        dir,
        as_copy: false,
    };
    let (agents, tokens) = (
        agent_sessions_core::bundle::Agents::default(),
        agent_sessions_core::bundle::Tokens::new(),
    );
    let b = agent_sessions_core::bundle::Bundle::open(&bundle_path).unwrap();
    let p = agent_sessions_core::bundle::preview(&b, &catalog, &all, &target, &agents, &tokens)
        .unwrap();
    agent_sessions_core::bundle::restore(
        &bundle_path,
        &catalog,
        &all,
        &target,
        &agents,
        &tokens,
        &p.token,
    )
    .unwrap();
    let after = cline_entries(&history);
    assert_eq!(after[..others.len()], others[..]);
    assert_eq!(after.len(), before.len());
    assert!(after[others.len()].contains(id));
    let catalog = common::catalog(ProviderKind::Cline, &root);
    let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    assert!(all.iter().any(|s| s.id == id));
}
