//! Gemini CLI's `ConversationRecord`, rebuilt the way the CLI's own loader does: before 0.39
//! one JSON document (`{sessionId, projectHash, startTime, lastUpdated, messages[], …}`,
//! rewritten whole at each change; Qwen Code wrote it too before 0.5), from 0.39 a JSONL log
//! replayed line by line (docs/formats.md, "Gemini CLI", Records):
//!
//! - `{sessionId, projectHash, …}` merges into the metadata (written again at each resume);
//! - `{id, type, …}` is a message; a later line with the same `id` replaces it in place;
//! - `{"$set": {…}}` merges into the metadata, and `$set.messages` replaces every message (a
//!   checkpoint);
//! - `{"$rewindTo": id}` drops that message and every later one (an unknown id drops all).
//!
//! A checkpoint (0.61 writes one at each resume) keeps only what the model is sent again: tool
//! calls as `functionCall` parts, reasoning as `thought` parts, no tokens, no model. The fields
//! it lacks are taken from the message it replaces, so a resumed session keeps the tokens,
//! models and tool results of the turns before the resume.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::Error;
use crate::files;
use crate::jsonl::{for_each_record, parse_line};
use agent_sessions_model::{Diagnostic, Diagnostics, ProviderKind};

/// One message of the conversation, with where it was last written.
#[derive(Debug, Clone)]
pub(crate) struct Rec {
    pub value: Value,
    /// The 1-based line that wrote it (JSONL); `None` in a JSON document.
    pub line: Option<u64>,
    /// The byte offset of that line (0 in a JSON document).
    pub offset: u64,
}

/// A session file replayed.
#[derive(Debug, Default)]
pub(crate) struct Replayed {
    pub meta: Map<String, Value>,
    pub messages: Vec<Rec>,
    pub diagnostics: Diagnostics,
}

impl Replayed {
    /// A file is a session once its metadata names it (`sessionId`); Gemini's loader also wants
    /// `projectHash`, which every version writes beside it.
    pub fn session_id(&self) -> Option<&str> {
        self.meta
            .get("sessionId")?
            .as_str()
            .filter(|s| !s.is_empty())
    }

    pub fn meta_str(&self, key: &str) -> Option<&str> {
        self.meta.get(key)?.as_str()
    }
}

/// Reads a session file of either generation (`.jsonl`: the replay log; else one document).
pub(crate) fn read(provider: ProviderKind, path: &Path) -> Result<Replayed, Error> {
    if path.extension().is_some_and(|e| e == "jsonl") {
        read_log(provider, path)
    } else {
        read_document(provider, path)
    }
}

fn read_document(provider: ProviderKind, path: &Path) -> Result<Replayed, Error> {
    let bytes = files::read_document(path, files::MAX_DOCUMENT).map_err(|e| Error::io(path, e))?;
    let mut out = Replayed::default();
    let doc = match parse_line::<Value>(&bytes) {
        Ok(Value::Object(doc)) => doc,
        Ok(_) => {
            out.diagnostics
                .push(problem(provider, path, None, "not a JSON object".into()));
            return Ok(out);
        }
        // A document being rewritten may be read half-written: it is read again when its
        // stamp changes, and is reported until then.
        Err(reason) => {
            out.diagnostics.push(problem(provider, path, None, reason));
            return Ok(out);
        }
    };
    for (key, value) in doc {
        if key == "messages" {
            let list = value.as_array().map(Vec::as_slice).unwrap_or_default();
            out.messages = list.iter().filter(|m| m.is_object()).map(doc_rec).collect();
        } else {
            out.meta.insert(key, value);
        }
    }
    Ok(out)
}

fn doc_rec(value: &Value) -> Rec {
    Rec {
        value: value.clone(),
        line: None,
        offset: 0,
    }
}

/// The messages being replayed: in order, each findable by id.
#[derive(Default)]
struct Messages {
    list: Vec<Option<Rec>>,
    at: HashMap<String, usize>,
    /// The fields a checkpoint leaves out ([`KEPT`]) of every message written so far, by id,
    /// also of messages no longer in `list` (0.61 resets to the `<session_context>` message
    /// alone before the resume's checkpoint brings the history back).
    kept: HashMap<String, Map<String, Value>>,
}

/// What a checkpoint leaves out of a message, taken back from its earlier version.
const KEPT: [&str; 4] = ["toolCalls", "thoughts", "tokens", "model"];

impl Messages {
    fn put(&mut self, id: String, rec: Rec) {
        let kept: Map<String, Value> = KEPT
            .iter()
            .filter_map(|k| Some(((*k).to_owned(), rec.value.get(*k)?.clone())))
            .collect();
        if !kept.is_empty() {
            self.kept.entry(id.clone()).or_default().extend(kept);
        }
        match self.at.get(&id) {
            Some(&i) => self.list[i] = Some(rec),
            None => {
                self.at.insert(id, self.list.len());
                self.list.push(Some(rec));
            }
        }
    }

    fn rewind(&mut self, id: &str) {
        let cut = self.at.get(id).copied().unwrap_or(0);
        self.list.truncate(cut);
        self.at.retain(|_, i| *i < cut);
    }

    /// Replaces every message with a checkpoint's, each completed from its earlier versions.
    fn checkpoint(&mut self, messages: &[Value], line: u64, offset: u64) {
        self.list.clear();
        self.at.clear();
        for m in messages {
            let Some(id) = m.get("id").and_then(Value::as_str) else {
                continue;
            };
            let mut value = m.clone();
            if let (Some(new), Some(old)) = (value.as_object_mut(), self.kept.get(id)) {
                for (k, v) in old {
                    if !new.contains_key(k) {
                        new.insert(k.clone(), v.clone());
                    }
                }
            }
            let rec = Rec {
                value,
                line: Some(line),
                offset,
            };
            self.put(id.to_owned(), rec);
        }
    }

    fn into_recs(self) -> Vec<Rec> {
        self.list.into_iter().flatten().collect()
    }
}

fn read_log(provider: ProviderKind, path: &Path) -> Result<Replayed, Error> {
    let mut meta = Map::new();
    let mut messages = Messages::default();
    let mut unknown = Diagnostics::default();
    let diagnostics = for_each_record(provider, path, |value, offset, line| {
        let Some(rec) = value.as_object() else {
            unknown.push(problem(
                provider,
                path,
                Some(line),
                "not a JSON object; skipped".into(),
            ));
            return;
        };
        if let Some(to) = rec.get("$rewindTo").and_then(Value::as_str) {
            messages.rewind(to);
        } else if let Some(id) = rec.get("id").and_then(Value::as_str) {
            let line = Some(line);
            messages.put(
                id.to_owned(),
                Rec {
                    value: value.clone(),
                    line,
                    offset,
                },
            );
        } else if let Some(set) = rec.get("$set").and_then(Value::as_object) {
            for (key, v) in set {
                match (key.as_str(), v.as_array()) {
                    ("messages", Some(list)) => messages.checkpoint(list, line, offset),
                    _ => {
                        meta.insert(key.clone(), v.clone());
                    }
                }
            }
        } else if rec.get("sessionId").is_some_and(Value::is_string) {
            meta.extend(rec.iter().map(|(k, v)| (k.clone(), v.clone())));
        } else {
            let what = rec.keys().next().map_or("an empty object", String::as_str);
            let reason = format!("unknown record (first key {what:?}); skipped");
            unknown.push(problem(provider, path, Some(line), reason));
        }
    })?;
    let mut out = Replayed {
        meta,
        messages: messages.into_recs(),
        diagnostics,
    };
    out.diagnostics.merge(&unknown);
    Ok(out)
}

fn problem(provider: ProviderKind, path: &Path, line: Option<u64>, reason: String) -> Diagnostic {
    Diagnostic {
        provider,
        path: path.to_path_buf(),
        line,
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replay(lines: &[&str]) -> Replayed {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        read(ProviderKind::Gemini, &path).unwrap()
    }

    fn ids(r: &Replayed) -> Vec<&str> {
        r.messages
            .iter()
            .map(|m| m.value["id"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn replays_replacements_checkpoints_and_rewinds() {
        let r = replay(&[
            r#"{"sessionId":"s1","projectHash":"h","startTime":"t0"}"#,
            r#"{"id":"a","type":"user","content":"one"}"#,
            r#"{"id":"b","type":"gemini","content":"","tokens":{"input":5}}"#,
            r#"{"id":"b","type":"gemini","content":"","tokens":{"input":5},"toolCalls":[{"id":"c"}]}"#,
            r#"{"$set":{"lastUpdated":"t1"}}"#,
            r#"{"$set":{"messages":[{"id":"a","type":"user","content":"one"},{"id":"b","type":"gemini","content":[{"functionCall":{"id":"c","name":"x"}}]}]}}"#,
            r#"{"id":"d","type":"user","content":"two"}"#,
            r#"{"id":"e","type":"gemini","content":"reply"}"#,
            r#"{"$rewindTo":"e"}"#,
            r#"{"what":1}"#,
        ]);
        assert_eq!(r.session_id(), Some("s1"));
        assert_eq!(r.meta_str("lastUpdated"), Some("t1"));
        assert_eq!(ids(&r), ["a", "b", "d"]);
        // The checkpoint's `b` got its tool calls and tokens back from the line it replaced.
        assert_eq!(r.messages[1].value["tokens"]["input"], 5);
        assert_eq!(r.messages[1].value["toolCalls"][0]["id"], "c");
        assert_eq!(r.messages[1].line, Some(6));
        assert_eq!(r.diagnostics.parse_errors, 1);
        assert_eq!(r.diagnostics.items[0].line, Some(10));

        let all_gone = replay(&[
            r#"{"sessionId":"s1","projectHash":"h"}"#,
            r#"{"id":"a","type":"user","content":"one"}"#,
            r#"{"$rewindTo":"nowhere"}"#,
        ]);
        assert!(all_gone.messages.is_empty());
    }
}
