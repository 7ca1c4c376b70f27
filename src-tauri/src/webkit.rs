//! How the app starts WebKitGTK. Its compositing mode (the page drawn in layers through
//! OpenGL) cost the window most of its memory and gave it nothing: the page is text, lists and
//! a few charts. Where no GPU is at hand (Xvfb, a VM, a remote desktop) OpenGL is Mesa's
//! llvmpipe in both the app and the page's process, and the layers live in memory: on the
//! bench's 300 MB store, idle, the web process held 190–240 MB PSS composited and 80–140 MB
//! without (docs/performance.md, "The window's memory (issue 36)"). So the app asks WebKit
//! for its non-composited mode unless the user chose for themselves:
//! `WEBKIT_DISABLE_COMPOSITING_MODE=0` in the environment brings compositing back.

use std::ffi::OsString;

/// WebKitGTK's own switch (it reads it when it starts, in every process it starts).
const COMPOSITING_OFF: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// The variables to set before GTK and WebKit start, given the environment as it is (`get`).
pub fn env_to_set(get: impl Fn(&str) -> Option<OsString>) -> Vec<(&'static str, &'static str)> {
    if cfg!(target_os = "linux") && get(COMPOSITING_OFF).is_none() {
        vec![(COMPOSITING_OFF, "1")]
    } else {
        Vec::new()
    }
}

/// Sets [`env_to_set`]'s variables. Called first thing in `main`, before any thread exists
/// (setting the environment while another thread reads it is not safe).
pub fn configure() {
    for (key, value) in env_to_set(|k| std::env::var_os(k)) {
        std::env::set_var(key, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compositing_is_off_unless_the_user_chose() {
        let none = |_: &str| None;
        let chosen = |v: &'static str| move |k: &str| (k == COMPOSITING_OFF).then(|| v.into());
        if cfg!(target_os = "linux") {
            assert_eq!(env_to_set(none), vec![(COMPOSITING_OFF, "1")]);
        } else {
            assert!(env_to_set(none).is_empty());
        }
        // Compositing asked back, or already off: left as the user set it.
        assert!(env_to_set(chosen("0")).is_empty());
        assert!(env_to_set(chosen("1")).is_empty());
    }
}
