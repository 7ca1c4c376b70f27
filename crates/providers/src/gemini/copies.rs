//! One session, two copies: Gemini 0.29+ copies (`fs.cp`, it does not move) a pre-0.29
//! project folder `tmp/<sha256 of the directory>/` to the directory's slug folder the first
//! time it runs there, and leaves the old one as it was. Every session of it is then on disk
//! twice under the same file name, and would be listed twice.
//!
//! We fold them, at the file level, the way Gemini itself sees the store: the copy in the slug
//! folder is the session (0.29+ looks up `--resume <id>` in the slug folder only, so that is
//! the copy it carries on; only a pre-0.29 Gemini, which never made the slug, reads the hashed
//! one), and the hashed copy of a file the slug folder also holds is not listed. A file only
//! in the hashed folder (written by a pre-0.29 Gemini after the copy) is listed from there.
//! Trashing the session takes both copies: left behind, the hashed one would be listed again
//! (and 0.29+ would copy the folder again were the slug folder emptied).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::genai::{is_hash_folder, project_hash};

/// Each hashed folder name → the slug folder (`tmp/<slug>`) whose `.project_root` names the
/// directory it is the sha256 of.
pub(super) fn slugs_of_hashes(tmp: &Path) -> BTreeMap<String, PathBuf> {
    let Ok(list) = std::fs::read_dir(tmp) else {
        return BTreeMap::new();
    };
    list.flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !is_hash_folder(name))
        .take(super::MARKERS_READ)
        .filter_map(|name| {
            let dir = super::marker_of(tmp, &name)?;
            Some((project_hash(&dir), tmp.join(name)))
        })
        .collect()
}

/// Whether the file `rel` (below the project folder: `chats/<name>`, `chats/<parent>/<name>`)
/// of the hashed folder `folder` has its copy in the folder's slug folder.
pub(super) fn copied(slugs: &BTreeMap<String, PathBuf>, folder: &str, rel: &[&str]) -> bool {
    slugs
        .get(folder)
        .is_some_and(|slug| rel.iter().fold(slug.clone(), |p, r| p.join(r)).is_file())
}

/// The hashed copies of what a trash of a session in a slug folder takes: for each of `paths`
/// below `project` (the session's slug folder), the same path below the hashed folder of the
/// directory its marker names, where one is.
pub(super) fn hashed_copies(project: &Path, paths: &[PathBuf]) -> Vec<PathBuf> {
    let (Some(tmp), Some(name)) = (project.parent(), project.file_name()) else {
        return Vec::new();
    };
    let name = name.to_string_lossy();
    if is_hash_folder(&name) {
        return Vec::new();
    }
    let Some(dir) = super::marker_of(tmp, &name) else {
        return Vec::new();
    };
    let hashed = tmp.join(project_hash(&dir));
    paths
        .iter()
        .filter_map(|p| p.strip_prefix(project).ok())
        .map(|rel| hashed.join(rel))
        .filter(|p| std::fs::symlink_metadata(p).is_ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::project::tests::testdata;
    use crate::genai::copy_tree;
    use crate::Provider;

    /// The demo folder of the 0.28.2 recording and its directory.
    const DEMO: (&str, &str) = (
        "af6eaf514d984238901bb980f47e61877edb52112b7be87a846f1fa7765b8935",
        "/tmp/agent-rec/gemini-0.28.2/home/projects/demo",
    );

    /// A 0.61 store (slug layout) holding the 0.28.2 demo folder as Gemini 0.29+ leaves it
    /// after its first run in that directory: the hashed folder, and its copy in a slug folder
    /// whose marker names the directory (`demo` being taken, `demo-1`).
    #[test]
    fn a_copied_session_lists_once_and_trashes_whole() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join(".gemini");
        copy_tree(&testdata("0.61.0"), &root);
        let (hash, dir) = DEMO;
        let old = testdata("0.28.2").join("tmp").join(hash);
        copy_tree(&old, &root.join("tmp").join(hash));
        let slug = root.join("tmp/demo-1");
        std::fs::create_dir_all(&slug).unwrap();
        std::fs::write(slug.join(".project_root"), dir).unwrap();
        copy_tree(&old, &slug);

        let p = super::super::GeminiProvider::new(vec![root.clone()]);
        let listed = p.scan(&Vec::new(), &Default::default()).unwrap().changed;
        let ids = |under: &std::path::Path| -> Vec<String> {
            let mut v: Vec<String> = (listed.iter())
                .filter(|s| s.source_path.starts_with(under))
                .map(|s| s.id.clone())
                .collect();
            v.sort();
            v
        };
        let in_old = {
            let mut v: Vec<String> = std::fs::read_dir(old.join("chats"))
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        // Once each, all from the slug folder, with the directory; nothing from the hashed one.
        assert_eq!(ids(&slug).len(), in_old.len(), "{in_old:?}");
        assert!(ids(&root.join("tmp").join(hash)).is_empty());
        let mut all: Vec<&String> = listed.iter().map(|s| &s.id).collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), listed.len(), "an id listed twice");
        let s = listed
            .iter()
            .find(|s| s.source_path.starts_with(&slug))
            .unwrap();
        assert_eq!(s.cwd.as_deref(), Some(dir));
        assert!(!p.load(s).unwrap().messages.is_empty());

        // Its trash takes both copies.
        let paths = super::super::trash::trashed(&root, s);
        let name = s.source_path.file_name().unwrap();
        assert!(paths.contains(&s.source_path), "{paths:?}");
        let copy = root.join("tmp").join(hash).join("chats").join(name);
        assert!(paths.contains(&copy), "{paths:?}");
    }
}
