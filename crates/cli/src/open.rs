//! `terminals` and `open <id> [--resume] [--terminal ID] [--dry-run]`: the installed terminals,
//! and a terminal window in a session's directory, resuming it with `--resume` (the work is
//! `agent_sessions_core::actions::terminal`; this is flags and output). With `--host` the
//! terminal here runs `ssh -t ALIAS '<command>'`, checked on the host first
//! (`agent_sessions_remote::terminal`, as the app's Resume in terminal does).

use std::fmt::Write as _;
use std::path::Path;

use agent_sessions_core::actions::resume::ShellCommand;
use agent_sessions_core::actions::terminal::{self, Host, Launch};
use agent_sessions_core::config::ConfigFile;
use agent_sessions_core::{Error, Roots};
use agent_sessions_remote::protocol::SessionRef;
use agent_sessions_remote::terminal as remote_terminal;
use agent_sessions_remote::{Client, Error as RemoteError};
use serde_json::json;

use crate::envelope::Envelope;
use crate::progress;

#[derive(clap::Args)]
pub struct Args {
    /// The session id, an unambiguous prefix of it, or the path of its file (which names one of
    /// two files holding the same session).
    id: String,
    /// Run the session's resume command in the new window (without it: a shell there).
    #[arg(long)]
    resume: bool,
    /// Use this terminal (an id that `terminals` lists) instead of the configured or automatic one.
    #[arg(long, value_name = "ID")]
    terminal: Option<String>,
    /// Print what would be run (terminal, argv, directory) and start nothing.
    #[arg(long)]
    dry_run: bool,
    /// Read the stores directly instead of through the cache.
    #[arg(long)]
    no_cache: bool,
}

/// The `[terminal] app` of the config file, when it names one.
pub(crate) fn configured(config: &ConfigFile) -> Option<String> {
    Some(config.settings().terminal.app).filter(|id| !id.is_empty())
}

/// `terminals`: what is installed, what Automatic picks, what is configured, what `open` uses.
pub fn terminals(config: &ConfigFile) -> Envelope {
    let host = Host::this();
    let found = terminal::installed(&host);
    let automatic = terminal::automatic(&host, &found).map(|t| t.id);
    let configured = configured(config);
    let chosen = terminal::choose(configured.as_deref(), &host, &found);
    let mut text = String::new();
    if found.is_empty() {
        text.push_str("no terminal installed\n");
    } else {
        text.push_str("installed terminals:\n");
    }
    for t in &found {
        let target = t.target.map(|id| format!(" -> {id}")).unwrap_or_default();
        let _ = writeln!(
            text,
            "  {:<20} {:<30} {}{target}",
            t.id,
            t.name,
            t.program.display()
        );
    }
    let _ = writeln!(text, "automatic: {}", automatic.unwrap_or("none"));
    let source = config
        .path()
        .map(|p| format!(" (from {})", p.display()))
        .unwrap_or_default();
    match &configured {
        Some(id) => {
            let _ = writeln!(text, "configured: {id}{source}");
        }
        None => text.push_str("configured: none (Automatic)\n"),
    }
    let uses = chosen.as_ref().ok().map(|t| t.id);
    let _ = writeln!(text, "open uses: {}", uses.unwrap_or("none"));
    let data = json!({
        "installed": found,
        "automatic": automatic,
        "configured": configured.as_ref().map(|id| json!({
            "id": id,
            "installed": found.iter().any(|t| t.id == id),
            "config": config.path(),
        })),
        "chosen": uses,
    });
    let mut out = Envelope::ok(data, text);
    if let Err(e) = chosen {
        out.warn(&[format!("open cannot open a terminal: {e}")]);
    }
    out
}

/// `open`: plans the launch in core, then prints it (`--dry-run`) or starts it.
pub fn run(roots: &Roots, args: Args, config: &ConfigFile) -> Result<Envelope, Error> {
    let mut lib = crate::open(roots, &[], !args.no_cache);
    let report = progress::run("scanning", |p| lib.sessions(p))?;
    let session = lib.catalog().find(&report.sessions, &args.id)?.clone();
    // The flag, then the config, then Automatic.
    let requested = args.terminal.or_else(|| configured(config));
    let host = Host::this();
    let launch = terminal::plan_session(
        lib.catalog(),
        &session,
        requested.as_deref(),
        args.resume,
        &host,
    )?;
    if !args.dry_run {
        terminal::launch(&launch)?;
    }
    let mut out = Envelope::ok(
        json!({
            "terminal": launch.terminal,
            "argv": launch.argv.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>(),
            "cwd": launch.cwd,
            "launched": !args.dry_run,
        }),
        text(
            &launch,
            args.dry_run,
            args.resume.then_some(session.id.as_str()),
        ),
    );
    out.warn(lib.warnings());
    Ok(out)
}

/// `open --host ALIAS`: the host checks the session (its directory, with `--resume` its agent)
/// and answers what runs there; a terminal here runs it through `ssh [-F FILE] -t`, held on
/// failure, as the app's Resume in terminal / Open terminal does. A refusal opens nothing.
pub fn remote(
    client: &mut Client,
    alias: &str,
    ssh_config: Option<&Path>,
    args: Args,
    config: &ConfigFile,
) -> Result<Envelope, RemoteError> {
    let session = SessionRef::named(args.id.clone());
    let there = match remote_terminal::there(client, &session, args.resume) {
        Err(RemoteError::Server(w)) if w.code == "agent_not_found" => {
            // What resumes it by hand there, once the agent is reachable.
            let by_hand = client.resume(&session)?;
            let ssh = remote_terminal::over_ssh(alias, ssh_config, &by_hand).map_err(invalid)?;
            return Err(refused_there(alias, w, Some(&ssh.posix())));
        }
        Err(RemoteError::Server(w)) if w.code == "directory_missing" => {
            return Err(refused_there(alias, w, None))
        }
        other => other?,
    };
    let held = remote_terminal::held(&there, alias).map_err(invalid)?;
    let ssh = remote_terminal::over_ssh(alias, ssh_config, &held).map_err(invalid)?;
    let requested = args.terminal.or_else(|| configured(config));
    let launch = remote_terminal::local_terminal(&ssh, requested.as_deref())
        .map_err(|e| from_core(e.into()))?;
    if !args.dry_run {
        terminal::launch(&launch).map_err(|e| from_core(e.into()))?;
    }
    let dir = there.cwd().unwrap_or("~");
    let text = if args.dry_run {
        format!(
            "host: {alias}\nhost cwd: {dir}\n{}",
            text(&launch, true, None)
        )
    } else if args.resume {
        let id = &args.id;
        format!(
            "opened {} for {alias}:{dir}, resuming {id} there\n",
            launch.terminal
        )
    } else {
        format!("opened {} for {alias}:{dir}\n", launch.terminal)
    };
    let ssh_argv: Vec<&str> = std::iter::once(ssh.program())
        .chain(ssh.args().iter().map(String::as_str))
        .collect();
    Ok(Envelope::ok(
        json!({
            "terminal": launch.terminal,
            "argv": launch.argv.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>(),
            "cwd": launch.cwd,
            "host": alias,
            "host_cwd": there.cwd(),
            "ssh": ssh_argv,
            "launched": !args.dry_run,
        }),
        text,
    ))
}

/// The host's refusal, said as on that host, with the command that runs it by hand there.
fn refused_there(
    alias: &str,
    mut w: agent_sessions_remote::protocol::WireError,
    by_hand: Option<&str>,
) -> RemoteError {
    w.message = format!("On {alias}: {}", w.message);
    if let Some(command) = by_hand {
        w.message
            .push_str(&format!("; once it is installed there: {command}"));
    }
    RemoteError::Server(w)
}

fn invalid(e: agent_sessions_core::model::Unresumable) -> RemoteError {
    from_core(e.into())
}

fn from_core(e: Error) -> RemoteError {
    RemoteError::Server(agent_sessions_remote::protocol::WireError::new(
        e.code(),
        e.to_string(),
    ))
}

/// A dry run lists the argv one element per line (nothing to unquote); a launch says what
/// opened where.
fn text(launch: &Launch, dry_run: bool, resuming: Option<&str>) -> String {
    if dry_run {
        let mut text = format!(
            "terminal: {}\ncwd: {}\nargv:\n",
            launch.terminal,
            launch.cwd.display()
        );
        for a in &launch.argv {
            let _ = writeln!(text, "  {}", a.to_string_lossy());
        }
        return text;
    }
    match resuming {
        Some(id) => format!(
            "opened {} in {}, resuming {id}\n",
            launch.terminal,
            launch.cwd.display()
        ),
        None => format!("opened {} in {}\n", launch.terminal, launch.cwd.display()),
    }
}
