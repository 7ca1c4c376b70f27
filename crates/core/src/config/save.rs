//! Editing the document in place, and writing it atomically.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use toml_edit::{DocumentMut, Item, Table, TableLike};

/// Sets dotted `key` to `item`, creating its tables if needed. An existing value keeps its place
/// and its surrounding comments and spacing.
pub fn put(doc: &mut DocumentMut, key: &str, mut item: Item) -> Result<(), String> {
    let (sections, name) = split(key);
    let table = table_at(doc, &sections)?;
    match table.get_mut(name) {
        Some(old) => {
            if let (Some(old), Some(new)) = (old.as_value(), item.as_value_mut()) {
                *new.decor_mut() = old.decor().clone();
            }
            *old = item;
        }
        None => {
            table.insert(name, item);
        }
    }
    Ok(())
}

/// Removes dotted `key` if it is there; the tables around it stay, and so do the comment lines
/// written above it: they go to the key after it (toml_edit keeps them with the key, and
/// clearing a setting in the app must not drop the user's words). Above a table's last key
/// they go with it.
pub fn remove(doc: &mut DocumentMut, key: &str) {
    let (sections, name) = split(key);
    let mut table: &mut dyn TableLike = doc.as_table_mut();
    for section in sections {
        match table.get_mut(section).and_then(Item::as_table_like_mut) {
            Some(inner) => table = inner,
            None => return,
        }
    }
    let at = table.iter().position(|(k, _)| k == name);
    let comments = table
        .key(name)
        .and_then(|k| k.leaf_decor().prefix())
        .and_then(|p| p.as_str())
        .filter(|p| p.contains('#'))
        .map(str::to_owned);
    table.remove(name);
    if let (Some(at), Some(comments)) = (at, comments) {
        if let Some((mut next, _)) = table.iter_mut().nth(at) {
            let decor = next.leaf_decor_mut();
            let rest = decor.prefix().and_then(|p| p.as_str()).unwrap_or("");
            let prefix = format!("{comments}{rest}");
            decor.set_prefix(prefix);
        }
    }
}

fn split(key: &str) -> (Vec<&str>, &str) {
    let mut parts: Vec<&str> = key.split('.').collect();
    let name = parts.pop().unwrap_or_default();
    (parts, name)
}

/// The table at `sections`, made if missing: `[providers.codex]`, never an empty `[providers]`.
/// A new table goes last, after the comments that end the file (a header comment of a file
/// that holds only comments stays on top).
fn table_at<'d>(
    doc: &'d mut DocumentMut,
    sections: &[&str],
) -> Result<&'d mut dyn TableLike, String> {
    let mut comments = None;
    if sections.first().is_some_and(|s| !doc.contains_key(s)) {
        let trailing = doc.trailing().as_str().unwrap_or("").trim_end().to_owned();
        if !trailing.is_empty() {
            doc.set_trailing("");
            comments = Some(trailing);
        }
    }
    let mut table: &mut dyn TableLike = doc.as_table_mut();
    for (i, section) in sections.iter().enumerate() {
        if !table.contains_key(section) {
            let mut new = Table::new();
            let leaf = i + 1 == sections.len();
            new.set_implicit(!leaf);
            if let Some(comments) = comments.as_ref().filter(|_| leaf) {
                new.decor_mut().set_prefix(format!("{comments}\n\n"));
            }
            table.insert(section, Item::Table(new));
        }
        let here = sections[..=i].join(".");
        table = table
            .get_mut(section)
            .and_then(Item::as_table_like_mut)
            .ok_or_else(|| format!("{here} in the file is not a table; fix the file first"))?;
    }
    Ok(table)
}

static SEQ: AtomicU32 = AtomicU32::new(0);

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so
/// a reader sees the old file or the new one, never half of one. 0600 on unix.
/// `before_rename` lets a test fail the write at the last moment.
pub fn write_atomic(
    path: &Path,
    bytes: &[u8],
    before_rename: impl FnOnce(&Path) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    create_dir(dir)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let (tmp, mut file) = create_temp(dir, &name)?;
    let result = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| {
            drop(file);
            before_rename(&tmp)
        })
        .and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    } else {
        sync_dir(dir);
    }
    result
}

fn create_temp(dir: &Path, name: &str) -> std::io::Result<(std::path::PathBuf, std::fs::File)> {
    let mut last = None;
    // A stale temp file of a crashed writer with our pid is skipped, not overwritten.
    for _ in 0..16 {
        let n = SEQ.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        match options.open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no temporary file name left")))
}

fn create_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Makes the rename itself durable; best effort (not every system can open a directory).
pub(crate) fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_names(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "old = 1\n").unwrap();
        let err = write_atomic(&path, b"new = 2\n", |tmp| {
            // The new text is complete in the temp file: only the rename is missing.
            assert_eq!(std::fs::read(tmp).unwrap(), b"new = 2\n");
            Err(std::io::Error::other("disk gone"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk gone");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old = 1\n");
        assert!(temp_names(dir.path()).is_empty());
    }

    #[test]
    fn writes_replace_the_file_and_leave_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/config.toml");
        write_atomic(&path, b"a = 1\n", |_| Ok(())).unwrap();
        write_atomic(&path, b"a = 2\n", |_| Ok(())).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a = 2\n");
        assert!(temp_names(&dir.path().join("sub")).is_empty());
    }

    #[test]
    fn a_stale_temp_file_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let next = SEQ.load(Ordering::Relaxed);
        // Whatever a concurrent test takes, some of these names are the ones tried next.
        for n in next..next + 4 {
            let stale = dir
                .path()
                .join(format!(".config.toml.{}.{n}.tmp", std::process::id()));
            std::fs::write(&stale, "stale").unwrap();
        }
        write_atomic(&path, b"x = 1\n", |_| Ok(())).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "x = 1\n");
        for name in temp_names(dir.path()) {
            assert_eq!(
                std::fs::read_to_string(dir.path().join(name)).unwrap(),
                "stale"
            );
        }
    }
}
