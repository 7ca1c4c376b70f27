//! The agent's own record(s) behind one message, for the raw-JSON view: the lines of the
//! session file a message was read from (`Message::source_lines`), or, for a store without
//! lines (OpenCode's rows and JSON files), the message's and its parts' JSON as the provider
//! keeps them.
//!
//! What is read is bounded, whatever the file holds: at most [`MAX_RECORDS`] records, each cut
//! at [`MAX_RECORD_BYTES`], and lines not asked for are skipped without being kept in memory.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::catalog::Catalog;
use crate::error::Error;
use crate::model::{Message, SessionMeta};

/// The most records one message shows (a long Codex turn merges many lines).
pub const MAX_RECORDS: usize = 64;
/// The most bytes of one record sent; the rest is counted, not sent.
pub const MAX_RECORD_BYTES: usize = 256 * 1024;

/// One record as the agent wrote it, pretty-printed when it is whole JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct RawRecord {
    /// Where it is: `line 12`, or the row or file it came from (`part prt_…`).
    pub place: String,
    /// 1-based line in the session file, when the store has lines.
    pub line: Option<u64>,
    /// Pretty-printed JSON; the bytes as read (lossy UTF-8) when cut short or not JSON.
    pub text: String,
    /// The record was longer than [`MAX_RECORD_BYTES`]; `text` is its start.
    pub truncated: bool,
}

/// The records behind a message, and how many more there were than were sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct RawRecords {
    pub records: Vec<RawRecord>,
    pub omitted: usize,
}

/// The records behind `message` of `session`.
pub fn records(
    catalog: &Catalog,
    session: &SessionMeta,
    message: &Message,
) -> Result<RawRecords, Error> {
    if !message.source_lines.is_empty() {
        return lines(&session.source_path, &message.source_lines);
    }
    let values = catalog.raw_records(session, &message.id)?;
    let omitted = values.len().saturating_sub(MAX_RECORDS);
    let records = values
        .into_iter()
        .take(MAX_RECORDS)
        .map(|(place, value)| {
            let pretty = serde_json::to_string_pretty(&value).unwrap_or_default();
            let (text, truncated) = cut(pretty.into_bytes());
            RawRecord {
                place,
                line: None,
                text,
                truncated,
            }
        })
        .collect();
    Ok(RawRecords { records, omitted })
}

/// The given 1-based lines of `path`, read in one pass.
pub fn lines(path: &Path, wanted: &[u64]) -> Result<RawRecords, Error> {
    let wanted: BTreeSet<u64> = wanted.iter().copied().filter(|&l| l > 0).collect();
    let omitted = wanted.len().saturating_sub(MAX_RECORDS);
    let wanted: BTreeSet<u64> = wanted.into_iter().take(MAX_RECORDS).collect();
    let Some(&last) = wanted.last() else {
        return Ok(RawRecords::default());
    };
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = BufReader::new(file);
    let mut records = Vec::new();
    let mut line = 1u64;
    while line <= last {
        if wanted.contains(&line) {
            let mut bytes = Vec::new();
            let read = (&mut reader)
                .take(MAX_RECORD_BYTES as u64 + 1)
                .read_until(b'\n', &mut bytes)
                .map_err(|e| Error::io(path, e))?;
            if read == 0 {
                break;
            }
            if bytes.last() != Some(&b'\n') && bytes.len() > MAX_RECORD_BYTES {
                // The rest of a long line is skipped, not kept.
                reader.skip_until(b'\n').map_err(|e| Error::io(path, e))?;
            }
            records.push(record(line, bytes));
        } else if reader.skip_until(b'\n').map_err(|e| Error::io(path, e))? == 0 {
            break;
        }
        line += 1;
    }
    Ok(RawRecords { records, omitted })
}

fn record(line: u64, mut bytes: Vec<u8>) -> RawRecord {
    while matches!(bytes.last(), Some(b'\n' | b'\r')) {
        bytes.pop();
    }
    // Pretty when that still fits; a line that fits only compact is shown as written.
    let pretty = (bytes.len() <= MAX_RECORD_BYTES)
        .then(|| pretty(&bytes))
        .flatten()
        .filter(|p| p.len() <= MAX_RECORD_BYTES);
    let (text, truncated) = match pretty {
        Some(p) => (p, false),
        None => cut(bytes),
    };
    RawRecord {
        place: format!("line {line}"),
        line: Some(line),
        text,
        truncated,
    }
}

/// `json` indented, its keys in the order the agent wrote them and its integers as written
/// (streamed token by token, never through a map); `None` when it is not one JSON value.
fn pretty(json: &[u8]) -> Option<String> {
    let mut out = Vec::new();
    let mut de = serde_json::Deserializer::from_slice(json);
    serde_transcode::transcode(&mut de, &mut serde_json::Serializer::pretty(&mut out)).ok()?;
    de.end().ok()?;
    String::from_utf8(out).ok()
}

/// At most [`MAX_RECORD_BYTES`] of `bytes` as text, and whether it was cut.
fn cut(mut bytes: Vec<u8>) -> (String, bool) {
    let truncated = bytes.len() > MAX_RECORD_BYTES;
    bytes.truncate(MAX_RECORD_BYTES);
    (String::from_utf8_lossy(&bytes).into_owned(), truncated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_only_the_lines_asked_for_and_cuts_long_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let long = format!("{{\"x\":\"{}\"}}", "a".repeat(MAX_RECORD_BYTES * 2));
        std::fs::write(
            &path,
            format!("{{\"a\":1}}\nnot json\n{long}\n{{\"b\":[2]}}\n"),
        )
        .unwrap();
        let got = lines(&path, &[4, 2, 3, 9]).unwrap();
        let texts: Vec<(&str, Option<u64>, bool)> = got
            .records
            .iter()
            .map(|r| (&r.text[..r.text.len().min(8)], r.line, r.truncated))
            .collect();
        assert_eq!(
            texts,
            vec![
                ("not json", Some(2), false),
                ("{\"x\":\"aa", Some(3), true),
                ("{\n  \"b\":", Some(4), false),
            ]
        );
        assert_eq!(got.records[1].text.len(), MAX_RECORD_BYTES);
        // Keys stay in the order the agent wrote them.
        assert_eq!(
            pretty(br#"{"z":1,"a":{"y":2.50,"b":[]}} "#).as_deref(),
            Some("{\n  \"z\": 1,\n  \"a\": {\n    \"y\": 2.5,\n    \"b\": []\n  }\n}")
        );
        assert_eq!(pretty(b"{\"a\":1} trailing"), None);
        assert_eq!(got.omitted, 0);
    }
}
