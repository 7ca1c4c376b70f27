//! A throwaway OpenSSH server on 127.0.0.1, for the tests and the benchmark: `sshd` (Debian's
//! openssh-server; scripts/setup.sh installs it) on a free port with a fresh host key, run as
//! the current user, its sessions' HOME and XDG_CACHE_HOME set to a given folder (the remote
//! home), and an ssh config with two aliases: `testbox` (an authorized key) and `stranger` (a
//! key the server does not know). Stopped, with its sessions, when dropped. [`claim_live`]
//! makes a session of a Claude store live for a follow.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const SSHD: &str = "/usr/sbin/sshd";

pub struct Sshd {
    dir: tempfile::TempDir,
    child: Child,
}

impl Sshd {
    /// Starts a server whose sessions live in `home`.
    pub fn start(home: &Path) -> Result<Sshd, String> {
        Self::start_with(home, &[])
    }

    /// [`Sshd::start`], its sessions given `env` too (e.g. an `AGENT_SESSIONS_CACHE_DIR`); a
    /// value must not hold spaces or quotes (sshd's `SetEnv` line).
    pub fn start_with(home: &Path, env: &[(&str, &str)]) -> Result<Sshd, String> {
        if !Path::new(SSHD).exists() {
            return Err(format!(
                "{SSHD} is missing: run scripts/setup.sh (it installs Debian's openssh-server)"
            ));
        }
        // sshd insists on its privilege separation directory, even for an unprivileged run.
        let _ = std::fs::create_dir_all("/run/sshd");
        let dir = tempfile::Builder::new()
            .prefix("agent-sessions-sshd-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let p = |name: &str| dir.path().join(name).display().to_string();
        for key in ["host_key", "client_key", "stranger_key"] {
            run(
                "ssh-keygen",
                &["-q", "-t", "ed25519", "-N", "", "-f", &p(key)],
            )?;
        }
        write(&p("authorized_keys"), &read(&p("client_key.pub"))?)?;
        let port = free_port()?;
        write(&p("sshd_config"), &sshd_config(port, &p, home, env))?;
        let config = client_config(port, &p, "testbox", "client_key")
            + &client_config(port, &p, "stranger", "stranger_key");
        write(&p("ssh_config"), &config)?;
        let log = std::fs::File::create(p("sshd.log")).map_err(|e| e.to_string())?;
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f", &p("sshd_config")])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("{SSHD}: {e}"))?;
        let sshd = Sshd { dir, child };
        sshd.wait_listening(port)?;
        Ok(sshd)
    }

    fn wait_listening(&self, port: u16) -> Result<(), String> {
        let until = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > until {
                return Err(format!("sshd did not listen: {}", self.log()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    /// The ssh config naming `testbox` and `stranger` (`ssh -F`).
    pub fn config(&self) -> PathBuf {
        self.dir.path().join("ssh_config")
    }

    /// A folder of the server's, for whatever else a test keeps beside it.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// What sshd logged (one "Accepted publickey" per login).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }

    /// The per-connection processes (sshd's children): killing them drops the connections.
    pub fn sessions(&self) -> Vec<u32> {
        let parent = self.child.id().to_string();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| {
                let pid = e.file_name().to_string_lossy().parse::<u32>().ok()?;
                let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
                let after = &stat[stat.rfind(')')? + 2..];
                (after.split_whitespace().nth(1)? == parent).then_some(pid)
            })
            .collect()
    }

    /// Kills every connection's process (the client sees its link drop).
    pub fn drop_connections(&self) -> usize {
        let sessions = self.sessions();
        for pid in &sessions {
            let _ = Command::new("kill")
                .args(["-9", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
        }
        sessions.len()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        self.drop_connections();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Claims `session` of the Claude store at `root` for this process, as Claude Code writes
/// `sessions/<pid>.json` (pid and start time): the session reads as live until the file is
/// removed. The remote here is this machine, so its server sees the process (Linux).
pub fn claim_live(root: &Path, session: &str) -> PathBuf {
    let me = std::process::id();
    let stat = std::fs::read_to_string(format!("/proc/{me}/stat")).unwrap_or_default();
    // The start time where this system has /proc (Linux); elsewhere none, and the id alone
    // decides (a start time of "0" would name another process).
    let start = stat
        .rfind(')')
        .and_then(|at| stat[at + 1..].split_whitespace().nth(19))
        .map(|ticks| format!(r#","procStart":"{ticks}""#))
        .unwrap_or_default();
    let file = root.join("sessions").join("99999.json");
    let _ = std::fs::create_dir_all(root.join("sessions"));
    let claim = format!(r#"{{"pid":{me},"sessionId":"{session}"{start},"status":"busy"}}"#);
    std::fs::write(&file, claim).expect("the session folder is writable");
    file
}

fn sshd_config(port: u16, p: &dyn Fn(&str) -> String, home: &Path, env: &[(&str, &str)]) -> String {
    let more: String = env.iter().map(|(k, v)| format!(" {k}={v}")).collect();
    format!(
        "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nPidFile {}\nAuthorizedKeysFile {}\n\
         PermitRootLogin yes\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n\
         KbdInteractiveAuthentication no\nSetEnv HOME={home} XDG_CACHE_HOME={home}/.cache{more}\n",
        p("host_key"),
        p("sshd.pid"),
        p("authorized_keys"),
        home = home.display(),
    )
}

fn client_config(port: u16, p: &dyn Fn(&str) -> String, alias: &str, key: &str) -> String {
    let user = Command::new("id")
        .arg("-un")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    format!(
        "Host {alias}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  IdentityFile {}\n  \
         IdentitiesOnly yes\n  IdentityAgent none\n  StrictHostKeyChecking no\n  \
         UserKnownHostsFile {}\n  LogLevel ERROR\n",
        p(key),
        p("known_hosts"),
    )
}

fn run(program: &str, args: &[&str]) -> Result<(), String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("{program}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{program}: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
}

fn write(path: &str, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))
}

/// A port nothing listens on now.
fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}
