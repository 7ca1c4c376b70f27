//! Codex: its own commands where the installed version has them (`codex archive`, `codex
//! delete`: 0.140.0 and later; 0.110.0 has neither), else, for the trash, the archive Codex
//! itself makes: the rollout renamed from `sessions/YYYY/MM/DD/` into `archived_sessions/`,
//! and its `threads` row in the state DB set `archived = 1`, `archived_at`, and pointed at the
//! new path, in one transaction. Codex archives and deletes a thread's subagent threads with
//! it, so they always go along. An archived thread is restored with `codex unarchive`.

use rusqlite::{params, TransactionBehavior};
use std::path::{Path, PathBuf};

use super::{agent, open_for_writing, Context, Mode, Move, Step, StepFailed, TrashError};
use crate::provider::codex::statedb;
use crate::provider::sqlite;

pub(super) fn plan(ctx: &Context) -> Result<(Vec<Step>, Vec<String>), TrashError> {
    let s = ctx.session;
    if ctx.include == Some(false) && !ctx.children.is_empty() {
        return Err(TrashError::SubagentsGoAlong(format!(
            "Codex archives and deletes a session's subagent sessions with it; the session {} has {}, so they can only go along",
            s.id,
            ctx.children.len()
        )));
    }
    // Codex (and its state DB) name a session by id alone: with another file of this store
    // holding the same session, what it archived or deleted could be the other file.
    if let Some(twin) = ctx.twin.filter(|t| t.starts_with(ctx.root)) {
        return Err(TrashError::Unsupported(format!(
            "{} holds the Codex session {} too, and Codex acts on a session by its id alone, so \
             it cannot be told which file to archive or delete; move one of the two files out \
             of {} first",
            twin.display(),
            s.id,
            ctx.root.display()
        )));
    }
    // Codex takes a name where the id is not a UUID: `plan` passes only ids of its own shape.
    let going = ctx.going();
    let removes: Vec<PathBuf> = going.iter().map(|g| g.source_path.clone()).collect();
    let env = vec![(
        "CODEX_HOME".to_owned(),
        ctx.root.to_string_lossy().into_owned(),
    )];
    let commands = match &ctx.tools.codex {
        Some(program) => agent::subcommands(program, &env).map(|c| (program, c)),
        None => Err("it is not on PATH".to_owned()),
    };
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
                return Err(TrashError::Unsupported(format!(
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
            if let (Some(_), Err(why)) = (&ctx.tools.codex, &commands) {
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
                return Err(TrashError::AgentMissing {
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

/// The archive Codex makes, for a Codex without the command: each rollout into
/// `archived_sessions/` (its file name kept), and the state DB's rows, if it has them.
fn own_archive(root: &Path, going: &[&crate::model::SessionMeta]) -> Result<Step, TrashError> {
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
            return Err(TrashError::Unsupported(format!(
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
        return Err(TrashError::Unsupported(
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

/// Runs an [`Step::Archive`]: the rows are updated in a transaction that commits only after
/// every rename succeeded; a failed rename renames the others back and rolls the rows back.
pub(super) fn archive(moves: &[Move], db: Option<&Path>) -> Result<(), StepFailed> {
    let fail = |reason: String| StepFailed::new("archive the session", reason);
    let mut conn = match db {
        Some(db) => Some(open_for_writing(db).map_err(|e| fail(format!("{}: {e}", db.display())))?),
        None => None,
    };
    let tx = match conn.as_mut() {
        Some(c) => Some(
            c.transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(|e| fail(format!("the Codex state DB is busy: {e}")))?,
        ),
        None => None,
    };
    if let Some(tx) = &tx {
        let now = chrono::Utc::now();
        for m in moves {
            mark_archived(tx, &m.id, &m.to, now)
                .map_err(|e| fail(format!("cannot update the Codex state DB: {e}")))?;
        }
    }
    let mut moved: Vec<&Move> = Vec::new();
    for m in moves {
        if let Err(e) = rename_new(&m.from, &m.to) {
            let mut failed = fail(format!("cannot move {}: {e}", m.from.display()));
            failed.left.extend(rename_back(&moved));
            return Err(failed);
        }
        moved.push(m);
    }
    if let Some(tx) = tx {
        if let Err(e) = tx.commit() {
            let mut failed = fail(format!("cannot update the Codex state DB: {e}"));
            failed.left.extend(rename_back(&moved));
            return Err(failed);
        }
    }
    Ok(())
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

/// Renames `from` to `to`, never over an existing file.
fn rename_new(from: &Path, to: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(to).is_ok() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!("{} exists", to.display()),
        ));
    }
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::rename(from, to)
}

/// Renames back what was moved; what could not be is returned.
fn rename_back(moved: &[&Move]) -> Vec<String> {
    moved
        .iter()
        .filter_map(|m| {
            std::fs::rename(&m.to, &m.from)
                .err()
                .map(|e| format!("{} stayed at {}: {e}", m.from.display(), m.to.display()))
        })
        .collect()
}
