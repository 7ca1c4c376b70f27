//! Trash and permanent deletion (`agent_sessions_core::actions::trash`, docs/trash.md): the
//! plan the dialog shows, then exactly that plan run. The shell keeps the plan it showed; the
//! run plans again and refuses when anything differs (the store changed meanwhile), so what
//! the user confirmed is what happens. The opt-ins are read from `config.toml` as it is now.
//! Errors keep core's own codes (`delete_disabled`, `session_live`, … `trash_failed`).

use std::sync::Mutex;

use agent_sessions_core::actions::trash::{self, Done, Mode, Plan, Request, Tools};
use agent_sessions_core::config::{ActionSettings, ConfigFile};
use agent_sessions_core::model::path::names;
use agent_sessions_core::paths::process_env;
use agent_sessions_core::{Error, ScanProgress};
use tauri::AppHandle;

use super::{off_main, CmdError, CmdResult, ErrorCode, SessionRef};
use crate::state::AppState;

/// The plan last shown, which is the only one that can run.
static SHOWN: Mutex<Option<Plan>> = Mutex::new(None);

fn actions() -> ActionSettings {
    ConfigFile::load_default(&process_env).settings().actions
}

fn request(permanent: bool, subagents: Option<bool>) -> Request {
    Request {
        mode: if permanent {
            Mode::Permanent
        } else {
            Mode::Trash
        },
        subagents,
    }
}

/// Core's trash codes cross as they are; other errors as every command reports them.
fn cmd_error(e: Error) -> CmdError {
    match &e {
        Error::Trash(t) => {
            let code = ErrorCode::of(t.code());
            CmdError {
                code,
                ..CmdError::from(e)
            }
        }
        _ => CmdError::from(e),
    }
}

/// The plan for `session` in the state the stores are now.
fn plan_now(state: &AppState, session: &SessionRef, request: Request) -> CmdResult<Plan> {
    let meta = state.resolve(session)?;
    let lib = state.service.library();
    let listed = lib.listed(&ScanProgress::default())?;
    trash::plan(
        lib.catalog(),
        &listed.sessions,
        &meta,
        request,
        &actions(),
        &Tools::from_path(),
    )
    .map_err(cmd_error)
}

/// Whether `plan` (the one last shown) is for `session` as the webview names it, and `mode`.
/// The webview's path is read from JSON: a name that is not UTF-8 comes back lossily, and
/// names the plan's file when it reads as it does.
fn is_plan_of(plan: &Plan, session: &SessionRef, mode: Mode) -> bool {
    plan.session.provider == session.provider
        && plan.session.id == session.id
        && session
            .source_path
            .as_ref()
            .is_none_or(|at| names(&plan.session.source_path, at))
        && plan.mode == mode
}

/// What trashing (or, `permanent`, deleting) `session` would do; `subagents` says whether its
/// subagent sessions go too (null: not decided, and the plan lists them).
#[tauri::command]
pub async fn trash_plan(
    app: AppHandle,
    session: SessionRef,
    permanent: bool,
    subagents: Option<bool>,
) -> CmdResult<Plan> {
    off_main(app, move |state| {
        *SHOWN.lock()? = None;
        let plan = match state.remote.current() {
            // Planned there, with the host's own opt-ins.
            Some(host) => host.trash(&session, permanent, subagents, None)?.plan,
            None => plan_now(state, &session, request(permanent, subagents))?,
        };
        *SHOWN.lock()? = Some(plan.clone());
        Ok(plan)
    })
    .await
}

/// Runs the plan last shown for this request, if the stores still give the same plan; then the
/// cache and the app's listing drop the sessions, and the worker rescans.
#[tauri::command]
pub async fn trash_execute(
    app: AppHandle,
    session: SessionRef,
    permanent: bool,
    subagents: Option<bool>,
) -> CmdResult<Done> {
    off_main(app, move |state| {
        let request = request(permanent, subagents);
        let shown = SHOWN
            .lock()?
            .take()
            .filter(|p| is_plan_of(p, &session, request.mode));
        let shown = shown.ok_or_else(|| {
            CmdError::invalid_input("nothing was done: show what will be removed first")
        })?;
        if let Some(host) = state.remote.current() {
            // The host runs it only when planning again there gives the plan shown.
            let answer = host.trash(&session, permanent, subagents, Some(shown))?;
            return answer.done.ok_or_else(|| {
                CmdError::new(
                    ErrorCode::Protocol,
                    format!("{} planned instead of running", host.alias),
                )
            });
        }
        let now = plan_now(state, &session, request)?;
        if !now.is_shown_as(&shown) {
            return Err(cmd_error(
                trash::TrashError::Stale("what it would remove is not what was shown".into())
                    .into(),
            ));
        }
        let mut lib = state.service.library();
        let listed = lib.listed(&ScanProgress::default())?;
        let done =
            trash::execute(lib.catalog(), &listed.sessions, &now, &actions()).map_err(cmd_error)?;
        // Gone from the list at once, whatever the next refresh takes.
        let _ = lib.forget(&now.keys());
        drop(lib);
        let gone: Vec<_> = now
            .targets()
            .iter()
            .map(|t| (t.provider, t.id.clone()))
            .collect();
        state.service.forget_listed(&gone);
        state.service.wake();
        Ok(done)
    })
    .await
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use agent_sessions_core::actions::trash::Target;
    use agent_sessions_core::ProviderKind;
    use std::os::unix::ffi::OsStrExt;
    use std::path::PathBuf;

    /// The plan of a session whose file name is not UTF-8 is run when the webview names the
    /// session as the list showed it (lossily): before, the paths never compared equal and
    /// such a session could not be trashed from the app ("show what will be removed first").
    #[test]
    fn a_plan_is_found_by_the_path_the_list_showed() {
        let stored = PathBuf::from(std::ffi::OsStr::from_bytes(b"/s/-home-\xfe/a.jsonl"));
        let plan = Plan {
            mode: Mode::Trash,
            session: Target {
                provider: ProviderKind::Claude,
                id: "5fec8eab-4b33-416d-b6fa-02f90e2a8cfc".into(),
                title: None,
                source_path: stored.clone(),
                updated_at: None,
            },
            subagents: Vec::new(),
            include_subagents: Some(false),
            steps: Vec::new(),
            notes: Vec::new(),
        };
        let named = |source_path: Option<PathBuf>| SessionRef {
            provider: ProviderKind::Claude,
            id: plan.session.id.clone(),
            source_path,
        };
        let shown = PathBuf::from(stored.to_string_lossy().into_owned());
        assert!(is_plan_of(&plan, &named(Some(shown.clone())), Mode::Trash));
        assert!(is_plan_of(&plan, &named(Some(stored)), Mode::Trash));
        assert!(is_plan_of(&plan, &named(None), Mode::Trash));
        assert!(!is_plan_of(&plan, &named(Some(shown)), Mode::Permanent));
        let other = PathBuf::from(std::ffi::OsStr::from_bytes(b"/s/-home-\xff/a.jsonl"));
        assert!(!is_plan_of(&plan, &named(Some(other)), Mode::Trash));
    }
}
