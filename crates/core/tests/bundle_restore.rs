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
    let root = within.join("store");
    std::fs::create_dir_all(&root).unwrap();
    if kind == ProviderKind::Opencode {
        let schema = common::fixture(kind, "1.18.33").join("opencode.db.schema.sql");
        let conn = rusqlite::Connection::open(root.join("opencode.db")).unwrap();
        conn.execute_batch(&std::fs::read_to_string(schema).unwrap())
            .unwrap();
    }
    root.canonicalize().unwrap()
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
    let tokens = Tokens::new();
    let (catalog, sessions) = listing(kind, root);
    let target = Target {
        root: root.to_path_buf(),
        dir: dir.to_path_buf(),
        as_copy,
    };
    let agents = Agents::default();
    let b = Bundle::open(path)?;
    let p = bundle::preview(&b, &catalog, &sessions, &target, &agents, &tokens)?;
    bundle::restore(
        path, &catalog, &sessions, &target, &agents, &tokens, &p.token,
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
            let source = common::fixture(kind, &version).canonicalize().unwrap();
            let (catalog, all) = listing(kind, &source);
            for s in all.iter().filter(|s| s.parent_id.is_none()) {
                let what = format!("{kind} {version} {}", s.id);
                let work = tempfile::tempdir().unwrap();
                let path = export(&catalog, &all, s, Mode::Complete, work.path());
                let root = empty_store(kind, work.path());
                let dir = work.path().join("moved here").join("project");
                std::fs::create_dir_all(&dir).unwrap();
                let dir = dir.canonicalize().unwrap();
                let done = restore(&path, kind, &root, &dir, false)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
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
        let source = common::fixture(kind, version).canonicalize().unwrap();
        let (catalog, all) = listing(kind, &source);
        let s = all.iter().find(|s| s.id == id).unwrap();
        let work = tempfile::tempdir().unwrap();
        let path = export(&catalog, &all, s, Mode::Complete, work.path());
        let root = empty_store(kind, work.path());
        let dir = work.path().canonicalize().unwrap();
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
    let source = common::fixture(kind, "0.171.0").canonicalize().unwrap();
    let (catalog, all) = listing(kind, &source);
    let s = all.iter().find(|s| s.parent_id.is_none()).unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = export(&catalog, &all, s, Mode::Complete, work.path());
    let root = empty_store(kind, work.path());
    let dir = work.path().canonicalize().unwrap();
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
    let source = common::fixture(kind, "2.1.332").canonicalize().unwrap();
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
    // A store or a directory that does not exist says so and what to do (it said "cannot be
    // used: No such file or directory (os error 2)").
    let e = restore(
        &path,
        kind,
        &work.path().join("no-store"),
        work.path(),
        false,
    )
    .unwrap_err();
    assert_eq!(e.code(), "bad_target", "{e}");
    let said = e.to_string();
    assert!(
        said.contains(
            "no-store does not exist: Claude Code makes it when it first runs here: run it once"
        ),
        "{said}"
    );
    let e = restore(&path, kind, &root, &work.path().join("missing"), false).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("missing does not exist: create it first, or choose another"),
        "{e}"
    );
    // OpenCode sessions are never copies.
    let oc = ProviderKind::Opencode;
    let oc_source = common::fixture(oc, "1.18.33").canonicalize().unwrap();
    let (oc_cat, oc_all) = listing(oc, &oc_source);
    let oc_s = oc_all.iter().find(|s| s.parent_id.is_none()).unwrap();
    let oc_path = export(&oc_cat, &oc_all, oc_s, Mode::Complete, work.path());
    let oc_root = empty_store(oc, &work.path().join("oc"));
    let e = restore(&oc_path, oc, &oc_root, work.path(), true).unwrap_err();
    assert_eq!(e.code(), "unsupported", "{e}");
}

#[cfg(unix)]
#[test]
fn a_failure_part_way_leaves_nothing_behind() {
    use std::os::unix::fs::PermissionsExt;
    if !common::run_unprivileged("a_failure_part_way_leaves_nothing_behind") {
        return;
    }
    let kind = ProviderKind::Claude;
    let source = common::fixture(kind, "2.1.332").canonicalize().unwrap();
    let (catalog, all) = listing(kind, &source);
    let s = all.iter().find(|s| s.id.starts_with("3783a6bc")).unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = export(&catalog, &all, s, Mode::Complete, work.path());
    let root = empty_store(kind, work.path());
    let dir = work.path().canonicalize().unwrap();
    // The transcript can be created, the subagent folder cannot: a read-only side folder.
    let project = root
        .join("projects")
        .join(bundle::claude_project(&dir.to_string_lossy()));
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
    let source = common::fixture(kind, "2.1.332").canonicalize().unwrap();
    let (catalog, all) = listing(kind, &source);
    let s = all.iter().find(|s| s.id.starts_with("9d22e384")).unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = export(&catalog, &all, s, Mode::Complete, work.path());
    let root = empty_store(kind, work.path());
    let dir = work.path().canonicalize().unwrap();
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

/// A Codex store with a state database (Codex 0.171.0's schema): a restore adds a `threads`
/// row per rollout (the directory, the path it was written to) and the subagent's edge, or, when
/// the insert is refused, rolls back and removes the files it made.
#[test]
fn a_codex_restore_lists_its_sessions_in_the_state_database_or_changes_nothing() {
    let kind = ProviderKind::Codex;
    let source = common::fixture(kind, "0.171.0").canonicalize().unwrap();
    let (catalog, all) = listing(kind, &source);
    let parent = "01a22bc4-d63a-7983-80d0-f3d6ee14c936";
    let child = "01a22bc4-d79d-7950-b85d-e48f810553e0";
    let s = all.iter().find(|s| s.id == parent).unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = export(&catalog, &all, s, Mode::Complete, work.path());
    let root = empty_store(kind, work.path());
    let dir = work.path().canonicalize().unwrap();
    let schema = source.join("state_5.sqlite.schema.sql");
    let db = rusqlite::Connection::open(root.join("state_5.sqlite")).unwrap();
    // (SQLite makes its own sqlite_sequence.)
    let schema = std::fs::read_to_string(schema).unwrap();
    db.execute_batch(&schema.replace("CREATE TABLE sqlite_sequence(name,seq);", ""))
        .unwrap();
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
