//! `trash <id>` and `delete <id> --permanent`: a session out of its agent's store (the work is
//! `agent_sessions_core::actions::trash`; this is flags, the plan as text, and the question).
//! Without `--yes` the plan is shown and confirmed on a terminal; with `--json` or without a
//! terminal the plan is printed and nothing is done (exit 2), so a script must say `--yes`.

use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal, Write};

use agent_sessions_core::actions::trash::{
    self, Done, Mode, Plan, Request, Step, Tools, TrashError,
};
use agent_sessions_core::config::ConfigFile;
use agent_sessions_core::{Error, Roots};
use serde_json::json;

use crate::envelope::Envelope;
use crate::{progress, render};

#[derive(clap::Args)]
pub struct TrashArgs {
    #[command(flatten)]
    pub(crate) common: Common,
}

#[derive(clap::Args)]
pub struct DeleteArgs {
    /// Delete for good (required: without it nothing is deleted).
    #[arg(long, required = true)]
    permanent: bool,
    #[command(flatten)]
    pub(crate) common: Common,
}

#[derive(clap::Args)]
pub(crate) struct Common {
    /// The session id, an unambiguous prefix of it, or the path of its file (which names one of
    /// two files holding the same session).
    pub(crate) id: String,
    /// Do it without asking (needed with --json or without a terminal).
    #[arg(long)]
    pub(crate) yes: bool,
    /// The session's subagent sessions go too.
    #[arg(long, conflicts_with = "without_subagents")]
    with_subagents: bool,
    /// The session's subagent sessions stay.
    #[arg(long)]
    without_subagents: bool,
    /// Read the stores directly instead of through the cache.
    #[arg(long)]
    no_cache: bool,
}

impl Common {
    /// Whether the subagent sessions go too; none when not said.
    pub(crate) fn subagents(&self) -> Option<bool> {
        match (self.with_subagents, self.without_subagents) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

pub fn run_trash(
    roots: &Roots,
    args: TrashArgs,
    config: &ConfigFile,
    json: bool,
) -> Result<Envelope, Error> {
    run(roots, Mode::Trash, args.common, config, json)
}

pub fn run_delete(
    roots: &Roots,
    args: DeleteArgs,
    config: &ConfigFile,
    json: bool,
) -> Result<Envelope, Error> {
    debug_assert!(args.permanent);
    run(roots, Mode::Permanent, args.common, config, json)
}

fn run(
    roots: &Roots,
    mode: Mode,
    args: Common,
    config: &ConfigFile,
    json: bool,
) -> Result<Envelope, Error> {
    let settings = config.settings().actions;
    let mut lib = crate::open(roots, &[], !args.no_cache);
    let report = progress::run("scanning", |p| lib.sessions(p))?;
    let session = lib.catalog().find(&report.sessions, &args.id)?.clone();
    let request = Request {
        mode,
        subagents: args.subagents(),
    };
    let tools = Tools::from_path();
    let shown = trash::plan(
        lib.catalog(),
        &report.sessions,
        &session,
        request,
        &settings,
        &tools,
    )?;
    if let Some(refused) = consent(&shown, args.yes, json) {
        return Ok(refused);
    }
    // The answer may come long after the question, and the store may have changed meanwhile:
    // planned again on a fresh listing, it runs only when it is the plan shown (as the app's
    // and a remote's trash do), and the checks run again on the sessions as they are now.
    let now = progress::run("scanning", |p| lib.sessions(p))?;
    let again = now.sessions.iter().find(|s| {
        s.provider == session.provider && s.id == session.id && s.source_path == session.source_path
    });
    let plan = match again {
        Some(s) => trash::plan(lib.catalog(), &now.sessions, s, request, &settings, &tools)?,
        None => {
            return Err(TrashError::Stale(format!("{} is no longer listed", session.id)).into())
        }
    };
    if !plan.is_shown_as(&shown) {
        return Err(TrashError::Stale("what it would do now is not what was shown".into()).into());
    }
    let done = trash::execute(lib.catalog(), &now.sessions, &plan, &settings)?;
    let mut out = done_envelope(&plan, &done);
    if let Err(e) = lib.forget(&plan.keys()) {
        out.warn(&[format!(
            "the cache still lists the session until the next scan: {e}"
        )]);
    }
    out.warn(lib.warnings());
    Ok(out)
}

/// What `trash`/`delete` print once the plan ran (here or on a remote).
pub(crate) fn done_envelope(plan: &Plan, done: &Done) -> Envelope {
    Envelope::ok(
        json!({ "plan": plan, "done": done }),
        done_text(plan, &done.output),
    )
}

/// Shows the plan and asks, unless `yes`; the envelope to print instead of acting when the
/// plan cannot run yet (subagents undecided) or was not confirmed (with `--json` or without a
/// terminal, `--yes` is required).
pub(crate) fn consent(plan: &Plan, yes: bool, json: bool) -> Option<Envelope> {
    let shown = plan_text(plan);
    let planned = |text: String| Envelope::ok(json!({ "plan": plan, "done": null }), text);
    // Without --json the plan goes to standard error whenever it is not acted on.
    let show = |text: &str| {
        if !json {
            eprint!("{}", render::terminal_safe(text));
        }
    };
    if plan.needs_decision() {
        show(&shown);
        return Some(planned(shown.clone()).fail_with(
            "subagents_undecided",
            format!(
                "{} has {} subagent session(s): add --with-subagents or --without-subagents",
                plan.session.id,
                plan.subagents.len()
            ),
        ));
    }
    if yes {
        return None;
    }
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if json || !terminal {
        show(&shown);
        return Some(planned(shown).fail_with(
            "confirmation_needed",
            "nothing was done: run again with --yes to do what the plan says".into(),
        ));
    }
    if !confirm(&shown, plan.mode) {
        return Some(
            planned(String::new()).fail_with("cancelled", "cancelled; nothing was changed".into()),
        );
    }
    None
}

/// Shows the plan and asks on the terminal; true only for an explicit yes.
fn confirm(plan: &str, mode: Mode) -> bool {
    let question = match mode {
        Mode::Trash => "Do this? [y/N] ",
        Mode::Permanent => "This cannot be undone. Delete for good? [y/N] ",
    };
    let mut err = std::io::stderr();
    let _ = write!(err, "{}{question}", render::terminal_safe(plan));
    let _ = err.flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1 << 20 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / (1 << 20) as f64),
    }
}

/// The plan for people: the session, each step, the subagents, the notes.
fn plan_text(plan: &Plan) -> String {
    let s = &plan.session;
    let verb = match plan.mode {
        Mode::Trash => "trash",
        Mode::Permanent => "delete permanently",
    };
    let mut t = format!(
        "{verb}: {} session {} {}\n",
        s.provider,
        s.id,
        s.title
            .as_deref()
            .map(|t| format!("({t})"))
            .unwrap_or_default()
    );
    for step in &plan.steps {
        match step {
            Step::OsTrash { items } => {
                for i in items {
                    let what = if i.dir {
                        format!("{}/ (folder, {} files", i.path.display(), i.files)
                    } else {
                        format!("{} (", i.path.display())
                    };
                    let _ = writeln!(t, "  to the trash: {what}{})", size_paren(i.bytes, i.dir));
                }
            }
            Step::Agent { argv, env, .. } => {
                let vars: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let _ = writeln!(t, "  run: {}  [{}]", argv.join(" "), vars.join(" "));
            }
            Step::Archive { moves, db } => {
                for m in moves {
                    let _ = writeln!(t, "  move: {} -> {}", m.from.display(), m.to.display());
                }
                if let Some(db) = db {
                    let _ = writeln!(t, "  mark archived in: {}", db.display());
                }
            }
            Step::Cut(c) => {
                let _ = writeln!(
                    t,
                    "  cut out of {}: bytes {}..{} ({})",
                    c.file.display(),
                    c.start,
                    c.end,
                    size(c.end - c.start)
                );
                if let Some(keep) = &c.keep_as {
                    let _ = writeln!(t, "  to the trash, as: {}", keep.display());
                }
            }
            Step::DeleteRows { db, rows, .. } => {
                let rows: Vec<String> = rows.iter().map(|(t, n)| format!("{t} {n}")).collect();
                let _ = writeln!(
                    t,
                    "  delete rows from {}: {}",
                    db.display(),
                    rows.join(", ")
                );
            }
        }
    }
    if !plan.subagents.is_empty() {
        let fate = match plan.include_subagents {
            Some(true) => "they go too",
            Some(false) => "they stay",
            None => "not decided",
        };
        let _ = writeln!(t, "subagent sessions ({}): {fate}", plan.subagents.len());
        for c in &plan.subagents {
            let _ = writeln!(
                t,
                "  {} {}",
                c.id,
                c.title
                    .as_deref()
                    .map(|t| format!("({t})"))
                    .unwrap_or_default()
            );
        }
    }
    for n in &plan.notes {
        let _ = writeln!(t, "note: {n}");
    }
    t
}

fn size_paren(bytes: u64, dir: bool) -> String {
    if dir {
        format!(", {}", size(bytes))
    } else {
        size(bytes)
    }
}

fn done_text(plan: &Plan, output: &[String]) -> String {
    let verb = match plan.mode {
        Mode::Trash => "trashed",
        Mode::Permanent => "deleted",
    };
    let mut t = String::new();
    for target in plan.targets() {
        let _ = writeln!(t, "{verb} {} session {}", target.provider, target.id);
    }
    for o in output.iter().filter(|o| !o.is_empty()) {
        let _ = writeln!(t, "  {o}");
    }
    t
}
