//! Restore round trips on every fixture session of every provider: export a complete bundle,
//! restore it into an empty store under another directory, and the scan of that store shows
//! the same sessions with the same counts and parent links, in the new directory. Then the
//! refusals: the same session again (never overwritten), as a copy (new ids, same counts),
//! a share-safe bundle, a bad or expired token, a changed bundle, a live target, and a failure
//! part way that leaves nothing behind.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_sessions_core::bundle::{self, Agents, Bundle, Mode, Target, Tokens};
use agent_sessions_core::{Catalog, Error, ProviderKind, ScanProgress, SessionMeta};
use common::Canonical;
use serde_json::Value;

fn versions(kind: ProviderKind) -> Vec<String> {
    let dir = common::repo().join("testdata").join(kind.as_str());
    let mut out: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().join(common::store_dir(kind)).is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

fn listing(kind: ProviderKind, root: &Path) -> (Catalog, Vec<SessionMeta>) {
    let catalog = common::catalog(kind, root);
    let sessions = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    (catalog, sessions)
}

/// An empty store of `kind`: a folder (OpenCode: with the 1.18.33 schema and no rows, as an
/// installed OpenCode that has not run a session leaves it).
fn empty_store(kind: ProviderKind, within: &Path) -> PathBuf {
    // OpenCode's is named as OpenCode names it (`$XDG_DATA_HOME/opencode`), so its own import
    // can be pointed at it.
    let root = within.join(match kind {
        ProviderKind::Opencode => "opencode",
        _ => "store",
    });
    std::fs::create_dir_all(&root).unwrap();
    if kind == ProviderKind::Opencode {
        let schema = common::fixture(kind, "1.18.33").join("opencode.db.schema.sql");
        let conn = rusqlite::Connection::open(root.join("opencode.db")).unwrap();
        conn.execute_batch(&std::fs::read_to_string(schema).unwrap())
            .unwrap();
    }
    root.canonical()
}

fn export(
    catalog: &Catalog,
    all: &[SessionMeta],
    s: &SessionMeta,
    mode: Mode,
    dir: &Path,
) -> PathBuf {
    let prepared = bundle::prepare(catalog, all, s, mode).unwrap();
    let path = dir.join(format!("{}.agent-session.zip", s.id));
    prepared.save(&path, false).unwrap();
    path
}

/// Preview and restore in one go, as the CLI does with --yes.
fn restore(
    path: &Path,
    kind: ProviderKind,
    root: &Path,
    dir: &Path,
    as_copy: bool,
) -> Result<bundle::Restored, Error> {
    restore_by(path, kind, root, dir, as_copy, &Agents::default())
}

/// [`restore`] with the agents' command lines `agents`.
fn restore_by(
    path: &Path,
    kind: ProviderKind,
    root: &Path,
    dir: &Path,
    as_copy: bool,
    agents: &Agents,
) -> Result<bundle::Restored, Error> {
    let tokens = Tokens::new();
    let (catalog, sessions) = listing(kind, root);
    let target = Target {
        root: root.to_path_buf(),
        dir: dir.to_path_buf(),
        as_copy,
    };
    let b = Bundle::open(path)?;
    let p = bundle::preview(&b, &catalog, &sessions, &target, agents, &tokens)?;
    bundle::restore(
        path, &catalog, &sessions, &target, agents, &tokens, &p.token,
    )
}

/// (counts, parent) of each session, by id.
fn shape(
    sessions: &[SessionMeta],
) -> BTreeMap<String, (agent_sessions_core::Counts, Option<String>)> {
    sessions
        .iter()
        .map(|s| (s.id.clone(), (s.counts, s.parent_id.clone())))
        .collect()
}

#[test]
fn every_fixture_session_round_trips_into_an_empty_store_in_another_directory() {
    let mut restored = 0;
    for kind in ProviderKind::ALL {
        for version in versions(kind) {
            let source = common::fixture(kind, &version).canonical();
            let (catalog, all) = listing(kind, &source);
            for s in all.iter().filter(|s| s.parent_id.is_none()) {
                // Qwen Code before 0.5 has no resume, so its sessions are not bundled (bundle.rs
                // checks the refusal).
                if kind == ProviderKind::Qwen && version == "0.1.4" {
                    continue;
                }
                let what = format!("{kind} {version} {}", s.id);
                let work = tempfile::tempdir().unwrap();
                let path = export(&catalog, &all, s, Mode::Complete, work.path());
                let root = empty_store(kind, work.path());
                let dir = work.path().join("moved here").join("project");
                std::fs::create_dir_all(&dir).unwrap();
                let dir = dir.canonical();
                let done = restore(&path, kind, &root, &dir, false);
                if kind == ProviderKind::Aider {
                    aider_round_trip(done, &path, s, &root, &dir, &what);
                    restored += 1;
                    continue;
                }
                let done = done.unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(done.session_id, s.id);
                let (_, now) = listing(kind, &root);
                let bundled: Vec<&SessionMeta> = all
                    .iter()
                    .filter(|x| done.sessions.iter().any(|(id, _)| id == &x.id))
                    .collect();
                let expected = shape(&bundled.iter().map(|x| (*x).clone()).collect::<Vec<_>>());
                assert_eq!(
                    shape(&now),
                    expected,
                    "{what}: sessions, counts and parents"
                );
                for r in &now {
                    let was = bundled.iter().find(|x| x.id == r.id).unwrap();
                    let expect_cwd = match (&was.cwd, &s.cwd) {
                        (Some(c), Some(main)) if c == main => {
                            Some(dir.to_string_lossy().into_owned())
                        }
                        (other, _) => other.clone(),
                    };
                    // A Gemini CLI session goes to `tmp/<sha256 of the new directory>/`, which
                    // names its directory only through the paths its tool calls name (moved
                    // with it): a session without one has no known directory until Gemini CLI
                    // runs there (it then writes the folder's `.project_root`). Never the old.
                    if kind == ProviderKind::Gemini && r.cwd.is_none() {
                        continue;
                    }
                    // Gemini CLI writes a directory lower-cased on Windows (`normalizePath`),
                    // and so does the restore, in the markers the listing reads it from.
                    let expect_cwd = match expect_cwd {
                        Some(c) if cfg!(windows) && kind == ProviderKind::Gemini => {
                            Some(c.to_lowercase())
                        }
                        other => other,
                    };
                    assert_eq!(r.cwd, expect_cwd, "{what}: cwd of {}", r.id);
                }
                if let Some(old) = &s.cwd {
                    no_old_directory(kind, &root, old, &what);
                }
                // Never overwritten: the same bundle again is refused, and the store is as it was.
                let before = common::snapshot(&root);
                let again = restore(&path, kind, &root, &dir, false).unwrap_err();
                assert_eq!(again.code(), "session_exists", "{what}: {again}");
                assert_eq!(common::snapshot(&root), before, "{what}");
                restored += 1;
            }
        }
    }
    assert!(restored >= 40, "only {restored}");
}

/// Nowhere the agent records its directory does the old one remain.
fn no_old_directory(kind: ProviderKind, root: &Path, old: &str, what: &str) {
    let records: Vec<String> = match kind {
        ProviderKind::Opencode => {
            let conn = rusqlite::Connection::open(root.join("opencode.db")).unwrap();
            let mut stmt = conn
                .prepare("SELECT directory FROM session UNION ALL SELECT data FROM message")
                .unwrap();
            let rows = stmt.query_map([], |r| r.get::<_, String>(0)).unwrap();
            rows.map(Result::unwrap).collect()
        }
        _ => common::snapshot(root)
            .into_iter()
            .map(|(_, b)| String::from_utf8_lossy(&b).into_owned())
            .collect(),
    };
    let q = serde_json::to_string(old).unwrap();
    let recorded = [
        format!("\"cwd\":{q}"),
        format!("\"workingDirectory\":{q}"),
        format!("\"directory\":{q}"),
        format!("<cwd>{old}<"),
        format!("Primary working directory: {old}\\n"),
    ];
    for r in &records {
        assert!(r != old, "{what}: the session's directory is still {old}");
        for pattern in &recorded {
            assert!(
                !r.contains(pattern.as_str()),
                "{what}: {pattern} is still recorded"
            );
        }
    }
}

#[test]
fn a_copy_gets_new_ids_for_every_session_and_keeps_counts_and_links() {
    for (kind, version, id) in [
        (
            ProviderKind::Claude,
            "2.1.332",
            "3783a6bc-cd8d-4c58-9da5-ce5411d3487a",
        ),
        (
            ProviderKind::Claude,
            "2.0.50",
            "669d0c53-3d15-4f40-9830-4e99247562a5",
        ),
        (
            ProviderKind::Codex,
            "0.171.0",
            "01a22bc4-d63a-7983-80d0-f3d6ee14c936",
        ),
    ] {
        let source = common::fixture(kind, version).canonical();
        let (catalog, all) = listing(kind, &source);
        let s = all.iter().find(|s| s.id == id).unwrap();
        let work = tempfile::tempdir().unwrap();
        let path = export(&catalog, &all, s, Mode::Complete, work.path());
        let root = empty_store(kind, work.path());
        let dir = work.path().canonical();
        restore(&path, kind, &root, &dir, false).unwrap();
        let copy = restore(&path, kind, &root, &dir, true).unwrap();
        assert_ne!(copy.session_id, id);
        let map: BTreeMap<&str, &str> = copy
            .sessions
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        assert!(
            copy.sessions.len() > 1,
            "{kind} {version}: no subagents to follow"
        );
        let (_, now) = listing(kind, &root);
        for (old, new) in &copy.sessions {
            assert_ne!(old, new);
            let o = now.iter().find(|x| &x.id == old).unwrap();
            let n = now
                .iter()
                .find(|x| &x.id == new)
                .unwrap_or_else(|| panic!("{new} not listed"));
            assert_eq!(n.counts, o.counts, "{kind} {version} {old}");
            let parent = o
                .parent_id
                .as_deref()
                .map(|p| map.get(p).copied().unwrap_or(p));
            assert_eq!(n.parent_id.as_deref(), parent, "{kind} {version} {old}");
        }
        assert_eq!(now.len(), 2 * copy.sessions.len());
    }
}

#[test]
fn restores_are_refused_without_a_valid_token_for_this_bundle_and_target() {
    let kind = ProviderKind::Codex;
    let source = common::fixture(kind, "0.171.0").canonical();
    let (catalog, all) = listing(kind, &source);
    let s = all.iter().find(|s| s.parent_id.is_none()).unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = export(&catalog, &all, s, Mode::Complete, work.path());
    let root = empty_store(kind, work.path());
    let dir = work.path().canonical();
    let other = tempfile::tempdir().unwrap();
    let (tcat, tsessions) = listing(kind, &root);
    let agents = Agents::default();
    let target = Target {
        root: root.clone(),
        dir: dir.clone(),
        as_copy: false,
    };
    let tokens = Tokens::new();
    let b = Bundle::open(&path).unwrap();
    let p = bundle::preview(&b, &tcat, &tsessions, &target, &agents, &tokens).unwrap();
    assert_eq!(p.session_id, s.id);
    assert!(matches!(&p.method, bundle::restore::Method::Files { files } if !files.is_empty()));
    let before = common::snapshot(&root);
    let refuse = |target: &Target, tokens: &Tokens, token: &str| {
        let e =
            bundle::restore(&path, &tcat, &tsessions, target, &agents, tokens, token).unwrap_err();
        assert_eq!(e.code(), "restore_token", "{e}");
        assert_eq!(common::snapshot(&root), before);
    };
    refuse(&target, &tokens, "v1.1.00");
    refuse(&target, &Tokens::new(), &p.token);
    let elsewhere = Target {
        dir: other.path().to_path_buf(),
        ..target.clone()
    };
    refuse(&elsewhere, &tokens, &p.token);
    let copy = Target {
        as_copy: true,
        ..target.clone()
    };
    refuse(&copy, &tokens, &p.token);
    // Expired.
    let quick = Tokens::new().with_ttl(Duration::from_millis(1));
    let p2 = bundle::preview(&b, &tcat, &tsessions, &target, &agents, &quick).unwrap();
    std::thread::sleep(Duration::from_millis(5));
    refuse(&target, &quick, &p2.token);
    // The bundle changed since the preview (another, valid bundle at the same path).
    let s2 = all.iter().filter(|s| s.parent_id.is_none()).nth(1).unwrap();
    let p3 = bundle::preview(&b, &tcat, &tsessions, &target, &agents, &tokens).unwrap();
    let other_bundle = export(&catalog, &all, s2, Mode::Complete, other.path());
    std::fs::copy(&other_bundle, &path).unwrap();
    refuse(&target, &tokens, &p3.token);
}

#[test]
fn share_safe_bundles_subagents_and_bad_targets_are_refused_before_anything_is_written() {
    let kind = ProviderKind::Claude;
    let source = common::fixture(kind, "2.1.332").canonical();
    let (catalog, all) = listing(kind, &source);
    let s = all.iter().find(|s| s.id.starts_with("3783a6bc")).unwrap();
    let work = tempfile::tempdir().unwrap();
    let root = empty_store(kind, work.path());
    let safe_dir = tempfile::tempdir().unwrap();
    let safe = export(&catalog, &all, s, Mode::ShareSafe, safe_dir.path());
    let e = restore(&safe, kind, &root, work.path(), false).unwrap_err();
    assert_eq!(e.code(), "bundle_not_restorable", "{e}");
    let path = export(&catalog, &all, s, Mode::Complete, work.path());
    for (dir, code) in [
        (work.path().join("missing"), "bad_target"),
        (root.join("projects"), "bad_target"),
        (work.path().join("a\u{202e}b"), "bad_target"),
    ] {
        if dir
            .file_name()
            .unwrap()
            .to_string_lossy()
            .contains('\u{202e}')
            || dir.ends_with("projects")
        {
            std::fs::create_dir_all(&dir).unwrap();
        }
        let before = common::snapshot(&root);
        let e = restore(&path, kind, &root, &dir, false).unwrap_err();
        assert_eq!(e.code(), code, "{}: {e}", dir.display());
        assert_eq!(common::snapshot(&root), before);
    }
    // A directory that does not exist says so and what to do (it said "cannot be used: No
    // such file or directory (os error 2)").
    let e = restore(&path, kind, &root, &work.path().join("missing"), false).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("missing does not exist: create it first, or choose another"),
        "{e}"
    );
    // OpenCode sessions are never copies.
    let oc = ProviderKind::Opencode;
    let oc_source = common::fixture(oc, "1.18.33").canonical();
    let (oc_cat, oc_all) = listing(oc, &oc_source);
    let oc_s = oc_all.iter().find(|s| s.parent_id.is_none()).unwrap();
    let oc_path = export(&oc_cat, &oc_all, oc_s, Mode::Complete, work.path());
    let oc_root = empty_store(oc, &work.path().join("oc"));
    let e = restore(&oc_path, oc, &oc_root, work.path(), true).unwrap_err();
    assert_eq!(e.code(), "unsupported", "{e}");
}

/// A machine the agent never ran on (a bundle's usual destination): Claude Code's and Codex's
/// stores are folders of files laid out as the agent lays them out, so the restore makes the
/// store (the preview says it will) and the scan lists the session; OpenCode's is a database
/// only OpenCode's migrations set up, so it is refused with what to do, and nothing is made.
#[test]
fn a_store_the_agent_never_made_is_created_for_files_and_refused_for_a_database() {
    let cases = [
        (ProviderKind::Claude, "2.1.332", ".claude"),
        (ProviderKind::Codex, "0.171.0", ".codex"),
    ];
    for (kind, version, name) in cases {
        let source = common::fixture(kind, version).canonical();
        let (catalog, all) = listing(kind, &source);
        let s = all.iter().find(|s| s.parent_id.is_none()).unwrap();
        let work = tempfile::tempdir().unwrap();
        let path = export(&catalog, &all, s, Mode::Complete, work.path());
        let home = work.path().join("home");
        std::fs::create_dir(&home).unwrap();
        let root = home.canonical().join(name);
        let dir = work.path().canonical();
        let target = Target {
            root: root.clone(),
            dir: dir.clone(),
            as_copy: false,
        };
        let (tokens, agents) = (Tokens::new(), Agents::default());
        let (empty, none) = (Catalog::new(&Default::default(), &[kind]), Vec::new());
        let b = Bundle::open(&path).unwrap();
        let p = bundle::preview(&b, &empty, &none, &target, &agents, &tokens).unwrap();
        let will = format!("will create {}", root.display());
        assert!(
            p.notes.iter().any(|n| n.starts_with(&will)),
            "{kind}: {:?}",
            p.notes
        );
        assert!(!root.exists(), "{kind}: the preview made the store");
        bundle::restore(&path, &empty, &none, &target, &agents, &tokens, &p.token).unwrap();
        let (_, restored) = listing(kind, &root);
        let got = restored.iter().find(|r| r.id == s.id).unwrap();
        assert_eq!(got.counts, s.counts, "{kind}");
        assert_eq!(got.cwd.as_deref(), Some(&*dir.to_string_lossy()), "{kind}");
    }

    let kind = ProviderKind::Opencode;
    let source = common::fixture(kind, "1.18.33").canonical();
    let (catalog, all) = listing(kind, &source);
    let s = all.iter().find(|s| s.parent_id.is_none()).unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = export(&catalog, &all, s, Mode::Complete, work.path());
    let root = work.path().join("share").join("opencode");
    let e = restore(&path, kind, &root, work.path(), false).unwrap_err();
    assert_eq!(e.code(), "bad_target", "{e}");
    let said = e.to_string();
    assert!(
        said.contains("opencode does not exist: OpenCode keeps its sessions in a database that only OpenCode can set up")
            && said.contains("run `opencode` once"),
        "{said}"
    );
    assert!(!work.path().join("share").exists());
}

#[cfg(unix)]
#[test]
fn a_failure_part_way_leaves_nothing_behind() {
    use std::os::unix::fs::PermissionsExt;
    if !common::run_unprivileged("a_failure_part_way_leaves_nothing_behind") {
        return;
    }
    let kind = ProviderKind::Claude;
    let source = common::fixture(kind, "2.1.332").canonical();
    let (catalog, all) = listing(kind, &source);
    let s = all.iter().find(|s| s.id.starts_with("3783a6bc")).unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = export(&catalog, &all, s, Mode::Complete, work.path());
    let root = empty_store(kind, work.path());
    let dir = work.path().canonical();
    // The transcript can be created, the subagent folder cannot: a read-only side folder.
    let project = root.join("projects").join(
        agent_sessions_core::provider::claude::bundle::claude_project(&dir.to_string_lossy()),
    );
    let side = project.join(&s.id);
    std::fs::create_dir_all(&side).unwrap();
    std::fs::set_permissions(&side, std::fs::Permissions::from_mode(0o500)).unwrap();
    let before = common::snapshot(&root);
    let e = restore(&path, kind, &root, &dir, false).unwrap_err();
    std::fs::set_permissions(&side, std::fs::Permissions::from_mode(0o700)).unwrap();
    assert_eq!(e.code(), "restore_failed", "{e}");
    assert!(e.to_string().contains("nothing was left behind"), "{e}");
    assert_eq!(common::snapshot(&root), before);
    assert!(!project.join(format!("{}.jsonl", s.id)).exists());
}

#[test]
fn a_session_that_is_live_in_the_store_is_refused_as_live() {
    let kind = ProviderKind::Claude;
    let source = common::fixture(kind, "2.1.332").canonical();
    let (catalog, all) = listing(kind, &source);
    let s = all.iter().find(|s| s.id.starts_with("9d22e384")).unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = export(&catalog, &all, s, Mode::Complete, work.path());
    let root = empty_store(kind, work.path());
    let dir = work.path().canonical();
    restore(&path, kind, &root, &dir, false).unwrap();
    // A running Claude (this process stands in for it) has the restored session open.
    std::fs::create_dir_all(root.join("sessions")).unwrap();
    std::fs::write(
        root.join("sessions")
            .join(format!("{}.json", std::process::id())),
        format!(
            r#"{{"pid":{},"sessionId":"{}","status":"busy"}}"#,
            std::process::id(),
            s.id
        ),
    )
    .unwrap();
    let before = common::snapshot(&root);
    let e = restore(&path, kind, &root, &dir, false).unwrap_err();
    assert_eq!(e.code(), "session_live", "{e}");
    assert!(e.to_string().contains("close it first"), "{e}");
    assert_eq!(common::snapshot(&root), before);
}

/// A Codex state database (Codex 0.171.0's schema, no rows) in the store at `root`.
fn state_db(root: &Path) -> rusqlite::Connection {
    let source = common::fixture(ProviderKind::Codex, "0.171.0");
    let schema = source.join("state_5.sqlite.schema.sql");
    let db = rusqlite::Connection::open(root.join("state_5.sqlite")).unwrap();
    // (SQLite makes its own sqlite_sequence.)
    let schema = std::fs::read_to_string(schema).unwrap();
    db.execute_batch(&schema.replace("CREATE TABLE sqlite_sequence(name,seq);", ""))
        .unwrap();
    db
}

/// A Codex store with a state database (Codex 0.171.0's schema): a restore adds a `threads`
/// row per rollout (the directory, the path it was written to) and the subagent's edge, or, when
/// the insert is refused, rolls back and removes the files it made.
#[test]
fn a_codex_restore_lists_its_sessions_in_the_state_database_or_changes_nothing() {
    let kind = ProviderKind::Codex;
    let source = common::fixture(kind, "0.171.0").canonical();
    let (catalog, all) = listing(kind, &source);
    let parent = "01a22bc4-d63a-7983-80d0-f3d6ee14c936";
    let child = "01a22bc4-d79d-7950-b85d-e48f810553e0";
    let s = all.iter().find(|s| s.id == parent).unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = export(&catalog, &all, s, Mode::Complete, work.path());
    let root = empty_store(kind, work.path());
    let dir = work.path().canonical();
    let db = state_db(&root);
    // A row of the subagent's id without its rollout: the insert is refused part way.
    let stray = "INSERT INTO threads (id, rollout_path, created_at, updated_at, source, \
                 model_provider, cwd, title, sandbox_policy, approval_mode) \
                 VALUES (?1, '/gone.jsonl', 0, 0, 'exec', 'mock', '/x', 't', '{}', 'never')";
    db.execute(stray, [child]).unwrap();
    let before = common::snapshot(&root);
    let e = restore(&path, kind, &root, &dir, false).unwrap_err();
    assert_eq!(e.code(), "restore_failed", "{e}");
    assert!(e.to_string().contains("rolled back"), "{e}");
    assert_eq!(common::snapshot(&root), before);

    db.execute("DELETE FROM threads", []).unwrap();
    let done = restore(&path, kind, &root, &dir, false).unwrap();
    let bundle::restore::Method::Files { files } = &done.method else {
        panic!("{:?}", done.method)
    };
    let mut rows: Vec<(String, String, String, String)> = db
        .prepare("SELECT id, rollout_path, cwd, title FROM threads ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    rows.sort();
    assert_eq!(rows.len(), 2, "{rows:?}");
    for (id, rollout, cwd, title) in &rows {
        assert!(files
            .iter()
            .any(|f| f.to_string_lossy() == *rollout && rollout.contains(id.as_str())));
        assert_eq!(cwd, &*dir.to_string_lossy());
        assert!(!title.is_empty());
    }
    let edge: (String, String) = db
        .query_row(
            "SELECT parent_thread_id, child_thread_id FROM thread_spawn_edges",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(edge, (parent.to_owned(), child.to_owned()));
}

/// The bundle at `path` made again at `out` by someone who knows the format: `h` edits the
/// manifest and the native files' bytes (by name), and the manifest's size and SHA-256 of each
/// file are made to match, so the bundle opens as a sound one.
fn altered(path: &Path, out: &Path, h: &Hostile) {
    use sha2::{Digest, Sha256};
    use std::io::{Read, Write};
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut entries = Vec::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).unwrap();
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes).unwrap();
        entries.push((f.name().to_owned(), bytes));
    }
    let (_, manifest) = entries.iter().find(|(n, _)| n == "manifest.json").unwrap();
    let mut m: Value = serde_json::from_slice(manifest).unwrap();
    (h.manifest)(&mut m);
    let mut w = zip::ZipWriter::new(std::fs::File::create(out).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    for (name, bytes) in entries.into_iter().filter(|(n, _)| n != "manifest.json") {
        let bytes = if name.starts_with("native/") {
            (h.record)(&name, bytes)
        } else {
            bytes
        };
        let files = m["files"].as_array_mut().unwrap();
        let listed = files
            .iter_mut()
            .find(|f| f["path"] == name.as_str())
            .unwrap();
        listed["size"] = bytes.len().into();
        let sha: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        listed["sha256"] = sha.into();
        w.start_file(name.as_str(), opts).unwrap();
        w.write_all(&bytes).unwrap();
    }
    w.start_file("manifest.json", opts).unwrap();
    w.write_all(&serde_json::to_vec(&m).unwrap()).unwrap();
    w.finish().unwrap();
}

/// A bundle altered by hand: what was done, to the manifest and to the native files.
struct Hostile {
    what: &'static str,
    manifest: Box<dyn Fn(&mut Value)>,
    record: EditRecord,
}

/// A native file's bytes (by its name in the archive) → the bytes it gets.
type EditRecord = Box<dyn Fn(&str, Vec<u8>) -> Vec<u8>>;

/// Each JSON value of the native file whose name holds `file` through `edit`: the whole file
/// (OpenCode's export document) or each line (JSONL; a line that is not JSON stays as it was).
fn in_record(
    what: &'static str,
    file: &'static str,
    edit: impl Fn(&mut Value) + 'static,
) -> Hostile {
    Hostile {
        what,
        manifest: Box::new(|_| {}),
        record: Box::new(move |name, bytes| {
            if !name.contains(file) {
                return bytes;
            }
            each_value(name, bytes, &mut |v| edit(v))
        }),
    }
}

/// The native file `name`'s bytes with each JSON value through `edit`: the whole file (a JSON
/// document) or each line (JSONL; a line that is not JSON stays as it was).
fn each_value(name: &str, bytes: Vec<u8>, edit: &mut dyn FnMut(&mut Value)) -> Vec<u8> {
    let text = String::from_utf8(bytes).unwrap();
    if !name.ends_with(".jsonl") {
        let mut v: Value = serde_json::from_str(&text).unwrap();
        edit(&mut v);
        return serde_json::to_vec(&v).unwrap();
    }
    let mut out = String::new();
    for line in text.lines() {
        match serde_json::from_str::<Value>(line) {
            Ok(mut v) => {
                edit(&mut v);
                out.push_str(&v.to_string());
            }
            Err(_) => out.push_str(line),
        }
        out.push('\n');
    }
    out.into_bytes()
}

/// A store with a session in it, the directory to restore into and the bundle to alter, made
/// in the folder given.
type Setup<'a> = &'a dyn Fn(&Path) -> (PathBuf, PathBuf, PathBuf);

/// Each hostile variant of the bundle `setup` makes is refused as unsafe before anything is
/// written (each into a store of its own): the store stays byte for byte as it was. The bundle
/// as it was then restores (only what was altered is refused).
fn refused_variants(kind: ProviderKind, agents: &Agents, setup: Setup, variants: &[Hostile]) {
    let mut wrong = Vec::new();
    for h in variants {
        let work = tempfile::tempdir().unwrap();
        let (root, dir, path) = setup(work.path());
        let bad = work.path().join("altered.agent-session.zip");
        altered(&path, &bad, h);
        let before = common::snapshot(&root);
        let said = match restore_by(&bad, kind, &root, &dir, false, agents) {
            Ok(r) => format!("restored as {:?}", r.sessions),
            Err(e) if e.code() != "bundle_unsafe" => format!("{}: {e}", e.code()),
            Err(e) if !e.to_string().contains("nothing was written") => e.to_string(),
            Err(_) => String::new(),
        };
        let changed = common::snapshot(&root) != before;
        if !said.is_empty() || changed {
            wrong.push(format!("{}: {said} (store changed: {changed})", h.what));
        }
    }
    assert!(
        wrong.is_empty(),
        "{kind}: not refused:\n{}",
        wrong.join("\n")
    );
    let work = tempfile::tempdir().unwrap();
    let (root, dir, path) = setup(work.path());
    restore_by(&path, kind, &root, &dir, false, agents).unwrap();
}

const OC_PARENT: &str = "ses_dd4341096ffef285TaeIhrVhqh";
const OC_CHILD: &str = "ses_dd433f7e1ffe6XJJHdcUEG5OLP";
/// A session of the same fixture, restored first: the one a hostile record would join.
const OC_OTHER: &str = "ses_dd434d2d3ffeSwAnDCKAB0MBV0";

/// The ways a record of an OpenCode bundle can say other ids, parents or titles than its
/// manifest (each was written into the store before they were checked).
fn opencode_hostile() -> Vec<Hostile> {
    let info = |what, file, key: &'static str, value: &'static str| {
        in_record(what, file, move |d| d["info"][key] = value.into())
    };
    vec![
        info("a path-like id", OC_PARENT, "id", "../../../x"),
        info(
            "an id with a bidi override",
            OC_PARENT,
            "id",
            "ses_dd4341096ffef285Ta\u{202e}eIhrVhqh",
        ),
        info("an id with an escape", OC_PARENT, "id", "ses_x\u{1b}[2J"),
        info("an empty id", OC_PARENT, "id", ""),
        info(
            "another well-formed id",
            OC_PARENT,
            "id",
            "ses_dd4341096ffef285TaeIhrVhqX",
        ),
        info(
            "the subagent's id on the parent's record",
            OC_PARENT,
            "id",
            OC_CHILD,
        ),
        info(
            "a title with control characters",
            OC_PARENT,
            "title",
            "Listing\u{1b}]0;owned\u{7} files",
        ),
        info(
            "a title with a line break",
            OC_PARENT,
            "title",
            "Listing project files\nrm -rf ~",
        ),
        info(
            "a title the manifest does not show",
            OC_PARENT,
            "title",
            "Something else",
        ),
        info(
            "a parent outside the bundle",
            OC_PARENT,
            "parentID",
            OC_OTHER,
        ),
        info(
            "the subagent under a session of the store",
            OC_CHILD,
            "parentID",
            OC_OTHER,
        ),
        info("the subagent under no parent", OC_CHILD, "parentID", ""),
        in_record("a message of another session", OC_CHILD, |d| {
            d["messages"][0]["info"]["sessionID"] = OC_OTHER.into()
        }),
        in_record("a message id like a path", OC_CHILD, |d| {
            d["messages"][0]["info"]["id"] = "../../x".into()
        }),
        in_record("a part of another message", OC_CHILD, |d| {
            d["messages"][0]["parts"][0]["messageID"] = "msg_dd434d2d5001xxxxxxxxxxxxxx".into()
        }),
        in_record("a part id with an escape", OC_CHILD, |d| {
            d["messages"][0]["parts"][0]["id"] = "prt_\u{1b}x".into()
        }),
        Hostile {
            what: "the bundle's session a child of a session of the store",
            manifest: Box::new(|m| m["session"]["parent_id"] = OC_OTHER.into()),
            record: in_record("", OC_PARENT, |d| d["info"]["parentID"] = OC_OTHER.into()).record,
        },
    ]
}

/// A store of `kind` in `work` holding the session `other` of the fixture `version` (restored
/// with `agents`, after `prepare` readied the empty store), the directory to restore into, and
/// a bundle of the fixture's session `main`.
fn setup_with(
    (kind, version): (ProviderKind, &str),
    (other, main): (&str, &str),
    agents: &Agents,
    prepare: fn(&Path),
    work: &Path,
) -> (PathBuf, PathBuf, PathBuf) {
    let source = common::fixture(kind, version).canonical();
    let (catalog, all) = listing(kind, &source);
    let find = |id: &str| all.iter().find(|s| s.id == id).unwrap();
    let root = empty_store(kind, work);
    prepare(&root);
    let dir = work.canonical();
    let other = export(&catalog, &all, find(other), Mode::Complete, work);
    restore_by(&other, kind, &root, &dir, false, agents).unwrap();
    let path = export(&catalog, &all, find(main), Mode::Complete, work);
    (root, dir, path)
}

/// An OpenCode store (1.18.33) holding one session, and a bundle of another with its subagent.
fn opencode_setup(work: &Path, agents: &Agents) -> (PathBuf, PathBuf, PathBuf) {
    let fixture = (ProviderKind::Opencode, "1.18.33");
    setup_with(fixture, (OC_OTHER, OC_PARENT), agents, |_| {}, work)
}

/// Finding 4 of issue 29: the rows written came from the records, not from the checked
/// manifest, so a record could put a path-like, empty or escape-laden id, a title with control
/// characters, or a parent outside the bundle into `opencode.db`.
#[test]
fn opencode_records_that_disagree_with_the_manifest_are_refused_with_nothing_written() {
    let agents = Agents::default();
    let setup = |work: &Path| opencode_setup(work, &agents);
    refused_variants(ProviderKind::Opencode, &agents, &setup, &opencode_hostile());
}

const CX_PARENT: &str = "01a22bc4-d63a-7983-80d0-f3d6ee14c936";
const CX_CHILD: &str = "01a22bc4-d79d-7950-b85d-e48f810553e0";
const CX_OTHER: &str = "01a22bc4-cb24-7030-8af9-1f6d53970528";

/// `edit` on the `session_meta` payload of the rollout whose name holds `file`.
fn session_meta(
    what: &'static str,
    file: &'static str,
    edit: impl Fn(&mut Value) + 'static,
) -> Hostile {
    in_record(what, file, move |r| {
        if r["type"] == "session_meta" {
            edit(&mut r["payload"])
        }
    })
}

/// Finding 4 of issue 29 for Codex: the `threads` row (and the subagent's edge) took the id
/// and the parent `session_meta` says, so a rollout could list a session under a path-like or
/// another id, or put an edge under a thread of the store.
#[test]
fn codex_rollouts_that_disagree_with_the_manifest_are_refused_with_nothing_written() {
    let kind = ProviderKind::Codex;
    let setup = |work: &Path| {
        let state = |root: &Path| drop(state_db(root));
        let ids = (CX_OTHER, CX_PARENT);
        setup_with((kind, "0.171.0"), ids, &Agents::default(), state, work)
    };
    let id =
        |what, file, value: &'static str| session_meta(what, file, move |m| m["id"] = value.into());
    let variants = vec![
        id("a path-like id", CX_PARENT, "../../x"),
        id(
            "an id with a bidi override",
            CX_PARENT,
            "01a22bc4-d63a-7983-80d0-f3d6ee14c93\u{202e}6",
        ),
        id(
            "another well-formed id",
            CX_PARENT,
            "01a22bc4-d63a-7983-80d0-f3d6ee14c937",
        ),
        id("the id of a session of the store", CX_PARENT, CX_OTHER),
        session_meta("the subagent under a thread of the store", CX_CHILD, |m| {
            m["parent_thread_id"] = CX_OTHER.into();
            m["source"]["subagent"]["thread_spawn"]["parent_thread_id"] = CX_OTHER.into();
        }),
        session_meta("the session under a thread of the store", CX_PARENT, |m| {
            m["parent_thread_id"] = CX_OTHER.into()
        }),
        session_meta("the subagent in another session", CX_CHILD, |m| {
            m["session_id"] = CX_OTHER.into()
        }),
    ];
    refused_variants(kind, &Agents::default(), &setup, &variants);
}

const CL_MAIN: &str = "3783a6bc-cd8d-4c58-9da5-ce5411d3487a";
const CL_OTHER: &str = "9d22e384-6685-4b75-ac35-088162e4c4a9";

/// `sessionId` of every line of the Claude transcript whose name holds `file` that has one.
fn session_id_of_lines(what: &'static str, file: &'static str, value: &'static str) -> Hostile {
    in_record(what, file, move |r| {
        if r.get("sessionId").is_some() {
            r["sessionId"] = value.into()
        }
    })
}

/// Claude's transcripts are restored as files named by the manifest's ids; their lines name the
/// session too (`sessionId`), and Claude Code reads them: a line may not name another one.
#[test]
fn claude_transcripts_whose_lines_name_another_session_are_refused_with_nothing_written() {
    let kind = ProviderKind::Claude;
    let setup = |work: &Path| {
        let ids = (CL_OTHER, CL_MAIN);
        setup_with((kind, "2.1.332"), ids, &Agents::default(), |_| {}, work)
    };
    let main = "3783a6bc-cd8d-4c58-9da5-ce5411d3487a.jsonl";
    let variants = vec![
        session_id_of_lines("lines of a session of the store", main, CL_OTHER),
        session_id_of_lines("a path-like session id", main, "../../x"),
        session_id_of_lines("an empty session id", main, ""),
        session_id_of_lines(
            "a subagent's lines of another session",
            "agent-ab351964a1d85ae3b.jsonl",
            CL_OTHER,
        ),
        Hostile {
            what: "the bundle's session a child of a session of the store",
            manifest: Box::new(|m| m["session"]["parent_id"] = CL_OTHER.into()),
            record: Box::new(|_, b| b),
        },
    ];
    refused_variants(kind, &Agents::default(), &setup, &variants);
}

/// A stand-in for OpenCode 1.18.33's `opencode import FILE` (python3), doing what its source
/// does: the session row under the document's own `info.id`, then each message and part, each
/// insert doing nothing on a conflict; `--help` lists `import`. With `refuse_children`, it
/// refuses a document with a parent after writing its session row, as the real one refuses
/// messages it cannot read after writing the session. The folder holding it and the agents
/// with it as OpenCode; `None` without python3.
#[cfg(unix)]
fn stand_in_opencode(refuse_children: bool) -> Option<(tempfile::TempDir, Agents)> {
    use std::os::unix::fs::PermissionsExt;
    let python = std::process::Command::new("python3")
        .arg("-c")
        .arg("import sqlite3")
        .output();
    if !python.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: no python3 with sqlite3 for the stand-in OpenCode");
        return None;
    }
    let script = r#"#!/usr/bin/env python3
import json, os, sqlite3, sys, time
if sys.argv[1:] == ["--help"]:
    print("Commands:\n  opencode import <file>  import session data from JSON file or URL")
    sys.exit(0)
assert sys.argv[1] == "import"
doc = json.load(open(sys.argv[2]))
info = doc["info"]
db = sqlite3.connect(os.path.join(os.environ["XDG_DATA_HOME"], "opencode", "opencode.db"))
now = int(time.time() * 1000)
db.execute("INSERT OR IGNORE INTO project (id, worktree, sandboxes, time_created, time_updated) VALUES ('global', '/', '[]', ?, ?)", (now, now))
t = info.get("time", {})
db.execute(
    "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) "
    "VALUES (?, 'global', ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    (info["id"], info.get("parentID"), info.get("slug", ""), info.get("directory", ""), info.get("title", ""),
     info.get("version", ""), t.get("created", now), t.get("updated", now)))
db.commit()
if REFUSE and info.get("parentID"):
    print("Error: the messages do not match the schema", file=sys.stderr)
    sys.exit(1)
for m in doc["messages"]:
    mi = m["info"]
    created = mi.get("time", {}).get("created", now)
    db.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
               (mi["id"], info["id"], created, created, json.dumps(mi)))
    for p in m["parts"]:
        db.execute("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                   (p["id"], mi["id"], info["id"], created, created, json.dumps(p)))
db.commit()
print("Imported session: " + info["id"])
"#;
    let script = script.replace("REFUSE", if refuse_children { "True" } else { "False" });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opencode");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let agents = Agents::default().with(ProviderKind::Opencode, path);
    Some((dir, agents))
}

/// The same hostile records through OpenCode's own import (a stand-in doing what its source
/// does): refused before the import runs. (It imported the record's id, then said it was not
/// in the store, and the undo deleted the manifest's id: the imported session stayed.)
#[cfg(unix)]
#[test]
fn opencode_records_that_disagree_with_the_manifest_never_reach_opencode_import() {
    let Some((_bin, agents)) = stand_in_opencode(false) else {
        return;
    };
    let setup = |work: &Path| {
        let set = opencode_setup(work, &agents);
        let (_, sessions) = listing(ProviderKind::Opencode, &set.0);
        assert!(
            sessions.iter().any(|s| s.id == OC_OTHER),
            "the stand-in imported"
        );
        set
    };
    let b = Bundle::open(&setup(tempfile::tempdir().unwrap().path()).2).unwrap();
    assert_eq!(b.manifest.source.tool_version.as_deref(), Some("1.18.33"));
    refused_variants(ProviderKind::Opencode, &agents, &setup, &opencode_hostile());
}

/// Every row of OpenCode's tables a session has (session, message, part), sorted.
fn opencode_rows(root: &Path) -> Vec<String> {
    let db = rusqlite::Connection::open(root.join("opencode.db")).unwrap();
    let mut out = Vec::new();
    for (table, key) in [
        ("session", "id"),
        ("message", "session_id"),
        ("part", "session_id"),
    ] {
        let sql = format!("SELECT id, {key} FROM {table}");
        let mut stmt = db.prepare(&sql).unwrap();
        let rows = stmt.query_map([], |r| {
            Ok(format!(
                "{table} {} {}",
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?
            ))
        });
        out.extend(rows.unwrap().map(Result::unwrap));
    }
    out.sort();
    out
}

/// An `opencode import` refused part way (the subagent's, after the parent's went in and the
/// subagent's session row was written): every row it imported is deleted again.
#[cfg(unix)]
#[test]
fn a_refused_opencode_import_is_undone_row_for_row() {
    let Some((_bin, agents)) = stand_in_opencode(true) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let (root, dir, path) = opencode_setup(work.path(), &agents);
    let before = opencode_rows(&root);
    assert!(!before.is_empty());
    let e = restore_by(&path, ProviderKind::Opencode, &root, &dir, false, &agents).unwrap_err();
    assert_eq!(e.code(), "restore_failed", "{e}");
    assert!(e.to_string().contains("nothing was changed"), "{e}");
    assert_eq!(opencode_rows(&root), before);
}

/// A Gemini CLI restore writes the `.project_root` markers Gemini writes for the directory's
/// slug folder (the preview lists them with the records), so the session lists with its
/// directory; when a marker cannot be created, the records and markers made before it are
/// removed again and the store is as it was.
#[test]
fn a_gemini_restore_writes_its_project_markers_or_leaves_nothing_behind() {
    let kind = ProviderKind::Gemini;
    let source = common::fixture(kind, "0.61.0").canonical();
    let (catalog, all) = listing(kind, &source);
    let s = all.iter().find(|s| s.id.starts_with("7d53c23b")).unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = export(&catalog, &all, s, Mode::Complete, work.path());
    let dir = work.path().join("My Project");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonical();
    // As Gemini CLI writes a directory in its markers (`normalizePath`): lower-cased on Windows.
    let dir_text = if cfg!(windows) {
        dir.to_string_lossy().to_lowercase()
    } else {
        dir.to_string_lossy().into_owned()
    };

    let root = empty_store(kind, &work.path().join("ok"));
    let done = restore(&path, kind, &root, &dir, false).unwrap();
    let bundle::restore::Method::Files { files } = &done.method else {
        panic!("{:?}", done.method);
    };
    for base in ["tmp", "history"] {
        let marker = root.join(base).join("my-project/.project_root");
        assert_eq!(std::fs::read_to_string(&marker).unwrap(), dir_text);
        assert!(files.contains(&marker), "{files:?}");
    }
    let (_, listed) = listing(kind, &root);
    let restored = listed.iter().find(|l| l.id == s.id).unwrap();
    assert!(restored
        .source_path
        .starts_with(root.join("tmp/my-project/chats")));
    assert_eq!(restored.cwd.as_deref(), Some(dir_text.as_str()));

    // `history/my-project` is a file: its marker cannot be made, after the records were.
    let root = empty_store(kind, &work.path().join("failing"));
    std::fs::create_dir_all(root.join("history")).unwrap();
    std::fs::write(root.join("history/my-project"), "not a folder").unwrap();
    let before = common::snapshot(&root);
    let e = restore(&path, kind, &root, &dir, false).unwrap_err();
    assert_eq!(e.code(), "restore_failed", "{e}");
    assert!(e.to_string().contains("nothing was left behind"), "{e}");
    assert_eq!(common::snapshot(&root), before);
}

const AIDER_HISTORY: &str = ".aider.chat.history.md";

/// The bytes of the bundle's one native file (an Aider run).
fn native_bytes(bundle: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(std::fs::File::open(bundle).unwrap()).unwrap();
    let name = (0..zip.len())
        .map(|i| zip.by_index(i).unwrap().name().to_owned())
        .find(|n| n.starts_with("native/"))
        .unwrap();
    let mut bytes = Vec::new();
    zip.by_name(&name).unwrap().read_to_end(&mut bytes).unwrap();
    bytes
}

/// An Aider run restored into a directory without a history: the file made is a blank line
/// and the run (as Aider starts a run), the list shows the run under the id the restore
/// named, with its counts, title and model, in the new directory; the same bundle again is
/// refused with the file as it was. The store root given is not written to (Aider has none).
fn aider_round_trip(
    done: Result<bundle::Restored, Error>,
    path: &Path,
    s: &SessionMeta,
    root: &Path,
    dir: &Path,
    what: &str,
) {
    let done = done.unwrap_or_else(|e| panic!("{what}: {e}"));
    let history = dir.join(AIDER_HISTORY);
    let written = std::fs::read(&history).unwrap();
    assert_eq!(
        written,
        [&b"\n"[..], &native_bytes(path)].concat(),
        "{what}"
    );
    assert_eq!(std::fs::read_dir(root).unwrap().count(), 0, "{what}");
    let (_, now) = listing(ProviderKind::Aider, dir);
    assert_eq!(now.len(), 1, "{what}: {now:?}");
    let r = &now[0];
    assert_eq!(r.id, done.session_id, "{what}: the id the restore names");
    assert_eq!(done.sessions, vec![(s.id.clone(), r.id.clone())], "{what}");
    assert_eq!(
        (r.counts, &r.title, &r.model),
        (s.counts, &s.title, &s.model),
        "{what}"
    );
    assert_eq!(r.cwd.as_deref(), dir.to_str(), "{what}");
    let again = restore(path, ProviderKind::Aider, root, dir, false).unwrap_err();
    assert_eq!(again.code(), "session_exists", "{what}: {again}");
    assert_eq!(std::fs::read(&history).unwrap(), written, "{what}");
}

/// The fixture's run with non-ASCII text, bundled into `work`; with the fixture's listing.
fn aider_bundle(work: &Path) -> (PathBuf, SessionMeta) {
    let source = common::fixture(ProviderKind::Aider, "0.86.2").canonical();
    let (catalog, all) = listing(ProviderKind::Aider, &source);
    let s = all
        .iter()
        .find(|s| s.id == "aider-4af21869db5e7876")
        .unwrap();
    (export(&catalog, &all, s, Mode::Complete, work), s.clone())
}

/// A directory holding a copy of the fixture's `demo` history (several runs).
fn aider_project(work: &Path) -> (PathBuf, Vec<u8>) {
    let dir = work.join("project");
    std::fs::create_dir_all(&dir).unwrap();
    let demo = common::fixture(ProviderKind::Aider, "0.86.2").join("demo");
    let before = std::fs::read(demo.join(AIDER_HISTORY)).unwrap();
    std::fs::write(dir.join(AIDER_HISTORY), &before).unwrap();
    (dir.canonical(), before)
}

#[test]
fn an_aider_run_is_appended_to_a_history_keeping_its_other_runs_byte_for_byte() {
    let work = tempfile::tempdir().unwrap();
    let (path, s) = aider_bundle(work.path());
    let (dir, before) = aider_project(work.path());
    let (_, was) = listing(ProviderKind::Aider, &dir);
    assert!(was.len() >= 2, "{was:?}");
    let done = restore(&path, ProviderKind::Aider, &dir, &dir, false).unwrap();
    let after = std::fs::read(dir.join(AIDER_HISTORY)).unwrap();
    assert_eq!(
        after,
        [&before[..], b"\n", &native_bytes(&path)].concat(),
        "the earlier bytes, a blank line, the run"
    );
    let (_, now) = listing(ProviderKind::Aider, &dir);
    assert_eq!(now.len(), was.len() + 1);
    for w in &was {
        let n = now.iter().find(|n| n.id == w.id).unwrap();
        assert_eq!((n.counts, &n.title), (w.counts, &w.title), "{}", w.id);
    }
    let new = now.iter().find(|n| n.id == done.session_id).unwrap();
    assert_eq!((new.counts, &new.title), (s.counts, &s.title));
    assert!(matches!(
        done.method,
        bundle::restore::Method::Append { from_len, .. } if from_len == before.len() as u64
    ));
}

#[test]
fn an_aider_history_grown_since_the_preview_is_refused_and_left_as_it_is() {
    let work = tempfile::tempdir().unwrap();
    let (path, _) = aider_bundle(work.path());
    let (dir, _) = aider_project(work.path());
    let tokens = Tokens::new();
    let (catalog, sessions) = listing(ProviderKind::Aider, &dir);
    let target = Target {
        root: dir.clone(),
        dir: dir.clone(),
        as_copy: false,
    };
    let b = Bundle::open(&path).unwrap();
    let agents = Agents::default();
    let p = bundle::preview(&b, &catalog, &sessions, &target, &agents, &tokens).unwrap();
    assert!(
        p.notes
            .iter()
            .any(|n| n.starts_with("append ") && n.contains(AIDER_HISTORY)),
        "{:?}",
        p.notes
    );
    // Aider writes to the history meanwhile.
    let history = dir.join(AIDER_HISTORY);
    let mut grown = std::fs::read(&history).unwrap();
    grown.extend_from_slice(b"#### one more prompt\n");
    std::fs::write(&history, &grown).unwrap();
    let e = bundle::restore(
        &path, &catalog, &sessions, &target, &agents, &tokens, &p.token,
    )
    .unwrap_err();
    assert_eq!(e.code(), "restore_token", "{e}");
    assert!(e.to_string().contains("target changed"), "{e}");
    assert_eq!(std::fs::read(&history).unwrap(), grown);
}

#[test]
fn aider_runs_that_are_not_one_run_or_a_history_that_is_a_link_are_refused_unwritten() {
    let work = tempfile::tempdir().unwrap();
    let (path, _) = aider_bundle(work.path());
    let variants = [
        Hostile {
            what: "a second run inside the record",
            manifest: Box::new(|_| {}),
            record: Box::new(|_, mut bytes| {
                bytes.extend_from_slice(b"\n# aider chat started at 2026-12-06 15:00:00\n");
                bytes
            }),
        },
        Hostile {
            what: "a record without its header",
            manifest: Box::new(|_| {}),
            record: Box::new(|_, bytes| [&b"#### hello\n"[..], &bytes].concat()),
        },
    ];
    let setup = |w: &Path| {
        let (dir, _) = aider_project(w);
        let copy = w.join("b.agent-session.zip");
        std::fs::copy(&path, &copy).unwrap();
        (dir.clone(), dir, copy)
    };
    refused_variants(ProviderKind::Aider, &Agents::default(), &setup, &variants);
    // A history that is a link elsewhere is not followed.
    let dir = work.path().join("linked");
    std::fs::create_dir_all(&dir).unwrap();
    let elsewhere = work.path().join("elsewhere.md");
    std::fs::write(&elsewhere, b"kept\n").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&elsewhere, dir.join(AIDER_HISTORY)).unwrap();
        let e = restore(&path, ProviderKind::Aider, &dir, &dir, false).unwrap_err();
        assert_eq!(e.code(), "bad_target", "{e}");
        assert_eq!(std::fs::read(&elsewhere).unwrap(), b"kept\n");
    }
}

#[test]
fn an_aider_run_is_not_appended_to_a_history_aider_is_writing_nor_as_a_copy() {
    let work = tempfile::tempdir().unwrap();
    let (path, _) = aider_bundle(work.path());
    let (dir, before) = aider_project(work.path());
    let (catalog, mut sessions) = listing(ProviderKind::Aider, &dir);
    // Aider runs in the directory: the history's last run is live.
    sessions.last_mut().unwrap().live = true;
    let target = Target {
        root: dir.clone(),
        dir: dir.clone(),
        as_copy: false,
    };
    let (b, agents, tokens) = (
        Bundle::open(&path).unwrap(),
        Agents::default(),
        Tokens::new(),
    );
    let e = bundle::preview(&b, &catalog, &sessions, &target, &agents, &tokens).unwrap_err();
    assert_eq!(e.code(), "session_live", "{e}");
    let as_copy = Target {
        as_copy: true,
        ..target
    };
    let e = restore(&path, ProviderKind::Aider, &dir, &dir, true).unwrap_err();
    assert_eq!(e.code(), "unsupported", "{e}");
    let e = bundle::preview(&b, &catalog, &[], &as_copy, &agents, &tokens).unwrap_err();
    assert!(e.to_string().contains("never as a copy"), "{e}");
    assert_eq!(std::fs::read(dir.join(AIDER_HISTORY)).unwrap(), before);
}

/// A complete bundle of the fixture session `id` (`kind` at `version`), in a new folder:
/// (the folder, the bundle, the session as listed).
fn bundled(
    kind: ProviderKind,
    version: &str,
    id: &str,
) -> (tempfile::TempDir, PathBuf, SessionMeta) {
    let source = common::fixture(kind, version).canonical();
    let (catalog, all) = listing(kind, &source);
    let s = all.iter().find(|s| s.id == id).unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = export(&catalog, &all, s, Mode::Complete, work.path());
    (work, path, s.clone())
}

/// A directory whose name needs escaping in JSON (`"`, and `\\`, which every Windows path
/// holds) goes into Cline 2.x's requests, which are JSON inside a JSON string
/// (`api_req_started`): it is encoded for that inner level, the request stays JSON, and the
/// task is listed in its new directory (it was listed in none: its request no longer parsed).
#[test]
fn a_cline_2_request_keeps_its_json_whatever_the_directory_holds() {
    let kind = ProviderKind::Cline;
    let id = "1796568459073";
    let (work, path, _) = bundled(kind, "2.18.0", id);
    let name = if cfg!(windows) {
        "odd 'dir' x"
    } else {
        "odd \"dir\" \\ x"
    };
    let dir = work.path().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonical();
    let root = empty_store(kind, &work.path().join("store"));
    restore(&path, kind, &root, &dir, false).unwrap();
    let messages = root.join("data/tasks").join(id).join("ui_messages.json");
    let messages: Vec<Value> = serde_json::from_slice(&std::fs::read(messages).unwrap()).unwrap();
    let requests: Vec<Value> = messages
        .iter()
        .filter(|m| m["say"] == "api_req_started")
        .map(|m| serde_json::from_str(m["text"].as_str().unwrap()).unwrap())
        .collect();
    assert!(!requests.is_empty());
    let marker = format!("# Current Working Directory ({}) Files", dir.display());
    assert!(
        requests
            .iter()
            .any(|r| r["request"].as_str().unwrap().contains(&marker)),
        "{requests:?}"
    );
    let (_, listed) = listing(kind, &root);
    let restored = listed.iter().find(|l| l.id == id).unwrap();
    assert_eq!(restored.cwd.as_deref(), dir.to_str());
}

/// An empty Cline 3.x store with `data/db/sessions.db` of 3.0.65's schema (no rows), as Cline
/// leaves it once it has run: (root, the database).
fn cline_store(within: &Path) -> (PathBuf, PathBuf) {
    let fixture = common::fixture(ProviderKind::Cline, "3.0.65").join("data/db");
    // The fixture's database is read from a copy (with its WAL), never in place.
    let copy = within.join("fixture-db");
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["sessions.db", "sessions.db-wal", "sessions.db-shm"] {
        std::fs::copy(fixture.join(f), copy.join(f)).unwrap();
    }
    let from = rusqlite::Connection::open(copy.join("sessions.db")).unwrap();
    let schema: Vec<String> = from
        .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'sessions'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let root = empty_store(ProviderKind::Cline, within);
    let db = root.join("data/db/sessions.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(&schema.join(";\n"))
        .unwrap();
    (root, db)
}

/// (session_id, parent_session_id, cwd, messages_path, metadata_json) of every row.
type ClineRow = (String, Option<String>, String, String, String);

fn cline_rows(db: &Path) -> Vec<ClineRow> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT session_id, parent_session_id, cwd, messages_path, metadata_json \
             FROM sessions ORDER BY session_id",
        )
        .unwrap();
    let rows = stmt.query_map([], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    });
    rows.unwrap().map(Result::unwrap).collect()
}

/// A Cline 3.x restore gives the session and its subagent their `sessions.db` rows (the new
/// directory, the restored messages files, the session's metadata as it was) and rewrites the
/// `messages_path` Cline resumes from; a row of the subagent's id there already makes the
/// whole restore roll back, leaving the store as it was.
#[test]
fn a_cline_3_restore_lists_the_session_and_its_subagent_in_sessions_db_or_changes_nothing() {
    let kind = ProviderKind::Cline;
    let parent = "1796568635963_quxl9";
    let child = "1796568635963_quxl9__agent_1796568636237_3o8jsw";
    let (work, path, _) = bundled(kind, "3.0.65", parent);
    let (root, db) = cline_store(work.path());
    let dir = work.path().canonical();
    let dir_text = dir.to_string_lossy().into_owned();

    let stray = "INSERT INTO sessions (session_id, source, pid, started_at, status, \
                 interactive, provider, model, cwd, workspace_root, enable_tools, enable_spawn, \
                 enable_teams, hook_path, updated_at) \
                 VALUES (?1, 'cli', 1, 't', 'completed', 0, 'p', 'm', '/x', '/x', 1, 1, 1, '', 't')";
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(stray, [child]).unwrap();
    let before = common::snapshot(&root);
    let e = restore(&path, kind, &root, &dir, false).unwrap_err();
    assert_eq!(e.code(), "restore_failed", "{e}");
    assert!(e.to_string().contains("rolled back"), "{e}");
    assert_eq!(common::snapshot(&root), before);
    conn.execute("DELETE FROM sessions", []).unwrap();

    let tokens = Tokens::new();
    let (catalog_now, sessions_now) = listing(kind, &root);
    let target = Target {
        root: root.clone(),
        dir: dir.clone(),
        as_copy: false,
    };
    let preview = bundle::preview(
        &Bundle::open(&path).unwrap(),
        &catalog_now,
        &sessions_now,
        &target,
        &Agents::default(),
        &tokens,
    )
    .unwrap();
    assert_eq!(preview.state_db.as_deref(), Some(db.as_path()));
    assert!(
        preview.notes.iter().any(|n| n.contains("sessions.db")),
        "{:?}",
        preview.notes
    );

    let done = restore(&path, kind, &root, &dir, false).unwrap();
    let bundle::restore::Method::Files { files } = &done.method else {
        panic!("{:?}", done.method)
    };
    let rows = cline_rows(&db);
    let ids: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(ids, [parent, child]);
    let session_dir = root.join("data").join("sessions").join(parent);
    let own = session_dir.join(format!("{parent}.messages.json"));
    let sub = session_dir.join("agent_1796568636237_3o8jsw.messages.json");
    for (row, messages) in rows.iter().zip([&own, &sub]) {
        assert_eq!(row.2, dir_text, "cwd of {}", row.0);
        assert_eq!(
            row.3,
            messages.to_string_lossy(),
            "messages_path of {}",
            row.0
        );
        assert!(files.contains(messages), "{files:?}");
    }
    assert_eq!(rows[1].1.as_deref(), Some(parent));
    // The session's metadata is the row's as Cline wrote it (the same document).
    let original = rusqlite::Connection::open(work.path().join("fixture-db/sessions.db"))
        .unwrap()
        .query_row(
            "SELECT metadata_json FROM sessions WHERE session_id = ?1",
            [parent],
            |r| r.get::<_, String>(0),
        )
        .unwrap();
    let parsed = |t: &str| serde_json::from_str::<Value>(t).unwrap();
    assert_eq!(parsed(&rows[0].4), parsed(&original));
    // The manifest Cline resumes from names the restored messages file, not the old store's.
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(session_dir.join(format!("{parent}.json"))).unwrap())
            .unwrap();
    assert_eq!(manifest["messages_path"], own.to_string_lossy().as_ref());
    assert_eq!(manifest["cwd"], dir_text.as_str());
}

/// A Cline 2.x (or VS Code extension) restore adds the task's entry at the end of
/// `state/taskHistory.json` (the directory restored into, the task, its tokens as Cline's own
/// entry had them), keeping the list's other bytes as they were; it makes the list when Cline
/// has not; it refuses (leaving everything as it was) a list that names the task already or
/// is a link.
#[test]
fn a_cline_2_restore_appends_the_task_to_task_history_or_changes_nothing() {
    let kind = ProviderKind::Cline;
    let id = "1796568459073";
    let (work, path, s) = bundled(kind, "2.18.0", id);
    let source = common::fixture(kind, "2.18.0");
    let dir = work.path().canonical();
    let dir_text = dir.to_string_lossy().into_owned();
    let history_of = |root: &Path| root.join("data/state/taskHistory.json");
    let theirs: Vec<Value> =
        serde_json::from_slice(&std::fs::read(source.join("data/state/taskHistory.json")).unwrap())
            .unwrap();
    let theirs = theirs.iter().find(|t| t["id"] == id).unwrap();

    // A list Cline wrote (its own spacing and key order) keeps its bytes; the entry follows.
    let root = empty_store(kind, &work.path().join("listed"));
    let other = "[ {\"ts\": 5, \"id\": \"1700000000000\", \"task\": \"other\", \"tokensIn\": 1, \"tokensOut\": 2, \"totalCost\": 0.25} ]\n";
    std::fs::create_dir_all(history_of(&root).parent().unwrap()).unwrap();
    std::fs::write(history_of(&root), other).unwrap();
    let done = restore(&path, kind, &root, &dir, false).unwrap();
    assert_eq!(done.session_id, id);
    let bytes = std::fs::read_to_string(history_of(&root)).unwrap();
    let kept = other.trim_end().strip_suffix(']').unwrap();
    assert!(bytes.starts_with(kept), "{bytes}");
    assert!(bytes.ends_with("]\n"), "{bytes}");
    let list: Vec<Value> = serde_json::from_str(&bytes).unwrap();
    assert_eq!(list.len(), 2);
    let entry = &list[1];
    assert_eq!(entry["id"], id);
    assert_eq!(entry["cwdOnTaskInitialization"], dir_text.as_str());
    for key in [
        "task",
        "tokensIn",
        "tokensOut",
        "cacheReads",
        "cacheWrites",
        "modelId",
    ] {
        assert_eq!(entry[key], theirs[key], "{key}");
    }
    let (_, listed) = listing(kind, &root);
    let restored = listed.iter().find(|l| l.id == id).unwrap();
    assert_eq!(restored.cwd.as_deref(), Some(dir_text.as_str()));
    assert_eq!(restored.title, s.title);

    // No list yet: the restore makes it, with the one entry.
    let root = empty_store(kind, &work.path().join("new"));
    restore(&path, kind, &root, &dir, false).unwrap();
    let list: Vec<Value> =
        serde_json::from_slice(&std::fs::read(history_of(&root)).unwrap()).unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["id"], id);

    // The VS Code extension's folder (its `tasks/` and `state/` without `data/`): the task
    // goes there, as the extension keeps it.
    let root = empty_store(kind, &work.path().join("extension"));
    std::fs::create_dir_all(root.join("tasks")).unwrap();
    std::fs::create_dir_all(root.join("state")).unwrap();
    std::fs::write(root.join("state/taskHistory.json"), "[]").unwrap();
    restore(&path, kind, &root, &dir, false).unwrap();
    assert!(root
        .join("tasks")
        .join(id)
        .join("ui_messages.json")
        .is_file());
    assert!(!root.join("data").exists());
    let list: Vec<Value> =
        serde_json::from_slice(&std::fs::read(root.join("state/taskHistory.json")).unwrap())
            .unwrap();
    assert_eq!(list.len(), 1);
    let (_, listed) = listing(kind, &root);
    assert!(listed.iter().any(|l| l.id == id && l.title == s.title));

    // The list names the task already (its folder gone): refused, nothing left behind.
    let root = empty_store(kind, &work.path().join("named"));
    std::fs::create_dir_all(history_of(&root).parent().unwrap()).unwrap();
    let named = format!("[{{\"id\":\"{id}\",\"ts\":1,\"task\":\"t\"}}]");
    std::fs::write(history_of(&root), &named).unwrap();
    let before = common::snapshot(&root);
    let e = restore(&path, kind, &root, &dir, false).unwrap_err();
    assert_eq!(e.code(), "restore_failed", "{e}");
    assert!(e.to_string().contains("lists the task"), "{e}");
    assert!(e.to_string().contains("nothing was left behind"), "{e}");
    assert_eq!(common::snapshot(&root), before);

    // A link for a list: refused, the link and its file as they were.
    #[cfg(unix)]
    {
        let root = empty_store(kind, &work.path().join("linked"));
        std::fs::create_dir_all(history_of(&root).parent().unwrap()).unwrap();
        let elsewhere = work.path().join("elsewhere.json");
        std::fs::write(&elsewhere, "[]").unwrap();
        std::os::unix::fs::symlink(&elsewhere, history_of(&root)).unwrap();
        let before = common::snapshot(&root);
        let e = restore(&path, kind, &root, &dir, false).unwrap_err();
        assert!(e.to_string().contains("is a link"), "{e}");
        assert_eq!(common::snapshot(&root), before);
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "[]");
    }
}

/// A Cline 3.x bundle whose records say another session, or a messages file Cline would read
/// and write on resume other than the restored one, is refused with nothing left behind,
/// whether or not Cline has made its sessions.db (Cline would trust the file either way).
#[test]
fn cline_records_naming_another_session_or_messages_file_are_refused_with_nothing_left() {
    let kind = ProviderKind::Cline;
    let parent = "1796568635963_quxl9";
    let (work, path, _) = bundled(kind, "3.0.65", parent);
    let dir = work.path().canonical();
    let manifest = format!("{parent}.json");
    let variants = [
        in_record("another messages file", "quxl9.json", |d| {
            d["messages_path"] = "/home/someone/.bashrc".into()
        }),
        in_record("another session", "quxl9.json", |d| {
            d["session_id"] = "1796568592650_62ic8".into()
        }),
        in_record("another subagent", "agent_", |d| {
            d["sessionId"] = "1796568592650_62ic8".into()
        }),
    ];
    for (n, h) in variants.iter().enumerate() {
        let bad = work.path().join(format!("altered-{n}.agent-session.zip"));
        altered(&path, &bad, h);
        for with_db in [true, false] {
            let within = work.path().join(format!("{n}-{with_db}"));
            let root = match with_db {
                true => cline_store(&within).0,
                false => empty_store(kind, &within),
            };
            let before = common::snapshot(&root);
            let e = restore(&bad, kind, &root, &dir, false).unwrap_err();
            let said = e.to_string();
            assert_eq!(e.code(), "restore_failed", "{}: {said}", h.what);
            assert!(
                said.contains("must agree with its manifest"),
                "{}: {said}",
                h.what
            );
            assert!(
                said.contains("nothing was left behind"),
                "{}: {said}",
                h.what
            );
            assert_eq!(common::snapshot(&root), before, "{}", h.what);
            assert!(!root
                .join("data/sessions")
                .join(parent)
                .join(&manifest)
                .exists());
        }
    }
}

/// Each file below `dir`, with its text (the files that are text).
fn texts(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(texts(&p));
        } else if let Ok(t) = std::fs::read_to_string(&p) {
            out.push((p, t));
        }
    }
    out
}

/// A string of a record that ends with a bundled file's own path (a prompt quoting a command
/// on the agent's transcript, a tool's argument naming it) is text, not the path Cline resumes
/// from: a restore keeps it as it was, for every agent whose records are files, instead of
/// making it the restored file's new path (which lost the words before it, or changed what a
/// tool was said to have read).
#[test]
fn a_string_ending_with_a_bundled_files_path_is_kept_as_written() {
    let cases = [
        (ProviderKind::Claude, "note", "cat /elsewhere/"),
        (ProviderKind::Claude, "file_path", "/elsewhere/"),
        (ProviderKind::Codex, "note", "cat /elsewhere/"),
        (ProviderKind::Cline, "note", "cat /elsewhere/"),
        (ProviderKind::Cline, "messages_path", "cat /elsewhere/"),
    ];
    let mut checked = 0;
    for (kind, key, said) in cases {
        for version in versions(kind) {
            let source = common::fixture(kind, &version).canonical();
            let (_, all) = listing(kind, &source);
            let Some(s) = all.iter().find(|s| s.parent_id.is_none()) else {
                continue;
            };
            let (work, path, _) = bundled(kind, &version, &s.id);
            let prefix = format!("native/{kind}/");
            let added = std::rc::Rc::new(std::cell::Cell::new(0));
            let counted = added.clone();
            let quoted = Hostile {
                what: "a string ending with a bundled file's path",
                manifest: Box::new(|_| {}),
                record: Box::new(move |name, bytes| {
                    let rel = name.strip_prefix(&prefix).unwrap();
                    let value = Value::from(format!("{said}{rel}"));
                    let mut add = |v: &mut Value| {
                        let obj = match v {
                            Value::Array(a) => a.first_mut().and_then(Value::as_object_mut),
                            v => v.as_object_mut(),
                        };
                        if let Some(o) = obj.filter(|o| !o.contains_key(key)) {
                            o.insert(key.into(), value.clone());
                            counted.set(counted.get() + 1);
                        }
                    };
                    each_value(name, bytes, &mut add)
                }),
            };
            let bad = work.path().join("quoted.agent-session.zip");
            altered(&path, &bad, &quoted);
            let root = empty_store(kind, &work.path().join("into"));
            let dir = work.path().canonical();
            restore(&bad, kind, &root, &dir, false).unwrap();
            let needle = format!("\"{key}\":\"{said}");
            let kept: usize = texts(&root)
                .iter()
                .map(|(_, t)| t.matches(&needle).count())
                .sum();
            assert!(added.get() > 0, "{kind} {version}");
            assert_eq!(kept, added.get(), "{kind} {version}: {key} rewritten");
            checked += 1;
        }
    }
    assert!(checked >= 5, "{checked}");
}

/// A Cline record that its index entry is made from but that is not the JSON Cline reads (a
/// 2.x task's `ui_messages.json`, a 3.x session's `<id>.json`: torn, or another shape) would be
/// restored without an entry, so Cline would never list it while the restore said it was
/// done: it is refused, and nothing is left behind.
#[test]
fn cline_records_the_index_cannot_be_made_from_are_refused_with_nothing_left() {
    let kind = ProviderKind::Cline;
    let torn = |_: &str, bytes: Vec<u8>| bytes[..bytes.len() / 2].to_vec();
    let cases: [(&str, &str, &str, EditRecord); 3] = [
        (
            "2.18.0",
            "1796568459073",
            "ui_messages.json",
            Box::new(torn),
        ),
        (
            "2.18.0",
            "1796568459073",
            "ui_messages.json",
            Box::new(|_, _| b"{\"not\": \"a list\"}".to_vec()),
        ),
        (
            "3.0.65",
            "1796568635963_quxl9",
            "quxl9.json",
            Box::new(torn),
        ),
    ];
    for (version, id, file, edit) in cases {
        let (work, path, _) = bundled(kind, version, id);
        let dir = work.path().canonical();
        let h = Hostile {
            what: "an unreadable record",
            manifest: Box::new(|_| {}),
            record: Box::new(move |name, bytes| match name.ends_with(file) {
                true => edit(name, bytes),
                false => bytes,
            }),
        };
        let bad = work.path().join("bad.agent-session.zip");
        altered(&path, &bad, &h);
        let root = match version {
            "3.0.65" => cline_store(&work.path().join("into")).0,
            _ => empty_store(kind, &work.path().join("into")),
        };
        let before = common::snapshot(&root);
        let e = restore(&bad, kind, &root, &dir, false).unwrap_err();
        let said = e.to_string();
        assert_eq!(e.code(), "restore_failed", "{version} {file}: {said}");
        assert!(said.contains(file), "{said}");
        assert!(said.contains("nothing was left behind"), "{said}");
        assert_eq!(common::snapshot(&root), before, "{version} {file}");
    }
}
