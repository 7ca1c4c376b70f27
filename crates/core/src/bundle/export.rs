//! Making a bundle: [`prepare`] gathers what goes in (the unified transcript as JSON and
//! Markdown, and in a complete bundle the agent's own records; in a share-safe one everything
//! redacted, with the counts per rule available before anything is saved), then
//! [`Prepared::save`] writes the archive all or nothing, 0600, never over an existing file
//! unless asked. Native files are streamed from the store into the archive while their
//! SHA-256 is taken; the manifest, which lists them, is written last.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use chrono::Utc;
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::manifest::{
    FileEntry, FileKind, Manifest, Mode, SessionInfo, Source, FORMAT, FORMAT_VERSION, MANIFEST,
    MARKDOWN, TRANSCRIPT,
};
use super::native::{self, NativeFile};
use super::reader::hex;
use super::redact::{RedactionCounts, Redactor};
use super::BundleError;
use crate::actions::export::{write_file, Exporter, Format, Options, ToolOutput};
use crate::catalog::Catalog;
use crate::error::Error;
use crate::model::SessionMeta;

/// The name a bundle is saved under by default.
pub const EXTENSION: &str = ".agent-session.zip";

/// A bundle ready to be saved.
pub struct Prepared {
    manifest: Manifest,
    generated: Vec<(String, FileKind, Vec<u8>)>,
    native: Vec<NativeFile>,
}

/// A bundle written.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Saved {
    pub path: PathBuf,
    pub bytes: u64,
    pub manifest: Manifest,
}

/// Gathers the bundle of `session` (one of `sessions`, the current listing, which gives its
/// subagents). A complete bundle is of a top-level session: a subagent goes along with its
/// parent's.
pub fn prepare(
    catalog: &Catalog,
    sessions: &[SessionMeta],
    session: &SessionMeta,
    mode: Mode,
) -> Result<Prepared, Error> {
    if mode == Mode::Complete && session.parent_id.is_some() {
        return Err(BundleError::Unsupported(format!(
            "{} is a subagent session; a complete bundle is made of its parent session {}, and \
             the subagent comes along with it",
            session.id,
            session.parent_id.as_deref().unwrap_or_default()
        ))
        .into());
    }
    let children = descendants(sessions, session);
    let full = Options {
        reasoning: true,
        tool_output: ToolOutput::Full,
        meta: true,
    };
    let readable = Options {
        reasoning: true,
        tool_output: ToolOutput::Trim,
        meta: false,
    };
    let document = |format, options| -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        Exporter::from_store(catalog, session, options)
            .write(format, &mut out)
            .map_err(|f| f.into_error(Path::new(TRANSCRIPT)))?;
        Ok(out)
    };
    let mut json = document(Format::Json, full)?;
    let mut markdown = document(Format::Markdown, readable)?;
    let mut infos: Vec<SessionInfo> = std::iter::once(session)
        .chain(children.iter().copied())
        .map(SessionInfo::of)
        .collect();
    let (native, mut notes, redaction) = match mode {
        Mode::Complete => {
            let (files, notes) =
                native::collect(catalog, session, &children).map_err(BundleError::Unsupported)?;
            if files.is_empty() {
                return Err(BundleError::Unsupported(format!(
                    "none of {}'s own records can be bundled: {}",
                    session.id,
                    notes.join("; ")
                ))
                .into());
            }
            (files, notes, None)
        }
        Mode::ShareSafe => {
            let mut r = Redactor::default();
            json = r.redact_json(&String::from_utf8_lossy(&json)).into_bytes();
            markdown = match r.redact(&String::from_utf8_lossy(&markdown)) {
                Some(m) => m.into_bytes(),
                None => markdown,
            };
            for info in &mut infos {
                for field in [&mut info.title, &mut info.cwd, &mut info.git_branch] {
                    if let Some(clean) = field.as_deref().and_then(|v| r.redact(v)) {
                        *field = Some(clean);
                    }
                }
            }
            (Vec::new(), Vec::new(), Some(r.counts()))
        }
    };
    if mode == Mode::ShareSafe {
        notes.push("share-safe: redacted, without the agent's own records; it cannot be restored, only handed off".into());
    }
    let main = infos.remove(0);
    let manifest = Manifest {
        format: FORMAT.into(),
        format_version: FORMAT_VERSION,
        app_version: env!("CARGO_PKG_VERSION").into(),
        created_at: Utc::now(),
        mode,
        source: Source {
            provider: session.provider,
            tool_version: session.format_version.clone(),
            // The host name identifies the sender's machine: a share-safe bundle leaves it out.
            host: match mode {
                Mode::Complete => host_name(),
                Mode::ShareSafe => None,
            },
        },
        session: main,
        subagents: infos,
        files: Vec::new(),
        redaction,
        notes,
    };
    Ok(Prepared {
        manifest,
        generated: vec![
            (TRANSCRIPT.into(), FileKind::Transcript, json),
            (MARKDOWN.into(), FileKind::Markdown, markdown),
        ],
        native,
    })
}

impl Prepared {
    /// The manifest as it will be written (its file list is filled in by [`Prepared::save`]).
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// What the redaction replaced (share-safe bundles).
    pub fn redaction(&self) -> Option<RedactionCounts> {
        self.manifest.redaction
    }

    /// `<title>.agent-session.zip`, the title made a plain file name (the id without one).
    pub fn file_name(&self) -> String {
        file_name(&self.manifest.session)
    }

    /// Writes the bundle to a new file at `path` (see [`write_file`]).
    pub fn save(mut self, path: &Path, overwrite: bool) -> Result<Saved, Error> {
        let failed = |e: io::Error| Error::Write {
            path: path.to_path_buf(),
            source: e,
        };
        let zip_failed = |e: zip::result::ZipError| failed(io::Error::other(e.to_string()));
        let mut files = Vec::new();
        let bytes = write_file(path, overwrite, |out| {
            let mut zip = ZipWriter::new_stream(out);
            let options = SimpleFileOptions::default()
                .compression_method(CompressionMethod::Deflated)
                .unix_permissions(0o600)
                .large_file(true);
            for (name, kind, bytes) in &self.generated {
                zip.start_file(name.as_str(), options).map_err(zip_failed)?;
                let (size, sha256) =
                    copy_hashed(&mut bytes.as_slice(), &mut zip).map_err(failed)?;
                files.push(FileEntry {
                    path: name.clone(),
                    kind: *kind,
                    session: None,
                    size,
                    sha256,
                });
            }
            for f in &self.native {
                zip.start_file(f.name.as_str(), options)
                    .map_err(zip_failed)?;
                let (size, sha256) = match &f.source {
                    native::Source::Bytes(b) => copy_hashed(&mut b.as_slice(), &mut zip),
                    native::Source::File { path, len } => copy_file(path, *len, &mut zip),
                }
                .map_err(failed)?;
                files.push(FileEntry {
                    path: f.name.clone(),
                    kind: FileKind::Native,
                    session: Some(f.session.clone()),
                    size,
                    sha256,
                });
            }
            self.manifest.files = files.clone();
            let text = serde_json::to_vec_pretty(&self.manifest)
                .map_err(|e| failed(io::Error::other(e)))?;
            zip.start_file(MANIFEST, options).map_err(zip_failed)?;
            zip.write_all(&text).map_err(failed)?;
            zip.finish().map_err(zip_failed)?;
            Ok(())
        })?;
        Ok(Saved {
            path: path.to_path_buf(),
            bytes,
            manifest: self.manifest,
        })
    }
}

/// The first `len` bytes of the store file at `path` into `to`; (bytes, SHA-256 hex).
fn copy_file(path: &Path, len: u64, to: &mut dyn Write) -> io::Result<(u64, String)> {
    let file = crate::provider::files::open_regular(path)?;
    let (size, sha256) = copy_hashed(&mut file.take(len), to)?;
    if size != len {
        return Err(io::Error::other(format!(
            "{} shrank while it was read",
            path.display()
        )));
    }
    Ok((size, sha256))
}

/// Copies `from` into `to`; (bytes, SHA-256 hex).
fn copy_hashed(from: &mut dyn Read, to: &mut dyn Write) -> io::Result<(u64, String)> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 << 10];
    let mut n = 0u64;
    loop {
        let got = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(got) => got,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..got]);
        to.write_all(&buf[..got])?;
        n += got as u64;
    }
    Ok((n, hex(&hasher.finalize())))
}

/// Every descendant of `session` among `sessions` (subagents and theirs), oldest first; a
/// session two files hold has the subagents nearest its own file (as trash decides).
fn descendants<'a>(sessions: &'a [SessionMeta], session: &'a SessionMeta) -> Vec<&'a SessionMeta> {
    let mut out: Vec<&SessionMeta> = Vec::new();
    let mut i = 0;
    let mut parents = vec![session];
    while i < parents.len() {
        let parent = parents[i];
        i += 1;
        for s in sessions {
            let child = s.provider == session.provider
                && s.parent_id.as_deref() == Some(parent.id.as_str())
                && s.id != session.id
                && crate::actions::trash::nearest(sessions, parent, s)
                && !out.iter().any(|o| o.id == s.id);
            if child {
                out.push(s);
                parents.push(s);
            }
        }
    }
    out.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    out
}

/// `<title>.agent-session.zip` with the title as a plain file name.
pub fn file_name(session: &SessionInfo) -> String {
    let title = session.title.as_deref().unwrap_or_default();
    let mut name = String::new();
    for c in title.chars() {
        let keep = c.is_alphanumeric() || c == '-' || c == '_';
        match (keep, name.ends_with('-')) {
            (true, _) => name.push(c),
            (false, false) if !name.is_empty() => name.push('-'),
            _ => {}
        }
        if name.chars().count() >= 60 {
            break;
        }
    }
    let name = name.trim_matches('-');
    let name = if name.is_empty() {
        session.id.as_str()
    } else {
        name
    };
    format!("{name}{EXTENSION}")
}

/// This machine's name, where the system says it.
fn host_name() -> Option<String> {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is valid for its length; gethostname NUL-terminates within it or
        // fails.
        let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
        if rc == 0 {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            let name = String::from_utf8_lossy(&buf[..end]).into_owned();
            return (!name.is_empty()).then(|| super::manifest::tidy_title(&name));
        }
        None
    }
    #[cfg(not(unix))]
    {
        std::env::var("COMPUTERNAME").ok()
    }
}
