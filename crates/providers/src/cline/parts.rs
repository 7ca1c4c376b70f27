//! What both Cline generations' transcripts share: tool parts and their outputs (a preview of
//! a large one, the rest a blob), edits as file changes, and the prompt wrapper 3.x adds.

use agent_sessions_model::{FileChange, Part, ToolPart, ToolStatus};
use serde_json::Value;

use crate::blob::BlobKey;

/// A tool output longer than this keeps a preview of it; the whole is a blob, read when asked.
pub(super) const PREVIEW_BYTES: usize = 32 * 1024;

/// A tool call with no result yet (the shared builder's).
pub(super) use crate::build::tool;

/// Sets a tool's output: whole when `full` (a blob's read) or short, else a preview and the
/// blob key of the rest.
pub(super) fn set_output(tool: &mut ToolPart, text: String, ok: bool, full: bool) {
    tool.status = if ok {
        ToolStatus::Ok
    } else {
        ToolStatus::Error
    };
    if full || text.len() <= PREVIEW_BYTES {
        tool.output = Some(text);
        return;
    }
    tool.output = Some(crate::cut(text, PREVIEW_BYTES));
    tool.output_truncated = true;
    tool.output_blob = Some(
        BlobKey::ToolResult {
            offset: 0,
            call: tool.call_id.clone(),
        }
        .key(),
    );
}

/// The tool part with this call id among `parts`, latest first.
pub(super) fn find_tool<'a>(parts: &'a mut [Part], call_id: &str) -> Option<&'a mut ToolPart> {
    parts.iter_mut().rev().find_map(|p| match p {
        Part::Tool(t) if t.call_id == call_id => Some(t),
        _ => None,
    })
}

/// A file change from the text an edit replaced and the text it put there (`old` empty: the
/// file was written whole): every old line removed, every new line added.
pub(super) fn change(path: &str, old: &str, new: &str) -> FileChange {
    let mut diff = String::new();
    let (mut additions, mut deletions) = (0, 0);
    for line in old.lines() {
        diff.push('-');
        diff.push_str(line);
        diff.push('\n');
        deletions += 1;
    }
    for line in new.lines() {
        diff.push('+');
        diff.push_str(line);
        diff.push('\n');
        additions += 1;
    }
    FileChange {
        path: path.to_owned(),
        change: if old.is_empty() { "add" } else { "update" }.to_owned(),
        diff: Some(diff),
        additions,
        deletions,
    }
}

/// The prompt inside 3.x's `<user_input mode="…">…</user_input>` wrapper, or the text as it is.
pub(super) fn unwrap_prompt(text: &str) -> &str {
    let Some(rest) = text.trim().strip_prefix("<user_input") else {
        return text;
    };
    rest.split_once('>')
        .and_then(|(_, body)| body.strip_suffix("</user_input>"))
        .unwrap_or(text)
}

/// A string field of a JSON object.
pub(super) fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A count field of a JSON object (Cline writes whole numbers; anything else is none).
pub(super) fn u64_of(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// Token counts under these four names (input, output, cache read, cache write): each
/// generation and record names them its own way.
pub(super) fn tokens_of(v: &Value, names: [&str; 4]) -> agent_sessions_model::Tokens {
    agent_sessions_model::Tokens {
        input: u64_of(v, names[0]),
        output: u64_of(v, names[1]),
        cache_read: u64_of(v, names[2]),
        cache_write: u64_of(v, names[3]),
    }
}

/// 3.x's names of token counts (`metrics`, `metadata.usage`).
pub(super) const V3_TOKENS: [&str; 4] = [
    "inputTokens",
    "outputTokens",
    "cacheReadTokens",
    "cacheWriteTokens",
];

/// 2.x's names (`taskHistory.json`, `api_req_started`).
pub(super) const V2_TOKENS: [&str; 4] = ["tokensIn", "tokensOut", "cacheReads", "cacheWrites"];

/// Milliseconds since 1970 as a time.
pub(super) fn time_of_ms(v: Option<&Value>) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::from_timestamp_millis(v?.as_i64()?)
}

/// An RFC 3339 time.
pub(super) fn time_of_text(v: Option<&Value>) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(v?.as_str()?)
        .ok()
        .map(|t| t.with_timezone(&chrono::Utc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_lose_the_wrapper_only() {
        assert_eq!(
            unwrap_prompt("<user_input mode=\"act\">héllo</user_input>"),
            "héllo"
        );
        assert_eq!(
            unwrap_prompt("<user_input mode=\"act\">open"),
            "<user_input mode=\"act\">open"
        );
        assert_eq!(unwrap_prompt("plain"), "plain");
    }

    #[test]
    fn large_outputs_keep_a_preview_and_a_blob() {
        let mut t = tool("c1".into(), "run_commands".into(), Value::Null);
        set_output(&mut t, "é".repeat(PREVIEW_BYTES), true, false);
        assert!(t.output_truncated);
        assert_eq!(t.output_blob.as_deref(), Some("line:0:tool:c1"));
        assert!(t.output.unwrap().len() <= PREVIEW_BYTES + 3);
    }
}
