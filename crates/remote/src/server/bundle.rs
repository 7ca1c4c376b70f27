//! Bundles over the connection: `bundle_export` makes a bundle as `bundle export` does and
//! sends its bytes as event lines of bounded chunks; `upload_start` / `upload_chunk` receive
//! a file in bounded chunks into this connection's private temporary folder (size and SHA-256
//! checked as it completes); `bundle_import` previews and restores an uploaded bundle with
//! the core's own calls, so the same checks, refusals and token rule apply as for a local
//! `bundle import` (the token's key lives in this server process: a token from another
//! connection is refused). Uploads are removed when the connection ends.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use agent_sessions_core::bundle::{self, Agents, Bundle, BundleError, Mode, Target, Tokens};
use agent_sessions_core::{Error as CoreError, Library, Roots, ScanProgress};
use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::dispatch::{core_error, find_listed, resume_json};
use super::{lock, State};
use crate::command::hex;
use crate::protocol::*;

/// What one connection holds for transfers.
#[derive(Default)]
pub(crate) struct Transfers {
    dir: Option<tempfile::TempDir>,
    uploads: HashMap<u64, Upload>,
    next: u64,
    tokens: OnceLock<Arc<Tokens>>,
}

struct Upload {
    path: PathBuf,
    file: Option<File>,
    bytes: u64,
    received: u64,
    sha256: String,
    hasher: Sha256,
}

impl Transfers {
    /// The connection's private folder, made when first needed: 0700 on Unix, since the
    /// temporary folder is shared with every user of the host and an upload is a whole session.
    fn dir(&mut self) -> Result<&Path, CoreError> {
        if self.dir.is_none() {
            let mut builder = tempfile::Builder::new();
            builder.prefix("agent-sessions-transfer-");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                builder.permissions(std::fs::Permissions::from_mode(0o700));
            }
            let made = builder
                .tempdir()
                .map_err(|e| CoreError::io(std::env::temp_dir(), e))?;
            self.dir = Some(made);
        }
        Ok(self.dir.as_ref().expect("made").path())
    }
}

/// A new file for an upload: never one that is there already (or a link someone put there),
/// readable by the user only (0600 on Unix).
fn create_private(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

fn bad(message: impl Into<String>) -> WireError {
    WireError::new("bad_params", message)
}

fn io_error(path: &Path, e: std::io::Error) -> WireError {
    core_error(&CoreError::io(path.to_path_buf(), e))
}

/// Makes the bundle in the connection's folder, sends it in chunks, and removes it.
pub(super) fn export(state: &State, id: u64, p: BundleExportParams) -> Result<Value, WireError> {
    let (catalog, sessions, session) =
        find_listed(state, &p.session).map_err(|e| core_error(&e))?;
    let mode = if p.share_safe {
        Mode::ShareSafe
    } else {
        Mode::Complete
    };
    let prepared =
        bundle::prepare(&catalog, &sessions, &session, mode).map_err(|e| core_error(&e))?;
    let name = prepared.file_name();
    let path = {
        let mut transfers = lock(&state.transfers);
        let n = transfers.next;
        transfers.next += 1;
        transfers
            .dir()
            .map_err(|e| core_error(&e))?
            .join(format!("export-{n}.zip"))
    };
    let saved = prepared.save(&path, false).map_err(|e| core_error(&e));
    let sent = saved.and_then(|_| send_file(state, id, &path));
    let _ = std::fs::remove_file(&path);
    let (bytes, sha256) = sent?;
    Ok(json!(BundleExported {
        name,
        bytes,
        sha256
    }))
}

/// Sends a file as [`Chunk`] events of request `id`; its size and SHA-256.
fn send_file(state: &State, id: u64, path: &Path) -> Result<(u64, String), WireError> {
    let mut file = File::open(path).map_err(|e| io_error(path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; DOWNLOAD_CHUNK];
    let mut offset = 0u64;
    loop {
        let n = read_full(&mut file, &mut buf).map_err(|e| io_error(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        let chunk = Chunk {
            offset,
            base64: base64::engine::general_purpose::STANDARD.encode(&buf[..n]),
        };
        let line = ServerLine {
            id: Some(id),
            event: Some(json!(chunk)),
            ..ServerLine::default()
        };
        state
            .out
            .send(&line)
            .map_err(|e| WireError::new("connection_closed", e.to_string()))?;
        offset += n as u64;
    }
    Ok((offset, hex(&hasher.finalize())))
}

/// Reads until `buf` is full or the file ends.
fn read_full(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            m => n += m,
        }
    }
    Ok(n)
}

pub(super) fn upload_start(state: &State, p: UploadStartParams) -> Result<Value, WireError> {
    if p.bytes > MAX_UPLOAD {
        return Err(WireError::new(
            "too_large",
            format!(
                "an upload of {} bytes is over the limit of {MAX_UPLOAD}",
                p.bytes
            ),
        ));
    }
    if p.sha256.len() != 64 || !p.sha256.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad("sha256 must be 64 hex digits"));
    }
    let mut transfers = lock(&state.transfers);
    if transfers.uploads.len() >= MAX_UPLOADS {
        return Err(WireError::new(
            "too_many_uploads",
            format!("this connection holds {MAX_UPLOADS} uploads already; import one first"),
        ));
    }
    let upload = transfers.next;
    transfers.next += 1;
    let path = transfers
        .dir()
        .map_err(|e| core_error(&e))?
        .join(format!("upload-{upload}.zip"));
    let file = create_private(&path).map_err(|e| io_error(&path, e))?;
    transfers.uploads.insert(
        upload,
        Upload {
            path,
            file: Some(file),
            bytes: p.bytes,
            received: 0,
            sha256: p.sha256.to_ascii_lowercase(),
            hasher: Sha256::new(),
        },
    );
    Ok(json!(UploadStarted { upload }))
}

pub(super) fn upload_chunk(state: &State, p: UploadChunkParams) -> Result<Value, WireError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(p.chunk.base64.as_bytes())
        .map_err(|e| bad(format!("the chunk is not base64: {e}")))?;
    if bytes.len() > UPLOAD_CHUNK {
        return Err(bad(format!(
            "a chunk of {} bytes is over the limit of {UPLOAD_CHUNK}",
            bytes.len()
        )));
    }
    let mut transfers = lock(&state.transfers);
    let up = transfers
        .uploads
        .get_mut(&p.upload)
        .ok_or_else(|| no_upload(p.upload))?;
    let Some(file) = up.file.as_mut() else {
        return Err(bad(format!("upload {} is complete already", p.upload)));
    };
    if p.chunk.offset != up.received {
        return Err(bad(format!(
            "the chunk starts at {}, but {} bytes were received",
            p.chunk.offset, up.received
        )));
    }
    if up.received + bytes.len() as u64 > up.bytes {
        return Err(bad(format!(
            "the chunk goes past the {} bytes announced",
            up.bytes
        )));
    }
    file.write_all(&bytes).map_err(|e| io_error(&up.path, e))?;
    up.hasher.update(&bytes);
    up.received += bytes.len() as u64;
    let complete = up.received == up.bytes;
    if complete {
        let file = up.file.take().expect("open");
        file.sync_all().map_err(|e| io_error(&up.path, e))?;
        let got = hex(&std::mem::take(&mut up.hasher).finalize());
        if got != up.sha256 {
            let path = up.path.clone();
            transfers.uploads.remove(&p.upload);
            let _ = std::fs::remove_file(path);
            return Err(WireError::new(
                "upload_checksum",
                format!("the upload's SHA-256 is {got}, not the {} announced; it was dropped, send it again", p.upload),
            ));
        }
    }
    Ok(json!(UploadReceived {
        received: up.received,
        complete,
    }))
}

fn no_upload(upload: u64) -> WireError {
    WireError::new(
        "upload_not_found",
        format!("no upload {upload} on this connection (uploads end with their connection): upload the file again"),
    )
}

/// The file of a complete upload.
fn uploaded(state: &State, upload: u64) -> Result<PathBuf, WireError> {
    let transfers = lock(&state.transfers);
    let up = transfers
        .uploads
        .get(&upload)
        .ok_or_else(|| no_upload(upload))?;
    if up.file.is_some() {
        return Err(bad(format!(
            "upload {upload} has {} of its {} bytes",
            up.received, up.bytes
        )));
    }
    Ok(up.path.clone())
}

/// Preview, or restore with the token a preview gave, as `bundle import` does locally.
pub(super) fn import(state: &State, p: BundleImportParams) -> Result<Value, WireError> {
    let path = uploaded(state, p.upload)?;
    let result = restore(state, &path, &p).map_err(|e| core_error(&e))?;
    if result.restored.is_some() {
        // A restored upload is done with.
        lock(&state.transfers).uploads.remove(&p.upload);
        let _ = std::fs::remove_file(&path);
    }
    Ok(json!(result))
}

fn restore(
    state: &State,
    path: &Path,
    p: &BundleImportParams,
) -> Result<BundleImportResult, CoreError> {
    let b = Bundle::open(path)?;
    let kind = b.manifest.source.provider;
    let Some(root) = agent_sessions_core::bundle::restore::store_for(kind, &state.roots(), &p.dir)
    else {
        return Err(BundleError::Target(format!(
            "there is no {kind} store on this host to restore into; name one with --{kind}-root DIR"
        ))
        .into());
    };
    let mut lib = Library::open(
        &Roots::default().with(kind, [&root]),
        &[kind],
        state.cache_dir(true),
    );
    let listed = lib.sessions(&ScanProgress::default())?;
    let target = Target {
        root,
        dir: p.dir.clone(),
        as_copy: p.as_copy,
    };
    let (agents, tokens) = (Agents::from_path(), tokens(state));
    let (catalog, sessions) = (lib.catalog(), &listed.sessions);
    let preview = bundle::preview(&b, catalog, sessions, &target, &agents, &tokens)?;
    let mut result = BundleImportResult {
        manifest: b.manifest.clone(),
        preview,
        restored: None,
        session: None,
        resume_command: Value::Null,
    };
    let Some(token) = &p.token else {
        return Ok(result);
    };
    let restored = bundle::restore(path, catalog, sessions, &target, &agents, &tokens, token)?;
    // An Aider run restored into a directory no other agent ran in is listed from then on
    // (the host's cache remembers it), as after a local `bundle import`. The restore stands
    // if it cannot be remembered: the server's log says why.
    if let Some(why) =
        agent_sessions_core::near::remember_restored(state.cache_dir(true).as_deref(), &restored)
    {
        eprintln!("agent-sessions serve: {why}");
    }
    // The restored session, as the list shows it now.
    let now = lib.sessions(&ScanProgress::default())?;
    let session = now
        .sessions
        .into_iter()
        .find(|s| s.id == restored.session_id);
    if let Some(s) = &session {
        result.resume_command = resume_json(lib.catalog().resume_command(s).as_ref());
    }
    result.session = session;
    result.restored = Some(restored);
    if let Some(service) = lock(&state.service).as_ref() {
        service.wake();
    }
    Ok(result)
}

/// The connection's token key (made once: every preview and restore of it use the same).
fn tokens(state: &State) -> Arc<Tokens> {
    lock(&state.transfers)
        .tokens
        .get_or_init(|| Arc::new(Tokens::new()))
        .clone()
}
