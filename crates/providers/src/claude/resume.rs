//! Which file `claude --resume <id>` opens. It names the session by id alone and Claude Code
//! finds the file itself, so in a store holding the session twice (a project folder copied
//! beside itself, a synced or restored store) the command of one copy would carry on the
//! other. [`which_copy`] says when that is so; the catalog then refuses the command.

use std::path::{Path, PathBuf};

use agent_sessions_model::SessionMeta;

use super::bundle::claude_project;
use crate::capability::bundle::OtherCopy;

/// `Err` when the row's file is not the one `claude --resume <id>` run in the session's
/// directory opens (naming that file). `id` is the id resumed (a subagent's parent's).
/// Nothing is refused that cannot be judged: no directory, or a file not in a
/// `projects/<folder>/` of a store.
pub fn which_copy(session: &SessionMeta, id: &str) -> Result<(), OtherCopy> {
    let Some(cwd) = session.cwd.as_deref().filter(|d| !d.is_empty()) else {
        return Ok(());
    };
    let Some((projects, folder)) = project_folder(&session.source_path) else {
        return Ok(());
    };
    let file = format!("{id}.jsonl");
    // A subagent resumes through its parent: the parent's file in the subagent's folder.
    let chosen = folder.join(&file);
    match opens(projects, cwd, &file) {
        (Some(opened), _) if same_file(&opened, &chosen) => Ok(()),
        // No file holds it: Claude Code says so itself; nothing else is carried on.
        (None, found) if found.is_empty() => Ok(()),
        (opens, found) => Err(OtherCopy {
            id: id.to_owned(),
            cwd: cwd.to_owned(),
            chosen,
            opens,
            found,
        }),
    }
}

/// The file `claude --resume` opens for `file` (`<id>.jsonl`) run in `cwd`, as Claude Code
/// 2.1.332 finds it (tried with the real binary, see the CLI's `tests/same_id.rs`): the one in
/// the directory's own project folder ([`claude_project`]) if there is one, else the only
/// one in any project folder of the store; with several elsewhere it opens none ("No
/// conversation found"). Those looked at when it has no own file come second.
fn opens(projects: &Path, cwd: &str, file: &str) -> (Option<PathBuf>, Vec<PathBuf>) {
    let own = projects.join(claude_project(cwd)).join(file);
    if own.is_file() {
        return (Some(own), Vec::new());
    }
    let found = holding(projects, file);
    let opens = match found.as_slice() {
        [only] => Some(only.clone()),
        _ => None,
    };
    (opens, found)
}

/// The store's `projects` folder and the project folder `path` is in: the nearest ancestor
/// whose parent is named `projects` (a subagent's file is deeper in it).
fn project_folder(path: &Path) -> Option<(&Path, &Path)> {
    path.ancestors().skip(1).find_map(|folder| {
        let projects = folder.parent()?;
        (projects.file_name()? == "projects").then_some((projects, folder))
    })
}

/// Every `projects/<folder>/<file>` there is, sorted.
fn holding(projects: &Path, file: &str) -> Vec<PathBuf> {
    let Ok(folders) = std::fs::read_dir(projects) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = folders
        .flatten()
        .map(|f| f.path().join(file))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found
}

/// The same file, named alike or through a symlink or `..`.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
