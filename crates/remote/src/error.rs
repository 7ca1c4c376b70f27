//! What can go wrong talking to a remote, each with a code (as the CLI's `--json` envelope
//! carries them) and a message that says what to do.

use std::path::{Path, PathBuf};

use agent_sessions_core::actions::resume::{ResumeCommand, ShellCommand};

use crate::protocol::WireError;
use crate::ssh::VERSION;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// BatchMode: ssh would have had to ask for a password or passphrase.
    /// `config`, here and below: the ssh config in use (`ssh -F FILE`); none: `~/.ssh/config`.
    /// The texts name that file and the commands to try carry its `-F`.
    #[error("ssh could not log in to {alias} without a prompt: {detail}. Load your key into the agent (ssh-add), or name it with IdentityFile under `Host {alias}` in {}, and make sure its public key is in the remote's ~/.ssh/authorized_keys; then check that `{}` works without asking anything", file(.config), ssh(.config, .alias, &["true"]))]
    AuthFailed {
        alias: String,
        detail: String,
        config: Option<PathBuf>,
    },

    #[error("the host key of {alias} is not known or has changed: {detail}. Connect once with `{}` in a terminal to check and accept it", ssh(.config, .alias, &[]))]
    HostKey {
        alias: String,
        detail: String,
        config: Option<PathBuf>,
    },

    #[error("cannot reach {alias}: {detail}. Check the Host entry for {alias} in {} and that the machine is up", file(.config))]
    Unreachable {
        alias: String,
        detail: String,
        config: Option<PathBuf>,
    },

    #[error("{alias:?} is not a host alias ssh can be given (empty, starting with '-', or holding spaces or control characters); use a Host name from {}", file(.config))]
    BadAlias {
        alias: String,
        config: Option<PathBuf>,
    },

    #[error("could not run {program}: {reason}")]
    Spawn { program: String, reason: String },

    /// The transport ended before or while talking (stderr's last words in `detail`).
    #[error("the connection to {host} closed: {detail}")]
    Closed { host: String, detail: String },

    #[error("the server on {host} spoke a protocol this build does not understand: {detail}")]
    Protocol { host: String, detail: String },

    #[error("the server on {host} is version {theirs} (protocol {protocol}), this is {ours}; the matching server is installed next time the remote is bootstrapped")]
    Version {
        host: String,
        theirs: String,
        protocol: u32,
        ours: String,
    },

    /// No server of this version on the remote and ours cannot run there (`remote` and `ours`
    /// are "os arch").
    #[error("no agent-sessions-cli {VERSION} on {host} ({remote}), and this one is built for {ours}: install agent-sessions-cli {VERSION} for {remote} on {host} at {path}")]
    ServerMissing {
        host: String,
        remote: String,
        ours: String,
        path: String,
    },

    #[error("could not install the server on {host}: {reason}")]
    Bootstrap { host: String, reason: String },

    /// An error the server answered with (its code is kept).
    #[error("{}", .0.message)]
    Server(WireError),

    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    pub fn code(&self) -> &str {
        match self {
            Error::AuthFailed { .. } => "ssh_auth",
            Error::HostKey { .. } => "ssh_host_key",
            Error::Unreachable { .. } => "ssh_unreachable",
            Error::BadAlias { .. } => "bad_host",
            Error::Spawn { .. } => "spawn",
            Error::Closed { .. } => "connection_closed",
            Error::Protocol { .. } => "protocol",
            Error::Version { .. } => "version_mismatch",
            Error::ServerMissing { .. } => "server_missing",
            Error::Bootstrap { .. } => "bootstrap",
            Error::Server(e) => &e.code,
            Error::Io(_) => "io",
        }
    }

    /// Whether a new connection may succeed where this one failed (a dropped link), as
    /// opposed to an answer or a setup problem that would only repeat.
    pub fn is_dropped(&self) -> bool {
        matches!(self, Error::Closed { .. } | Error::Io(_))
    }
}

/// The ssh config a message names: the file given to `ssh -F`, or ssh's own.
fn file(config: &Option<PathBuf>) -> String {
    config
        .as_deref()
        .map_or_else(|| "~/.ssh/config".to_owned(), |f| f.display().to_string())
}

/// `ssh [-F FILE] ALIAS MORE…` as the user would type it (POSIX-quoted: a config path with a
/// space or a quote stays one word).
fn ssh(config: &Option<PathBuf>, alias: &str, more: &[&str]) -> String {
    let file = config.as_deref().map(Path::to_string_lossy);
    let mut args: Vec<&str> = match &file {
        Some(f) => vec!["-F", f],
        None => Vec::new(),
    };
    args.push(alias);
    args.extend(more);
    ResumeCommand::new("ssh", &args, None)
        .map(|c| c.posix())
        .unwrap_or_else(|_| format!("ssh {}", args.join(" ")))
}
