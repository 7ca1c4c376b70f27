//! How the app starts WebKitGTK. Its compositing mode (the page drawn in layers through
//! OpenGL) cost the window most of its memory and gave it nothing: the page is text, lists and
//! a few charts. Where no GPU is at hand (Xvfb, a VM, a remote desktop) OpenGL is Mesa's
//! llvmpipe in both the app and the page's process, and the layers live in memory: on the
//! bench's 300 MB store, idle, the web process held 190–240 MB PSS composited and 80–140 MB
//! without (docs/performance.md, "The window's memory (issue 36)"). So the app asks WebKit
//! for its non-composited mode unless the user chose for themselves:
//! `WEBKIT_DISABLE_COMPOSITING_MODE=0` in the environment brings compositing back.
//!
//! With compositing off, nothing in the app's own process draws with OpenGL, yet three probes
//! still loaded the system's OpenGL driver there (Mesa's, which links LLVM): 30 MB of the main
//! process's PSS (docs/performance.md, "Third round"). [`NO_GL_PROBES`] turns each off; each
//! only concerns composited drawing, so a machine with a real GPU loses nothing either.

use std::ffi::OsString;
use std::path::Path;

/// WebKitGTK's own switch (it reads it when it starts, in every process it starts).
const COMPOSITING_OFF: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// Where WebKit names the render node it hands the page (the one the page would allocate GPU
/// buffers on), when the UI process is not to ask EGL for it.
const RENDER_NODE: &str = "WEBKIT_WEB_RENDER_DEVICE_FILE";

/// The variables that keep OpenGL out of the app's process once compositing is off (found
/// with `LD_DEBUG=files` and a breakpoint on the driver's load; all three are needed):
/// - `GDK_GL=disable`: GTK 3 opens GLX when it opens the display, to rank visuals for GL
///   drawing (`GtkGLArea`, which the app has none of).
/// - `WEBKIT_DISABLE_DMABUF_RENDERER=1`: the DMA-BUF renderer carries composited frames from
///   the page to the window, and the UI process opens an EGL display to choose its buffers.
///   Without compositing there are no such frames (the page paints into shared memory).
/// - [`RENDER_NODE`]: unless told, the UI process opens an EGL display to ask which render
///   node to give the page; the page allocates on it only for the DMA-BUF renderer's buffers
///   (`WebProcess::initializePlatformDisplayIfNeeded`), so with that renderer off the node is
///   never used, and the value given is WebKit's own fallback ([`render_node`]).
const NO_GL_PROBES: [&str; 3] = ["GDK_GL", "WEBKIT_DISABLE_DMABUF_RENDERER", RENDER_NODE];

/// The variables to set before GTK and WebKit start, given the environment as it is (`get`)
/// and the render node to name (`node`, asked for only when it is needed). A variable the
/// user set is left as set; with compositing asked back, nothing is set at all.
pub fn env_to_set(
    get: impl Fn(&str) -> Option<OsString>,
    node: impl FnOnce() -> String,
) -> Vec<(&'static str, String)> {
    let compositing_asked = get(COMPOSITING_OFF).is_some_and(|v| v == "0");
    if !cfg!(target_os = "linux") || compositing_asked {
        return Vec::new();
    }
    let mut set = Vec::new();
    if get(COMPOSITING_OFF).is_none() {
        set.push((COMPOSITING_OFF, "1".to_string()));
    }
    let mut node = Some(node);
    for key in NO_GL_PROBES {
        if get(key).is_some() {
            continue;
        }
        let value = match key {
            "GDK_GL" => "disable".to_string(),
            RENDER_NODE => node.take().map(|f| f()).unwrap_or_default(),
            _ => "1".to_string(),
        };
        set.push((key, value));
    }
    set
}

/// The render node WebKit itself falls back to when EGL cannot say (`drmFirstRenderNode`):
/// the first `renderD*` in `dir` (`/dev/dri`). Where there is none (a VM, a container, Xvfb)
/// the usual first name stands in; either way the page never opens it (see [`NO_GL_PROBES`]).
pub fn render_node(dir: &Path) -> String {
    let first = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("renderD"))
        })
        .min();
    first
        .unwrap_or_else(|| dir.join("renderD128"))
        .to_string_lossy()
        .into_owned()
}

/// Sets [`env_to_set`]'s variables. Called first thing in `main`, before any thread exists
/// (setting the environment while another thread reads it is not safe).
pub fn configure() {
    let node = || render_node(Path::new("/dev/dri"));
    for (key, value) in env_to_set(|k| std::env::var_os(k), node) {
        std::env::set_var(key, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node() -> String {
        "/dev/dri/renderD128".into()
    }

    fn keys(set: &[(&'static str, String)]) -> Vec<&'static str> {
        set.iter().map(|(k, _)| *k).collect()
    }

    #[test]
    fn compositing_is_off_unless_the_user_chose() {
        let none = |_: &str| None;
        let chosen = |v: &'static str| move |k: &str| (k == COMPOSITING_OFF).then(|| v.into());
        if !cfg!(target_os = "linux") {
            assert!(env_to_set(none, node).is_empty());
            return;
        }
        assert_eq!(
            env_to_set(none, node),
            vec![
                (COMPOSITING_OFF, "1".to_string()),
                ("GDK_GL", "disable".to_string()),
                ("WEBKIT_DISABLE_DMABUF_RENDERER", "1".to_string()),
                (RENDER_NODE, node()),
            ]
        );
        // Compositing asked back: OpenGL is the user's choice, nothing is turned off.
        assert!(env_to_set(chosen("0"), node).is_empty());
        // Already off by the user's hand: the GL probes still go.
        assert_eq!(keys(&env_to_set(chosen("1"), node)), NO_GL_PROBES);
    }

    #[test]
    fn a_probe_the_user_set_is_left_as_set() {
        if !cfg!(target_os = "linux") {
            return;
        }
        for (i, user) in NO_GL_PROBES.iter().enumerate() {
            let get = |k: &str| (k == *user).then(|| "mine".into());
            let mut expected = vec![COMPOSITING_OFF];
            expected.extend(
                NO_GL_PROBES
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, k)| *k),
            );
            assert_eq!(keys(&env_to_set(get, node)), expected, "{user}");
        }
        // The node is not looked for when the user named one.
        let named = |k: &str| (k == RENDER_NODE).then(|| "/dev/dri/renderD129".into());
        env_to_set(named, || panic!("looked for a render node the user named"));
    }

    #[test]
    fn the_render_node_is_the_first_there_is() {
        let dir = tempfile::tempdir().unwrap();
        let fallback = dir.path().join("renderD128").to_string_lossy().into_owned();
        assert_eq!(render_node(dir.path()), fallback, "no node: the usual name");
        assert_eq!(
            render_node(&dir.path().join("absent")),
            dir.path().join("absent/renderD128").to_string_lossy()
        );
        for name in ["card0", "renderD129", "renderD130"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let first = dir.path().join("renderD129").to_string_lossy().into_owned();
        assert_eq!(render_node(dir.path()), first);
    }
}
