//! Runs a [`Step::Archive`](super::Step::Archive): a session's files renamed inside its store,
//! with the agent's rows saying so ([`ArchiveRows`], the agent's code) updated in a transaction
//! that commits only after every rename succeeded; a failed rename renames the others back and
//! rolls the rows back.

use std::path::Path;

use rusqlite::TransactionBehavior;

use super::{label, open_for_writing, Move, StepFailed};
use crate::model::ProviderKind;
use crate::provider::capability::trash::ArchiveRows;

/// Renames every move and marks its rows in `db` (when the plan found rows there), all or none.
pub(super) fn run(
    kind: ProviderKind,
    rows: Option<ArchiveRows>,
    moves: &[Move],
    db: Option<&Path>,
) -> Result<(), StepFailed> {
    let fail = |reason: String| StepFailed::new("archive the session", reason);
    let mut conn = match db {
        Some(db) => Some(open_for_writing(db).map_err(|e| fail(format!("{}: {e}", db.display())))?),
        None => None,
    };
    let tx = match conn.as_mut() {
        Some(c) => {
            let rows =
                rows.ok_or_else(|| fail(format!("{} keeps no archive rows", label(kind))))?;
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(|e| fail(format!("{} is busy: {e}", rows.db)))?;
            Some((tx, rows))
        }
        None => None,
    };
    if let Some((tx, rows)) = &tx {
        let now = chrono::Utc::now();
        for m in moves {
            (rows.mark)(tx, &m.id, &m.to, now)
                .map_err(|e| fail(format!("cannot update {}: {e}", rows.db)))?;
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
    if let Some((tx, rows)) = tx {
        if let Err(e) = tx.commit() {
            let mut failed = fail(format!("cannot update {}: {e}", rows.db));
            failed.left.extend(rename_back(&moved));
            return Err(failed);
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
