//! The main window may show only the app itself. Transcript content is untrusted, and a link
//! that navigated the window would replace the app with a remote page (with the app's IPC
//! bridge in reach). The UI already turns link clicks into an explicit "Open in browser"; this
//! guard is the shell's own rule, whatever the page does: any navigation away from the app's
//! origin is cancelled, and no new window is ever created.

use tauri::{Url, WebviewWindowBuilder};

/// Builds the main window from the config, with the navigation guard.
pub fn main_window(app: &tauri::App) -> tauri::Result<()> {
    let config = app
        .config()
        .app
        .windows
        .first()
        .cloned()
        .unwrap_or_default();
    // The dev server, in a build without embedded assets.
    let dev_url = if tauri::is_dev() {
        app.config().build.dev_url.clone()
    } else {
        None
    };
    WebviewWindowBuilder::from_config(app.handle(), &config)?
        .on_navigation(move |url| is_app_url(url, dev_url.as_ref()))
        .on_new_window(|_, _| tauri::webview::NewWindowResponse::Deny)
        .build()?;
    Ok(())
}

/// Whether `url` is the app's own page: the embedded assets (`tauri://localhost`, or
/// `http(s)://tauri.localhost` where the webview needs that form) or the dev server.
pub fn is_app_url(url: &Url, dev_url: Option<&Url>) -> bool {
    let host = url.host_str();
    match url.scheme() {
        "tauri" => host == Some("localhost"),
        "http" | "https" if host == Some("tauri.localhost") => url.port().is_none(),
        _ => dev_url.is_some_and(|dev| dev.origin() == url.origin()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn only_the_app_origin_is_allowed() {
        let dev = url("http://localhost:1420");
        for ok in [
            "tauri://localhost",
            "tauri://localhost/index.html#x",
            "http://tauri.localhost/",
            "https://tauri.localhost/assets/a.js",
        ] {
            assert!(is_app_url(&url(ok), None), "{ok}");
        }
        assert!(is_app_url(&url("http://localhost:1420/x"), Some(&dev)));
        for bad in [
            "http://127.0.0.1:8000/",
            "https://example.com/",
            "http://localhost:1420/",
            "tauri://evil.example/",
            "http://tauri.localhost.evil.example/",
            "http://tauri.localhost:8080/",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "data:text/html,x",
            "about:blank",
            "ipc://localhost/",
        ] {
            assert!(!is_app_url(&url(bad), None), "{bad}");
        }
        assert!(!is_app_url(&url("http://localhost:1421/"), Some(&dev)));
    }
}
