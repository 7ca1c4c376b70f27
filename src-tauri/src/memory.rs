//! glibc's allocator in the app's own process (the window's WebKit processes keep theirs).
//!
//! glibc gives each thread that allocates while another holds the main heap an arena of its
//! own, up to eight per core, and memory freed in an arena stays there for the next
//! allocation of that arena's threads. The app's threads (indexing's pool, the service loop,
//! tokio's, WebKit's and GTK's) left 63–72 MB of anonymous memory behind once the 300 MB
//! store was indexed, much of it spread over those arenas; two arenas held the same work in
//! 50 MB (docs/performance.md, "Third round"). Two, not one, so that indexing on one thread
//! and the window on another never wait for the same lock.

use std::ffi::OsString;

/// Arenas the app's process uses, unless the user said (see [`arena_max`]).
const ARENAS: i32 = 2;

/// The arena limit to set, given the environment (`get`): none when the user set glibc's
/// own (`MALLOC_ARENA_MAX`, or `glibc.malloc.arena_max` in `GLIBC_TUNABLES`).
// Read only where glibc is the allocator.
#[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
pub fn arena_max(get: impl Fn(&str) -> Option<OsString>) -> Option<i32> {
    let tunables = get("GLIBC_TUNABLES").unwrap_or_default();
    let in_tunables = tunables
        .to_string_lossy()
        .contains("glibc.malloc.arena_max");
    (get("MALLOC_ARENA_MAX").is_none() && !in_tunables).then_some(ARENAS)
}

/// Sets [`arena_max`]. Called first thing in `main`, before any thread allocates.
pub fn configure() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if let Some(arenas) = arena_max(|k| std::env::var_os(k)) {
        // SAFETY: mallopt only changes a limit glibc reads when a thread next needs an arena.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_arenas_unless_the_user_set_glibcs_own() {
        assert_eq!(arena_max(|_| None), Some(ARENAS));
        let set = |key: &'static str, value: &'static str| {
            move |k: &str| (k == key).then(|| OsString::from(value))
        };
        assert_eq!(arena_max(set("MALLOC_ARENA_MAX", "8")), None);
        assert_eq!(
            arena_max(set("GLIBC_TUNABLES", "glibc.malloc.arena_max=4")),
            None
        );
        // Other tunables leave the limit to the app.
        assert_eq!(
            arena_max(set("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0")),
            Some(ARENAS)
        );
    }
}
