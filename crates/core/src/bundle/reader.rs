//! Opening a bundle someone else made, trusting nothing in it. Before anything is shown or
//! written, every entry of the archive is checked: a plain relative name (no `..`, no absolute
//! path or drive letter, no link, no folder), listed in the manifest and listed once, stored in
//! bytes of the archive no other entry uses (entries pointing at one compressed stream would
//! unpack it many times), within the size limits (per entry, in total, entry count, compression
//! ratio per entry and of the whole archive — the declared sizes first, then the bytes actually
//! read, which cannot pass the limit because the read is cut there), and of the size and
//! SHA-256 the manifest gives. A damaged or truncated archive, a missing manifest or one of
//! another format version is a clear error. The reader writes nothing anywhere, and hands an
//! entry out as a stream ([`Bundle::stream`]) so that no caller needs a whole one in memory.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use zip::result::ZipError;
use zip::{CompressionMethod, ZipArchive};

use super::manifest::{self, Manifest, MANIFEST};
use super::BundleError;

/// What a bundle may hold at most. The defaults fit any real session (a 1 GiB transcript
/// file); tests use small ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The archive file itself.
    pub archive_bytes: u64,
    pub entries: usize,
    /// One entry, uncompressed.
    pub entry_bytes: u64,
    /// All entries, uncompressed.
    pub total_bytes: u64,
    /// Uncompressed / compressed, for entries larger than [`Limits::ratio_from`].
    pub ratio: u64,
    pub ratio_from: u64,
    /// All entries uncompressed / the archive's size, once they unpack to more than
    /// [`Limits::total_ratio_from`]: many small entries each under `ratio_from` add up.
    pub total_ratio: u64,
    pub total_ratio_from: u64,
    pub manifest_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            archive_bytes: 4 << 30,
            entries: 10_000,
            entry_bytes: 1 << 30,
            total_bytes: 4 << 30,
            ratio: 1000,
            ratio_from: 1 << 20,
            // Sessions' records pack 4-15 fold (the 40 MB corpus session: 75 MB in 16 MB).
            total_ratio: 100,
            total_ratio_from: 64 << 20,
            manifest_bytes: 16 << 20,
        }
    }
}

/// A bundle whose every entry was checked against its manifest.
#[derive(Debug, Clone)]
pub struct Bundle {
    path: PathBuf,
    pub manifest: Manifest,
    /// SHA-256 of the archive file (lowercase hex): what a restore token binds.
    pub sha256: String,
    /// The archive's size in bytes.
    pub size: u64,
    /// What its entries unpack to, in bytes (the manifest included).
    pub unpacked: u64,
    limits: Limits,
}

impl Bundle {
    /// Opens and checks the bundle at `path` with the default limits.
    pub fn open(path: &Path) -> Result<Bundle, BundleError> {
        Bundle::open_with(path, Limits::default())
    }

    pub fn open_with(path: &Path, limits: Limits) -> Result<Bundle, BundleError> {
        let (sha256, size) = hash_file(path, limits.archive_bytes)?;
        let mut archive = open_archive(path)?;
        let (entries, unpacked) = check_entries(&mut archive, size, &limits)?;
        let manifest = read_manifest(&mut archive, &entries, &limits)?;
        let listed: BTreeMap<&str, &manifest::FileEntry> = manifest
            .files
            .iter()
            .map(|f| (f.path.as_str(), f))
            .collect();
        for name in entries.keys() {
            if name != MANIFEST && !listed.contains_key(name.as_str()) {
                return Err(BundleError::Unsafe(format!(
                    "the archive holds {name}, which its manifest does not list; nothing was written"
                )));
            }
        }
        for f in &manifest.files {
            let Some(&index) = entries.get(&f.path) else {
                return Err(BundleError::Invalid(format!(
                    "the manifest lists {}, which the archive does not hold",
                    f.path
                )));
            };
            let mut checked = Checked::new(&mut archive, index, f, &limits)?;
            checked.finish()?;
        }
        Ok(Bundle {
            path: path.to_path_buf(),
            manifest,
            sha256,
            size,
            unpacked,
            limits,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bytes of the file `name` lists in the manifest, checked again against its size
    /// and SHA-256 (the archive may have changed since it was opened). For small files: a
    /// record file is read with [`Bundle::stream`].
    pub fn read(&self, name: &str) -> Result<Vec<u8>, BundleError> {
        let size = self.listed(name)?.size;
        let mut out = Vec::with_capacity(size.min(1 << 20) as usize);
        self.stream(name, |r| {
            r.read_to_end(&mut out)
                .map(drop)
                .map_err(|e| BundleError::Invalid(format!("{name} cannot be read ({e})")))
        })?;
        Ok(out)
    }

    /// Hands the file `name` to `read` as a stream, checked again as it is read: the read
    /// stops at the size the manifest gives, and once `read` is done the rest is read too and
    /// the size and SHA-256 are checked. `read`'s result is returned only when they match, so
    /// what it made of the bytes must not be kept before then; when the stream failed, its
    /// error (damaged, too large) is returned rather than what `read` made of it.
    pub fn stream<T>(
        &self,
        name: &str,
        read: impl FnOnce(&mut dyn BufRead) -> Result<T, BundleError>,
    ) -> Result<T, BundleError> {
        let entry = self.listed(name)?;
        let mut archive = open_archive(&self.path)?;
        let index = archive.index_for_name(name).ok_or_else(|| {
            BundleError::Invalid(format!("{name} is no longer in the archive; open it again"))
        })?;
        let mut checked = Checked::new(&mut archive, index, entry, &self.limits)?;
        let result = read(&mut BufReader::with_capacity(64 << 10, &mut checked));
        match (result, checked.failure.take()) {
            (_, Some(failure)) => Err(failure),
            (Err(e), None) => Err(e),
            (Ok(value), None) => checked.finish().map(|()| value),
        }
    }

    fn listed(&self, name: &str) -> Result<&manifest::FileEntry, BundleError> {
        self.manifest
            .files
            .iter()
            .find(|f| f.path == name)
            .ok_or_else(|| BundleError::Invalid(format!("the bundle has no file {name}")))
    }
}

/// SHA-256 and size of the file, refusing one over `max` bytes.
fn hash_file(path: &Path, max: u64) -> Result<(String, u64), BundleError> {
    let io_err = |e: io::Error| BundleError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let file = crate::provider::files::open_regular(path).map_err(io_err)?;
    let mut hasher = Sha256::new();
    let n = io::copy(&mut file.take(max + 1), &mut hasher).map_err(io_err)?;
    if n > max {
        return Err(BundleError::TooLarge(format!(
            "the bundle is larger than {max} bytes"
        )));
    }
    Ok((hex(&hasher.finalize()), n))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn open_archive(path: &Path) -> Result<ZipArchive<File>, BundleError> {
    let file = crate::provider::files::open_regular(path).map_err(|e| BundleError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    ZipArchive::new(file).map_err(|e| zip_error("the file is not a complete zip archive", e))
}

fn zip_error(what: &str, e: ZipError) -> BundleError {
    BundleError::Invalid(format!("{what} ({e})"))
}

/// Every entry's name → index, and what they unpack to in all, after the checks that need no
/// unpacking: names, kinds, count, declared sizes and ratios, and where each lies in the
/// archive (`archive_size` bytes).
fn check_entries(
    archive: &mut ZipArchive<File>,
    archive_size: u64,
    limits: &Limits,
) -> Result<(BTreeMap<String, usize>, u64), BundleError> {
    if archive.len() > limits.entries {
        return Err(BundleError::TooLarge(format!(
            "the archive has {} entries, more than the {} a bundle may have",
            archive.len(),
            limits.entries
        )));
    }
    let mut names = BTreeMap::new();
    let mut spans = Vec::with_capacity(archive.len());
    let mut total: u64 = 0;
    for index in 0..archive.len() {
        let entry = archive
            .by_index_raw(index)
            .map_err(|e| zip_error("an entry of the archive cannot be read", e))?;
        let name = check_entry(&entry, limits)?;
        total = total.saturating_add(entry.size());
        check_total(total, archive_size, limits)?;
        // by_index_raw has found where the data starts (after the local header).
        let data = entry.data_start().unwrap_or(entry.header_start());
        spans.push((
            entry.header_start(),
            data.saturating_add(entry.compressed_size()),
            name.clone(),
        ));
        if names.insert(name.clone(), index).is_some() {
            return Err(BundleError::Unsafe(format!(
                "the archive holds {name} twice; nothing was written"
            )));
        }
    }
    check_overlaps(spans)?;
    Ok((names, total))
}

/// The entry's name, once it is a plain file of a plain name, stored or deflated, within the
/// size and ratio one entry may have.
fn check_entry(
    entry: &zip::read::ZipFile<'_, File>,
    limits: &Limits,
) -> Result<String, BundleError> {
    let name = std::str::from_utf8(entry.name_raw())
        .map_err(|_| BundleError::Unsafe("an entry's name is not UTF-8".into()))?
        .to_owned();
    manifest::check_name(&name)?;
    if entry.is_symlink() {
        return Err(BundleError::Unsafe(format!(
            "the entry {name} is a symbolic link; nothing was written"
        )));
    }
    if entry.is_dir()
        || entry
            .unix_mode()
            .is_some_and(|m| m & 0o170000 != 0o100000 && m & 0o170000 != 0)
    {
        return Err(BundleError::Unsafe(format!(
            "the entry {name} is not a plain file; nothing was written"
        )));
    }
    if entry.encrypted() {
        return Err(BundleError::Invalid(format!(
            "the entry {name} is encrypted"
        )));
    }
    if !matches!(
        entry.compression(),
        CompressionMethod::Stored | CompressionMethod::Deflated
    ) {
        return Err(BundleError::Invalid(format!(
            "the entry {name} uses a compression bundles do not use"
        )));
    }
    let size = entry.size();
    if size > limits.entry_bytes {
        return Err(BundleError::TooLarge(format!(
            "the entry {name} unpacks to {size} bytes, more than the {} one file may have",
            limits.entry_bytes
        )));
    }
    if size > limits.ratio_from && size / entry.compressed_size().max(1) > limits.ratio {
        return Err(BundleError::TooLarge(format!(
            "the entry {name} unpacks to more than {} times its packed size (a zip bomb)",
            limits.ratio
        )));
    }
    Ok(name)
}

/// What the entries so far unpack to, against the total size and the whole archive's ratio.
fn check_total(total: u64, archive_size: u64, limits: &Limits) -> Result<(), BundleError> {
    if total > limits.total_bytes {
        return Err(BundleError::TooLarge(format!(
            "the archive unpacks to more than {} bytes",
            limits.total_bytes
        )));
    }
    if total > limits.total_ratio_from && total > archive_size.saturating_mul(limits.total_ratio) {
        return Err(BundleError::TooLarge(format!(
            "the archive unpacks to more than {total} bytes, over {} times its own {archive_size} \
             (a zip bomb); nothing was written",
            limits.total_ratio
        )));
    }
    Ok(())
}

/// Refuses entries that share bytes of the archive: each entry's local header and data
/// (`start..end`) must lie apart from every other's, or one compressed stream could be listed
/// under many names and unpacked once for each.
fn check_overlaps(mut spans: Vec<(u64, u64, String)>) -> Result<(), BundleError> {
    spans.sort_unstable();
    for pair in spans.windows(2) {
        let ((_, end, a), (start, _, b)) = (&pair[0], &pair[1]);
        if start < end {
            return Err(BundleError::Unsafe(format!(
                "the entries {a} and {b} share bytes of the archive (a zip bomb); nothing was \
                 written"
            )));
        }
    }
    Ok(())
}

fn read_manifest(
    archive: &mut ZipArchive<File>,
    entries: &BTreeMap<String, usize>,
    limits: &Limits,
) -> Result<Manifest, BundleError> {
    let Some(&index) = entries.get(MANIFEST) else {
        return Err(BundleError::Manifest(format!(
            "the archive has no {MANIFEST}: it is not an agent-sessions bundle"
        )));
    };
    let mut entry = archive
        .by_index(index)
        .map_err(|e| zip_error("the manifest cannot be read", e))?;
    let mut bytes = Vec::new();
    (&mut entry)
        .take(limits.manifest_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| BundleError::Invalid(format!("the manifest cannot be read ({e})")))?;
    if bytes.len() as u64 > limits.manifest_bytes {
        return Err(BundleError::TooLarge(format!(
            "the manifest is larger than {} bytes",
            limits.manifest_bytes
        )));
    }
    // The version first: a newer manifest may not parse as this one, and should say why.
    let value: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| BundleError::Manifest(format!("{MANIFEST} is not JSON ({e})")))?;
    match value.get("format_version").map(serde_json::Value::as_u64) {
        None => {
            return Err(BundleError::Manifest(format!(
                "{MANIFEST} has no format_version"
            )))
        }
        Some(None) => {
            return Err(BundleError::Manifest(
                "the format_version is not a number".into(),
            ))
        }
        Some(Some(v)) => manifest::check_version(u32::try_from(v).unwrap_or(u32::MAX))?,
    }
    let manifest: Manifest = serde_json::from_value(value)
        .map_err(|e| BundleError::Manifest(format!("{MANIFEST} is not a bundle manifest ({e})")))?;
    manifest.check()?;
    Ok(manifest)
}

/// An entry being read: the read stops past its expected size, and its size and SHA-256 are
/// checked at the end ([`Checked::finish`]). A failure is kept (the reader of the stream sees
/// an I/O error) so that it is reported with its own code.
struct Checked<'a> {
    entry: zip::read::ZipFile<'a, File>,
    expected: &'a manifest::FileEntry,
    cap: u64,
    read: u64,
    hasher: Sha256,
    failure: Option<BundleError>,
}

impl<'a> Checked<'a> {
    fn new(
        archive: &'a mut ZipArchive<File>,
        index: usize,
        expected: &'a manifest::FileEntry,
        limits: &Limits,
    ) -> Result<Checked<'a>, BundleError> {
        let name = &expected.path;
        let entry = archive
            .by_index(index)
            .map_err(|e| zip_error(&format!("{name} cannot be read"), e))?;
        // The archive's own size for the entry was checked against the limits; the manifest
        // must agree with it, and the read stops there whatever the data would unpack to.
        if entry.size() != expected.size {
            return Err(BundleError::Checksum(format!(
                "the archive says {name} has {} bytes, its manifest {}",
                entry.size(),
                expected.size
            )));
        }
        Ok(Checked {
            entry,
            expected,
            cap: expected.size.min(limits.entry_bytes),
            read: 0,
            hasher: Sha256::new(),
            failure: None,
        })
    }

    /// Reads what is left, then checks the size and SHA-256.
    fn finish(&mut self) -> Result<(), BundleError> {
        let drained = io::copy(self, &mut io::sink());
        if let Some(failure) = self.failure.take() {
            return Err(failure);
        }
        drained.map_err(|e| {
            BundleError::Checksum(format!("{} is damaged ({e})", self.expected.path))
        })?;
        let name = &self.expected.path;
        if self.read != self.expected.size {
            return Err(BundleError::Checksum(format!(
                "{name} has {} bytes where the manifest says {}",
                self.read, self.expected.size
            )));
        }
        let sha = hex(&std::mem::take(&mut self.hasher).finalize());
        if !sha.eq_ignore_ascii_case(&self.expected.sha256) {
            return Err(BundleError::Checksum(format!(
                "{name} does not match its SHA-256 in the manifest; the bundle was changed or damaged"
            )));
        }
        Ok(())
    }

    fn fail(&mut self, failure: BundleError) -> io::Error {
        let e = io::Error::other(failure.to_string());
        self.failure.get_or_insert(failure);
        e
    }
}

impl Read for Checked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.failure.is_some() {
            return Err(io::Error::other("the bundle entry failed its check"));
        }
        // One byte past the cap is asked for, so that data longer than declared is seen.
        let room = (self.cap + 1 - self.read).min(buf.len() as u64) as usize;
        let got = match self.entry.read(&mut buf[..room]) {
            Ok(got) => got,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Err(e),
            Err(e) => {
                let name = &self.expected.path;
                return Err(self.fail(BundleError::Checksum(format!(
                    "{name} is damaged ({e}); nothing was written"
                ))));
            }
        };
        self.read += got as u64;
        if self.read > self.cap {
            let name = &self.expected.path;
            return Err(self.fail(BundleError::TooLarge(format!(
                "{name} unpacks to more than its {} bytes",
                self.expected.size
            ))));
        }
        self.hasher.update(&buf[..got]);
        Ok(got)
    }
}
