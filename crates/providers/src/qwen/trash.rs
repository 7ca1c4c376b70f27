//! Qwen Code's sessions for the trash engine (`capability::trash`): a session is its file
//! `projects/<folder>/chats/<id>.jsonl` (before 0.5 `tmp/<hash>/chats/session-*.json`) and
//! its subagents `projects/<folder>/subagents/<id>/` (each `agent-*.jsonl` with its
//! `.meta.json`); they go to the OS trash.

use crate::capability::trash::{Ask, Planned, Refusal, Trash};
use crate::capability::Capability;
use crate::files;

pub(super) const TRASH: Trash = Trash {
    trash: Capability::Has(plan),
    permanent: Capability::Lacks(
        "Qwen Code sessions are only moved to the trash here, never deleted outright; move it \
         to the trash, then empty the trash",
    ),
    own_commands: false,
    archive_rows: None,
    delete_rows: None,
};

fn plan(ctx: &Ask) -> Result<Planned, Refusal> {
    let s = ctx.session;
    let mut paths = vec![s.source_path.clone()];
    if s.parent_id.is_some() {
        paths.push(s.source_path.with_extension("meta.json"));
    } else if ctx.include == Some(true) {
        let project = s.source_path.parent().and_then(|c| c.parent());
        paths.extend(project.and_then(|p| files::child(&p.join("subagents"), &s.id)));
    }
    Ok(crate::genai::trash::to_os_trash(
        paths,
        ctx,
        super::AGENT.label,
    ))
}
