//! `translate <id> <message-id>` over a fixture session, against a local HTTP server on
//! 127.0.0.1 started here: the envelope, the text output, what the server received, and errors
//! (not set up, a refused key, an unknown message) that never print the key.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::thread::JoinHandle;
use std::time::Duration;

use agent_sessions_core::actions::translate::text_of;
use agent_sessions_core::Message;
use serde_json::{json, Value};

use common::json_of;

const KEY: &str = "sk-cli-test-SECRET-4242";

/// The fixture store, a cache and a config file of the test's own.
struct Setup {
    tmp: tempfile::TempDir,
    store: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        Setup {
            tmp: tempfile::tempdir().unwrap(),
            store: Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../testdata/claude/2.1.9/dot-claude"),
        }
    }

    fn config(&self, base_url: &str) {
        let text = format!(
            "# mine\n[translate]\nbase_url = {base_url:?}\napi_key = {KEY:?}\nmodel = \"m\"\nlanguage = \"German\"\n"
        );
        std::fs::write(self.tmp.path().join("config.toml"), text).unwrap();
    }

    fn run(&self, args: &[&str]) -> Output {
        let empty = Path::new("/nonexistent/agent-sessions-cli-test-home");
        Command::new(env!("CARGO_BIN_EXE_agent-sessions-cli"))
            .args(args)
            .arg("--claude-root")
            .arg(&self.store)
            .env("AGENT_SESSIONS_CACHE_DIR", self.tmp.path().join("cache"))
            .env("AGENT_SESSIONS_CONFIG", self.tmp.path().join("config.toml"))
            .env("HOME", empty)
            .env("CODEX_HOME", empty.join("codex"))
            .env("XDG_DATA_HOME", empty.join("data"))
            .output()
            .unwrap()
    }

    /// A session of the fixture and its assistant message with the most text.
    fn message(&self) -> (String, Message) {
        let scan = json_of(&self.run(&["scan", "--json"]));
        for s in scan["data"]["sessions"].as_array().unwrap() {
            let id = s["id"].as_str().unwrap();
            let show = json_of(&self.run(&["show", id, "--json"]));
            let messages: Vec<Message> =
                serde_json::from_value(show["data"]["messages"].clone()).unwrap();
            let best = messages
                .into_iter()
                .filter(|m| text_of(m).is_some_and(|t| t.len() > 40))
                .max_by_key(|m| text_of(m).map(|t| t.len()));
            if let Some(m) = best {
                return (id.to_owned(), m);
            }
        }
        panic!("no fixture message with text");
    }
}

/// What the server got: the request head and its body.
type Received = (String, Vec<u8>);

/// A server for one request that answers `status` with `body`, and returns what it got. Each
/// test sends the request it starts one for; a test that fails first leaves it waiting in
/// `accept` until the test process ends.
fn serve(status: u16, body: String) -> (String, JoinHandle<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let thread = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut reader = BufReader::new(&stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            head.push_str(&line);
            if line == "\r\n" {
                break;
            }
        }
        let length: usize = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length:")
                    .map(|v| v.trim().parse().unwrap())
            })
            .unwrap();
        let mut got = vec![0; length];
        reader.read_exact(&mut got).unwrap();
        write!(
            stream,
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        (head, got)
    });
    (base, thread)
}

fn completion(text: &str) -> String {
    json!({"model": "m-1", "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}).to_string()
}

fn assert_no_key(out: &Output) {
    for stream in [&out.stdout, &out.stderr] {
        let text = String::from_utf8_lossy(stream);
        assert!(!text.contains("SECRET"), "the key was printed: {text}");
    }
}

#[test]
fn translates_one_message_of_a_fixture_session() {
    let setup = Setup::new();
    let (session, message) = setup.message();
    let text = text_of(&message).unwrap();
    let (base, server) = serve(200, completion("Eine Übersetzung."));
    setup.config(&base);
    let out = setup.run(&["translate", &session[..8], &message.id, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_no_key(&out);
    let v = json_of(&out);
    assert_eq!(v["schema_version"], "agent-sessions.cli.v1");
    assert_eq!(v["ok"], true);
    assert_eq!(v["data"]["session_id"], session.as_str());
    let t = &v["data"]["translation"];
    assert_eq!(t["text"], "Eine Übersetzung.");
    assert_eq!(t["message_id"], message.id.as_str());
    assert_eq!(t["language"], "German");
    assert_eq!(t["model"], "m-1");
    assert_eq!(t["truncated"], false);

    let (head, body) = server.join().unwrap();
    assert!(
        head.starts_with("POST /v1/chat/completions HTTP/1.1\r\n"),
        "{head}"
    );
    let bearer = format!("Bearer {KEY}");
    let authorization = head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("authorization")
            .then(|| value.trim())
    });
    assert_eq!(authorization, Some(bearer.as_str()), "{head}");
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["model"], "m");
    assert_eq!(body["messages"][1]["content"], text.as_str());
    assert_eq!(body["messages"].as_array().unwrap().len(), 2);

    // Text output: the translation alone.
    let (base, server) = serve(200, completion("Noch einmal."));
    setup.config(&base);
    let out = setup.run(&["translate", &session, &message.id]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Noch einmal.\n");
    server.join().unwrap();
}

#[test]
fn errors_are_coded_and_never_print_the_key() {
    let setup = Setup::new();
    let (session, message) = setup.message();

    // No config file: nothing set up, nothing sent.
    let out = setup.run(&["translate", &session, &message.id, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], "translate_not_configured");

    // A refused key, echoed by the server: reported in both output forms, the key masked.
    let refusal = json!({"error": {"message": format!("Incorrect API key provided: {KEY}")}});
    let (base, server) = serve(401, refusal.to_string());
    setup.config(&base);
    let out = setup.run(&["translate", &session, &message.id, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_no_key(&out);
    let v = json_of(&out);
    assert_eq!(v["error"]["code"], "translate_unauthorized");
    assert!(v["error"]["message"].as_str().unwrap().contains("HTTP 401"));
    server.join().unwrap();

    let (base, server) = serve(401, refusal.to_string());
    setup.config(&base);
    let out = setup.run(&["translate", &session, &message.id]);
    assert_eq!(out.status.code(), Some(1));
    assert_no_key(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("refused the API key (HTTP 401)"), "{err}");
    server.join().unwrap();

    let out = setup.run(&["translate", &session, "no-such-message", "--json"]);
    assert_eq!(json_of(&out)["error"]["code"], "message_not_found");
}
