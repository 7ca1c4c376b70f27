//! `agent-sessions-cli stats` against a `scan` of the same stores (every figure, every
//! grouping), and `agent-sessions-cli blob`: the bytes behind a key, whole, to standard output
//! or a file, and clear errors for keys that are not there.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

/// One fixture store of each agent.
fn roots() -> Vec<String> {
    let t = testdata();
    let arg = |flag: &str, p: PathBuf| [flag.to_owned(), p.display().to_string()];
    [
        arg("--claude-root", t.join("claude/2.1.332/dot-claude")),
        arg("--codex-root", t.join("codex/0.171.0/dot-codex")),
        arg(
            "--opencode-root",
            t.join("opencode/1.18.33/local-share-opencode"),
        ),
    ]
    .concat()
}

/// The CLI with a cache of its own (in `cache`) and no real home.
fn run(cache: &Path, args: &[&str], roots: &[String]) -> Output {
    run_with(cache, args, roots, &[])
}

/// [`run`] with more environment variables.
fn run_with(cache: &Path, args: &[&str], roots: &[String], env: &[(&str, &Path)]) -> Output {
    let empty = Path::new("/nonexistent/agent-sessions-cli-test-home");
    Command::new(env!("CARGO_BIN_EXE_agent-sessions-cli"))
        .envs(env.iter().copied())
        .args(args)
        .args(roots)
        .env("AGENT_SESSIONS_CACHE_DIR", cache)
        .env("HOME", empty)
        .env("CLAUDE_CONFIG_DIR", empty.join("claude"))
        .env("CODEX_HOME", empty.join("codex"))
        .env("XDG_DATA_HOME", empty.join("data"))
        .env("XDG_CONFIG_HOME", empty.join("config"))
        .output()
        .unwrap()
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// [sessions, messages, input, output, cache read, cache write] and the cost of a figures
/// object (`stats`) or of sessions summed (`scan`).
type Sums = ([u64; 6], f64);

fn figures(v: &Value) -> Sums {
    let n = |x: &Value| x.as_u64().unwrap();
    let t = &v["tokens"];
    (
        [
            n(&v["sessions"]),
            n(&v["messages"]),
            n(&t["input"]),
            n(&t["output"]),
            n(&t["cache_read"]),
            n(&t["cache_write"]),
        ],
        v["cost_usd"].as_f64().unwrap(),
    )
}

fn summed<'a>(sessions: impl Iterator<Item = &'a Value>) -> Sums {
    let mut out = ([0u64; 6], 0.0);
    for s in sessions {
        let c = &s["counts"];
        let tok = |k: &str| s["tokens"][k].as_u64().unwrap_or(0);
        let add = [
            1,
            c["user"].as_u64().unwrap() + c["assistant"].as_u64().unwrap(),
            tok("input"),
            tok("output"),
            tok("cache_read"),
            tok("cache_write"),
        ];
        for (a, b) in out.0.iter_mut().zip(add) {
            *a += b;
        }
        // The agent's figure, else the estimate from the price table.
        let cost = &s["cost_usd"];
        let cost = if cost.is_null() {
            &s["cost_estimate_usd"]
        } else {
            cost
        };
        out.1 += cost.as_f64().unwrap_or(0.0);
    }
    out
}

fn assert_same(got: Sums, want: Sums, what: &str) {
    assert_eq!(got.0, want.0, "{what}");
    assert!(
        (got.1 - want.1).abs() < 1e-9,
        "{what}: cost {} vs {}",
        got.1,
        want.1
    );
}

#[test]
fn stats_totals_and_groups_equal_a_scan_of_the_same_stores() {
    let cache = tempfile::tempdir().unwrap();
    let roots = roots();
    let scan = json_of(&run(cache.path(), &["scan", "--json"], &roots));
    let sessions = scan["data"]["sessions"].as_array().unwrap().clone();
    let all = summed(sessions.iter());
    assert!(
        all.0[0] >= 20 && all.0[2] > 0 && all.0[4] > 0 && all.1 > 0.0,
        "{all:?}"
    );
    // What each grouping puts a session under, from the scan's own fields.
    let key = |s: &Value, by: &str| -> String {
        let v = match by {
            // The normalised directory (what lists group by), not the agent's own cwd.
            "dir" => Some(&s["dir"])
                .filter(|d| !d.is_null())
                .unwrap_or(&s["cwd"])
                .clone(),
            "agent" => s["provider"].clone(),
            "model" => s["model"].clone(),
            _ => Value::Null,
        };
        v.as_str().unwrap_or("(none)").to_owned()
    };
    for by in ["dir", "repo", "agent", "model", "day", "week"] {
        let out = run(cache.path(), &["stats", "--by", by, "--json"], &roots);
        assert!(out.status.success(), "{by}: {out:?}");
        let v = json_of(&out);
        let data = &v["data"];
        assert_eq!(data["by"], by);
        assert_same(figures(&data["total"]), all, &format!("{by} total"));
        let groups = data["groups"].as_array().unwrap();
        let mut sum = ([0u64; 6], 0.0);
        for g in groups {
            let (n, c) = figures(g);
            for (a, b) in sum.0.iter_mut().zip(n) {
                *a += b;
            }
            sum.1 += c;
            if ["dir", "agent", "model"].contains(&by) {
                let k = g["key"].as_str().unwrap();
                let members = sessions.iter().filter(|s| key(s, by) == k);
                assert_same(figures(g), summed(members), &format!("{by} {k}"));
            }
        }
        assert_same(sum, all, &format!("{by} groups"));
    }
    // The table for people: a row per agent and the total.
    let text = run(cache.path(), &["stats", "--by", "agent"], &roots);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.ends_with('\n'),
        "the table ends its last line: {text:?}"
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("AGENT") && lines[0].contains("CACHE WRITE"),
        "{text}"
    );
    // Three agents, the total, and what "≈" means (Codex records no cost: it is estimated).
    assert_eq!(lines.len(), 6, "{text}");
    let total: Vec<&str> = lines[4].split_whitespace().collect();
    assert_eq!(total[0], "TOTAL");
    assert_eq!(total[1], all.0[0].to_string(), "{text}");
    assert_eq!(total[3], all.0[2].to_string(), "{text}");
    assert_eq!(total[7], format!("≈{:.2}", all.1), "{text}");
    assert!(
        lines[5].starts_with("≈ ") && lines[5].contains("LiteLLM"),
        "{text}"
    );
}

#[test]
fn stats_of_one_provider_and_a_bad_grouping() {
    let cache = tempfile::tempdir().unwrap();
    let roots = roots();
    let scan = json_of(&run(cache.path(), &["scan", "--json"], &roots));
    let codex = scan["data"]["sessions"].as_array().unwrap().clone();
    let codex = codex.iter().filter(|s| s["provider"] == "codex");
    let out = run(
        cache.path(),
        &["stats", "--by", "model", "--provider", "codex", "--json"],
        &roots,
    );
    assert_same(
        figures(&json_of(&out)["data"]["total"]),
        summed(codex),
        "codex",
    );
    let bad = run(cache.path(), &["stats", "--by", "month"], &roots);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr)
        .contains("is not dir, repo, agent, model, day or week"));
}

/// `[prices]` in config.toml prices a model instead of the bundled table, and the legend
/// says so; a bad entry is a warning and its model keeps the bundled price.
#[test]
fn config_prices_override_the_bundled_table() {
    let cache = tempfile::tempdir().unwrap();
    let config = cache.path().join("config.toml");
    std::fs::write(
        &config,
        "[prices.\"gpt-5-codex\"]\ninput = 100\noutput = 1000\n\n[prices.other]\ninput = \"x\"\n",
    )
    .unwrap();
    let env = [("AGENT_SESSIONS_CONFIG", config.as_path())];
    let args = ["stats", "--by", "model", "--provider", "codex"];
    let json = |extra: &[(&str, &Path)]| {
        let out = run_with(
            cache.path(),
            &[&args[..], &["--json"]].concat(),
            &roots(),
            extra,
        );
        json_of(&out)
    };
    let bundled = json(&[]);
    let mine = json(&env);
    let total = &mine["data"]["total"];
    let t = &total["tokens"];
    let n = |k: &str| t[k].as_u64().unwrap() as f64;
    // Every Codex session of the fixture is gpt-5-codex; no cache price: cache reads as input.
    let want = (n("input") + n("cache_read") + n("cache_write")) * 100e-6 + n("output") * 1000e-6;
    let got = total["cost_usd"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    assert_ne!(bundled["data"]["total"]["cost_usd"], total["cost_usd"]);
    assert!(
        mine["warnings"].to_string().contains("prices.other"),
        "{}",
        mine["warnings"]
    );
    let text = run_with(cache.path(), &args, &roots(), &env);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("and config.toml's [prices] for gpt-5-codex."),
        "{text}"
    );
}

const SPILLED: &str = "5fec8eab-4b33-416d-b6fa-02f90e2a8cfc";

#[test]
fn a_spilled_output_comes_out_whole_to_stdout_and_to_a_file() {
    let cache = tempfile::tempdir().unwrap();
    let roots = roots();
    let file = testdata().join(format!(
        "claude/2.1.332/dot-claude/projects/-home-bob-projects-demo/{SPILLED}/tool-results/bd1gkvvug.txt"
    ));
    let want = std::fs::read(&file).unwrap();
    assert!(!want.is_empty());
    let key = "tool-results/bd1gkvvug.txt";
    // The key is the one `show --json` gives the tool part.
    let show = json_of(&run(cache.path(), &["show", SPILLED, "--json"], &roots));
    assert!(show
        .to_string()
        .contains(&format!("\"output_blob\":\"{key}\"")));
    let out = run(cache.path(), &["blob", &SPILLED[..8], key], &roots);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(out.stdout, want);
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.txt");
    let t = target.to_str().unwrap();
    let out = run(
        cache.path(),
        &["blob", SPILLED, key, "-o", t, "--json"],
        &roots,
    );
    assert_eq!(json_of(&out)["data"]["bytes"], want.len());
    assert_eq!(std::fs::read(&target).unwrap(), want);
    // Not over an existing file without --force.
    let again = run(
        cache.path(),
        &["blob", SPILLED, key, "-o", t, "--json"],
        &roots,
    );
    assert_eq!(json_of(&again)["error"]["code"], "file_exists");
}

#[test]
fn unknown_keys_are_clear_errors() {
    let cache = tempfile::tempdir().unwrap();
    let roots = roots();
    for (key, reason) in [
        ("tool-results/nope.txt", "its file is not there"),
        ("tool-results/../../x", "not a file name"),
        ("bogus", "unknown key form"),
        ("line:0:tool:nope", "no such tool result"),
    ] {
        let out = run(cache.path(), &["blob", SPILLED, key, "--json"], &roots);
        assert_eq!(out.status.code(), Some(1), "{key}");
        let v = json_of(&out);
        assert_eq!(v["error"]["code"], "blob_not_found", "{key}: {v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(key) && message.contains(reason),
            "{key}: {message}"
        );
    }
}

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

#[test]
fn an_image_in_a_prompt_comes_out_as_its_bytes() {
    let store = tempfile::tempdir().unwrap();
    let id = "00000000-0000-4000-8000-0000000000e1";
    let project = store.path().join("projects/-w-img");
    std::fs::create_dir_all(&project).unwrap();
    let lines = [
        serde_json::json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": id, "cwd": "/w/img",
            "timestamp": "2026-11-30T10:00:00Z", "version": "2.1.332",
            "message": {"role": "user", "content": [{"type": "text", "text": "what is this?"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]}}),
        serde_json::json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": id, "cwd": "/w/img",
            "timestamp": "2026-11-30T10:00:01Z", "version": "2.1.332",
            "message": {"id": "m1", "role": "assistant", "model": "claude-x", "content": [{"type": "text", "text": "A pixel."}]}}),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(project.join(format!("{id}.jsonl")), body).unwrap();
    let roots = [
        "--claude-root".to_owned(),
        store.path().display().to_string(),
    ];
    let cache = tempfile::tempdir().unwrap();
    let show = json_of(&run(cache.path(), &["show", id, "--json"], &roots));
    let text = show.to_string();
    let at = text
        .find("\"blob\":\"line:")
        .expect("an image part with a blob key");
    let key: String = text[at + 8..].chars().take_while(|&c| c != '"').collect();
    let out = run(cache.path(), &["blob", id, &key], &roots);
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stdout.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{:?}",
        &out.stdout[..8.min(out.stdout.len())]
    );
    let json = json_of(&run(cache.path(), &["blob", id, &key, "--json"], &roots));
    assert_eq!(json["data"]["image"], "image/png");
    assert_eq!(json["data"]["base64"], PNG);
    assert_eq!(json["data"]["bytes"], out.stdout.len());
}
