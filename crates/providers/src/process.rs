//! Is a process alive, and is it still the process that was recorded (pid reuse guard)? Does an
//! agent run at all? Each system answers in its own format (`/proc` on Linux, `ps` on macOS,
//! a PowerShell process list on Windows); the parsers are plain functions of that text, so all
//! three are tested on every system, and only the small `*_impl` functions read the OS.

use chrono::{DateTime, NaiveDateTime, Utc};

use agent_sessions_model::Os;

/// True when `pid` runs and, where `proc_start` is given, started at that time. `proc_start` is
/// the process start time as the agent recorded it: on Linux, field 22 of `/proc/<pid>/stat`
/// (clock ticks since boot), which is what Claude Code writes as `procStart`. Elsewhere a
/// recorded time (Unix seconds or milliseconds) is compared with the kernel's start time; a
/// recorded value of another shape cannot be compared, and the pid alone decides.
pub fn is_running(pid: u32, proc_start: Option<&str>) -> bool {
    if pid == 0 {
        return false;
    }
    running_impl(pid, proc_start)
}

/// Whether the start time the system reports for a live process (`kernel`: the text of
/// `/proc/<pid>/stat` on Linux, of `ps -o lstart= -p <pid>` run with `TZ=UTC LC_ALL=C` on
/// macOS, of the start column of [`windows_processes`] on Windows) is the one recorded.
pub fn start_matches(os: Os, kernel: &str, recorded: &str) -> bool {
    let recorded = recorded.trim();
    match os {
        Os::Linux => start_ticks(kernel).is_some_and(|t| t == recorded),
        Os::Macos => same_instant(lstart_utc(kernel), recorded),
        Os::Windows => same_instant(filetime_utc(kernel), recorded),
    }
}

/// A kernel start time against a recorded one, to the second (`lstart` has no finer unit). A
/// recorded value that is not a Unix time cannot be compared: the pid check alone decides.
fn same_instant(kernel: Option<DateTime<Utc>>, recorded: &str) -> bool {
    let Some(kernel) = kernel else {
        return false;
    };
    match unix_time(recorded) {
        Some(at) => (kernel - at).num_milliseconds().abs() < 1_000,
        None => true,
    }
}

/// A Unix time in seconds or milliseconds (values past 10^11 are milliseconds: seconds would be
/// the year 5138).
fn unix_time(text: &str) -> Option<DateTime<Utc>> {
    let n: i64 = text.parse().ok()?;
    if n >= 100_000_000_000 {
        DateTime::from_timestamp_millis(n)
    } else {
        DateTime::from_timestamp(n, 0)
    }
}

/// Field 22 of `/proc/<pid>/stat`. The command name (field 2) may hold spaces and parentheses,
/// so fields are counted after its last `)`.
fn start_ticks(stat: &str) -> Option<&str> {
    let (_, rest) = stat.rsplit_once(')')?;
    // After ")": field 3 is the first; field 22 is the 20th.
    rest.split_whitespace().nth(19)
}

/// `ps -o lstart=` output in UTC and the C locale: `Tue Dec  1 03:31:59 2026`.
fn lstart_utc(text: &str) -> Option<DateTime<Utc>> {
    let squeezed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    NaiveDateTime::parse_from_str(&squeezed, "%a %b %d %H:%M:%S %Y")
        .ok()
        .map(|t| t.and_utc())
}

/// A Windows FILETIME (100 ns units since 1601-01-01 UTC), as `ToFileTimeUtc()` prints it.
fn filetime_utc(text: &str) -> Option<DateTime<Utc>> {
    const UNIX_EPOCH_IN_FILETIME: i64 = 116_444_736_000_000_000;
    let ft: i64 = text.trim().parse().ok()?;
    let since_epoch = ft.checked_sub(UNIX_EPOCH_IN_FILETIME)?;
    DateTime::from_timestamp(
        since_epoch.div_euclid(10_000_000),
        (since_epoch.rem_euclid(10_000_000) * 100) as u32,
    )
}

/// One process of a Windows process list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowsProcess {
    pub pid: u32,
    /// FILETIME of its creation, as printed (empty when the system would not say).
    pub start: String,
    pub command_line: String,
}

/// The PowerShell 5.1 script whose output [`windows_processes`] reads: one line per process,
/// `pid<TAB>creation FILETIME<TAB>command line` (PowerShell's CIM is the process list Windows
/// offers without WMIC, which newer Windows lacks). Constant: nothing of ours is spliced in.
pub const WINDOWS_PROCESS_SCRIPT: &str = "Get-CimInstance Win32_Process | ForEach-Object { \
     $t = if ($_.CreationDate) { $_.CreationDate.ToFileTimeUtc() } else { '' }; \
     \"$($_.ProcessId)`t$t`t$($_.CommandLine)\" }";

/// Parses [`WINDOWS_PROCESS_SCRIPT`]'s output; lines of another shape are skipped.
pub fn windows_processes(text: &str) -> Vec<WindowsProcess> {
    text.lines()
        .filter_map(|line| {
            let mut cols = line.trim_end_matches('\r').splitn(3, '\t');
            let pid = cols.next()?.trim().parse().ok()?;
            let start = cols.next()?.trim().to_owned();
            let command_line = cols.next().unwrap_or("").to_owned();
            Some(WindowsProcess {
                pid,
                start,
                command_line,
            })
        })
        .collect()
}

/// The first two words of a command line as Windows writes them: a word in double quotes may
/// hold spaces (enough to find the program and a script runtime's script).
fn windows_words(line: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut rest = line.trim_start();
    while words.len() < 2 && !rest.is_empty() {
        let (word, after) = match rest.strip_prefix('"') {
            Some(quoted) => quoted.split_once('"').unwrap_or((quoted, "")),
            None => rest.split_once(char::is_whitespace).unwrap_or((rest, "")),
        };
        words.push(word);
        rest = after.trim_start();
    }
    words
}

/// Whether a process whose first arguments are `args` is the agent `name`: an executable of
/// that name (`codex`, `codex-x86_64…`, `codex.exe`), or a runtime running a file under a
/// folder of that name's `bin` (npm installs run `node …/codex/bin/codex.js`).
pub fn is_agent_command(name: &str, args: &[&str]) -> bool {
    args.iter().take(2).any(|arg| {
        let arg = arg.replace('\\', "/");
        let base = arg.rsplit('/').next().unwrap_or(&arg);
        let base = base
            .strip_suffix(".exe")
            .or_else(|| base.strip_suffix(".EXE"))
            .unwrap_or(base);
        base == name
            || base.starts_with(&format!("{name}-"))
            || arg.contains(&format!("/{name}/bin/"))
    })
}

/// Whether any process of a listing is the agent `name`: `listing` is `ps -axo args=` on
/// macOS (one command line per line, words split at spaces) or [`WINDOWS_PROCESS_SCRIPT`]'s
/// output on Windows. (Linux reads `/proc/*/cmdline`, whose words are exact.)
pub fn agent_in_listing(os: Os, name: &str, listing: &str) -> bool {
    match os {
        Os::Windows => windows_processes(listing)
            .iter()
            .any(|p| is_agent_command(name, &windows_words(&p.command_line))),
        Os::Linux | Os::Macos => listing.lines().any(|line| {
            let words: Vec<&str> = line.split_whitespace().take(2).collect();
            is_agent_command(name, &words)
        }),
    }
}

#[cfg(target_os = "linux")]
fn running_impl(pid: u32, proc_start: Option<&str>) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    proc_start.is_none_or(|expected| start_matches(Os::Linux, &stat, expected))
}

#[cfg(all(unix, not(target_os = "linux")))]
fn running_impl(pid: u32, proc_start: Option<&str>) -> bool {
    let Ok(id) = i32::try_from(pid) else {
        return false;
    };
    // Signal 0 only checks that the pid exists (EPERM: it exists, another user's).
    let exists = unsafe { libc::kill(id, 0) == 0 }
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    if !exists {
        return false;
    }
    let Some(expected) = proc_start else {
        return true;
    };
    let pid = pid.to_string();
    match output("ps", &["-o", "lstart=", "-p", &pid]) {
        Some(lstart) => start_matches(Os::current(), &lstart, expected),
        None => true,
    }
}

#[cfg(windows)]
fn running_impl(pid: u32, proc_start: Option<&str>) -> bool {
    let Some(listing) = windows_listing() else {
        return false;
    };
    windows_processes(&listing)
        .into_iter()
        .find(|p| p.pid == pid)
        .is_some_and(|p| proc_start.is_none_or(|e| start_matches(Os::Windows, &p.start, e)))
}

#[cfg(not(any(unix, windows)))]
fn running_impl(_pid: u32, _proc_start: Option<&str>) -> bool {
    false
}

/// A command's standard output when it succeeds (C locale, UTC: the parsers read that form).
#[cfg(not(target_os = "linux"))]
fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new(program)
        .args(args)
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(windows)]
fn windows_listing() -> Option<String> {
    output(
        "powershell.exe",
        &[
            "-NoProfile",
            "-NonInteractive",
            "-Command",
            WINDOWS_PROCESS_SCRIPT,
        ],
    )
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
        let args: Vec<&str> = cmdline
            .split(|b| *b == 0)
            .take(2)
            .filter_map(|arg| std::str::from_utf8(arg).ok())
            .collect();
        is_agent_command(name, &args)
    })
}

#[cfg(all(unix, not(target_os = "linux")))]
fn agent_running_impl(name: &str) -> bool {
    // Without a listing, recent activity alone decides.
    output("ps", &["-axo", "args="]).is_none_or(|l| agent_in_listing(Os::current(), name, &l))
}

#[cfg(windows)]
fn agent_running_impl(name: &str) -> bool {
    windows_listing().is_none_or(|l| agent_in_listing(Os::Windows, name, &l))
}

#[cfg(not(any(unix, windows)))]
fn agent_running_impl(_name: &str) -> bool {
    true
}

/// A session with no running agent process or no write in this many seconds is not live.
pub const RECENT_SECS: i64 = 120;

/// The ids among `sessions` updated in the last [`RECENT_SECS`] while `agent` runs.
pub fn recently_active(
    agent: &str,
    sessions: &[&agent_sessions_model::SessionMeta],
) -> Vec<crate::LiveSession> {
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
        .map(|s| crate::LiveSession {
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
        assert!(start_matches(Os::Linux, stat, "98765\n"));
        assert!(!start_matches(Os::Linux, stat, "98766"));
        assert!(!start_matches(Os::Linux, "42 (truncated", "98765"));
    }

    #[test]
    fn macos_start_time_from_ps_lstart() {
        // `ps -o lstart=` pads one-digit days with a space.
        let kernel = "Tue Dec  1 03:31:59 2026\n";
        let at = DateTime::parse_from_rfc3339("2026-12-01T03:31:59Z").unwrap();
        assert_eq!(lstart_utc(kernel), Some(at.with_timezone(&Utc)));
        let secs = at.timestamp().to_string();
        let millis = (at.timestamp_millis() + 420).to_string();
        assert!(start_matches(Os::Macos, kernel, &secs));
        assert!(start_matches(Os::Macos, kernel, &millis));
        // Another process that got the pid later.
        let later = (at.timestamp() + 5).to_string();
        assert!(!start_matches(Os::Macos, kernel, &later));
        // A kernel answer we cannot read proves nothing: not this process.
        assert!(!start_matches(Os::Macos, "", &secs));
        // A recorded value that is no time at all cannot be compared: the pid decides.
        assert!(start_matches(Os::Macos, kernel, "98765x"));
    }

    #[test]
    fn windows_process_list_with_start_times() {
        let listing = "0\t\t\r\n\
            4\t133778000000000000\t\r\n\
            7312\t134090335190000000\t\"C:\\Program Files\\nodejs\\node.exe\" \
            C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\@openai\\codex\\bin\\codex.js resume\r\n\
            8120\t134090335200000000\tC:\\Users\\me\\.local\\bin\\claude.exe --continue\r\n\
            garbage line\r\n";
        let procs = windows_processes(listing);
        assert_eq!(procs.len(), 4);
        assert_eq!(procs[2].pid, 7312);
        assert_eq!(procs[3].start, "134090335200000000");
        // 134090335200000000 is 2025-12-01T03:32:00Z; 7312 started a second earlier.
        let at = DateTime::parse_from_rfc3339("2025-12-01T03:32:00Z")
            .unwrap()
            .timestamp();
        assert!(start_matches(Os::Windows, &procs[3].start, &at.to_string()));
        assert!(!start_matches(
            Os::Windows,
            &procs[2].start,
            &at.to_string()
        ));
        assert!(!start_matches(
            Os::Windows,
            &procs[0].start,
            &at.to_string()
        ));

        assert!(agent_in_listing(Os::Windows, "codex", listing));
        assert!(agent_in_listing(Os::Windows, "claude", listing));
        assert!(!agent_in_listing(Os::Windows, "opencode", listing));
        assert!(!agent_in_listing(
            Os::Windows,
            "node",
            "1\t1\tC:\\x\\nodes.exe"
        ));
    }

    #[test]
    fn macos_process_list() {
        let listing = "/sbin/launchd\n\
            /Applications/iTerm.app/Contents/MacOS/iTerm2\n\
            /opt/homebrew/bin/node /opt/homebrew/lib/node_modules/opencode-ai/bin/opencode\n\
            -zsh\n";
        assert!(agent_in_listing(Os::Macos, "opencode", listing));
        assert!(!agent_in_listing(Os::Macos, "codex", listing));
        assert!(agent_in_listing(
            Os::Macos,
            "claude",
            "/Users/me/.local/bin/claude --resume x\n"
        ));
    }

    #[test]
    fn agent_commands() {
        assert!(is_agent_command("codex", &["codex"]));
        assert!(is_agent_command(
            "codex",
            &["/usr/lib/codex/codex-x86_64-unknown-linux-musl"]
        ));
        assert!(is_agent_command(
            "codex",
            &["node", "/x/codex/bin/codex.js"]
        ));
        assert!(is_agent_command("claude", &[r"C:\bin\claude.EXE"]));
        assert!(!is_agent_command("codex", &["codexy"]));
        // Only the program and its first argument count: a word later on is data.
        assert!(!is_agent_command("codex", &["vim", "notes", "codex"]));
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
