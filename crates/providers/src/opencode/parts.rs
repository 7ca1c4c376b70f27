//! OpenCode messages and parts → the unified model. The JSON of a message (`data` column, or a
//! `storage/message/…json` file) and of its parts is the same in the legacy JSON storage and the
//! v1 tables, so one converter serves both; the counting rules here are the ones the SQL
//! aggregates in `db.rs` express.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::blob::BlobKey;
use crate::cut;
use agent_sessions_model::{
    Counts, FileChange, Message, NoticeKind, Part, Role, Tokens, ToolPart, ToolStatus,
};

/// Tool output longer than this is cut to a preview; the rest is a blob (`part:<id>`).
pub const INLINE_OUTPUT: usize = 32 << 10;

/// A user message counts when it has a text or file part the user wrote: not `synthetic`
/// (OpenCode's "Continue if you have next steps…" after a compaction), not `ignored`. A message
/// of only a `compaction` part (the compaction request) does not count.
pub fn is_user_prompt_part(part: &Value) -> bool {
    matches!(part["type"].as_str(), Some("text" | "file"))
        && !part["synthetic"].as_bool().unwrap_or(false)
        && !part["ignored"].as_bool().unwrap_or(false)
}

/// An assistant message counts unless it is a compaction summary (`summary: true`).
pub fn is_counted_assistant(message: &Value) -> bool {
    message["summary"].as_bool() != Some(true)
}

/// What the messages of a session stored as JSON files add up to: the counts above, token and
/// cost sums over assistant messages, the latest model, and where the session ran. The legacy
/// and 0.x storages share it; `db.rs` expresses the same rules as SQL aggregates.
#[derive(Debug, Default, PartialEq)]
pub struct Tally {
    pub counts: Counts,
    pub tokens: Option<Tokens>,
    pub cost: Option<f64>,
    pub model: Option<String>,
    /// `path.cwd` and `path.root` of the first assistant message that has them (the session
    /// rows of 1.x name the directory; the 0.x session files do not).
    pub cwd: Option<String>,
    pub root: Option<String>,
    /// The latest `time.created` / `time.completed` of any message, in ms.
    pub last_time: Option<i64>,
}

/// Tallies `(message, parts)` pairs in order.
pub fn tally<'a>(messages: impl IntoIterator<Item = (&'a Value, &'a [Value])>) -> Tally {
    let mut t = Tally::default();
    for (msg, parts) in messages {
        for time in [&msg["time"]["created"], &msg["time"]["completed"]] {
            t.last_time = t.last_time.max(time.as_i64());
        }
        match msg["role"].as_str() {
            Some("user") => t.counts.user += u64::from(parts.iter().any(is_user_prompt_part)),
            Some("assistant") => tally_assistant(&mut t, msg, parts),
            _ => {}
        }
    }
    t
}

fn tally_assistant(t: &mut Tally, msg: &Value, parts: &[Value]) {
    t.counts.assistant += u64::from(is_counted_assistant(msg));
    t.counts.tool_calls += parts.iter().filter(|p| p["type"] == "tool").count() as u64;
    if let Some(m) = msg["modelID"].as_str() {
        t.model = Some(m.to_owned());
    }
    if t.cwd.is_none() {
        t.cwd = msg["path"]["cwd"].as_str().map(str::to_owned);
        t.root = msg["path"]["root"].as_str().map(str::to_owned);
    }
    if msg["tokens"].is_object() {
        let tokens = &msg["tokens"];
        let n = |v: &Value| v.as_u64().unwrap_or(0);
        t.tokens.get_or_insert_with(Tokens::default).add(&Tokens {
            input: n(&tokens["input"]),
            output: n(&tokens["output"]),
            cache_read: n(&tokens["cache"]["read"]),
            cache_write: n(&tokens["cache"]["write"]),
        });
    }
    if let Some(c) = msg["cost"].as_f64() {
        *t.cost.get_or_insert(0.0) += c;
    }
}

pub fn millis(v: &Value) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp_millis(v.as_i64()?)
}

/// Converts one message and its parts (in order).
pub fn message(id: &str, msg: &Value, parts: &[Value]) -> Message {
    let role = msg["role"].as_str().unwrap_or("");
    let timestamp = millis(&msg["time"]["created"]);
    let mut out = Message {
        parent_id: msg["parentID"].as_str().map(str::to_owned),
        model: msg["modelID"].as_str().map(str::to_owned),
        parts: parts.iter().filter_map(part).collect(),
        ..crate::build::message(id.to_owned(), Role::System, timestamp, None)
    };
    count_patches(&mut out.parts);
    match role {
        "user" => {
            if parts.iter().any(is_user_prompt_part) {
                out.role = Role::User;
                out.counted = true;
            } else if !out
                .parts
                .iter()
                .any(|p| matches!(p, Part::Compaction { .. }))
            {
                // Only synthetic text: injected by OpenCode, hidden by default.
                out.meta = true;
            }
        }
        "assistant" if is_counted_assistant(msg) => {
            out.role = Role::Assistant;
            out.counted = true;
        }
        "assistant" => {
            // A compaction summary: one compaction part holding the summary text.
            let summary: Vec<String> = out
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text { text } => Some(text.clone()),
                    _ => None,
                })
                .collect();
            out.parts = vec![Part::Compaction {
                trigger: Some("summary".into()),
                pre_tokens: None,
                summary: (!summary.is_empty()).then(|| summary.join("\n")),
            }];
        }
        _ => out.meta = true,
    }
    out
}

/// Gives each patch part's files the lines added and removed, and the diffs, of the edits
/// before it: OpenCode's patch part (the files a step changed, at its end) names files only,
/// while its edit and write tools before it carry the diffs and counts of those files.
fn count_patches(parts: &mut [Part]) {
    let mut since_last: Vec<FileChange> = Vec::new();
    for p in parts.iter_mut() {
        match p {
            Part::Tool(t) => since_last.extend(t.changes.iter().cloned()),
            Part::Patch { files } => {
                for f in files.iter_mut() {
                    let edits: Vec<&FileChange> =
                        since_last.iter().filter(|c| c.path == f.path).collect();
                    if let Some(first) = edits.first() {
                        f.change = first.change.clone();
                    }
                    f.additions = edits.iter().map(|c| c.additions).sum();
                    f.deletions = edits.iter().map(|c| c.deletions).sum();
                    let diffs: Vec<&str> = edits.iter().filter_map(|c| c.diff.as_deref()).collect();
                    f.diff = (!diffs.is_empty()).then(|| diffs.join("\n"));
                }
                since_last.clear();
            }
            _ => {}
        }
    }
}

/// One part, or `None` for bookkeeping parts (step start/finish, snapshots).
pub fn part(p: &Value) -> Option<Part> {
    let text = || p["text"].as_str().unwrap_or("").to_owned();
    Some(match p["type"].as_str()? {
        "text" => Part::Text { text: text() },
        "reasoning" => Part::Reasoning {
            text: text(),
            encrypted: false,
        },
        "tool" => Part::Tool(tool(p)),
        "patch" => Part::Patch {
            files: p["files"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|f| FileChange {
                    path: f.to_owned(),
                    change: "update".into(),
                    diff: None,
                    additions: 0,
                    deletions: 0,
                })
                .collect(),
        },
        "file" => Part::File {
            path: p["filename"]
                .as_str()
                .or_else(|| p["source"]["path"].as_str())
                .map(str::to_owned),
            mime: p["mime"].as_str().map(str::to_owned),
            blob: p["id"]
                .as_str()
                .map(|id| BlobKey::Part(id.to_owned()).key()),
        },
        "compaction" => Part::Compaction {
            trigger: Some(
                if p["auto"].as_bool() == Some(true) {
                    "auto"
                } else {
                    "manual"
                }
                .into(),
            ),
            pre_tokens: None,
            summary: None,
        },
        "step-start" | "step-finish" | "snapshot" => return None,
        other => crate::build::notice(
            NoticeKind::Part(other.to_owned()),
            p["text"]
                .as_str()
                .or_else(|| p["name"].as_str())
                .or_else(|| p["description"].as_str())
                .unwrap_or("")
                .to_owned(),
        ),
    })
}

fn tool(p: &Value) -> ToolPart {
    let state = &p["state"];
    let status = match state["status"].as_str() {
        Some("completed") => ToolStatus::Ok,
        Some("error") => ToolStatus::Error,
        _ => ToolStatus::Pending,
    };
    let output = state["output"]
        .as_str()
        .or_else(|| state["error"].as_str())
        .map(str::to_owned);
    let truncated = output.as_ref().is_some_and(|o| o.len() > INLINE_OUTPUT);
    let meta = &state["metadata"];
    ToolPart {
        call_id: p["callID"].as_str().unwrap_or("").to_owned(),
        name: p["tool"].as_str().unwrap_or("").to_owned(),
        input: state["input"].clone(),
        status,
        output: output.map(|o| cut(o, INLINE_OUTPUT)),
        output_truncated: truncated,
        output_blob: truncated
            .then(|| {
                p["id"]
                    .as_str()
                    .map(|id| BlobKey::Part(id.to_owned()).key())
            })
            .flatten(),
        changes: changes(&state["input"], meta),
        subagent_id: meta["sessionId"].as_str().map(str::to_owned),
    }
}

/// Edits carry a unified diff in `metadata.diff` (`filediff` has the counts); writes carry the
/// new content in their input.
fn changes(input: &Value, meta: &Value) -> Vec<FileChange> {
    let path = input["filePath"]
        .as_str()
        .or_else(|| meta["filepath"].as_str());
    let Some(path) = path else {
        return Vec::new();
    };
    if let Some(diff) = meta["diff"].as_str() {
        let lines = diff
            .lines()
            .filter(|l| !l.starts_with("+++") && !l.starts_with("---"));
        let (mut add, mut del) = (0, 0);
        for l in lines {
            add += u64::from(l.starts_with('+'));
            del += u64::from(l.starts_with('-'));
        }
        return vec![FileChange {
            path: path.to_owned(),
            change: "update".into(),
            diff: Some(diff.to_owned()),
            additions: meta["filediff"]["additions"].as_u64().unwrap_or(add),
            deletions: meta["filediff"]["deletions"].as_u64().unwrap_or(del),
        }];
    }
    if let Some(content) = input["content"].as_str() {
        let lines: Vec<&str> = content.lines().collect();
        let diff: String = lines.iter().map(|l| format!("+{l}\n")).collect();
        return vec![FileChange {
            path: path.to_owned(),
            change: if meta["exists"].as_bool() == Some(true) {
                "update"
            } else {
                "add"
            }
            .into(),
            diff: Some(format!("@@ -0,0 +1,{} @@\n{diff}", lines.len())),
            additions: lines.len() as u64,
            deletions: 0,
        }];
    }
    Vec::new()
}

/// The full output of a tool part, for its blob key.
pub fn full_output(p: &Value) -> Option<String> {
    let state = &p["state"];
    state["output"]
        .as_str()
        .or_else(|| state["error"].as_str())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn compaction_requests_and_synthetic_text_are_not_prompts() {
        let user = json!({"role": "user"});
        let m = message("m1", &user, &[json!({"type": "compaction", "auto": true})]);
        assert!(!m.counted && !m.meta);
        let m = message(
            "m2",
            &user,
            &[json!({"type": "text", "text": "Continue", "synthetic": true})],
        );
        assert!(!m.counted && m.meta);
        let m = message("m3", &user, &[json!({"type": "text", "text": "do it"})]);
        assert!(m.counted && m.role == Role::User);
    }

    #[test]
    fn a_patch_counts_the_edits_of_its_step() {
        let write = |path: &str, content: &str| {
            json!({"type": "tool", "tool": "write", "callID": "c", "state": {"status": "completed",
                "input": {"filePath": path, "content": content}, "output": "", "metadata": {}}})
        };
        let patch = |files: &[&str]| json!({"type": "patch", "hash": "h", "files": files});
        let m = message(
            "a",
            &json!({"role": "assistant"}),
            &[
                write("/w/a.txt", "1\n2\n3"),
                write("/w/b.txt", "x"),
                write("/w/a.txt", "4"),
                patch(&["/w/a.txt", "/w/c.txt"]),
                write("/w/a.txt", "5\n6"),
                patch(&["/w/a.txt"]),
            ],
        );
        // Each patch counts only the edits since the one before; a file no tool edited is 0.
        let counts: Vec<String> = m
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Patch { files } => Some(
                    files
                        .iter()
                        .map(|f| {
                            let diff = if f.diff.is_some() { "diff" } else { "-" };
                            format!(
                                "{} {} +{} -{} {diff}",
                                f.path, f.change, f.additions, f.deletions
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                _ => None,
            })
            .collect();
        assert_eq!(
            counts,
            [
                "/w/a.txt add +4 -0 diff, /w/c.txt update +0 -0 -",
                "/w/a.txt add +2 -0 diff"
            ]
        );
    }

    #[test]
    fn summaries_become_compaction_parts() {
        let m = message(
            "a",
            &json!({"role": "assistant", "summary": true}),
            &[json!({"type": "text", "text": "sum"})],
        );
        assert!(!m.counted);
        assert_eq!(
            m.parts,
            vec![Part::Compaction {
                trigger: Some("summary".into()),
                pre_tokens: None,
                summary: Some("sum".into())
            }]
        );
    }
}
