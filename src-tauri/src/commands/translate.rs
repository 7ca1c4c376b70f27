//! Translate one message (SPEC §9, `docs/translation.md`). The webview names the session and the
//! message; the text and the HTTP request stay here, in Rust. The settings are read from
//! config.toml on each call, so what Settings saved applies to the next translation. A remote
//! host's message is read from there; the endpoint is asked from this computer.

use agent_sessions_core::actions::translate::{self, Endpoint, Limits, TranslateError};
use agent_sessions_core::config::ConfigFile;
use agent_sessions_core::paths::process_env;
use agent_sessions_core::view::TranslationView;
use tauri::AppHandle;

use super::{off_main, CmdError, CmdResult, ErrorCode, SessionRef};

/// The translation of the message `message_id` of `session`. Errors keep core's codes
/// (`translate_not_configured`, `translate_timeout`, …: `docs/translation.md`), so the UI can
/// say "set it up in Settings" rather than a bare failure.
#[tauri::command]
pub async fn translate_message(
    app: AppHandle,
    session: SessionRef,
    message_id: String,
) -> CmdResult<TranslationView> {
    off_main(app, move |state| {
        let settings = ConfigFile::load_default(&process_env).settings().translate;
        // Before the transcript is even looked at: an endpoint that is not set up gets nothing.
        let endpoint = Endpoint::of(&settings).map_err(coded)?;
        let text = match state.remote.current() {
            // A remote host's message is read from its pages; the request is sent from here.
            Some(host) => {
                let found = host.find(&session, &message_id)?;
                translate::text_in(found.as_ref().map(|(_, m)| m), &message_id)
            }
            // The transcript lock is held for the look-up only, not while the endpoint answers.
            None => {
                state.with_transcript(&session, |t| translate::text_in(&t.messages, &message_id))?
            }
        }
        .map_err(coded)?;
        let done = endpoint
            .translate(&message_id, &text, &Limits::default())
            .map_err(coded)?;
        Ok(TranslationView::from(done))
    })
    .await
}

fn coded(e: TranslateError) -> CmdError {
    CmdError::new(ErrorCode::of(e.code()), e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translation_errors_keep_their_codes() {
        let e = coded(TranslateError::NotConfigured { missing: "model" });
        assert_eq!(e.code, "translate_not_configured");
        assert!(e.message.contains("model"), "{}", e.message);
        assert_eq!(coded(TranslateError::NoText).code, "translate_no_text");
    }
}
