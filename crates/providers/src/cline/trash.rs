//! Cline's sessions for the trash engine (`capability::trash`): a 3.x session is its folder
//! `sessions/<id>/` (its metadata, messages and its subagents' messages) and its rows in
//! `db/sessions.db`, a subagent its own `agent_<…>.messages.json` and its row; a 2.x task is
//! its folder `tasks/<id>/` and its entry in `state/taskHistory.json` ([`super::index`]). The
//! files go to the OS trash first; the index entry goes last, in one transaction or one
//! rename, so a failure there puts the files back and leaves the session whole. A folder put
//! back from the OS trash is listed by Cline 3.x again (it lists a session from its
//! `<id>.json` when it has no row); a 2.x task needs its entry back, which a bundle restore
//! writes.
//!
//! Cline's own `cline history delete` (3.x) deletes for good, with the session's checkpoints
//! in the project's git repository: it is not a trash, and a permanent deletion is not
//! offered yet.

use std::path::{Path, PathBuf};

use super::index;
use crate::capability::trash::{child, Ask, Item, Planned, Refusal, Step, Trash};
use crate::capability::Capability;

pub(super) const TRASH: Trash = Trash {
    trash: Capability::Has(plan),
    permanent: Capability::Lacks(
        "Cline deletes a session for good only with its own `cline history delete`, which \
         also removes the session's checkpoints from the project's repository; move it to \
         the trash, then empty the trash",
    ),
    own_commands: false,
    archive_rows: None,
    delete_rows: Some(index::delete),
};

fn plan(ctx: &Ask) -> Result<Planned, Refusal> {
    let s = ctx.session;
    let folder = s.source_path.parent();
    let kind = folder
        .and_then(|f| f.parent())
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str());
    let mut notes =
        vec!["everything listed goes to the trash, from where it can be restored".to_owned()];
    let path = match (kind, &s.parent_id) {
        // A subagent: its messages file alone.
        (Some("sessions"), Some(_)) => Some(s.source_path.clone()),
        (Some("sessions"), None) => {
            if ctx.include == Some(false) && !ctx.children.is_empty() {
                return Err(Refusal::SubagentsGoAlong(format!(
                    "a Cline session's subagents are files in its own folder; the session {} \
                     has {}, so they can only go along",
                    s.id,
                    ctx.children.len()
                )));
            }
            folder
                .and_then(|f| f.parent())
                .and_then(|p| child(p, &s.id))
        }
        (Some("tasks"), _) => folder
            .and_then(|f| f.parent())
            .and_then(|p| child(p, &s.id)),
        _ => None,
    };
    let Some(path) = path.filter(|p| p.starts_with(ctx.root)) else {
        return Err(Refusal::Stale(format!(
            "the Cline session {} is not where it was listed ({})",
            s.id,
            s.source_path.display()
        )));
    };
    let items: Vec<Item> = Item::at(&path).into_iter().collect();
    let mut steps = vec![Step::OsTrash { items }];
    // `<data>/sessions/<id>` or `<data>/tasks/<id>`: the index is in `<data>`.
    let data = folder.and_then(Path::parent).and_then(Path::parent);
    if let Some(step) = data
        .map(|d| index_step(ctx, d, kind))
        .transpose()?
        .flatten()
    {
        notes.push("its entry in Cline's index goes too, so Cline no longer lists it".to_owned());
        steps.push(step);
    }
    Ok((steps, notes))
}

/// The removal of the sessions' entries from the index of the data folder `data`, when it
/// has any (a store whose index Cline has not made yet has none to remove).
fn index_step(ctx: &Ask, data: &Path, kind: Option<&str>) -> Result<Option<Step>, Refusal> {
    let ids: Vec<String> = ctx.going().iter().map(|g| g.id.clone()).collect();
    let (file, counted): (PathBuf, Result<Vec<(String, u64)>, String>) = match kind {
        Some("sessions") => {
            let db = index::sessions_db(data);
            let n = index::count_rows(&db, &ids).map_err(|e| e.to_string());
            (db, n.map(|n| vec![("sessions".to_owned(), n)]))
        }
        _ => {
            let history = index::history_path(data);
            let n = index::count_entries(&history, &ids);
            (history, n.map(|n| vec![(index::HISTORY.to_owned(), n)]))
        }
    };
    if std::fs::symlink_metadata(&file).is_err() {
        return Ok(None);
    }
    let rows = counted.map_err(|e| {
        Refusal::Unsupported(format!(
            "Cline's index {} cannot be read ({e}), so the session would stay listed there; \
             nothing was done",
            file.display()
        ))
    })?;
    if rows.iter().all(|(_, n)| *n == 0) {
        return Ok(None);
    }
    Ok(Some(Step::DeleteRows {
        db: file,
        ids,
        rows,
    }))
}
