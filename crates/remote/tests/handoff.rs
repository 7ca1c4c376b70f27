//! `handoff_prepare` end to end over the in-memory transport: the server writes the handoff's
//! prompt file in its cache (exactly the document `handoff` answers, 0600 in a 0700 folder) and
//! answers the agent's command, which run in the session's hostile directory hands the fake agent
//! exactly that document and removes the file. An agent missing there is `agent_not_found`
//! with nothing written.
//!
//! One test in its own binary: the server finds the agent on this process's `PATH` (as it does
//! on a host), so the test sets `PATH` and `HOME`, which no other test here may see.

// POSIX only: a shell-script agent and Unix modes (scripts/test-windows.sh lists it).
#![cfg(unix)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use agent_sessions_core::actions::handoff::launch::UNIX_SCRIPT;
use agent_sessions_remote::protocol::*;
use agent_sessions_remote::{Client, Error};
use serde_json::Value;

use common::*;

const SESSION: &str = "9d22e384-6685-4b75-ac35-088162e4c4a9";

/// Points the fixture copy's session at `dir` (JSON-escaped in every record).
fn move_session(root: &Path, dir: &Path) {
    let file = root.join(format!("projects/-home-bob-projects-demo/{SESSION}.jsonl"));
    let text = std::fs::read_to_string(&file).unwrap();
    let escaped = serde_json::to_string(dir.to_str().unwrap()).unwrap();
    let moved = text.replace(
        r#""cwd":"/home/bob/projects/demo""#,
        &format!(r#""cwd":{escaped}"#),
    );
    assert_ne!(moved, text);
    std::fs::write(&file, moved).unwrap();
}

fn params() -> HandoffParams {
    HandoffParams {
        session: SessionRef {
            id: SESSION.into(),
            provider: None,
            source_path: None,
        },
        to: agent_sessions_core::ProviderKind::Codex,
        budget: None,
    }
}

#[test]
fn the_host_writes_the_prompt_file_and_answers_the_agents_command() {
    let store = claude_copy();
    let work = tempfile::tempdir().unwrap();
    let hostile = work.path().join("it's a $(touch pwned) `x` \\ dir; -rf *");
    std::fs::create_dir(&hostile).unwrap();
    move_session(store.path(), &hostile);
    let bin = work.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::env::set_var("PATH", &bin);
    std::env::set_var("HOME", work.path());

    let cache = tempfile::tempdir().unwrap();
    let prompts = cache.path().join("handoff");
    let memory = memory(claude_roots(store.path()), cache.path());
    let mut client = Client::connect(Box::new(memory)).unwrap();

    // No codex on the host: refused, the command to run by hand in the message, nothing written.
    let missing = client
        .call::<Value>(method::HANDOFF_PREPARE, params())
        .unwrap_err();
    let Error::Server(w) = &missing else {
        panic!("{missing:?}")
    };
    assert_eq!(w.code, "agent_not_found");
    assert!(w.message.contains("&& codex"), "{}", w.message);
    assert!(!prompts.exists() || std::fs::read_dir(&prompts).unwrap().count() == 0);

    // A stand-in codex that records its arguments and where it ran.
    let record = work.path().join("record");
    let agent = bin.join("codex");
    std::fs::write(
        &agent,
        format!(
            "#!/bin/sh\npwd > '{0}.pwd'\nprintf '%s' \"$#\" > '{0}.argc'\nprintf '%s' \"$1\" > '{0}.prompt'\n",
            record.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();

    let doc: Value = client.call(method::HANDOFF, params()).unwrap();
    let markdown = doc["markdown"].as_str().unwrap();
    let prepared: HandoffPrepared = client.call(method::HANDOFF_PREPARE, params()).unwrap();
    assert_eq!(prepared.cwd, hostile);
    assert_eq!(prepared.prompt_file.parent(), Some(prompts.as_path()));
    let name = prepared.prompt_file.file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with("handoff-") && name.ends_with(".md"),
        "{name}"
    );
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&prepared.prompt_file), 0o600);
    assert_eq!(mode(&prompts), 0o700);
    assert_eq!(
        std::fs::read_to_string(&prepared.prompt_file).unwrap(),
        markdown
    );
    assert_eq!(prepared.chars, doc["chars"]);
    let file = prepared.prompt_file.to_str().unwrap();
    let agent = agent.to_str().unwrap();
    assert_eq!(
        prepared.argv,
        [
            "/bin/sh",
            "-c",
            UNIX_SCRIPT,
            "agent-sessions-handoff",
            file,
            agent
        ]
    );

    // Run where the app's ssh runs it: the agent gets the document as one argument, the file goes.
    let status = Command::new(&prepared.argv[0])
        .args(&prepared.argv[1..])
        .current_dir(&prepared.cwd)
        // The host's PATH has cat and rm (the server's own here is the agent's folder only).
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .status()
        .unwrap();
    assert!(status.success());
    let read = |ext: &str| std::fs::read_to_string(record.with_extension(ext)).unwrap();
    assert_eq!(read("argc"), "1");
    assert_eq!(read("prompt"), markdown.trim_end_matches('\n'));
    assert_eq!(read("pwd").trim_end(), hostile.to_str().unwrap());
    assert!(!prepared.prompt_file.exists());
    assert!(!work.path().join("pwned").exists());

    // A budget out of range is refused before anything is written.
    let mut small = params();
    small.budget = Some(10);
    let refused = client
        .call::<Value>(method::HANDOFF_PREPARE, small)
        .unwrap_err();
    assert!(matches!(&refused, Error::Server(w) if w.code == "bad_query"));
    assert_eq!(std::fs::read_dir(&prompts).unwrap().count(), 0);
}
