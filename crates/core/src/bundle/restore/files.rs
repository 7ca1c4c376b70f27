//! Restoring an agent whose records are files (`Writes::Files`). Each goes where the agent
//! keeps it (`Files::base`: Claude Code's project folder of the new directory, Codex's root),
//! with the directory (and, for a copy, the ids) rewritten; all are created where nothing is,
//! or none is left.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use super::{restoring, BundleError, Plan};
use crate::bundle::jsontext::{self, edit_values, moved, moved_after, write_values, Str};
use crate::bundle::reader::Bundle;
use crate::bundle::records::{self, each_line};
use crate::provider::capability::bundle::{Files, Index, Keep};

/// Each native file of the bundle → where it is created: its path below `native/<agent>/`,
/// below the folder the agent keeps them in (`Files::base`).
pub(super) fn targets(bundle: &Bundle, plan: &Plan, f: &Files) -> Vec<(String, PathBuf)> {
    let prefix = format!("native/{}/", plan.provider);
    let base = (f.base)(&plan.root, &plan.dir_text);
    bundle
        .manifest
        .native_files()
        .filter_map(|f| {
            let rel = f.path.strip_prefix(&prefix)?;
            let mut target = base.clone();
            for part in rel.split('/') {
                target.push(renamed(part, plan));
            }
            Some((f.path.clone(), target))
        })
        .collect()
}

/// A file name with every old id in it made the new one.
fn renamed(part: &str, plan: &Plan) -> String {
    let mut out = part.to_owned();
    for (old, new) in &plan.ids {
        if old != new && old.len() > 8 && out.contains(old.as_str()) {
            out = out.replace(old.as_str(), new);
        }
    }
    out
}

/// The largest JSON (not JSON Lines) record file a restore rewrites: it is read whole.
const JSON_BYTES: u64 = 64 << 20;

/// Writes the record file `name`, read from `r`, to `w` as restored: JSON text (a line at a
/// time for JSONL, so a torn line stays torn alone, and no more than a line is in memory) with
/// the directory and ids rewritten; anything else, and text that is not UTF-8 (the agent
/// repairs it when reading), as it was. `keeping` keeps what the agent's index row needs of
/// the lines.
pub(super) fn write_rewritten(
    name: &str,
    r: &mut dyn BufRead,
    w: &mut dyn Write,
    plan: &Plan,
    mut keeping: Option<&mut Keeping>,
) -> Result<(), BundleError> {
    let io = |e: std::io::Error| BundleError::Io {
        path: PathBuf::from(name),
        reason: e.to_string(),
    };
    let mut edit = |s: &Str| edit_string(s, plan);
    if name.ends_with(".jsonl") {
        return each_line(r, name, &mut |line| {
            let Ok(text) = std::str::from_utf8(line) else {
                return w.write_all(line).map_err(io);
            };
            match keeping.as_deref_mut().filter(|k| (k.wants)(text)) {
                Some(keeping) => {
                    let restored = edit_values(text, &mut edit);
                    keeping.line(&restored);
                    w.write_all(restored.as_bytes()).map_err(io)
                }
                None => write_values(text, &mut edit, w).map_err(io),
            }
        });
    }
    if !name.ends_with(".json") {
        return std::io::copy(r, w).map(drop).map_err(io);
    }
    let mut bytes = Vec::new();
    r.take(JSON_BYTES + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > JSON_BYTES {
        return Err(BundleError::TooLarge(format!(
            "{name} is larger than the {} MiB a JSON record file may be; nothing was written",
            JSON_BYTES >> 20
        )));
    }
    match std::str::from_utf8(&bytes) {
        Ok(text) => write_values(text, &mut edit, w).map_err(io),
        Err(_) => w.write_all(&bytes).map_err(io),
    }
}

/// The new value of one string of a record, if it changes.
pub(super) fn edit_string(s: &Str, plan: &Plan) -> Option<String> {
    edit_string_in(s, plan, 0)
}

/// Whether `s` may name the directory `dir`: it holds it as written, or, for a Windows
/// directory (which a record can spell in another case, and JSON writes with `\\` doubled),
/// its last name in any case. A cheap first look: what is edited is decided on the value.
fn mentions_dir(s: &Str, dir: &str) -> bool {
    if s.mentions(dir) {
        return true;
    }
    if !jsontext::is_windows_dir(dir) {
        return false;
    }
    let name = dir.trim_end_matches(['/', '\\']).rsplit(['/', '\\']).next();
    let text = s.decoded.unwrap_or(s.raw).as_bytes();
    name.filter(|n| !n.is_empty()).is_some_and(|n| {
        text.windows(n.len())
            .any(|w| w.eq_ignore_ascii_case(n.as_bytes()))
    })
}

/// How deep JSON held in a string is edited inside (Cline 2.x's `api_req_started` text is a
/// JSON object in a string, whose `request` holds the directory: one level).
const NESTED_JSON: usize = 2;

fn edit_string_in(s: &Str, plan: &Plan, depth: usize) -> Option<String> {
    let interesting = plan.ids.keys().any(|id| s.mentions(id))
        || plan.old_dir.as_deref().is_some_and(|d| mentions_dir(s, d));
    if !interesting {
        return None;
    }
    let value = s.value()?;
    // A string that is JSON text itself: its own strings are edited, so that what goes in (a
    // directory with `\` on Windows, or `"`) is encoded for that level and the text stays
    // JSON that the agent parses.
    if depth < NESTED_JSON && holds_json(&value) {
        let inner = edit_values(&value, &mut |inner| edit_string_in(inner, plan, depth + 1));
        return match inner {
            std::borrow::Cow::Owned(text) => Some(text),
            std::borrow::Cow::Borrowed(_) => None,
        };
    }
    if let Some(new) = plan.ids.get(value.as_ref()) {
        return (new != value.as_ref()).then(|| new.clone());
    }
    let path_key = s.key.filter(|k| RECORD_PATH_KEYS.contains(k));
    if let Some(path) = path_key.and_then(|_| restored_path(&value, plan)) {
        return Some(path);
    }
    let old = plan.old_dir.as_deref()?;
    let new = plan.dir_text.as_str();
    if let Some(key) = s
        .key
        .filter(|k| restoring(plan.provider).dir_keys.contains(k))
    {
        if let Some(v) = moved(&value, old, new) {
            return Some(v);
        }
        // OpenCode's worktree root above the directory: the new directory is the new root.
        if key == "root" && old.starts_with(&format!("{}/", value.trim_end_matches('/'))) {
            return Some(new.to_owned());
        }
        return None;
    }
    let mut current: Option<String> = None;
    for marker in restoring(plan.provider).dir_markers {
        let text = current.as_deref().unwrap_or(&value);
        if let Some(v) = moved_after(text, marker, old, new) {
            current = Some(v);
        }
    }
    current
}

/// Whether `value` is a JSON object or array as a whole (checked by parsing: a prompt that
/// starts with `{` is text, edited as text).
fn holds_json(value: &str) -> bool {
    let t = value.trim();
    let framed =
        (t.starts_with('{') && t.ends_with('}')) || (t.starts_with('[') && t.ends_with(']'));
    framed && serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok()
}

/// The keys whose value is the path of one of the bundle's own records in the store it came
/// from, which a restore makes the record's new path: Cline's `messages_path` (which Cline
/// opens to resume). Any other string that ends with a record's name (a prompt quoting a
/// command on it, a tool's argument) is text the user or the agent wrote, kept as it was.
const RECORD_PATH_KEYS: &[&str] = &["messages_path"];

/// Where a record of the bundle is restored to, when `value` is the path it had in the store
/// it came from: an absolute path (`/…`, `C:\…`) ending in the record's name below the agent's
/// folder. The old path would name a file of another store, or none.
fn restored_path(value: &str, plan: &Plan) -> Option<String> {
    let prefix = format!("native/{}/", plan.provider);
    let value = value.replace('\\', "/");
    let drive = value.as_bytes().get(1..3) == Some(b":/".as_slice());
    if !(value.starts_with('/') || drive) {
        return None;
    }
    plan.files.iter().find_map(|(name, target)| {
        let rel = name.strip_prefix(&prefix)?;
        let moved = value.ends_with(&format!("/{rel}")) && target.to_str() != Some(&value);
        moved.then(|| target.to_string_lossy().into_owned())
    })
}

/// The records of one restored file that the agent's index row is made of, kept as the file
/// is written a line at a time (only the lines the index wants become trees, each within a
/// record's memory budget).
pub(super) struct Keeping {
    wants: fn(&str) -> bool,
    keep: Box<dyn Keep>,
}

impl Keeping {
    fn of(index: &Index) -> Keeping {
        Keeping {
            wants: index.wants,
            keep: (index.keeper)(),
        }
    }

    /// One restored line (a line that is not a record is skipped, as the agent skips it).
    fn line(&mut self, line: &str) {
        if let Ok(record) = records::parse(line.trim_end().as_bytes(), "") {
            self.keep.record(record);
        }
    }
}

/// Creates every planned file, or none: each is written beside its target as it is read from
/// the bundle (checked against the manifest as it is read) and linked into place only where
/// nothing is; then the agent's markers beside them (Gemini CLI's `.project_root`) and, for an
/// agent with an index (Codex's state database, Cline's `sessions.db` or `taskHistory.json`),
/// the rows that list them. On any failure the files made so far and the folders made for them
/// are removed.
pub(super) fn write_all(bundle: &Bundle, plan: &Plan, f: &Files) -> Result<(), BundleError> {
    let mut made = Made::default();
    let mut rows = Vec::new();
    let index = f.index.as_ref().filter(|_| plan.state_db.is_some());
    for (name, target) in &plan.files {
        // A JSONL record's lines reach the keeper as they are written; a JSON record (one
        // document) is read back by the agent's keeper from where it was written.
        let record = name.ends_with(".jsonl") || name.ends_with(".json");
        let mut keeping = index.filter(|_| record).map(Keeping::of);
        let written = made.create(target, &mut |file| {
            bundle.stream(name, |r| {
                write_rewritten(name, r, file, plan, keeping.as_mut())
            })
        });
        if let Err(e) = written {
            return Err(made.refused_or_failed(e, format!("create {}", target.display())));
        }
        if let Some(keeping) = keeping {
            rows.extend(keeping.keep.rows(target, &title_of(bundle, plan, target)));
        }
    }
    for (target, text) in &plan.markers {
        if let Err(e) = made.create(target, &mut |file| {
            file.write_all(text.as_bytes())
                .map_err(|e| BundleError::Io {
                    path: target.clone(),
                    reason: e.to_string(),
                })
        }) {
            return Err(made.refused_or_failed(e, format!("create {}", target.display())));
        }
    }
    if let (Some(index), Some(db)) = (index, &plan.state_db) {
        if let Err(reason) = (index.insert)(db, &rows) {
            return Err(BundleError::Failed {
                what: format!("list the sessions in {}", db.display()),
                reason,
                state: format!(
                    "its write was rolled back (it is as it was), {}",
                    made.undo()
                ),
            });
        }
    }
    Ok(())
}

/// The title of the session whose (new) id names the file `target`.
fn title_of(bundle: &Bundle, plan: &Plan, target: &Path) -> String {
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    plan.sessions
        .iter()
        .find(|(_, new)| name.contains(new.as_str()))
        .and_then(|(old, _)| bundle.manifest.sessions().find(|s| &s.id == old))
        .and_then(|s| s.title.clone())
        .unwrap_or_default()
}

/// What a restore created so far, to take back.
#[derive(Default)]
pub(super) struct Made {
    files: Vec<PathBuf>,
    dirs: Vec<PathBuf>,
}

impl Made {
    /// Creates `target` with what `fill` writes, once `fill` has succeeded.
    pub fn create(
        &mut self,
        target: &Path,
        fill: &mut dyn FnMut(&mut dyn Write) -> Result<(), BundleError>,
    ) -> Result<(), BundleError> {
        let io = |e: std::io::Error| BundleError::Io {
            path: target.to_path_buf(),
            reason: e.to_string(),
        };
        let dir = target
            .parent()
            .ok_or_else(|| io(std::io::Error::other("no folder")))?;
        let mut missing: Vec<PathBuf> = dir
            .ancestors()
            .take_while(|a| std::fs::symlink_metadata(a).is_err())
            .map(Path::to_path_buf)
            .collect();
        missing.reverse();
        for d in missing {
            std::fs::create_dir(&d).map_err(io)?;
            self.dirs.push(d);
        }
        let temp = dir.join(format!(
            ".{}.{}.restoring",
            target.file_name().unwrap_or_default().to_string_lossy(),
            std::process::id()
        ));
        let written = (|| {
            let mut open = std::fs::OpenOptions::new();
            open.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
            let mut f = std::io::BufWriter::new(open.open(&temp).map_err(io)?);
            fill(&mut f)?;
            let f = f.into_inner().map_err(|e| io(e.into_error()))?;
            f.sync_all().map_err(io)?;
            // Only where nothing is: a file that appeared meanwhile is never replaced.
            std::fs::hard_link(&temp, target).map_err(io)
        })();
        let _ = std::fs::remove_file(&temp);
        written?;
        self.files.push(target.to_path_buf());
        Ok(())
    }

    /// `e` as it is when the bundle was refused and what was made is gone again (nothing was
    /// written), else a failure that says what was left.
    pub fn refused_or_failed(&mut self, e: BundleError, what: String) -> BundleError {
        let state = self.undo();
        if e.is_refusal() && !state.contains("stayed") {
            return e;
        }
        BundleError::Failed {
            what,
            reason: e.to_string(),
            state,
        }
    }

    /// Removes what was made; says what state that left.
    pub fn undo(&mut self) -> String {
        let mut left = Vec::new();
        for f in self.files.drain(..).rev() {
            if let Err(e) = std::fs::remove_file(&f) {
                left.push(format!("{} stayed: {e}", f.display()));
            }
        }
        for d in self.dirs.drain(..).rev() {
            let _ = std::fs::remove_dir(&d);
        }
        if left.is_empty() {
            "nothing was left behind".into()
        } else {
            format!("and not everything could be removed: {}", left.join("; "))
        }
    }
}
