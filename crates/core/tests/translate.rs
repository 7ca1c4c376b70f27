//! Translation (SPEC §9) against a local HTTP server on 127.0.0.1 that this test starts: the
//! request is checked (method, path, Bearer header, a JSON body with the model and exactly the
//! one message's text) and the server answers success, 401, 500, slowly, malformed, too much,
//! or with a redirect. No error ever holds the key, and nothing is sent before it is set up.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use agent_sessions_core::actions::translate::{self, text_of, Endpoint, Limits, TranslateError};
use agent_sessions_core::config::{ConfigFile, TranslateSettings};
use agent_sessions_core::{Error, Message, ProviderKind, ScanProgress, SessionMeta, Transcript};
use serde_json::{json, Value};

const KEY: &str = "sk-test-0123456789abcdefSECRET";

/// What the server received.
#[derive(Debug)]
struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the request body is JSON")
    }
}

/// How the server answers.
enum Answer {
    /// HTTP status and body.
    Reply(u16, String),
    /// Waits this long before answering 200 (the client gives up first).
    Slow(Duration),
    /// These bytes, not HTTP.
    Raw(&'static [u8]),
}

/// A one-request server on 127.0.0.1. It stops by itself: after one exchange, or when no
/// client came within 10 s.
struct Server {
    base_url: String,
    thread: JoinHandle<Option<Request>>,
}

impl Server {
    fn start(answer: Answer) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        listener.set_nonblocking(true).unwrap();
        let thread = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(10);
            let stream = loop {
                match listener.accept() {
                    Ok((s, _)) => break s,
                    Err(_) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(10))
                    }
                    Err(_) => return None,
                }
            };
            stream.set_nonblocking(false).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let request = read_request(&stream);
            answer_with(stream, answer);
            Some(request)
        });
        Server { base_url, thread }
    }

    /// The request the server got (None: nobody connected).
    fn request(self) -> Option<Request> {
        self.thread.join().unwrap()
    }
}

/// A port that should hear nothing: listening, never answering.
struct Silent {
    listener: TcpListener,
    base_url: String,
}

impl Silent {
    fn new() -> Silent {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        Silent { listener, base_url }
    }

    /// Whether no client connected: a connection would wait in the backlog, accepted or not.
    fn heard_nothing(&self) -> bool {
        matches!(self.listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
    }
}

fn read_request(stream: &TcpStream) -> Request {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let mut words = line.split_whitespace();
    let method = words.next().unwrap_or_default().to_owned();
    let path = words.next().unwrap_or_default().to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .map(|(_, v)| v.parse().unwrap())
        .expect("the request has a Content-Length");
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    Request {
        method,
        path,
        headers,
        body,
    }
}

fn answer_with(mut stream: TcpStream, answer: Answer) {
    let (status, body) = match answer {
        Answer::Raw(bytes) => {
            let _ = stream.write_all(bytes);
            return;
        }
        Answer::Slow(wait) => {
            std::thread::sleep(wait);
            (200, completion("late"))
        }
        Answer::Reply(status, body) => (status, body),
    };
    let reason = match status {
        200 => "OK",
        307 => "Temporary Redirect",
        401 => "Unauthorized",
        _ => "Error",
    };
    let extra = if status == 307 {
        "Location: http://127.0.0.1:9/v1/chat/completions\r\n"
    } else {
        ""
    };
    // The client may have given up already (the slow answer): a failed write is expected then.
    let _ = write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn completion(text: &str) -> String {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "test-model-2026",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": "stop"
        }]
    })
    .to_string()
}

fn settings(base_url: &str, key: &str) -> TranslateSettings {
    let text = format!(
        "[translate]\nbase_url = {base_url:?}\napi_key = {key:?}\nmodel = \"test-model\"\n"
    );
    let file = ConfigFile::from_text(std::path::Path::new("/t/config.toml"), &text);
    assert!(file.warnings().is_empty(), "{:?}", file.warnings());
    file.settings().translate
}

fn quick() -> Limits {
    Limits {
        connect: Duration::from_secs(5),
        total: Duration::from_secs(1),
        max_reply: 64 * 1024,
    }
}

/// A fixture session with text messages and a message without text (a tool call alone).
fn fixture() -> (agent_sessions_core::Catalog, SessionMeta, Transcript) {
    let root = common::fixture(ProviderKind::Claude, "2.1.9");
    let catalog = common::catalog(ProviderKind::Claude, &root);
    let report = catalog.scan(&ScanProgress::default()).unwrap();
    for session in report.sessions {
        let transcript = catalog.load(&session).unwrap();
        let with_text = transcript
            .messages
            .iter()
            .filter(|m| text_of(m).is_some())
            .count();
        let without = transcript.messages.iter().any(|m| text_of(m).is_none());
        if with_text >= 3 && without {
            return (catalog, session, transcript);
        }
    }
    panic!("no Claude 2.1.9 session with three text messages and one without text");
}

/// The assistant message with the longest text: the one translated.
fn chosen(transcript: &Transcript) -> &Message {
    transcript
        .messages
        .iter()
        .filter(|m| m.role == agent_sessions_core::Role::Assistant)
        .max_by_key(|m| text_of(m).map_or(0, |t| t.len()))
        .unwrap()
}

fn translate_err(base_url: &str, answer_text: &str, limits: Limits) -> TranslateError {
    let settings = settings(base_url, KEY);
    let endpoint = Endpoint::of(&settings).unwrap();
    endpoint
        .translate("m1", answer_text, &limits)
        .expect_err("the translation fails")
}

fn assert_no_key(e: &impl std::fmt::Display) {
    let message = e.to_string();
    assert!(!message.contains(KEY), "the key is in {message:?}");
    assert!(
        !message.contains("SECRET"),
        "part of the key is in {message:?}"
    );
}

#[test]
fn one_message_is_sent_and_its_translation_returned() {
    let (catalog, session, transcript) = fixture();
    let message = chosen(&transcript);
    let text = text_of(message).unwrap();
    let server = Server::start(Answer::Reply(200, completion("Bản dịch tiếng Việt")));
    let settings = settings(&server.base_url, KEY);
    let done =
        translate::translate_message(&catalog, &session, &message.id, &settings, &quick()).unwrap();
    assert_eq!(done.text, "Bản dịch tiếng Việt");
    assert_eq!(done.message_id, message.id);
    assert_eq!(done.language, "Vietnamese");
    assert_eq!(done.model, "test-model-2026");
    assert!(!done.truncated);

    let request = server.request().expect("the server got a request");
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(request.header("content-type"), Some("application/json"));
    let body = request.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], false);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{body}");
    assert_eq!(messages[0]["role"], "system");
    assert!(messages[0]["content"]
        .as_str()
        .unwrap()
        .contains("into Vietnamese"));
    assert_eq!(messages[1]["role"], "user");
    assert_eq!(messages[1]["content"], text.as_str());
    // Nothing else of the session went: no other message's text, not its id or directory.
    let raw = String::from_utf8(request.body).unwrap();
    for other in &transcript.messages {
        if let Some(t) = text_of(other).filter(|t| t.len() > 12 && !text.contains(t.as_str())) {
            let escaped = serde_json::to_string(&t).unwrap();
            assert!(
                !raw.contains(escaped.trim_matches('"')),
                "message {} was sent too",
                other.id
            );
        }
    }
    assert!(!raw.contains(&session.id));
    if let Some(cwd) = &session.cwd {
        assert!(!raw.contains(cwd.as_str()));
    }
}

#[test]
fn the_language_is_the_configured_one_and_no_key_means_no_header() {
    let server = Server::start(Answer::Reply(200, completion("Bonjour")));
    let mut settings = settings(&server.base_url, "");
    settings.language = "French".into();
    let done = Endpoint::of(&settings)
        .unwrap()
        .translate("m1", "Hello", &quick())
        .unwrap();
    assert_eq!(
        (done.text.as_str(), done.language.as_str()),
        ("Bonjour", "French")
    );
    let request = server.request().unwrap();
    assert_eq!(request.header("authorization"), None);
    let body = request.json();
    assert!(body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("into French"));
    assert_eq!(body["messages"][1]["content"], "Hello");
}

#[test]
fn the_answer_is_rendered_like_a_message_and_kept_inert() {
    let hostile = "**Xin chào** <script>window.x=1</script> <img src=x onerror=alert(1)> [a](javascript:alert(1))";
    let server = Server::start(Answer::Reply(200, completion(hostile)));
    let settings = settings(&server.base_url, KEY);
    let done = Endpoint::of(&settings)
        .unwrap()
        .translate("m1", "Hello", &quick())
        .unwrap();
    assert_eq!(done.text, hostile);
    let view = agent_sessions_core::view::TranslationView::from(done);
    assert!(
        view.html.contains("<strong>Xin chào</strong>"),
        "{}",
        view.html
    );
    // Raw HTML is shown as text (escaped), the script link loses its target.
    for bad in ["<script", "<img", "href=\"javascript:"] {
        assert!(!view.html.contains(bad), "{bad} in {}", view.html);
    }
    let json = serde_json::to_value(&view).unwrap();
    assert_eq!(json["text"], hostile);
    assert_eq!(json["message_id"], "m1");
    server.request();
}

#[test]
fn nothing_is_sent_before_it_is_set_up() {
    let (catalog, session, transcript) = fixture();
    let id = &chosen(&transcript).id;
    let server = Silent::new();
    let cases = [
        (settings("", KEY), "base_url"),
        (
            TranslateSettings {
                model: String::new(),
                ..settings(&server.base_url, KEY)
            },
            "model",
        ),
        (
            ConfigFile::none().settings().translate,
            "base_url and model",
        ),
    ];
    for (settings, missing) in cases {
        let e =
            translate::translate_message(&catalog, &session, id, &settings, &quick()).unwrap_err();
        assert_eq!(e.code(), "translate_not_configured");
        assert!(e.to_string().contains(missing), "{e}");
        assert!(e.to_string().contains("nothing was sent"), "{e}");
        assert_no_key(&e);
    }
    // Not a message with no text, nor a message that is not there: the server hears nothing.
    let settings = settings(&server.base_url, KEY);
    let no_text = transcript
        .messages
        .iter()
        .find(|m| text_of(m).is_none())
        .unwrap();
    let e = translate::translate_message(&catalog, &session, &no_text.id, &settings, &quick())
        .unwrap_err();
    assert_eq!(e.code(), "translate_no_text");
    let e = translate::translate_message(&catalog, &session, "no-such-id", &settings, &quick())
        .unwrap_err();
    assert_eq!(e.code(), "message_not_found");
    assert!(matches!(
        e,
        Error::Translate(TranslateError::MessageNotFound(_))
    ));
    let too_long = "x".repeat(translate::MAX_TEXT + 1);
    let e = Endpoint::of(&settings)
        .unwrap()
        .translate("m1", &too_long, &quick())
        .unwrap_err();
    assert_eq!(e.code(), "translate_too_long");
    assert!(server.heard_nothing(), "something was sent");
}

#[test]
fn a_refused_key_is_reported_without_the_key() {
    // A server that echoes the key it was given in its error.
    let body = json!({"error": {"message": format!("Incorrect API key provided: {KEY}."), "type": "invalid_request_error"}});
    let server = Server::start(Answer::Reply(401, body.to_string()));
    let e = translate_err(&server.base_url, "Hello", quick());
    assert_eq!(e.code(), "translate_unauthorized");
    let message = e.to_string();
    assert!(message.contains("HTTP 401"), "{message}");
    assert!(
        message.contains("Incorrect API key provided: ********"),
        "{message}"
    );
    assert!(message.contains("api_key"), "{message}");
    assert_no_key(&e);
    assert!(server.request().is_some());
}

#[test]
fn a_server_error_is_reported_with_its_status() {
    let body =
        json!({"error": {"message": "The server had an error while processing your request"}});
    let server = Server::start(Answer::Reply(500, body.to_string()));
    let e = translate_err(&server.base_url, "Hello", quick());
    assert_eq!(e.code(), "translate_http");
    let message = e.to_string();
    assert!(message.contains("HTTP 500"), "{message}");
    assert!(message.contains("had an error"), "{message}");
    assert!(
        message.contains(&server.base_url.replace("/v1", "")),
        "{message}"
    );
    assert_no_key(&e);
    server.request();
    // An HTML error page is not shown, only its status.
    let server = Server::start(Answer::Reply(
        502,
        "<html><body>Bad gateway</body></html>".into(),
    ));
    let e = translate_err(&server.base_url, "Hello", quick());
    assert_eq!(e.code(), "translate_http");
    assert!(!e.to_string().contains("html"), "{e}");
    server.request();
}

#[test]
fn a_slow_endpoint_times_out() {
    let server = Server::start(Answer::Slow(Duration::from_secs(3)));
    let e = translate_err(&server.base_url, "Hello", quick());
    assert_eq!(e.code(), "translate_timeout", "{e}");
    assert!(e.to_string().contains("within 1 s"), "{e}");
    assert_no_key(&e);
    assert!(server.request().is_some());
}

#[test]
fn malformed_replies_are_reported() {
    let replies = [
        Answer::Reply(200, "this is not JSON".into()),
        Answer::Reply(200, json!({"choices": []}).to_string()),
        Answer::Reply(
            200,
            json!({"choices": [{"message": {"content": null}}]}).to_string(),
        ),
        Answer::Reply(200, json!({"object": "error", "echo": KEY}).to_string()),
        Answer::Reply(200, completion(&"x".repeat(100 * 1024))),
        Answer::Raw(b"garbage that is not HTTP\r\n\r\n"),
    ];
    for answer in replies {
        let server = Server::start(answer);
        let e = translate_err(&server.base_url, "Hello", quick());
        assert_eq!(e.code(), "translate_bad_reply", "{e}");
        assert_no_key(&e);
        assert!(server.request().is_some());
    }
    let server = Server::start(Answer::Reply(200, completion(&"x".repeat(100 * 1024))));
    let e = translate_err(&server.base_url, "Hello", quick());
    assert!(e.to_string().contains("longer than 64 KiB"), "{e}");
    server.request();
}

#[test]
fn redirects_are_not_followed_and_closed_ports_are_unreachable() {
    let server = Server::start(Answer::Reply(307, String::new()));
    let e = translate_err(&server.base_url, "Hello", quick());
    assert_eq!(e.code(), "translate_http", "{e}");
    assert!(e.to_string().contains("HTTP 307"), "{e}");
    server.request();

    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", listener.local_addr().unwrap())
    };
    let e = translate_err(&closed, "Hello", quick());
    assert_eq!(e.code(), "translate_unreachable", "{e}");
    assert_no_key(&e);
}

#[test]
fn bad_urls_and_keys_are_refused_before_sending() {
    for base in ["ftp://127.0.0.1/v1", "https://user:pw@127.0.0.1/v1"] {
        let mut s = settings("http://127.0.0.1:9/v1", KEY);
        s.base_url = base.into();
        let e = Endpoint::of(&s).err().unwrap();
        assert_eq!(e.code(), "translate_bad_url", "{base}");
        assert!(!e.to_string().contains("pw"), "{e}");
    }
    let mut s = settings("http://127.0.0.1:9/v1", KEY);
    s.api_key = format!("{KEY}\r\nX-Injected: 1");
    let e = Endpoint::of(&s).err().unwrap();
    assert_eq!(e.code(), "translate_bad_key");
    assert_no_key(&e);
}

/// `text` as the key is looked for in it: its ASCII letters and digits, lower-cased.
fn folded(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The key as a server might echo it without being caught by a plain search: in another case,
/// or split by spaces, punctuation, line breaks, zero-width spaces, or written full-width.
fn disguised_keys() -> Vec<String> {
    let chars: Vec<String> = KEY.chars().map(String::from).collect();
    let split = |every: usize, by: &str| {
        let parts: Vec<String> = chars.chunks(every).map(|c| c.concat()).collect();
        parts.join(by)
    };
    let fullwidth: String = KEY
        .chars()
        .map(|c| match c {
            '!'..='~' => char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap(),
            c => c,
        })
        .collect();
    vec![
        KEY.to_uppercase(),
        KEY.to_lowercase(),
        split(4, " "),
        split(1, "."),
        split(6, "\n"),
        split(1, "\u{200b}"),
        fullwidth,
    ]
}

/// An error text or a reply that holds the key in any case or split is never shown: the
/// error says its text was left out because it holds the key, a translation is refused as a
/// `translate_bad_reply` that says so, and nothing of the key is in any message.
#[test]
fn a_key_echoed_in_another_case_or_split_is_never_shown() {
    let assert_none_of_the_key = |e: &TranslateError| {
        let message = e.to_string();
        assert!(!folded(&message).contains(&folded(KEY)), "{message}");
        assert!(!message.to_lowercase().contains("secret"), "{message}");
    };
    for echo in disguised_keys() {
        let body = json!({"error": {"message": format!("Incorrect API key provided: {echo}.")}});
        let server = Server::start(Answer::Reply(401, body.to_string()));
        let e = translate_err(&server.base_url, "Hello", quick());
        assert_eq!(e.code(), "translate_unauthorized", "{echo:?}");
        assert!(e.to_string().contains("holds the API key"), "{echo:?}: {e}");
        assert_none_of_the_key(&e);
        server.request();

        let server = Server::start(Answer::Reply(200, completion(&format!("Xin chào {echo}"))));
        let e = translate_err(&server.base_url, "Hello", quick());
        assert_eq!(e.code(), "translate_bad_reply", "{echo:?}: {e}");
        assert!(e.to_string().contains("sends the API key back"), "{e}");
        assert_none_of_the_key(&e);
        server.request();
    }
    // The model's name is shown with the translation: checked too.
    let mut reply: Value = serde_json::from_str(&completion("Xin chào")).unwrap();
    reply["model"] = KEY.to_uppercase().into();
    let server = Server::start(Answer::Reply(200, reply.to_string()));
    let e = translate_err(&server.base_url, "Hello", quick());
    assert_eq!(e.code(), "translate_bad_reply", "{e}");
    assert!(e.to_string().contains("sends the API key back"), "{e}");
    server.request();
    // The user's own message held the key: its translation may show it as the message does.
    let server = Server::start(Answer::Reply(200, completion(&format!("khóa: {KEY}"))));
    let done = Endpoint::of(&settings(&server.base_url, KEY))
        .unwrap()
        .translate("m1", &format!("key: {KEY}"), &quick())
        .unwrap();
    assert_eq!(done.text, format!("khóa: {KEY}"));
    server.request();
}

/// Plain http:// carries the key and the message unencrypted: only to this machine (localhost,
/// 127.0.0.0/8, [::1]); anywhere else it is refused before anything is sent.
#[test]
fn plain_http_is_refused_to_any_host_but_this_machine() {
    let with = |base: &str| {
        let mut s = settings("http://127.0.0.1:9/v1", KEY);
        s.base_url = base.into();
        s
    };
    for base in [
        "http://api.example.com/v1",
        "http://10.0.0.7:8080/v1",
        "http://192.168.1.2/v1",
        "http://[2001:db8::1]/v1",
        "http://localhost.evil.example/v1",
        "http://127.0.0.1.nip.io/v1",
        "HTTP://api.example.com/v1",
    ] {
        let s = with(base);
        let e = Endpoint::of(&s)
            .err()
            .unwrap_or_else(|| panic!("{base} accepted"));
        assert_eq!(e.code(), "translate_bad_url", "{base}");
        assert!(e.to_string().contains("https://"), "{e}");
        assert!(e.to_string().contains("nothing was sent"), "{e}");
    }
    for base in [
        "http://127.0.0.1:8080/v1",
        "http://127.1.2.3/v1",
        "http://localhost:11434/v1",
        "http://LOCALHOST/v1",
        "http://[::1]:8080/v1",
        "https://api.example.com/v1",
    ] {
        let s = with(base);
        assert!(Endpoint::of(&s).is_ok(), "{base} refused");
    }
}
