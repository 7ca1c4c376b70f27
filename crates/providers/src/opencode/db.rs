//! `opencode.db`: the v1 tables (`session`, `message`, `part`; 1.2–1.18) and the v2 tables
//! (`session_v2`, `session_message`; SPEC §4.3). Metadata and counts come from the session rows
//! and SQL aggregates, never from loading transcripts. Every query is short and read-only.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rusqlite::{Connection, Row};
use serde_json::Value;

use super::parts;
use super::{Candidate, Origin};
use crate::sqlite::{self, Columns};
use agent_sessions_model::{Counts, Message, ProviderKind, Role, SessionMeta, Tokens};

/// How many ids go into one `IN (…)` list.
const CHUNK: usize = 400;

/// `(origin, id) → time_updated` for every session row.
pub fn list(conn: &Connection) -> rusqlite::Result<BTreeMap<(Origin, String), i64>> {
    let mut out = BTreeMap::new();
    for (origin, table) in [(Origin::V1, "session"), (Origin::V2, "session_v2")] {
        if !sqlite::has_table(conn, table)? {
            continue;
        }
        let mut stmt = conn.prepare(&format!("SELECT id, time_updated FROM {table}"))?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let id: String = row.get(0)?;
            let updated: i64 = row.get::<_, Option<i64>>(1)?.unwrap_or(0);
            out.insert((origin, id), updated);
        }
    }
    Ok(out)
}

fn placeholders(n: usize) -> String {
    vec!["?"; n].join(",")
}

/// Full metadata for the given sessions of one origin.
pub fn sessions(
    conn: &Connection,
    db_path: &Path,
    origin: Origin,
    ids: &[String],
) -> rusqlite::Result<Vec<Candidate>> {
    let mut out = Vec::new();
    for chunk in ids.chunks(CHUNK) {
        let counts = match origin {
            Origin::V2 => counts_v2(conn, chunk)?,
            _ => counts_v1(conn, chunk)?,
        };
        let table = if origin == Origin::V2 {
            "session_v2"
        } else {
            "session"
        };
        let sql = format!(
            "SELECT s.*, p.worktree AS project_worktree FROM {table} s \
             LEFT JOIN project p ON p.id = s.project_id WHERE s.id IN ({})",
            placeholders(chunk.len())
        );
        let mut stmt = conn.prepare(&sql)?;
        let cols = Columns::of(&stmt);
        let mut rows = stmt.query(rusqlite::params_from_iter(chunk))?;
        while let Some(row) = rows.next()? {
            let Some(id) = cols.text(row, "id") else {
                continue;
            };
            let agg = counts.get(&id).cloned().unwrap_or_default();
            out.push(candidate(&cols, row, origin, db_path, id, agg));
        }
    }
    Ok(out)
}

/// What the aggregates say about one session.
#[derive(Debug, Clone, Default)]
struct Aggregate {
    counts: Counts,
    tokens: Option<Tokens>,
    cost: Option<f64>,
    model: Option<String>,
}

fn candidate(
    cols: &Columns,
    row: &Row<'_>,
    origin: Origin,
    db: &Path,
    id: String,
    agg: Aggregate,
) -> Candidate {
    let mut meta = SessionMeta::new(ProviderKind::Opencode, id, db.to_path_buf());
    meta.parent_id = cols.text(row, "parent_id");
    meta.cwd = cols.text(row, "directory");
    meta.repo_root = cols.text(row, "project_worktree").filter(|w| w != "/");
    meta.title = cols.text(row, "title");
    meta.format_version = cols.text(row, "version");
    meta.created_at = cols
        .integer(row, "time_created")
        .and_then(chrono::DateTime::from_timestamp_millis);
    let updated = cols.integer(row, "time_updated").unwrap_or(0);
    meta.updated_at = chrono::DateTime::from_timestamp_millis(updated);
    meta.archived = cols.integer(row, "time_archived").is_some();
    meta.agent = cols.text(row, "agent");
    if let Some(files) = cols.integer(row, "summary_files") {
        meta.changes = Some(agent_sessions_model::ChangeSummary {
            additions: cols.integer(row, "summary_additions").unwrap_or(0).max(0) as u64,
            deletions: cols.integer(row, "summary_deletions").unwrap_or(0).max(0) as u64,
            files: files.max(0) as u64,
        });
    }
    meta.counts = agg.counts;
    // 1.18 keeps totals on the row; older versions only on the messages.
    meta.tokens = if cols.has("tokens_input") {
        Some(Tokens {
            input: cols.integer(row, "tokens_input").unwrap_or(0) as u64,
            output: cols.integer(row, "tokens_output").unwrap_or(0) as u64,
            cache_read: cols.integer(row, "tokens_cache_read").unwrap_or(0) as u64,
            cache_write: cols.integer(row, "tokens_cache_write").unwrap_or(0) as u64,
        })
    } else {
        agg.tokens
    };
    meta.cost_usd = cols.real(row, "cost").or(agg.cost);
    meta.model = cols
        .text(row, "model")
        .and_then(|m| serde_json::from_str::<Value>(&m).ok())
        .and_then(|m| {
            m["id"]
                .as_str()
                .or(m["modelID"].as_str())
                .map(str::to_owned)
        })
        .or(agg.model);
    Candidate {
        origin,
        time_updated: updated,
        meta,
    }
}

/// SPEC §8 counts for v1 sessions, as aggregates: user messages with a real text or file part,
/// assistant messages that are not compaction summaries, tool parts; tokens and cost summed
/// over assistant messages; the model of the latest assistant message.
///
/// Parsing the rows' JSON is most of a scan (the parts hold every tool output), so each row is
/// parsed once: `json_valid` (which a malformed row needs before `json_extract`, which would
/// fail the query) parses its text on every call, and `json_extract` finds that parse in
/// SQLite's cache, so a row's fields are taken in one `json_extract` of several paths, kept as a
/// small array (`MATERIALIZED`, so it is not evaluated again at each use). Spelled out per
/// field, as before, a part was parsed up to four times and a message eleven.
fn counts_v1(conn: &Connection, ids: &[String]) -> rusqlite::Result<HashMap<String, Aggregate>> {
    let ph = placeholders(ids.len());
    let mut out: HashMap<String, Aggregate> = HashMap::new();
    let sql = format!(
        "WITH parts AS MATERIALIZED (
           SELECT session_id, message_id,
             iif(json_valid(data), json_extract(data, '$.type', '$.synthetic', '$.ignored'), NULL) AS f
           FROM part WHERE session_id IN ({ph})),
         prompt AS (SELECT DISTINCT message_id FROM parts
           WHERE f ->> 0 IN ('text', 'file') AND coalesce(f ->> 1, 0) = 0 AND coalesce(f ->> 2, 0) = 0),
         messages AS MATERIALIZED (
           SELECT id, session_id, time_created,
             iif(json_valid(data), json_extract(data, '$.role', '$.summary', '$.tokens.input',
               '$.tokens.output', '$.tokens.cache.read', '$.tokens.cache.write', '$.cost',
               '$.tokens', '$.modelID'), NULL) AS f
           FROM message WHERE session_id IN ({ph}))
         SELECT 'messages', session_id,
           sum(f ->> 0 = 'user' AND id IN prompt),
           sum(f ->> 0 = 'assistant' AND coalesce(f ->> 1, 0) IS NOT 1),
           sum(coalesce(f ->> 2, 0)), sum(coalesce(f ->> 3, 0)),
           sum(coalesce(f ->> 4, 0)), sum(coalesce(f ->> 5, 0)),
           sum(coalesce(f ->> 6, 0)), sum(f ->> 7 IS NOT NULL)
         FROM messages GROUP BY session_id
         UNION ALL
         SELECT 'tools', session_id, count(*), 0, 0, 0, 0, 0, NULL, 0
         FROM parts WHERE f ->> 0 = 'tool' GROUP BY session_id
         UNION ALL
         -- SQLite returns the bare column of the row that holds max(): the latest assistant's model.
         SELECT 'model', session_id, max(time_created), f ->> 8, 0, 0, 0, 0, NULL, 0
         FROM messages WHERE f ->> 0 = 'assistant' GROUP BY session_id"
    );
    let params: Vec<&String> = ids.iter().chain(ids).collect();
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
    while let Some(row) = rows.next()? {
        let what: String = row.get(0)?;
        let id: String = row.get(1)?;
        let n = |i| {
            row.get::<_, Option<i64>>(i)
                .map(|v| v.unwrap_or(0).max(0) as u64)
        };
        let a = out.entry(id).or_default();
        match what.as_str() {
            "tools" => a.counts.tool_calls = n(2)?,
            "model" => a.model = row.get::<_, Option<String>>(3)?,
            _ => {
                a.counts.user = n(2)?;
                a.counts.assistant = n(3)?;
                if n(9)? > 0 {
                    a.tokens = Some(Tokens {
                        input: n(4)?,
                        output: n(5)?,
                        cache_read: n(6)?,
                        cache_write: n(7)?,
                    });
                    a.cost = row.get::<_, Option<f64>>(8)?;
                }
            }
        }
    }
    Ok(out)
}

/// SPEC §8 counts for v2 sessions: `session_message` rows of type user / assistant, and the
/// tool entries in their content.
fn counts_v2(conn: &Connection, ids: &[String]) -> rusqlite::Result<HashMap<String, Aggregate>> {
    let ph = placeholders(ids.len());
    let mut out: HashMap<String, Aggregate> = HashMap::new();
    let sql = format!(
        "SELECT session_id, sum(type = 'user'), sum(type = 'assistant') FROM session_message
         WHERE session_id IN ({ph}) GROUP BY session_id"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(ids))?;
    while let Some(row) = rows.next()? {
        let id: String = row.get(0)?;
        let a = out.entry(id).or_default();
        a.counts.user = row.get::<_, i64>(1)?.max(0) as u64;
        a.counts.assistant = row.get::<_, i64>(2)?.max(0) as u64;
    }
    let sql = format!(
        "SELECT m.session_id, count(*) FROM session_message m, json_each(iif(json_valid(m.data), m.data, 'null'), '$.content') c
         WHERE m.session_id IN ({ph}) AND m.type = 'assistant'
           AND json_extract(c.value, '$.type') = 'tool'
         GROUP BY m.session_id"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(ids))?;
    while let Some(row) = rows.next()? {
        let id: String = row.get(0)?;
        out.entry(id).or_default().counts.tool_calls = row.get::<_, i64>(1)?.max(0) as u64;
    }
    Ok(out)
}

/// A v1 transcript: messages in time order, each with its parts in id order (part ids sort by
/// creation time).
pub fn load_v1(conn: &Connection, id: &str) -> rusqlite::Result<Vec<Message>> {
    let mut parts: HashMap<String, Vec<Value>> = HashMap::new();
    let mut stmt =
        conn.prepare("SELECT message_id, id, data FROM part WHERE session_id = ?1 ORDER BY id")?;
    let mut rows = stmt.query([id])?;
    while let Some(row) = rows.next()? {
        let message_id: String = row.get(0)?;
        let mut data = json(&row.get::<_, String>(2)?);
        data["id"] = Value::String(row.get(1)?);
        parts.entry(message_id).or_default().push(data);
    }
    let mut out = Vec::new();
    let mut stmt = conn
        .prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id")?;
    let mut rows = stmt.query([id])?;
    while let Some(row) = rows.next()? {
        let message_id: String = row.get(0)?;
        let data = json(&row.get::<_, String>(1)?);
        let these = parts.remove(&message_id).unwrap_or_default();
        out.push(parts::message(&message_id, &data, &these));
    }
    Ok(out)
}

/// A v2 transcript: `session_message` rows in `seq` order; `data.content[]` entries have the
/// shapes of v1 parts.
pub fn load_v2(conn: &Connection, id: &str) -> rusqlite::Result<Vec<Message>> {
    let mut out = Vec::new();
    let mut stmt = conn.prepare(
        "SELECT id, type, data, time_created FROM session_message WHERE session_id = ?1 ORDER BY seq",
    )?;
    let mut rows = stmt.query([id])?;
    while let Some(row) = rows.next()? {
        let message_id: String = row.get(0)?;
        let kind: String = row.get(1)?;
        let mut data = json(&row.get::<_, String>(2)?);
        if data["time"]["created"].is_null() {
            data["time"] = serde_json::json!({ "created": row.get::<_, Option<i64>>(3)? });
        }
        let content: Vec<Value> = data["content"].as_array().cloned().unwrap_or_default();
        let mut as_v1 = data.clone();
        as_v1["role"] = Value::String(match kind.as_str() {
            "user" | "synthetic" => "user".into(),
            "assistant" => "assistant".into(),
            other => other.into(),
        });
        let mut message = parts::message(&message_id, &as_v1, &content);
        match kind.as_str() {
            // The row type decides what counts (SPEC §8), whatever the content holds.
            "user" | "assistant" => {
                message.role = if kind == "user" {
                    Role::User
                } else {
                    Role::Assistant
                };
                message.counted = true;
                message.meta = false;
            }
            "compaction" => {
                let summary = content
                    .iter()
                    .filter_map(|c| c["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n");
                message.parts = vec![agent_sessions_model::Part::Compaction {
                    trigger: data["auto"]
                        .as_bool()
                        .map(|a| if a { "auto" } else { "manual" }.to_owned()),
                    pre_tokens: None,
                    summary: (!summary.is_empty()).then_some(summary),
                }];
                message.meta = false;
            }
            "synthetic" => {
                message.counted = false;
                message.meta = true;
            }
            _ => message.meta = true,
        }
        if kind == "idle" {
            continue;
        }
        out.push(message);
    }
    Ok(out)
}

/// Hands `each` the JSON text of every row [`load_v1`] or [`load_v2`] reads for session `id`,
/// until it returns false. `Ok(false)` when a row's data is not text (the load would fail on
/// it too): the caller must then parse the session to learn why.
pub fn each_raw(
    conn: &Connection,
    v2: bool,
    id: &str,
    each: &mut dyn FnMut(&[u8]) -> bool,
) -> rusqlite::Result<bool> {
    let sql = if v2 {
        "SELECT data FROM session_message WHERE session_id = ?1"
    } else {
        "SELECT data FROM message WHERE session_id = ?1 \
         UNION ALL SELECT data FROM part WHERE session_id = ?1"
    };
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query([id])?;
    while let Some(row) = rows.next()? {
        let rusqlite::types::ValueRef::Text(data) = row.get_ref(0)? else {
            return Ok(false);
        };
        if !each(data) {
            break;
        }
    }
    Ok(true)
}

/// The rows behind one message as stored (the raw-JSON view): the v1 `message` row and its
/// `part` rows, or the v2 `session_message` row, each with where it is.
pub fn raw(
    conn: &Connection,
    v2: bool,
    session: &str,
    message: &str,
) -> rusqlite::Result<Vec<(String, Value)>> {
    let sql = if v2 {
        "SELECT 'session_message', id, data FROM session_message WHERE id = ?1 AND session_id = ?2"
    } else {
        "SELECT 'message', id, data FROM message WHERE id = ?1 AND session_id = ?2 \
         UNION ALL SELECT 'part', id, data FROM part WHERE message_id = ?1 AND session_id = ?2"
    };
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query([message, session])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let table: String = row.get(0)?;
        let id: String = row.get(1)?;
        let data: String = row.get(2)?;
        out.push((format!("{table} {id}"), json(&data)));
    }
    Ok(out)
}

/// One part's data (v1 `part` table), for blobs.
pub fn part(conn: &Connection, id: &str) -> rusqlite::Result<Option<Value>> {
    use rusqlite::OptionalExtension;
    let data: Option<String> = conn
        .query_row("SELECT data FROM part WHERE id = ?1", [id], |r| r.get(0))
        .optional()?;
    Ok(data.map(|d| json(&d)))
}

/// A row's `data`: an object, or `null` for anything else (not JSON, or JSON of another
/// shape), which reads as an empty object and can be written into without a panic.
fn json(text: &str) -> Value {
    match serde_json::from_str(text) {
        Ok(v @ Value::Object(_)) => v,
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A v1 database (the 1.18 tables that matter here) holding `messages` as
    /// `(session, id, time, data)` and `parts` as `(session, message, data)`.
    fn v1(messages: &[(&str, &str, i64, &str)], parts: &[(&str, &str, &str)]) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, data text NOT NULL);
             CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, data text NOT NULL);",
        )
        .unwrap();
        for (session, id, time, data) in messages {
            conn.execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![id, session, time, data],
            )
            .unwrap();
        }
        for (n, (session, message, data)) in parts.iter().enumerate() {
            conn.execute(
                "INSERT INTO part VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![format!("prt_{n:03}"), message, session, data],
            )
            .unwrap();
        }
        conn
    }

    /// Counts the calls of `json_valid` on `conn`: it is replaced by one that checks its text
    /// with serde_json. SQLite's own parses its argument on every call (it does not look in the
    /// parse cache `json_extract` shares), so its calls are the rows' JSON parses.
    fn count_json_valid(conn: &Connection) -> Box<std::sync::atomic::AtomicUsize> {
        use rusqlite::ffi;
        use std::os::raw::{c_int, c_void};
        unsafe extern "C" fn valid(
            ctx: *mut ffi::sqlite3_context,
            _argc: c_int,
            argv: *mut *mut ffi::sqlite3_value,
        ) {
            // SAFETY: SQLite calls this with the one argument the function was made with, and
            // the user data is the counter the test keeps alive while the connection is open.
            unsafe {
                let calls =
                    &*(ffi::sqlite3_user_data(ctx) as *const std::sync::atomic::AtomicUsize);
                calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let arg = *argv;
                let ok = ffi::sqlite3_value_type(arg) == ffi::SQLITE_TEXT && {
                    let text = ffi::sqlite3_value_text(arg);
                    let len = ffi::sqlite3_value_bytes(arg) as usize;
                    let bytes = std::slice::from_raw_parts(text, len);
                    serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok()
                };
                ffi::sqlite3_result_int(ctx, c_int::from(ok));
            }
        }
        let calls = Box::new(std::sync::atomic::AtomicUsize::new(0));
        // SAFETY: the handle is this open connection's; the counter outlives it in the test.
        let rc = unsafe {
            ffi::sqlite3_create_function_v2(
                conn.handle(),
                c"json_valid".as_ptr(),
                1,
                ffi::SQLITE_UTF8,
                &*calls as *const _ as *mut c_void,
                Some(valid),
                None,
                None,
                None,
            )
        };
        assert_eq!(rc, ffi::SQLITE_OK);
        calls
    }

    /// A scan's aggregates parse each row's JSON once: the parts hold every tool output (most
    /// of a database), and each field taken with its own `json_valid` parsed a part up to four
    /// times and a message ten or eleven.
    #[test]
    fn the_aggregates_parse_each_row_once() {
        let assistant = r#"{"role":"assistant","modelID":"m","tokens":{"input":1},"cost":0.1}"#;
        let conn = v1(
            &[
                ("ses_a", "m1", 1, r#"{"role":"user"}"#),
                ("ses_a", "m2", 2, assistant),
                ("ses_b", "b1", 1, r#"{"role":"user"}"#),
            ],
            &[
                ("ses_a", "m1", r#"{"type":"text","text":"hi"}"#),
                ("ses_a", "m1", r#"{"type":"file","synthetic":false}"#),
                ("ses_a", "m2", r#"{"type":"tool","tool":"bash"}"#),
                ("ses_a", "m2", r#"{"type":"text","text":"done"}"#),
                ("ses_b", "b1", r#"{"type":"text","text":"x""#),
            ],
        );
        let calls = count_json_valid(&conn);
        let ids = vec!["ses_a".to_owned(), "ses_b".to_owned()];
        let got = counts_v1(&conn, &ids).unwrap();
        assert_eq!(
            got["ses_a"].counts.tool_calls, 1,
            "the replacement validates as SQLite"
        );
        assert_eq!(got["ses_a"].counts.user, 1);
        let rows = 3 + 5;
        let parsed = calls.load(std::sync::atomic::Ordering::Relaxed);
        assert!(parsed <= rows, "{parsed} parses of {rows} rows");
        drop(conn); // before the counter its function points to
    }

    /// What each session's rows add up to, for every rule of the counts at once: a user
    /// message counts when one of its parts is a text or file part that is neither synthetic
    /// nor ignored; an assistant message unless it is a summary; every tool part, whether or
    /// not its message row is there; tokens and cost over every message that has them; rows
    /// whose JSON does not parse count as nothing.
    #[test]
    fn the_aggregates_follow_the_counting_rules_part_by_part() {
        let tokens = r#""tokens":{"input":10,"output":5,"cache":{"read":3,"write":2}}"#;
        let a5 = format!(r#"{{"role":"assistant","modelID":"m-old",{tokens},"cost":0.5}}"#);
        let a6 = format!(r#"{{"role":"assistant","summary":true,{tokens},"cost":0.25}}"#);
        let a7 = r#"{"role":"assistant","modelID":"m-new"}"#;
        let conn = v1(
            &[
                ("ses_a", "m1", 1, r#"{"role":"user"}"#),
                ("ses_a", "m2", 2, r#"{"role":"user"}"#),
                ("ses_a", "m3", 3, r#"{"role":"user"}"#),
                ("ses_a", "m4", 4, r#"{"role":"user"}"#),
                ("ses_a", "m5", 5, &a5),
                ("ses_a", "m6", 6, &a6),
                ("ses_a", "m7", 7, a7),
                ("ses_a", "m8", 8, r#"{"role":"user""#),
                ("ses_c", "c1", 1, r#"{"role":"user"}"#),
            ],
            &[
                ("ses_a", "m1", r#"{"type":"text","text":"hi"}"#),
                (
                    "ses_a",
                    "m2",
                    r#"{"type":"text","text":"x","synthetic":true}"#,
                ),
                ("ses_a", "m3", r#"{"type":"file","ignored":true}"#),
                ("ses_a", "m3", r#"{"type":"text""#),
                ("ses_a", "m4", r#"{"type":"step-start"}"#),
                ("ses_a", "m4", r#"{"type":"file","synthetic":false}"#),
                ("ses_a", "m5", r#"{"type":"tool","tool":"bash"}"#),
                ("ses_a", "m5", r#"{"type":"text","text":"\"tool\""}"#),
                ("ses_a", "m7", r#"{"type":"tool","tool":"read"}"#),
                ("ses_a", "m8", r#"{"type":"text","text":"lost"}"#),
                ("ses_b", "gone", r#"{"type":"tool"}"#),
                ("ses_c", "c1", r#"{"type":"reasoning","text":"t"}"#),
            ],
        );
        let ids: Vec<String> = ["ses_a", "ses_b", "ses_c", "ses_none"]
            .map(String::from)
            .to_vec();
        let got = counts_v1(&conn, &ids).unwrap();
        let a = &got["ses_a"];
        let counts = |a: &Aggregate| (a.counts.user, a.counts.assistant, a.counts.tool_calls);
        assert_eq!(
            counts(a),
            (2, 2, 2),
            "m1 and m4; m5 and m7; m5's and m7's tools"
        );
        let t = a.tokens.as_ref().expect("m5 and m6 record tokens");
        let sums = (t.input, t.output, t.cache_read, t.cache_write);
        assert_eq!(sums, (20, 10, 6, 4));
        assert_eq!(a.cost, Some(0.75));
        assert_eq!(a.model.as_deref(), Some("m-new"), "the latest assistant's");
        let b = &got["ses_b"];
        assert_eq!(counts(b), (0, 0, 1), "a tool part without its message row");
        assert!(b.tokens.is_none() && b.cost.is_none() && b.model.is_none());
        let c = &got["ses_c"];
        assert_eq!(counts(c), (0, 0, 0), "a reasoning part is no prompt");
        assert!(c.tokens.is_none() && c.cost.is_none());
        assert!(!got.contains_key("ses_none"));
    }
}
