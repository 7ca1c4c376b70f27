//! What an agent's session is inside a bundle and what restoring one into its store writes
//! (files, rows, or the agent's own import command), for the bundle engine
//! (`agent_sessions_core::bundle`).
//!
//! An agent answers with plain values: the native files of a session ([`Bundles::export`]),
//! where the archive keeps them ([`Bundles::layout`]), where its records name the directory,
//! how a copy's ids are made, what a record must say to agree with the manifest, and how the
//! records reach its store ([`Writes`]). The engine owns the rest, once for every agent: the
//! archive and its checks, the preview and its token, the directory rewrite, the all-or-nothing
//! writing and its undo.

use std::path::{Path, PathBuf};

use agent_sessions_model::SessionMeta;
use rusqlite::types::Value as Sql;
use rusqlite::Connection;
use serde_json::Value;

use super::Capability;
use crate::files::Walker;

/// An agent's bundle capability: its records in a bundle, and how they are restored.
pub struct Bundles {
    /// The agent's own records of a session and its subagents, as a complete bundle carries
    /// them; `Err` says why the session has none to carry.
    pub export: fn(&Export) -> Result<Vec<Native>, String>,
    /// Whether `rest`, an archive name below `native/<agent>/`, is where the agent's layout
    /// (`docs/bundle-format.md`) puts a record of the session `owner`.
    pub layout: fn(rest: &str, owner: &str) -> bool,
    /// How a bundle's records are written into the agent's store.
    pub restore: Restore,
}

/// The session a bundle is made of.
pub struct Export<'a> {
    /// The store root holding it.
    pub root: &'a Path,
    pub session: &'a SessionMeta,
    /// Its subagents (all descendants).
    pub children: &'a [&'a SessionMeta],
}

/// One native record of an exported session, or a note on one that was left out.
#[derive(Debug)]
pub enum Native {
    File(NativeFile),
    LeftOut(String),
}

/// A native record: its archive name below `native/<agent>/`, the session it belongs to and
/// where its bytes come from.
#[derive(Debug)]
pub struct NativeFile {
    pub rel: String,
    pub session: String,
    pub source: Source,
}

/// Where a native file's bytes come from. Files are read later, when the bundle is written.
#[derive(Debug)]
pub enum Source {
    /// A store file, its first `len` bytes.
    File { path: PathBuf, len: u64 },
    /// Built by the agent's code (a document of the agent's own export form).
    Bytes(Vec<u8>),
}

/// A whole store file.
pub fn file(path: &Path) -> Result<Source, String> {
    let len = std::fs::metadata(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .len();
    Ok(Source::File {
        path: path.to_path_buf(),
        len,
    })
}

/// A JSONL file up to the end of its last whole line: an agent may be writing the next one.
pub fn whole_lines(path: &Path) -> Result<Source, String> {
    use std::io::{Read, Seek, SeekFrom};
    let fail = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let mut f = crate::files::open_regular(path).map_err(fail)?;
    let size = f.metadata().map_err(fail)?.len();
    let mut end = size;
    let mut buf = vec![0u8; 64 << 10];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        f.seek(SeekFrom::Start(start)).map_err(fail)?;
        f.read_exact(chunk).map_err(fail)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            end = start + i as u64 + 1;
            break;
        }
        end = start;
    }
    Ok(Source::File {
        path: path.to_path_buf(),
        len: end,
    })
}

/// A record file as a bundle carries it: a JSONL file to its last whole line, anything else
/// whole.
pub fn record(path: &Path, name: &str) -> Result<Source, String> {
    if name.ends_with(".jsonl") {
        whole_lines(path)
    } else {
        file(path)
    }
}

/// Every regular file below `dir` (links not followed), with its path relative to `dir`
/// (`/`-separated), in name order.
pub fn folder_files(dir: &Path) -> Vec<(PathBuf, String)> {
    Walker::default()
        .files(dir, |_| true)
        .into_iter()
        .filter_map(|p| {
            let rel = p
                .strip_prefix(dir)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            Some((p, rel))
        })
        .collect()
}

/// How a bundle's records are restored into the agent's store.
pub struct Restore {
    /// Why a bundle cannot be restored into this agent's store (yet), if it cannot: the
    /// restore is refused before anything is planned, and `agents`/docs/agents.md say why.
    pub lacks: Option<&'static str>,
    /// Keys whose values are the session's directory in the agent's records (rewritten to the
    /// directory restored into).
    pub dir_keys: &'static [&'static str],
    /// Texts the agent wrote into the history right before the directory.
    pub dir_markers: &'static [&'static str],
    /// A restore as a copy: the new id for the bundle's id `old`, made from random bytes (32,
    /// the same for the preview and the restore it allows).
    pub copy: Capability<fn(old: &str, random: &[u8]) -> String>,
    /// The other form an id takes in the agent's records, if any (rewritten with it).
    pub alias: fn(id: &str) -> Option<&str>,
    pub writes: Writes,
}

/// No other form of an id.
pub fn no_alias(_: &str) -> Option<&str> {
    None
}

/// How the records reach the store.
pub enum Writes {
    /// The records are files, created where the agent keeps them.
    Files(Files),
    /// The records are one document per session (the agent's own export form), imported by
    /// the agent's own command or written as rows.
    Documents(Documents),
    /// The session's record is appended to a file in the directory restored into (the agent
    /// keeps no store of its own: Aider's history beside the project).
    Append(Append),
}

/// A record appended to a file of the directory restored into (see [`Writes::Append`]). The
/// bundle holds one such record, the main session's; the file's earlier bytes stay as they
/// were.
pub struct Append {
    /// The file's name in the directory (`.aider.chat.history.md`).
    pub file: &'static str,
    /// What the record is, for a refusal ("an Aider run").
    pub what: &'static str,
    /// Checks a line of the record (1-based `number`) as the agent will read it; `Err` is what
    /// is wrong with it (a run's record is one run: its header first, no other header).
    pub check_line: fn(number: usize, line: &[u8]) -> Result<(), String>,
    /// What the record, whose first line is `first`, becomes once appended to `file` as the
    /// file is now (absent: empty); `Err` is why the file cannot be read.
    pub appended: fn(file: &Path, first: &str) -> Result<Appended, String>,
    /// Written before the record, as the agent itself starts one (Aider: a blank line).
    pub separator: &'static [u8],
}

/// A record once appended (see [`Append::appended`]).
pub struct Appended {
    /// The id the agent gives the session.
    pub id: String,
    /// A record the file holds already that the appended one would repeat (its line), if any:
    /// the restore is refused rather than making a second copy.
    pub repeats: Option<u64>,
}

/// Records that are files.
pub struct Files {
    /// The folder the archive's `native/<agent>/` maps to, for the store `root` and the
    /// directory the session continues in.
    pub base: fn(root: &Path, dir: &str) -> PathBuf,
    /// Checks a line of a JSONL record (as it will be written) against the manifest.
    pub check_line: fn(&Line) -> Result<Flow, Fault>,
    /// An index the agent lists its sessions from, beside the files.
    pub index: Option<Index>,
    /// Files the agent writes beside its records to say which directory a project folder
    /// belongs to (Gemini CLI's `.project_root`), for the store `root` and the directory:
    /// (path, contents), only those not there yet. The restore creates them with the records
    /// (the preview lists them) and its undo removes them.
    pub markers: Option<fn(root: &Path, dir: &str) -> Vec<Marker>>,
}

/// A file written beside the records: its path and contents.
pub type Marker = (PathBuf, String);

/// A line of a record file, with what the manifest says of its session.
pub struct Line<'a> {
    /// The line as restored.
    pub text: &'a str,
    /// 1-based.
    pub number: usize,
    /// The session the file belongs to: its id in the bundle…
    pub owner: &'a str,
    /// …and the id it gets in the store.
    pub id: &'a str,
    /// Its parent as the manifest says, by the id it gets.
    pub parent: Option<&'a str>,
    /// Every session of the bundle: (id in the bundle, id it gets).
    pub sessions: &'a [(String, String)],
    /// A record as a tree within the engine's memory budget: `None` for text that is not one
    /// (a torn line, which the agent skips too), [`Stopped`] when it is too large to check.
    pub parse: &'a dyn Fn(&str) -> Result<Option<Value>, Stopped>,
}

/// Go on to the next line, or the file is done with.
pub enum Flow {
    Next,
    Done,
}

/// Why a record is refused.
pub enum Fault {
    /// The record says something its manifest does not: what it says ("names the session …").
    Disagrees(String),
    /// The engine refused it (its reason is the engine's: see [`Line::parse`]).
    Stopped(Stopped),
}

/// The engine stopped reading a record; it keeps why.
#[derive(Debug)]
pub struct Stopped;

impl From<Stopped> for Fault {
    fn from(s: Stopped) -> Self {
        Fault::Stopped(s)
    }
}

/// An index the agent lists its sessions from (a database, or a JSON list), which a restored
/// file gets its row in.
pub struct Index {
    /// The index of the store at `root` that lists the files `targets` a restore creates, when
    /// there is one (the agent may not have made it yet; one agent's generations keep
    /// different indexes, told apart by the files).
    pub find: fn(root: &Path, targets: &[PathBuf]) -> Option<PathBuf>,
    /// What the preview says about it (the index, or none yet).
    pub note: fn(db: Option<&Path>) -> String,
    /// Whether a restored line may be one the row is made of (the rest are not parsed).
    pub wants: fn(line: &str) -> bool,
    /// What keeps the wanted records of one restored file.
    pub keeper: fn() -> Box<dyn Keep>,
    /// Every restored file's rows into the index `at`, all or none (a database's in one
    /// transaction); on `Err` the index is as it was.
    pub insert: fn(at: &Path, &[Row]) -> Result<(), String>,
}

/// Keeps what a restored file's row is made of, a record at a time.
pub trait Keep {
    /// One wanted record, parsed.
    fn record(&mut self, record: Value);
    /// The rows of the file, written at `path`, of the session titled `title`.
    fn rows(self: Box<Self>, path: &Path, title: &str) -> Vec<Row>;
}

/// One row into a table of an agent's database.
pub struct Row {
    pub table: &'static str,
    pub values: Vec<(&'static str, Sql)>,
}

/// Records that are one document per session.
pub struct Documents {
    /// What a document is, for the refusal of one that is not ("an OpenCode session").
    pub what: &'static str,
    /// Whether a parsed document has the document's shape.
    pub is_document: fn(&Value) -> bool,
    /// Whether a copy of the session `id` is in the store at `root` (where).
    pub existing: fn(root: &Path, id: &str) -> Option<PathBuf>,
    /// Checks a document against what the manifest says of its session (see [`Doc`]); `Err`
    /// is what the document says that the manifest does not.
    pub check: fn(&Doc) -> Result<(), String>,
    /// Puts the directory restored into in the checked document, with the fields the agent
    /// requires of it.
    pub finish: fn(doc: &mut Value, dir: &str),
    /// How the documents go into the store at `root`: `program` is the agent's own program
    /// when one was found, `version` the agent's version that wrote the session.
    pub way: ChooseWay,
    /// Writes every document (`docs` yields them in order, parents first) the `way` said;
    /// what the agent's own command printed.
    pub write: WriteDocs,
}

/// How the documents go into the store at `root` (see [`Documents::way`]).
pub type ChooseWay = fn(
    root: &Path,
    program: Option<&Path>,
    version: Option<&str>,
    host: &dyn Host,
) -> Result<Way, String>;

/// Writes every document (see [`Documents::write`]).
pub type WriteDocs = fn(&Write, &mut dyn Docs, &dyn Host) -> Result<Vec<String>, Failed>;

/// A session's document, and what the manifest says of the session.
pub struct Doc<'a> {
    pub doc: &'a Value,
    pub id: &'a str,
    /// Its parent as the manifest says.
    pub parent: Option<&'a str>,
    /// Its title as the manifest shows it.
    pub title: &'a str,
}

/// How the documents go into the store.
#[derive(Debug, Clone, PartialEq)]
pub enum Way {
    /// The agent's own import command, once per session.
    Import { program: PathBuf },
    /// Rows inserted into the agent's database in one transaction.
    Rows { db: PathBuf },
}

/// What a document restore writes.
pub struct Write<'a> {
    pub way: &'a Way,
    pub root: &'a Path,
    pub dir: &'a Path,
    /// The sessions, parents first.
    pub ids: &'a [String],
}

/// The documents of a restore, each read (and checked) again when it is written, one at a
/// time: a document may be large.
pub trait Docs {
    /// The `i`th document, checked and finished; `Err` is why it cannot be used.
    fn get(&mut self, i: usize) -> Result<Value, String>;
}

/// A write that failed part way: what it was doing, why, and what that left.
#[derive(Debug)]
pub struct Failed {
    pub what: String,
    pub reason: String,
    pub state: String,
}

/// What the engine lends an agent's restore code.
pub trait Host {
    /// Runs `argv` (with `env` added, in `cwd`) as the engine runs an agent's commands: within
    /// a time limit, never through a shell. `Ok` is what it printed.
    fn run(
        &self,
        argv: &[String],
        env: &[(String, String)],
        cwd: Option<&Path>,
    ) -> Result<String, String>;
    /// What `program --help` prints, within the few seconds a `--help` needs.
    fn help(&self, program: &Path) -> Result<String, String>;
    /// The agent's database opened for a write: never created, its journal mode left as the
    /// agent set it, waiting for the agent's own writers.
    fn open(&self, db: &Path) -> rusqlite::Result<Connection>;
    /// Deletes every row of the sessions `ids` from the agent's database `db` in one
    /// transaction, as the trash engine deletes them (the undo of a failed import).
    fn delete(&self, db: &Path, ids: &[String]) -> Result<(), String>;
}

/// One row into `table` of a database whose columns change from release to release: only the
/// columns this version of the schema has; a required column left without a value gets an
/// empty text or 0, as its type says.
pub fn insert(conn: &Connection, table: &str, values: &[(&str, Sql)]) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info(\"{table}\")"))?;
    let columns: Vec<(String, String, bool, bool)> = stmt
        .query_map([], |r| {
            let dflt: Option<String> = r.get(4)?;
            Ok((
                r.get(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)? != 0,
                dflt.is_some(),
            ))
        })?
        .filter_map(Result::ok)
        .collect();
    let mut names = Vec::new();
    let mut params = Vec::new();
    for (name, kind, not_null, has_default) in &columns {
        let given = values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .filter(|v| *v != Sql::Null);
        let value = match given {
            Some(v) => v,
            None if *not_null && !*has_default => {
                if kind.to_ascii_lowercase().contains("int") {
                    Sql::Integer(0)
                } else {
                    Sql::Text(String::new())
                }
            }
            None => continue,
        };
        names.push(format!("\"{}\"", name.replace('"', "\"\"")));
        params.push(value);
    }
    let sql = format!(
        "INSERT INTO \"{table}\" ({}) VALUES ({})",
        names.join(", "),
        vec!["?"; names.len()].join(", ")
    );
    conn.execute(&sql, rusqlite::params_from_iter(params))?;
    Ok(())
}

/// A new UUID (version 4) from the first 16 of `random`.
pub fn uuid_from(random: &[u8]) -> String {
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&random[..16]);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}

/// A JSON value for a message: a string quoted (unsafe characters as `\u{…}`, cut to 80
/// characters), anything else as JSON.
pub fn shown_value(v: &Value) -> String {
    let shown =
        |t: &str| agent_sessions_model::resume::shown(&t.chars().take(80).collect::<String>());
    match v.as_str() {
        Some(text) => format!("\"{}\"", shown(text)),
        None => shown(&v.to_string()),
    }
}

/// The resume check of an agent whose resume names a session by id alone and finds its file
/// itself: `Err` when the file the agent opens for `id` (the id resumed, a subagent's
/// parent's) is not the session's own.
pub type WhichCopy = fn(session: &SessionMeta, id: &str) -> Result<(), OtherCopy>;

/// A session whose resume would carry on another copy of it.
#[derive(Debug)]
pub struct OtherCopy {
    pub id: String,
    pub cwd: String,
    /// The file of the row the user chose (for a subagent, its parent's file).
    pub chosen: PathBuf,
    /// The file the agent opens, if any.
    pub opens: Option<PathBuf>,
    /// Every file holding the id, when the directory's own project has none.
    pub found: Vec<PathBuf>,
}
