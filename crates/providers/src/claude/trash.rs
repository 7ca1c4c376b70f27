//! Claude Code's sessions for the trash engine (`capability::trash`): a session is files, and
//! they go to the OS trash, never deleted. What belongs to a session only: its transcript
//! `projects/<dir>/<id>.jsonl`; the folder beside it `projects/<dir>/<id>/` (`tool-results/`,
//! `subagents/`, `custom-title.json`); and under the root `todos/<id>-agent-*.json`,
//! `file-history/<id>/`, `session-env/<id>/` and `debug/<id>.txt`. A 2.0.x subagent is a flat
//! `agent-<hex>.jsonl` beside the transcript; a 2.1.x one is in the folder, with its
//! `agent-<hex>.meta.json`. `history.jsonl` (every session's prompts in one file) is shared
//! and left alone.

use std::path::{Path, PathBuf};

use crate::capability::trash::{own_entries, Ask, Item, Planned, Refusal, Step, Trash};
use crate::capability::Capability;

/// Claude Code's answer: files to the OS trash; never a permanent deletion.
pub(super) const TRASH: Trash = Trash {
    trash: Capability::Has(plan),
    permanent: Capability::Lacks(
        "Claude Code sessions are only ever moved to the trash, never deleted outright; \
         move it to the trash, then empty the trash",
    ),
    own_commands: false,
    archive_rows: None,
    delete_rows: None,
};

fn plan(ctx: &Ask) -> Result<Planned, Refusal> {
    let s = ctx.session;
    let keep_subagents = ctx.include != Some(true);
    let mut paths: Vec<PathBuf> = vec![s.source_path.clone()];
    if s.id.starts_with("agent-") {
        // A subagent: its transcript and its meta file.
        paths.push(s.source_path.with_extension("meta.json"));
    } else {
        let side = s.source_path.with_extension("");
        let has_subagents = side.join("subagents").is_dir();
        if keep_subagents && has_subagents {
            // Everything in the folder but the subagents, which stay where they are.
            for e in own_entries(&side) {
                if e.file_name() != "subagents" {
                    paths.push(e.path());
                }
            }
        } else {
            paths.push(side);
        }
        if ctx.twin.is_none() {
            paths.extend(owned_by_root(ctx.root, &s.id, !keep_subagents));
        }
    }
    if !keep_subagents {
        // 2.0.x subagents lie flat beside the transcript (those in the folder went with it).
        let folder = s.source_path.with_extension("");
        for c in ctx.children {
            if !c.source_path.starts_with(&folder) {
                paths.push(c.source_path.clone());
                paths.push(c.source_path.with_extension("meta.json"));
            }
        }
    }
    let items: Vec<Item> = paths.iter().filter_map(|p| Item::at(p)).collect();
    let mut notes = vec![
        "everything listed goes to the trash, from where it can be restored".to_owned(),
        "history.jsonl, which holds every session's prompts, is left as it is".to_owned(),
    ];
    if let Some(twin) = ctx.twin {
        notes.push(format!(
            "{} holds this session too: its todo lists, file history, environment and debug \
             log (kept by id, not by file) are left for it",
            twin.display()
        ));
    }
    Ok((vec![Step::OsTrash { items }], notes))
}

/// What the root keeps for session `id`: its todo lists (its subagents' too when they go),
/// file-history snapshots, environment and debug log.
fn owned_by_root(root: &Path, id: &str, with_subagents: bool) -> Vec<PathBuf> {
    let mut out = vec![
        root.join("file-history").join(id),
        root.join("session-env").join(id),
        root.join("debug").join(format!("{id}.txt")),
    ];
    let own = format!("{id}-agent-{id}.json");
    let prefix = format!("{id}-agent-");
    for e in std::fs::read_dir(root.join("todos"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == own || (with_subagents && name.starts_with(&prefix) && name.ends_with(".json")) {
            out.push(e.path());
        }
    }
    out
}
