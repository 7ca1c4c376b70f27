//! A terminal here running a command on a host: what the app's Open terminal / Resume in
//! terminal on a remote session and the CLI's `open --host` both start (docs/remote.md, "In the
//! app"). The host checks the session first ([`there`]: its directory, its agent); its answer
//! becomes `ssh [-F FILE] -t -- ALIAS '<command>'` ([`over_ssh`], the command POSIX-quoted by
//! core as one argv element), wrapped so a failure stays on screen ([`held`]), and started in a
//! local terminal in the local home ([`local_terminal`]). Nothing of the host's answer reaches a
//! local shell: locally it is an argv; the remote's login shell reads the quoted text.

use std::path::{Path, PathBuf};

use agent_sessions_core::actions::resume::{ResumeCommand, ShellCommand};
use agent_sessions_core::actions::terminal::{self, Host, Launch, TerminalError};
use agent_sessions_core::model::Unresumable;

use crate::protocol::SessionRef;
use crate::{Client, Error};

/// What runs there: with `resume`, the session's resume command once the host has checked that
/// its directory is there (`directory_missing`) and its agent installed (`agent_not_found`);
/// without, a login shell in the session's directory once the host has checked it is there.
pub fn there(
    client: &mut Client,
    session: &SessionRef,
    resume: bool,
) -> Result<ResumeCommand, Error> {
    if resume {
        return client.resume_in_terminal(session);
    }
    let dir = client.terminal_dir(session)?;
    login_shell_in(&dir).map_err(|e| {
        let e = agent_sessions_core::Error::from(e);
        Error::Server(crate::protocol::WireError::new(e.code(), e.to_string()))
    })
}

/// A login shell started in `dir` (`cd -- 'dir' && exec "$SHELL" -l` in POSIX quoting). A
/// directory holding a control character is refused (`ResumeCommand::new`).
pub fn login_shell_in(dir: &str) -> Result<ResumeCommand, Unresumable> {
    let script = r#"exec "${SHELL:-/bin/sh}" -l"#;
    ResumeCommand::new("sh", &["-c", script], Some(dir))
}

/// `command` kept on screen when it fails: run by `sh -c` there, and when it ends with a failure
/// (the directory is gone there, the agent is not installed there, it stopped at once) the
/// window says so and waits for Enter. A local terminal closes when its command ends, so
/// without this the user saw a window flash and no reason (the launch itself had worked). The
/// alias reaches the script as `$1`, never inside its text.
pub fn held(command: &ResumeCommand, alias: &str) -> Result<ResumeCommand, Unresumable> {
    let script = format!(
        "{} || {{ s=$?; printf '\\n%s\\n' \"agent-sessions: this ended with exit status $s on $1 (the reason is above). Press Enter to close this window.\"; read -r _; exit \"$s\"; }}",
        command.posix()
    );
    ResumeCommand::new("sh", &["-c", &script, "agent-sessions", alias], None)
}

/// `ssh [-F FILE] -t -- ALIAS COMMAND` as a command (its POSIX form is what a user pastes).
pub fn ssh_command(
    alias: &str,
    config: Option<&Path>,
    remote: &str,
) -> Result<ResumeCommand, Unresumable> {
    let config = config.map(|c| c.to_string_lossy().into_owned());
    let mut args: Vec<&str> = Vec::new();
    if let Some(c) = &config {
        args.extend(["-F", c]);
    }
    args.extend(["-t", "--", alias, remote]);
    ResumeCommand::new("ssh", &args, None)
}

/// For a WSL host (Windows): `wsl.exe -d DISTRO --exec sh -c COMMAND`, the distribution's `sh`
/// running what ssh's login shell would.
pub fn wsl_command(distro: &str, remote: &str) -> Result<ResumeCommand, Unresumable> {
    let args = crate::wsl::argv(distro, &["sh", "-c", remote]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ResumeCommand::new(crate::wsl::WSL, &args, None)
}

/// `remote` run on the host `alias` from here: through ssh (`-F config` when given), or on
/// Windows a `wsl:NAME` host through wsl.exe.
pub fn over_ssh(
    alias: &str,
    config: Option<&Path>,
    remote: &ResumeCommand,
) -> Result<ResumeCommand, Unresumable> {
    #[cfg(windows)]
    if let Some(distro) = crate::wsl::distro_of(alias) {
        return wsl_command(distro, &remote.posix());
    }
    ssh_command(alias, config, &remote.posix())
}

/// The launch of `ssh` (an `ssh -t ALIAS …` command) in the `requested` (else Automatic)
/// terminal here, in the local home (the temporary folder when there is none): planned, not
/// started. ssh is found on `PATH` and given an argv.
pub fn local_terminal(
    ssh: &ResumeCommand,
    requested: Option<&str>,
) -> Result<Launch, TerminalError> {
    let here = Host::this();
    let found = terminal::installed(&here);
    let chosen = terminal::choose(requested, &here, &found)?;
    terminal::plan(chosen, &found, &here, &local_home(), Some(ssh))
}

fn local_home() -> PathBuf {
    agent_sessions_core::paths::process_env("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_dir())
        .unwrap_or_else(std::env::temp_dir)
}
