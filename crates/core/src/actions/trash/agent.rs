//! An agent's own command line: found on `PATH` (or where its installer puts it), asked with `--help` which session commands the
//! installed version has, and run with an argv (never through a shell), the store it works on
//! named by the agent's own variable, no input, a time limit, and its output kept short.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::actions::terminal::Host;
use crate::model::ProviderKind;
use crate::provider::registry::AGENTS;

/// How long an agent's command may take (Codex answers `archive` in well under a second; the
/// first start of an npm-installed CLI is slower).
const TIMEOUT: Duration = Duration::from_secs(60);
/// How long `--help` may take: it is asked while the trash dialog says "Working out what would
/// be removed…", and a real agent answers at once, so one that does not is stuck.
pub(crate) const HELP_TIMEOUT: Duration = Duration::from_secs(5);
/// How much of an agent's output is kept.
const MAX_OUTPUT: u64 = 64 << 10;

/// Where the agents' command lines are: those of the agents whose trash asks their own
/// program (`capability::trash::Trash::own_commands`).
#[derive(Debug, Clone, Default)]
pub struct Tools {
    programs: Vec<(ProviderKind, PathBuf)>,
}

impl Tools {
    /// The agents found on this process's `PATH` or where their installers put them.
    pub fn from_path() -> Tools {
        Tools::on(&Host::this())
    }

    /// The agents found on `host`'s `PATH` or where their installers put them
    /// ([`crate::actions::locate`]).
    pub fn on(host: &Host) -> Tools {
        let programs = AGENTS
            .iter()
            .filter(|a| a.trash.own_commands)
            .filter_map(|a| {
                crate::actions::locate::find_agent(host, a.program).map(|p| (a.kind, p))
            })
            .collect();
        Tools { programs }
    }

    /// These tools with `program` as `kind`'s (one found elsewhere, or a stand-in).
    pub fn with(mut self, kind: ProviderKind, program: PathBuf) -> Tools {
        self.programs.retain(|(k, _)| *k != kind);
        self.programs.push((kind, program));
        self
    }

    /// `kind`'s program, where it was found.
    pub fn program(&self, kind: ProviderKind) -> Option<&Path> {
        self.programs
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, p)| p.as_path())
    }
}

/// The subcommands `program --help` lists (the first word of each line of its `Commands:`
/// section), or why it could not be asked.
pub(crate) fn subcommands(program: &Path, env: &[(String, String)]) -> Result<Vec<String>, String> {
    let help = help(program, env)?;
    let mut in_commands = false;
    let mut out = Vec::new();
    for line in help.lines() {
        if line.trim_end().ends_with(':') && !line.starts_with(' ') {
            in_commands = line.trim() == "Commands:";
            continue;
        }
        if in_commands && line.starts_with("  ") {
            if let Some(word) = line.split_whitespace().next() {
                out.push(word.to_owned());
            }
        }
    }
    Ok(out)
}

/// What `program --help` prints, given [`HELP_TIMEOUT`] to answer.
pub(crate) fn help(program: &Path, env: &[(String, String)]) -> Result<String, String> {
    let argv = [program.to_string_lossy().into_owned(), "--help".into()];
    run_within(&argv, env, None, HELP_TIMEOUT).map_err(|e| match e {
        Failure::Late(limit) => format!(
            "`{} --help` did not answer within {} s and was stopped; check that {} runs in a \
             terminal (a real one answers at once)",
            name(&argv),
            limit.as_secs(),
            program.display()
        ),
        Failure::Other(why) => why,
    })
}

/// Runs `argv` and checks that every path of `removes` is gone afterwards; Ok: what it printed.
pub(super) fn run(
    argv: &[String],
    env: &[(String, String)],
    removes: &[PathBuf],
) -> Result<String, String> {
    let printed = tidy(&output(argv, env)?);
    let left: Vec<String> = removes
        .iter()
        .filter(|p| std::fs::symlink_metadata(p).is_ok())
        .map(|p| p.display().to_string())
        .collect();
    if !left.is_empty() {
        return Err(format!(
            "{} reported success but left {}",
            name(argv),
            left.join(", ")
        ));
    }
    Ok(printed)
}

fn name(argv: &[String]) -> String {
    argv.first()
        .and_then(|p| Path::new(p).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Runs `argv`; Ok: stdout and stderr when it exits 0, Err: why not (with what it said, tidied).
fn output(argv: &[String], env: &[(String, String)]) -> Result<String, String> {
    output_in(argv, env, None)
}

/// [`output`], run in the directory `cwd` when given (an agent that files what it writes by
/// the directory it runs in).
pub(crate) fn output_in(
    argv: &[String],
    env: &[(String, String)],
    cwd: Option<&Path>,
) -> Result<String, String> {
    run_within(argv, env, cwd, TIMEOUT).map_err(|e| match e {
        Failure::Late(limit) => format!(
            "{} did not finish within {} s and was stopped; check the session in {} itself",
            name(argv),
            limit.as_secs(),
            name(argv)
        ),
        Failure::Other(why) => why,
    })
}

/// Why a command gave no output to use.
enum Failure {
    /// It was still running after this long, and was stopped.
    Late(Duration),
    /// It could not be run, or failed (what it said, tidied).
    Other(String),
}

impl From<String> for Failure {
    fn from(why: String) -> Self {
        Failure::Other(why)
    }
}

/// [`output_in`] with `limit` for the time it may take. The command gets a process group of its
/// own, and all of it is stopped at the limit: an npm-installed agent is a Node script that
/// starts the real binary, which would outlive its parent.
fn run_within(
    argv: &[String],
    env: &[(String, String)],
    cwd: Option<&Path>,
    limit: Duration,
) -> Result<String, Failure> {
    let (program, args) = argv.split_first().ok_or("no command".to_owned())?;
    let mut cmd = Command::new(program);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let pipes = (child.stdout.take(), child.stderr.take());
    let readers = [
        pipes.0.map(|p| std::thread::spawn(move || read_bounded(p))),
        pipes.1.map(|p| std::thread::spawn(move || read_bounded(p))),
    ];
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > limit => {
                stop(&mut child);
                return Err(Failure::Late(limit));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("cannot wait for {program}: {e}").into()),
        }
    };
    let text: Vec<String> = readers
        .into_iter()
        .flatten()
        .map(|r| r.join().unwrap_or_default())
        .collect();
    let said = text.join("\n");
    if status.success() {
        Ok(said)
    } else {
        let said = tidy(&said);
        Err(Failure::Other(format!(
            "{} failed ({status}){}",
            name(argv),
            if said.is_empty() {
                String::new()
            } else {
                format!(": {said}")
            }
        )))
    }
}

/// Kills `child` and, on Unix, every process of its group (the child leads it).
fn stop(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(group) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals that process group; no memory is involved.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn read_bounded(pipe: impl Read) -> String {
    let mut bytes = Vec::new();
    let mut limited = pipe.take(MAX_OUTPUT);
    let _ = limited.read_to_end(&mut bytes);
    // Drain the rest so the agent never blocks on a full pipe.
    let mut rest = limited.into_inner();
    let _ = std::io::copy(&mut rest, &mut std::io::sink());
    String::from_utf8_lossy(&bytes).into_owned()
}

/// What an agent printed, without its colour codes, backtrace frames and start-up warnings,
/// at most a few lines.
fn tidy(text: &str) -> String {
    let plain: String = strip_ansi(text);
    plain
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with("WARNING:")
                && *l != "Stack backtrace:"
                && !l.split_once(": ").is_some_and(|(n, rest)| {
                    n.chars().all(|c| c.is_ascii_digit()) && rest.starts_with('<')
                })
        })
        .take(6)
        .collect::<Vec<_>>()
        .join(" | ")
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ … final byte in @..~
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            continue;
        }
        if !c.is_control() || c == '\n' {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_loses_noise_but_keeps_the_error() {
        let raw = "WARNING: proceeding, even though…\nError: failed to archive session\n\nStack backtrace:\n   0: <unknown>\n   1: <unknown>\n";
        assert_eq!(tidy(raw), "Error: failed to archive session");
        assert_eq!(
            tidy("\u{1b}[92m\u{1b}[1mSession x deleted\u{1b}[0m\n"),
            "Session x deleted"
        );
    }
}
