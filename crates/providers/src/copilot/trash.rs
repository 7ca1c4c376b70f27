//! GitHub Copilot CLI's sessions for the trash engine (`capability::trash`): a session is
//! files, and they go to the OS trash. An event-log session is its folder
//! `session-state/<id>/` (the log, `workspace.yaml`, checkpoints, the file backups taken
//! before edits) and its lock `session-state/.session-operation-locks/<id>.lock`; a flat 0.0.3xx
//! log is its `session-state/<id>.jsonl`; a ≤ 0.0.341 session its
//! `history-session-state/session_<id>_<ms>.json`. Its subagents live in its own log, so they
//! always go with it. `session-store.db` (the CLI's index of every session, rebuilt from the
//! logs) is shared and left alone.

use crate::capability::trash::{child, Ask, Item, Planned, Refusal, Step, Trash};
use crate::capability::Capability;

/// Copilot CLI's answer: files to the OS trash; it has no command that deletes a session.
pub(super) const TRASH: Trash = Trash {
    trash: Capability::Has(plan),
    permanent: Capability::Lacks(
        "GitHub Copilot CLI sessions are only ever moved to the trash, never deleted outright \
         (the CLI has no command that deletes one); move it to the trash, then empty the trash",
    ),
    own_commands: false,
    archive_rows: None,
    delete_rows: None,
};

fn plan(ctx: &Ask) -> Result<Planned, Refusal> {
    let s = ctx.session;
    let log = &s.source_path;
    let mut paths = Vec::new();
    if log.file_name().is_some_and(|n| n == super::EVENTS) {
        let folder = log.parent().ok_or_else(|| stale(ctx))?;
        paths.push(folder.to_path_buf());
        let locks = ctx
            .root
            .join(super::SESSION_STATE)
            .join(".session-operation-locks");
        paths.extend(child(&locks, &format!("{}.lock", s.id)));
    } else {
        paths.push(log.clone());
    }
    let items: Vec<Item> = paths.iter().filter_map(|p| Item::at(p)).collect();
    if items.is_empty() {
        return Err(stale(ctx));
    }
    let notes = vec![
        "everything listed goes to the trash, from where it can be restored".to_owned(),
        "session-store.db, the CLI's index of every session, is left as it is".to_owned(),
    ];
    Ok((vec![Step::OsTrash { items }], notes))
}

fn stale(ctx: &Ask) -> Refusal {
    Refusal::Stale(format!(
        "{} is no longer there; list the sessions again",
        ctx.session.source_path.display()
    ))
}
