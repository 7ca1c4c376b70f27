//! The real agents' command lines, installed from the npm registry at pinned versions, once,
//! under `target/agents/<package>-<version>/` (as `testdata/opencode/record/record.sh` does).
//! A test that needs one and cannot install it fails: nothing is skipped silently.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// Codex 0.171.0 has `archive`, `unarchive` and `delete`; 0.110.0 has none of them.
pub const CODEX: &str = "0.171.0";
pub const CODEX_WITHOUT_ARCHIVE: &str = "0.110.0";
/// OpenCode 1.18.33 has `session delete` and `import`, and stores sessions in `opencode.db`.
pub const OPENCODE: &str = "1.18.33";
/// Claude Code 2.1.332, the version of the newest Claude fixture.
pub const CLAUDE: &str = "2.1.332";

/// One install at a time in this process; other processes are kept apart by installing into a
/// private folder first and renaming it into place.
static INSTALL: Mutex<()> = Mutex::new(());

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
    }
}

/// The folder holding `package@version`'s `node_modules/.bin/<bin>`, installed if needed.
fn install(package: &str, version: &str, bin: &str) -> PathBuf {
    let _one = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let name = package.trim_start_matches('@').replace('/', "-");
    let agents = target_dir().join("agents");
    let dir = agents.join(format!("{name}-{version}"));
    let program = dir.join("node_modules/.bin").join(bin);
    if program.exists() {
        return program;
    }
    std::fs::create_dir_all(&agents).unwrap();
    let tmp = agents.join(format!(".{name}-{version}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let out = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--no-package-lock"])
        .arg(format!("{package}@{version}"))
        .current_dir(&tmp)
        .output()
        .unwrap_or_else(|e| panic!("cannot run npm to install {package}@{version}: {e}"));
    assert!(
        out.status.success(),
        "npm could not install {package}@{version}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another process installed it meanwhile.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    assert!(
        program.exists(),
        "{} is missing after npm install",
        program.display()
    );
    program
}

/// `codex` of `version`.
pub fn codex(version: &str) -> PathBuf {
    install("@openai/codex", version, "codex")
}

/// `claude` of `version` (a native binary the package's install script puts in place).
pub fn claude(version: &str) -> PathBuf {
    install("@anthropic-ai/claude-code", version, "claude")
}

/// `opencode` of `version`.
pub fn opencode(version: &str) -> PathBuf {
    install("opencode-ai", version, "opencode")
}

/// A folder to put on `PATH` holding `name` → `program` (and `node`, which npm's launchers run).
pub fn bin_dir(within: &Path, tools: &[(&str, &Path)]) -> PathBuf {
    let bin = within.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let node = which("node").expect("node is needed to run the npm-installed agents");
    std::os::unix::fs::symlink(node, bin.join("node")).unwrap();
    for (name, program) in tools {
        std::os::unix::fs::symlink(program, bin.join(name)).unwrap();
    }
    bin
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

/// Runs an agent with a throwaway home and no network (a closed proxy port), on the store
/// given by `env`; returns (success, stdout, stderr).
pub fn run(
    program: &Path,
    args: &[&str],
    home: &Path,
    env: &[(&str, &Path)],
) -> (bool, String, String) {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(home)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("NO_PROXY", "")
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
        .env("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
