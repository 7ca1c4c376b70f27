//! Cline's sessions for the trash engine (`capability::trash`): a 3.x session is its folder
//! `sessions/<id>/` (its metadata, messages and its subagents' messages), a subagent its own
//! `agent_<…>.messages.json`; a 2.x task is its folder `tasks/<id>/`. They go to the OS trash.
//! No command of Cline's is used: none that deletes a session by id was found in the
//! recorded versions' runs.

use crate::capability::trash::{child, Ask, Item, Planned, Refusal, Step, Trash};
use crate::capability::Capability;

pub(super) const TRASH: Trash = Trash {
    trash: Capability::Has(plan),
    permanent: Capability::Lacks(
        "Cline has no command that deletes a session, and its index would still name it; \
         move it to the trash, then empty the trash",
    ),
    own_commands: false,
    archive_rows: None,
    delete_rows: None,
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
            notes.push(
                "Cline's index (data/db/sessions.db) keeps its line for the session until \
                 Cline next tidies it"
                    .to_owned(),
            );
            folder
                .and_then(|f| f.parent())
                .and_then(|p| child(p, &s.id))
        }
        (Some("tasks"), _) => {
            notes.push(
                "state/taskHistory.json keeps the task's line: Cline shows it in its history \
                 without its messages"
                    .to_owned(),
            );
            folder
                .and_then(|f| f.parent())
                .and_then(|p| child(p, &s.id))
        }
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
    Ok((vec![Step::OsTrash { items }], notes))
}
