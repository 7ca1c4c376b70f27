//! Copy resume command, reveal source file, open a link in the browser.

use agent_sessions_core::actions::reveal;
use agent_sessions_core::view::ResumeView;
use tauri::{AppHandle, Url};

use super::{off_main, CmdError, CmdResult, SessionRef};

#[tauri::command]
pub async fn resume_command(app: AppHandle, session: SessionRef) -> CmdResult<ResumeView> {
    off_main(app, move |state| {
        if let Some(host) = state.remote.current() {
            // `ssh -t ALIAS 'cd -- … && claude --resume …'`: pasted anywhere, it resumes there.
            let there = host.resume(&session)?;
            return Ok(ResumeView::from(&host.ssh_command(&there)?));
        }
        let meta = state.resolve(&session)?;
        let cmd = state.service.library().catalog().resume_command(&meta)?;
        Ok(ResumeView::from(&cmd))
    })
    .await
}

/// Shows the session's source file, at the path the cache holds for it.
#[tauri::command]
pub async fn reveal(app: AppHandle, session: SessionRef) -> CmdResult<()> {
    off_main(app, move |state| {
        state.remote.local_only("Reveal source file")?;
        let meta = state.resolve(&session)?;
        Ok(reveal::reveal(&meta.source_path)?)
    })
    .await
}

/// Opens a link from a transcript in the system browser. The UI calls this only after the user
/// chose "Open in browser"; the URL is checked again here, whatever the webview sends.
#[tauri::command]
pub async fn open_link(url: String) -> CmdResult<()> {
    let url = browser_url(&url)?;
    // The launcher gets the URL as one argument (never through a shell).
    open::that_detached(url.as_str())
        .map_err(|e| CmdError::new_io(format!("cannot open a browser for {url}: {e}")))
}

/// Longest URL handed to the browser.
const MAX_URL: usize = 8 * 1024;

/// `raw` as an absolute http(s) URL with a host and no credentials, or why not.
fn browser_url(raw: &str) -> CmdResult<Url> {
    if raw.len() > MAX_URL {
        return Err(CmdError::invalid_input("the link is too long to open"));
    }
    let url = Url::parse(raw)
        .map_err(|e| CmdError::invalid_input(format!("not a link that can be opened: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(CmdError::invalid_input(format!(
            "only http and https links open in the browser, not {}:",
            url.scheme()
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(CmdError::invalid_input("the link has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(CmdError::invalid_input(
            "links with a user name or password in them are not opened",
        ));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_http_links_reach_the_browser() {
        for ok in [
            "https://example.com/a?b=c#d",
            "http://127.0.0.1:8080/",
            "HTTPS://EXAMPLE.COM",
        ] {
            assert!(browser_url(ok).is_ok(), "{ok}");
        }
        for bad in [
            "javascript:alert(1)",
            "//example.com/x",
            "/etc/passwd",
            "file:///etc/passwd",
            "tauri://localhost/index.html",
            "mailto:a@b.c",
            "data:text/html,<script>x</script>",
            "https://user:pw@example.com/",
            "https://bank.example@evil.example/",
            "http://",
            "",
            "example.com",
            " javascript:alert(1)",
        ] {
            let e = browser_url(bad).expect_err(bad);
            assert_eq!(e.code, "invalid_input", "{bad}");
        }
        assert!(browser_url(&format!("https://a.example/{}", "x".repeat(MAX_URL))).is_err());
    }
}
