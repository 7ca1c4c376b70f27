//! Gemini CLI's sessions for the trash engine (`capability::trash`): a session is its file
//! `tmp/<folder>/chats/session-*.json[l]`, its subagents' folder `chats/<id>/` and its spilled
//! tool outputs `tmp/<folder>/tool-outputs/session-<id>/`, and the same in the directory's
//! pre-0.29 folder Gemini copied them from (`copies.rs`); they go to the OS trash.
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
