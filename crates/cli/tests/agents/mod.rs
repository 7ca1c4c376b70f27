//! The real agents' command lines, installed from the npm registry at pinned versions, once,
//! under `target/agents/<package>-<version>/` (as `testdata/opencode/record/record.sh` does).
//! A test that needs one and cannot install it fails: nothing is skipped silently. (Aider, from
//! PyPI, is skipped where Python or PyPI is missing, saying so.)
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Codex 0.171.0 has `archive`, `unarchive` and `delete`; 0.110.0 has none of them.
pub const CODEX: &str = "0.171.0";
pub const CODEX_WITHOUT_ARCHIVE: &str = "0.110.0";
/// OpenCode 1.18.33 has `session delete` and `import`, and stores sessions in `opencode.db`.
pub const OPENCODE: &str = "1.18.33";
/// Claude Code 2.1.332, the version of the newest Claude fixture.
pub const CLAUDE: &str = "2.1.332";
/// Gemini CLI 0.61.0, the version of the newest Gemini fixture (JSONL sessions).
pub const GEMINI: &str = "0.61.0";
/// Qwen Code 0.24.4, the version of the newest Qwen fixture.
pub const QWEN: &str = "0.24.4";
/// Cline 3.0.65, the version of the newest Cline fixture (`history --json`, `history delete`).
pub const CLINE: &str = "3.0.65";

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

/// `gemini` of `version`.
pub fn gemini(version: &str) -> PathBuf {
    install("@google/gemini-cli", version, "gemini")
}

/// `qwen` of `version`.
pub fn qwen(version: &str) -> PathBuf {
    install("@qwen-code/qwen-code", version, "qwen")
}

/// `cline` of `version`.
pub fn cline(version: &str) -> PathBuf {
    install("cline", version, "cline")
}

/// `copilot` (GitHub Copilot CLI) of `version`.
pub fn copilot(version: &str) -> PathBuf {
    install("@github/copilot", version, "copilot")
}

/// Aider 0.86.2, the version of the Aider fixture (PyPI `aider-chat`).
pub const AIDER: &str = "0.86.2";

/// `aider` of `version`, installed from PyPI into a virtual environment
/// `target/agents/aider-<version>` (as `tests/record/aider.py` and `scripts/setup.sh` do); None,
/// saying why on standard error, when Python or PyPI is not there (a venv cannot be moved, so
/// it is made in place and marked done by `.installed`).
pub fn aider(version: &str) -> Option<PathBuf> {
    let _one = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = target_dir().join("agents").join(format!("aider-{version}"));
    let program = dir.join("bin/aider");
    if dir.join(".installed").exists() {
        return Some(program);
    }
    let run = |cmd: &mut Command| match cmd.output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
        Err(e) => Err(e.to_string()),
    };
    let made = run(Command::new("python3").args(["-m", "venv"]).arg(&dir)).and_then(|()| {
        run(Command::new(dir.join("bin/pip"))
            .args(["install", "-q"])
            .arg(format!("aider-chat=={version}")))
    });
    match made {
        Ok(()) => {
            std::fs::write(dir.join(".installed"), version).unwrap();
            Some(program)
        }
        Err(why) => {
            let _ = std::fs::remove_dir_all(&dir);
            eprintln!("skipped: aider-chat=={version} could not be installed from PyPI: {why}");
            None
        }
    }
}

/// A folder to put on `PATH` holding `name` → `program` (and `node`, which npm's launchers run).
pub fn bin_dir(within: &Path, tools: &[(&str, &Path)]) -> PathBuf {
    let bin = within.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let node = which("node").expect("node is needed to run the npm-installed agents");
    link(&node, &bin.join("node"));
    for (name, program) in tools {
        link(program, &bin.join(name));
    }
    bin
}

/// The agents installed here are Linux builds: their tests are ignored on Windows
/// ([`LINUX_BUILDS`]), and nothing links them there.
#[cfg(unix)]
fn link(program: &Path, name: &Path) {
    std::os::unix::fs::symlink(program, name).unwrap();
}

#[cfg(not(unix))]
fn link(_: &Path, _: &Path) {
    panic!("{LINUX_BUILDS}");
}

/// Why a test of a real agent does not run as a Windows program (`scripts/test-windows.sh`).
pub const LINUX_BUILDS: &str = "runs the real agents, installed from npm as Linux builds";

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

/// The scripted model, stopped (by its pid) when dropped.
pub struct Mock {
    child: Child,
    pub port: u16,
    log: PathBuf,
}

impl Mock {
    pub fn start(dir: &Path) -> Mock {
        Mock::start_script(dir, &[])
    }

    /// A model that answers as `mock_model.py`'s `script` says (its second argument), e.g.
    /// `mcp-search`.
    pub fn start_with(dir: &Path, script: &str) -> Mock {
        Mock::start_script(dir, &[script])
    }

    fn start_script(dir: &Path, script: &[&str]) -> Mock {
        let log = dir.join("requests.jsonl");
        let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents/mock_model.py");
        let mut child = Command::new("python3")
            .arg(program)
            .arg(&log)
            .args(script)
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the scripted model");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().expect("the model prints its port");
        Mock { child, port, log }
    }

    /// The bodies of the model calls made so far.
    pub fn calls(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|r| r["method"] == "POST")
            .map(|r| r["body"].clone())
            .collect()
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `cmd` in `cwd` with only PATH, the environment `env` and a closed proxy (the network stays
/// out of reach but for 127.0.0.1).
pub fn offline<'a>(
    cmd: &'a mut Command,
    cwd: &Path,
    path: &str,
    env: &[(&str, String)],
) -> &'a mut Command {
    cmd.current_dir(cwd)
        .env_clear()
        .env("PATH", path)
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
}

/// Runs an agent in `cwd` with exactly `env` (plus PATH), no input, at most three minutes;
/// its standard output.
pub fn run_agent(
    program: &Path,
    args: &[&str],
    cwd: &Path,
    path: &str,
    env: &[(&str, String)],
) -> String {
    let mut cmd = Command::new(program);
    offline(cmd.args(args), cwd, path, env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            panic!("{} {args:?} did not finish in 3 minutes", program.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{} {args:?}: {}\n{stdout}\n{}",
        program.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The environment that points Claude Code at `root` and the scripted model.
pub fn claude_env(home: &Path, root: &Path, mock: &Mock) -> Vec<(&'static str, String)> {
    vec![
        ("HOME", home.to_string_lossy().into_owned()),
        ("CLAUDE_CONFIG_DIR", root.to_string_lossy().into_owned()),
        (
            "ANTHROPIC_BASE_URL",
            format!("http://127.0.0.1:{}", mock.port),
        ),
        ("ANTHROPIC_API_KEY", "sk-ant-mock".to_owned()),
        ("DISABLE_TELEMETRY", "1".to_owned()),
        ("DISABLE_AUTOUPDATER", "1".to_owned()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
    ]
}

/// A test's work folder that, when dropped, ends every process still running a program from
/// under it, then removes it.
///
/// Codex 0.171 starts a background app server (`codex app-server --managed-daemon` and its
/// `pid-update-loop`) from a 300 MB copy of its binary under `CODEX_HOME/packages`, and leaves
/// it running after the command that started it. Removing the folder does not free that copy
/// while it runs: on CI the disk filled up with them and later Codex runs failed with "No
/// space left on device".
pub struct Work {
    dir: tempfile::TempDir,
    /// The folder as `/proc/<pid>/exe` names what is under it.
    real: PathBuf,
}

impl Work {
    pub fn new() -> Work {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        Work { dir, real }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Work {
    fn drop(&mut self) {
        for _ in 0..50 {
            let left = running_under(&self.real);
            if left.is_empty() {
                return;
            }
            let _ = Command::new("kill").args(&left).status();
            std::thread::sleep(Duration::from_millis(100));
        }
        let left = running_under(&self.real);
        let _ = Command::new("kill").arg("-KILL").args(&left).status();
    }
}

/// The pids (as text) of the processes whose executable lies under `dir`.
fn running_under(dir: &Path) -> Vec<String> {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    procs
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| std::fs::read_link(e.path().join("exe")).is_ok_and(|exe| exe.starts_with(dir)))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}
