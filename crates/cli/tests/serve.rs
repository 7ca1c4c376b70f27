//! `serve --stdio` as the process ssh starts: what it leaves on the disk of the host it runs on.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use serde_json::{json, Value};

/// A `serve --stdio` process with its temporary folder in `tmp`, and its hello read.
fn server(tmp: &Path, cache: &Path) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut child = common::cli(cache, &["serve", "--stdio"])
        .env("TMPDIR", tmp)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let hello = read_line(&mut output);
    assert!(hello.get("hello").is_some(), "{hello}");
    (child, input, output)
}

fn read_line(output: &mut impl BufRead) -> Value {
    let mut line = String::new();
    output.read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

/// Sends one request and reads its answer's result (a panic on an error).
fn call(
    input: &mut ChildStdin,
    output: &mut impl BufRead,
    id: u64,
    method: &str,
    params: Value,
) -> Value {
    let line = json!({ "id": id, "method": method, "params": params });
    writeln!(input, "{line}").unwrap();
    let reply = read_line(output);
    assert_eq!(reply["id"], id, "{reply}");
    reply
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {reply}"))
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    all.sort();
    all
}

#[cfg(unix)]
fn mode(path: &Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode();
    format!("{:o}", mode & 0o777)
}

/// An upload lives in a folder only its user can enter (0700), as a file only its user can read
/// (0600), and both are gone once the client closes the connection, whether it ends the server's
/// input (a client that quits) or drops both ends at once (a link cut mid-upload).
#[cfg(unix)]
#[test]
fn uploads_are_private_and_end_with_their_connection() {
    const ABCD_SHA256: &str = "88d4266fd4e6338d13b845fcf289579d209c897823b9217da3e161936f031589";
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    for cut in [false, true] {
        let (mut child, mut input, mut output) = server(&tmp, &dir.path().join("cache"));
        let started = call(
            &mut input,
            &mut output,
            1,
            "upload_start",
            json!({ "bytes": 4, "sha256": ABCD_SHA256 }),
        );
        let upload = started["upload"].as_u64().unwrap();
        let chunk = json!({ "upload": upload, "offset": 0, "base64": "YWI=" });
        call(&mut input, &mut output, 2, "upload_chunk", chunk);

        let folders = entries(&tmp);
        assert_eq!(folders.len(), 1, "{folders:?}");
        let folder = &folders[0];
        let name = folder.file_name().unwrap().to_string_lossy();
        assert!(name.starts_with("agent-sessions-transfer-"), "{name}");
        assert_eq!(mode(folder), "700", "the transfer folder");
        let files = entries(folder);
        assert_eq!(files.len(), 1, "{files:?}");
        assert_eq!(mode(&files[0]), "600", "the upload");
        assert_eq!(std::fs::read(&files[0]).unwrap(), b"ab");

        drop(input);
        if cut {
            drop(output);
        }
        let status = child.wait().unwrap();
        assert!(status.success(), "{status}");
        assert_eq!(entries(&tmp), Vec::<PathBuf>::new(), "left behind");
    }
}
