//! Export a session: the save dialog is opened here, in Rust, and the document is written by
//! core's `actions::export` to the file chosen in it. The webview sends only the session's
//! (provider, id), the format and the options: no path ever comes from it, and the dialog's
//! plugin commands are not granted to the window (capabilities/default.json).

use std::path::PathBuf;

use agent_sessions_core::actions::export::{Exporter, Format, Options};
use agent_sessions_core::SessionMeta;
use serde::Serialize;
use tauri::AppHandle;

use super::dialog::{chosen, native, refuse_stores};
use super::{off_main, CmdResult, SessionRef};

#[derive(Serialize, ts_rs::TS)]
pub struct Exported {
    path: PathBuf,
    bytes: u64,
}

/// Asks where to save `session` as `format`, then writes it there. `None`: the dialog was
/// cancelled and nothing was written.
#[tauri::command]
pub async fn export_session(
    app: AppHandle,
    session: SessionRef,
    format: Format,
    options: Options,
) -> CmdResult<Option<Exported>> {
    let handle = app.clone();
    off_main(app, move |state| {
        if let Some(host) = state.remote.current() {
            // Read there page by page, written here by the same code as a local export.
            let transcript = host.transcript(&session)?;
            let Some(path) = save_dialog(&handle, &transcript.session, format)? else {
                return Ok(None);
            };
            refuse_stores(state, &path)?;
            let bytes =
                Exporter::from_transcript(&transcript, options).save(format, &path, true)?;
            return Ok(Some(Exported { path, bytes }));
        }
        let meta = state.resolve(&session)?;
        // Blocking is fine here: this runs on the blocking pool, not the window's thread.
        let Some(path) = save_dialog(&handle, &meta, format)? else {
            return Ok(None);
        };
        refuse_stores(state, &path)?;
        let lib = state.service.library();
        // The dialog has asked before replacing a file, so an existing one is replaced.
        let bytes =
            Exporter::from_store(lib.catalog(), &meta, options).save(format, &path, true)?;
        Ok(Some(Exported { path, bytes }))
    })
    .await
}

/// The native save dialog (see [`native`]), with a file name made from the session's title.
fn save_dialog(
    app: &AppHandle,
    session: &SessionMeta,
    format: Format,
) -> CmdResult<Option<PathBuf>> {
    let (kind, ext) = match format {
        Format::Markdown => ("Markdown", "md"),
        Format::Json => ("JSON", "json"),
        Format::Html => ("HTML", "html"),
    };
    let dialog = native(app, &format!("Export session as {kind}"))
        .set_file_name(format!("{}.{ext}", file_stem(session)))
        .add_filter(kind, &[ext]);
    chosen(dialog.blocking_save_file())
}

/// Longest file name stem offered.
const MAX_STEM: usize = 60;

/// A file name from the title (a hostile one included): letters, digits, `-` and `_` only, so
/// it names no folder and hides no extension; the id's start keeps two exports apart.
fn file_stem(session: &SessionMeta) -> String {
    let words = session
        .title
        .as_deref()
        .unwrap_or("")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let title: String = words.chars().take(MAX_STEM).collect();
    let id: String = session
        .id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(8)
        .collect();
    match (title.is_empty(), id.is_empty()) {
        (false, false) => format!("{title}-{id}"),
        (false, true) => title,
        (true, false) => format!("session-{id}"),
        (true, true) => "session".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_sessions_core::ProviderKind;

    fn named(title: Option<&str>, id: &str) -> String {
        let mut s = SessionMeta::new(ProviderKind::Claude, id.into(), "/x".into());
        s.title = title.map(String::from);
        file_stem(&s)
    }

    #[test]
    fn file_names_from_titles_name_no_folder() {
        let id = "9d22e384-6685-4b75";
        assert_eq!(
            named(Some("Fix the login bug"), id),
            "Fix-the-login-bug-9d22e384"
        );
        assert_eq!(named(Some("../../etc/passwd"), id), "etc-passwd-9d22e384");
        assert_eq!(named(Some("a\\b/c\0d\n.html"), id), "a-b-c-d-html-9d22e384");
        assert_eq!(named(Some("Ünïcode 日本語"), id), "Ünïcode-日本語-9d22e384");
        assert_eq!(named(Some("  "), id), "session-9d22e384");
        assert_eq!(named(None, "../.."), "session");
        assert_eq!(
            named(Some(&"x".repeat(500)), id).chars().count(),
            MAX_STEM + 9
        );
    }
}
