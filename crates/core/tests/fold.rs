//! Fold by repository with OpenCode's worktree records (SPEC §5): a directory that OpenCode
//! recorded as one of a project's worktrees (`project.sandboxes`, the `workspace` and
//! `project_directory` tables, a legacy project file's `sandboxes`) folds under the project's
//! main worktree, for every agent's sessions, even once the directory is gone from disk; and
//! a new record is seen by the next listing.

mod common;

use std::path::Path;

use agent_sessions_core::provider::ScanProgress;
use agent_sessions_core::{Catalog, ProviderKind, Roots, SessionMeta};
use common::Canonical;
use rusqlite::Connection;

/// The main worktree of the fixture's one project (OpenCode 1.18.33 and 1.0.98 alike).
const MAIN: &str = "/home/carol/projects/demo";
const WORKSPACE: &str = "/home/carol/.local/share/opencode/worktree/d4f8/brave-otter";
const SANDBOX: &str = "/home/carol/projects/demo-sandbox";
const PROJECT_DIR: &str = "/home/carol/projects/demo-checkout";
const LEGACY_SANDBOX: &str = "/home/carol/old/demo-wt";
const ELSEWHERE: &str = "/home/carol/notes";

/// A Claude session (one prompt, one answer) with this working directory.
fn claude_session(root: &Path, n: usize, cwd: &str) -> String {
    let id = format!("00000000-0000-4000-8000-{n:012}");
    let project = root.join("projects").join(format!("-p{n}"));
    std::fs::create_dir_all(&project).unwrap();
    let lines = [
        serde_json::json!({"type": "user", "uuid": format!("u{n}"), "sessionId": id, "cwd": cwd,
            "timestamp": "2026-11-30T10:00:00Z", "message": {"role": "user", "content": "hello"}}),
        serde_json::json!({"type": "assistant", "uuid": format!("a{n}"), "parentUuid": format!("u{n}"),
            "sessionId": id, "timestamp": "2026-11-30T10:00:01Z",
            "message": {"id": format!("m{n}"), "model": "claude-x", "role": "assistant",
                "content": [{"type": "text", "text": "hi"}]}}),
    ];
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(project.join(format!("{id}.jsonl")), text.join("\n") + "\n").unwrap();
    id
}

fn repo_of<'a>(sessions: &'a [SessionMeta], id: &str) -> Option<&'a str> {
    sessions
        .iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("{id} not listed"))
        .repo_root
        .as_deref()
}

#[test]
fn opencode_worktree_records_fold_every_agents_directories_under_the_project() {
    let db_store = common::fixture_copy(ProviderKind::Opencode, "1.18.33");
    let legacy_store = common::fixture_copy(ProviderKind::Opencode, "1.0.98");
    let claude = tempfile::tempdir().unwrap();
    // The worktrees OpenCode recorded for the project (none of them exists on this machine).
    let db = Connection::open(db_store.path().join("opencode.db")).unwrap();
    let project: String = db
        .query_row("SELECT id FROM project", [], |r| r.get(0))
        .unwrap();
    db.execute(
        "UPDATE project SET sandboxes = ?1",
        [serde_json::json!([SANDBOX]).to_string()],
    )
    .unwrap();
    db.execute(
        "INSERT INTO workspace (id, type, name, branch, directory, project_id, time_used) \
         VALUES ('wrk_1', 'worktree', 'brave-otter', 'opencode/brave-otter', ?1, ?2, 1)",
        [WORKSPACE, &project],
    )
    .unwrap();
    db.execute(
        "INSERT INTO project_directory (project_id, directory, time_created) VALUES (?1, ?2, 1)",
        [&project, PROJECT_DIR],
    )
    .unwrap();
    // An OpenCode session that ran in the workspace keeps its project's worktree.
    let oc_session: String = db
        .query_row(
            "SELECT id FROM session WHERE parent_id IS NULL LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    db.execute(
        "UPDATE session SET directory = ?1 WHERE id = ?2",
        [WORKSPACE, &oc_session],
    )
    .unwrap();
    drop(db);
    let legacy_project = std::fs::read_dir(legacy_store.path().join("storage/project"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&legacy_project).unwrap()).unwrap();
    json["sandboxes"] = serde_json::json!([LEGACY_SANDBOX]);
    std::fs::write(&legacy_project, json.to_string()).unwrap();

    let in_workspace = claude_session(claude.path(), 1, WORKSPACE);
    let in_sandbox_sub = claude_session(claude.path(), 2, &format!("{SANDBOX}/src/"));
    let in_project_dir = claude_session(claude.path(), 3, PROJECT_DIR);
    let in_legacy = claude_session(claude.path(), 4, LEGACY_SANDBOX);
    let elsewhere = claude_session(claude.path(), 5, ELSEWHERE);
    let later = claude_session(claude.path(), 6, "/home/carol/projects/demo-later");

    let mut roots = Roots::default();
    roots.set(ProviderKind::Claude, [claude.path()]);
    roots.set(
        ProviderKind::Opencode,
        [db_store.path(), legacy_store.path()],
    );
    let catalog = Catalog::new(&roots, &[]);
    let sessions = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    for id in [&in_workspace, &in_sandbox_sub, &in_project_dir, &in_legacy] {
        assert_eq!(repo_of(&sessions, id), Some(MAIN), "{id}");
    }
    // The directory itself stays as it is (only the folding groups it).
    let sub = sessions.iter().find(|s| s.id == in_sandbox_sub).unwrap();
    assert_eq!(sub.dir.as_deref(), Some(&*format!("{SANDBOX}/src")));
    assert_eq!(repo_of(&sessions, &elsewhere), None);
    assert_eq!(repo_of(&sessions, &later), None);
    assert_eq!(repo_of(&sessions, &oc_session), Some(MAIN));
    // Every OpenCode session of the fixtures is under the project as before.
    for s in sessions
        .iter()
        .filter(|s| s.provider == ProviderKind::Opencode)
    {
        assert_eq!(s.repo_root.as_deref(), Some(MAIN), "{}", s.id);
    }

    // A worktree recorded afterwards is seen by the next listing (the records are kept only
    // while their files are unchanged).
    let db = Connection::open(db_store.path().join("opencode.db")).unwrap();
    db.execute(
        "UPDATE project SET sandboxes = ?1",
        [serde_json::json!([SANDBOX, "/home/carol/projects/demo-later"]).to_string()],
    )
    .unwrap();
    drop(db);
    let mut again = sessions.clone();
    catalog.enrich(&mut again);
    assert_eq!(repo_of(&again, &later), Some(MAIN));
    assert_eq!(repo_of(&again, &elsewhere), None);
}

#[test]
fn a_directory_git_knows_is_placed_by_git_not_by_the_records() {
    // A recorded "worktree" that is in fact a repository of its own here: git's answer wins.
    let store = common::fixture_copy(ProviderKind::Opencode, "1.18.33");
    let repo = tempfile::tempdir().unwrap();
    let repo_dir = repo.path().canonical();
    std::fs::create_dir(repo_dir.join(".git")).unwrap();
    let db = Connection::open(store.path().join("opencode.db")).unwrap();
    db.execute(
        "UPDATE project SET sandboxes = ?1",
        [serde_json::json!([repo_dir.to_str().unwrap()]).to_string()],
    )
    .unwrap();
    drop(db);
    let claude = tempfile::tempdir().unwrap();
    let id = claude_session(claude.path(), 1, repo_dir.to_str().unwrap());
    let roots = Roots::default()
        .with(ProviderKind::Claude, [claude.path()])
        .with(ProviderKind::Opencode, [store.path()]);
    let sessions = Catalog::new(&roots, &[])
        .scan(&ScanProgress::default())
        .unwrap()
        .sessions;
    assert_eq!(repo_of(&sessions, &id), repo_dir.to_str());
}
