//! Codex's sessions for the trash engine (`capability::trash`): its own commands where the
//! installed version has them (`codex archive`, `codex delete`: 0.140.0 and later; 0.110.0 has
//! neither), else, for the trash, the archive Codex itself makes: the rollout renamed from
//! `sessions/YYYY/MM/DD/` into `archived_sessions/`, and its `threads` row in the state DB set
//! `archived = 1`, `archived_at`, and pointed at the new path, in one transaction. Codex
//! archives and deletes a thread's subagent threads with it, so they always go along. An
//! archived thread is restored with `codex unarchive`.

use std::path::{Path, PathBuf};

use agent_sessions_model::SessionMeta;
use rusqlite::params;

use super::statedb;
use crate::capability::trash::{ArchiveRows, Ask, Mode, Move, Planned, Refusal, Step, Trash};
use crate::capability::Capability;
use crate::sqlite;

/// Codex's answer: archive (its command, or its archive made here) and its delete command.
pub(super) const TRASH: Trash = Trash {
    trash: Capability::Has(plan),
    permanent: Capability::Has(plan),
    own_commands: true,
    archive_rows: Some(ArchiveRows {
        mark: mark_archived,
        db: "the Codex state DB",
    }),
    delete_rows: None,
};

fn plan(ctx: &Ask) -> Result<Planned, Refusal> {
    let s = ctx.session;
    if ctx.include == Some(false) && !ctx.children.is_empty() {
        return Err(Refusal::SubagentsGoAlong(format!(
            "Codex archives and deletes a session's subagent sessions with it; the session {} has {}, so they can only go along",
            s.id,
            ctx.children.len()
        )));
    }
    // Codex (and its state DB) name a session by id alone: with another file of this store
    // holding the same session, what it archived or deleted could be the other file.
    if let Some(twin) = ctx.twin.filter(|t| t.starts_with(ctx.root)) {
        return Err(Refusal::Unsupported(format!(
            "{} holds the Codex session {} too, and Codex acts on a session by its id alone, so \
             it cannot be told which file to archive or delete; move one of the two files out \
             of {} first",
            twin.display(),
            s.id,
            ctx.root.display()
        )));
    }
    // Codex takes a name where the id is not a UUID: the engine passes only ids of its shape.
    let going = ctx.going();
    let removes: Vec<PathBuf> = going.iter().map(|g| g.source_path.clone()).collect();
    let env = vec![(
        super::AGENT.env_var.to_owned(),
        ctx.root.to_string_lossy().into_owned(),
    )];
    let commands = commands(ctx, &env);
    let has = |name: &str| {
        commands
            .as_ref()
            .ok()
            .filter(|(_, c)| c.iter().any(|c| c == name))
            .map(|(p, _)| p.to_string_lossy().into_owned())
    };
    match ctx.mode {
        Mode::Trash => {
            if s.archived {
                return Err(Refusal::Unsupported(format!(
                    "the Codex session {} is archived already; deleting it for good is the permanent deletion",
                    s.id
                )));
            }
            let mut notes = vec![format!(
                "the session is archived the way Codex archives it; codex unarchive {} brings it back",
                s.id
            )];
            // A Codex that is there but could not be asked (it hung, it failed): say why its own
            // command is not used.
            if let (Some(_), Err(why)) = (ctx.program, &commands) {
                notes.push(format!("{why}; so the archive is made here, without Codex"));
            }
            if let Some(program) = has("archive") {
                let step = Step::Agent {
                    argv: vec![program, "archive".into(), s.id.clone()],
                    env,
                    effect: "archive the session with Codex".into(),
                    removes,
                };
                return Ok((vec![step], notes));
            }
            Ok((vec![own_archive(ctx.root, &going)?], notes))
        }
        Mode::Permanent => {
            let Some(program) = has("delete") else {
                let reason = match commands {
                    Err(why) => why,
                    Ok((p, _)) => format!(
                        "the one at {} has no delete command (Codex 0.140.0 and later have it)",
                        p.display()
                    ),
                };
                return Err(Refusal::AgentMissing {
                    agent: "Codex's own delete command",
                    reason,
                });
            };
            let step = Step::Agent {
                argv: vec![program, "delete".into(), "--force".into(), s.id.clone()],
                env,
                effect: "delete the session with Codex".into(),
                removes,
            };
            let notes = vec!["Codex deletes the session for good: it cannot be restored".into()];
            Ok((vec![step], notes))
        }
    }
}

/// The subcommands of the Codex found ([`Ask::program`]), or why it is not asked. The plan
/// names the store to Codex by `CODEX_HOME` and Codex by `argv[0]`, both strings: a folder
/// whose name is not UTF-8 would be named lossily, which is another folder (Codex would act on
/// a store that is not there, or start a new one), so such a Codex is not used.
fn commands<'a>(
    ctx: &Ask<'a>,
    env: &[(String, String)],
) -> Result<(&'a Path, Vec<String>), String> {
    let program = ctx.program.ok_or("it is not on PATH")?;
    for (what, path) in [("the store", ctx.root), ("Codex", program)] {
        if path.to_str().is_none() {
            return Err(format!(
                "{what} is at {}, a name that is not UTF-8, which cannot be passed on to Codex",
                path.display()
            ));
        }
    }
    (ctx.subcommands)(program, env).map(|c| (program, c))
}

/// The archive Codex makes, for a Codex without the command: each rollout into
/// `archived_sessions/` (its file name kept), and the state DB's rows, if it has them.
fn own_archive(root: &Path, going: &[&SessionMeta]) -> Result<Step, Refusal> {
    let archive = root.join("archived_sessions");
    let mut moves = Vec::new();
    for g in going {
        let Some(name) = g.source_path.file_name() else {
            continue;
        };
        if g.archived || !g.source_path.starts_with(root.join("sessions")) {
            continue;
        }
        let to = archive.join(name);
        if std::fs::symlink_metadata(&to).is_ok() {
            return Err(Refusal::Unsupported(format!(
                "{} exists already, so {} cannot be archived beside it",
                to.display(),
                g.id
            )));
        }
        moves.push(Move {
            id: g.id.clone(),
            from: g.source_path.clone(),
            to,
        });
    }
    if moves.is_empty() {
        return Err(Refusal::Unsupported(
            "none of these sessions is in sessions/, so there is nothing to archive".into(),
        ));
    }
    let ids: Vec<String> = moves.iter().map(|m| m.id.clone()).collect();
    let db = statedb::find(root).filter(|db| lists_any(db, &ids));
    Ok(Step::Archive { moves, db })
}

/// Whether the state DB has a `threads` row for any of `ids` (read without writing anything).
fn lists_any(db: &Path, ids: &[String]) -> bool {
    let Ok(conn) = sqlite::open_read_only(db) else {
        return false;
    };
    ids.iter().any(|id| {
        conn.query_row("SELECT 1 FROM threads WHERE id = ?1", [id], |_| Ok(()))
            .is_ok()
    })
}

/// What Codex's own archive writes in the row (columns it lacks in older versions are skipped).
fn mark_archived(
    tx: &rusqlite::Transaction<'_>,
    id: &str,
    to: &Path,
    now: chrono::DateTime<chrono::Utc>,
) -> rusqlite::Result<()> {
    let has = |col: &str| -> rusqlite::Result<bool> {
        let n: i64 = tx.query_row(
            "SELECT count(*) FROM pragma_table_info('threads') WHERE name = ?1",
            [col],
            |r| r.get(0),
        )?;
        Ok(n > 0)
    };
    tx.execute(
        "UPDATE threads SET rollout_path = ?1, archived = 1 WHERE id = ?2",
        params![to.to_string_lossy(), id],
    )?;
    for (col, value) in [
        ("archived_at", now.timestamp()),
        ("updated_at", now.timestamp()),
        ("updated_at_ms", now.timestamp_millis()),
    ] {
        if has(col)? {
            tx.execute(
                &format!("UPDATE threads SET {col} = ?1 WHERE id = ?2"),
                params![value, id],
            )?;
        }
    }
    Ok(())
}
