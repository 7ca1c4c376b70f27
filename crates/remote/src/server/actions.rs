//! The actions that change or read a store on the server's side: `trash` (and permanent
//! deletion) with the core's own plan and execution, and `handoff`, the handoff document
//! built there. The opt-ins are the server's: `[actions]` of its `config.toml`, read on each
//! call, as the CLI and the app read them. Consent is the client's: a `trash` without `plan`
//! only plans; with the plan the user confirmed it runs only when planning again gives that
//! very plan (else `stale_plan`), so exactly what was shown is what runs. `handoff_prepare`
//! writes the handoff's prompt file there, as a local Continue in… does, for the app to start
//! the agent there over `ssh -t`. `terminal_ready` checks, before a terminal here opens into
//! the host, what a local Open terminal / Resume in terminal checks before it opens.

use agent_sessions_core::actions::handoff::{self, Budget};
use std::path::Path;

use agent_sessions_core::actions::locate::find_agent;
use agent_sessions_core::actions::resume::{ResumeCommand, ShellCommand};
use agent_sessions_core::actions::terminal::{self, Host, Os, TerminalError};
use agent_sessions_core::actions::trash::{self, Mode, Request, Tools, TrashError};
use agent_sessions_core::config::ConfigFile;
use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::paths::process_env;
use agent_sessions_core::{Catalog, Error as CoreError, ProviderKind, SessionMeta};
use serde_json::{json, Value};

use super::dispatch::{find_listed, resume_json};
use super::listing::listing;
use super::State;
use crate::protocol::{HandoffParams, Open, TrashParams};

pub(super) fn trash(state: &State, p: TrashParams) -> Result<Value, CoreError> {
    let settings = ConfigFile::load_default(&process_env).settings().actions;
    let (catalog, sessions, session) = find_listed(state, &p.session)?;
    let request = Request {
        mode: if p.permanent {
            Mode::Permanent
        } else {
            Mode::Trash
        },
        subagents: p.subagents,
    };
    let tools = Tools::from_path();
    let plan = trash::plan(&catalog, &sessions, &session, request, &settings, &tools)?;
    let Some(shown) = p.plan else {
        return Ok(json!({ "plan": plan, "done": null }));
    };
    // The client's plan is read from JSON: a name that is not UTF-8 in it is lossy.
    if !plan.is_shown_as(&shown) {
        let why =
            "the session changed since its plan was shown; nothing was done: show the plan again";
        return Err(TrashError::Stale(why.into()).into());
    }
    // A refreshed listing: the checks run again on the sessions as they are now.
    let now = listing(state, &[], true)?.report;
    let done = trash::execute(&catalog, &now.sessions, &plan, &settings)?;
    let mut warnings = Vec::new();
    let service = state.service();
    if let Err(e) = service.library().forget(&plan.keys()) {
        warnings.push(format!(
            "the cache still lists the session until the next scan: {e}"
        ));
    }
    let gone: Vec<(ProviderKind, String)> = plan
        .targets()
        .iter()
        .map(|t| (t.provider, t.id.clone()))
        .collect();
    service.forget_listed(&gone);
    service.wake();
    Ok(json!({ "plan": plan, "done": done, "warnings": warnings }))
}

pub(super) fn handoff(state: &State, p: HandoffParams) -> Result<Value, CoreError> {
    let budget = budget_of(p.budget)?;
    let (catalog, _, session) = find_listed(state, &p.session)?;
    let doc = handoff::from_store(&catalog, &session, p.to, budget)?;
    Ok(json!(doc))
}

/// The handoff's prompt file written in `handoff/` of the server's cache (new, 0600, in a 0700
/// folder, as a local launch writes it), and the agent's command that reads it, found on the
/// server's `PATH` (core's `handoff::prepare`). Only for a Unix server: the command is run by
/// the user's login shell there.
pub(super) fn handoff_prepare(state: &State, p: HandoffParams) -> Result<Value, CoreError> {
    let host = Host::this();
    if host.os == Os::Windows {
        return Err(CoreError::resume_unavailable(
            "starting an agent on a Windows host is not supported; copy the handoff and paste it into an agent started there",
        ));
    }
    let budget = budget_of(p.budget)?;
    let prompts = state
        .cache_dir(true)
        .or_else(default_cache_dir)
        .map(|d| d.join("handoff"))
        .ok_or_else(|| {
            CoreError::resume_unavailable("the host has no cache folder for the prompt file")
        })?;
    let (catalog, _, session) = find_listed(state, &p.session)?;
    let prepared = handoff::prepare(&session, p.to, &host, &prompts, || {
        Ok(handoff::from_store(&catalog, &session, p.to, budget)?.markdown)
    })?;
    Ok(json!(prepared))
}

/// What a terminal opened into the session's directory there runs, checked in the order of a
/// local launch (core's `plan_session`): the session names a directory, (to resume) it has a
/// resume command, the directory is there, and its agent is installed. Opening a terminal
/// that only fails (`cd: no such file or directory`, `claude: not found`) left the user a
/// window that flashed, or at best an error in it; a local one is refused with the reason.
pub(super) fn terminal_ready(
    catalog: &Catalog,
    session: &SessionMeta,
    open: Open,
) -> Result<Value, CoreError> {
    let dir = session
        .cwd
        .as_deref()
        .filter(|d| !d.is_empty())
        .ok_or(TerminalError::NoDirectory)?;
    let command = match open {
        Open::Resume => Some(catalog.resume_command(session)?),
        Open::Shell => None,
    };
    terminal::check_dir(Path::new(dir))?;
    Ok(match command {
        None => json!({ "cwd": dir }),
        Some(command) => resume_json(Ok(&installed(command, &Host::this())?)),
    })
}

/// `command` with its program as the terminal's shell there finds it: as it is when it is on
/// the host's `PATH` (that shell and this server get the same one from the login), else the
/// path where its installer put it; `agent_not_found` when it is in neither.
fn installed(command: ResumeCommand, host: &Host) -> Result<ResumeCommand, CoreError> {
    let program = command.program();
    if host.which(program).is_some() {
        return Ok(command);
    }
    let found = find_agent(host, program).ok_or_else(|| TerminalError::AgentNotFound {
        program: program.to_owned(),
        copy: command.posix(),
    })?;
    let found = found.to_str().ok_or_else(|| {
        CoreError::resume_unavailable("the agent's path there is not valid UTF-8")
    })?;
    let args: Vec<&str> = command.args().iter().map(String::as_str).collect();
    Ok(ResumeCommand::new(found, &args, command.cwd())?)
}

fn budget_of(chars: Option<usize>) -> Result<Budget, CoreError> {
    Ok(match chars {
        None => Budget::default(),
        Some(n) => Budget::new(n).ok_or_else(|| {
            CoreError::BadQuery(format!(
                "a budget of {n} characters is outside {} to {}",
                handoff::MIN_BUDGET,
                handoff::MAX_BUDGET
            ))
        })?,
    })
}
