//! Qwen Code's JSONL records (0.5+, docs/formats.md, "Qwen Code", Records): every line
//! `{uuid, parentUuid, sessionId, timestamp, type, subtype?, provenance?, cwd, version,
//! message: {parts}, …}`. The conversation is the `parentUuid` chain from the last record back
//! to a root: a rewind leaves other branches in the file, which are not the conversation.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::error::Error;
use crate::genai::parts::{pieces, Piece};
use crate::genai::session::{parse_time, tokens_named, At, Builder, Built};
use crate::jsonl::for_each_record;
use agent_sessions_model::{Diagnostic, Diagnostics, NoticeKind, ProviderKind};

/// A session file read: its transcript and what its records say about it.
#[derive(Debug, Default)]
pub(crate) struct Read {
    pub built: Built,
    pub diagnostics: Diagnostics,
    /// The first record's `sessionId` (a subagent's records carry the parent's).
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub version: Option<String>,
    pub git_branch: Option<String>,
}

struct Record {
    value: Value,
    at: At,
}

/// Reads a session file and builds the conversation on its last chain.
pub(crate) fn read(path: &Path, builder: Builder) -> Result<Read, Error> {
    let mut records = Vec::new();
    let diagnostics = for_each_record(ProviderKind::Qwen, path, |value, offset, line| {
        records.push(Record {
            value: value.clone(),
            at: At {
                line: Some(line),
                offset,
            },
        });
    })?;
    let mut out = Read {
        diagnostics,
        ..Read::default()
    };
    let str_of = |r: &Record, k: &str| r.value.get(k).and_then(Value::as_str).map(str::to_owned);
    out.session_id = records.iter().find_map(|r| str_of(r, "sessionId"));
    let chain = chain(&records);
    out.cwd = chain.iter().find_map(|&i| str_of(&records[i], "cwd"));
    out.version = chain
        .iter()
        .rev()
        .find_map(|&i| str_of(&records[i], "version"));
    out.git_branch = chain
        .iter()
        .rev()
        .find_map(|&i| str_of(&records[i], "gitBranch"));
    let mut b = builder;
    for &i in &chain {
        if let Err(reason) = add(&mut b, &records[i]) {
            out.diagnostics.push(Diagnostic {
                provider: ProviderKind::Qwen,
                path: path.to_path_buf(),
                line: records[i].at.line,
                reason,
            });
        }
    }
    out.built = b.finish();
    Ok(out)
}

/// The indices of the records on the chain that ends at the last record with a `uuid`, in file
/// order. A `parentUuid` loop (a damaged file) ends the walk.
fn chain(records: &[Record]) -> Vec<usize> {
    fn uuid(r: &Record) -> Option<&str> {
        r.value.get("uuid").and_then(Value::as_str)
    }
    let by_uuid: HashMap<&str, usize> = records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| Some((uuid(r)?, i)))
        .collect();
    let mut out = Vec::new();
    let mut next = records.iter().rposition(|r| uuid(r).is_some());
    while let Some(i) = next {
        if out.len() > records.len() {
            break;
        }
        out.push(i);
        next = records[i]
            .value
            .get("parentUuid")
            .and_then(Value::as_str)
            .and_then(|p| by_uuid.get(p).copied())
            .filter(|&p| p < i);
    }
    out.reverse();
    out
}

/// One record on the chain into the transcript; `Err` names a record type not known here.
fn add(b: &mut Builder, r: &Record) -> Result<(), String> {
    let v = &r.value;
    let s = |k: &str| v.get(k).and_then(Value::as_str);
    let id = s("uuid").unwrap_or_default();
    let time = parse_time(s("timestamp"));
    let parts = v
        .get("message")
        .and_then(|m| m.get("parts"))
        .unwrap_or(&Value::Null);
    match s("type").unwrap_or_default() {
        // A prompt; a notification (`subtype`) or one the CLI sent (`provenance: system`) is not.
        "user" if s("subtype").is_none() && matches!(s("provenance"), None | Some("real_user")) => {
            b.user(id, time, r.at, parts)
        }
        "user" => b.injected(id, time, r.at, parts),
        "assistant" => {
            if let Some(t) = v.get("usageMetadata").and_then(|u| tokens_named(u, USAGE)) {
                b.tokens(t);
            }
            b.assistant(id, time, r.at, parts, Vec::new(), Vec::new(), s("model"));
        }
        "tool_result" => {
            let result = v.get("toolCallResult");
            let status = result.and_then(|t| t.get("status")).and_then(Value::as_str);
            let display = result.and_then(|t| t.get("resultDisplay"));
            for p in pieces(parts) {
                if let Piece::Response { id, response, .. } = p {
                    let call = id.unwrap_or_default();
                    let whole = whole_output(response, display.and_then(Value::as_str));
                    b.result(call, whole.as_ref().unwrap_or(response), status, r.at);
                    if let Some(d) = display {
                        b.changes(call, d);
                    }
                }
            }
        }
        "system" => {
            let event = v
                .get("systemPayload")
                .and_then(|p| p.get("uiEvent"))
                .filter(|e| e.get("event.name").and_then(Value::as_str) == Some(API_ERROR));
            if let Some(e) = event {
                // `error_message` (0.2x) or `error` (0.5).
                let text = ["error_message", "error"]
                    .iter()
                    .find_map(|k| e.get(*k).and_then(Value::as_str))
                    .unwrap_or("the model call failed");
                b.notice(id, time, r.at, NoticeKind::Error, text.to_owned());
            }
        }
        other => return Err(format!("unknown record type {other:?}; skipped")),
    }
    Ok(())
}

/// The whole output of a shell command whose response to the model was cut in the middle
/// (0.5 keeps it whole in `toolCallResult.resultDisplay`, a plain string): that text, where it
/// is longer than what the model got.
fn whole_output(response: &Value, display: Option<&str>) -> Option<Value> {
    let sent = crate::genai::parts::response_text(response);
    let display = display.filter(|d| d.len() > sent.len())?;
    Some(serde_json::json!({ "output": display }))
}

/// The telemetry event of a failed model call.
const API_ERROR: &str = "qwen-code.api_error";

/// `usageMetadata`'s names for (input, cached, output, thoughts).
const USAGE: [&str; 4] = [
    "promptTokenCount",
    "cachedContentTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn read_lines(lines: &[&str]) -> Read {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        read(&path, Builder::default()).unwrap()
    }

    #[test]
    fn follows_the_last_chain_and_names_unknown_records() {
        let r = read_lines(&[
            r#"{"uuid":"u1","parentUuid":null,"sessionId":"s","cwd":"/w","type":"user","message":{"parts":[{"text":"first"}]}}"#,
            r#"{"uuid":"a1","parentUuid":"u1","type":"assistant","model":"m","message":{"parts":[{"text":"abandoned"}]}}"#,
            r#"{"uuid":"a2","parentUuid":"u1","type":"assistant","model":"m","usageMetadata":{"promptTokenCount":10,"cachedContentTokenCount":4,"candidatesTokenCount":2},"message":{"parts":[{"functionCall":{"id":"c","name":"ls","args":{}}}]}}"#,
            r#"{"uuid":"t1","parentUuid":"a2","type":"tool_result","toolCallResult":{"status":"error"},"message":{"parts":[{"functionResponse":{"id":"c","name":"ls","response":{"error":"no"}}}]}}"#,
            r#"{"uuid":"x1","parentUuid":"t1","type":"brand_new"}"#,
            r#"{"uuid":"e1","parentUuid":"x1","type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_error","error_message":"boom"}}}"#,
        ]);
        let counts = agent_sessions_model::Counts::of(&r.built.messages);
        assert_eq!(
            (counts.user, counts.assistant, counts.tool_calls),
            (1, 1, 1)
        );
        assert_eq!(r.session_id.as_deref(), Some("s"));
        assert_eq!(r.cwd.as_deref(), Some("/w"));
        let tokens = r.built.tokens.unwrap();
        assert_eq!((tokens.input, tokens.cache_read, tokens.output), (6, 4, 2));
        assert_eq!(r.diagnostics.parse_errors, 1, "{:?}", r.diagnostics);
        let last = r.built.messages.last().unwrap();
        assert!(matches!(&last.parts[0],
            agent_sessions_model::Part::Notice { source: NoticeKind::Error, text } if text == "boom"));
        let abandoned =
            r.built.messages.iter().flat_map(|m| &m.parts).any(
                |p| matches!(p, agent_sessions_model::Part::Text { text } if text == "abandoned"),
            );
        assert!(!abandoned);
    }

    #[test]
    fn a_parent_loop_ends_the_chain() {
        let r = read_lines(&[
            r#"{"uuid":"a","parentUuid":"b","type":"user","message":{"parts":[{"text":"x"}]}}"#,
            r#"{"uuid":"b","parentUuid":"a","type":"user","message":{"parts":[{"text":"y"}]}}"#,
        ]);
        assert_eq!(r.built.messages.len(), 2);
    }
}
