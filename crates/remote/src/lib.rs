//! agent-sessions-remote: browse, search and follow the sessions of another machine through
//! the user's own `ssh` (or `wsl.exe`), with nothing left running there and no port opened.
//!
//! - [`protocol`]: JSON lines, versioned (docs/remote.md).
//! - [`server`]: answers the protocol with the core's calls (`agent-sessions-cli serve --stdio`).
//! - [`client`]: calls over a [`transport::Transport`], reconnecting after a drop; a follower
//!   resumes from its cursor. [`calls`]: each method as a typed call whose answer is the
//!   protocol's type, what the CLI and the app both call.
//! - [`ssh`]: the system ssh in BatchMode, and the bootstrap that installs this build's server
//!   on a remote of the same platform; [`wsl`]: WSL distributions as hosts (pure functions).
//! - [`command`]: the transport over a child process (ssh, wsl.exe, sh), and the bootstrap
//!   every such transport shares.
//! - [`terminal`]: a terminal here running a command on a host (`ssh -t`, held on failure),
//!   what the app's Resume in terminal and the CLI's `open --host` start.
//! - [`transport::Memory`]: a server on a thread, for tests; [`loopback`]: a throwaway sshd
//!   on 127.0.0.1, for the tests and the benchmark.

pub mod calls;
pub mod client;
pub mod command;
pub mod error;
pub mod hosts;
pub mod lines;
pub mod loopback;
pub mod protocol;
pub mod server;
pub mod ssh;
pub mod terminal;
pub mod transport;
pub mod wsl;

pub use client::Client;
pub use error::Error;
pub use server::dispatch_resume_json as resume_json;

/// A lock a panic elsewhere does not poison for good (what it guards stays whole).
pub(crate) fn server_lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
