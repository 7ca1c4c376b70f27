//! Finding Aider's history files without crawling the disk.
//!
//! Aider keeps no central store: it writes `.aider.chat.history.md` in the repository it runs
//! in (the git root, else the current directory). We look in three places, and nowhere else:
//! - each configured root (`--aider-root`, `[providers.aider] roots`, `$AIDER_CHAT_HISTORY_FILE`):
//!   a history file itself, or a folder holding one, or a folder of projects searched
//!   [`DEPTH`] levels down (hidden folders and dependency folders are not entered);
//! - each directory another agent's session ran in, and the folders above it (a session in a
//!   subfolder of a repository has its history at the repository's root): one `stat` each;
//! - the directories a front end names (the CLI's current directory), the same way.
//!
//! Files found once stay watched (the scan's state keeps them) until they are gone.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::files::{Kind, Walker};

/// The file Aider writes in each repository.
pub const FILE_NAME: &str = ".aider.chat.history.md";

/// How many folder levels below a root are searched: a root is typically the folder holding
/// the user's projects (`~/src`), whose projects may be grouped once (`~/src/work/app`).
pub const DEPTH: usize = 3;

/// Folders never entered below a root: they hold dependencies or build output, not projects.
const SKIPPED: &[&str] = &[
    "node_modules",
    "target",
    "venv",
    "__pycache__",
    "dist",
    "build",
];

/// Every history file below the roots and in the near directories (and the folders above
/// them), sorted; what could not be listed goes to `walker`.
pub fn files(roots: &[PathBuf], near: &[PathBuf], walker: &mut Walker) -> Vec<PathBuf> {
    let mut out = BTreeSet::new();
    for root in roots {
        if root.is_file() {
            out.insert(root.clone());
        } else {
            below(root, 0, walker, &mut out);
        }
    }
    let mut looked = BTreeSet::new();
    for dir in near {
        for d in dir.ancestors() {
            if !looked.insert(d.to_path_buf()) {
                break;
            }
            let file = d.join(FILE_NAME);
            if file.is_file() {
                out.insert(file);
            }
        }
    }
    out.into_iter().collect()
}

fn below(dir: &Path, depth: usize, walker: &mut Walker, out: &mut BTreeSet<PathBuf>) {
    for entry in walker.entries(dir) {
        if entry.name == FILE_NAME {
            if walker.is(&entry, Kind::File) {
                out.insert(entry.path);
            }
        } else if depth < DEPTH
            && entry.kind == Kind::Dir
            && !entry.name.starts_with('.')
            && !SKIPPED.contains(&entry.name.as_str())
        {
            below(&entry.path, depth + 1, walker, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_are_searched_a_few_levels_and_near_dirs_upwards() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        // Each folder with a history file; `r` has folders below it too.
        let with_history = [
            "a",
            "g/b",
            "g/h/i/too-deep",
            "node_modules/x",
            ".hidden",
            "r",
        ];
        std::fs::create_dir_all(t.join("root/r/sub/deeper")).unwrap();
        for dir in with_history {
            std::fs::create_dir_all(t.join("root").join(dir)).unwrap();
            std::fs::write(t.join("root").join(dir).join(FILE_NAME), "").unwrap();
        }
        let mut w = Walker::default();
        let found = files(&[t.join("root")], &[], &mut w);
        let rel: Vec<String> = found
            .iter()
            .map(|p| {
                p.strip_prefix(t)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        assert_eq!(
            rel,
            [
                "root/a/.aider.chat.history.md",
                "root/g/b/.aider.chat.history.md",
                "root/r/.aider.chat.history.md"
            ]
        );
        // A session that ran in a subfolder of the repository finds the repository's history,
        // and nothing below the directory is listed.
        let near = files(&[], &[t.join("root/r/sub/deeper")], &mut w);
        assert_eq!(near, [t.join("root/r").join(FILE_NAME)]);
    }
}
