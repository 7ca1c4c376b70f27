//! Is a process alive, and is it still the process that was recorded (pid reuse guard)?

/// True when `pid` runs and, where `proc_start` is given, started at that time. `proc_start` is
/// the process start time as the agent recorded it: on Linux, field 22 of `/proc/<pid>/stat`
/// (clock ticks since boot), which is what Claude Code writes as `procStart`.
pub fn is_running(pid: u32, proc_start: Option<&str>) -> bool {
    if pid == 0 {
        return false;
    }
    running_impl(pid, proc_start)
}

#[cfg(target_os = "linux")]
fn running_impl(pid: u32, proc_start: Option<&str>) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    match proc_start {
        Some(expected) => start_ticks(&stat).is_some_and(|t| t == expected.trim()),
        None => true,
    }
}

/// Field 22 of `/proc/<pid>/stat`. The command name (field 2) may hold spaces and parentheses,
/// so fields are counted after its last `)`.
#[cfg(any(target_os = "linux", test))]
fn start_ticks(stat: &str) -> Option<&str> {
    let (_, rest) = stat.rsplit_once(')')?;
    // After ")": field 3 is the first; field 22 is the 20th.
    rest.split_whitespace().nth(19)
}

#[cfg(all(unix, not(target_os = "linux")))]
fn running_impl(pid: u32, _proc_start: Option<&str>) -> bool {
    // No portable start time here: signal 0 only checks that the pid exists.
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    unsafe { libc::kill(pid, 0) == 0 }
}

#[cfg(not(unix))]
fn running_impl(_pid: u32, _proc_start: Option<&str>) -> bool {
    false
}

/// Whether a process of this agent runs: an executable named `name`, or a script runtime
/// (node, bun) running a file whose path names it (npm installs run `node …/bin/codex`).
pub fn agent_running(name: &str) -> bool {
    agent_running_impl(name)
}

#[cfg(target_os = "linux")]
fn agent_running_impl(name: &str) -> bool {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return false;
    };
    procs.flatten().any(|p| {
        let Ok(cmdline) = std::fs::read(p.path().join("cmdline")) else {
            return false;
        };
        cmdline
            .split(|b| *b == 0)
            .take(2)
            .filter_map(|arg| std::str::from_utf8(arg).ok())
            .any(|arg| {
                let base = arg.rsplit('/').next().unwrap_or(arg);
                base == name
                    || base.starts_with(&format!("{name}-"))
                    || arg.contains(&format!("/{name}/bin/"))
            })
    })
}

#[cfg(not(target_os = "linux"))]
fn agent_running_impl(_name: &str) -> bool {
    // Without /proc there is no cheap, dependable process list: recent activity alone decides.
    true
}

/// A session with no running agent process or no write in this many seconds is not live.
pub const RECENT_SECS: i64 = 120;

/// The ids among `sessions` updated in the last [`RECENT_SECS`] while `agent` runs.
pub fn recently_active(
    agent: &str,
    sessions: &[&crate::model::SessionMeta],
) -> Vec<crate::provider::LiveSession> {
    let now = chrono::Utc::now();
    let recent: Vec<_> = sessions
        .iter()
        .filter(|s| {
            s.updated_at
                .is_some_and(|t| (now - t).num_seconds() <= RECENT_SECS)
        })
        .collect();
    if recent.is_empty() || !agent_running(agent) {
        return Vec::new();
    }
    recent
        .into_iter()
        .map(|s| crate::provider::LiveSession {
            id: s.id.clone(),
            pid: 0,
            status: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_start_time_past_odd_command_names() {
        let stat = "42 (a) b (c)) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 98765 1000 200";
        assert_eq!(start_ticks(stat), Some("98765"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn finds_running_agents_by_executable_or_script_path() {
        let me = std::env::current_exe().unwrap();
        let name = me.file_name().unwrap().to_string_lossy().into_owned();
        assert!(agent_running(&name));
        assert!(!agent_running("surely-no-agent-is-called-this"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn guards_against_pid_reuse() {
        let me = std::process::id();
        let stat = std::fs::read_to_string(format!("/proc/{me}/stat")).unwrap();
        let ticks = start_ticks(&stat).unwrap().to_owned();
        assert!(is_running(me, None));
        assert!(is_running(me, Some(&ticks)));
        assert!(!is_running(me, Some("1")));
        assert!(!is_running(0, None));
    }
}
