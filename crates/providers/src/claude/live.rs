//! Claude Code's live sessions: `sessions/<pid>.json`, written while a process runs and deleted
//! on exit. A stale file (crash) or a reused pid must not show a session as live, so the pid's
//! start time must match the recorded one where the file has one (`procStartFt` on Windows,
//! `procStart` elsewhere; `process::start_matches` says what each holds).

use std::path::Path;

use serde::Deserialize;

use crate::files::{read_document, Kind, Walker};
use crate::process;
use crate::LiveSession;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PidFile {
    pid: Option<u32>,
    session_id: Option<String>,
    proc_start: Option<String>,
    proc_start_ft: Option<String>,
    status: Option<String>,
}

pub fn live_sessions(root: &Path) -> Vec<LiveSession> {
    let mut out = Vec::new();
    // Problems here are not reported: live state is a hint, polled every few seconds.
    let mut walker = Walker::default();
    for entry in walker.entries(&root.join("sessions")) {
        if entry.kind != Kind::File || !entry.name.ends_with(".json") {
            continue;
        }
        let Some(file) = read_document(&entry.path, super::SIDE_FILE_MAX)
            .ok()
            .and_then(|b| serde_json::from_slice::<PidFile>(&b).ok())
        else {
            continue;
        };
        let (Some(pid), Some(id)) = (file.pid, file.session_id) else {
            continue;
        };
        // Claude Code reads `procStartFt ?? procStart` too.
        let start = file.proc_start_ft.as_deref().or(file.proc_start.as_deref());
        if process::is_running(pid, start) {
            out.push(LiveSession {
                id,
                pid,
                status: file.status,
            });
        }
    }
    out
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_pid_file_is_live_only_for_its_own_process() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        let me = std::process::id();
        let stat = std::fs::read_to_string(format!("/proc/{me}/stat")).unwrap();
        let rest = &stat[stat.rfind(')').unwrap() + 1..];
        let ticks = rest.split_whitespace().nth(19).unwrap();
        let live =
            format!(r#"{{"pid":{me},"sessionId":"s-live","procStart":"{ticks}","status":"busy"}}"#);
        let reused = format!(r#"{{"pid":{me},"sessionId":"s-reused","procStart":"1"}}"#);
        // `procStartFt` (Windows' key) wins over `procStart`, as in Claude Code.
        let ft =
            format!(r#"{{"pid":{me},"sessionId":"s-ft","procStart":"{ticks}","procStartFt":"1"}}"#);
        std::fs::write(sessions.join("1.json"), live).unwrap();
        std::fs::write(sessions.join("2.json"), reused).unwrap();
        std::fs::write(sessions.join("3.json"), "{broken").unwrap();
        std::fs::write(sessions.join("4.json"), ft).unwrap();
        let got = live_sessions(dir.path());
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].id, "s-live");
        assert_eq!(got[0].status.as_deref(), Some("busy"));
    }
}
