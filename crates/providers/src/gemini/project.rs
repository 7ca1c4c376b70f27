//! Which project folder Gemini CLI (0.29+) files a directory under, worked out read-only the
//! way its `ProjectRegistry.getShortId` does, so a restore puts a session where `gemini
//! --resume` run in that directory looks, and writes the ownership markers Gemini writes there
//! (`tmp/<slug>/.project_root`, `history/<slug>/.project_root`: the directory, nothing else).
//! `projects.json` is not written: Gemini locks and rewrites it itself, and finds a slug from its
//! marker when the file has no entry for the directory (`findExistingSlugForPath`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::genai::{project_hash, read_json, SIDE_FILE_MAX};

/// The name of the ownership marker in a project folder.
pub(super) const MARKER: &str = ".project_root";

/// The folders (under the root) a project folder is kept in; each holds a marker.
const BASES: [&str; 2] = ["tmp", "history"];

/// Where a restore into `root` for the directory `dir` puts things.
pub(super) struct Placed {
    /// The project folder the `chats/` go into.
    pub folder: PathBuf,
    /// Markers to create, (path, contents); those already there are not listed.
    pub markers: Vec<(PathBuf, String)>,
}

/// The directory as Gemini writes it in a marker and `projects.json` (`normalizePath`: resolved,
/// lower-cased on Windows). `dir` comes canonical from the restore engine.
fn normalized(dir: &str) -> String {
    if cfg!(windows) {
        dir.to_lowercase()
    } else {
        dir.to_owned()
    }
}

/// The marker of `slug` under `base`: `None` if there is none, `Some(None)` if it cannot be read
/// (Gemini then counts the slug as someone else's), else its trimmed text.
fn marker(root: &Path, base: &str, slug: &str) -> Option<Option<String>> {
    let path = crate::files::child(&root.join(base), slug)?.join(MARKER);
    std::fs::symlink_metadata(&path).ok()?;
    let text = crate::files::read_document(&path, SIDE_FILE_MAX)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .map(|s| s.trim().to_owned());
    Some(text)
}

/// Whether no marker of `slug` names another directory than `dir` (Gemini's
/// `verifySlugOwnership`, and the collision check of `claimNewSlug`).
fn owned_by(root: &Path, slug: &str, dir: &str) -> bool {
    BASES.iter().all(|b| match marker(root, b, slug) {
        None => true,
        Some(owner) => owner.as_deref().map(normalized) == Some(dir.to_owned()),
    })
}

/// `slugify` of Gemini's registry: lower case, every character but `a-z0-9` a `-`, runs of
/// `-` merged and trimmed, `project` when nothing is left.
pub(super) fn slugify(name: &str) -> String {
    let dashed: String = name
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_lowercase() || c.is_ascii_digit() {
                c
            } else {
                '-'
            }
        })
        .collect();
    let merged = dashed
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    if merged.is_empty() {
        "project".to_owned()
    } else {
        merged
    }
}

/// `projects.json`'s `projects`: directory → slug. As Gemini reads it (`registryDataSchema`):
/// every slug `^[a-z0-9-]+$` or the whole file counts as empty — which also keeps a slug
/// that is no plain folder name (`../x`) from ever becoming a path the restore writes to.
fn registered(root: &Path) -> BTreeMap<String, String> {
    let Some(serde_json::Value::Object(p)) =
        read_json(&root.join("projects.json")).and_then(|v| v.get("projects").cloned())
    else {
        return BTreeMap::new();
    };
    let is_slug = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    let slugs: Option<BTreeMap<String, String>> = p
        .into_iter()
        .map(|(dir, slug)| Some((dir, slug.as_str().filter(|s| is_slug(s))?.to_owned())))
        .collect();
    slugs.unwrap_or_default()
}

/// The slug Gemini uses for `dir`: its registered one if no marker says otherwise, else a
/// folder whose marker names it, else the first free `slugify(basename)`, `-1`, `-2`…
fn slug_for(root: &Path, dir: &str) -> String {
    let registry = registered(root);
    if let Some(slug) = registry.get(dir).filter(|s| owned_by(root, s, dir)) {
        return slug.clone();
    }
    for base in BASES {
        let Ok(list) = std::fs::read_dir(root.join(base)) else {
            continue;
        };
        let mut names: Vec<String> = list
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let mine = names
            .into_iter()
            .find(|n| marker(root, base, n).flatten().map(|o| normalized(&o)) == Some(dir.into()));
        if let Some(slug) = mine {
            return slug;
        }
    }
    let name = Path::new(dir)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let slug = slugify(&name);
    let taken: Vec<&String> = registry.values().collect();
    (0..)
        .map(|n| {
            if n == 0 {
                slug.clone()
            } else {
                format!("{slug}-{n}")
            }
        })
        .find(|c| !taken.contains(&c) && owned_by(root, c, dir))
        .unwrap_or(slug)
}

/// Where a restore for `dir` goes (see the module doc). The records go into the slug folder,
/// except where Gemini would still copy the directory's pre-0.29 hashed folder there on its
/// next run (`StorageMigration`: only into a slug folder holding nothing but its marker) or the
/// store is a pre-0.29 one (a `tmp/` and no `projects.json`): then into the hashed folder, so
/// that the copy Gemini makes carries the restored session with the rest.
pub(super) fn place(root: &Path, dir: &str) -> Placed {
    let dir = normalized(dir);
    let slug = slug_for(root, &dir);
    let tmp = root.join("tmp");
    let hashed = tmp.join(project_hash(&dir));
    let slugged = tmp.join(&slug);
    let pre_029 = tmp.is_dir() && !root.join("projects.json").exists();
    let pending = hashed.is_dir() && only_marker(&slugged);
    let folder = if pre_029 || pending { hashed } else { slugged };
    let markers = BASES
        .iter()
        .filter(|b| marker(root, b, &slug).is_none())
        .map(|b| (root.join(b).join(&slug).join(MARKER), dir.clone()))
        .collect();
    Placed { folder, markers }
}

/// Whether `folder` is missing or holds its marker alone.
fn only_marker(folder: &Path) -> bool {
    match std::fs::read_dir(folder) {
        Ok(list) => list.flatten().all(|e| e.file_name() == MARKER),
        Err(_) => true,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::genai::copy_tree;
    use crate::Provider;

    #[test]
    fn slugs_are_gemini_s() {
        assert_eq!(slugify("demo"), "demo");
        assert_eq!(slugify("naïve-проект"), "na-ve");
        assert_eq!(slugify("My Project!"), "my-project");
        assert_eq!(slugify("ÄÖ"), "project");
    }

    pub(crate) fn testdata(version: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/gemini")
            .join(version)
            .join("dot-gemini")
    }

    /// The 0.28.2 folder of `naïve-проект` (its sessions name no path) and its directory.
    pub(crate) const NAIVE: (&str, &str) = (
        "4cbb8e69d20466b684e47861637a795f4c4104e5245b14ba1454b5e1b4844177",
        "/tmp/agent-rec/gemini-0.28.2/home/projects/naïve-проект",
    );

    /// A 0.61 store (`projects.json`: `demo` is the 0.61 recording's directory).
    pub(crate) fn store_061() -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join(".gemini");
        copy_tree(&testdata("0.61.0"), &root);
        (t, root)
    }

    #[test]
    fn a_restore_goes_where_gemini_files_the_directory() {
        let (t, root) = store_061();
        let demo = "/tmp/agent-rec/gemini-0.61.0/home/projects/demo";
        let p = place(&root, demo);
        assert_eq!(p.folder, root.join("tmp/demo"));
        assert!(p.markers.is_empty(), "{:?}", p.markers);

        // Another `demo`: the next free slug, and its two markers naming it.
        let p = place(&root, "/elsewhere/demo");
        assert_eq!(p.folder, root.join("tmp/demo-1"));
        let want = |b: &str| {
            (
                root.join(b).join("demo-1").join(MARKER),
                "/elsewhere/demo".into(),
            )
        };
        assert_eq!(p.markers, vec![want("tmp"), want("history")]);

        // A folder whose marker names the directory is its folder, registered or not.
        std::fs::create_dir_all(root.join("tmp/mine")).unwrap();
        std::fs::write(root.join("tmp/mine").join(MARKER), "/elsewhere/demo\n").unwrap();
        let p = place(&root, "/elsewhere/demo");
        assert_eq!(p.folder, root.join("tmp/mine"));
        assert_eq!(
            p.markers,
            vec![(
                root.join("history/mine").join(MARKER),
                "/elsewhere/demo".into()
            )]
        );

        // A registry whose slug is no plain name is no registry (Gemini resets it too).
        let escape = serde_json::json!({"projects": {"/x/demo": "../../escape"}});
        let bad = t.path().join("bad");
        std::fs::create_dir_all(&bad).unwrap();
        std::fs::write(bad.join("projects.json"), escape.to_string()).unwrap();
        assert_eq!(place(&bad, "/x/demo").folder, bad.join("tmp/demo"));

        // A store Gemini never made: the slug.
        let fresh = t.path().join("fresh");
        assert_eq!(place(&fresh, "/w/My App").folder, fresh.join("tmp/my-app"));

        // Gemini has yet to copy the directory's pre-0.29 folder to its slug: the records go
        // into that folder (the copy carries them), the slug gets its markers.
        let (hash, dir) = NAIVE;
        copy_tree(
            &testdata("0.28.2").join("tmp").join(hash),
            &root.join("tmp").join(hash),
        );
        let p = place(&root, dir);
        assert_eq!(p.folder, root.join("tmp").join(hash));
        assert_eq!(
            p.markers[0],
            (root.join("tmp/na-ve-1").join(MARKER), dir.into())
        );
    }

    /// A hashed folder's directory is known from the marker of the slug Gemini (or a restore)
    /// made for it, even when nothing in its sessions names it.
    #[test]
    fn a_hashed_folder_takes_its_directory_from_its_slug_s_marker() {
        let (_t, root) = store_061();
        let (hash, dir) = NAIVE;
        copy_tree(
            &testdata("0.28.2").join("tmp").join(hash),
            &root.join("tmp").join(hash),
        );
        let cwd_of_hashed = || {
            let p = super::super::GeminiProvider::new(vec![root.clone()]);
            let out = p.scan(&Vec::new(), &Default::default()).unwrap();
            let s = out
                .changed
                .iter()
                .find(|s| s.source_path.starts_with(root.join("tmp").join(hash)));
            s.unwrap().cwd.clone()
        };
        assert_eq!(cwd_of_hashed(), None);
        for (path, text) in place(&root, dir).markers {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        assert_eq!(cwd_of_hashed().as_deref(), Some(dir));
    }
}
