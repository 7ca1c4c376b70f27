//! A throwaway OpenSSH server on 127.0.0.1 for the app's end-to-end test (`tests/e2e/run.py`):
//! `remote::loopback` with the given folder as the remote home. Prints one JSON line with the
//! ssh config naming `testbox` (an authorized key) and `stranger` (an unknown key), then serves
//! until its standard input closes, and stops sshd with its sessions.
//!
//!     cargo run -p agent-sessions-remote --example loopback -- REMOTE_HOME

use std::io::Read;
use std::path::PathBuf;

use agent_sessions_remote::loopback::Sshd;

fn main() -> Result<(), String> {
    let home = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .ok_or("usage: loopback REMOTE_HOME")?;
    let sshd = Sshd::start(&home)?;
    let ready = serde_json::json!({ "config": sshd.config(), "dir": sshd.dir() });
    println!("{ready}");
    // Until the test closes our input (or exits): then sshd is stopped by the drop.
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    drop(sshd);
    Ok(())
}
