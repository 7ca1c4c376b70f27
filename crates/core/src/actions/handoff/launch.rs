//! Starting the target agent with the handoff as its first prompt, in the chosen terminal, in
//! the session's directory.
//!
//! The prompt is many lines of transcript text, and a terminal's command must be words without
//! control characters (`resume.rs` refuses them: several terminals and every macOS and Windows
//! route pass the command through a shell's quoting). So the prompt goes in a file, and the
//! terminal runs a fixed command that hands the file's content to the agent as one argument:
//!
//! - **Linux and macOS:** `/bin/sh -c 'p=$(cat -- "$1") && rm -f -- "$1" && shift && exec "$@"
//!   "$p"' agent-sessions-handoff FILE AGENT [OPTION]`. The script is a constant; the file, the
//!   agent's path and its option are its arguments, never part of its text, and the content is
//!   read into a quoted variable, which the shell does not expand further. The file is removed
//!   once read. The agent gets the prompt as one argv element: `claude PROMPT`, `codex PROMPT`,
//!   `opencode --prompt PROMPT`. The prompt always starts with the words "This is a handoff",
//!   so no agent can read it as an option, a subcommand or a slash command. A local terminal
//!   runs all that under [`terminal::HOLD`] (`/bin/sh -c HOLD agent-sessions /bin/sh -c SCRIPT
//!   …`, the same constant script as Resume in terminal): when it fails (the agent stopped at
//!   once, the file could not be read) the window shows the exit status and waits for Enter
//!   instead of closing with the reason. [`prepare`]'s command is not held here: the app
//!   holds what it runs over ssh itself.
//! - **Windows:** an argument cannot carry line breaks through PowerShell 5.1 and the agents'
//!   `.cmd` shims, so the agent's first prompt is one line that names the file and asks the
//!   agent to read it first; the file stays (removed by the sweep below).
//! - **An agent whose first message ends its run** ([`Handoff::then`], Aider), on Linux and
//!   macOS: `/bin/sh -c 'a=$1 && t=$2 && shift 2 && "$a" "$@" && exec "$a" "$t"'
//!   agent-sessions-handoff AGENT THEN OPTION…` ([`THEN_SCRIPT`], a constant: the agent's path,
//!   the second run's option and the first run's options are its arguments). The first run
//!   reads the prompt file itself (`aider --message-file FILE`) and returns; the second
//!   (`aider --restore-chat-history`) is interactive, with the first exchange restored from
//!   what the first run wrote. If the first run fails the second does not start, and the
//!   held window shows the status. The file stays (removed by the sweep below).
//! - **An agent that reads the prompt from a file itself** ([`Handoff::reads_file`]), and
//!   Aider on Windows (no shell there to chain two runs through safely): the agent is started
//!   with the file's path in its options (`aider --read FILE`: the file is part of every
//!   request, and Aider waits for the user), no script; the prompt's text is no word of the
//!   command. The agent reads the file again on every turn, so it stays (removed by the sweep
//!   below).
//!
//! The file is created new (never over another), readable by the user only, in a folder of the
//! app's cache that only the user can open; files left there (a terminal that never ran its
//! command, Windows) are removed after a day, at the next handoff. The prompt's size is bounded
//! by the budget's maximum, below Linux's 128 KiB limit for one argument.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Serialize;

use crate::actions::locate::find_agent;
use crate::actions::resume::{ResumeCommand, ShellCommand};
use crate::actions::terminal::{self, Host, Launch, Os, TerminalError};
use crate::model::{ProviderKind, SessionMeta};
use crate::provider::capability::launch::Handoff;
use crate::provider::capability::Capability;
use crate::provider::registry;
use crate::Error;

/// The shell script of the Linux and macOS launch (see the module doc).
pub const UNIX_SCRIPT: &str = r#"p=$(cat -- "$1") && rm -f -- "$1" && shift && exec "$@" "$p""#;
/// The shell script of an agent started twice on Linux and macOS ([`Handoff::then`]): `$1` is
/// the agent, `$2` the second run's option, the rest the first run's options.
pub const THEN_SCRIPT: &str = r#"a=$1 && t=$2 && shift 2 && "$a" "$@" && exec "$a" "$t""#;
/// The script's `$0`: what `ps` shows for it.
const SCRIPT_NAME: &str = "agent-sessions-handoff";
/// Prompt files older than this are removed at the next handoff.
const KEEP_FILES: Duration = Duration::from_secs(24 * 60 * 60);

/// A handoff's launch: the terminal's argv (shown by a dry run) and the prompt file it reads.
#[derive(Debug, Clone, Serialize)]
pub struct Planned {
    #[serde(flatten)]
    pub launch: Launch,
    /// Written by [`launch`] just before the terminal starts; nothing is written by [`plan`].
    pub prompt_file: PathBuf,
}

/// The agent's executable name (its descriptor's).
pub fn program(target: ProviderKind) -> &'static str {
    registry::agent(target).program
}

/// How the agent takes its first prompt (its [`Handoff`]). Refused, with the agent's reason,
/// for an agent that cannot be started with a prompt.
fn handoff_for(target: ProviderKind) -> Result<Handoff, TerminalError> {
    let agent = registry::agent(target);
    handoff_of(agent.label, agent.launch.handoff)
}

/// [`handoff_for`] of the agent called `label` with this capability.
fn handoff_of(label: &'static str, handoff: Capability<Handoff>) -> Result<Handoff, TerminalError> {
    match handoff {
        Capability::Has(handoff) => Ok(handoff),
        Capability::Lacks(why) => Err(TerminalError::Unavailable {
            agent: label,
            action: "be handed a session's work",
            why,
        }),
    }
}

/// The command the terminal runs in `dir` on `os`: `agent` (its full path) started with the
/// content of `prompt_file` as its first prompt (see the module doc).
pub fn agent_command(
    os: Os,
    target: ProviderKind,
    agent: &Path,
    prompt_file: &Path,
    dir: &Path,
) -> Result<ResumeCommand, Error> {
    let text = |p: &Path| {
        p.to_str().map(str::to_owned).ok_or_else(|| {
            Error::resume_unavailable(format!(
                "{} is not valid UTF-8, so no command can name it",
                p.display()
            ))
        })
    };
    let (agent, file, dir) = (text(agent)?, text(prompt_file)?, text(dir)?);
    let handoff = handoff_for(target)?;
    if let (Os::Linux | Os::Macos, Some(then)) = (os, handoff.then) {
        // Two runs of the agent: the first sends the file, the second stays interactive.
        let mut args = vec!["-c", THEN_SCRIPT, SCRIPT_NAME, &agent, then.interactive];
        args.extend(then.first_with(&file));
        return Ok(ResumeCommand::new("/bin/sh", &args, Some(&dir))?);
    }
    if handoff.reads_file() {
        // The agent opens the file itself: no script, the same argv on every system.
        let args = handoff.options_with(&file);
        return Ok(ResumeCommand::new(&agent, &args, Some(&dir))?);
    }
    let options = handoff.prompt_options;
    match os {
        Os::Linux | Os::Macos => {
            let mut args = vec!["-c", UNIX_SCRIPT, SCRIPT_NAME, &file, &agent];
            args.extend(options);
            Ok(ResumeCommand::new("/bin/sh", &args, Some(&dir))?)
        }
        Os::Windows => {
            let pointer = format!(
                "Read the file {file} first: it hands over work started in another agent's \
                 session in this directory (the goal, the working state and the last turns). \
                 Then continue that work."
            );
            let mut args: Vec<&str> = options.to_vec();
            args.push(&pointer);
            Ok(ResumeCommand::new(&agent, &args, Some(&dir))?)
        }
    }
}

/// The launch of `target` for `session` in `terminal` (an id, or None/empty for Automatic),
/// its prompt file to be written in `prompt_dir`. Nothing is written or started: a dry run
/// shows this. Refused (with nothing done) when the session has no directory or it is gone,
/// the terminal is unknown or missing, or the agent is not installed or cannot take a prompt
/// (`action_unavailable`, with its reason).
pub fn plan(
    session: &SessionMeta,
    target: ProviderKind,
    terminal: Option<&str>,
    host: &Host,
    prompt_dir: &Path,
) -> Result<Planned, Error> {
    handoff_for(target)?;
    let dir = session_dir(session)?;
    let found = terminal::installed(host);
    let chosen = terminal::choose(terminal, host, &found)?;
    let (prompt_file, command) = agent_in(target, host, &dir, prompt_dir)?;
    // As Resume in terminal: a failure (the agent stopped at once, the prompt file could not
    // be read) stays on screen with its exit status instead of closing the window.
    let command = terminal::held(command, host)?;
    let launch = terminal::plan(chosen, &found, host, &dir, Some(&command))?;
    Ok(Planned {
        launch,
        prompt_file,
    })
}

fn session_dir(session: &SessionMeta) -> Result<PathBuf, TerminalError> {
    session
        .cwd
        .as_deref()
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .ok_or(TerminalError::NoDirectory)
}

/// The prompt file's path in `prompt_dir` and the command that starts `target` (found on
/// `host`) in `dir` with it; refused when the agent is not installed.
fn agent_in(
    target: ProviderKind,
    host: &Host,
    dir: &Path,
    prompt_dir: &Path,
) -> Result<(PathBuf, ResumeCommand), Error> {
    let name = program(target);
    let agent = find_agent(host, name).ok_or_else(|| TerminalError::AgentNotFound {
        program: name.to_owned(),
        copy: manual(host.os, name, dir),
    })?;
    let prompt_dir = std::path::absolute(prompt_dir).map_err(|e| Error::io(prompt_dir, e))?;
    let prompt_file = prompt_dir.join(file_name());
    let command = agent_command(host.os, target, &agent, &prompt_file, dir)?;
    Ok((prompt_file, command))
}

/// A handoff made ready for a terminal on another machine: the app's Continue in… on a remote
/// session, where this runs in the host's server and the app starts the command over `ssh -t`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Prepared {
    /// The session's directory, where `argv` must run.
    pub cwd: PathBuf,
    /// Written (new, 0600); the command reads and removes it.
    pub prompt_file: PathBuf,
    /// The command [`plan`] gives the terminal: the agent started with the prompt file.
    pub argv: Vec<String>,
    /// The document's length in characters.
    pub chars: usize,
}

/// Writes the prompt file of `session`'s handoff to `target` (its text from `markdown`) in
/// `prompt_dir`, with the same checks, file name and modes as [`plan`] and [`launch`], and
/// answers the command to run in the session's directory; no terminal is involved. Refused
/// (nothing written) when the directory is missing, the agent is not installed on `host` or
/// cannot take a prompt.
pub fn prepare(
    session: &SessionMeta,
    target: ProviderKind,
    host: &Host,
    prompt_dir: &Path,
    markdown: impl FnOnce() -> Result<String, Error>,
) -> Result<Prepared, Error> {
    handoff_for(target)?;
    let dir = session_dir(session)?;
    terminal::check_dir(&dir)?;
    let (prompt_file, command) = agent_in(target, host, &dir, prompt_dir)?;
    let markdown = markdown()?;
    write_prompt(&prompt_file, &markdown)?;
    let argv = std::iter::once(command.program())
        .chain(command.args().iter().map(String::as_str))
        .map(str::to_owned)
        .collect();
    Ok(Prepared {
        cwd: dir,
        prompt_file,
        argv,
        chars: super::quote::chars(&markdown),
    })
}

/// What to run by hand when the agent is not found: the agent in the directory (the prompt is
/// then pasted, or printed by `handoff --print`).
fn manual(os: Os, program: &str, dir: &Path) -> String {
    let command = ResumeCommand::new(program, &[], dir.to_str());
    match (command, os) {
        (Ok(c), Os::Windows) => c.powershell(),
        (Ok(c), _) => c.posix(),
        (Err(_), _) => program.to_owned(),
    }
}

/// `handoff-<ms since 1970>-<pid>.md`: unique per process and moment; created new, so a clash
/// is an error, never an overwrite.
fn file_name() -> String {
    let ms = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis();
    format!("handoff-{ms}-{}.md", std::process::id())
}

/// Writes the prompt file and starts the terminal. If the terminal cannot be started the file
/// is removed again: a failed launch leaves nothing behind.
pub fn launch(planned: &Planned, markdown: &str) -> Result<(), Error> {
    let file = &planned.prompt_file;
    write_prompt(file, markdown)?;
    terminal::launch(&planned.launch).map_err(|e| {
        let _ = std::fs::remove_file(file);
        Error::from(e)
    })
}

/// Writes `markdown` to the new `file` in its private folder, after sweeping old ones.
fn write_prompt(file: &Path, markdown: &str) -> Result<(), Error> {
    let dir = file
        .parent()
        .ok_or_else(|| Error::resume_unavailable("the prompt file has no folder"))?;
    private_dir(dir).map_err(|source| Error::Write {
        path: dir.to_path_buf(),
        source,
    })?;
    sweep(dir);
    write_new(file, markdown).map_err(|source| Error::Write {
        path: file.to_path_buf(),
        source,
    })
}

/// The folder, created readable by the user only when missing. One found there is used only
/// when it is such a folder: through a link, or one that others can enter, the prompt (a
/// session's transcript) could be read or the file swapped before the terminal reads it.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)?;
    check_private(dir)
}

/// Refuses a folder that is a link, not a folder, or (on Unix) not the user's own with no
/// access for group and others, saying what to do about it.
fn check_private(dir: &Path) -> std::io::Result<()> {
    let refuse = |why: String| {
        Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            why,
        ))
    };
    let meta = std::fs::symlink_metadata(dir)?;
    if meta.file_type().is_symlink() {
        return refuse(format!(
            "the handoff's prompt folder is a link; remove it (`rm {}`): the next handoff makes a private folder there",
            dir.display()
        ));
    }
    if !meta.is_dir() {
        return refuse(format!(
            "the handoff's prompt folder is not a folder; remove {} (the next handoff makes a private folder there)",
            dir.display()
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            return refuse(format!(
                "the handoff's prompt folder belongs to another user (uid {}); remove {} (the next handoff makes a private folder there)",
                meta.uid(),
                dir.display()
            ));
        }
        let mode = meta.mode() & 0o777;
        if mode & 0o077 != 0 {
            return refuse(format!(
                "the handoff's prompt folder can be opened by other users (mode {mode:o}); make it private with `chmod 700 {}`, or remove it",
                dir.display()
            ));
        }
    }
    Ok(())
}

/// A new file (never over an existing one or through a link), 0600 on Unix.
fn write_new(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    let written = file
        .write_all(text.as_bytes())
        .and_then(|_| file.sync_all());
    if written.is_err() {
        let _ = std::fs::remove_file(path);
    }
    written
}

/// Removes prompt files older than [`KEEP_FILES`] (best effort: a file that cannot be removed
/// now is tried again next time).
fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let ours = name
            .to_str()
            .is_some_and(|n| n.starts_with("handoff-") && n.ends_with(".md"));
        let old = entry
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| m.modified().ok())
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > KEEP_FILES);
        if ours && old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_without_a_handoff_is_refused_with_its_reason() {
        let lacks = Capability::Lacks("it reads no prompt from its command line");
        let e = Error::from(handoff_of("Some Agent", lacks).unwrap_err());
        assert_eq!(e.code(), "action_unavailable");
        assert_eq!(
            e.to_string(),
            "Some Agent cannot be handed a session's work: it reads no prompt from its command line"
        );
        let has = Capability::Has(Handoff {
            prompt_options: &["--prompt"],
            then: None,
        });
        assert_eq!(
            handoff_of("Some Agent", has).unwrap().prompt_options,
            ["--prompt"]
        );
    }
}
