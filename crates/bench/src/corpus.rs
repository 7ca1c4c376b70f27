//! Writes realistic stores in the agents' real current formats, at a chosen size.
//!
//! Claude Code: 2.1.x records as the fixtures show them — mode/permission records, prompts,
//! system-reminder attachments, assistant responses split per content block (thinking, text,
//! tool_use) with usage, tool results carrying both the model-facing text and `toolUseResult`.
//! Sizes of text and outputs vary with a fixed-seed generator, so a run is repeatable.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use agent_sessions_core::ProviderKind;
use serde_json::json;

/// A small deterministic generator (xorshift64*), so corpora are identical run to run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

const WORDS: &[&str] = &[
    "the",
    "build",
    "fails",
    "because",
    "function",
    "returns",
    "error",
    "when",
    "config",
    "file",
    "is",
    "missing",
    "let",
    "me",
    "check",
    "tests",
    "module",
    "parser",
    "index",
    "query",
    "cache",
    "update",
    "struct",
    "field",
    "value",
    "request",
    "response",
    "server",
    "client",
    "timeout",
    "retry",
    "branch",
    "commit",
    "merge",
    "refactor",
    "rename",
    "handler",
    "route",
    "schema",
    "migration",
    "async",
    "await",
    "thread",
    "lock",
    "panic",
    "unwrap",
    "option",
    "result",
];

/// How many rarer tokens (identifiers, paths, error codes) the vocabulary has beside the
/// common words; they are drawn Zipf-like, so a few are frequent and most are rare.
pub const RARE_TOKENS: u64 = 20_000;

/// The `i`-th rare token: identifiers, file paths, error codes, as transcripts are full of.
pub fn token(i: u64) -> String {
    const STEMS: &[&str] = &[
        "parseConfig",
        "handle_request",
        "QueryBuilder",
        "retry_backoff",
        "SessionStore",
        "index_rows",
        "renderView",
        "flush_wal",
    ];
    match i % 4 {
        0 => format!("{}{i}", STEMS[(i / 4) as usize % STEMS.len()]),
        1 => format!("src/mod_{i}.rs"),
        2 => format!("E{:04}", i % 10_000),
        _ => format!("0x{i:x}"),
    }
}

fn word(rng: &mut Rng) -> String {
    if rng.below(10) < 7 {
        return WORDS[rng.below(WORDS.len() as u64) as usize].to_owned();
    }
    let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
    token((RARE_TOKENS as f64 * u.powf(2.5)) as u64)
}

fn words(rng: &mut Rng, n: usize) -> String {
    let mut out = String::with_capacity(n * 8);
    for i in 0..n {
        if i > 0 {
            out.push(if rng.below(12) == 0 { '\n' } else { ' ' });
        }
        out.push_str(&word(rng));
    }
    out
}

fn uuid(rng: &mut Rng) -> String {
    let a = rng.next();
    let b = rng.next();
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        b >> 52,
        b & 0xffff_ffff_ffff
    )
}

/// Writes one Claude transcript of about `target` bytes; returns its size.
pub fn claude_session(path: &Path, cwd: &str, target: u64, rng: &mut Rng) -> io::Result<u64> {
    let session = path.file_stem().unwrap().to_string_lossy().into_owned();
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut written = 0u64;
    let mut parent: Option<String> = None;
    let mut turn = 0u64;
    let mut msg = 0u64;
    let line = |out: &mut BufWriter<File>, v: serde_json::Value| -> io::Result<u64> {
        let mut s = serde_json::to_vec(&v).unwrap();
        s.push(b'\n');
        out.write_all(&s)?;
        Ok(s.len() as u64)
    };
    while written < target {
        turn += 1;
        let ts = format!(
            "2026-10-{:02}T{:02}:{:02}:{:02}.000Z",
            1 + turn / 1440 % 28,
            turn / 60 % 24,
            turn % 60,
            rng.below(60)
        );
        let base = |uuid: &str, parent: &Option<String>| {
            json!({
                "parentUuid": parent, "isSidechain": false, "userType": "external",
                "cwd": cwd, "sessionId": session, "version": "2.1.332",
                "gitBranch": "main", "uuid": uuid, "timestamp": ts,
            })
        };
        written += line(
            &mut out,
            json!({"type": "mode", "mode": "normal", "sessionId": session}),
        )?;
        let u = uuid(rng);
        let mut rec = base(&u, &parent);
        rec["type"] = json!("user");
        let prompt_words = 5 + rng.below(60) as usize;
        rec["message"] = json!({"role": "user", "content": words(rng, prompt_words)});
        rec["promptSource"] = json!("typed");
        written += line(&mut out, rec)?;
        parent = Some(u);
        for _ in 0..1 + rng.below(3) {
            let u = uuid(rng);
            let mut rec = base(&u, &parent);
            rec["type"] = json!("attachment");
            let reminder_words = 100 + rng.below(400) as usize;
            rec["attachment"] = json!({"type": "date", "date": "2026-10-01"});
            rec["rendered"] = json!([{"content": format!("<system-reminder>\n{}\n</system-reminder>", words(rng, reminder_words))}]);
            written += line(&mut out, rec)?;
            parent = Some(u);
        }
        for step in 0..1 + rng.below(6) {
            msg += 1;
            let id = format!("msg_{session}_{msg}");
            let usage = json!({"input_tokens": 1500 + rng.below(50_000), "cache_creation_input_tokens": rng.below(2000), "cache_read_input_tokens": rng.below(90_000), "output_tokens": 20 + rng.below(2000)});
            let mut blocks = vec![];
            if step == 0 {
                let n = 20 + rng.below(150) as usize;
                blocks.push(json!({"type": "thinking", "thinking": words(rng, n), "signature": "EqMBCkgIBxABGAIiQ".repeat(8)}));
            }
            let n = 10 + rng.below(200) as usize;
            blocks.push(json!({"type": "text", "text": words(rng, n)}));
            let tool_id = format!("toolu_{session}_{msg}");
            let uses_tool = rng.below(4) != 0;
            if uses_tool {
                let n = 3 + rng.below(30) as usize;
                blocks.push(json!({"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": words(rng, n), "description": "Run it"}}));
            }
            for block in blocks {
                let u = uuid(rng);
                let mut rec = base(&u, &parent);
                rec["type"] = json!("assistant");
                rec["requestId"] = json!(format!("req_{msg}"));
                rec["message"] = json!({"id": id, "type": "message", "role": "assistant", "model": "claude-opus-5-5", "content": [block], "stop_reason": "tool_use", "usage": usage});
                written += line(&mut out, rec)?;
                parent = Some(u);
            }
            if uses_tool {
                let n = 50 + rng.below(1500) as usize;
                let output = words(rng, n);
                let u = uuid(rng);
                let mut rec = base(&u, &parent);
                rec["type"] = json!("user");
                rec["message"] = json!({"role": "user", "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": output, "is_error": false}]});
                rec["toolUseResult"] =
                    json!({"stdout": output, "stderr": "", "interrupted": false, "isImage": false});
                written += line(&mut out, rec)?;
                parent = Some(u);
            }
        }
        written += line(
            &mut out,
            json!({"type": "last-prompt", "lastPrompt": "x", "sessionId": session}),
        )?;
    }
    out.flush()?;
    Ok(written)
}

/// Writes a Claude root of about `total` bytes: many projects, sessions of varied size, and one
/// transcript of `big` bytes. Returns the path of the big transcript.
pub fn claude_root(root: &Path, total: u64, big: u64, rng: &mut Rng) -> io::Result<PathBuf> {
    let projects = root.join("projects");
    let mut written = 0u64;
    let mut project = 0;
    let big_dir = projects.join("-home-user-projects-big");
    fs::create_dir_all(&big_dir)?;
    let big_path = big_dir.join(format!("{}.jsonl", uuid(rng)));
    written += claude_session(&big_path, "/home/user/projects/big", big, rng)?;
    while written < total {
        project += 1;
        let cwd = format!("/home/user/projects/p{project}");
        let dir = projects.join(cwd.replace('/', "-"));
        fs::create_dir_all(&dir)?;
        for _ in 0..3 + rng.below(20) {
            // Mostly small sessions, some medium, a few large: as real histories are.
            let size = match rng.below(20) {
                0 => 2_000_000 + rng.below(6_000_000),
                1..=5 => 200_000 + rng.below(800_000),
                _ => 5_000 + rng.below(120_000),
            };
            let path = dir.join(format!("{}.jsonl", uuid(rng)));
            written += claude_session(&path, &cwd, size, rng)?;
            if written >= total {
                break;
            }
        }
    }
    Ok(big_path)
}

/// Writes one Codex rollout (0.171 envelope format) of about `target` bytes; returns its size.
pub fn codex_rollout(
    path: &Path,
    id: &str,
    cwd: &str,
    target: u64,
    rng: &mut Rng,
) -> io::Result<u64> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut written = 0u64;
    let mut ordinal = 0u64;
    let mut line = |out: &mut BufWriter<File>,
                    kind: &str,
                    payload: serde_json::Value,
                    rng: &mut Rng|
     -> io::Result<u64> {
        ordinal += 1;
        let ts = format!(
            "2026-10-01T{:02}:{:02}:{:02}.000Z",
            ordinal / 3600 % 24,
            ordinal / 60 % 60,
            rng.below(60)
        );
        let mut s = serde_json::to_vec(
            &json!({"timestamp": ts, "ordinal": ordinal, "type": kind, "payload": payload}),
        )
        .unwrap();
        s.push(b'\n');
        out.write_all(&s)?;
        Ok(s.len() as u64)
    };
    written += line(
        &mut out,
        "session_meta",
        json!({"id": id, "session_id": id, "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.171.0", "source": "cli", "model_provider": "openai", "base_instructions": {"text": words(rng, 300)}, "git": {"branch": "main"}}),
        rng,
    )?;
    written += line(
        &mut out,
        "response_item",
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": format!("<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>")}]}),
        rng,
    )?;
    let mut call = 0u64;
    while written < target {
        let n = 5 + rng.below(60) as usize;
        written += line(
            &mut out,
            "turn_context",
            json!({"model": "gpt-5-codex", "cwd": cwd, "approval_policy": "never"}),
            rng,
        )?;
        written += line(
            &mut out,
            "response_item",
            json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": words(rng, n)}]}),
            rng,
        )?;
        for _ in 0..1 + rng.below(6) {
            call += 1;
            let n = 10 + rng.below(80) as usize;
            written += line(
                &mut out,
                "response_item",
                json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": words(rng, n)}], "encrypted_content": "gAAAA".repeat(60)}),
                rng,
            )?;
            let n = 3 + rng.below(20) as usize;
            let args = json!({"cmd": words(rng, n)}).to_string();
            written += line(
                &mut out,
                "response_item",
                json!({"type": "function_call", "name": "exec_command", "arguments": args, "call_id": format!("call_{call}")}),
                rng,
            )?;
            let n = 30 + rng.below(1500) as usize;
            written += line(
                &mut out,
                "response_item",
                json!({"type": "function_call_output", "call_id": format!("call_{call}"), "output": format!("Process exited with code 0\nOutput:\n{}", words(rng, n))}),
                rng,
            )?;
            let total = 1000 + call * 1500;
            written += line(
                &mut out,
                "event_msg",
                json!({"type": "token_count", "info": {"total_token_usage": {"input_tokens": total, "cached_input_tokens": total / 2, "output_tokens": call * 40}}}),
                rng,
            )?;
        }
        let n = 10 + rng.below(200) as usize;
        written += line(
            &mut out,
            "response_item",
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": words(rng, n)}]}),
            rng,
        )?;
    }
    out.flush()?;
    Ok(written)
}

/// Writes a Codex root of about `total` bytes under `sessions/YYYY/MM/DD/`, with one rollout of
/// `big` bytes. Returns the path of the big rollout.
pub fn codex_root(root: &Path, total: u64, big: u64, rng: &mut Rng) -> io::Result<PathBuf> {
    let mut written = 0u64;
    let mut n = 0u64;
    let mut big_path = None;
    while written < total || big_path.is_none() {
        n += 1;
        let day = root.join(format!("sessions/2026/10/{:02}", 1 + n % 28));
        fs::create_dir_all(&day)?;
        let id = uuid(rng);
        let path = day.join(format!("rollout-2026-10-01T00-00-{:02}-{id}.jsonl", n % 60));
        let size = if big_path.is_none() {
            big
        } else {
            match rng.below(20) {
                0 => 2_000_000 + rng.below(6_000_000),
                1..=5 => 200_000 + rng.below(800_000),
                _ => 5_000 + rng.below(120_000),
            }
        };
        let cwd = format!("/home/user/projects/p{}", n % 97);
        written += codex_rollout(&path, &id, &cwd, size, rng)?;
        big_path.get_or_insert(path);
    }
    Ok(big_path.unwrap())
}

/// Writes an OpenCode root with an `opencode.db` (1.18 v1 tables) of about `total` bytes of
/// message and part JSON, in many sessions across projects.
pub fn opencode_root(root: &Path, total: u64, rng: &mut Rng) -> rusqlite::Result<()> {
    fs::create_dir_all(root).expect("create the OpenCode root");
    let mut conn = rusqlite::Connection::open(root.join("opencode.db"))?;
    conn.execute_batch(
        "PRAGMA journal_mode = WAL;
         CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, time_created integer NOT NULL, time_updated integer NOT NULL, sandboxes text NOT NULL);
         CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL,
           summary_additions integer, summary_deletions integer, summary_files integer, cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL,
           tokens_output integer DEFAULT 0 NOT NULL, tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL,
           tokens_cache_write integer DEFAULT 0 NOT NULL, agent text, model text, time_created integer NOT NULL, time_updated integer NOT NULL, time_archived integer);
         CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
         CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
         CREATE INDEX part_session_idx ON part (session_id);
         CREATE INDEX message_session_idx ON message (session_id);",
    )?;
    let tx = conn.transaction()?;
    let mut written = 0u64;
    let mut session_n = 0u64;
    let mut t = 1_796_000_000_000i64;
    while written < total {
        session_n += 1;
        let project = format!("prj{}", session_n % 40);
        let dir = format!("/home/user/projects/oc{}", session_n % 40);
        tx.execute(
            "INSERT OR IGNORE INTO project VALUES (?1, ?2, 'git', 0, 0, '[]')",
            rusqlite::params![project, dir],
        )?;
        let sid = format!(
            "ses_{session_n:012x}{}",
            uuid(rng).replace('-', "")[..14].to_owned()
        );
        let size = match rng.below(20) {
            0 => 1_000_000 + rng.below(3_000_000),
            1..=5 => 100_000 + rng.below(400_000),
            _ => 5_000 + rng.below(80_000),
        };
        let start = t;
        let mut s_written = 0u64;
        let mut m = 0u64;
        while s_written < size {
            m += 1;
            t += 1000;
            let uid = format!("msg_{session_n:06x}{m:06x}u");
            let n = 5 + rng.below(60) as usize;
            let data =
                json!({"role": "user", "time": {"created": t}, "agent": "build"}).to_string();
            tx.execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![uid, sid, t, data],
            )?;
            let part = json!({"type": "text", "text": words(rng, n)}).to_string();
            s_written += (data.len() + part.len()) as u64;
            tx.execute(
                "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![format!("prt_{uid}0"), uid, sid, t, part],
            )?;
            for step in 0..1 + rng.below(4) {
                t += 1000;
                let aid = format!("msg_{session_n:06x}{m:06x}a{step}");
                let data = json!({"role": "assistant", "parentID": uid, "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "mode": "build", "time": {"created": t, "completed": t + 500},
                    "cost": 0.01, "tokens": {"input": 1500, "output": 40, "reasoning": 0, "cache": {"read": 1000, "write": 200}}, "finish": "tool-calls"}).to_string();
                tx.execute(
                    "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                    rusqlite::params![aid, sid, t, data],
                )?;
                s_written += data.len() as u64;
                let n1 = 10 + rng.below(80) as usize;
                let n2 = 10 + rng.below(150) as usize;
                let n3 = 3 + rng.below(20) as usize;
                let n4 = 30 + rng.below(1200) as usize;
                let parts = [
                    json!({"type": "reasoning", "text": words(rng, n1)}),
                    json!({"type": "text", "text": words(rng, n2)}),
                    json!({"type": "tool", "callID": format!("call_{aid}"), "tool": "bash", "state": {"status": "completed", "input": {"command": words(rng, n3)}, "output": words(rng, n4), "metadata": {"exit": 0}}}),
                ];
                for (k, p) in parts.iter().enumerate() {
                    let p = p.to_string();
                    s_written += p.len() as u64;
                    tx.execute(
                        "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                        rusqlite::params![format!("prt_{aid}{k}"), aid, sid, t, p],
                    )?;
                }
            }
        }
        let n = 3 + rng.below(6) as usize;
        tx.execute(
            "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated, model, agent) VALUES (?1, ?2, 'slug', ?3, ?4, '1.18.33', ?5, ?6, '{\"id\":\"claude-sonnet-4-5\"}', 'build')",
            rusqlite::params![sid, project, dir, words(rng, n), start, t],
        )?;
        written += s_written;
    }
    tx.commit()?;
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
    Ok(())
}

/// A JSONL file being written: each value one line, the bytes written counted.
struct Lines {
    out: BufWriter<File>,
    written: u64,
}

impl Lines {
    fn create(path: &Path) -> io::Result<Lines> {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        Ok(Lines {
            out: BufWriter::with_capacity(1 << 20, File::create(path)?),
            written: 0,
        })
    }

    fn line(&mut self, value: &serde_json::Value) -> io::Result<()> {
        let mut s = serde_json::to_vec(value).unwrap_or_default();
        s.push(b'\n');
        self.out.write_all(&s)?;
        self.written += s.len() as u64;
        Ok(())
    }

    fn finish(mut self) -> io::Result<u64> {
        self.out.flush()?;
        Ok(self.written)
    }
}

/// A session's size in bytes, as the agents' stores spread them: mostly small, a few large.
fn session_size(rng: &mut Rng) -> u64 {
    match rng.below(20) {
        0 => 1_000_000 + rng.below(4_000_000),
        1..=5 => 100_000 + rng.below(600_000),
        _ => 5_000 + rng.below(100_000),
    }
}

/// One tool step's words: the reasoning before it, the shell command and its output.
fn tool_step(rng: &mut Rng) -> (String, String, String) {
    let (n1, n2, n3) = (
        10 + rng.below(80) as usize,
        3 + rng.below(20) as usize,
        30 + rng.below(1500) as usize,
    );
    (words(rng, n1), words(rng, n2), words(rng, n3))
}

/// A timestamp `step` seconds into 2026-10-01 (repeats after a day, as timestamps may).
fn stamp(step: u64) -> String {
    format!(
        "2026-10-01T{:02}:{:02}:{:02}.000Z",
        step / 3600 % 24,
        step / 60 % 60,
        step % 60
    )
}

/// Writes one Gemini CLI session (0.39+ JSONL: a metadata line, then message records, each
/// followed by `$set.lastUpdated`; tool calls with their results and reasoning on the reply
/// that made them) of about `target` bytes; returns its size.
pub fn gemini_session(path: &Path, id: &str, target: u64, rng: &mut Rng) -> io::Result<u64> {
    let mut f = Lines::create(path)?;
    let mut step = 0u64;
    f.line(&json!({"sessionId": id, "projectHash": "0".repeat(64), "startTime": stamp(0), "lastUpdated": stamp(0), "kind": "main"}))?;
    let mut call = 0u64;
    while f.written < target {
        step += 1;
        let n = 5 + rng.below(60) as usize;
        f.line(&json!({"id": uuid(rng), "timestamp": stamp(step), "type": "user", "content": [{"text": words(rng, n)}]}))?;
        f.line(&json!({"$set": {"lastUpdated": stamp(step)}}))?;
        for _ in 0..1 + rng.below(5) {
            call += 1;
            step += 1;
            let (thought, command, output) = tool_step(rng);
            let cid = format!("run_shell_command__run_shell_command_{call}_0");
            f.line(&json!({"id": uuid(rng), "timestamp": stamp(step), "type": "gemini", "content": "",
                "thoughts": [{"subject": "Planning", "description": thought, "timestamp": stamp(step)}],
                "tokens": {"input": 1000 + call * 1500, "output": 40, "cached": 500, "thoughts": 20, "tool": 0, "total": 1060 + call * 1500},
                "model": "gemini-2.5-pro",
                "toolCalls": [{"id": cid, "name": "run_shell_command", "args": {"command": command},
                    "result": [{"functionResponse": {"id": cid, "name": "run_shell_command", "response": {"output": output}}}],
                    "status": "success", "timestamp": stamp(step)}]}))?;
            f.line(&json!({"$set": {"lastUpdated": stamp(step)}}))?;
        }
        step += 1;
        let n = 10 + rng.below(200) as usize;
        f.line(&json!({"id": uuid(rng), "timestamp": stamp(step), "type": "gemini", "content": words(rng, n),
            "thoughts": [], "tokens": {"input": 1000 + call * 1500, "output": 60, "cached": 500, "thoughts": 0, "tool": 0, "total": 1060 + call * 1500},
            "model": "gemini-2.5-pro"}))?;
        f.line(&json!({"$set": {"lastUpdated": stamp(step)}}))?;
    }
    f.finish()
}

/// Writes a Gemini CLI root (`~/.gemini`) of about `total` bytes: projects by slug
/// (`projects.json`, `tmp/<slug>/.project_root`), sessions in `tmp/<slug>/chats/`.
pub fn gemini_root(root: &Path, total: u64, rng: &mut Rng) -> io::Result<()> {
    let mut projects = serde_json::Map::new();
    let (mut written, mut n) = (0u64, 0u64);
    while written < total {
        n += 1;
        let slug = format!("g{}", n % 37);
        let dir = format!("/home/user/projects/{slug}");
        let project = root.join("tmp").join(&slug);
        if projects.insert(dir.clone(), json!(slug)).is_none() {
            fs::create_dir_all(project.join("chats"))?;
            fs::write(project.join(".project_root"), &dir)?;
        }
        let id = uuid(rng);
        let path = project.join("chats").join(format!(
            "session-2026-10-01T00-{:02}-{}.jsonl",
            n % 60,
            &id[..8]
        ));
        let size = session_size(rng);
        written += gemini_session(&path, &id, size, rng)?;
    }
    let index = json!({ "projects": projects });
    fs::write(root.join("projects.json"), index.to_string())
}

/// Writes one Qwen Code session (0.5+ `chats/<id>.jsonl`: records linked by `uuid` and
/// `parentUuid`, replies as Gemini API parts with `usageMetadata`, tool results as
/// `tool_result` records, telemetry `system` records between) of about `target` bytes.
pub fn qwen_session(
    path: &Path,
    id: &str,
    cwd: &str,
    target: u64,
    rng: &mut Rng,
) -> io::Result<u64> {
    let mut f = Lines::create(path)?;
    let (mut step, mut call) = (0u64, 0u64);
    let mut parent: Option<String> = None;
    let mut record = |f: &mut Lines, kind: &str, rest: serde_json::Value, rng: &mut Rng| {
        step += 1;
        let uid = uuid(rng);
        let mut v = json!({"uuid": uid, "parentUuid": parent, "sessionId": id, "timestamp": stamp(step),
            "type": kind, "cwd": cwd, "version": "0.24.4"});
        if let (Some(v), serde_json::Value::Object(rest)) = (v.as_object_mut(), rest) {
            v.extend(rest);
        }
        parent = Some(uid);
        f.line(&v)
    };
    while f.written < target {
        let n = 5 + rng.below(60) as usize;
        record(
            &mut f,
            "user",
            json!({"message": {"role": "user", "parts": [{"text": words(rng, n)}]}}),
            rng,
        )?;
        for _ in 0..1 + rng.below(5) {
            call += 1;
            let (thought, command, output) = tool_step(rng);
            let cid = format!("call_{call}");
            let usage = json!({"promptTokenCount": 1000 + call * 1500, "candidatesTokenCount": 40, "thoughtsTokenCount": 20, "totalTokenCount": 1060 + call * 1500, "cachedContentTokenCount": 500});
            record(
                &mut f,
                "system",
                json!({"subtype": "ui_telemetry", "systemPayload": {"uiEvent": {"event.name": "qwen-code.api_response", "model": "qwen3-coder-plus", "status_code": 200}}}),
                rng,
            )?;
            let parts = json!([{"text": thought, "thought": true}, {"functionCall": {"id": cid, "name": "run_shell_command", "args": {"command": command}}}]);
            record(
                &mut f,
                "assistant",
                json!({"model": "qwen3-coder-plus", "message": {"role": "model", "parts": parts}, "usageMetadata": usage}),
                rng,
            )?;
            record(
                &mut f,
                "tool_result",
                json!({"message": {"role": "user", "parts": [{"functionResponse": {"id": cid, "name": "run_shell_command", "response": {"output": output}}}]}}),
                rng,
            )?;
        }
        let n = 10 + rng.below(200) as usize;
        let usage = json!({"promptTokenCount": 1000 + call * 1500, "candidatesTokenCount": 60, "thoughtsTokenCount": 0, "totalTokenCount": 1060 + call * 1500, "cachedContentTokenCount": 500});
        record(
            &mut f,
            "assistant",
            json!({"model": "qwen3-coder-plus", "message": {"role": "model", "parts": [{"text": words(rng, n)}]}, "usageMetadata": usage}),
            rng,
        )?;
    }
    f.finish()
}

/// Writes a Qwen Code root (`~/.qwen`) of about `total` bytes: `projects/<directory with every
/// character but a letter or digit as ->/chats/<id>.jsonl`.
pub fn qwen_root(root: &Path, total: u64, rng: &mut Rng) -> io::Result<()> {
    let (mut written, mut n) = (0u64, 0u64);
    while written < total {
        n += 1;
        let dir = format!("/home/user/projects/q{}", n % 37);
        let folder: String = dir
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let id = uuid(rng);
        let path = root
            .join("projects")
            .join(folder)
            .join("chats")
            .join(format!("{id}.jsonl"));
        let size = session_size(rng);
        written += qwen_session(&path, &id, &dir, size, rng)?;
    }
    Ok(())
}

/// A Cline CLI 3.x store of about `total` bytes: `data/sessions/<id>/` with the session's
/// `<id>.json` and `<id>.messages.json`, prompts, replies and tool calls with their results in
/// the shape 3.0.65 writes them (testdata/cline/3.0.65).
pub fn cline_root(root: &Path, total: u64, rng: &mut Rng) -> io::Result<()> {
    let mut written = 0u64;
    let mut n = 0u64;
    while written < total {
        let start = 1_790_000_000_000u64 + n * 60_000;
        let id = format!("{start}_{:05x}", rng.below(0xfffff));
        let dir = root.join("data/sessions").join(&id);
        fs::create_dir_all(&dir)?;
        let cwd = format!("/home/dev/project-{}", n % 7);
        let mut messages = Vec::new();
        let turns = 2 + rng.below(12);
        for t in 0..turns {
            let ts = start + t * 1000;
            let words_n = 8 + rng.below(40) as usize;
            messages.push(serde_json::json!({"id": uuid(rng), "role": "user", "ts": ts,
                "content": [{"type": "text", "text": format!("<user_input mode=\"act\">{}</user_input>", words(rng, words_n))}]}));
            let call = format!("call_{t}");
            messages.push(serde_json::json!({"id": format!("msg_{t}a"), "role": "assistant", "ts": ts + 300,
                "modelInfo": {"id": "claude-sonnet-4-5", "provider": "anthropic"},
                "metrics": {"inputTokens": 1000 + t * 20, "outputTokens": 50, "cacheReadTokens": 0, "cacheWriteTokens": 0},
                "content": [{"type": "text", "text": words(rng, words_n)},
                            {"type": "tool_use", "id": call, "name": "run_commands", "input": {"commands": ["ls"]}}]}));
            let out_n = 20 + rng.below(400) as usize;
            messages.push(serde_json::json!({"id": format!("msg_{t}r"), "role": "user", "ts": ts + 600,
                "content": [{"type": "tool_result", "tool_use_id": call, "name": "run_commands",
                             "content": [{"query": "ls", "result": words(rng, out_n), "success": true}]}]}));
            messages.push(
                serde_json::json!({"id": format!("msg_{t}b"), "role": "assistant", "ts": ts + 900,
                "modelInfo": {"id": "claude-sonnet-4-5", "provider": "anthropic"},
                "content": [{"type": "text", "text": words(rng, words_n)}]}),
            );
        }
        let conv = serde_json::json!({"version": 1, "sessionId": id, "agent": "lead", "messages": messages});
        let meta = serde_json::json!({"version": 1, "session_id": id, "cwd": cwd, "model": "claude-sonnet-4-5",
            "metadata": {"title": words(rng, 6), "totalCost": 0.01, "sessionHistoryOrigin": {"version": "3.0.65"}}});
        let conv = serde_json::to_vec_pretty(&conv).map_err(io::Error::other)?;
        let meta = serde_json::to_vec_pretty(&meta).map_err(io::Error::other)?;
        fs::write(dir.join(format!("{id}.messages.json")), &conv)?;
        fs::write(dir.join(format!("{id}.json")), &meta)?;
        written += (conv.len() + meta.len()) as u64;
        n += 1;
    }
    Ok(())
}

/// Writes one GitHub Copilot CLI 1.0.x session, `session-state/<id>/events.jsonl`, of about
/// `target` bytes: a start, then turns of a prompt, a tool call with its result and a reply,
/// with usage records, as 1.0.102 writes them. Returns its size.
pub fn copilot_session(dir: &Path, cwd: &str, target: u64, rng: &mut Rng) -> io::Result<u64> {
    let id = uuid(rng);
    let folder = dir.join(&id);
    fs::create_dir_all(&folder)?;
    let mut out = BufWriter::with_capacity(1 << 20, File::create(folder.join("events.jsonl"))?);
    let mut written = 0u64;
    let mut n = 0u64;
    let mut event = |out: &mut BufWriter<File>, kind: &str, data: serde_json::Value| {
        n += 1;
        let ts = format!(
            "2026-10-01T{:02}:{:02}:{:02}.000Z",
            n / 3600 % 24,
            n / 60 % 60,
            n % 60
        );
        let mut line = serde_json::to_vec(&json!({"type": kind, "data": data,
            "id": format!("e{n}"), "timestamp": ts, "parentId": null}))?;
        line.push(b'\n');
        out.write_all(&line)?;
        Ok::<u64, io::Error>(line.len() as u64)
    };
    written += event(
        &mut out,
        "session.start",
        json!({"sessionId": id, "version": 1,
        "producer": "copilot-agent", "copilotVersion": "1.0.102", "selectedModel": "gpt-5",
        "context": {"cwd": cwd}}),
    )?;
    let mut turn = 0u64;
    while written < target {
        turn += 1;
        let call = format!("call_{turn}");
        let n = 5 + rng.below(40) as usize;
        let prompt = words(rng, n);
        written += event(&mut out, "user.message", json!({"content": prompt}))?;
        written += event(
            &mut out,
            "session.usage_record",
            json!({"usage": {"model": "gpt-5",
            "inputTokens": 1000 + rng.below(9000), "outputTokens": 20 + rng.below(800)}}),
        )?;
        written += event(
            &mut out,
            "assistant.message",
            json!({"messageId": format!("m{turn}"),
            "model": "gpt-5", "content": "", "reasoningText": words(rng, 20),
            "toolRequests": [{"toolCallId": call, "name": "bash",
            "arguments": {"command": words(rng, 4)}}]}),
        )?;
        let n = 10 + rng.below(600) as usize;
        let output = words(rng, n);
        written += event(
            &mut out,
            "tool.execution_complete",
            json!({"toolCallId": call,
            "success": true, "result": {"content": output}}),
        )?;
        let n = 10 + rng.below(200) as usize;
        let reply = words(rng, n);
        written += event(
            &mut out,
            "assistant.message",
            json!({"messageId": format!("r{turn}"),
            "model": "gpt-5", "content": reply, "toolRequests": []}),
        )?;
    }
    out.flush()?;
    Ok(written)
}

/// Writes a GitHub Copilot CLI root of about `total` bytes (1.0.x session folders), with one
/// session of `big` bytes.
pub fn copilot_root(root: &Path, total: u64, big: u64, rng: &mut Rng) -> io::Result<()> {
    let dir = root.join("session-state");
    fs::create_dir_all(&dir)?;
    let mut written = copilot_session(&dir, "/home/user/projects/big", big, rng)?;
    let mut n = 0u64;
    while written < total {
        n += 1;
        let size = match rng.below(20) {
            0 => 2_000_000 + rng.below(6_000_000),
            1..=5 => 200_000 + rng.below(800_000),
            _ => 5_000 + rng.below(120_000),
        };
        let cwd = format!("/home/user/projects/p{}", n % 97);
        written += copilot_session(&dir, &cwd, size, rng)?;
    }
    Ok(())
}

/// Writes Aider histories of about `total` bytes: `p<N>/.aider.chat.history.md` repositories
/// under `root` (a configured root, searched a few levels down), each of several runs of
/// prompts, replies and `> ` output lines, as 0.86.2 writes them (testdata/aider/0.86.2).
pub fn aider_root(root: &Path, total: u64, rng: &mut Rng) -> io::Result<()> {
    let (mut written, mut n) = (0u64, 0u64);
    while written < total {
        let dir = root.join(format!("p{}", n % 97));
        fs::create_dir_all(&dir)?;
        let mut text = String::new();
        let target = session_size(rng);
        text.push_str(&format!(
            "\n# aider chat started at 2026-01-{:02} {:02}:{:02}:{:02}\n\n> Aider v0.86.2  \n\
             > Model: openai/mock-coder with diff edit format  \n\n",
            1 + n % 28,
            n % 24,
            n % 60,
            (n / 97) % 60
        ));
        while (text.len() as u64) < target {
            let words_n = 20 + rng.below(200) as usize;
            text.push_str(&format!(
                "#### {}  \n\n{}\n\n> Tokens: 2.4k sent, {} received.  \n\n",
                words(rng, 12),
                words(rng, words_n),
                words_n
            ));
        }
        let mut f = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(".aider.chat.history.md"))?;
        f.write_all(text.as_bytes())?;
        written += text.len() as u64;
        n += 1;
    }
    Ok(())
}

/// Writes a store of `kind` of about `total` bytes under `root`: each agent of the registry
/// has its generator here (the test below fails for one that has none).
pub fn store(kind: ProviderKind, root: &Path, total: u64, rng: &mut Rng) -> Result<(), String> {
    let big = total / 10;
    match kind {
        ProviderKind::Claude => claude_root(root, total, big, rng)
            .map(drop)
            .map_err(|e| e.to_string()),
        ProviderKind::Codex => codex_root(root, total, big, rng)
            .map(drop)
            .map_err(|e| e.to_string()),
        ProviderKind::Opencode => {
            std::fs::create_dir_all(root).map_err(|e| e.to_string())?;
            opencode_root(root, total, rng).map_err(|e| e.to_string())
        }
        ProviderKind::Gemini => gemini_root(root, total, rng).map_err(|e| e.to_string()),
        ProviderKind::Qwen => qwen_root(root, total, rng).map_err(|e| e.to_string()),
        ProviderKind::Cline => cline_root(root, total, rng).map_err(|e| e.to_string()),
        ProviderKind::Copilot => copilot_root(root, total, big, rng).map_err(|e| e.to_string()),
        ProviderKind::Aider => aider_root(root, total, rng).map_err(|e| e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_sessions_core::provider::registry::AGENTS;
    use agent_sessions_core::ScanProgress;

    /// Every agent of the registry has a generator whose store its own provider reads.
    #[test]
    fn every_agent_has_a_generator_its_provider_reads() {
        let base = std::env::temp_dir().join(format!("bench-corpus-{}", std::process::id()));
        for agent in AGENTS {
            let root = base.join(agent.name());
            store(agent.kind, &root, 200_000, &mut Rng::new(7))
                .unwrap_or_else(|e| panic!("{}: no corpus: {e}", agent.name()));
            let provider = (agent.provider)(vec![root]);
            let scanned = provider.scan(&Default::default(), &ScanProgress::default());
            let sessions = scanned.map(|r| r.changed.len()).unwrap_or(0);
            assert!(
                sessions > 0,
                "{}: the generated store holds no session",
                agent.name()
            );
        }
        let _ = std::fs::remove_dir_all(&base);
    }
}
