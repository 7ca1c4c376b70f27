//! The ssh transport: the system `ssh` with the user's own config, keys and agent, run with
//! an argv (never a local shell). `BatchMode=yes`, so nothing ever waits on a password prompt:
//! an ssh that would have asked fails, and its stderr becomes a message saying what to set up.
//!
//! The remote command is a constant script of ours (it holds only the server's folder name): it
//! runs `~/.cache/agent-sessions/server/<version>-<digest>/agent-sessions-cli serve --stdio`
//! when that exists, and otherwise prints one line naming the remote's `uname -s -m`. Then,
//! when the remote's platform is this binary's, this binary is uploaded through ssh's stdin to
//! a temporary file beside the target, its SHA-256 checked there, made executable and renamed
//! into place (atomic), and the connection made again; otherwise it says how to install it.
//! That part is shared with every command transport ([`crate::command`]); this module is ssh's
//! argv, the login shell's quoting, and reading ssh's failures.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::{Arc, Mutex};

use crate::command::{self, last_words, Bootstrap, Classify, Launcher};
use crate::error::Error;

pub use crate::command::VERSION;

/// What the remote script prints when no server of this version is installed.
pub(crate) const MISSING: &str = "agent-sessions-bootstrap missing ";
pub(crate) const INSTALLED: &str = "agent-sessions-bootstrap installed";

/// How to reach one host.
#[derive(Clone, Debug)]
pub struct Ssh {
    pub alias: String,
    /// `ssh -F FILE` (tests, or a config of the user's choosing); none: ssh's own.
    pub config: Option<PathBuf>,
    /// This build's CLI binary, uploaded when the remote lacks it; none: never upload (and the
    /// server looked for is the one installed by hand, in the plain version folder).
    pub server_binary: Option<PathBuf>,
    /// The ssh program (`ssh` on PATH).
    pub program: PathBuf,
    /// Told what bootstrapping did (an upload), for the user.
    pub notes: Arc<Mutex<Vec<String>>>,
}

impl Ssh {
    pub fn new(alias: &str) -> Result<Ssh, Error> {
        Ssh::with_config(alias, None)
    }

    /// [`Ssh::new`] reading `config` (`ssh -F`; none: ssh's own), which its errors name.
    pub fn with_config(alias: &str, config: Option<PathBuf>) -> Result<Ssh, Error> {
        check_alias(alias, config.as_deref())?;
        Ok(Ssh {
            alias: alias.to_owned(),
            config,
            server_binary: None,
            program: PathBuf::from("ssh"),
            notes: Arc::default(),
        })
    }

    /// The argv after the program for running `remote_command` on the host.
    pub fn argv(&self, remote_command: &str) -> Vec<OsString> {
        argv(&self.alias, self.config.as_deref(), remote_command)
    }
}

impl Launcher for Ssh {
    fn command(&self, script: &str) -> Command {
        let mut command = Command::new(&self.program);
        command.args(self.argv(&remote(script)));
        command
    }

    fn host(&self) -> String {
        self.alias.clone()
    }

    fn bootstrap(&self) -> Bootstrap<'_> {
        Bootstrap {
            server_binary: self.server_binary.as_deref(),
            notes: &self.notes,
        }
    }

    fn classify(&self) -> Classify {
        let config = self.config.clone();
        Box::new(move |alias, stderr, status| classify(alias, config.as_deref(), stderr, status))
    }
}

/// Refuses what ssh would read as an option or what is no host name (the error names
/// `config`, the ssh config in use).
pub fn check_alias(alias: &str, config: Option<&Path>) -> Result<(), Error> {
    let bad = alias.is_empty()
        || alias.starts_with('-')
        || alias.chars().any(|c| c.is_whitespace() || c.is_control());
    if bad {
        return Err(Error::BadAlias {
            alias: alias.to_owned(),
            config: config.map(Path::to_path_buf),
        });
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

/// The server's folder: `$XDG_CACHE_HOME` or `~/.cache`, then `agent-sessions/server/<dir>`
/// (`dir`: the version, with the binary's short digest when it was uploaded).
fn dir_script(dir: &str) -> String {
    assert!(
        !dir.is_empty()
            && dir
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c)),
        "a server folder is plain ASCII"
    );
    format!("d=\"${{XDG_CACHE_HOME:-$HOME/.cache}}/agent-sessions/server/{dir}\"")
}

/// The remote command: [`serve_script`] through the login shell.
pub fn serve_command(dir: &str) -> String {
    remote(&serve_script(dir))
}

/// Runs the server in folder `dir` when installed; otherwise prints [`MISSING`] and
/// `uname -s -m`.
pub fn serve_script(dir: &str) -> String {
    format!(
        "{}; if [ -x \"$d/agent-sessions-cli\" ]; then exec \"$d/agent-sessions-cli\" serve --stdio; fi; echo \"{MISSING}$(uname -s) $(uname -m)\"",
        dir_script(dir)
    )
}

/// [`upload_script`] through the login shell.
pub fn upload_command(dir: &str, sha256: &str) -> String {
    remote(&upload_script(dir, sha256))
}

/// Reads the binary from stdin into a private temporary file beside the target, checks its
/// SHA-256, and renames it into place; prints [`INSTALLED`] on success.
pub fn upload_script(dir: &str, sha256: &str) -> String {
    assert!(
        sha256.chars().all(|c| c.is_ascii_hexdigit()),
        "a hex digest"
    );
    format!(
        "umask 077; {}; mkdir -p \"$d\" || exit 1; t=\"$d/.upload.$$\"; trap \"rm -f \\\"$t\\\"\" EXIT; cat > \"$t\" || exit 1; \
         s=$( (sha256sum \"$t\" 2>/dev/null || shasum -a 256 \"$t\") | cut -d\" \" -f1); \
         if [ \"$s\" != \"{sha256}\" ]; then echo \"checksum mismatch: got $s\"; exit 1; fi; \
         chmod 700 \"$t\" && mv -f \"$t\" \"$d/agent-sessions-cli\" && echo \"{INSTALLED}\"",
        dir_script(dir)
    )
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

/// What an ssh that ended said, as an error that says what to do (naming `config`, the ssh
/// config it was given with `-F`, if any).
pub fn classify(
    alias: &str,
    config: Option<&Path>,
    stderr: &str,
    status: Option<ExitStatus>,
) -> Error {
    let detail = last_words(stderr);
    let alias = alias.to_owned();
    let config = config.map(Path::to_path_buf);
    let has = |s: &str| stderr.contains(s);
    if has("Permission denied") || has("Too many authentication failures") {
        Error::AuthFailed {
            alias,
            detail,
            config,
        }
    } else if has("Host key verification failed") || has("REMOTE HOST IDENTIFICATION HAS CHANGED") {
        Error::HostKey {
            alias,
            detail,
            config,
        }
    } else if has("Could not resolve hostname")
        || has("Connection refused")
        || has("timed out")
        || has("No route to host")
    {
        Error::Unreachable {
            alias,
            detail,
            config,
        }
    } else {
        command::closed(&alias, stderr, status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            assert_eq!(
                check_alias(bad, None).unwrap_err().code(),
                "bad_host",
                "{bad:?}"
            );
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
        let denied = "Warning: x\nroot@127.0.0.1: Permission denied (publickey).\n";
        let auth = classify("dev", None, denied, None);
        assert_eq!(auth.code(), "ssh_auth");
        let said = auth.to_string();
        assert!(said.contains("ssh-add"), "{said}");
        assert!(said.contains("(publickey). Load your key"), "{said}");
        assert!(
            said.contains("`Host dev` in ~/.ssh/config") && said.contains("`ssh dev true`"),
            "{said}"
        );
        assert_eq!(
            classify("dev", None, "Host key verification failed.\n", None).code(),
            "ssh_host_key"
        );
        let unresolved = "ssh: Could not resolve hostname dev: Name or service not known\n";
        assert_eq!(
            classify("dev", None, unresolved, None).code(),
            "ssh_unreachable"
        );
        let dropped = classify(
            "dev",
            None,
            "Connection to 127.0.0.1 closed by remote host.\n",
            None,
        );
        assert!(dropped.is_dropped());
    }

    /// With `ssh -F FILE` every text names FILE, not `~/.ssh/config`, and the commands it
    /// says to try carry the `-F` (quoted as one word).
    #[test]
    fn ssh_failures_name_the_config_in_use() {
        let file = Path::new("/w/my ssh config");
        let said = |stderr: &str| classify("dev", Some(file), stderr, None).to_string();
        let auth = said("dev: Permission denied (publickey).\n");
        assert!(
            auth.contains("`Host dev` in /w/my ssh config")
                && auth.contains("`ssh -F '/w/my ssh config' dev true`"),
            "{auth}"
        );
        let key = said("Host key verification failed.\n");
        assert!(
            key.contains("Connect once with `ssh -F '/w/my ssh config' dev`"),
            "{key}"
        );
        let down = said("ssh: connect to host 127.0.0.1 port 1: Connection refused\n");
        assert!(
            down.contains("the Host entry for dev in /w/my ssh config"),
            "{down}"
        );
        let bad = Ssh::with_config("-oProxyCommand=x", Some(file.into())).unwrap_err();
        assert!(
            bad.to_string()
                .ends_with("use a Host name from /w/my ssh config"),
            "{bad}"
        );
        for text in [auth, key, down, bad.to_string()] {
            assert!(!text.contains("~/.ssh/config"), "{text}");
        }
    }

    /// The scripts are run by a real sh here: the serve script reports a missing server with
    /// the machine's uname, and the upload script installs only bytes whose digest matches.
    #[cfg(unix)]
    #[test]
    fn the_remote_scripts_run_in_sh() {
        use sha2::Digest;
        use std::io::Write;
        use std::process::Stdio;
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
        let good = crate::command::hex(&sha2::Sha256::digest(body));
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
