//! Restoring an agent whose records are one document per session (`Writes::Documents`): the
//! engine reads each document from the bundle within a memory budget, rewrites the directory
//! in it, has the agent check it against the manifest and finish it, and lends the agent's
//! writer what it runs and opens ([`Engine`]). Every document is read (and dropped) before
//! anything is written, so a bad one refuses the restore with nothing written; each is read
//! again, one at a time, when it is written.

use std::path::Path;

use serde_json::Value;

use super::files::edit_string;
use super::records::{disagrees, parent_of};
use super::{BundleError, Plan};
use crate::actions::trash::{self, agent};
use crate::bundle::jsontext::edit_tree;
use crate::bundle::reader::Bundle;
use crate::bundle::records;
use crate::model::{ProviderKind, SessionMeta};
use crate::provider::capability::bundle::{Doc, Docs, Documents, Host, Write, Writes};
use crate::provider::registry;

/// What a session document may take in memory as a tree: it is one JSON document (the
/// agent's export form, which its import reads whole too), so it is parsed whole, one at a
/// time, within this budget ([`records`]: a small bundle must not make a huge tree). The
/// parser's buffer, a part's row text and SQLite's copies of it come on top, and the listing
/// after a restore reads the session back holding its largest part about four times: 48 MiB
/// keeps all of it under 256 MiB.
const DOCUMENT_BYTES: usize = 48 << 20;

/// The document of session `id` (the archive's `name`) with the directory rewritten, checked
/// to say what the manifest says, and finished by the agent.
pub(super) fn document(
    bundle: &Bundle,
    plan: &Plan,
    d: &Documents,
    id: &str,
    name: &str,
) -> Result<Value, BundleError> {
    let mut doc = bundle.stream(name, |r| records::parse_reader(r, name, DOCUMENT_BYTES))?;
    edit_tree(&mut doc, &mut |s| edit_string(s, plan));
    if !(d.is_document)(&doc) {
        return Err(BundleError::Invalid(format!("{name} is not {}", d.what)));
    }
    let title = bundle
        .manifest
        .sessions()
        .find(|s| s.id == id)
        .and_then(|s| s.title.as_deref())
        .unwrap_or_default();
    let said = Doc {
        doc: &doc,
        id,
        parent: parent_of(bundle, plan, id),
        title,
    };
    (d.check)(&said).map_err(|says| disagrees(name, says))?;
    (d.finish)(&mut doc, &plan.dir_text);
    Ok(doc)
}

/// A copy of session `id` in the store, found by the agent's own rules (documents agents:
/// their stores are not only files the listing shows).
pub(super) fn existing(plan: &Plan, id: &str) -> Option<SessionMeta> {
    let Writes::Documents(d) = &super::restoring(plan.provider).writes else {
        return None;
    };
    let path = (d.existing)(&plan.root, id)?;
    Some(SessionMeta::new(plan.provider, id.to_owned(), path))
}

/// Writes every document as planned; what the agent's own command said.
pub(super) fn write_all(
    bundle: &Bundle,
    plan: &Plan,
    d: &Documents,
) -> Result<Vec<String>, BundleError> {
    for (id, name) in &plan.docs {
        document(bundle, plan, d, id, name)?;
    }
    let Some(way) = &plan.way else {
        return Err(BundleError::Unsupported(
            "these records are documents, but no way to write them was planned".into(),
        ));
    };
    let ids: Vec<String> = plan.docs.iter().map(|(id, _)| id.clone()).collect();
    let w = Write {
        way,
        root: &plan.root,
        dir: &plan.dir,
        ids: &ids,
    };
    let mut docs = Read { bundle, plan, d };
    (d.write)(&w, &mut docs, &Engine(plan.provider)).map_err(|f| BundleError::Failed {
        what: f.what,
        reason: f.reason,
        state: f.state,
    })
}

/// The documents of a restore, read again one at a time as the agent writes them.
struct Read<'a> {
    bundle: &'a Bundle,
    plan: &'a Plan,
    d: &'a Documents,
}

impl Docs for Read<'_> {
    fn get(&mut self, i: usize) -> Result<Value, String> {
        let (id, name) = self
            .plan
            .docs
            .get(i)
            .ok_or_else(|| format!("the restore has no document {i}"))?;
        document(self.bundle, self.plan, self.d, id, name).map_err(|e| e.to_string())
    }
}

/// What the engine lends an agent's restore code: its way of running commands and opening
/// an agent's database (the trash engine's), and the trash engine's deletion for an undo.
pub(super) struct Engine(pub(super) ProviderKind);

impl Host for Engine {
    fn run(
        &self,
        argv: &[String],
        env: &[(String, String)],
        cwd: Option<&Path>,
    ) -> Result<String, String> {
        agent::output_in(argv, env, cwd)
    }

    fn help(&self, program: &Path) -> Result<String, String> {
        agent::help(program, &[])
    }

    fn open(&self, db: &Path) -> rusqlite::Result<rusqlite::Connection> {
        trash::open_for_writing(db)
    }

    fn delete(&self, db: &Path, ids: &[String]) -> Result<(), String> {
        let agent = registry::agent(self.0);
        let delete = agent
            .trash
            .delete_rows
            .ok_or_else(|| format!("{} keeps no rows that could be deleted again", agent.label))?;
        delete(db, ids)
    }
}
