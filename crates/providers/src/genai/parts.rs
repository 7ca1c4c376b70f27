//! The Gemini API's content parts as both agents store them: `content` (Gemini's messages) or
//! `message.parts` (Qwen's records) is a string, one part, or a list of parts. Read leniently:
//! a field of another type is ignored, a part of a kind not known here is named, never fatal.

use serde_json::Value;

/// One content part.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece<'a> {
    Text(&'a str),
    /// A `text` part with `thought: true`: the model's reasoning.
    Thought(&'a str),
    Call {
        id: Option<&'a str>,
        name: &'a str,
        args: &'a Value,
    },
    Response {
        id: Option<&'a str>,
        name: &'a str,
        response: &'a Value,
    },
    /// A part of another kind (`inlineData`, `fileData`, …), by its first key.
    Other(&'a str),
}

/// The parts of `content`.
pub(crate) fn pieces(content: &Value) -> Vec<Piece<'_>> {
    match content {
        Value::String(s) => vec![Piece::Text(s)],
        Value::Object(_) => vec![piece(content)],
        Value::Array(items) => items.iter().map(piece).collect(),
        _ => Vec::new(),
    }
}

fn str_of<'a>(key: &str, o: &'a Value) -> Option<&'a str> {
    o.get(key)?.as_str()
}

fn piece(part: &Value) -> Piece<'_> {
    let Some(map) = part.as_object() else {
        return match part.as_str() {
            Some(s) => Piece::Text(s),
            None => Piece::Other("value"),
        };
    };
    if let Some(text) = str_of("text", part) {
        return if part.get("thought").and_then(Value::as_bool) == Some(true) {
            Piece::Thought(text)
        } else {
            Piece::Text(text)
        };
    }
    if let Some(call) = part.get("functionCall").filter(|c| c.is_object()) {
        return Piece::Call {
            id: str_of("id", call),
            name: str_of("name", call).unwrap_or("tool"),
            args: call.get("args").unwrap_or(&Value::Null),
        };
    }
    if let Some(resp) = part.get("functionResponse").filter(|c| c.is_object()) {
        return Piece::Response {
            id: str_of("id", resp),
            name: str_of("name", resp).unwrap_or("tool"),
            response: resp.get("response").unwrap_or(&Value::Null),
        };
    }
    Piece::Other(map.keys().next().map_or("empty", String::as_str))
}

/// The text of the parts, reasoning left out, joined.
pub(crate) fn text_of(pieces: &[Piece<'_>]) -> String {
    pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Text(t) => Some(*t),
            _ => None,
        })
        .collect()
}

/// What a tool's response says: its `output` (or `error`) text, else the response as JSON.
pub(crate) fn response_text(response: &Value) -> String {
    for key in ["output", "error", "content"] {
        if let Some(s) = response.get(key).and_then(Value::as_str) {
            return s.to_owned();
        }
    }
    match response {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Whether a response reports a failure (`{"error": …}`).
pub(crate) fn response_failed(response: &Value) -> bool {
    response.get("error").is_some_and(|e| !e.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_every_shape_of_content() {
        let c = json!([{"text": "a"}, {"text": "r", "thought": true},
            {"functionCall": {"id": "c1", "name": "ls", "args": {"x": 1}}},
            {"functionResponse": {"id": "c1", "name": "ls", "response": {"output": "o"}}},
            {"inlineData": {}}, 7]);
        let p = pieces(&c);
        assert_eq!(p.len(), 6);
        assert_eq!(text_of(&p), "a");
        assert_eq!(p[1], Piece::Thought("r"));
        assert!(matches!(
            p[2],
            Piece::Call {
                id: Some("c1"),
                name: "ls",
                ..
            }
        ));
        assert!(matches!(p[3], Piece::Response { response, .. } if response_text(response) == "o"));
        assert_eq!(p[4], Piece::Other("inlineData"));
        assert_eq!(p[5], Piece::Other("value"));
        assert_eq!(pieces(&json!("plain")), vec![Piece::Text("plain")]);
        assert!(pieces(&json!(null)).is_empty());
        assert!(response_failed(&json!({"error": "x"})));
    }
}
