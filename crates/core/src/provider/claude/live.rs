//! Claude Code's live sessions: `sessions/<pid>.json`, written while a process runs and deleted
//! on exit. A stale file (crash) or a reused pid must not show a session as live, so the pid's
//! start time must match the recorded `procStart` where the file has one.

use std::path::Path;

use serde::Deserialize;

use crate::live::process;
use crate::provider::LiveSession;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PidFile {
    pid: Option<u32>,
    session_id: Option<String>,
    proc_start: Option<String>,
    status: Option<String>,
}

pub fn live_sessions(root: &Path) -> Vec<LiveSession> {
    let Ok(entries) = std::fs::read_dir(root.join("sessions")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let Some(file) = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<PidFile>(&b).ok())
        else {
            continue;
        };
        let (Some(pid), Some(id)) = (file.pid, file.session_id) else {
            continue;
        };
        if process::is_running(pid, file.proc_start.as_deref()) {
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
        std::fs::write(sessions.join("1.json"), live).unwrap();
        std::fs::write(sessions.join("2.json"), reused).unwrap();
        std::fs::write(sessions.join("3.json"), "{broken").unwrap();
        let got = live_sessions(dir.path());
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].id, "s-live");
        assert_eq!(got[0].status.as_deref(), Some("busy"));
    }
}
