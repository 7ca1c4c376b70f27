//! Translating one message (SPEC §9): the text of the one message the user picked, and nothing
//! else, goes to the OpenAI-compatible endpoint they configured (`[translate]` in config.toml),
//! as one `POST {base_url}/chat/completions` with the key as a Bearer token.
//!
//! This is the app's only network use besides ssh, so it is careful about what leaves and what
//! comes back:
//! - Nothing is sent before `base_url` and `model` are set ([`TranslateError::NotConfigured`]).
//! - What is sent is the message's text parts ([`text_of`]): not its reasoning, tool calls or
//!   their output, attachments or notices, and no other message of the session.
//! - No message ever shows the key: server text has the key masked before it is kept, and text
//!   that still holds it in another case or split by other characters (compared by
//!   [`folded`]) is left out, saying why; a translation (or model name) that holds it is
//!   refused as a bad reply ([`KEY_IN_REPLY`]) unless the message sent held it too. The
//!   endpoint is named by scheme, host and port only (a query string could hold a key too).
//! - Plain `http://` only to this machine (`localhost`, 127.0.0.0/8, `[::1]`): anywhere else the
//!   key and the message would cross the network unencrypted.
//! - Redirects are not followed (the key stays with the host the user named), every wait has a
//!   timeout, and the reply is read up to a size cap.

use std::io::ErrorKind;
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};
use unicode_normalization::UnicodeNormalization;
use ureq::http::Uri;

use crate::catalog::Catalog;
use crate::config::TranslateSettings;
use crate::error::Error;
use crate::model::{Message, Part, SessionMeta};

/// The language when the setting is somehow empty (config.toml's default).
const DEFAULT_LANGUAGE: &str = "Vietnamese";

/// A message longer than this is not sent (it would cost the user a lot for one click).
pub const MAX_TEXT: usize = 256 * 1024;

/// Longest server error text kept for a message.
const MAX_DETAIL: usize = 300;

/// Why a translation that holds the API key is not shown.
const KEY_IN_REPLY: &str = "it sends the API key back (in some case or spelling), so it is not shown; an endpoint that echoes the key may keep it too: check base_url, and replace the key if that endpoint is not one you trust";

/// Error replies are read up to this size: only their message is used.
const MAX_ERROR_BODY: u64 = 64 * 1024;

/// How long each step may take and how much of a reply is read.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Resolving the host and connecting (TLS included).
    pub connect: Duration,
    /// The whole exchange: a model can take a while over a long message, never forever.
    pub total: Duration,
    /// Bytes of a successful reply read at most.
    pub max_reply: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connect: Duration::from_secs(15),
            total: Duration::from_secs(120),
            max_reply: 4 * 1024 * 1024,
        }
    }
}

/// A translated message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Translation {
    pub message_id: String,
    pub language: String,
    /// The model that answered, as the endpoint names it (else the configured one).
    pub model: String,
    pub text: String,
    /// The endpoint stopped at its length limit (`finish_reason: "length"`): the text is cut.
    pub truncated: bool,
}

/// Why nothing was translated. No message holds the API key.
#[derive(Debug, thiserror::Error)]
pub enum TranslateError {
    #[error("translation is not set up: set {missing} in the [translate] section of the settings; nothing was sent")]
    NotConfigured { missing: &'static str },

    #[error("the translation base_url {0}; nothing was sent")]
    BadUrl(String),

    #[error("the translation api_key holds characters that cannot be sent in an HTTP header (only printable ASCII can); nothing was sent")]
    BadKey,

    #[error("no message with id {0:?} in this session")]
    MessageNotFound(String),

    #[error("this message has no text to translate (only its text is sent, not tool calls, reasoning or attachments)")]
    NoText,

    #[error("this message is {size} KiB, more than the {max} KiB that is sent for translation; nothing was sent", size = .0 / 1024, max = MAX_TEXT / 1024)]
    TooLong(usize),

    #[error("cannot reach the translation endpoint {endpoint}: {reason}")]
    Unreachable { endpoint: String, reason: String },

    #[error("the translation endpoint {endpoint} did not answer within {secs} s{what}", what = match .connecting { true => " (connecting)", false => "" })]
    Timeout {
        endpoint: String,
        secs: u64,
        connecting: bool,
    },

    #[error("the translation endpoint {endpoint} refused the API key (HTTP {status}){detail}; check api_key in the settings")]
    Unauthorized {
        endpoint: String,
        status: u16,
        detail: String,
    },

    #[error("the translation endpoint {endpoint} answered HTTP {status}{detail}")]
    Status {
        endpoint: String,
        status: u16,
        detail: String,
    },

    #[error(
        "the translation endpoint {endpoint} sent a reply that is not a chat completion: {reason}"
    )]
    BadReply { endpoint: String, reason: String },
}

impl TranslateError {
    /// A short stable code for front ends.
    pub fn code(&self) -> &'static str {
        match self {
            TranslateError::NotConfigured { .. } => "translate_not_configured",
            TranslateError::BadUrl(_) => "translate_bad_url",
            TranslateError::BadKey => "translate_bad_key",
            TranslateError::MessageNotFound(_) => "message_not_found",
            TranslateError::NoText => "translate_no_text",
            TranslateError::TooLong(_) => "translate_too_long",
            TranslateError::Unreachable { .. } => "translate_unreachable",
            TranslateError::Timeout { .. } => "translate_timeout",
            TranslateError::Unauthorized { .. } => "translate_unauthorized",
            TranslateError::Status { .. } => "translate_http",
            TranslateError::BadReply { .. } => "translate_bad_reply",
        }
    }
}

/// What translation sends of `message`: its text parts, in order, a blank line between them.
/// None when it has no text (a tool call alone, reasoning, an attachment).
pub fn text_of(message: &Message) -> Option<String> {
    let texts: Vec<&str> = message
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } if !text.trim().is_empty() => Some(text.as_str()),
            _ => None,
        })
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

/// The text to send of the message `id` among `messages` (a loaded transcript). The first
/// message with that id is the one, as where the app opens a search hit.
pub fn text_in<'a>(
    messages: impl IntoIterator<Item = &'a Message>,
    id: &str,
) -> Result<String, TranslateError> {
    let message = messages
        .into_iter()
        .find(|m| m.id == id)
        .ok_or_else(|| TranslateError::MessageNotFound(id.to_owned()))?;
    text_of(message).ok_or(TranslateError::NoText)
}

/// [`text_in`] reading the session from its store, keeping only that message in memory.
pub fn text_in_store(catalog: &Catalog, session: &SessionMeta, id: &str) -> Result<String, Error> {
    let mut found: Option<Message> = None;
    catalog.load_each(session, &mut |m| {
        if found.is_none() && m.id == id {
            found = Some(m);
        }
    })?;
    Ok(text_in(found.as_ref(), id)?)
}

/// Translates the message `id` of `session`: checks the settings first (an unconfigured
/// endpoint reads nothing and sends nothing), then reads the message and sends its text.
pub fn translate_message(
    catalog: &Catalog,
    session: &SessionMeta,
    id: &str,
    settings: &TranslateSettings,
    limits: &Limits,
) -> Result<Translation, Error> {
    let endpoint = Endpoint::of(settings)?;
    let text = text_in_store(catalog, session, id)?;
    Ok(endpoint.translate(id, &text, limits)?)
}

/// A checked `[translate]` configuration: where to send, with what.
pub struct Endpoint<'a> {
    settings: &'a TranslateSettings,
    /// `{base_url}/chat/completions` (the base's query string kept).
    url: String,
    /// `scheme://host[:port]`: how messages name the endpoint.
    shown: String,
    /// The key [`folded`] (empty without a key): how it is looked for in what comes back.
    folded_key: String,
}

impl<'a> Endpoint<'a> {
    /// The endpoint of `settings`, or why nothing can be sent to it.
    pub fn of(settings: &'a TranslateSettings) -> Result<Self, TranslateError> {
        let missing = match (settings.base_url.is_empty(), settings.model.is_empty()) {
            (true, true) => Some("base_url and model"),
            (true, false) => Some("base_url"),
            (false, true) => Some("model"),
            (false, false) => None,
        };
        if let Some(missing) = missing {
            return Err(TranslateError::NotConfigured { missing });
        }
        if !settings.api_key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(TranslateError::BadKey);
        }
        let (url, shown) = chat_url(&settings.base_url)?;
        Ok(Endpoint {
            settings,
            url,
            shown,
            folded_key: folded(&settings.api_key),
        })
    }

    /// Sends `text` (the message `id`'s) and returns its translation.
    pub fn translate(
        &self,
        id: &str,
        text: &str,
        limits: &Limits,
    ) -> Result<Translation, TranslateError> {
        if text.len() > MAX_TEXT {
            return Err(TranslateError::TooLong(text.len()));
        }
        let language = match self.settings.language.trim() {
            "" => DEFAULT_LANGUAGE,
            l => l,
        };
        let body = request_body(&self.settings.model, language, text);
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(limits.connect))
            .timeout_global(Some(limits.total))
            .user_agent(concat!("agent-sessions/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let mut request = agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json");
        if !self.settings.api_key.is_empty() {
            request = request.header("Authorization", format!("Bearer {}", self.settings.api_key));
        }
        let response = request
            .send(body.to_string().as_bytes())
            .map_err(|e| self.failed(e, limits))?;
        let status = response.status().as_u16();
        let mut body = response.into_body();
        if !(200..300).contains(&status) {
            let text = body
                .with_config()
                .limit(MAX_ERROR_BODY)
                .lossy_utf8(true)
                .read_to_string()
                .unwrap_or_default();
            return Err(self.refused(status, &text));
        }
        let bytes = body
            .with_config()
            .limit(limits.max_reply)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(max) => {
                    self.bad_reply(format!("it is longer than {} KiB", max / 1024))
                }
                e => self.failed(e, limits),
            })?;
        let reply = parse_reply(&bytes).map_err(|reason| self.bad_reply(reason))?;
        // What the user sent may hold the key (a pasted config): its translation shows no more.
        let echoed = |t: &str| self.holds_key(t) && !self.holds_key(text);
        if echoed(&reply.text) || reply.model.as_deref().is_some_and(echoed) {
            return Err(TranslateError::BadReply {
                endpoint: self.shown.clone(),
                reason: KEY_IN_REPLY.to_owned(),
            });
        }
        Ok(Translation {
            message_id: id.to_owned(),
            language: language.to_owned(),
            model: reply.model.unwrap_or_else(|| self.settings.model.clone()),
            text: reply.text,
            truncated: reply.truncated,
        })
    }

    /// A failure before a whole reply came.
    fn failed(&self, e: ureq::Error, limits: &Limits) -> TranslateError {
        let endpoint = self.shown.clone();
        let timeout = |connecting: bool| TranslateError::Timeout {
            endpoint: self.shown.clone(),
            secs: if connecting {
                limits.connect
            } else {
                limits.total
            }
            .as_secs()
            .max(1),
            connecting,
        };
        let reason = match e {
            ureq::Error::Timeout(t) => {
                return timeout(matches!(t, ureq::Timeout::Connect | ureq::Timeout::Resolve))
            }
            ureq::Error::Io(io) if io.kind() == ErrorKind::TimedOut => return timeout(false),
            ureq::Error::Io(io) => io.to_string(),
            ureq::Error::HostNotFound => "the host name was not found".to_owned(),
            ureq::Error::ConnectionFailed => "the connection failed".to_owned(),
            ureq::Error::Protocol(p) => {
                return self.bad_reply(format!("not HTTP ({p})"));
            }
            e => e.to_string(),
        };
        TranslateError::Unreachable {
            endpoint,
            reason: self.redact(&reason),
        }
    }

    /// An HTTP error status, with the server's own explanation when it sent one.
    fn refused(&self, status: u16, body: &str) -> TranslateError {
        // Redacted before it is cut short, so no part of the key survives the cut.
        let detail = match server_message(body).map(|m| one_line(&self.redact(&m))) {
            Some(m) if !m.is_empty() => format!(": {m}"),
            _ => String::new(),
        };
        let endpoint = self.shown.clone();
        match status {
            401 | 403 => TranslateError::Unauthorized {
                endpoint,
                status,
                detail,
            },
            _ => TranslateError::Status {
                endpoint,
                status,
                detail,
            },
        }
    }

    fn bad_reply(&self, reason: String) -> TranslateError {
        TranslateError::BadReply {
            endpoint: self.shown.clone(),
            reason: self.redact(&reason),
        }
    }

    /// `text` without the key in it (a server may echo what it was sent): the key as sent is
    /// masked; text that still holds it (another case, split by other characters) is left out.
    fn redact(&self, text: &str) -> String {
        let key = &self.settings.api_key;
        if key.is_empty() {
            return text.to_owned();
        }
        let masked = text.replace(key.as_str(), crate::config::MASK);
        if self.holds_key(&masked) {
            "(its text is not shown: it holds the API key in another case or spelling)".to_owned()
        } else {
            masked
        }
    }

    /// Whether `text` holds the key, compared [`folded`].
    fn holds_key(&self, text: &str) -> bool {
        !self.folded_key.is_empty() && folded(text).contains(&self.folded_key)
    }
}

/// `text` reduced to what a reader takes for the key: compatibility-normalised (full-width and
/// other look-alike forms become ASCII), then only its ASCII letters and digits, lower-cased;
/// so the key is found in any case and split by spaces, punctuation, line breaks or invisible
/// characters.
fn folded(text: &str) -> String {
    text.nfkc()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether `host` (as a URL writes it) is this machine: `localhost` or a loopback address.
fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The chat completions URL of `base` and how messages name it, or why it is not usable.
/// `base` is the API root (`https://api.openai.com/v1`); a base that already ends in
/// `/chat/completions` is taken as it is.
fn chat_url(base: &str) -> Result<(String, String), TranslateError> {
    let bad = |why: &str| TranslateError::BadUrl(why.to_owned());
    if base.contains(|c: char| c.is_whitespace() || c.is_control()) {
        return Err(bad("has spaces or control characters in it"));
    }
    if base.contains('#') {
        return Err(bad("has a #fragment"));
    }
    let uri: Uri = base
        .parse()
        .map_err(|_| bad("is not a URL (expected like https://api.example.com/v1)"))?;
    let scheme = uri.scheme_str().unwrap_or("");
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(bad("must start with http:// or https://"));
    }
    let authority = uri.authority().ok_or_else(|| bad("has no host"))?;
    if authority.as_str().contains('@') {
        return Err(bad(
            "holds a user name or password; put the key in api_key instead",
        ));
    }
    if authority.host().is_empty() {
        return Err(bad("has no host"));
    }
    if scheme.eq_ignore_ascii_case("http") && !is_loopback(authority.host()) {
        return Err(bad(
            "is plain http:// to another machine, so the key and the message would cross the network unencrypted; use https://, or http:// to localhost, 127.0.0.1 or [::1] only",
        ));
    }
    let path = uri.path().trim_end_matches('/');
    let path = if path.ends_with("/chat/completions") {
        path.to_owned()
    } else {
        format!("{path}/chat/completions")
    };
    let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
    let origin = format!("{}://{}", scheme.to_ascii_lowercase(), authority.as_str());
    Ok((format!("{origin}{path}{query}"), origin))
}

/// The chat completion request: an instruction naming the language, then the message's text
/// as the one user message.
fn request_body(model: &str, language: &str, text: &str) -> Value {
    let instruction = format!(
        "Translate the user's message into {language}. Reply with the translation only, \
         nothing before or after it. Keep Markdown formatting, code blocks, inline code, \
         commands, file paths and URLs exactly as they are."
    );
    json!({
        "model": model,
        "messages": [
            { "role": "system", "content": instruction },
            { "role": "user", "content": text },
        ],
        "stream": false,
    })
}

struct Reply {
    text: String,
    model: Option<String>,
    truncated: bool,
}

/// `choices[0].message.content` of a chat completion (a string, or a list of text parts).
fn parse_reply(bytes: &[u8]) -> Result<Reply, String> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("it is not JSON ({e})"))?;
    let choice = value
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or("it has no choices")?;
    let content = choice
        .get("message")
        .and_then(|m| m.get("content"))
        .ok_or("its first choice has no message content")?;
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => return Err("its message content is not text".to_owned()),
    };
    if text.trim().is_empty() {
        return Err("its message content is empty".to_owned());
    }
    Ok(Reply {
        text,
        model: value
            .get("model")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
            .map(str::to_owned),
        truncated: choice.get("finish_reason").and_then(Value::as_str) == Some("length"),
    })
}

/// The explanation in an error reply: OpenAI's `{"error":{"message"}}`, or a `message`,
/// `detail` or string `error` field. Not HTML or other text: that is rarely worth showing.
fn server_message(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    let found = [
        value.pointer("/error/message"),
        value.get("message"),
        value.get("detail"),
        value.get("error"),
    ]
    .into_iter()
    .flatten()
    .find_map(Value::as_str)
    .map(str::to_owned);
    found
}

/// `text` as one printable line, cut short.
fn one_line(text: &str) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_DETAIL)
        .collect();
    line.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_the_base_plus_chat_completions() {
        let ok = |base: &str| chat_url(base).unwrap();
        assert_eq!(
            ok("https://api.example.com/v1"),
            (
                "https://api.example.com/v1/chat/completions".to_owned(),
                "https://api.example.com".to_owned()
            )
        );
        assert_eq!(
            ok("http://127.0.0.1:8080/v1/").0,
            "http://127.0.0.1:8080/v1/chat/completions"
        );
        assert_eq!(
            ok("https://h.example/v1/chat/completions").0,
            "https://h.example/v1/chat/completions"
        );
        assert_eq!(
            ok("https://h.example").0,
            "https://h.example/chat/completions"
        );
        // A query string stays on the URL but never in a message.
        let (url, shown) = ok("https://h.example/openai/v1?api-version=1&key=SECRET");
        assert_eq!(
            url,
            "https://h.example/openai/v1/chat/completions?api-version=1&key=SECRET"
        );
        assert_eq!(shown, "https://h.example");
    }

    #[test]
    fn unusable_urls_are_refused_with_a_reason() {
        for bad in [
            "ftp://h.example/v1",
            "file:///etc/passwd",
            "h.example/v1",
            "/v1",
            "https://user:pw@h.example/v1",
            "https://h.example/v 1",
            "https://h.example/v1\n",
            "https://h.example/v1#x",
            "javascript:alert(1)",
        ] {
            let e = chat_url(bad).expect_err(bad);
            assert_eq!(e.code(), "translate_bad_url", "{bad}");
            assert!(!e.to_string().contains("pw"), "{e}");
        }
    }

    #[test]
    fn only_text_parts_are_sent() {
        let message = |parts: Vec<Part>| Message {
            id: "m".into(),
            role: crate::model::Role::Assistant,
            parent_id: None,
            timestamp: None,
            model: None,
            counted: true,
            meta: false,
            sidechain: false,
            parts,
            source_lines: vec![],
        };
        let text = |t: &str| Part::Text { text: t.into() };
        let reasoning = Part::Reasoning {
            text: "secret thoughts".into(),
            encrypted: false,
        };
        let m = message(vec![
            text("one"),
            reasoning.clone(),
            text("  "),
            text("two"),
        ]);
        assert_eq!(text_of(&m).as_deref(), Some("one\n\ntwo"));
        assert_eq!(text_of(&message(vec![reasoning])), None);
        assert_eq!(text_of(&message(vec![])), None);
        let m = message(vec![text("x")]);
        assert_eq!(text_in([&m], "m").unwrap(), "x");
        assert_eq!(text_in([&m], "n").unwrap_err().code(), "message_not_found");
        let empty = message(vec![]);
        assert_eq!(
            text_in([&empty], "m").unwrap_err().code(),
            "translate_no_text"
        );
    }

    #[test]
    fn replies_are_read_from_the_first_choice() {
        let r = parse_reply(
            br#"{"model":"m1","choices":[{"message":{"role":"assistant","content":"Xin chao"},"finish_reason":"stop"}]}"#,
        )
        .unwrap();
        assert_eq!(
            (r.text.as_str(), r.model.as_deref(), r.truncated),
            ("Xin chao", Some("m1"), false)
        );
        let r = parse_reply(
            br#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":"length"}]}"#,
        )
        .unwrap();
        assert_eq!((r.text.as_str(), r.model, r.truncated), ("ab", None, true));
        for bad in [
            &b"not json"[..],
            br#"{"choices":[]}"#,
            br#"{"choices":[{"message":{}}]}"#,
            br#"{"choices":[{"message":{"content":42}}]}"#,
            br#"{"choices":[{"message":{"content":"  "}}]}"#,
            br#"[1,2]"#,
        ] {
            assert!(
                parse_reply(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn server_messages_are_one_short_line() {
        let shown = |body: &str| server_message(body).map(|m| one_line(&m));
        assert_eq!(
            shown(r#"{"error":{"message":"bad\nkey","type":"x"}}"#).as_deref(),
            Some("bad key")
        );
        assert_eq!(shown(r#"{"detail":"nope"}"#).as_deref(), Some("nope"));
        assert_eq!(shown(r#"{"error":"plain"}"#).as_deref(), Some("plain"));
        assert_eq!(shown("<html>502</html>"), None);
        let long = format!(r#"{{"message":"{}"}}"#, "x".repeat(5000));
        assert_eq!(shown(&long).unwrap().len(), MAX_DETAIL);
    }
}
