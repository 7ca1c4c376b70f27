//! Is a process alive, and is it still the process that was recorded (pid reuse guard)? Does an
//! agent run at all? Each system answers in its own format (`/proc` on Linux, `ps` on macOS,
//! a PowerShell process list on Windows); the parsers are plain functions of that text, so all
//! three are tested on every system, and only the small `*_impl` functions read the OS.

use chrono::{DateTime, NaiveDateTime, Utc};

use agent_sessions_model::Os;

/// True when `pid` runs and, where `proc_start` is given, started at that time. `proc_start` is
/// the process start time as Claude Code records it (see [`start_matches`]); a recorded value of
/// another shape cannot be compared, and the pid alone decides.
pub fn is_running(pid: u32, proc_start: Option<&str>) -> bool {
    if pid == 0 {
        return false;
    }
    running_impl(pid, proc_start)
}

/// Whether the start time the system reports for a live process (`kernel`) is the one Claude
/// Code recorded for it. Claude Code (read in its 2.1.332 builds for Linux, macOS and Windows)
/// records the start as it reads it itself, and each branch here reads the same thing:
/// - Linux, `procStart`: field 22 of `/proc/<pid>/stat` (clock ticks since boot); `kernel` is
///   that file's text.
/// - macOS, `procStart`: the output of `ps -o lstart= -p <pid>` run with `LC_ALL=C TZ=UTC`,
///   trimmed (`Tue Dec  1 03:31:59 2026`); `kernel` is the same command's output.
/// - Windows, `procStartFt`: the creation FILETIME (100 ns units since 1601 UTC, from the
///   kernel's process times); `kernel` is the FILETIME column of [`windows_processes`], which
///   CIM gives to the microsecond, so the two agree within 1 ms. (Claude Code's fallback
///   format, .NET ticks, is matched by [`WindowsProcess::started_as`].)
pub fn start_matches(os: Os, kernel: &str, recorded: &str) -> bool {
    let recorded = recorded.trim();
    match os {
        Os::Linux => start_ticks(kernel).is_some_and(|t| t == recorded),
        Os::Macos => match lstart_utc(recorded) {
            Some(at) => lstart_utc(kernel) == Some(at),
            None => true,
        },
        Os::Windows => match recorded.parse::<i64>() {
            Ok(at) => kernel
                .trim()
                .parse::<i64>()
                .is_ok_and(|k| k.abs_diff(at) < FILETIME_PER_MS),
            Err(_) => true,
        },
    }
}

/// FILETIME units (100 ns) in a millisecond.
const FILETIME_PER_MS: u64 = 10_000;

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

/// One process of a Windows process list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowsProcess {
    pub pid: u32,
    /// FILETIME of its creation, as printed (empty when the system would not say).
    pub start: String,
    /// The same instant as .NET ticks of local time (`CreationDate.Ticks`), as printed.
    pub start_ticks: String,
    pub command_line: String,
}

impl WindowsProcess {
    /// Whether this is the process Claude Code recorded as `procStartFt`: the creation FILETIME
    /// ([`start_matches`]), or, where its runtime could not read that, what it asks PowerShell
    /// for instead, `(Get-CimInstance Win32_Process -Filter "ProcessId=…").CreationDate.Ticks`,
    /// the same text as [`Self::start_ticks`].
    pub fn started_as(&self, recorded: &str) -> bool {
        let recorded = recorded.trim();
        (!self.start_ticks.is_empty() && self.start_ticks == recorded)
            || start_matches(Os::Windows, &self.start, recorded)
    }
}

/// The PowerShell 5.1 script whose output [`windows_processes`] reads: one line per process,
/// `pid<TAB>creation FILETIME<TAB>creation .NET ticks<TAB>command line` (PowerShell's CIM is the
/// process list Windows offers without WMIC, which newer Windows lacks). Constant: nothing of
/// ours is spliced in.
pub const WINDOWS_PROCESS_SCRIPT: &str = "Get-CimInstance Win32_Process | ForEach-Object { \
     $c = $_.CreationDate; \
     $t = if ($c) { $c.ToFileTimeUtc() } else { '' }; \
     $k = if ($c) { $c.Ticks } else { '' }; \
     \"$($_.ProcessId)`t$t`t$k`t$($_.CommandLine)\" }";

/// Parses [`WINDOWS_PROCESS_SCRIPT`]'s output; lines of another shape are skipped.
pub fn windows_processes(text: &str) -> Vec<WindowsProcess> {
    text.lines()
        .filter_map(|line| {
            let mut cols = line.trim_end_matches('\r').splitn(4, '\t');
            let pid = cols.next()?.trim().parse().ok()?;
            let start = cols.next()?.trim().to_owned();
            let start_ticks = cols.next()?.trim().to_owned();
            let command_line = cols.next().unwrap_or("").to_owned();
            Some(WindowsProcess {
                pid,
                start,
                start_ticks,
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
    // The kernel says whether the id runs. Without a process list (no PowerShell) that alone
    // decides, as on macOS without `ps`: "not running" would let a live session be trashed
    // and a running indexer's lock be taken over.
    if !windows_process_alive(pid) {
        return false;
    }
    let (Some(expected), Some(listing)) = (proc_start, windows_listing()) else {
        return true;
    };
    windows_processes(&listing)
        .into_iter()
        .find(|p| p.pid == pid)
        .is_some_and(|p| p.started_as(expected))
}

/// Whether process `pid` exists and has not exited. One we may not open (another user's,
/// a protected one) exists.
#[cfg(windows)]
fn windows_process_alive(pid: u32) -> bool {
    use windows_sys::Win32::Foundation::{
        CloseHandle, GetLastError, ERROR_ACCESS_DENIED, STILL_ACTIVE,
    };
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };
    // SAFETY: plain Win32 calls on a handle this function opens and closes; `code` outlives
    // the call that writes it.
    unsafe {
        let handle = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if handle.is_null() {
            return GetLastError() == ERROR_ACCESS_DENIED;
        }
        let mut code = 0u32;
        let read = GetExitCodeProcess(handle, &mut code) != 0;
        CloseHandle(handle);
        read && code == STILL_ACTIVE as u32
    }
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
    live_if_running(agent, recent.into_iter().copied())
}

/// `recent` as live sessions (no pid, no status) while `agent` runs; none when it does not.
pub fn live_if_running<'a>(
    agent: &str,
    recent: impl IntoIterator<Item = &'a agent_sessions_model::SessionMeta>,
) -> Vec<crate::LiveSession> {
    let mut recent = recent.into_iter().peekable();
    if recent.peek().is_none() || !agent_running(agent) {
        return Vec::new();
    }
    recent
        .map(|s| crate::LiveSession {
            id: s.id.clone(),
            pid: 0,
            status: None,
        })
        .collect()
}

/// The live-badge test of every agent whose `live_sessions` is [`recently_active`] of its
/// program: a session written to just now is live while a process of that name runs (a copy
/// of `sleep` named so), an old one is not. Whether it is not live once the process ended is
/// not asserted: on a shared machine the real agent may be running.
#[cfg(all(test, target_os = "linux"))]
pub(crate) fn live_while_running(agent: &crate::registry::Agent) {
    use agent_sessions_model::SessionMeta;
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join(agent.program);
    std::fs::copy("/bin/sleep", &program).unwrap();
    let now = chrono::Utc::now();
    // Each session's file, written now or an hour ago (an agent without session files of its
    // own, Aider, goes by the file's modification time rather than the recorded update).
    let file = |name: &str, age: std::time::Duration| {
        let path = dir.path().join(name);
        let f = std::fs::File::create(&path).unwrap();
        f.set_modified(std::time::SystemTime::now() - age).unwrap();
        path
    };
    let mut fresh = SessionMeta::new(agent.kind, "a".into(), file("a", Default::default()));
    fresh.updated_at = Some(now);
    let mut old = SessionMeta::new(
        agent.kind,
        "b".into(),
        file("b", std::time::Duration::from_secs(3600)),
    );
    old.updated_at = Some(now - chrono::Duration::hours(1));
    let provider = (agent.provider)(Vec::new());
    let live = || -> Vec<String> {
        let listed = provider.live_sessions(&[&fresh, &old]);
        listed.into_iter().map(|l| l.id).collect()
    };
    // Tests copy and start their stand-ins side by side: another thread's fork can still hold
    // this copy open for writing for a moment, and exec then fails with ETXTBSY (26): try again.
    let mut tries = 0;
    let mut running = loop {
        match std::process::Command::new(&program).arg("30").spawn() {
            Err(e) if e.raw_os_error() == Some(26) && tries < 100 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            spawned => break spawned.unwrap(),
        }
    };
    // The process list can lag the spawn (CI saw it empty once): wait for the process to
    // show, failing with its exit status if it ended instead.
    let mut while_running = live();
    for _ in 0..200 {
        if !while_running.is_empty() {
            break;
        }
        if let Some(status) = running.try_wait().unwrap() {
            panic!("the stand-in `{}` ended early: {status}", agent.program);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        while_running = live();
    }
    running.kill().unwrap();
    running.wait().unwrap();
    assert_eq!(while_running, ["a"], "{}", agent.label);
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
    fn macos_start_time_as_claude_code_records_it() {
        // Claude Code records `ps -o lstart= -p PID` (LC_ALL=C, TZ=UTC), trimmed: the padding
        // of a one-digit day stays inside. We run the same command.
        let recorded = "Tue Dec  1 03:31:59 2026";
        let kernel = "Tue Dec  1 03:31:59 2026\n";
        let at = DateTime::parse_from_rfc3339("2026-12-01T03:31:59Z").unwrap();
        assert_eq!(lstart_utc(kernel), Some(at.with_timezone(&Utc)));
        assert!(start_matches(Os::Macos, kernel, recorded));
        assert!(start_matches(
            Os::Macos,
            "Mon Nov 30 23:59:59 2026\n",
            "Mon Nov 30 23:59:59 2026"
        ));
        // Another process that got the pid five seconds later.
        assert!(!start_matches(
            Os::Macos,
            "Tue Dec  1 03:32:04 2026\n",
            recorded
        ));
        // A kernel answer we cannot read proves nothing: not this process.
        assert!(!start_matches(Os::Macos, "", recorded));
        // A recorded value of another shape cannot be compared: the pid decides.
        assert!(start_matches(Os::Macos, kernel, "98765"));
    }

    #[test]
    fn windows_process_list_with_start_times() {
        // CIM gives creation times to the microsecond: 2025-12-01T03:32:00.123456Z as a
        // FILETIME, and as .NET ticks of local time (here UTC+1).
        let listing = "0\t\t\t\r\n\
            4\t133778000000000000\t638689232000000000\t\r\n\
            7312\t134090335190000000\t639001603190000000\t\"C:\\Program Files\\nodejs\\node.exe\" \
            C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\@openai\\codex\\bin\\codex.js resume\r\n\
            8120\t134090335201234560\t639001603201234560\tC:\\Users\\me\\.local\\bin\\claude.exe --continue\r\n\
            garbage line\r\n";
        let procs = windows_processes(listing);
        assert_eq!(procs.len(), 4);
        assert_eq!(procs[2].pid, 7312);
        assert_eq!(procs[3].start, "134090335201234560");
        assert_eq!(procs[3].start_ticks, "639001603201234560");
        assert!(procs[3].command_line.ends_with("claude.exe --continue"));

        // Claude Code's `procStartFt`: the kernel's FILETIME, to 100 ns.
        let recorded = "134090335201234567";
        assert!(start_matches(Os::Windows, &procs[3].start, recorded));
        assert!(procs[3].started_as(recorded));
        // 7312 started a second earlier; the idle process has no start time.
        assert!(!procs[2].started_as(recorded));
        assert!(!procs[0].started_as(recorded));
        // A process that got the pid 2 ms later.
        assert!(!start_matches(Os::Windows, "134090335201254567", recorded));
        // Its fallback, `CreationDate.Ticks` from PowerShell: the same text as ours.
        assert!(procs[3].started_as("639001603201234560"));
        assert!(!procs[2].started_as("639001603201234560"));
        // A recorded value of another shape cannot be compared: the pid decides.
        assert!(procs[3].started_as("n/a"));

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
