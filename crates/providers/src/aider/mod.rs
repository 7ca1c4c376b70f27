//! Aider (PyPI `aider-chat`): no central store, one `.aider.chat.history.md` per repository it
//! ran in, each holding many runs (`history`). Each run is one session, found where the user
//! works (`find`); its directory is the folder holding the file.
//!
//! Times: a run's header gives the local time without a zone. We read it in this machine's
//! zone (`chrono::Local`, `TZ`): the history file lives in the user's own repository, written
//! by an `aider` that ran on this machine, so its zone is almost always ours. (The fixtures
//! were recorded with `TZ=UTC`, and the tests run in UTC.)

mod bundle;
pub mod find;
pub mod history;
mod launch;
mod trash;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agent_sessions_model::{Diagnostic, ProviderKind, ResumeCommand, SessionMeta, Transcript};
use chrono::{DateTime, Local, TimeZone, Utc};
use serde::{Deserialize, Serialize};

use self::history::Run;
use crate::error::Error;
use crate::files::{self, FileSet, Tracked};
use crate::SessionKey;
use crate::{decode_state, encode_state, Provider, ProviderState, ScanOutput, ScanProgress};

pub struct AiderProvider {
    roots: Vec<PathBuf>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    /// Every history file found, with its runs: found once, watched until it is gone.
    #[serde(with = "agent_sessions_model::path::os_keys")]
    files: FileSet<Vec<Run>>,
}

impl AiderProvider {
    pub fn new(roots: Vec<PathBuf>) -> Self {
        AiderProvider { roots }
    }
}

/// A file's runs, read again from the start of its last run when the file grew (Aider appends
/// to the last run or adds new ones), else from the start.
fn read_runs(path: &Path, mut runs: Vec<Run>) -> std::io::Result<Vec<Run>> {
    let last = runs.pop();
    let (from, line) = last.as_ref().map_or((0, 1), |r| (r.start, r.line));
    let earlier: Vec<&str> = runs.iter().map(|r| r.header.as_str()).collect();
    let read = history::read(path, from, line, &earlier, None)?;
    runs.extend(read.into_iter().map(|(run, _)| run));
    let typed = history::typed_times(&path.with_file_name(".aider.input.history"));
    history::set_last_typed(&mut runs, &typed);
    Ok(runs)
}

/// The session of `run` in the history file `path`.
fn to_meta(path: &Path, run: &Run) -> SessionMeta {
    let mut meta = SessionMeta::new(ProviderKind::Aider, run.id(path), path.to_path_buf());
    meta.cwd = path
        .parent()
        .map(|d| d.to_string_lossy().into_owned())
        .filter(|d| !d.is_empty());
    let s = &run.summary;
    meta.title = s.title.clone();
    meta.model = s.model.clone();
    meta.counts = s.counts;
    meta.tokens = s.tokens;
    meta.cost_usd = s.cost;
    meta.format_version = s.version.clone();
    meta.created_at = run.started().and_then(local_to_utc);
    // The history keeps no time but the run's start; the input history beside it keeps when
    // each line was typed.
    meta.updated_at = s.last_typed.and_then(local_to_utc).max(meta.created_at);
    meta
}

fn local_to_utc(t: chrono::NaiveDateTime) -> Option<DateTime<Utc>> {
    Local
        .from_local_datetime(&t)
        .earliest()
        .map(|t| t.with_timezone(&Utc))
}

/// Every session of a tracked file.
fn sessions_of(path: &Path, t: &Tracked<Vec<Run>>) -> Vec<SessionMeta> {
    t.cursor.iter().map(|run| to_meta(path, run)).collect()
}

fn key(path: &Path, run: &Run) -> SessionKey {
    SessionKey {
        provider: ProviderKind::Aider,
        id: run.id(path),
        source_path: path.to_path_buf(),
    }
}

/// The bad lines of every file, as diagnostics.
fn problems(files: &FileSet<Vec<Run>>, out: &mut ScanOutput) {
    for (path, t) in files {
        for run in &t.cursor {
            for (line, reason) in &run.summary.problems {
                out.diagnostics.push(Diagnostic {
                    provider: ProviderKind::Aider,
                    path: path.clone(),
                    line: Some(*line),
                    reason: reason.clone(),
                });
            }
        }
    }
}

impl AiderProvider {
    fn scan_in(
        &self,
        prev: &ProviderState,
        progress: &ScanProgress,
        near: &[PathBuf],
    ) -> Result<ScanOutput, Error> {
        let prev: State = decode_state(prev).unwrap_or_default();
        let mut walker = files::Walker::default();
        let mut found = find::files(&self.roots, near, &mut walker);
        found.extend(prev.files.keys().filter(|p| p.is_file()).cloned());
        found.sort();
        found.dedup();
        let r = files::refresh_all(
            found,
            |p| p,
            &prev.files,
            progress,
            |p, runs| read_runs(p, runs),
        );
        let mut out = ScanOutput::default();
        for path in &r.changed {
            let Some(now) = r.next.get(path) else {
                continue;
            };
            let ids: Vec<String> = now.cursor.iter().map(|run| run.id(path)).collect();
            let before = prev.files.get(path).map_or(&[][..], |t| &t.cursor[..]);
            out.removed.extend(
                before
                    .iter()
                    .filter(|run| !ids.contains(&run.id(path)))
                    .map(|run| key(path, run)),
            );
            out.changed.extend(sessions_of(path, now));
        }
        for path in &r.gone {
            let before = prev.files.get(path).map_or(&[][..], |t| &t.cursor[..]);
            out.removed.extend(before.iter().map(|run| key(path, run)));
        }
        walker.report(ProviderKind::Aider, &mut out.diagnostics);
        r.report_unreadable(ProviderKind::Aider, &mut out.diagnostics);
        problems(&r.next, &mut out);
        out.state = encode_state(&State { files: r.next });
        Ok(out)
    }
}

impl Provider for AiderProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Aider
    }

    fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn detect(&self) -> bool {
        !find::files(&self.roots, &[], &mut files::Walker::default()).is_empty()
    }

    fn scan(&self, prev: &ProviderState, progress: &ScanProgress) -> Result<ScanOutput, Error> {
        self.scan_in(prev, progress, &[])
    }

    fn looks_near(&self) -> bool {
        true
    }

    fn scan_near(
        &self,
        prev: &ProviderState,
        progress: &ScanProgress,
        near: &[PathBuf],
    ) -> Result<ScanOutput, Error> {
        self.scan_in(prev, progress, near)
    }

    fn load(&self, session: &SessionMeta) -> Result<Transcript, Error> {
        let path = &session.source_path;
        let runs =
            history::read(path, 0, 1, &[], Some(&session.id)).map_err(|e| Error::io(path, e))?;
        let Some((run, messages)) = runs.into_iter().find(|(run, _)| run.id(path) == session.id)
        else {
            return Err(Error::SessionNotFound(session.id.clone()));
        };
        // The scan read the input history beside it: its end stands.
        let mut meta = to_meta(path, &run);
        meta.updated_at = session.updated_at.or(meta.updated_at);
        let mut out = ScanOutput::default();
        let mut files = FileSet::new();
        files.insert(
            path.clone(),
            Tracked {
                stamp: files::stamp(path).map_err(|e| Error::io(path, e))?,
                cursor: vec![run],
            },
        );
        problems(&files, &mut out);
        Ok(Transcript {
            session: meta,
            messages,
            diagnostics: out.diagnostics,
        })
    }

    fn blob(&self, session: &SessionMeta, key: &str) -> Result<Vec<u8>, Error> {
        // Aider keeps no output apart from the history: a transcript names no blobs.
        Err(crate::blob::not_found(session, key, "Aider keeps no blobs"))
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        find::files(&self.roots, &[], &mut files::Walker::default())
    }

    /// Aider has no resume by id: `--restore-chat-history` reads the directory's history file
    /// back into a new run (the whole file, not this run alone; docs/formats.md).
    fn resume_command(&self, session: &SessionMeta) -> Result<ResumeCommand, Error> {
        ResumeCommand::new(
            AGENT.program,
            &["--restore-chat-history"],
            session.cwd.as_deref(),
        )
        .map_err(Error::from)
    }

    /// No session file of its own: live means an `aider` process runs and the history file
    /// was written to in the last two minutes; the file's last run is the one running.
    fn live_sessions(&self, sessions: &[&SessionMeta]) -> Vec<crate::LiveSession> {
        let mut last: BTreeMap<&Path, &SessionMeta> = BTreeMap::new();
        for s in sessions {
            let e = last.entry(&s.source_path).or_insert(s);
            if s.created_at > e.created_at {
                *e = s;
            }
        }
        let now = chrono::Utc::now().timestamp_nanos_opt().unwrap_or(i64::MAX);
        let recent = last.into_iter().filter_map(|(path, s)| {
            let (_, mtime) = files::stat(path).ok()?;
            (now.saturating_sub(mtime) <= crate::process::RECENT_SECS * 1_000_000_000).then_some(s)
        });
        crate::process::live_if_running(AGENT.program, recent)
    }
}

/// Whether a string has the shape of a run's id: `aider-` and 16 lower-case hex digits.
pub fn is_run_id(id: &str) -> bool {
    id.strip_prefix("aider-").is_some_and(|hex| {
        hex.len() == 16
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The runs of each history file, by file (for the trash and bundles: a run's bytes).
fn run_of(session: &SessionMeta) -> Result<Run, String> {
    let path = &session.source_path;
    let runs = history::read(path, 0, 1, &[], None)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    runs.into_iter()
        .map(|(run, _)| run)
        .find(|run| run.id(path) == session.id)
        .ok_or_else(|| {
            format!(
                "{} no longer holds the Aider run {}; refresh the list",
                path.display(),
                session.id
            )
        })
}

/// Aider in the registry (`crate::registry::AGENTS`).
pub static AGENT: crate::registry::Agent = crate::registry::Agent {
    kind: ProviderKind::Aider,
    label: "Aider",
    program: "aider",
    // Aider's own variable naming its history file: a root may be that file.
    env_var: "AIDER_CHAT_HISTORY_FILE",
    env_subdir: None,
    // No central store: nothing under the home directory is searched by default (`find`).
    home_store: |_| &[],
    // The version folder holds the recorded repositories, each with its history file.
    fixture_store: ".",
    colours: [["#e6e0f3", "#4b3a78"], ["#2f2842", "#cfc3f0"]],
    provider: |roots| Box::new(AiderProvider::new(roots)),

    session_id: is_run_id,
    subagent_id: None,
    trash: trash::TRASH,
    launch: launch::LAUNCH,
    worktrees: crate::capability::launch::Worktrees::NONE,
    plan_tools: &[],
    bundles: bundle::BUNDLES,
    which_copy: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_have_one_shape() {
        assert!(is_run_id("aider-4af21869db5e7876"));
        assert!(!is_run_id("aider-4AF21869db5e7876"));
        assert!(!is_run_id("aider-../../etc"));
        assert!(!is_run_id("4af21869db5e7876"));
    }

    /// A history written to just now is live while an `aider` process runs; one written an
    /// hour ago is not.
    #[cfg(target_os = "linux")]
    #[test]
    fn sessions_are_live_while_aider_runs_and_they_were_just_written() {
        crate::process::live_while_running(&AGENT);
    }
}

#[cfg(test)]
mod scan_tests {
    use super::*;

    const RUN_A: &str = "\n# aider chat started at 2026-01-02 10:00:00\n\n> Model: m1 with diff edit format  \n\n#### hello  \n\nhi there\n\n";
    const RUN_B: &str = "# aider chat started at 2026-01-02 11:00:00\n\n#### /run ls  \n#### second  \n\nreply two\n";

    fn scan(root: &Path, prev: &ProviderState) -> ScanOutput {
        AiderProvider::new(vec![root.to_path_buf()])
            .scan(prev, &ScanProgress::default())
            .unwrap()
    }

    fn project(text: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("proj");
        std::fs::create_dir(&dir).unwrap();
        let file = dir.join(find::FILE_NAME);
        std::fs::write(&file, text).unwrap();
        (tmp, file)
    }

    #[test]
    fn an_appended_run_keeps_its_id_and_a_new_one_is_added() {
        let (tmp, file) = project(RUN_A.as_bytes());
        let first = scan(tmp.path(), &Vec::new());
        assert_eq!(first.changed.len(), 1);
        let id = first.changed[0].id.clone();
        assert_eq!(first.changed[0].counts.user, 1);
        // Aider goes on writing the run, then a new run starts.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .unwrap();
        std::io::Write::write_all(&mut f, b"#### more  \n\nanother reply\n\n").unwrap();
        std::io::Write::write_all(&mut f, RUN_B.as_bytes()).unwrap();
        drop(f);
        let second = scan(tmp.path(), &first.state);
        let ids: Vec<&str> = second.changed.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids.len(), 2);
        assert_eq!(ids[0], id, "the run appended to keeps its id");
        assert_eq!(second.changed[0].counts.user, 2);
        assert_eq!(second.changed[0].counts.assistant, 2);
        // The slash command is shown, not counted; the title is the first prompt.
        assert_eq!(second.changed[1].counts.user, 1);
        assert_eq!(second.changed[1].title.as_deref(), Some("second"));
        assert!(second.removed.is_empty());
        // Unchanged: nothing new.
        let third = scan(tmp.path(), &second.state);
        assert!(third.changed.is_empty() && third.removed.is_empty());
    }

    #[test]
    fn damaged_histories_are_read_with_their_problems_counted() {
        // Invalid UTF-8, a line far too long, and a file cut off mid-line.
        let mut text = RUN_A.as_bytes().to_vec();
        text.extend_from_slice(b"#### caf\xff  \n\nok\n");
        text.extend(std::iter::repeat_n(b'x', history::MAX_LINE + 10));
        text.extend_from_slice(b"\n#### cut off mid-li");
        let (tmp, file) = project(&text);
        let out = scan(tmp.path(), &Vec::new());
        assert_eq!(out.changed.len(), 1);
        assert_eq!(out.changed[0].counts.user, 3);
        assert_eq!(out.diagnostics.parse_errors, 2, "{:?}", out.diagnostics);
        let p = AiderProvider::new(vec![tmp.path().to_path_buf()]);
        let t = p.load(&out.changed[0]).unwrap();
        assert_eq!(Counts::of(&t.messages), out.changed[0].counts);
        assert_eq!(t.diagnostics.parse_errors, 2);
        assert!(file.exists());
    }

    #[test]
    fn two_runs_started_in_the_same_second_have_their_own_ids() {
        let text = format!("{RUN_A}{}", RUN_A.trim_start());
        let (tmp, _) = project(text.as_bytes());
        let out = scan(tmp.path(), &Vec::new());
        assert_eq!(out.changed.len(), 2);
        assert_ne!(out.changed[0].id, out.changed[1].id);
    }

    /// Another agent's store that lists one session, run in `cwd`.
    struct Other(PathBuf);

    impl Provider for Other {
        fn kind(&self) -> ProviderKind {
            ProviderKind::Claude
        }
        fn roots(&self) -> &[PathBuf] {
            &[]
        }
        fn detect(&self) -> bool {
            true
        }
        fn scan(&self, _: &ProviderState, _: &ScanProgress) -> Result<ScanOutput, Error> {
            let mut s = SessionMeta::new(ProviderKind::Claude, "x".into(), self.0.join("x.jsonl"));
            s.cwd = Some(self.0.join("sub").to_string_lossy().into_owned());
            Ok(ScanOutput {
                changed: vec![s],
                ..ScanOutput::default()
            })
        }
        fn load(&self, _: &SessionMeta) -> Result<Transcript, Error> {
            unreachable!()
        }
        fn blob(&self, _: &SessionMeta, _: &str) -> Result<Vec<u8>, Error> {
            unreachable!()
        }
        fn watch_paths(&self) -> Vec<PathBuf> {
            Vec::new()
        }
        fn resume_command(&self, _: &SessionMeta) -> Result<ResumeCommand, Error> {
            unreachable!()
        }
    }

    /// With no root of its own, Aider finds the history of a repository another agent's
    /// session ran in (in a subfolder of it), and one in a directory a front end names.
    #[test]
    fn runs_are_found_where_other_agents_ran_and_where_the_cli_is() {
        let (repo, _) = project(RUN_A.as_bytes());
        let (here, _) = project(RUN_B.as_bytes());
        let set = crate::ProviderSet::of(vec![
            Box::new(AiderProvider::new(Vec::new())),
            Box::new(Other(repo.path().join("proj"))),
        ]);
        let mut found = Vec::new();
        set.scan_each_near::<Error>(
            &[Vec::new(), Vec::new()],
            &ScanProgress::default(),
            &[here.path().join("proj")],
            &mut |kind, out| {
                if kind == ProviderKind::Aider {
                    found.extend(out.changed.into_iter().map(|s| s.cwd.unwrap()));
                }
                Ok(())
            },
        )
        .unwrap();
        found.sort();
        let mut want = vec![
            repo.path().join("proj").to_string_lossy().into_owned(),
            here.path().join("proj").to_string_lossy().into_owned(),
        ];
        want.sort();
        // RUN_B is one run; RUN_A is one run.
        assert_eq!(found, want);
    }

    use agent_sessions_model::Counts;
}
