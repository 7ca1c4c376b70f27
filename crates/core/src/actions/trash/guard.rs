//! The one check every plan passes, whatever its agent, when it is made and again just before
//! it runs: the planners build paths from names and ids read in the store (a file name, a
//! session's id, a message's id), and a store can hold a file named `..jsonl` or a session whose
//! id is `../x`. So before anything is planned on a session its id must have its agent's shape,
//! and every path of every step must be a plain entry below a root of that agent: every name on
//! the way is a name (never `.`, `..`, empty), no folder on the way is a link (a move or a
//! rename through it would act where the link points), and what moves is never a root or one
//! of a root's own folders (`projects/`, `storage/`).

use std::path::{Path, PathBuf};

use super::{Cut, Step, Target, TrashError};
use crate::provider::capability::trash::{is_plain, is_separator};
use crate::provider::ids;

/// Refuses a session whose id has not its agent's shape (a Claude subagent's is `agent-…`).
pub(super) fn check_id(target: &Target) -> Result<(), TrashError> {
    if ids::is_session_id(target.provider, &target.id, true) {
        return Ok(());
    }
    Err(TrashError::InvalidId {
        provider: target.provider,
        id: target.id.clone(),
        file: target.source_path.clone(),
    })
}

/// Checks every path of every step against `roots` (the agent's store roots); a file cut in
/// part must be one of `files`, the plan's sessions' own files.
pub(super) fn check_steps(
    roots: &[PathBuf],
    files: &[&Path],
    steps: &[Step],
) -> Result<(), TrashError> {
    for step in steps {
        match step {
            Step::OsTrash { items } => {
                for i in items {
                    check_path(roots, &i.path, Reach::Moved)?;
                }
            }
            Step::Agent { removes, .. } => {
                for p in removes {
                    check_path(roots, p, Reach::Moved)?;
                }
            }
            Step::Archive { moves, db } => {
                for m in moves {
                    check_path(roots, &m.from, Reach::Moved)?;
                    check_path(roots, &m.to, Reach::Moved)?;
                }
                if let Some(db) = db {
                    check_path(roots, db, Reach::Written)?;
                }
            }
            Step::DeleteRows { db, .. } => check_path(roots, db, Reach::Written)?,
            Step::Cut(c) => check_cut(roots, files, c)?,
        }
    }
    Ok(())
}

/// A cut acts on a listed session's own file, written in place (never through a link: the
/// rename would replace the link, not what it points to), and keeps the cut bytes beside it.
fn check_cut(roots: &[PathBuf], files: &[&Path], c: &Cut) -> Result<(), TrashError> {
    let refuse = |path: &Path, why: &str| TrashError::UnsafePath {
        path: path.to_path_buf(),
        why: why.to_owned(),
    };
    if !files.contains(&c.file.as_path()) {
        return Err(refuse(
            &c.file,
            "is not the file of a session the plan is for",
        ));
    }
    check_path(roots, &c.file, Reach::Written)?;
    if std::fs::symlink_metadata(&c.file).is_ok_and(|m| !m.is_file()) {
        return Err(refuse(&c.file, "is not a plain file (a link or a folder)"));
    }
    if let Some(keep) = &c.keep_as {
        check_path(roots, keep, Reach::Written)?;
        if keep.parent() != c.file.parent() || keep == &c.file {
            return Err(refuse(keep, "is not a new file beside the file cut"));
        }
    }
    Ok(())
}

/// What a step does to a path.
#[derive(Clone, Copy, PartialEq)]
enum Reach {
    /// Moved or removed: never a root's own folder, so at least two names below the root.
    Moved,
    /// Written in place (a database): at least one name below the root.
    Written,
}

fn check_path(roots: &[PathBuf], path: &Path, reach: Reach) -> Result<(), TrashError> {
    let refuse = |why: String| TrashError::UnsafePath {
        path: path.to_path_buf(),
        why,
    };
    let Some((root, names)) = roots
        .iter()
        .find_map(|r| names_below(r, path).map(|n| (r, n)))
    else {
        return Err(refuse("is not inside a store this program reads".into()));
    };
    if let Some(bad) = names.iter().find(|n| !is_plain(n)) {
        let bad = String::from_utf8_lossy(bad);
        return Err(refuse(format!(
            "has {bad:?} in it, which is not a file or folder name"
        )));
    }
    // Plain names only: the components are exactly those names.
    let rel: Vec<&std::ffi::OsStr> = path
        .strip_prefix(root)
        .map(|r| r.iter().collect())
        .unwrap_or_default();
    let least = if reach == Reach::Moved { 2 } else { 1 };
    if rel.len() < least {
        let what = match rel.first() {
            None => "the store itself".to_owned(),
            Some(top) => format!("the store's own folder {}", root.join(top).display()),
        };
        return Err(refuse(format!("is {what}, not a session's own file")));
    }
    // Every folder between the root and the entry, as written: none may be a link.
    let mut folder = root.clone();
    for name in &rel[..rel.len() - 1] {
        folder.push(name);
        match std::fs::symlink_metadata(&folder) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(refuse(format!(
                    "goes through {}, a link to elsewhere",
                    folder.display()
                )));
            }
            Ok(_) => {}
            // Not there: neither is anything below it.
            Err(_) => break,
        }
    }
    Ok(())
}

/// The names of `path` below `root`, split as written (so `a/./b` keeps its `.`, which
/// `Path::components` would drop); None when `path` does not start with `root`.
fn names_below<'a>(root: &Path, path: &'a Path) -> Option<Vec<&'a [u8]>> {
    let root = root.as_os_str().as_encoded_bytes();
    let rest = path.as_os_str().as_encoded_bytes().strip_prefix(root)?;
    let rest = match rest.split_first() {
        _ if root.last().is_some_and(|&b| is_separator(b)) => rest,
        None => return Some(Vec::new()),
        Some((&b, after)) if is_separator(b) => after,
        // `/s/rootless` is not below `/s/root`.
        Some(_) => return None,
    };
    Some(rest.split(|&b| is_separator(b)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_split_as_written() {
        let root = Path::new("/s/root");
        let names = |p: &str| {
            names_below(root, Path::new(p)).map(|n| {
                n.iter()
                    .map(|n| String::from_utf8_lossy(n).into_owned())
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(names("/s/root/a/./b").unwrap(), ["a", ".", "b"]);
        assert_eq!(names("/s/root/a/").unwrap(), ["a", ""]);
        assert_eq!(names("/s/root").unwrap(), Vec::<String>::new());
        assert_eq!(names("/s/rootless/a"), None);
        assert_eq!(names("/s/other"), None);
        assert_eq!(
            names_below(Path::new("/s/root/"), Path::new("/s/root/a/b")).map(|n| n.len()),
            Some(2)
        );
    }
}
