//! What both agents' trash plans share (`capability::trash`): a session is files, moved to
//! the OS trash; each agent's `trash.rs` says which files.

use std::path::PathBuf;

use crate::capability::trash::{Ask, Item, Planned, Step};

/// The plan that moves `paths` (those that exist) to the OS trash, with its note.
pub(crate) fn to_os_trash(paths: Vec<PathBuf>, ctx: &Ask, label: &str) -> Planned {
    let items: Vec<Item> = paths.iter().filter_map(|p| Item::at(p)).collect();
    let mut notes =
        vec!["everything listed goes to the trash, from where it can be restored".to_owned()];
    if ctx.include != Some(true) && !ctx.children.is_empty() {
        notes.push(format!(
            "its {} subagent session(s) stay; {label} lists them no longer without it",
            ctx.children.len()
        ));
    }
    (vec![Step::OsTrash { items }], notes)
}
