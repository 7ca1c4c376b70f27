//! The ssh transport: the system `ssh` with the user's own config, keys and agent, run with
//! an argv (never a local shell). `BatchMode=yes`, so nothing ever waits on a password prompt:
//! an ssh that would have asked fails, and its stderr becomes a message saying what to set up.
//!
//! The remote command is a constant script of ours (it holds only our version number): it runs
//! `~/.cache/agent-sessions/server/<version>/agent-sessions-cli serve --stdio` when that
//! exists, and otherwise prints one line naming the remote's `uname -s -m`. Then, when the
//! remote's platform is this binary's, [`Ssh`] uploads this binary through ssh's stdin to a
//! temporary file beside the target, checks its SHA-256 there, makes it executable and renames
//! it into place (atomic), and connects again; otherwise it says how to install it.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::transport::{Link, Stream, Transport};

/// The server's version: the folder it is installed in on a remote.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What the remote script prints when no server of this version is installed.
const MISSING: &str = "agent-sessions-bootstrap missing ";
const INSTALLED: &str = "agent-sessions-bootstrap installed";

/// Kept of a child's stderr, for the message when it fails.
const STDERR_KEEP: usize = 16 << 10;

/// How to reach one host.
#[derive(Clone, Debug)]
pub struct Ssh {
    pub alias: String,
    /// `ssh -F FILE` (tests, or a config of the user's choosing); none: ssh's own.
    pub config: Option<PathBuf>,
    /// This build's CLI binary, uploaded when the remote lacks it; none: never upload.
    pub server_binary: Option<PathBuf>,
    /// The ssh program (`ssh` on PATH).
    pub program: PathBuf,
    /// Told what bootstrapping did (an upload), for the user.
    pub notes: Arc<Mutex<Vec<String>>>,
}

impl Ssh {
    pub fn new(alias: &str) -> Result<Ssh, Error> {
        check_alias(alias)?;
        Ok(Ssh {
            alias: alias.to_owned(),
            config: None,
            server_binary: None,
            program: PathBuf::from("ssh"),
            notes: Arc::default(),
        })
    }

    /// The argv after the program for running `remote_command` on the host.
    pub fn argv(&self, remote_command: &str) -> Vec<OsString> {
        argv(&self.alias, self.config.as_deref(), remote_command)
    }

    fn spawn(&self, remote_command: &str) -> Result<Child, Error> {
        Command::new(&self.program)
            .args(self.argv(remote_command))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::Spawn {
                program: self.program.display().to_string(),
                reason: format!("{e}; install OpenSSH's client (ssh)"),
            })
    }

    /// Starts the server, or learns the remote's platform when it is not installed there.
    fn start(&self) -> Result<Started, Error> {
        let mut child = self.spawn(&serve_command(VERSION))?;
        let stderr = collect(child.stderr.take());
        let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut first = Vec::new();
        // The hello, or the script's one line; nothing at all when ssh failed.
        let _ = stdout.by_ref().take(64 << 10).read_until(b'\n', &mut first);
        let mut link = SshLink {
            alias: self.alias.clone(),
            child,
            stderr: Some(stderr),
        };
        if first.is_empty() {
            return Err(link
                .failure()
                .unwrap_or_else(|| self.closed("ssh ended at once")));
        }
        if let Some(platform) = std::str::from_utf8(&first)
            .ok()
            .and_then(|l| l.strip_prefix(MISSING))
        {
            return Ok(Started::Missing(parse_uname(platform)));
        }
        let writer = link.child.stdin.take().expect("piped");
        Ok(Started::Serving(Stream {
            reader: Box::new(io::Cursor::new(first).chain(stdout)),
            writer: Box::new(writer),
            link: Box::new(link),
        }))
    }

    fn closed(&self, detail: &str) -> Error {
        Error::Closed {
            host: self.alias.clone(),
            detail: detail.to_owned(),
        }
    }

    /// Installs our binary on the remote, when it runs there.
    fn bootstrap(&self, remote: Platform) -> Result<(), Error> {
        let ours = Platform::ours();
        let binary = match &self.server_binary {
            Some(b) if remote == ours => b,
            _ => {
                return Err(Error::ServerMissing {
                    host: self.alias.clone(),
                    remote: format!("{} {}", remote.os, remote.arch),
                    ours: format!("{} {}", ours.os, ours.arch),
                    path: format!("~/.cache/agent-sessions/server/{VERSION}/agent-sessions-cli"),
                })
            }
        };
        let failed = |reason: String| Error::Bootstrap {
            host: self.alias.clone(),
            reason,
        };
        let sum = sha256_file(binary)
            .map_err(|e| failed(format!("cannot read {}: {e}", binary.display())))?;
        let mut child = self.spawn(&upload_command(VERSION, &sum))?;
        let stderr = collect(child.stderr.take());
        let mut stdin = child.stdin.take().expect("piped");
        let sent = File::open(binary).and_then(|mut f| io::copy(&mut f, &mut stdin));
        drop(stdin);
        let mut said = String::new();
        let _ = child
            .stdout
            .take()
            .expect("piped")
            .read_to_string(&mut said);
        let status = child.wait()?;
        if said.trim() == INSTALLED && status.success() {
            let size = sent.unwrap_or(0);
            self.note(format!(
                "installed agent-sessions-cli {VERSION} on {} ({size} bytes, sha256 {sum})",
                self.alias
            ));
            return Ok(());
        }
        let err = stderr.join().unwrap_or_default();
        Err(failed(format!("{} {}", said.trim(), err.trim())))
    }

    fn note(&self, text: String) {
        crate::server_lock(&self.notes).push(text);
    }
}

enum Started {
    Serving(Stream),
    Missing(Platform),
}

impl Transport for Ssh {
    fn open(&self) -> Result<Stream, Error> {
        match self.start()? {
            Started::Serving(stream) => Ok(stream),
            Started::Missing(platform) => {
                self.bootstrap(platform)?;
                match self.start()? {
                    Started::Serving(stream) => Ok(stream),
                    Started::Missing(_) => Err(Error::Bootstrap {
                        host: self.alias.clone(),
                        reason: "the server was installed but is still not found".into(),
                    }),
                }
            }
        }
    }

    fn host(&self) -> String {
        self.alias.clone()
    }
}

/// A running ssh: killed when the connection is dropped.
struct SshLink {
    alias: String,
    child: Child,
    stderr: Option<JoinHandle<String>>,
}

impl Link for SshLink {
    fn failure(&mut self) -> Option<Error> {
        let status = wait_a_little(&mut self.child);
        let stderr = self.stderr.take()?.join().unwrap_or_default();
        Some(classify(&self.alias, &stderr, status))
    }
}

impl Drop for SshLink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_a_little(child: &mut Child) -> Option<ExitStatus> {
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

/// The first [`STDERR_KEEP`] bytes of a child's stderr, read on a thread (so a chatty stderr
/// never blocks the child).
fn collect(stderr: Option<impl Read + Send + 'static>) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let Some(mut stderr) = stderr else {
            return String::new();
        };
        let mut kept = Vec::new();
        let _ = stderr
            .by_ref()
            .take(STDERR_KEEP as u64)
            .read_to_end(&mut kept);
        let _ = io::copy(&mut stderr, &mut io::sink());
        String::from_utf8_lossy(&kept).into_owned()
    })
}

/// Refuses what ssh would read as an option or what is no host name.
pub fn check_alias(alias: &str) -> Result<(), Error> {
    let bad = alias.is_empty()
        || alias.starts_with('-')
        || alias.chars().any(|c| c.is_whitespace() || c.is_control());
    if bad {
        return Err(Error::BadAlias(alias.to_owned()));
    }
    Ok(())
}

/// ssh's arguments: no prompt ever, a dead link noticed within a minute, no terminal.
pub fn argv(alias: &str, config: Option<&Path>, remote_command: &str) -> Vec<OsString> {
    let mut out: Vec<OsString> = Vec::new();
    if let Some(file) = config {
        out.push("-F".into());
        out.push(file.into());
    }
    for option in [
        "BatchMode=yes",
        "ConnectTimeout=15",
        "ServerAliveInterval=15",
        "ServerAliveCountMax=3",
    ] {
        out.push("-o".into());
        out.push(option.into());
    }
    out.extend(["-T", "--", alias, remote_command].map(OsString::from));
    out
}

/// The remote's login shell runs this (ssh joins the command into one string): `exec sh -c`
/// with a single-quoted script, understood alike by sh, bash, zsh, fish and csh.
fn remote(script: &str) -> String {
    debug_assert!(!script.contains('\''));
    format!("exec sh -c '{script}'")
}

/// The server's folder: `$XDG_CACHE_HOME` or `~/.cache`, then `agent-sessions/server/<version>`.
fn dir_script(version: &str) -> String {
    assert!(
        version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c)),
        "a version is plain ASCII"
    );
    format!("d=\"${{XDG_CACHE_HOME:-$HOME/.cache}}/agent-sessions/server/{version}\"")
}

/// The remote command: [`serve_script`] through `sh`.
pub fn serve_command(version: &str) -> String {
    remote(&serve_script(version))
}

/// Runs the server of `version` when installed; otherwise prints [`MISSING`] and `uname -s -m`.
pub fn serve_script(version: &str) -> String {
    format!(
        "{}; if [ -x \"$d/agent-sessions-cli\" ]; then exec \"$d/agent-sessions-cli\" serve --stdio; fi; echo \"{MISSING}$(uname -s) $(uname -m)\"",
        dir_script(version)
    )
}

/// Reads the binary from stdin into a private temporary file beside the target, checks its
/// SHA-256, and renames it into place; prints [`INSTALLED`] on success.
pub fn upload_command(version: &str, sha256: &str) -> String {
    assert!(
        sha256.chars().all(|c| c.is_ascii_hexdigit()),
        "a hex digest"
    );
    remote(&format!(
        "umask 077; {}; mkdir -p \"$d\" || exit 1; t=\"$d/.upload.$$\"; trap \"rm -f \\\"$t\\\"\" EXIT; cat > \"$t\" || exit 1; \
         s=$( (sha256sum \"$t\" 2>/dev/null || shasum -a 256 \"$t\") | cut -d\" \" -f1); \
         if [ \"$s\" != \"{sha256}\" ]; then echo \"checksum mismatch: got $s\"; exit 1; fi; \
         chmod 700 \"$t\" && mv -f \"$t\" \"$d/agent-sessions-cli\" && echo \"{INSTALLED}\"",
        dir_script(version)
    ))
}

/// An operating system and processor, as Rust names them (`linux`, `x86_64`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Platform {
    pub os: String,
    pub arch: String,
}

impl Platform {
    pub fn ours() -> Platform {
        Platform {
            os: std::env::consts::OS.into(),
            arch: std::env::consts::ARCH.into(),
        }
    }
}

/// `uname -s -m` (`Linux x86_64`, `Darwin arm64`) in Rust's names.
pub fn parse_uname(text: &str) -> Platform {
    let mut words = text.split_whitespace();
    let os = match words.next().unwrap_or("") {
        "Linux" => "linux".to_owned(),
        "Darwin" => "macos".to_owned(),
        "FreeBSD" => "freebsd".to_owned(),
        other => other.to_lowercase(),
    };
    let arch = match words.next().unwrap_or("") {
        "arm64" | "aarch64" => "aarch64".to_owned(),
        "amd64" | "x86_64" => "x86_64".to_owned(),
        other => other.to_owned(),
    };
    Platform { os, arch }
}

fn sha256_file(path: &Path) -> io::Result<String> {
    let mut hasher = Sha256::new();
    io::copy(&mut File::open(path)?, &mut hasher)?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// What an ssh that ended said, as an error that says what to do.
pub fn classify(alias: &str, stderr: &str, status: Option<ExitStatus>) -> Error {
    let detail = last_words(stderr);
    let alias = alias.to_owned();
    let has = |s: &str| stderr.contains(s);
    if has("Permission denied") || has("Too many authentication failures") {
        Error::AuthFailed { alias, detail }
    } else if has("Host key verification failed") || has("REMOTE HOST IDENTIFICATION HAS CHANGED") {
        Error::HostKey { alias, detail }
    } else if has("Could not resolve hostname")
        || has("Connection refused")
        || has("timed out")
        || has("No route to host")
    {
        Error::Unreachable { alias, detail }
    } else {
        let detail = match (detail.is_empty(), status) {
            (true, Some(s)) => format!("ssh exited ({s})"),
            (true, None) => "the link dropped".to_owned(),
            (false, _) => detail,
        };
        Error::Closed {
            host: alias,
            detail,
        }
    }
}

/// The last lines of stderr, one line, printable.
fn last_words(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let tail = lines[lines.len().saturating_sub(2)..].join(" ");
    tail.chars().filter(|c| !c.is_control()).take(300).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn argv_never_lets_the_alias_be_an_option() {
        let args = argv("dev-box", Some(Path::new("/tmp/cfg")), "true");
        let words: Vec<&str> = args.iter().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(
            words,
            [
                "-F",
                "/tmp/cfg",
                "-o",
                "BatchMode=yes",
                "-o",
                "ConnectTimeout=15",
                "-o",
                "ServerAliveInterval=15",
                "-o",
                "ServerAliveCountMax=3",
                "-T",
                "--",
                "dev-box",
                "true"
            ]
        );
        for bad in ["", "-oProxyCommand=x", "a b", "a\nb"] {
            assert_eq!(check_alias(bad).unwrap_err().code(), "bad_host", "{bad:?}");
        }
    }

    #[test]
    fn uname_is_read_in_rust_names() {
        assert_eq!(
            parse_uname("Linux x86_64\n"),
            Platform {
                os: "linux".into(),
                arch: "x86_64".into()
            }
        );
        assert_eq!(
            parse_uname("Darwin arm64"),
            Platform {
                os: "macos".into(),
                arch: "aarch64".into()
            }
        );
    }

    #[test]
    fn ssh_failures_say_what_to_set_up() {
        let auth = classify(
            "dev",
            "Warning: x\nroot@127.0.0.1: Permission denied (publickey).\n",
            None,
        );
        assert_eq!(auth.code(), "ssh_auth");
        assert!(auth.to_string().contains("ssh-add"), "{auth}");
        assert_eq!(
            classify("dev", "Host key verification failed.\n", None).code(),
            "ssh_host_key"
        );
        assert_eq!(
            classify(
                "dev",
                "ssh: Could not resolve hostname dev: Name or service not known\n",
                None
            )
            .code(),
            "ssh_unreachable"
        );
        let dropped = classify(
            "dev",
            "Connection to 127.0.0.1 closed by remote host.\n",
            None,
        );
        assert!(dropped.is_dropped());
    }

    /// The scripts are run by a real sh here: the serve script reports a missing server with
    /// the machine's uname, and the upload script installs only bytes whose digest matches.
    #[test]
    fn the_remote_scripts_run_in_sh() {
        let home = tempfile::tempdir().unwrap();
        let sh = |cmd: &str, input: &[u8]| {
            let mut child = Command::new("sh")
                .args(["-c", cmd])
                .env("HOME", home.path())
                .env_remove("XDG_CACHE_HOME")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(input).unwrap();
            let out = child.wait_with_output().unwrap();
            String::from_utf8(out.stdout).unwrap()
        };
        let said = sh(&serve_command("9.9.9"), b"");
        let platform = parse_uname(said.strip_prefix(MISSING).unwrap());
        assert_eq!(platform, Platform::ours());

        let body = b"#!/bin/sh\necho server \"$@\"\n";
        let good: String = Sha256::digest(body)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let bad = "0".repeat(64);
        assert!(sh(&upload_command("9.9.9", &bad), body).contains("checksum mismatch"));
        let target = home
            .path()
            .join(".cache/agent-sessions/server/9.9.9/agent-sessions-cli");
        assert!(!target.exists());
        assert_eq!(sh(&upload_command("9.9.9", &good), body).trim(), INSTALLED);
        assert_eq!(std::fs::read(&target).unwrap(), body);
        let dir = target.parent().unwrap();
        assert_eq!(
            std::fs::read_dir(dir).unwrap().count(),
            1,
            "no temporary file left"
        );
        assert_eq!(
            sh(&serve_command("9.9.9"), b"").trim(),
            "server serve --stdio"
        );
    }
}
