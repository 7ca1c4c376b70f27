//! Opening a bundle someone else made, trusting nothing in it. Before anything is shown or
//! written, every entry of the archive is checked: a plain relative name (no `..`, no absolute
//! path or drive letter, no link, no folder), listed in the manifest and listed once, within
//! the size limits (per entry, in total, entry count, compression ratio — the declared sizes
//! first, then the bytes actually read, which cannot pass the limit because the read is cut
//! there), and of the size and SHA-256 the manifest gives. A damaged or truncated archive, a
//! missing manifest or one of another format version is a clear error. The reader writes
//! nothing anywhere.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
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
    pub manifest_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            archive_bytes: 4 << 30,
            entries: 10_000,
            entry_bytes: 1 << 30,
            total_bytes: 8 << 30,
            ratio: 1000,
            ratio_from: 1 << 20,
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
        let entries = check_entries(&mut archive, &limits)?;
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
            read_checked(&mut archive, index, f, &limits, &mut io::sink())?;
        }
        Ok(Bundle {
            path: path.to_path_buf(),
            manifest,
            sha256,
            size,
            limits,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bytes of the file `name` lists in the manifest, checked again against its size
    /// and SHA-256 (the archive may have changed since it was opened).
    pub fn read(&self, name: &str) -> Result<Vec<u8>, BundleError> {
        let entry = self
            .manifest
            .files
            .iter()
            .find(|f| f.path == name)
            .ok_or_else(|| BundleError::Invalid(format!("the bundle has no file {name}")))?;
        let mut archive = open_archive(&self.path)?;
        let index = archive.index_for_name(name).ok_or_else(|| {
            BundleError::Invalid(format!("{name} is no longer in the archive; open it again"))
        })?;
        let mut out = Vec::with_capacity(entry.size.min(64 << 20) as usize);
        read_checked(&mut archive, index, entry, &self.limits, &mut out)?;
        Ok(out)
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

/// Every entry's name → index, after the checks that need no reading: names, kinds, count,
/// declared sizes and ratios.
fn check_entries(
    archive: &mut ZipArchive<File>,
    limits: &Limits,
) -> Result<BTreeMap<String, usize>, BundleError> {
    if archive.len() > limits.entries {
        return Err(BundleError::TooLarge(format!(
            "the archive has {} entries, more than the {} a bundle may have",
            archive.len(),
            limits.entries
        )));
    }
    let mut names = BTreeMap::new();
    let mut total: u64 = 0;
    for index in 0..archive.len() {
        let entry = archive
            .by_index_raw(index)
            .map_err(|e| zip_error("an entry of the archive cannot be read", e))?;
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
        total = total.saturating_add(size);
        if total > limits.total_bytes {
            return Err(BundleError::TooLarge(format!(
                "the archive unpacks to more than {} bytes",
                limits.total_bytes
            )));
        }
        if names.insert(name.clone(), index).is_some() {
            return Err(BundleError::Unsafe(format!(
                "the archive holds {name} twice; nothing was written"
            )));
        }
    }
    Ok(names)
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

/// Reads entry `index` into `out`, stopping at the limits, and checks it is exactly the size
/// and SHA-256 `expected` says.
fn read_checked(
    archive: &mut ZipArchive<File>,
    index: usize,
    expected: &manifest::FileEntry,
    limits: &Limits,
    out: &mut dyn io::Write,
) -> Result<(), BundleError> {
    let name = &expected.path;
    let mut entry = archive
        .by_index(index)
        .map_err(|e| zip_error(&format!("{name} cannot be read"), e))?;
    // The archive's own size for the entry was checked against the limits; the manifest must
    // agree with it, and the read stops there whatever the compressed data would unpack to.
    if entry.size() != expected.size {
        return Err(BundleError::Checksum(format!(
            "the archive says {name} has {} bytes, its manifest {}",
            entry.size(),
            expected.size
        )));
    }
    let cap = expected.size.min(limits.entry_bytes);
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 << 10];
    let mut n: u64 = 0;
    let mut limited = (&mut entry).take(cap + 1);
    loop {
        let got = match limited.read(&mut buf) {
            Ok(0) => break,
            Ok(got) => got,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(BundleError::Checksum(format!(
                    "{name} is damaged ({e}); nothing was written"
                )))
            }
        };
        n += got as u64;
        if n > cap {
            return Err(BundleError::TooLarge(format!(
                "{name} unpacks to more than its {} bytes",
                expected.size
            )));
        }
        hasher.update(&buf[..got]);
        out.write_all(&buf[..got]).map_err(|e| BundleError::Io {
            path: PathBuf::from(name),
            reason: e.to_string(),
        })?;
    }
    if n != expected.size {
        return Err(BundleError::Checksum(format!(
            "{name} has {n} bytes where the manifest says {}",
            expected.size
        )));
    }
    if !hex(&hasher.finalize()).eq_ignore_ascii_case(&expected.sha256) {
        return Err(BundleError::Checksum(format!(
            "{name} does not match its SHA-256 in the manifest; the bundle was changed or damaged"
        )));
    }
    Ok(())
}
