//! What of a transcript goes into the search index, and keeping the index rows of a session in
//! step with it: one FTS row per message (plus one for the title), rewritten only when that
//! message's text changed. A message id seen twice in one transcript (a line written again)
//! gets a row per occurrence, keyed `id`, `id\u{1f}2`, …, each naming the message `id` (an id
//! holding U+001F itself has it made U+FFFD in its keys, see `key_base`).
//! Title rows live in the cache file; message rows in the file of the session's shard.

use std::collections::HashMap;

use rusqlite::{params, Transaction};
use serde_json::Value;

use super::tokens::NewTerms;
use crate::model::{Message, Part};

/// Tool output indexed per call: errors and commands are near the start; the rest of a huge
/// output adds little to search and much to the index.
const TOOL_OUTPUT_INDEXED: usize = 16 << 10;

/// The searchable text of each shown message: its text, reasoning, tool names, inputs and
/// outputs, changed file paths, notices and compaction summaries. Meta records are left out.
/// A message's id and searchable text, or `None` for meta records and messages with no text.
pub fn searchable(m: &Message) -> Option<(String, String)> {
    if m.meta {
        return None;
    }
    let text = message_text(m);
    (!text.trim().is_empty()).then(|| (m.id.clone(), text))
}

fn message_text(m: &Message) -> String {
    let mut out = String::new();
    let mut add = |s: &str| {
        if !s.is_empty() {
            out.push_str(s);
            out.push('\n');
        }
    };
    for p in &m.parts {
        match p {
            Part::Text { text } | Part::Reasoning { text, .. } => add(text),
            Part::Tool(t) => {
                add(&t.name);
                add(&input_text(&t.input));
                if let Some(o) = &t.output {
                    add(head(o, TOOL_OUTPUT_INDEXED));
                }
                for c in &t.changes {
                    add(&c.path);
                }
            }
            Part::Patch { files } => {
                for f in files {
                    add(&f.path);
                }
            }
            Part::File { path, .. } => add(path.as_deref().unwrap_or("")),
            Part::Compaction { summary, .. } => add(summary.as_deref().unwrap_or("")),
            Part::Notice { text, .. } => add(text),
        }
    }
    out
}

/// The string values of a tool input (commands, paths, patterns), not its JSON syntax.
fn input_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(input_text).collect::<Vec<_>>().join(" "),
        Value::Object(map) => map.values().map(input_text).collect::<Vec<_>>().join(" "),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn head(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The title row of a session has an empty message id.
const TITLE_ROW: &str = "";

/// The database a writer's own connection writes to: the cache file itself for titles and the
/// first shard, a shard's own file for the others (see `SHARDS` in the parent module).
const MAIN: &str = "main";

/// An index row of a session as stored: its hash, FTS rowid and line (see [`Row::line`]).
#[derive(Clone, Copy)]
struct Stored {
    hash: i64,
    fts_rowid: i64,
    line: u64,
}

/// The index rows of `session` in the text tables of database `db` (`main` or an attached
/// shard, see `SHARDS` in the parent module) from line `from` on, by row key. The keys of the
/// rows before that line go to `before`.
fn existing(
    tx: &Transaction<'_>,
    db: &str,
    session: i64,
    from: u64,
    before: &mut Vec<String>,
) -> rusqlite::Result<HashMap<String, Stored>> {
    let mut stmt = tx.prepare_cached(&format!(
        "SELECT message_id, hash, fts_rowid, line FROM {db}.indexed_messages WHERE session = ?1"
    ))?;
    let mut rows = stmt.query([session])?;
    let mut from_line = HashMap::new();
    while let Some(r) = rows.next()? {
        let key: String = r.get(0)?;
        let line = u64::try_from(r.get::<_, i64>(3)?).unwrap_or(0);
        if line < from {
            before.push(key);
        } else {
            let (hash, fts_rowid) = (r.get(1)?, r.get(2)?);
            from_line.insert(
                key,
                Stored {
                    hash,
                    fts_rowid,
                    line,
                },
            );
        }
    }
    Ok(from_line)
}

/// Adds the FTS row of message `message_id` (`key` is its row key in `indexed_messages`).
fn insert_row(
    tx: &Transaction<'_>,
    session: i64,
    (key, message_id): (&str, &str),
    (title, body): (&str, &str),
    hash: i64,
    line: u64,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO fts (title, body, session, message_id) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![title, body, session, message_id])?;
    let fts_rowid = tx.last_insert_rowid();
    tx.prepare_cached(
        "INSERT INTO indexed_messages (session, message_id, hash, fts_rowid, line) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (session, message_id) DO UPDATE SET hash = excluded.hash, fts_rowid = excluded.fts_rowid, line = excluded.line",
    )?
    .execute(params![session, key, hash, fts_rowid, line as i64])?;
    Ok(())
}

/// Moves the row `key` of `session` to `line`, its text unchanged.
fn set_line(tx: &Transaction<'_>, session: i64, key: &str, line: u64) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "UPDATE indexed_messages SET line = ?3 WHERE session = ?1 AND message_id = ?2",
    )?
    .execute(params![session, key, line as i64])
    .map(drop)
}

fn delete_row(
    tx: &Transaction<'_>,
    db: &str,
    session: i64,
    message_id: &str,
    fts_rowid: i64,
) -> rusqlite::Result<()> {
    tx.prepare_cached(&format!("DELETE FROM {db}.fts WHERE rowid = ?1"))?
        .execute([fts_rowid])?;
    tx.prepare_cached(&format!(
        "DELETE FROM {db}.indexed_messages WHERE session = ?1 AND message_id = ?2"
    ))?
    .execute(params![session, message_id])?;
    Ok(())
}

/// A message text's hash. A cache written with another hash function (fnv1a, before) only
/// sees its rows as changed: a session indexed again rewrites them once.
pub(crate) fn hash(text: &str) -> i64 {
    xxhash_rust::xxh3::xxh3_64(text.as_bytes()) as i64
}

/// One message's searchable text with its hash (what tells whether its index row is current),
/// hashed where the text is extracted: on the writing thread, hashing 195 MB of text cost
/// 0.3 s of the 300 MB corpus's critical path (`docs/performance.md`).
pub struct Row {
    pub id: String,
    pub text: String,
    pub hash: i64,
    /// The first line of the message's records (0: none), which tells whether a read resumed
    /// at a line reads it again (see `super::resume`).
    pub line: u64,
}

impl Row {
    /// The row of a message with searchable text (see [`searchable`]).
    pub fn of(m: &Message) -> Option<Row> {
        let (id, text) = searchable(m)?;
        let hash = hash(&text);
        let line = m.source_lines.iter().min().copied().unwrap_or(0);
        Some(Row {
            id,
            text,
            hash,
            line,
        })
    }
}

/// Separates a message id from the occurrence number in the row key of a repeated id.
const DUPLICATE: char = '\u{1f}';

/// The part of a row key that names message `id`: the id, with any [`DUPLICATE`] in it (a
/// transcript's ids are its own) made U+FFFD, so that a key splits at its first one into what
/// names the message and the occurrence number, and an id never takes another's key.
fn key_base(id: &str) -> std::borrow::Cow<'_, str> {
    match id.contains(DUPLICATE) {
        true => std::borrow::Cow::Owned(id.replace(DUPLICATE, "\u{fffd}")),
        false => std::borrow::Cow::Borrowed(id),
    }
}

/// The row key of the `n`th occurrence (from 1) of the message whose [`key_base`] is `base`.
fn row_key(base: &str, n: usize) -> std::borrow::Cow<'_, str> {
    match n {
        1 => std::borrow::Cow::Borrowed(base),
        n => std::borrow::Cow::Owned(format!("{base}{DUPLICATE}{n}")),
    }
}

/// What [`row_key`] made `key` of: its base and occurrence number.
fn key_parts(key: &str) -> (&str, usize) {
    match key.split_once(DUPLICATE) {
        Some((base, n)) => (base, n.parse().unwrap_or(1)),
        None => (key, 1),
    }
}

/// Makes the message rows of `session` equal the rows handed to [`SessionRows::write`], chunk
/// after chunk, touching only what changed: through the connection of the session's shard,
/// whose own file is its `main`. A transcript of any size is written with the memory of a
/// chunk and of its row keys; a long one in several transactions ([`SessionRows::reload`] at
/// the start of each after the first). A read resumed at line `from` hands over the messages
/// from that line on: the rows of earlier lines stay, and only count for the occurrence numbers
/// of repeated ids.
pub struct SessionRows {
    session: i64,
    from: u64,
    /// Rows of the session not met again yet, by row key.
    old: HashMap<String, Stored>,
    /// How often each message id was met, by [`key_base`] (a repeated id gets a row per
    /// occurrence).
    seen: HashMap<String, usize>,
}

impl SessionRows {
    pub fn begin(tx: &Transaction<'_>, session: i64, from: u64) -> rusqlite::Result<SessionRows> {
        let mut before = Vec::new();
        let mut old = existing(tx, MAIN, session, from, &mut before)?;
        old.remove(TITLE_ROW);
        let mut seen: HashMap<String, usize> = HashMap::new();
        for key in before.iter().filter(|k| !k.is_empty()) {
            let (base, n) = key_parts(key);
            let count = seen.entry(base.to_owned()).or_default();
            *count = (*count).max(n);
        }
        Ok(SessionRows {
            session,
            from,
            old,
            seen,
        })
    }

    /// Reads the session's rows again at the start of a later transaction of the same pass
    /// (another process's writer may have written them in between), leaving out those this
    /// pass met already.
    pub fn reload(&mut self, tx: &Transaction<'_>) -> rusqlite::Result<()> {
        let mut old = existing(tx, MAIN, self.session, self.from, &mut Vec::new())?;
        old.remove(TITLE_ROW);
        for (base, &n) in &self.seen {
            for k in 1..=n {
                old.remove(row_key(base, k).as_ref());
            }
        }
        self.old = old;
        Ok(())
    }

    /// Writes the next messages of the session; returns the bytes of text written.
    pub fn write(&mut self, tx: &Transaction<'_>, messages: &[Row]) -> rusqlite::Result<usize> {
        let mut written = 0;
        for Row {
            id,
            text,
            hash: h,
            line,
        } in messages
        {
            let base = key_base(id);
            let n = self.seen.entry(base.to_string()).or_default();
            *n += 1;
            let key = row_key(&base, *n);
            match self.old.remove(key.as_ref()) {
                // The same text: its row stays, saying where the message is now (a whole read
                // after lines were put in or taken out before it), or a later read resumed
                // between its old and new line would count it before the resume line and
                // index it again as a second occurrence (or drop it as gone).
                Some(old) if old.hash == *h => {
                    if old.line != *line {
                        set_line(tx, self.session, &key, *line)?;
                    }
                    continue;
                }
                Some(old) => delete_row(tx, MAIN, self.session, &key, old.fts_rowid)?,
                None => {}
            }
            insert_row(tx, self.session, (&key, id), ("", text), *h, *line)?;
            written += text.len();
        }
        Ok(written)
    }

    /// Drops the rows of messages the session no longer has.
    pub fn finish(self, tx: &Transaction<'_>) -> rusqlite::Result<()> {
        for (key, old) in self.old {
            delete_row(tx, MAIN, self.session, &key, old.fts_rowid)?;
        }
        Ok(())
    }
}

/// Keeps the title row of `session` equal to `title`.
pub fn write_title(
    tx: &Transaction<'_>,
    session: i64,
    title: &str,
    terms: &mut NewTerms,
) -> rusqlite::Result<()> {
    let h = hash(title);
    let old = tx
        .prepare_cached(
            "SELECT hash, fts_rowid FROM indexed_messages WHERE session = ?1 AND message_id = ?2",
        )?
        .query_row(params![session, TITLE_ROW], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
        })
        .ok();
    match old {
        Some((old_hash, _)) if old_hash == h => return Ok(()),
        Some((_, fts_rowid)) => delete_row(tx, MAIN, session, TITLE_ROW, fts_rowid)?,
        None => {}
    }
    if !title.is_empty() {
        insert_row(tx, session, (TITLE_ROW, TITLE_ROW), (title, ""), h, 0)?;
        let mut new = Vec::new();
        terms.add(title, &mut new);
        add_terms(tx, &new)?;
    }
    Ok(())
}

/// Lists terms in `terms` (those already there are kept).
pub fn add_terms(tx: &Transaction<'_>, terms: &[String]) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare_cached("INSERT OR IGNORE INTO terms (term) VALUES (?1)")?;
    for term in terms {
        stmt.execute([term])?;
    }
    Ok(())
}

/// Drops every index row of `session` in database `db`.
pub fn remove(tx: &Transaction<'_>, db: &str, session: i64) -> rusqlite::Result<()> {
    for (id, old) in existing(tx, db, session, 0, &mut Vec::new())? {
        delete_row(tx, db, session, &id, old.fts_rowid)?;
    }
    super::resume::forget(tx, db, session)
}
