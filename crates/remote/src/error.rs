//! What can go wrong talking to a remote, each with a code (as the CLI's `--json` envelope
//! carries them) and a message that says what to do.

use crate::protocol::WireError;
use crate::ssh::VERSION;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// BatchMode: ssh would have had to ask for a password or passphrase.
    #[error("ssh could not log in to {alias} without a prompt: {detail}. Load your key into the agent (ssh-add), or name it with IdentityFile under `Host {alias}` in ~/.ssh/config, and make sure its public key is in the remote's ~/.ssh/authorized_keys; then check that `ssh {alias} true` works without asking anything")]
    AuthFailed { alias: String, detail: String },

    #[error("the host key of {alias} is not known or has changed: {detail}. Connect once with `ssh {alias}` in a terminal to check and accept it")]
    HostKey { alias: String, detail: String },

    #[error("cannot reach {alias}: {detail}. Check the Host entry for {alias} in ~/.ssh/config and that the machine is up")]
    Unreachable { alias: String, detail: String },

    #[error("{0:?} is not a host alias ssh can be given (empty, starting with '-', or holding spaces or control characters); use a Host name from ~/.ssh/config")]
    BadAlias(String),

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
            Error::BadAlias(_) => "bad_host",
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
