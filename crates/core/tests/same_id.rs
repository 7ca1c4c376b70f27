//! One session in two files (a Claude project folder copied beside itself: the same agent and
//! id, different paths and content). The service names each by its file, refuses the bare id as
//! ambiguous (listing both files), reads each file's own transcript, and trashing one copy
//! leaves the other's files as they were.

#![cfg(target_os = "linux")]

mod common;

use std::path::{Path, PathBuf};

use agent_sessions_core::actions::trash::{self, Mode, Request, Step, Tools};
use agent_sessions_core::config::ActionSettings;
use agent_sessions_core::index::SearchFilter;
use agent_sessions_core::service::Service;
use agent_sessions_core::{Catalog, Library, ProviderKind, ScanProgress, SessionMeta};
use agent_sessions_test_support::{snapshot, SameIdStore};

const CLAUDE: ProviderKind = ProviderKind::Claude;
const CODEX: ProviderKind = ProviderKind::Codex;

fn service(store: &SameIdStore, cache: &Path) -> Service {
    let service = Service::new(
        common::roots(CLAUDE, store.root()),
        Some(cache.to_path_buf()),
    );
    service.refresh().unwrap();
    service
}

/// Every listed session with the store's id, by file.
fn listed(service: &Service, store: &SameIdStore) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = service
        .list()
        .unwrap()
        .sessions
        .into_iter()
        .filter(|s| s.id == store.id)
        .map(|s| s.source_path)
        .collect();
    files.sort();
    files
}

fn text_of(service: &Service, meta: &SessionMeta) -> String {
    service
        .with_transcript_of(meta, |t| serde_json::to_string(&t.messages).unwrap())
        .unwrap()
}

#[test]
fn each_file_is_its_own_session_and_the_bare_id_is_ambiguous() {
    let store = SameIdStore::create();
    let cache = tempfile::tempdir().unwrap();
    let service = service(&store, cache.path());
    let mut want = vec![store.original.clone(), store.copy.clone()];
    want.sort();
    assert_eq!(listed(&service, &store), want, "both files are listed");

    let err = service.resolve(CLAUDE, store.id).unwrap_err();
    assert_eq!(err.code(), "ambiguous_id");
    let message = err.to_string();
    for file in &want {
        assert!(message.contains(&file.display().to_string()), "{message}");
    }
    // The whole id is what the two share, named whole or by a prefix: more of it cannot help,
    // the file can.
    assert!(
        message.contains("the whole id is the same in each") && !message.contains("more of the id"),
        "{message}"
    );
    let sessions = service.list().unwrap().sessions;
    let prefix = service
        .library()
        .catalog()
        .find(&sessions, &store.id[..8])
        .unwrap_err();
    assert!(
        prefix
            .to_string()
            .contains("the whole id is the same in each"),
        "{prefix}"
    );

    for (file, own, other) in [
        (&store.original, store.original_text, store.copy_text),
        (&store.copy, store.copy_text, store.original_text),
    ] {
        let meta = service.resolve_at(CLAUDE, store.id, Some(file)).unwrap();
        assert_eq!(&meta.source_path, file);
        let text = text_of(&service, &meta);
        assert!(text.contains(own) && !text.contains(other), "{file:?}");
    }
    // Read one after the other, the transcript held is never the other file's.
    let original = service
        .resolve_at(CLAUDE, store.id, Some(&store.original))
        .unwrap();
    assert!(text_of(&service, &original).contains(store.original_text));

    // A file the listing did not give names nothing: it is never read as given.
    let elsewhere = service.resolve_at(CLAUDE, store.id, Some(Path::new("/etc/passwd")));
    assert_eq!(elsewhere.unwrap_err().code(), "session_not_found");
}

/// A search hit names its own file, so opening it opens the copy it was found in: whether the
/// text was read directly (not indexed yet) or found in the index.
#[test]
fn a_search_hit_names_the_file_it_was_found_in() {
    let store = SameIdStore::create();
    let cache = tempfile::tempdir().unwrap();
    let mut lib = Library::open(
        &common::roots(CLAUDE, store.root()),
        &[],
        Some(cache.path().to_path_buf()),
    );
    let progress = ScanProgress::default();
    let filter = SearchFilter {
        limit: 20,
        ..SearchFilter::default()
    };
    let files_of = |lib: &mut Library, word: &str| {
        let found = lib.search(word, &filter, &progress).unwrap();
        (files_hit(found.hits, store.id), found.read_directly)
    };
    for indexed in [false, true] {
        if indexed {
            lib.index_text(&progress).unwrap();
        }
        let (files, read) = files_of(&mut lib, "COPIED");
        assert_eq!(files, vec![store.copy.clone()], "indexed: {indexed}");
        assert_eq!(read > 0, !indexed);
        let (files, _) = files_of(&mut lib, "\"SUBAGENT please delegate\"");
        assert_eq!(files, vec![store.original.clone()], "indexed: {indexed}");
    }
}

/// The same message in both files is found in both when one file's text is indexed and the
/// other's is read directly (a copy made after the original was indexed): the hits read are
/// merged with the indexed ones by session, message and file, not by session and message.
#[test]
fn a_message_in_both_files_is_found_in_each_half_indexed() {
    let store = SameIdStore::create();
    let copied = std::fs::read(&store.copy).unwrap();
    std::fs::remove_file(&store.copy).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut lib = Library::open(
        &common::roots(CLAUDE, store.root()),
        &[],
        Some(cache.path().to_path_buf()),
    );
    let progress = ScanProgress::default();
    lib.refresh(&progress).unwrap();
    lib.index_text(&progress).unwrap();
    std::fs::write(&store.copy, copied).unwrap();
    let filter = SearchFilter {
        limit: 50,
        ..SearchFilter::default()
    };
    let found = lib.search("\"main.py\"", &filter, &progress).unwrap();
    assert_eq!(
        found.read_directly, 1,
        "the copy is read, the original indexed"
    );
    let mut both = vec![store.original.clone(), store.copy.clone()];
    both.sort();
    assert_eq!(files_hit(found.hits, store.id), both);
}

/// The files the hits of session `id` name, sorted, each once.
fn files_hit(hits: Vec<agent_sessions_core::index::Hit>, id: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = hits
        .into_iter()
        .filter(|h| h.session_id == id)
        .map(|h| h.source_path)
        .collect();
    files.sort();
    files.dedup();
    files
}

/// The catalog's naming (the CLI's and a remote's): the bare id is refused listing both files,
/// the path of either file names that one, also said another way (through a symlink).
#[test]
fn a_file_path_names_one_of_the_two() {
    let store = SameIdStore::create();
    let catalog = common::catalog(CLAUDE, store.root());
    let sessions = catalog
        .scan(&agent_sessions_core::ScanProgress::default())
        .unwrap()
        .sessions;
    let err = catalog.find(&sessions, store.id).unwrap_err();
    assert_eq!(err.code(), "ambiguous_id");
    assert!(err.to_string().contains("2 sessions"), "{err}");
    let prefix = catalog.find(&sessions, &store.id[..8]).unwrap_err();
    assert_eq!(prefix.code(), "ambiguous_id");
    // An empty name matches every session: a few are listed, the rest counted.
    let every = catalog.find(&sessions, "").unwrap_err().to_string();
    let more = sessions.len() - agent_sessions_core::error::AMBIGUOUS_LISTED;
    assert!(every.contains(&format!("; {more} more)")), "{every}");
    // Sessions of different ids: a longer prefix tells them apart.
    assert!(every.contains("give more of the id"), "{every}");
    let listed = agent_sessions_core::error::AMBIGUOUS_LISTED;
    assert_eq!(every.matches(" in /").count(), listed, "{every}");
    for file in [&store.original, &store.copy] {
        let found = catalog
            .find(&sessions, &file.display().to_string())
            .unwrap();
        assert_eq!((found.id.as_str(), &found.source_path), (store.id, file));
    }
    let link = store.root().join("link.jsonl");
    std::os::unix::fs::symlink(&store.copy, &link).unwrap();
    let found = catalog
        .find(&sessions, &link.display().to_string())
        .unwrap();
    assert_eq!(found.source_path, store.copy);
}

/// Trashing the copy (with its subagent) moves the copy's files only: every file of the
/// original project folder, its subagent's included, is where it was with the same bytes.
#[test]
fn trashing_one_copy_leaves_the_other_untouched() {
    let store = SameIdStore::create();
    let data = tempfile::tempdir().unwrap();
    // This test binary's only test that uses the trash: the variable is its own.
    std::env::set_var("XDG_DATA_HOME", data.path());
    let catalog: Catalog = common::catalog(CLAUDE, store.root());
    let sessions = catalog
        .scan(&agent_sessions_core::ScanProgress::default())
        .unwrap()
        .sessions;
    let copy = sessions
        .iter()
        .find(|s| s.source_path == store.copy)
        .unwrap();
    let allowed = ActionSettings {
        allow_delete: true,
        allow_permanent_delete: false,
    };
    let request = Request {
        mode: Mode::Trash,
        subagents: Some(true),
    };
    let plan = trash::plan(
        &catalog,
        &sessions,
        copy,
        request,
        &allowed,
        &Tools::default(),
    )
    .unwrap();
    assert_eq!(plan.subagents.len(), 1, "the copy's own subagent only");
    let original = store.original.display().to_string();
    assert!(
        plan.notes.iter().any(|n| n.contains(&original)),
        "{:?}",
        plan.notes
    );
    let copy_folder = store.copy.parent().unwrap();
    let Step::OsTrash { items } = &plan.steps[0] else {
        panic!("{:?}", plan.steps)
    };
    for item in items {
        assert!(item.path.starts_with(copy_folder), "{:?}", item.path);
    }
    let original_folder = store.original.parent().unwrap();
    let before = snapshot(original_folder);

    trash::execute(&catalog, &sessions, &plan, &allowed).unwrap();
    assert!(!store.copy.exists() && !store.copy.with_extension("").exists());
    assert_eq!(
        snapshot(original_folder),
        before,
        "the original is untouched"
    );
    let trashed = std::fs::read_dir(data.path().join("Trash/files")).unwrap();
    assert_eq!(trashed.count(), items.len());
}

/// The Codex session both refusal tests copy, and its rollout's file name.
const CODEX_ID: &str = "01a22bc4-d63a-7983-80d0-f3d6ee14c936";

/// Copies the 0.171.0 rollout of [`CODEX_ID`] in `store` into another day folder: (the
/// original, the copy).
fn second_rollout(store: &Path) -> (PathBuf, PathBuf) {
    let name = format!("rollout-2026-11-30T09-24-09-{CODEX_ID}.jsonl");
    let original = store.join("sessions/2026/11/30").join(&name);
    let copy = store.join("sessions/2026/12/01").join(&name);
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(&original, &copy).unwrap();
    (original, copy)
}

/// A trash (or delete) plan of `s`, with its subagents, is refused as `unsupported`, naming
/// `other`, the file Codex could pick instead.
fn refused_naming(
    catalog: &Catalog,
    sessions: &[SessionMeta],
    s: &SessionMeta,
    mode: Mode,
    other: &Path,
) {
    let allowed = ActionSettings {
        allow_delete: true,
        allow_permanent_delete: true,
    };
    let request = Request {
        mode,
        subagents: Some(true),
    };
    let err = trash::plan(catalog, sessions, s, request, &allowed, &Tools::default())
        .map(|plan| plan.steps)
        .unwrap_err();
    assert_eq!(err.code(), "unsupported", "{err}");
    assert!(
        err.to_string().contains(&other.display().to_string()),
        "{err}"
    );
}

/// Codex names a session by id alone (its commands, its state DB): with a second rollout of
/// one session in the same store, a trash or delete of either is refused before anything is
/// touched, saying which other file holds it, rather than letting Codex pick the file.
#[test]
fn codex_refuses_a_session_two_rollouts_of_its_store_hold() {
    let root = common::fixture_copy(CODEX, "0.171.0");
    agent_sessions_test_support::age(root.path());
    let (original, copy) = second_rollout(root.path());
    agent_sessions_test_support::age(root.path());
    let before = snapshot(root.path());
    let catalog = common::catalog(CODEX, root.path());
    let sessions = catalog
        .scan(&agent_sessions_core::ScanProgress::default())
        .unwrap()
        .sessions;
    for mode in [Mode::Trash, Mode::Permanent] {
        for (file, other) in [(&copy, &original), (&original, &copy)] {
            let s = sessions.iter().find(|s| &s.source_path == file).unwrap();
            refused_naming(&catalog, &sessions, s, mode, other);
        }
    }
    assert_eq!(snapshot(root.path()), before, "nothing was touched");
}

/// The change feed names a removed copy as removed while the other file still holds the
/// session: the window drops that row by its file (it stayed listed until a full list before).
#[test]
fn a_removed_copy_is_named_removed_while_the_other_is_listed() {
    let store = SameIdStore::create();
    let cache = tempfile::tempdir().unwrap();
    let service = service(&store, cache.path());
    let cursor = service.seq();
    std::fs::remove_file(&store.copy).unwrap();
    service.refresh().unwrap();
    let delta = service.delta(cursor).unwrap();
    let gone = agent_sessions_core::provider::SessionKey {
        provider: CLAUDE,
        id: store.id.to_owned(),
        source_path: store.copy.clone(),
    };
    assert!(delta.removed.contains(&gone), "{delta:?}");
    assert!(
        delta.changed.iter().all(|s| s.source_path != store.copy),
        "{delta:?}"
    );
    assert_eq!(listed(&service, &store), vec![store.original.clone()]);
}

/// Three files of one Codex session: two in one store, one in a second store listed first.
/// The store holding two is still refused (the first other copy found was the other store's,
/// which let the plan through to a `codex archive` by id).
#[test]
fn codex_refuses_when_its_own_store_holds_another_copy_whatever_is_listed_first() {
    let here = common::fixture_copy(CODEX, "0.171.0");
    let elsewhere = common::fixture_copy(CODEX, "0.171.0");
    let (original, copy) = second_rollout(here.path());
    agent_sessions_test_support::age(here.path());
    agent_sessions_test_support::age(elsewhere.path());
    let before = snapshot(here.path());
    let roots = agent_sessions_core::Roots::default().with(CODEX, [here.path(), elsewhere.path()]);
    let catalog = Catalog::new(&roots, &[CODEX]);
    let mut sessions = catalog
        .scan(&agent_sessions_core::ScanProgress::default())
        .unwrap()
        .sessions;
    // The other store's copy first among the session's files.
    sessions.sort_by_key(|s| !(s.id == CODEX_ID && s.source_path.starts_with(elsewhere.path())));
    assert_eq!(sessions.iter().filter(|s| s.id == CODEX_ID).count(), 3);
    let s = sessions.iter().find(|s| s.source_path == original).unwrap();
    refused_naming(&catalog, &sessions, s, Mode::Permanent, &copy);
    assert_eq!(snapshot(here.path()), before, "nothing was touched");
}

/// The Claude sessions of the store with the store's id, or its subagents (`parent`), scanned
/// now, by file.
fn scanned(store: &SameIdStore, parent: bool) -> (Catalog, Vec<SessionMeta>) {
    let catalog = common::catalog(CLAUDE, store.root());
    let mut sessions: Vec<SessionMeta> = catalog
        .scan(&ScanProgress::default())
        .unwrap()
        .sessions
        .into_iter()
        .filter(|s| match parent {
            false => s.id == store.id,
            true => s.parent_id.as_deref() == Some(store.id),
        })
        .collect();
    sessions.sort_by(|a, b| a.source_path.cmp(&b.source_path));
    (catalog, sessions)
}

/// The session of `sessions` read from a file under `folder`.
fn under<'a>(sessions: &'a [SessionMeta], folder: &Path) -> &'a SessionMeta {
    sessions
        .iter()
        .find(|s| s.source_path.starts_with(folder))
        .unwrap_or_else(|| panic!("nothing listed under {}", folder.display()))
}

/// `claude --resume <id>` names the session by id alone, and Claude Code opens the file in
/// the project folder of the directory it runs in (`-home-bob-projects-demo`): the original's.
/// The original resumes as before; the copy, its subagent (which resumes through its parent)
/// and "Resume in terminal" of the copy are refused, naming the file Claude Code would open,
/// before a terminal is even looked for. Opening a shell in the copy's directory is not refused.
#[test]
fn resuming_a_copy_is_refused_naming_the_file_claude_code_opens() {
    use agent_sessions_core::actions::terminal::{self, Host};
    let store = SameIdStore::create();
    let (catalog, sessions) = scanned(&store, false);
    let original_folder = store.original.parent().unwrap();
    let copy_folder = store.copy.parent().unwrap();

    let original = under(&sessions, original_folder);
    let command = catalog.resume_command(original).unwrap();
    assert_eq!(command.program(), "claude");
    assert_eq!(command.args(), ["--resume", store.id]);
    assert_eq!(command.cwd(), Some("/home/bob/projects/demo"));

    let copy = under(&sessions, copy_folder);
    let (_, subagents) = scanned(&store, true);
    let copied_subagent = under(&subagents, copy_folder);
    for refused in [copy, copied_subagent] {
        let err = catalog.resume_command(refused).unwrap_err();
        assert_eq!(err.code(), "resume_other_copy", "{err}");
        let agent_sessions_core::Error::ResumeOtherCopy { opens, chosen, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(opens.as_deref(), Some(store.original.as_path()));
        assert_eq!(chosen, &store.copy);
        let message = err.to_string();
        assert!(
            message.contains(&format!("it would open {}", store.original.display()))
                && message.contains(&format!("not {}", store.copy.display()))
                && message.contains("resume the session from that file instead"),
            "{message}"
        );
    }
    // The original's subagent resumes the original.
    let subagent = under(&subagents, original_folder);
    assert_eq!(
        catalog.resume_command(subagent).unwrap().args(),
        ["--resume", store.id]
    );

    // The refusal comes first: the terminal named does not exist, and is never looked at.
    let host = Host::this();
    let planned = terminal::plan_session(&catalog, copy, Some("no-such-terminal"), true, &host);
    assert_eq!(planned.unwrap_err().code(), "resume_other_copy");
    let shell = terminal::plan_session(&catalog, copy, Some("no-such-terminal"), false, &host);
    assert_eq!(shell.unwrap_err().code(), "unknown_terminal");
}

/// Neither file in the directory's own project folder: Claude Code opens the only file that
/// holds the id, and with two it opens neither ("No conversation found"), so both rows are
/// refused, each naming both files; once the copy is gone the original resumes again.
#[test]
fn with_no_file_where_claude_code_looks_first_two_copies_are_both_refused() {
    let store = SameIdStore::create();
    let original_folder = store.original.parent().unwrap();
    let moved = original_folder.with_file_name("-home-bob-elsewhere");
    std::fs::rename(original_folder, &moved).unwrap();
    let moved_file = moved.join(store.original.file_name().unwrap());

    let (catalog, sessions) = scanned(&store, false);
    assert_eq!(sessions.len(), 2);
    let mut both = vec![moved_file.clone(), store.copy.clone()];
    both.sort();
    for session in &sessions {
        let err = catalog.resume_command(session).unwrap_err();
        let agent_sessions_core::Error::ResumeOtherCopy { opens, found, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!((opens, found), (&None, &both));
        assert!(err.to_string().contains("would open none of them"), "{err}");
    }

    std::fs::remove_dir_all(store.copy.parent().unwrap()).unwrap();
    let (catalog, sessions) = scanned(&store, false);
    let [alone] = sessions.as_slice() else {
        panic!("{sessions:?}")
    };
    assert_eq!(alone.source_path, moved_file);
    let command = catalog.resume_command(alone).unwrap();
    assert_eq!(command.args(), ["--resume", store.id]);
}
