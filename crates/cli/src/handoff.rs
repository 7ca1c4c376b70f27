//! `handoff <id> --to AGENT [--print] [--budget N] [--terminal ID] [--dry-run]`:
//! continue a session's work in another agent, started in a terminal in the session's directory
//! with a handoff document as its first prompt (the work is
//! `agent_sessions_core::actions::handoff`; this is flags and output).

use std::fmt::Write as _;
use std::path::PathBuf;

use agent_sessions_core::actions::handoff::{
    self, Budget, Handoff, Planned, DEFAULT_BUDGET, MAX_BUDGET, MIN_BUDGET,
};
use agent_sessions_core::actions::terminal::Host;
use agent_sessions_core::config::ConfigFile;
use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::{Error, ProviderKind, Roots, SessionMeta};
use serde_json::json;

use crate::envelope::Envelope;
use crate::progress;

#[derive(clap::Args)]
pub struct Args {
    /// The session id, an unambiguous prefix of it, or the path of its file (which names one of
    /// two files holding the same session).
    pub(crate) id: String,
    #[command(flatten)]
    pub(crate) start: Start,
    /// Read the stores directly instead of through the cache.
    #[arg(long)]
    no_cache: bool,
}

/// The target agent and how it starts: shared by `handoff` and `bundle continue`.
#[derive(clap::Args)]
pub struct Start {
    /// The agent to continue in.
    #[arg(long, value_name = "AGENT", value_parser = crate::AgentName)]
    pub to: ProviderKind,
    /// Print the handoff document (Markdown) and start nothing.
    #[arg(long, conflicts_with = "dry_run")]
    print: bool,
    /// The document's size limit in characters (about 4 per token).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BUDGET, value_parser = parse_budget)]
    budget: usize,
    /// Use this terminal (an id that `terminals` lists) instead of the configured or automatic one.
    #[arg(long, value_name = "ID")]
    terminal: Option<String>,
    /// Print what would be run (terminal, argv, directory, prompt file) and start nothing.
    #[arg(long)]
    dry_run: bool,
}

impl Start {
    pub fn budget(&self) -> Budget {
        Budget::new(self.budget).unwrap_or_default()
    }

    /// `--print`: the document only, nothing started.
    pub(crate) fn prints(&self) -> bool {
        self.print
    }
}

fn parse_budget(text: &str) -> Result<usize, String> {
    let n: usize = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of characters"))?;
    Budget::new(n)
        .map(Budget::chars)
        .ok_or_else(|| format!("the budget must be {MIN_BUDGET} to {MAX_BUDGET} characters"))
}

pub fn run(roots: &Roots, args: Args, config: &ConfigFile) -> Result<Envelope, Error> {
    let mut lib = crate::open(roots, &[], !args.no_cache);
    let report = progress::run("scanning", |p| lib.sessions(p))?;
    let session = lib.catalog().find(&report.sessions, &args.id)?.clone();
    let (to, budget) = (args.start.to, args.start.budget());
    let mut out = start(&session, &args.start, config, || {
        handoff::from_store(lib.catalog(), &session, to, budget)
    })?;
    out.warn(lib.warnings());
    Ok(out)
}

/// Prints `session`'s handoff, or starts the target agent with it in a terminal in the
/// session's directory. Planned first: a missing terminal, directory or agent costs no
/// transcript read (`doc` is called after).
pub fn start(
    session: &SessionMeta,
    start: &Start,
    config: &ConfigFile,
    doc: impl FnOnce() -> Result<Handoff, Error>,
) -> Result<Envelope, Error> {
    let planned = if start.print {
        None
    } else {
        let requested = start
            .terminal
            .clone()
            .or_else(|| crate::open::configured(config));
        let dir = prompt_dir()?;
        Some(handoff::plan(
            session,
            start.to,
            requested.as_deref(),
            &Host::this(),
            &dir,
        )?)
    };
    let doc = doc()?;
    Ok(match &planned {
        None => Envelope::ok(json!(doc), doc.markdown.clone()),
        Some(planned) => {
            if !start.dry_run {
                handoff::launch(planned, &doc.markdown)?;
            }
            launched(planned, &doc, start.dry_run)
        }
    })
}

/// Where prompt files go: `handoff/` in the app's cache folder.
fn prompt_dir() -> Result<PathBuf, Error> {
    default_cache_dir()
        .map(|d| d.join("handoff"))
        .ok_or_else(|| Error::Cache {
            path: PathBuf::new(),
            reason: "no cache directory on this system for the handoff's prompt file".into(),
        })
}

/// A dry run lists the argv one element per line; a launch says what opened where.
fn launched(planned: &Planned, doc: &Handoff, dry_run: bool) -> Envelope {
    let launch = &planned.launch;
    let mut text = if dry_run {
        let mut text = format!(
            "terminal: {}\ncwd: {}\nprompt file: {} (not written)\nargv:\n",
            launch.terminal,
            launch.cwd.display(),
            planned.prompt_file.display()
        );
        for a in &launch.argv {
            let _ = writeln!(text, "  {}", a.to_string_lossy());
        }
        text
    } else {
        format!(
            "opened {} in {}: {} continues {} session {}\n",
            launch.terminal,
            launch.cwd.display(),
            handoff::agent_name(doc.target),
            handoff::agent_name(doc.source),
            doc.session_id
        )
    };
    let _ = writeln!(text, "handoff: {} of {} characters", doc.chars, doc.budget);
    Envelope::ok(
        json!({
            "terminal": launch.terminal,
            "argv": launch.argv.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>(),
            "cwd": launch.cwd,
            "prompt_file": planned.prompt_file,
            "launched": !dry_run,
            "source": doc.source,
            "target": doc.target,
            "session_id": doc.session_id,
            "budget": doc.budget,
            "chars": doc.chars,
            "shown": doc.shown,
        }),
        text,
    )
}
