//! `terminals` and `open <id> [--resume] [--terminal ID] [--dry-run]`: the installed terminals,
//! and a terminal window in a session's directory, resuming it with `--resume` (the work is
//! `agent_sessions_core::actions::terminal`; this is flags and output).

use std::fmt::Write as _;

use agent_sessions_core::actions::terminal::{self, Host, Launch};
use agent_sessions_core::config::ConfigFile;
use agent_sessions_core::{Error, Roots};
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
