//! Restoring Claude Code and Codex sessions: their records are files. Each goes where the
//! agent keeps it (Claude: the project folder of the new directory; Codex: the same path under
//! the root), with the directory (and, for a copy, the ids) rewritten; all are created where
//! nothing is, or none is left.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use super::codex::Seen;
use super::{BundleError, Plan};
use crate::bundle::jsontext::{edit_values, moved, moved_after, write_values, Str};
use crate::bundle::reader::Bundle;
use crate::bundle::records::each_line;
use crate::model::ProviderKind;

/// Where the agent records its directory in its records: keys whose values are it, and texts
/// it wrote into the history that name it.
fn dir_keys(provider: ProviderKind) -> &'static [&'static str] {
    match provider {
        // Claude 2.1.x also snapshots it in its environment attachment.
        ProviderKind::Claude => &["cwd", "workingDirectory"],
        ProviderKind::Codex => &["cwd"],
        ProviderKind::Opencode => &["directory", "cwd", "root"],
    }
}

fn dir_markers(provider: ProviderKind) -> &'static [&'static str] {
    match provider {
        // The environment attachment of 2.1.x.
        ProviderKind::Claude => &["Primary working directory: "],
        // `<environment_context>` messages.
        ProviderKind::Codex => &["<cwd>"],
        ProviderKind::Opencode => &[],
    }
}

/// Claude Code's project folder name for a directory, as 2.1.332 computes it (`w` and `J$`
/// in its bundle): every UTF-16 unit but an ASCII letter or digit becomes `-`
/// (`/home/bob/my.app` → `-home-bob-my-app`; a character outside the BMP is two units, so two
/// dashes). A name over 200 units keeps its first 200 and gains `-` and a hash of the whole
/// directory: the absolute value of Java's `String.hashCode` over its UTF-16 units (32-bit,
/// wrapping), in base 36.
pub fn claude_project(dir: &str) -> String {
    const MAX: usize = 200;
    let name: String = dir
        .encode_utf16()
        .map(|u| match char::from_u32(u32::from(u)) {
            Some(c) if c.is_ascii_alphanumeric() => c,
            _ => '-',
        })
        .collect();
    if name.len() <= MAX {
        return name;
    }
    let hash = dir
        .encode_utf16()
        .fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(i32::from(u)));
    format!("{}-{}", &name[..MAX], base36(hash.unsigned_abs()))
}

/// `n.toString(36)` of JavaScript for a whole number.
fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Each native file of the bundle → where it is created.
pub(super) fn targets(bundle: &Bundle, plan: &Plan) -> Vec<(String, PathBuf)> {
    let prefix = format!("native/{}/", plan.provider);
    let base = match plan.provider {
        ProviderKind::Claude => plan
            .root
            .join("projects")
            .join(claude_project(&plan.dir_text)),
        _ => plan.root.clone(),
    };
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
/// repairs it when reading), as it was. `seen` keeps what Codex's row needs of the lines.
pub(super) fn write_rewritten(
    name: &str,
    r: &mut dyn BufRead,
    w: &mut dyn Write,
    plan: &Plan,
    mut seen: Option<&mut Seen>,
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
            match seen.as_deref_mut().filter(|_| Seen::wants(text)) {
                Some(seen) => {
                    let restored = edit_values(text, &mut edit);
                    seen.line(&restored);
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
    let interesting = plan.ids.keys().any(|id| s.mentions(id))
        || plan.old_dir.as_deref().is_some_and(|d| s.mentions(d));
    if !interesting {
        return None;
    }
    let value = s.value()?;
    if let Some(new) = plan.ids.get(value.as_ref()) {
        return (new != value.as_ref()).then(|| new.clone());
    }
    let old = plan.old_dir.as_deref()?;
    let new = plan.dir_text.as_str();
    if let Some(key) = s.key.filter(|k| dir_keys(plan.provider).contains(k)) {
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
    for marker in dir_markers(plan.provider) {
        let text = current.as_deref().unwrap_or(&value);
        if let Some(v) = moved_after(text, marker, old, new) {
            current = Some(v);
        }
    }
    current
}

/// Creates every planned file, or none: each is written beside its target as it is read from
/// the bundle (checked against the manifest as it is read) and linked into place only where
/// nothing is; then, for Codex with a state database, the rows that list them. On any failure
/// the files made so far and the folders made for them are removed.
pub(super) fn write_all(bundle: &Bundle, plan: &Plan) -> Result<(), BundleError> {
    let mut made = Made::default();
    let mut threads = Vec::new();
    for (name, target) in &plan.files {
        let mut seen = (plan.state_db.is_some() && name.ends_with(".jsonl")).then(Seen::default);
        let written = made.create(target, &mut |file| {
            bundle.stream(name, |r| {
                write_rewritten(name, r, file, plan, seen.as_mut())
            })
        });
        if let Err(e) = written {
            return Err(made.refused_or_failed(e, format!("create {}", target.display())));
        }
        if let Some(seen) = seen {
            threads.extend(super::codex::thread(
                seen,
                target,
                &title_of(bundle, plan, target),
            ));
        }
    }
    if let Some(db) = &plan.state_db {
        if let Err(reason) = super::codex::insert_threads(db, &threads) {
            return Err(BundleError::Failed {
                what: format!("list the sessions in {}", db.display()),
                reason,
                state: format!("the transaction was rolled back, {}", made.undo()),
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

#[cfg(test)]
mod tests {
    use super::claude_project;

    /// Directories and the project folders the real Claude Code 2.1.332 made for them
    /// (`claude -p` run in each, offline against a scripted model).
    #[test]
    fn claude_project_folders_are_named_as_claude_code_names_them() {
        let long = "/tmp/exp13/ch/w/a-long.folder name-0123456789abcdefghij-0123456789abcdefghij\
                    /b-long.folder name-0123456789abcdefghij-0123456789abcdefghij\
                    /c-long.folder name-0123456789abcdefghij-0123456789abcdefghij/d-long.folder";
        let digits = "0123456789-".repeat(9);
        let units = format!("/tmp/exp13/ch/w/x/é😀-{}/{}", &digits[..76], &digits[..98]);
        let n = format!("/tmp/exp13/ch/w/y/{}/{}", "n".repeat(150), "m".repeat(60));
        let cases = [
            ("/home/bob/my.app", "-home-bob-my-app".to_owned()),
            (
                "/tmp/exp13/ch/w/café 😀 ünïcode",
                "-tmp-exp13-ch-w-caf------n-code".into(),
            ),
            (
                long,
                "-tmp-exp13-ch-w-a-long-folder-name-0123456789abcdefghij-0123456789abcdefghij\
                 -b-long-folder-name-0123456789abcdefghij-0123456789abcdefghij\
                 -c-long-folder-name-0123456789abcdefghij-0123456789abcdefghij-d-cpy5yh"
                    .into(),
            ),
            // 197 units: no hash yet.
            (
                units.as_str(),
                format!("-tmp-exp13-ch-w-x-----{}-{}", &digits[..76], &digits[..98]),
            ),
            (
                &format!("{units}/ü😀z"),
                format!(
                    "-tmp-exp13-ch-w-x-----{}-{}----7i9q6a",
                    &digits[..76],
                    &digits[..98]
                ),
            ),
            (
                n.as_str(),
                format!(
                    "-tmp-exp13-ch-w-y-{}-{}-ysddrm",
                    "n".repeat(150),
                    "m".repeat(31)
                ),
            ),
        ];
        for (dir, folder) in cases {
            assert_eq!(claude_project(dir), folder, "{dir}");
        }
    }
}
