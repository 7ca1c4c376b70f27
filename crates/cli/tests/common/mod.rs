//! What the CLI's integration tests share: the fixture stores, the binary run with no real
//! home (every agent's variable, from the registry, points into a folder that does not exist,
//! so a test never reads the user's stores or settings), its JSON output, and copies of stores
//! to write into. A test file says `mod common;` and uses what it needs.
#![allow(dead_code)] // each test file uses some of these, none all of them

use std::path::Path;
use std::process::{Command, Output};

use agent_sessions_core::provider::registry::AGENTS;
use serde_json::Value;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_agent-sessions-cli");

/// A home under which nothing exists.
pub const EMPTY_HOME: &str = "/nonexistent/agent-sessions-cli-test-home";

#[allow(unused_imports)] // each test file uses some
pub use agent_sessions_test_support::{copy_dir, repo, testdata};

/// Points `cmd`'s home, every agent's variable and our config folder under [`EMPTY_HOME`], and
/// turns off the indexing a search starts in the background.
pub fn no_real_home(cmd: &mut Command) -> &mut Command {
    let empty = Path::new(EMPTY_HOME);
    cmd.env("HOME", empty)
        .env("XDG_CONFIG_HOME", empty.join("config"))
        // A search starts no indexing in the background (the test of it turns it on).
        .env("AGENT_SESSIONS_NO_BACKGROUND_INDEX", "1");
    for agent in AGENTS {
        cmd.env(agent.env_var, empty.join(agent.name()));
    }
    cmd
}

/// Removes every agent's variable from `cmd`'s environment (the config's roots then apply).
pub fn no_agent_variables(cmd: &mut Command) -> &mut Command {
    for agent in AGENTS {
        cmd.env_remove(agent.env_var);
    }
    cmd
}

/// The binary with `args` on a machine of its own in `tmp`: the Claude store `tmp/claude`, the
/// cache and `config.toml` in `tmp`, only `bin` on PATH and no terminal named by the
/// environment (what a terminal or an agent is started as is then the test's own fake's).
pub fn machine_cli(tmp: &Path, bin: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    no_real_home(&mut cmd)
        .args(args)
        .arg("--claude-root")
        .arg(tmp.join("claude"))
        .env("AGENT_SESSIONS_CACHE_DIR", tmp.join("cache"))
        .env("AGENT_SESSIONS_CONFIG", tmp.join("config.toml"))
        .env("PATH", bin)
        .env_remove("TERMINAL")
        .env_remove("XDG_CURRENT_DESKTOP");
    cmd
}

/// The binary with `args`, no real home and the cache in `cache`.
pub fn cli(cache: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args).env("AGENT_SESSIONS_CACHE_DIR", cache);
    no_real_home(&mut cmd);
    cmd
}

/// [`cli`] run to its end.
pub fn run(cache: &Path, args: &[&str]) -> Output {
    cli(cache, args).output().unwrap()
}

/// Standard output as JSON, or a panic that shows both outputs.
pub fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}
