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
    let rest = &stat[stat.rfind(')')? + 1..];
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
