//! Gemini CLI's sessions for the trash engine (`capability::trash`): a session is its files
//! `tmp/<folder>/chats/session-*.json[l]` (every one of its id: `resumes.rs`), its subagents'
//! folder `chats/<id>/` and its spilled tool outputs `tmp/<folder>/tool-outputs/session-<id>/`,
//! and the same in the directory's pre-0.29 folder Gemini copied them from (`copies.rs`); they
//! go to the OS trash.
//! `gemini --delete-session` takes the index `--list-sessions` shows for the directory it runs
//! in, not an id, so it is not used: an index can point at another session by the time it runs.

use crate::capability::trash::{Ask, Planned, Refusal, Trash};
use crate::capability::Capability;
use crate::files;

pub(super) const TRASH: Trash = Trash {
    trash: Capability::Has(plan),
    permanent: Capability::Lacks(
        "Gemini CLI deletes a session only by its position in --list-sessions, which can \
         name another session by the time it runs; move it to the trash, then empty the trash",
    ),
    own_commands: false,
    archive_rows: None,
    delete_rows: None,
};

fn plan(ctx: &Ask) -> Result<Planned, Refusal> {
    let s = ctx.session;
    let mut paths = vec![s.source_path.clone()];
    let chats = s.source_path.parent();
    if s.parent_id.is_none() {
        // Its subagents' folder `chats/<id>/`, when they go along.
        if ctx.include == Some(true) {
            paths.extend(chats.and_then(|c| files::child(c, &s.id)));
        }
        let project = chats.and_then(|c| c.parent());
        let outputs = project
            .and_then(|p| files::child(&p.join("tool-outputs"), &format!("session-{}", s.id)));
        paths.extend(outputs);
        // The other files of its id (a resume's stub), which would be listed once it is gone.
        paths.extend(super::resumes::files_of(&s.source_path, &s.id));
    }
    // The copy Gemini left in the directory's pre-0.29 folder goes too (copies.rs).
    // `tmp/<folder>/chats/<file>`, a subagent's one folder deeper.
    let up = if s.parent_id.is_some() { 3 } else { 2 };
    if let Some(project) = s.source_path.ancestors().nth(up) {
        let hashed = super::copies::hashed_copies(project, &paths);
        paths.extend(hashed);
    }
    Ok(crate::genai::trash::to_os_trash(
        paths,
        ctx,
        super::AGENT.label,
    ))
}

/// For the tests: the paths the trash plan of `session` (in the store `root`) moves.
#[cfg(test)]
pub(super) fn trashed(
    root: &std::path::Path,
    session: &agent_sessions_model::SessionMeta,
) -> Vec<std::path::PathBuf> {
    use crate::capability::trash::{Mode, Step};
    let ask = Ask {
        root,
        session,
        twin: None,
        children: &[],
        include: None,
        mode: Mode::Trash,
        program: None,
        subcommands: &|_, _| Ok(Vec::new()),
    };
    let (steps, _) = plan(&ask).unwrap();
    let Step::OsTrash { items } = &steps[0] else {
        panic!("{steps:?}")
    };
    items.iter().map(|i| i.path.clone()).collect()
}
