//! `mcp` driven by the MCP SDK's own client (rmcp over the child's stdio), on the Claude
//! fixture store: every tool's schema, paging within the token budget, the privacy rules of
//! config.toml (hidden directories, disabled agents), redaction per call, `--print-config`.

mod common;

use std::path::Path;
use std::process::Command;

use common::{no_agent_variables, no_real_home, testdata, BIN};
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::{json, Value};

/// The Claude store of version 2.1.332: 8 sessions, all in /home/bob/projects/demo.
fn store() -> std::path::PathBuf {
    testdata("claude/2.1.332/dot-claude")
}

const DEMO: &str = "ceefe47d-84be-4483-8ce5-5f829cfd22c9";
/// The longest session of the store: 3 prompts, 5 answers, tool calls.
const LONG: &str = "9d22e384-6685-4b75-ac35-088162e4c4a9";

type Client = RunningService<RoleClient, ()>;

/// `mcp` with `args` on a machine of its own (cache and config.toml in `tmp`).
async fn connect(tmp: &Path, args: &[&str], config: &str) -> Client {
    std::fs::write(tmp.join("config.toml"), config).unwrap();
    let mut cmd = Command::new(BIN);
    no_real_home(&mut cmd)
        .arg("mcp")
        .args(args)
        .env("AGENT_SESSIONS_CACHE_DIR", tmp.join("cache"))
        .env("AGENT_SESSIONS_CONFIG", tmp.join("config.toml"));
    if !args.iter().any(|a| a.starts_with("--claude-root")) {
        no_agent_variables(&mut cmd);
    }
    let transport = TokioChildProcess::new(tokio::process::Command::from(cmd)).unwrap();
    ().serve(transport)
        .await
        .expect("the server answers initialize")
}

async fn connect_to_store(tmp: &Path, config: &str) -> Client {
    let root = store();
    let root = format!("--claude-root={}", root.display());
    connect(tmp, &[&root], config).await
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// The text of a successful call.
async fn ok(client: &Client, tool: &str, args: Value) -> String {
    let result = call(client, tool, args.clone()).await;
    let out = text(&result);
    assert_eq!(result.is_error, Some(false), "{tool} {args}: {out}");
    out
}

/// The text of a failed call, which must start with `error [code]`.
async fn failed(client: &Client, tool: &str, args: Value, code: &str) -> String {
    let result = call(client, tool, args.clone()).await;
    let out = text(&result);
    assert_eq!(result.is_error, Some(true), "{tool} {args}: {out}");
    assert!(out.starts_with(&format!("error [{code}]: ")), "{out}");
    out
}

fn tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

fn schema_props(tool: &Tool) -> Vec<String> {
    let mut names: Vec<String> = tool.input_schema["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("{} has no properties: {:?}", tool.name, tool.input_schema))
        .keys()
        .cloned()
        .collect();
    names.sort();
    names
}

fn required(tool: &Tool) -> Vec<String> {
    tool.input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().map(|v| v.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn every_tool_is_read_only_with_the_documented_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let client = connect_to_store(tmp.path(), "").await;
    let info = client.peer_info().expect("initialized");
    let server = info.server_info.as_ref().expect("server info");
    assert_eq!(server.name, "agent-sessions");
    let mut tools = client.list_all_tools().await.unwrap();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    let shared = ["max_tokens", "redact"];
    let expected: [(&str, &[&str], &[&str]); 5] = [
        (
            "list_sessions",
            &["agent", "cursor", "dir", "limit", "model", "since", "until"],
            &[],
        ),
        (
            "read_session",
            &[
                "count",
                "cursor",
                "format",
                "include_reasoning",
                "include_tool_output",
                "message_id",
                "session_id",
            ],
            &["session_id"],
        ),
        (
            "search_sessions",
            &["agent", "dir", "limit", "query", "since", "until"],
            &["query"],
        ),
        ("session_stats", &["agent", "by", "since"], &[]),
        (
            "session_timeline",
            &["cursor", "session_id"],
            &["session_id"],
        ),
    ];
    assert_eq!(tools.len(), expected.len(), "{tools:#?}");
    for (tool, (name, props, needed)) in tools.iter().zip(expected) {
        assert_eq!(tool.name, name);
        let mut want: Vec<String> = props.iter().chain(&shared).map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(schema_props(tool), want, "{name}'s parameters");
        assert_eq!(required(tool), needed, "{name}'s required parameters");
        assert_eq!(tool.input_schema["type"], "object");
        // Every parameter is described for the model.
        for (p, schema) in tool.input_schema["properties"].as_object().unwrap() {
            let described = schema.get("description").and_then(Value::as_str);
            assert!(
                described.is_some_and(|d| d.len() > 10),
                "{name}.{p} has no description"
            );
        }
        let notes = tool.annotations.as_ref().expect("annotations");
        assert_eq!(notes.read_only_hint, Some(true), "{name} is read-only");
        assert!(tool.description.as_deref().is_some_and(|d| d.len() > 40));
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn search_gives_the_hit_and_read_goes_on_from_it() {
    let tmp = tempfile::tempdir().unwrap();
    let client = connect_to_store(tmp.path(), "").await;
    let found = ok(
        &client,
        "search_sessions",
        json!({"query": "my-demo-session"}),
    )
    .await;
    assert!(found.contains(&format!("session_id={DEMO}")), "{found}");
    assert!(found.contains("«my-demo-session»"), "{found}");
    // A message hit names the message read_session starts at.
    let found = ok(
        &client,
        "search_sessions",
        json!({"query": "main.py", "agent": "claude"}),
    )
    .await;
    // The first hit in a message: `[n] claude session_id=… message_id=…`.
    let hit = found
        .lines()
        .find(|l| l.starts_with('[') && l.contains("message_id="))
        .unwrap_or_else(|| panic!("no message hit: {found}"));
    let field = |name: &str| {
        hit.split(&format!("{name}="))
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap()
    };
    let (session, message) = (field("session_id"), field("message_id"));
    let read = ok(
        &client,
        "read_session",
        json!({"session_id": session, "message_id": message, "count": 1}),
    )
    .await;
    assert!(read.contains(&format!("message_id={message}")), "{read}");
    assert!(read.contains("main.py"), "{read}");
    // Filters apply: no codex sessions here, and nothing before the store's day.
    let none = ok(
        &client,
        "search_sessions",
        json!({"query": "main.py", "agent": "codex"}),
    )
    .await;
    assert!(none.starts_with("0 hits"), "{none}");
    let none = ok(
        &client,
        "search_sessions",
        json!({"query": "main.py", "until": "2020-01-01"}),
    )
    .await;
    assert!(none.starts_with("0 hits"), "{none}");
    failed(
        &client,
        "search_sessions",
        json!({"query": "\"open"}),
        "bad_query",
    )
    .await;
    failed(
        &client,
        "search_sessions",
        json!({"query": "x", "agent": "vim"}),
        "bad_params",
    )
    .await;
    failed(
        &client,
        "search_sessions",
        json!({"query": "x", "since": "yesterday"}),
        "bad_params",
    )
    .await;
    client.cancel().await.unwrap();
}

/// Reads a session page after page, following the cursors: every page within the budget, the
/// messages in order, each once, the last page not truncated.
async fn read_all(client: &Client, args: Value, budget: usize) -> (Vec<String>, usize) {
    let mut cursor: Option<String> = None;
    let (mut seen, mut pages) = (Vec::new(), 0);
    loop {
        let mut a = args.clone();
        a["max_tokens"] = json!(budget);
        if let Some(c) = &cursor {
            a["cursor"] = json!(c);
        }
        let page = ok(client, "read_session", a).await;
        pages += 1;
        assert!(
            tokens(&page) <= budget,
            "{} tokens > {budget}: {page}",
            tokens(&page)
        );
        for block in page.split("\n[").skip(1) {
            let n = block.split(']').next().unwrap();
            if let Ok(n) = n.parse::<usize>() {
                seen.push(n.to_string());
            }
        }
        match page.split("cursor=\"").nth(1) {
            Some(rest) => {
                assert!(page.contains("truncated: true"), "{page}");
                cursor = Some(rest.split('"').next().unwrap().to_owned());
            }
            None => {
                assert!(page.contains("truncated: false"), "{page}");
                return (seen, pages);
            }
        }
        assert!(pages < 100, "the cursors do not move on");
    }
}

#[tokio::test]
async fn read_session_pages_within_the_token_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let client = connect_to_store(tmp.path(), "").await;
    let whole = ok(
        &client,
        "read_session",
        json!({"session_id": LONG, "max_tokens": 20000}),
    )
    .await;
    assert!(whole.contains("truncated: false"), "{whole}");
    let all: Vec<String> = whole
        .split("\n[")
        .skip(1)
        .filter_map(|b| b.split(']').next()?.parse::<usize>().ok())
        .map(|n| n.to_string())
        .collect();
    assert!(all.len() >= 5, "{whole}");
    let (paged, pages) = read_all(&client, json!({"session_id": LONG}), 200).await;
    assert_eq!(
        paged, all,
        "pages of 200 tokens hold every message once, in order"
    );
    assert!(pages > 1, "a 200-token budget needs several pages");
    // Tool output only when asked for it; reasoning likewise.
    let bare = ok(&client, "read_session", json!({"session_id": LONG})).await;
    let with = ok(
        &client,
        "read_session",
        json!({"session_id": LONG, "include_tool_output": true}),
    )
    .await;
    assert!(
        !bare.contains("(output)") && with.contains("(output)"),
        "{with}"
    );
    // The raw records only when asked: each message as its JSON.
    let json_page = ok(
        &client,
        "read_session",
        json!({"session_id": LONG, "format": "json", "count": 1}),
    )
    .await;
    let record = json_page
        .lines()
        .find(|l| l.starts_with('{'))
        .expect("a JSON line");
    let record: Value = serde_json::from_str(record).unwrap();
    assert!(record["parts"].is_array(), "{record}");
    failed(
        &client,
        "read_session",
        json!({"session_id": "nope-no-such"}),
        "session_not_found",
    )
    .await;
    failed(
        &client,
        "read_session",
        json!({"session_id": LONG, "cursor": "x"}),
        "bad_params",
    )
    .await;
    failed(
        &client,
        "read_session",
        json!({"session_id": LONG, "message_id": "nope"}),
        "message_not_found",
    )
    .await;
    client.cancel().await.unwrap();
}

/// The number and id of a message's first line in `read_session`'s answer.
fn message_line(line: &str) -> Option<(usize, String)> {
    let (n, rest) = line.strip_prefix('[')?.split_once("] ")?;
    let id = rest.split(" · message_id=").nth(1)?;
    Some((n.parse().ok()?, id.to_owned()))
}

/// A big session (a real one of 3 MB and 1,512 records, of the public samples in
/// `../shared/fixtures/public`, read in place when they are there) read a page at a time as
/// JSON: the pages join to the whole transcript `show --json` prints, each message once, in
/// order, as it is (the server keeps the parsed transcript between pages: paging parses once).
#[tokio::test]
async fn a_big_session_read_page_by_page_joins_to_the_whole_transcript() {
    const BIG: &str = "4d5611e5-241a-462a-8d15-5122611a9569";
    let root = common::repo().join("../shared/fixtures/public/claude/marot-spotter");
    if !root.is_dir() {
        eprintln!(
            "skipped: the public samples are not here ({})",
            root.display()
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let flag = format!("--claude-root={}", root.display());
    let client = connect(tmp.path(), &[&flag], "").await;
    let mut joined: Vec<(usize, Value)> = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut args = json!({"session_id": BIG, "format": "json", "max_tokens": 8000});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = ok(&client, "read_session", args).await;
        pages += 1;
        // Each message: a line `[n] role · time · message_id=…`, then its JSON on one line.
        let mut lines = page.lines();
        while let Some(line) = lines.next() {
            let Some((n, id)) = message_line(line) else {
                continue;
            };
            // A message larger than a page is cut (and said to be): its id still counts.
            let m = serde_json::from_str(lines.next().unwrap_or_default()).unwrap_or(Value::Null);
            joined.push((n, json!({"id": id, "message": m})));
        }
        match page.split("cursor=\"").nth(1) {
            Some(rest) => cursor = Some(rest.split('"').next().unwrap().to_owned()),
            None => break,
        }
        assert!(pages < 200, "the cursors do not move on");
    }
    client.cancel().await.unwrap();
    assert!(
        pages > 3,
        "{pages} pages: the session is not big enough to page"
    );

    let out = common::cli(
        &tmp.path().join("show-cache"),
        &[
            "show",
            BIG,
            "--json",
            "--claude-root",
            root.to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    let shown = common::json_of(&out);
    let whole: Vec<(usize, &Value)> = shown["data"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, m)| m["meta"] != true)
        .collect();
    assert_eq!(joined.len(), whole.len(), "every message once");
    let mut compared = 0;
    for ((n, got), (at, want)) in joined.iter().zip(&whole) {
        assert_eq!(n, at, "in order");
        assert_eq!(got["id"], want["id"]);
        if !got["message"].is_null() {
            assert_eq!(&got["message"], *want, "message {n}");
            compared += 1;
        }
    }
    assert!(
        compared * 10 >= whole.len() * 9,
        "{compared} of {} whole",
        whole.len()
    );
}

/// Paging parses a session once: after its first page, its file is overwritten in place with
/// bytes that hold no message, its size and time kept (as the listing sees it, unchanged),
/// and the next page still comes from the transcript parsed for the first. (Before, each page
/// read the file again: the second page found no messages.) Once the file's time changes,
/// the next page reads it again.
#[tokio::test]
async fn the_pages_of_a_session_come_from_one_parse_until_its_file_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("claude");
    common::copy_dir(&store(), &root);
    let flag = format!("--claude-root={}", root.display());
    let client = connect(tmp.path(), &[&flag], "").await;
    let first = ok(
        &client,
        "read_session",
        json!({"session_id": LONG, "count": 1}),
    )
    .await;
    let cursor = first
        .split("cursor=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_owned();
    let file = root
        .join("projects/-home-bob-projects-demo")
        .join(format!("{LONG}.jsonl"));
    let modified = std::fs::metadata(&file).unwrap().modified().unwrap();
    let size = std::fs::metadata(&file).unwrap().len() as usize;
    std::fs::write(&file, " ".repeat(size - 1) + "\n").unwrap();
    let f = std::fs::File::options().write(true).open(&file).unwrap();
    f.set_modified(modified).unwrap();
    let next = json!({"session_id": LONG, "count": 1, "cursor": cursor});
    let second = ok(&client, "read_session", next.clone()).await;
    assert!(second.contains(&format!("\n[{cursor}] ")), "{second}");

    // The file's time changed: it is read again, and holds no session any more.
    f.set_modified(modified + std::time::Duration::from_secs(60))
        .unwrap();
    let again = text(&call(&client, "read_session", next).await);
    let gone = again.contains(&format!("(no messages from {cursor} on)"))
        || again.starts_with("error [session_not_found]");
    assert!(gone, "{again}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn list_timeline_and_stats_page_and_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let client = connect_to_store(tmp.path(), "").await;
    let mut ids = Vec::new();
    let mut cursor = json!(null);
    for _ in 0..10 {
        let page = ok(
            &client,
            "list_sessions",
            json!({"limit": 3, "cursor": cursor}),
        )
        .await;
        assert!(page.starts_with("8 sessions"), "{page}");
        ids.extend(
            page.split("session_id=")
                .skip(1)
                .map(|r| r.split_whitespace().next().unwrap().to_owned()),
        );
        match page.split("cursor=\"").nth(1) {
            Some(rest) => cursor = json!(rest.split('"').next().unwrap()),
            None => break,
        }
    }
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!((ids.len(), unique.len()), (8, 8), "{ids:?}");
    assert!(ids.contains(&DEMO.to_owned()));
    let timeline = ok(&client, "session_timeline", json!({"session_id": LONG})).await;
    assert!(
        timeline.contains("session_start") && timeline.contains("tool_start"),
        "{timeline}"
    );
    let stats = ok(&client, "session_stats", json!({"by": "agent"})).await;
    let claude = stats
        .lines()
        .find(|l| l.starts_with("claude"))
        .expect(&stats);
    assert_eq!(claude.split_whitespace().nth(1), Some("8"), "{stats}");
    failed(
        &client,
        "session_stats",
        json!({"by": "planet"}),
        "bad_params",
    )
    .await;
    client.cancel().await.unwrap();
}

/// Hidden directories are out of every tool's answers; a disabled agent is not read at all.
#[tokio::test]
#[cfg_attr(
    windows,
    ignore = "hides the Linux fixture's /home/bob/projects, which a Windows config rejects (not absolute there)"
)]
async fn config_hidden_directories_and_disabled_agents_are_honoured() {
    let tmp = tempfile::tempdir().unwrap();
    let hidden = "[ui]\nhidden_dirs = [\"/home/bob/projects\"]\n";
    let client = connect_to_store(tmp.path(), hidden).await;
    let listed = ok(&client, "list_sessions", json!({})).await;
    assert!(listed.starts_with("0 sessions"), "{listed}");
    let found = ok(
        &client,
        "search_sessions",
        json!({"query": "my-demo-session"}),
    )
    .await;
    assert!(found.starts_with("0 hits"), "{found}");
    let refused = failed(
        &client,
        "read_session",
        json!({"session_id": DEMO}),
        "session_hidden",
    )
    .await;
    assert!(refused.contains("ui.hidden_dirs"), "{refused}");
    assert!(
        !refused.contains("my-demo-session"),
        "nothing of it is shown: {refused}"
    );
    failed(
        &client,
        "session_timeline",
        json!({"session_id": DEMO}),
        "session_hidden",
    )
    .await;
    let stats = ok(&client, "session_stats", json!({"by": "agent"})).await;
    assert!(!stats.lines().any(|l| l.starts_with("claude")), "{stats}");
    client.cancel().await.unwrap();

    // The store named in config.toml, the agent disabled there.
    let tmp = tempfile::tempdir().unwrap();
    let config = format!(
        "[providers.claude]\nroots = [{:?}]\nenabled = false\n",
        store().display().to_string()
    );
    let client = connect(tmp.path(), &[], &config).await;
    let listed = ok(&client, "list_sessions", json!({})).await;
    assert!(listed.starts_with("0 sessions"), "{listed}");
    failed(
        &client,
        "read_session",
        json!({"session_id": DEMO}),
        "session_not_found",
    )
    .await;
    client.cancel().await.unwrap();
    // Enabled, the same config reads it.
    let tmp = tempfile::tempdir().unwrap();
    let client = connect(tmp.path(), &[], &config.replace("false", "true")).await;
    let listed = ok(&client, "list_sessions", json!({})).await;
    assert!(listed.starts_with("8 sessions"), "{listed}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn redaction_is_per_call() {
    let tmp = tempfile::tempdir().unwrap();
    let client = connect_to_store(tmp.path(), "").await;
    let plain = ok(&client, "read_session", json!({"session_id": DEMO})).await;
    assert!(plain.contains("/home/bob/projects/demo"), "{plain}");
    let redacted = ok(
        &client,
        "read_session",
        json!({"session_id": DEMO, "redact": true}),
    )
    .await;
    assert!(!redacted.contains("/home/bob"), "{redacted}");
    assert!(redacted.contains("~/projects/demo"), "{redacted}");
    assert!(redacted.contains("redacted: "), "{redacted}");
    let listed = ok(&client, "list_sessions", json!({"redact": true})).await;
    assert!(!listed.contains("/home/bob"), "{listed}");
    client.cancel().await.unwrap();
}

#[test]
fn print_config_prints_each_agents_snippet() {
    let run = |args: &[&str]| {
        let out = Command::new(BIN).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let exe = Path::new(BIN).canonicalize().unwrap();
    // A Windows path as a user writes it: no verbatim `\\?\` prefix.
    let exe = exe.to_str().unwrap().trim_start_matches(r"\\?\");
    let claude = run(&["mcp", "--print-config", "claude"]);
    // Quoted for a POSIX shell, which PowerShell reads the same: `\` needs quoting there.
    let word = if cfg!(windows) {
        format!("'{exe}'")
    } else {
        exe.to_owned()
    };
    assert_eq!(
        claude,
        format!("claude mcp add --scope user agent-sessions -- {word} mcp\n")
    );
    let codex = run(&["mcp", "--print-config", "codex", "--host", "box"]);
    assert!(
        codex.contains(&format!(
            "command = {exe:?}\nargs = [\"mcp\", \"--host\", \"box\"]"
        )),
        "{codex}"
    );
    for agent in ["opencode", "gemini"] {
        let snippet: Value = serde_json::from_str(&run(&["mcp", "--print-config", agent])).unwrap();
        // The path as the JSON text writes it (a Windows path's `\` escaped).
        let exe = Value::from(exe).to_string();
        assert!(
            snippet.to_string().contains(exe.trim_matches('"')),
            "{snippet}"
        );
    }
    let bad = Command::new(BIN)
        .args(["mcp", "--print-config", "vim"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// `mcp --host`: the tools answer from another machine's stores, reached through a real sshd
/// on 127.0.0.1 (the remote protocol of `--host`), with this machine's hidden directories.
#[tokio::test]
#[cfg_attr(windows, ignore = "starts a real OpenSSH server (sshd) and ssh")]
async fn with_host_the_tools_read_the_remote_sessions() {
    let remote = tempfile::tempdir().unwrap();
    let home = remote.path().join("home");
    common::copy_dir(&store(), &home.join(".claude"));
    let sshd =
        agent_sessions_remote::loopback::Sshd::start(&home).unwrap_or_else(|e| panic!("{e}"));
    let config = sshd.config();
    let args = [
        "--host",
        "testbox",
        "--ssh-config",
        config.to_str().unwrap(),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let client = connect(tmp.path(), &args, "").await;
    let info = client.peer_info().unwrap();
    assert!(info
        .instructions
        .as_deref()
        .is_some_and(|i| i.contains("testbox")));
    let found = ok(
        &client,
        "search_sessions",
        json!({"query": "my-demo-session"}),
    )
    .await;
    assert!(found.contains(&format!("session_id={DEMO}")), "{found}");
    let listed = ok(&client, "list_sessions", json!({"agent": "claude"})).await;
    assert!(listed.starts_with("8 sessions"), "{listed}");
    let (paged, _) = read_all(&client, json!({"session_id": LONG}), 200).await;
    assert!(paged.len() >= 5, "{paged:?}");
    let timeline = ok(&client, "session_timeline", json!({"session_id": LONG})).await;
    assert!(timeline.contains("session_start"), "{timeline}");
    client.cancel().await.unwrap();
    // This machine's hidden directories apply to the host's sessions.
    let tmp = tempfile::tempdir().unwrap();
    let hidden = "[ui]\nhidden_dirs = [\"/home/bob/projects/demo\"]\n";
    let client = connect(tmp.path(), &args, hidden).await;
    let listed = ok(&client, "list_sessions", json!({})).await;
    assert!(listed.starts_with("0 sessions"), "{listed}");
    failed(
        &client,
        "read_session",
        json!({"session_id": DEMO}),
        "session_hidden",
    )
    .await;
    client.cancel().await.unwrap();
}
