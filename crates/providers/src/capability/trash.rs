//! What makes up one session in an agent's store (files, folders, rows, the agent's own
//! archive/delete command) for the trash and delete engine (`agent_sessions_core::actions::trash`).
//!
//! An agent's folder answers with a [`Trash`] in its descriptor: for each [`Mode`] either a
//! planner, which lists the session's [`Step`]s as plain values (paths, rows, argv), or why the
//! agent has no such action; and, for the steps only it knows how to write, the code that
//! writes them ([`ArchiveRows`], [`Trash::delete_rows`]). The engine owns everything else: the
//! opt-ins, the live and recent checks, the id and path checks ([`child`], [`own_entries`],
//! [`is_plain`] here, the rest in the engine's guard), running the steps in order and putting
//! back what a failure leaves.

use std::fs::DirEntry;
use std::path::{Path, PathBuf};

use agent_sessions_model::SessionMeta;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, OpenFlags};
use serde::{Deserialize, Serialize};

use super::Capability;

/// What an agent does for trash and delete.
#[derive(Debug, Clone, Copy)]
pub struct Trash {
    /// Moving a session where the user can get it back (the OS trash, the agent's archive).
    pub trash: Capability<Planner>,
    /// Deleting a session for good (`actions.allow_permanent_delete`).
    pub permanent: Capability<Planner>,
    /// Whether the planner asks the agent's own program (found by the registry's `program`)
    /// which session commands it has ([`Ask::program`]).
    pub own_commands: bool,
    /// How the agent's rows are marked archived, for a [`Step::Archive`] it plans.
    pub archive_rows: Option<ArchiveRows>,
    /// Deletes the rows of a [`Step::DeleteRows`] it plans.
    pub delete_rows: Option<DeleteRows>,
}

/// Deletes every row of the sessions `ids` from the agent's database `db`, in one
/// transaction: Err says why nothing was deleted.
pub type DeleteRows = fn(&Path, &[String]) -> Result<(), String>;

/// The subcommands the program at the path lists in its `--help`, run with the variables
/// given, or why it could not be asked.
pub type Subcommands = dyn Fn(&Path, &[(String, String)]) -> Result<Vec<String>, String>;

impl Trash {
    /// The planner for `mode`, or why the agent has none.
    pub fn planner(&self, mode: Mode) -> Result<&Planner, &'static str> {
        match mode {
            Mode::Trash => self.trash.get(),
            Mode::Permanent => self.permanent.get(),
        }
    }
}

/// Lists the steps (in order; only the last may be one that cannot be undone) and the notes
/// shown beside them, or refuses.
pub type Planner = fn(&Ask) -> Result<Planned, Refusal>;

/// A planner's answer: the steps, and what is said to the user beside them.
pub type Planned = (Vec<Step>, Vec<String>);

/// An agent's rows of a [`Step::Archive`]: the engine opens `db`, marks each moved session
/// with `mark` in one transaction, renames the files, and commits only when every rename
/// succeeded.
#[derive(Debug, Clone, Copy)]
pub struct ArchiveRows {
    /// Marks session `id` archived, its file now at `to`, at `now`.
    pub mark: fn(&rusqlite::Transaction<'_>, &str, &Path, DateTime<Utc>) -> rusqlite::Result<()>,
    /// The database in messages ("the … state DB").
    pub db: &'static str,
}

/// What a planner gets from the engine.
pub struct Ask<'a> {
    /// The store root that holds the session.
    pub root: &'a Path,
    pub session: &'a SessionMeta,
    /// Another file the listing reads the same session from (a copy beside it), if any: what
    /// the store keeps by id alone is that one's too.
    pub twin: Option<&'a Path>,
    /// The session's subagent sessions (all descendants).
    pub children: &'a [&'a SessionMeta],
    /// Whether they go too; None: undecided (the plan shows the session alone).
    pub include: Option<bool>,
    pub mode: Mode,
    /// The agent's own program where it was found ([`Trash::own_commands`]).
    pub program: Option<&'a Path>,
    /// The subcommands `program --help` lists, run with `env`, or why it could not be asked
    /// (the engine runs it, with a time limit).
    pub subcommands: &'a Subcommands,
}

impl Ask<'_> {
    /// The sessions that go: the session, and its subagents when they go along.
    pub fn going(&self) -> Vec<&SessionMeta> {
        let mut out = vec![self.session];
        if self.include == Some(true) {
            out.extend(self.children.iter().copied());
        }
        out
    }
}

/// Why a planner planned nothing (the engine's error of the same name, code and text).
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The agent cannot do this for this session.
    Unsupported(String),
    /// The agent's own command always takes the subagents along.
    SubagentsGoAlong(String),
    /// The agent's own command is needed and is not there.
    AgentMissing { agent: &'static str, reason: String },
    /// The store changed between the listing and the plan.
    Stale(String),
}

/// How a session goes away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "TrashMode")]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Somewhere the user can get it back from: the OS trash, or the agent's archive.
    Trash,
    /// Gone for good (`actions.allow_permanent_delete`).
    Permanent,
}

/// One thing the plan does, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "TrashStep")]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Step {
    /// Files and folders moved to the OS trash, where the user can restore them.
    OsTrash { items: Vec<Item> },
    /// The agent's own command, run without a shell (`argv[0]` is the program found).
    Agent {
        argv: Vec<String>,
        /// Variables set for it: the store it works on.
        env: Vec<(String, String)>,
        /// What it does, in words.
        effect: String,
        /// Files that must be gone from where they are once it succeeded.
        #[serde(with = "agent_sessions_model::path::os_vec")]
        #[ts(type = "Array<string>")]
        removes: Vec<PathBuf>,
    },
    /// Codex's own archive, made by us where the installed Codex has no `archive` command:
    /// rollouts renamed into `archived_sessions/`, and their state-DB rows marked archived and
    /// pointed there, all in one transaction.
    Archive {
        moves: Vec<Move>,
        #[serde(with = "agent_sessions_model::path::os_option")]
        #[ts(type = "string | null")]
        db: Option<PathBuf>,
    },
    /// Rows deleted from an agent's database in one transaction (table → rows).
    DeleteRows {
        #[serde(with = "agent_sessions_model::path::os")]
        #[ts(type = "string")]
        db: PathBuf,
        ids: Vec<String>,
        rows: Vec<(String, u64)>,
    },
    /// One session's bytes cut out of a file that holds other sessions too (an Aider run out
    /// of its repository's history): the rest written beside it and renamed over it, the cut
    /// bytes kept as a file of their own in the OS trash (trash) or dropped (permanent).
    Cut(Cut),
}

impl Step {
    /// Whether a later failure can still put this step back.
    pub fn undoable(&self) -> bool {
        matches!(self, Step::OsTrash { .. })
    }
}

/// A [`Step::Cut`]: the bytes `start..end` of `file`, which runs only while the file is exactly
/// as planned (its length and hash, and the range's hash).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "TrashCut")]
pub struct Cut {
    #[serde(with = "agent_sessions_model::path::os")]
    #[ts(type = "string")]
    pub file: PathBuf,
    pub start: u64,
    pub end: u64,
    /// The file as planned: its length and SHA-256 (hex), and the cut range's SHA-256.
    pub file_bytes: u64,
    pub file_sha256: String,
    pub range_sha256: String,
    /// The file the cut bytes are written to, beside `file`, then moved to the OS trash; None
    /// when they are deleted for good.
    #[serde(with = "agent_sessions_model::path::os_option")]
    #[ts(type = "string | null")]
    pub keep_as: Option<PathBuf>,
}

/// What [`split`] read: the file's length, its SHA-256 and the range's (hex).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Measured {
    pub bytes: u64,
    pub file_sha256: String,
    pub range_sha256: String,
}

impl Cut {
    /// Whether `m` is the file as planned.
    pub fn is_planned(&self, m: &Measured) -> bool {
        m.bytes == self.file_bytes
            && m.file_sha256 == self.file_sha256
            && m.range_sha256 == self.range_sha256
    }
}

/// Reads `from` once, in pieces (memory stays small whatever the file's size): the bytes in
/// `start..end` go to `inside`, the others to `outside`, and all are measured.
pub fn split(
    from: &mut dyn std::io::Read,
    start: u64,
    end: u64,
    inside: &mut dyn std::io::Write,
    outside: &mut dyn std::io::Write,
) -> std::io::Result<Measured> {
    use sha2::{Digest, Sha256};
    let (mut file, mut range) = (Sha256::new(), Sha256::new());
    let mut buf = vec![0u8; 64 << 10];
    let mut at = 0u64;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let piece = &buf[..n];
        file.update(piece);
        // The part of this piece inside the range, as offsets into the piece.
        let lo = start.saturating_sub(at).min(n as u64) as usize;
        let hi = end.saturating_sub(at).min(n as u64) as usize;
        let hi = hi.max(lo);
        outside.write_all(&piece[..lo])?;
        inside.write_all(&piece[lo..hi])?;
        range.update(&piece[lo..hi]);
        outside.write_all(&piece[hi..])?;
        at += n as u64;
    }
    let hex = |d: &[u8]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    Ok(Measured {
        bytes: at,
        file_sha256: hex(&file.finalize()),
        range_sha256: hex(&range.finalize()),
    })
}

/// A session's file renamed inside its store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "TrashMove")]
pub struct Move {
    pub id: String,
    #[serde(with = "agent_sessions_model::path::os")]
    #[ts(type = "string")]
    pub from: PathBuf,
    #[serde(with = "agent_sessions_model::path::os")]
    #[ts(type = "string")]
    pub to: PathBuf,
}

/// A file or folder the plan moves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "TrashItem")]
pub struct Item {
    #[serde(with = "agent_sessions_model::path::os")]
    #[ts(type = "string")]
    pub path: PathBuf,
    pub dir: bool,
    /// Bytes (a folder: everything in it).
    pub bytes: u64,
    /// Files in it (1 for a file).
    pub files: u64,
}

impl Item {
    /// `path` as it is now; None when it is not there.
    pub fn at(path: &Path) -> Option<Item> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        if !meta.is_dir() {
            return Some(Item {
                path: path.to_path_buf(),
                dir: false,
                bytes: meta.len(),
                files: 1,
            });
        }
        let (mut bytes, mut files) = (0, 0);
        let mut stack = vec![path.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                match e.file_type() {
                    Ok(t) if t.is_dir() => stack.push(e.path()),
                    Ok(_) => {
                        files += 1;
                        bytes += e.metadata().map(|m| m.len()).unwrap_or(0);
                    }
                    Err(_) => {}
                }
            }
        }
        Some(Item {
            path: path.to_path_buf(),
            dir: true,
            bytes,
            files,
        })
    }
}

/// Whether `b` separates names in a path on this system.
pub fn is_separator(b: u8) -> bool {
    b.is_ascii() && std::path::is_separator(b as char)
}

/// A name that is a file's or folder's own: not empty, not `.` or `..`, no NUL (and on Windows
/// no `:`, which names a drive or a stream).
pub fn is_plain(name: &[u8]) -> bool {
    let drive_or_stream = cfg!(windows) && name.contains(&b':');
    !(matches!(name, b"" | b"." | b"..") || name.contains(&0) || drive_or_stream)
}

/// `folder/name` when `name` is a plain name (a planner's path from a name read in the store,
/// such as a message's id taken from its file name); None for `.`, `..`, empty or a name
/// with a separator.
pub fn child(folder: &Path, name: &str) -> Option<PathBuf> {
    let plain = is_plain(name.as_bytes()) && !name.bytes().any(is_separator);
    plain.then(|| folder.join(name))
}

/// The entries of `dir` when it is a folder of its own; none when it is a link (its entries
/// are another folder's: what is planned from them would be another session's) or not there.
pub fn own_entries(dir: &Path) -> Vec<DirEntry> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .collect(),
        _ => Vec::new(),
    }
}

/// How long a write in an agent's database waits for the agent's own writers.
const BUSY: std::time::Duration = std::time::Duration::from_secs(5);

/// The agent's database opened for a write: never created, its journal mode (WAL) left as the
/// agent set it, waiting for the agent's own writers rather than failing at once.
pub fn open_for_writing(db: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY)?;
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CLI and the app show an action an agent lacks as unavailable with its reason, so
    /// each reason names the agent, and every agent can at least trash or delete (Aider too:
    /// its run is cut out of the file that holds its other runs, `aider/trash.rs`).
    #[test]
    fn every_agent_has_a_mode_and_says_why_it_lacks_one() {
        for agent in crate::registry::AGENTS {
            let modes = [Mode::Trash, Mode::Permanent].map(|m| agent.trash.planner(m));
            assert!(modes.iter().any(Result::is_ok), "{}", agent.label);
            for why in modes.iter().filter_map(|m| m.err()) {
                assert!(why.contains(agent.label), "{}: {why}", agent.label);
            }
        }
    }

    /// Every byte goes to one side, in order, whatever the pieces the reader gives.
    #[test]
    fn split_sends_the_range_inside_and_the_rest_outside() {
        let text: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        for (start, end) in [(0, 0), (0, 10), (70_000, 140_000), (199_990, 200_000)] {
            let (mut inside, mut outside) = (Vec::new(), Vec::new());
            let m = split(&mut &text[..], start, end, &mut inside, &mut outside).unwrap();
            let (s, e) = (start as usize, end as usize);
            assert_eq!(inside, &text[s..e]);
            assert_eq!(outside, [&text[..s], &text[e..]].concat());
            assert_eq!(m.bytes, text.len() as u64);
        }
    }

    #[test]
    fn only_plain_names_make_a_child() {
        let f = Path::new("/s/part");
        assert_eq!(child(f, "msg_1"), Some(f.join("msg_1")));
        for bad in ["", ".", "..", "a/b", "a\0b"] {
            assert_eq!(child(f, bad), None, "{bad:?}");
        }
    }
}
