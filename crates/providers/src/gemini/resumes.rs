//! One session, several files in one `chats/` folder: `gemini --resume <id>` (0.61) starts by
//! writing a new file of the resumed id, `session-<current minute>-<id8>.jsonl`, holding the
//! context alone, then appends the turn to the file it resumed; resuming a pre-0.39 `.json`
//! session goes on in a new `.jsonl` beside it. Every such file would be listed as a session.
//!
//! We list them the way Gemini 0.61 does (`getSessionFiles` in `sessionUtils.ts`, read in its
//! shipped bundle): to Gemini a file with no real message (`hasResumableContent`: a prompt that is not `/…`, `?…` or injected
//! context, or a model reply with text, tool calls or thoughts) stands for no session, and
//! among the files of one id the most recently updated is the session, the first by file name
//! on a tie; that is the file `--resume` goes on with. Where no file of an id has a real
//! message, Gemini lists none; we keep the most recently updated one listed (as we list a lone
//! empty file, e.g. the session of a failed first call, whose prompt 0.61 wipes): it is the only
//! trace of that session on disk, and listing it is how it can be seen and trashed.
//! Trashing the session takes every file of the id (`files_of`), else another would be listed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::files::{FileSet, Tracked};
use crate::genai::store::Summary;

/// A session file and what a scan keeps of it.
type File<'a> = (&'a Path, &'a Tracked<Summary>);

/// The files of `files` another file of their session stands for (see the module doc).
pub(super) fn hidden(files: &FileSet<Summary>) -> BTreeSet<PathBuf> {
    // Top-level sessions by (chats folder, id), each group in file-name order (the set's).
    let mut groups: BTreeMap<(&Path, &str), Vec<File>> = BTreeMap::new();
    for (path, t) in files {
        let Some(meta) = t.cursor.meta.as_ref().filter(|m| m.parent_id.is_none()) else {
            continue;
        };
        if let Some(chats) = path.parent() {
            let group = groups.entry((chats, meta.id.as_str())).or_default();
            group.push((path.as_path(), t));
        }
    }
    let mut out = BTreeSet::new();
    for group in groups.into_values().filter(|g| g.len() > 1) {
        let kept = kept(&group);
        let others = group
            .into_iter()
            .map(|(p, _)| p)
            .filter(|p| Some(*p) != kept);
        out.extend(others.map(Path::to_path_buf));
    }
    out
}

/// The file of a group that is the session: the most recently updated of those with a real
/// message (of all of them, where none has one), the first on a tie.
fn kept<'a>(group: &[File<'a>]) -> Option<&'a Path> {
    let real = |t: &Tracked<Summary>| {
        let c = t.cursor.meta.as_ref().map(|m| m.counts).unwrap_or_default();
        c.user + c.assistant > 0
    };
    let any_real = group.iter().any(|(_, t)| real(t));
    let candidates = group.iter().filter(|(_, t)| !any_real || real(t));
    let mut best: Option<(&Path, DateTime<Utc>)> = None;
    for (path, t) in candidates {
        let at = updated(t);
        // Strictly later replaces, as in Gemini: a tie keeps the earlier file name.
        if best.is_none_or(|(_, b)| at > b) {
            best = Some((path, at));
        }
    }
    best.map(|(p, _)| p)
}

/// When a file was last updated: its `lastUpdated` (or last message), else its mtime.
fn updated(t: &Tracked<Summary>) -> DateTime<Utc> {
    let meta = t.cursor.meta.as_ref().and_then(|m| m.updated_at);
    meta.unwrap_or_else(|| DateTime::from_timestamp_nanos(t.stamp.mtime_ns))
}

/// Every other session file of `id` in the `chats` folder of `file` (named `session-*-<id8>`,
/// as Gemini names them, and holding that id), for a trash to take with it.
pub(super) fn files_of(file: &Path, id: &str) -> Vec<PathBuf> {
    let (Some(chats), Some(id8)) = (file.parent(), id.get(..8)) else {
        return Vec::new();
    };
    let ours = |name: &str| {
        let stem = name
            .strip_suffix(".jsonl")
            .or_else(|| name.strip_suffix(".json"));
        name.starts_with("session-") && stem.is_some_and(|s| s.ends_with(&format!("-{id8}")))
    };
    let entries = std::fs::read_dir(chats).into_iter().flatten().flatten();
    let named = entries.filter(|e| ours(&e.file_name().to_string_lossy()));
    let files = named.filter(|e| e.file_type().is_ok_and(|t| t.is_file()));
    let paths = files.map(|e| e.path()).filter(|p| p != file);
    paths.filter(|p| holds(p, id)).collect()
}

/// Whether the session file `path` is a session of `id`.
fn holds(path: &Path, id: &str) -> bool {
    let replayed = crate::genai::conversation::read(super::KIND, path);
    replayed.is_ok_and(|r| r.session_id() == Some(id))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use super::super::project::tests::store_061;
    use crate::{Provider, ProviderState, ScanOutput, SessionKey};
    use agent_sessions_model::SessionMeta;

    const ID: &str = "7d53c23b-fe46-4406-b083-d93680275406";
    const FILE: &str = "session-2026-12-06T14-10-7d53c23b.jsonl";

    /// A listing kept up to date from scan outputs, as the library keeps it.
    #[derive(Default)]
    struct Listing {
        sessions: BTreeMap<SessionKey, SessionMeta>,
        state: ProviderState,
    }

    impl Listing {
        fn rescan(&mut self, p: &dyn Provider) {
            let out: ScanOutput = p.scan(&self.state, &Default::default()).unwrap();
            for key in &out.removed {
                self.sessions.remove(key);
            }
            for meta in out.changed {
                self.sessions.insert(SessionKey::of(&meta), meta);
            }
            self.state = out.state;
        }

        /// (id, file name) of each session listed.
        fn files(&self) -> Vec<(String, String)> {
            let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
            let keys = self.sessions.keys();
            keys.map(|k| (k.id.clone(), name(&k.source_path))).collect()
        }
    }

    /// What a scan from nothing lists of the store as it is now.
    fn fresh(p: &dyn Provider) -> Vec<(String, String)> {
        let mut l = Listing::default();
        l.rescan(p);
        l.files()
    }

    /// The files of `id` listed.
    fn of(listing: &[(String, String)], id: &str) -> Vec<String> {
        let ours = listing.iter().filter(|(i, _)| i == id);
        ours.map(|(_, f)| f.clone()).collect()
    }

    /// The stub Gemini 0.61 writes when `--resume` starts: the file's metadata line with the
    /// time of the resume and its context checkpoint, nothing else.
    fn stub(original: &Path, at: &str) -> String {
        let text = std::fs::read_to_string(original).unwrap();
        let mut lines = text.lines();
        let mut line =
            || -> serde_json::Value { serde_json::from_str(lines.next().unwrap()).unwrap() };
        let (mut meta, mut context) = (line(), line());
        meta["startTime"] = at.into();
        meta["lastUpdated"] = at.into();
        context["$set"]["lastUpdated"] = at.into();
        format!("{meta}\n{context}\n")
    }

    fn append(path: &Path, line: &str) {
        let mut text = std::fs::read_to_string(path).unwrap();
        text.push_str(line);
        text.push('\n');
        std::fs::write(path, text).unwrap();
    }

    /// A resume's stub lists no second session; a later file of the id with real messages is
    /// the session; each rescan lists what a fresh scan lists; removing them brings it back.
    #[test]
    fn a_session_is_one_listing_whatever_files_its_resumes_leave() {
        let (_t, root) = store_061();
        let chats = root.join("tmp/demo/chats");
        let p = super::super::GeminiProvider::new(vec![root.clone()]);
        let mut l = Listing::default();
        l.rescan(&p);
        let before = l.files();
        assert_eq!(of(&before, ID), [FILE]);

        // The stub (later, but only context): not listed.
        let stub_path = chats.join("session-2026-12-07T09-00-7d53c23b.jsonl");
        std::fs::write(
            &stub_path,
            stub(&chats.join(FILE), "2026-12-07T09:00:00.000Z"),
        )
        .unwrap();
        l.rescan(&p);
        assert_eq!(of(&l.files(), ID), [FILE]);
        assert_eq!(l.files(), fresh(&p));
        assert_eq!(l.files(), before);

        // A copy of the session updated later (0.61 going on with a `.json` session in a
        // `.jsonl` beside it): that one is the session.
        let later = chats.join("session-2026-12-07T10-00-7d53c23b.jsonl");
        std::fs::copy(chats.join(FILE), &later).unwrap();
        append(
            &later,
            r#"{"$set":{"lastUpdated":"2026-12-07T10:05:00.000Z"}}"#,
        );
        l.rescan(&p);
        assert_eq!(
            of(&l.files(), ID),
            ["session-2026-12-07T10-00-7d53c23b.jsonl"]
        );
        assert_eq!(l.files(), fresh(&p));

        // The first file updated after it, unread files refolded: the first again.
        append(
            &chats.join(FILE),
            r#"{"$set":{"lastUpdated":"2026-12-07T11:00:00.000Z"}}"#,
        );
        l.rescan(&p);
        assert_eq!(of(&l.files(), ID), [FILE]);
        assert_eq!(l.files(), fresh(&p));

        // The failed call's session has no real message: with a later stub of its own, one
        // of the two is listed still (the later), never both.
        let empty = "903d0aa6-5858-4c58-b5f8-7f523addfbba";
        let its = chats.join("session-2026-12-06T14-10-903d0aa6.jsonl");
        let its_stub = chats.join("session-2026-12-07T12-00-903d0aa6.jsonl");
        std::fs::write(&its_stub, stub(&its, "2026-12-07T12:00:00.000Z")).unwrap();
        l.rescan(&p);
        let listed = of(&l.files(), empty);
        assert_eq!(listed, ["session-2026-12-07T12-00-903d0aa6.jsonl"]);
        assert_eq!(l.files(), fresh(&p));

        // Gone again: as before.
        for f in [&stub_path, &later, &its_stub] {
            std::fs::remove_file(f).unwrap();
        }
        l.rescan(&p);
        assert_eq!(l.files(), before);
        assert_eq!(l.files(), fresh(&p));
    }

    /// Trashing a resumed session takes its stub too (else the stub would be listed).
    #[test]
    fn a_trash_takes_every_file_of_the_id() {
        let (_t, root) = store_061();
        let chats = root.join("tmp/demo/chats");
        let stub_path = chats.join("session-2026-12-07T09-00-7d53c23b.jsonl");
        std::fs::write(
            &stub_path,
            stub(&chats.join(FILE), "2026-12-07T09:00:00.000Z"),
        )
        .unwrap();
        let p = super::super::GeminiProvider::new(vec![root.clone()]);
        let listed = p.scan(&Vec::new(), &Default::default()).unwrap().changed;
        let s = listed.iter().find(|s| s.id == ID).unwrap();
        let paths = super::super::trash::trashed(&root, s);
        assert!(paths.contains(&chats.join(FILE)), "{paths:?}");
        assert!(paths.contains(&stub_path), "{paths:?}");
        // Another session's file stays.
        let other = chats.join("session-2026-12-06T14-10-903d0aa6.jsonl");
        assert!(!paths.contains(&other), "{paths:?}");
    }
}
