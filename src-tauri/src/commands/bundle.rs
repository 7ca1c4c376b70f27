//! Bundles in the app (docs/bundle-format.md): export a session as a bundle, and import one
//! into the agent's store under a directory the user chose. Every file path comes from a
//! native dialog opened here, in Rust: the save dialog for an export, the open dialog for the
//! bundle to import (the webview gets an opaque handle for it, never sends a path back), and
//! a folder dialog to pick the target directory (which the user may also type). The restore
//! runs only the preview last shown for that handle, with the token the preview issued, which
//! stays here.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex};

use agent_sessions_core::actions::handoff::Budget;
use agent_sessions_core::bundle::{
    self, Agents, Bundle, Manifest, Mode, Preview, RedactionCounts, Restored, Target, Tokens,
};
use agent_sessions_core::{Error, ScanProgress, SessionMeta};
use serde::Serialize;
use tauri::AppHandle;

use super::dialog::{chosen, native as dialog, refuse_stores};
use super::handoff::{start, target_of, Continued};
use super::{off_main, CmdError, CmdResult, ErrorCode, SessionRef};
use crate::state::AppState;

/// The one key that signs this app's restore tokens (they live minutes, in this process only).
static TOKENS: LazyLock<Tokens> = LazyLock::new(Tokens::new);

/// Bundles chosen in the open dialog, by the handle the webview was given.
static CHOSEN: LazyLock<Mutex<HashMap<String, PathBuf>>> = LazyLock::new(Default::default);

/// Numbers the handles.
static NEXT: AtomicU64 = AtomicU64::new(1);

/// The preview last shown (its handle and what it allows): the only restore that can run.
static SHOWN: Mutex<Option<(String, Target, Preview)>> = Mutex::new(None);

/// The same for a remote host: the preview made there for the bundle uploaded as `upload`.
struct RemoteShown {
    handle: String,
    alias: String,
    upload: u64,
    dir: PathBuf,
    as_copy: bool,
    token: String,
}

static REMOTE_SHOWN: Mutex<Option<RemoteShown>> = Mutex::new(None);

/// Core's bundle codes (`bundle_unsafe`, `session_exists`, `restore_token`, …) cross as they
/// are, so the dialog can say what was refused; other errors as every command reports them.
fn cmd_error(e: Error) -> CmdError {
    match &e {
        Error::Bundle(b) => CmdError {
            code: ErrorCode::of(b.code()),
            ..CmdError::from(e)
        },
        _ => CmdError::from(e),
    }
}

#[derive(Serialize, ts_rs::TS)]
pub struct BundleSaved {
    path: PathBuf,
    bytes: u64,
    redaction: Option<RedactionCounts>,
}

/// Asks where to save `session` as a bundle (complete, or `share_safe`), then writes it there
/// (0600). `None`: the dialog was cancelled and nothing was written.
#[tauri::command]
pub async fn export_bundle(
    app: AppHandle,
    session: SessionRef,
    share_safe: bool,
) -> CmdResult<Option<BundleSaved>> {
    let handle = app.clone();
    off_main(app, move |state| {
        if let Some(host) = state.remote.current() {
            return export_remote(state, &handle, &host, &session, share_safe);
        }
        let meta = state.resolve(&session)?;
        let mode = if share_safe {
            Mode::ShareSafe
        } else {
            Mode::Complete
        };
        let prepared = prepare(state, &meta, mode)?;
        let title = match mode {
            Mode::Complete => "Export session as a bundle",
            Mode::ShareSafe => "Export session as a share-safe bundle",
        };
        let dialog = dialog(&handle, title)
            .set_file_name(prepared.file_name())
            .add_filter("Session bundle", &["zip"]);
        let Some(path) = chosen(dialog.blocking_save_file())? else {
            return Ok(None);
        };
        refuse_stores(state, &path)?;
        // The dialog has asked before replacing a file, so an existing one is replaced.
        let saved = prepared.save(&path, true).map_err(cmd_error)?;
        Ok(Some(BundleSaved {
            path: saved.path,
            bytes: saved.bytes,
            redaction: saved.manifest.redaction,
        }))
    })
    .await
}

/// A remote session's bundle: made there and downloaded into a private temporary file, checked
/// here as any bundle from elsewhere (core's reader), then saved where the user chooses (all or
/// nothing: a temporary file beside the target, renamed into place, 0600).
fn export_remote(
    state: &AppState,
    handle: &AppHandle,
    host: &crate::remote::Host,
    session: &SessionRef,
    share_safe: bool,
) -> CmdResult<Option<BundleSaved>> {
    let io = |e: std::io::Error| CmdError::new_io(format!("cannot write the bundle: {e}"));
    let mut download = tempfile::NamedTempFile::new().map_err(io)?;
    let got = host.bundle(session, share_safe, download.as_file_mut())?;
    let checked = Bundle::open(download.path()).map_err(|e| cmd_error(e.into()))?;
    // The name is the host's: only its last component is offered, as a suggestion.
    let name = Path::new(&got.name)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session.agent-session.zip".into());
    let title = format!("Export {}'s session as a bundle", host.alias);
    let dialog = dialog(handle, &title)
        .set_file_name(name)
        .add_filter("Session bundle", &["zip"]);
    let Some(path) = chosen(dialog.blocking_save_file())? else {
        return Ok(None);
    };
    refuse_stores(state, &path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut out = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    std::io::copy(&mut download.reopen().map_err(io)?, out.as_file_mut()).map_err(io)?;
    out.persist(&path).map_err(|e| io(e.error))?;
    Ok(Some(BundleSaved {
        path,
        bytes: got.bytes,
        redaction: checked.manifest.redaction,
    }))
}

/// What a share-safe bundle of `session` would redact, per rule: shown before it is saved.
#[tauri::command]
pub async fn bundle_redaction(app: AppHandle, session: SessionRef) -> CmdResult<RedactionCounts> {
    off_main(app, move |state| {
        state.remote.local_only("Export as a bundle")?;
        let meta = state.resolve(&session)?;
        let prepared = prepare(state, &meta, Mode::ShareSafe)?;
        Ok(prepared.redaction().unwrap_or_default())
    })
    .await
}

/// The bundle of `session` as it would be saved, from the current listing (its subagents).
fn prepare(state: &AppState, meta: &SessionMeta, mode: Mode) -> CmdResult<bundle::Prepared> {
    let lib = state.service.library();
    let listed = lib.listed(&ScanProgress::default())?;
    bundle::prepare(lib.catalog(), &listed.sessions, meta, mode).map_err(cmd_error)
}

#[derive(Serialize, ts_rs::TS)]
pub struct BundleOpened {
    /// Names the chosen file in the calls that follow.
    handle: String,
    file_name: String,
    bytes: u64,
    /// What its entries unpack to in all (within the reader's limits; shown beside `bytes`).
    unpacked: u64,
    manifest: Manifest,
    /// The directories the bundle's agent already has sessions in, to restore into.
    dirs: Vec<String>,
}

/// Asks for a bundle to import and checks it (core's reader: nothing is written). `None`: the
/// dialog was cancelled.
#[tauri::command]
pub async fn import_bundle_open(app: AppHandle) -> CmdResult<Option<BundleOpened>> {
    let handle = app.clone();
    off_main(app, move |state| {
        let dialog =
            dialog(&handle, "Import a session bundle").add_filter("Session bundle", &["zip"]);
        let Some(path) = chosen(dialog.blocking_pick_file())? else {
            return Ok(None);
        };
        let b = Bundle::open(&path).map_err(|e| cmd_error(e.into()))?;
        let kind = b.manifest.source.provider;
        // The directories offered are where the shown machine has sessions of that agent.
        let listed = match state.remote.current() {
            Some(host) => host.list()?.0,
            None => state.service.library().listed(&ScanProgress::default())?,
        };
        let dirs: BTreeSet<String> = listed
            .sessions
            .iter()
            .filter(|s| s.provider == kind)
            .filter_map(|s| s.cwd.clone())
            .collect();
        let id = format!("bundle-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        CHOSEN.lock()?.insert(id.clone(), path.clone());
        Ok(Some(BundleOpened {
            handle: id,
            file_name: file_name(&path),
            bytes: b.size,
            unpacked: b.unpacked,
            manifest: b.manifest,
            dirs: dirs.into_iter().collect(),
        }))
    })
    .await
}

/// The folder dialog for the directory to restore into. `None`: cancelled.
#[tauri::command]
pub async fn import_bundle_pick_dir(app: AppHandle) -> CmdResult<Option<PathBuf>> {
    let handle = app.clone();
    off_main(app, move |state| {
        state.remote.local_only("Browsing for a folder")?;
        chosen(dialog(&handle, "Restore the session into").blocking_pick_folder())
    })
    .await
}

/// What restoring the bundle `handle` under `dir` would write (core's preview, which checks
/// everything and writes nothing); it becomes the one restore that can run.
#[tauri::command]
pub async fn import_bundle_preview(
    app: AppHandle,
    handle: String,
    dir: PathBuf,
    as_copy: bool,
) -> CmdResult<Preview> {
    off_main(app, move |state| {
        *SHOWN.lock()? = None;
        *REMOTE_SHOWN.lock()? = None;
        let b = opened_in(&handle, &dir)?;
        if let Some(host) = state.remote.current() {
            return preview_remote(&host, handle, dir, as_copy);
        }
        let kind = b.manifest.source.provider;
        let root = bundle::restore::store_for(kind, &state.roots(), &dir).ok_or_else(|| {
            CmdError::not_found(format!("there is no {kind} store to restore into"))
        })?;
        let target = Target { root, dir, as_copy };
        let lib = state.service.library();
        let listed = lib.listed(&ScanProgress::default())?;
        let preview = bundle::preview(
            &b,
            lib.catalog(),
            &listed.sessions,
            &target,
            &Agents::from_path(),
            &TOKENS,
        )
        .map_err(cmd_error)?;
        *SHOWN.lock()? = Some((handle, target, preview.clone()));
        Ok(preview)
    })
    .await
}

#[derive(Serialize, ts_rs::TS)]
pub struct BundleRestored {
    restored: Restored,
    /// The restored session as the refreshed list has it (the UI opens it).
    session: Option<SessionMeta>,
}

/// Restores the bundle `handle` exactly as last previewed (core checks everything again and
/// the token binds the bundle and target); then the list is refreshed and the worker woken.
#[tauri::command]
pub async fn import_bundle_restore(app: AppHandle, handle: String) -> CmdResult<BundleRestored> {
    off_main(app, move |state| {
        if let Some(host) = state.remote.current() {
            return restore_remote(&host, &handle);
        }
        let shown = SHOWN.lock()?.take().filter(|(h, _, _)| *h == handle);
        let Some((_, target, preview)) = shown else {
            return Err(CmdError::invalid_input(
                "nothing was restored: show what would be restored first",
            ));
        };
        let path = bundle_path(&handle)?;
        let lib = state.service.library();
        let listed = lib.listed(&ScanProgress::default())?;
        let restored = bundle::restore(
            &path,
            lib.catalog(),
            &listed.sessions,
            &target,
            &Agents::from_path(),
            &TOKENS,
            &preview.token,
        )
        .map_err(cmd_error)?;
        CHOSEN.lock()?.remove(&handle);
        drop(lib);
        // A session appended into the directory itself (Aider's history) is remembered, so
        // the scans look there from now on (core `near`). The restore stands if that fails;
        // the list then shows the session only while another agent's session names the folder.
        let cache = state.service.cache_dir();
        if let Some(why) = agent_sessions_core::near::remember_restored(cache.as_deref(), &restored)
        {
            eprintln!("agent-sessions: {why}");
        }
        // In the list at once, whatever the worker's next refresh takes.
        let now = state.service.refresh()?;
        let session = now
            .sessions
            .into_iter()
            .find(|s| s.provider == restored.provider && s.id == restored.session_id);
        state.service.wake();
        Ok(BundleRestored { restored, session })
    })
    .await
}

/// Forgets a bundle chosen for import (the dialog was closed).
/// Continues the bundle `handle`'s session in `target` (`claude`, `codex` or `opencode`),
/// started in a terminal in `dir` with a handoff written from the bundle's transcript: nothing
/// is restored (core `bundle::handoff`; what a share-safe bundle is for).
#[tauri::command]
pub async fn import_bundle_continue(
    app: AppHandle,
    handle: String,
    dir: PathBuf,
    target: String,
) -> CmdResult<Continued> {
    off_main(app, move |state| {
        state.remote.local_only("Continuing a bundle in an agent")?;
        let target = target_of(&target)?;
        let b = opened_in(&handle, &dir)?;
        let continued =
            bundle::handoff::handoff(&b, &dir, target, Budget::default()).map_err(cmd_error)?;
        start(state, &continued.session, target, || Ok(continued.handoff))
    })
    .await
}

/// A remote host's preview: the bundle is uploaded (checked there against its SHA-256) and
/// previewed by the host's core, which checks everything and writes nothing.
fn preview_remote(
    host: &crate::remote::Host,
    handle: String,
    dir: PathBuf,
    as_copy: bool,
) -> CmdResult<Preview> {
    let upload = host.upload(&bundle_path(&handle)?)?;
    let answer = host.bundle_import(upload, &dir, as_copy, None)?;
    *REMOTE_SHOWN.lock()? = Some(RemoteShown {
        handle,
        alias: host.alias.clone(),
        upload,
        dir,
        as_copy,
        token: answer.preview.token.clone(),
    });
    Ok(answer.preview)
}

/// Restores there exactly the preview last shown (the host's token allows only that).
fn restore_remote(host: &crate::remote::Host, handle: &str) -> CmdResult<BundleRestored> {
    let shown = REMOTE_SHOWN
        .lock()?
        .take()
        .filter(|s| s.handle == handle && s.alias == host.alias);
    let Some(shown) = shown else {
        return Err(CmdError::invalid_input(
            "nothing was restored: show what would be restored first",
        ));
    };
    let answer = host.bundle_import(shown.upload, &shown.dir, shown.as_copy, Some(shown.token))?;
    let restored = answer.restored.ok_or_else(|| {
        CmdError::new(
            ErrorCode::Protocol,
            format!("{} previewed instead of restoring", host.alias),
        )
    })?;
    CHOSEN.lock()?.remove(handle);
    Ok(BundleRestored {
        restored,
        session: answer.session,
    })
}

#[tauri::command]
pub async fn import_bundle_close(app: AppHandle, handle: String) -> CmdResult<()> {
    off_main(app, move |_| {
        CHOSEN.lock()?.remove(&handle);
        let mut shown = SHOWN.lock()?;
        if shown.as_ref().is_some_and(|(h, _, _)| *h == handle) {
            *shown = None;
        }
        let mut remote = REMOTE_SHOWN.lock()?;
        if remote.as_ref().is_some_and(|r| r.handle == handle) {
            *remote = None;
        }
        Ok(())
    })
    .await
}

fn bundle_path(handle: &str) -> CmdResult<PathBuf> {
    CHOSEN.lock()?.get(handle).cloned().ok_or_else(|| {
        CmdError::invalid_input("no bundle is open under that handle: choose it again")
    })
}

/// The bundle `handle`, opened and checked again, for a session to continue in `dir` (a full
/// path: the webview cannot know this process's working directory).
fn opened_in(handle: &str, dir: &Path) -> CmdResult<Bundle> {
    let path = bundle_path(handle)?;
    if !dir.is_absolute() {
        return Err(CmdError::invalid_input(
            "the directory must be a full path (starting at the root)",
        ));
    }
    Bundle::open(&path).map_err(|e| cmd_error(e.into()))
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_sessions_core::bundle::BundleError;

    #[test]
    fn bundle_refusals_keep_core_codes() {
        let cases = [
            (BundleError::Exists("s is there".into()), "session_exists"),
            (BundleError::Unsafe("../x".into()), "bundle_unsafe"),
            (BundleError::Token("expired".into()), "restore_token"),
            (
                BundleError::NotRestorable("share-safe".into()),
                "bundle_not_restorable",
            ),
        ];
        for (e, code) in cases {
            let message = e.to_string();
            let got = cmd_error(Error::Bundle(e));
            assert_eq!(got.code, code);
            assert_eq!(got.message, message);
        }
        let other = cmd_error(Error::session_not_found("s"));
        assert_eq!(other.code, "not_found");
    }

    #[test]
    fn an_unknown_handle_names_no_bundle() {
        assert_eq!(
            bundle_path("bundle-unknown").unwrap_err().code,
            "invalid_input"
        );
    }
}
