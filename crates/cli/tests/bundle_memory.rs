//! Finding 5 of issue 29: small bundles took huge memory (a 654 KB bundle made `bundle
//! continue --print` peak at 2.39 GB, a 339 KB OpenCode bundle made `bundle import` peak at
//! 3.34 GB). Every bundle command must stay under 256 MiB whatever the bundle: each test
//! builds a hostile bundle from a real one (its transcript or records replaced by a member of
//! the largest size an entry may have, packed as tightly as the limits allow, with a line or
//! message as long as a record may be, one nested as deep as JSON may be, and records that
//! would make a tree sixteen times their text), runs the CLI binary on it as a child, and
//! reads the child's peak resident memory from the kernel (`wait4`'s `ru_maxrss`). That peak
//! includes this test process's own peak (Linux keeps the high-water mark of the address space
//! a child replaces when it starts the binary), so it is an upper bound: the tests write their
//! hostile members a chunk at a time and stay small themselves. A child that goes far over is
//! stopped early (its `VmRSS`, polled) so the test cannot exhaust the machine.
//!
//! The member size is 1 GiB (the largest an entry may be); `BUNDLE_MEMORY_MEMBER_MIB` makes it
//! smaller (to try the test against a build that would need many gigabytes).
#![cfg(target_os = "linux")]

mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{json_of, testdata};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;

/// What any bundle command may peak at.
const PEAK: u64 = 256 << 20;
/// A child past this is stopped at once.
const RUNAWAY: u64 = 1 << 30;
/// A line as long as a record file's line may be (64 MiB), less room for its JSON around it.
const LONG: usize = (64 << 20) - (64 << 10);
/// What a message (or another record read as a tree) may take in memory: 32 MiB.
const RECORD: usize = 32 << 20;

fn member_bytes() -> u64 {
    std::env::var("BUNDLE_MEMORY_MEMBER_MIB")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(1024)
        << 20
}

/// How a measured child ended.
struct Ran {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    /// `wait4`'s: at least the child's own peak.
    peak: u64,
    /// The child's own peak as last read from `/proc` (for the log: it may miss the end).
    polled: u64,
}

impl Ran {
    fn json(&self) -> Value {
        json_of(&std::process::Output {
            status: std::os::unix::process::ExitStatusExt::from_raw(0),
            stdout: self.stdout.clone(),
            stderr: self.stderr.clone().into_bytes(),
        })
    }
}

/// Runs `cmd` to its end (output into files, so nothing blocks on a pipe) and reads its peak
/// resident memory from `wait4`; a child whose `VmRSS` passes [`RUNAWAY`] is killed.
fn measured(cmd: &mut Command, dir: &Path) -> Ran {
    let out = dir.join("stdout");
    let err = dir.join("stderr");
    let child = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let watch = std::thread::spawn(move || {
        let status = format!("/proc/{pid}/status");
        let kib = |text: &str, field: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .unwrap_or(0)
        };
        let mut seen = 0;
        while let Ok(text) = std::fs::read_to_string(&status) {
            seen = seen.max(kib(&text, "VmHWM:") << 10);
            if kib(&text, "VmRSS:") << 10 > RUNAWAY {
                // SAFETY: a plain signal to our own child, not yet reaped (wait4 below).
                unsafe { libc::kill(pid, libc::SIGKILL) };
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        seen
    });
    let mut status = 0;
    // SAFETY: rusage is plain data the kernel fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; `status` and `usage` are valid for writing.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4 failed");
    std::mem::forget(child); // reaped above
    let polled = watch.join().unwrap();
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Ran {
        code,
        stdout: std::fs::read(out).unwrap(),
        stderr: std::fs::read_to_string(err).unwrap(),
        // Linux gives it in KiB.
        peak: (usage.ru_maxrss as u64) << 10,
        polled,
    }
}

/// `ran` stayed under [`PEAK`] and ended with exit `code` (0, or 2 with `error`).
fn bounded(ran: &Ran, what: &str, code: i32, error: Option<&str>) {
    assert!(
        ran.peak <= PEAK,
        "{what}: peaked at {} MiB ({} MiB seen in /proc; limit {} MiB); exit {:?}; {}",
        ran.peak >> 20,
        ran.polled >> 20,
        PEAK >> 20,
        ran.code,
        ran.stderr
    );
    let out = String::from_utf8_lossy(&ran.stdout);
    assert_eq!(ran.code, Some(code), "{what}: {}{out}", ran.stderr);
    if let Some(error) = error {
        assert_eq!(ran.json()["error"]["code"], error, "{what}: {}", ran.stderr);
    }
    eprintln!(
        "{what}: peak {} MiB ({} MiB seen in /proc)",
        ran.peak >> 20,
        ran.polled >> 20
    );
}

/// The CLI with no real home, its cache in `dir`.
fn cli(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = common::cli(&dir.join(".cache"), args);
    cmd.current_dir(dir);
    cmd
}

/// A bundle of the Claude fixture session with a subagent.
fn claude_bundle(dir: &Path, share_safe: bool) -> PathBuf {
    let store = "claude/2.1.332/dot-claude";
    exported(dir, "--claude-root", store, "3783a6bc", share_safe)
}

/// `bundle import BUNDLE --dir HERE --yes --json` into the store `store` (`flag` names its
/// root), measured. No agent is on PATH (OpenCode's rows are then written by us).
fn imported(dir: &Path, flag: &str, store: &Path, bundle: &Path, here: &Path) -> Ran {
    let (store, bundle, here) = (store.to_str(), bundle.to_str(), here.to_str());
    let args = [flag, store.unwrap(), "bundle", "import", bundle.unwrap()];
    let mut cmd = cli(dir, &args);
    cmd.args(["--dir", here.unwrap(), "--yes", "--json"])
        .env("PATH", "/usr/bin:/bin");
    measured(&mut cmd, dir)
}

/// An empty store and an empty directory to restore into, in `dir`.
fn places(dir: &Path) -> (PathBuf, PathBuf) {
    let (store, here) = (dir.join("store"), dir.join("here"));
    std::fs::create_dir(&store).unwrap();
    std::fs::create_dir(&here).unwrap();
    (store, here)
}

/// A bundle of session `id` of the fixture store `rel` (`flag` names its root).
fn exported(dir: &Path, flag: &str, rel: &str, id: &str, share_safe: bool) -> PathBuf {
    let root = testdata(rel);
    let mut args = vec![
        flag,
        root.to_str().unwrap(),
        "bundle",
        "export",
        id,
        "-o",
        "real.zip",
    ];
    if share_safe {
        args.push("--share-safe");
    }
    let out = cli(dir, &args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("real.zip")
}

fn read_member(bundle: &Path, name: &str) -> Vec<u8> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(bundle).unwrap()).unwrap();
    let mut bytes = Vec::new();
    zip.by_name(name).unwrap().read_to_end(&mut bytes).unwrap();
    bytes
}

/// A member being written.
type Member<'z> = Hashing<&'z mut zip::ZipWriter<std::fs::File>>;

/// A writer that hashes and counts what passes.
struct Hashing<W> {
    inner: W,
    sha: Sha256,
    n: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let got = self.inner.write(buf)?;
        self.sha.update(&buf[..got]);
        self.n += got as u64;
        Ok(got)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// `real` rebuilt as `hostile.zip` beside it: `member` written by `fill` (deflated, tightly),
/// `transcript.md` made of bytes that do not compress (the archive's whole ratio must stay
/// within the limit), everything else as it was; the manifest says the new sizes and hashes.
fn rebuilt(real: &Path, member: &str, fill: impl FnOnce(&mut Member)) -> PathBuf {
    let path = real.with_file_name("hostile.zip");
    let mut manifest: Value = serde_json::from_slice(&read_member(real, "manifest.json")).unwrap();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let mut fill = Some(fill);
    let packed = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(9))
        .large_file(true);
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for f in manifest["files"].as_array_mut().unwrap() {
        let name = f["path"].as_str().unwrap().to_owned();
        let mut w = Hashing {
            inner: &mut zip,
            sha: Sha256::new(),
            n: 0,
        };
        if name == member {
            w.inner.start_file(name.as_str(), packed).unwrap();
            (fill.take().unwrap())(&mut w);
        } else if name == "transcript.md" {
            w.inner.start_file(name.as_str(), stored).unwrap();
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            let mut chunk = vec![0u8; 1 << 20];
            for _ in 0..(member_bytes() / 80) >> 20 {
                for b in chunk.iter_mut() {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    *b = state as u8;
                }
                w.write_all(&chunk).unwrap();
            }
        } else {
            w.inner.start_file(name.as_str(), packed).unwrap();
            w.write_all(&read_member(real, &name)).unwrap();
        }
        f["size"] = json!(w.n);
        f["sha256"] = json!(format!("{:x}", w.sha.finalize()));
    }
    zip.start_file("manifest.json", packed).unwrap();
    zip.write_all(&serde_json::to_vec(&manifest).unwrap())
        .unwrap();
    zip.finish().unwrap();
    path
}

/// Writes `pattern` `times` times, a megabyte at a time (this process stays small).
fn repeat(w: &mut dyn Write, pattern: &str, times: usize) {
    let per = ((1 << 20) / pattern.len()).max(1);
    let chunk = pattern.repeat(per);
    let mut left = times;
    while left >= per {
        w.write_all(chunk.as_bytes()).unwrap();
        left -= per;
    }
    w.write_all(pattern.repeat(left).as_bytes()).unwrap();
}

/// `value` written with its first `"@@"` replaced by what `fill` writes.
fn spliced(w: &mut dyn Write, value: &Value, fill: impl FnOnce(&mut dyn Write)) {
    let text = serde_json::to_string(value).unwrap();
    let at = text.find("\"@@\"").unwrap();
    w.write_all(&text.as_bytes()[..at]).unwrap();
    fill(w);
    w.write_all(&text.as_bytes()[at + 4..]).unwrap();
}

/// A JSON string of `n` times `c`.
fn long_string(w: &mut dyn Write, c: &str, n: usize) {
    w.write_all(b"\"").unwrap();
    repeat(w, c, n);
    w.write_all(b"\"").unwrap();
}

/// A line that writes itself.
type Special<'a> = Box<dyn Fn(&mut dyn Write) + 'a>;

/// Writes `specials` (each a line) and then `line` (one JSON object) again and again until
/// `total` bytes in all.
fn lines(w: &mut Member, line: &str, specials: &[Special], total: u64) {
    for s in specials {
        s(w);
        w.write_all(b"\n").unwrap();
    }
    let times = total.saturating_sub(w.n) / (line.len() as u64 + 1);
    repeat(w, &format!("{line}\n"), times as usize);
}

/// `record` (a JSON object) with a first field of `n` bytes of text.
fn padded(record: &str, n: usize) -> Special<'_> {
    Box::new(move |w| {
        w.write_all(b"{\"pad\":").unwrap();
        long_string(w, "x", n);
        write!(w, ",{}", &record[1..]).unwrap();
    })
}

/// A record nested as deep as JSON may be, naming the directory `cwd`.
fn deep(cwd: &str) -> Special<'_> {
    Box::new(move |w| {
        let (open, close) = ("[".repeat(120), "]".repeat(120));
        write!(w, "{{\"cwd\":{},\"d\":{open}{close}}}", json!(cwd)).unwrap()
    })
}

/// A record that would make a tree sixteen times its text, as long as a record may be.
fn wide(kind: &str) -> Special<'_> {
    Box::new(move |w| {
        write!(w, "{{\"type\":\"{kind}\",\"payload\":[").unwrap();
        repeat(w, "0,", LONG / 2 - 64);
        w.write_all(b"0]}").unwrap();
    })
}

/// The record of `text`'s lines that holds `needle`.
fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines().find(|l| l.contains(needle)).unwrap()
}

/// Writes `message` `n` times as items of a JSON array (`,` between).
fn items(w: &mut dyn Write, message: &str, n: usize) {
    repeat(w, &format!("{message},"), n - 1);
    w.write_all(message.as_bytes()).unwrap();
}

#[test]
fn continuing_from_a_transcript_of_a_gigabyte_stays_small() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let real = claude_bundle(dir, true);
    let doc: Value = serde_json::from_slice(&read_member(&real, "transcript.json")).unwrap();
    let message = serde_json::to_string(&doc["messages"][0]).unwrap();
    let mut long = doc["messages"][0].clone();
    long["parts"] = json!([{ "kind": "text", "text": "@@" }]);
    // Empty texts: 26 bytes of JSON each, some 800 bytes each as a tree (and over 1,000
    // counted: 15,000 of them are within what a message may take).
    let mut many = doc["messages"][0].clone();
    many["parts"] = json!(["@@"]);
    let empty = r#"{"kind":"text","text":""}"#;
    let mut head = doc.clone();
    head["messages"] = json!(["@@"]);
    let hostile = rebuilt(&real, "transcript.json", |w| {
        spliced(w, &head, |w| {
            spliced(w, &long, |w| long_string(w, "y", RECORD - (256 << 10)));
            w.write_all(b",").unwrap();
            spliced(w, &many, |w| items(w, empty, 15_000));
            w.write_all(b",").unwrap();
            let rest = member_bytes() - (2 << 20) - RECORD as u64;
            items(w, &message, (rest / (message.len() as u64 + 1)) as usize);
        });
    });
    let here = dir.join("here");
    std::fs::create_dir(&here).unwrap();
    let continued = |bundle: &Path| {
        let args = [
            "bundle",
            "continue",
            bundle.to_str().unwrap(),
            "--dir",
            here.to_str().unwrap(),
            "--to",
            "codex",
            "--print",
            "--json",
        ];
        measured(&mut cli(dir, &args), dir)
    };
    let ran = continued(&hostile);
    bounded(&ran, "bundle continue --print", 0, None);
    let printed = ran.json()["data"].to_string();
    assert!(printed.contains("handoff"), "{printed}");
    // A message over what a record may take is refused, still within the limit.
    let hostile = rebuilt(&real, "transcript.json", |w| {
        spliced(w, &head, |w| {
            spliced(w, &many, |w| items(w, empty, 400_000))
        });
    });
    let ran = continued(&hostile);
    bounded(&ran, "a message too large", 2, Some("bundle_too_large"));
}

#[test]
fn importing_claude_records_of_a_gigabyte_stays_small() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let real = claude_bundle(dir, false);
    let manifest: Value = serde_json::from_slice(&read_member(&real, "manifest.json")).unwrap();
    let id = manifest["session"]["id"].as_str().unwrap().to_owned();
    let cwd = manifest["session"]["cwd"].as_str().unwrap().to_owned();
    let member = format!("native/claude/{id}.jsonl");
    let records = String::from_utf8(read_member(&real, &member)).unwrap();
    let line = line_with(&records, "\"cwd\"").to_owned();
    let hostile = rebuilt(&real, &member, |w| {
        let specials = [padded(&line, LONG - (64 << 10)), deep(&cwd), wide("user")];
        lines(w, &line, &specials, member_bytes());
    });
    let (store, here) = places(dir);
    let import = |bundle: &Path| imported(dir, "--claude-root", &store, bundle, &here);
    let ran = import(&hostile);
    bounded(&ran, "bundle import (Claude)", 0, None);
    // Restored whole, the directory rewritten in the longest line too.
    let files = ran.json()["data"]["preview"]["method"]["files"].clone();
    let written = files
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|f| f.ends_with(&format!("{id}.jsonl")))
        .map(PathBuf::from)
        .unwrap();
    let new_cwd = json!(here.canonicalize().unwrap().to_str().unwrap()).to_string();
    let old_cwd = json!(cwd).to_string();
    let mut file = std::fs::File::open(&written).unwrap();
    let mut first = Vec::new();
    (&mut file)
        .take(LONG as u64)
        .read_to_end(&mut first)
        .unwrap();
    let first = String::from_utf8_lossy(&first);
    assert!(first.contains(&format!("\"cwd\":{new_cwd}")));
    // … and to its last line.
    let size = file.metadata().unwrap().len();
    assert!(
        size.abs_diff(member_bytes()) < member_bytes() / 10,
        "{size}"
    );
    let last = line.replace(&format!("\"cwd\":{old_cwd}"), &format!("\"cwd\":{new_cwd}"));
    let mut tail = vec![0u8; last.len() + 1];
    std::io::Seek::seek(&mut file, std::io::SeekFrom::End(-(tail.len() as i64))).unwrap();
    file.read_exact(&mut tail).unwrap();
    assert_eq!(String::from_utf8_lossy(&tail), format!("{last}\n"));
    // A line longer than a record may be: refused, nothing written.
    let hostile = rebuilt(&real, &member, |w| {
        lines(w, &line, &[padded(&line, LONG + (128 << 10))], 256 << 20);
    });
    std::fs::remove_dir_all(&store).unwrap();
    std::fs::create_dir(&store).unwrap();
    let ran = import(&hostile);
    bounded(&ran, "a line too long", 2, Some("bundle_too_large"));
    let said = ran.json()["error"]["message"].to_string();
    assert!(said.contains("line longer than"), "{said}");
    assert!(
        std::fs::read_dir(&store).unwrap().next().is_none(),
        "something was written"
    );
}

#[test]
fn importing_codex_records_into_a_store_with_a_state_database_stays_small() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let real = exported(
        dir,
        "--codex-root",
        "codex/0.171.0/dot-codex",
        "01a22bc4-d63a",
        false,
    );
    let manifest: Value = serde_json::from_slice(&read_member(&real, "manifest.json")).unwrap();
    let member = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .find(|p| p.contains("01a22bc4-d63a") && p.ends_with(".jsonl"))
        .unwrap();
    let cwd = manifest["session"]["cwd"].as_str().unwrap().to_owned();
    let records = String::from_utf8(read_member(&real, &member)).unwrap();
    let meta = line_with(&records, "\"session_meta\"").to_owned();
    let context = line_with(&records, "\"turn_context\"").to_owned();
    let hostile = rebuilt(&real, &member, |w| {
        // The records a threads row is read from, as long and as wide as a record may be.
        let specials = [
            Box::new(|w: &mut dyn Write| w.write_all(meta.as_bytes()).unwrap()) as Special,
            padded(&context, LONG - (64 << 10)),
            wide("turn_context"),
            wide("session_meta"),
            deep(&cwd),
        ];
        lines(w, &context, &specials, member_bytes());
    });
    let (store, here) = places(dir);
    let schema = testdata("codex/0.171.0/dot-codex/state_5.sqlite.schema.sql");
    // (SQLite makes its own sqlite_sequence.)
    let schema = std::fs::read_to_string(schema).unwrap();
    rusqlite::Connection::open(store.join("state_5.sqlite"))
        .unwrap()
        .execute_batch(&schema.replace("CREATE TABLE sqlite_sequence(name,seq);", ""))
        .unwrap();
    let ran = imported(dir, "--codex-root", &store, &hostile, &here);
    bounded(&ran, "bundle import (Codex)", 0, None);
    let conn = rusqlite::Connection::open(store.join("state_5.sqlite")).unwrap();
    let cwd: String = conn
        .query_row(
            "SELECT cwd FROM threads WHERE id LIKE '01a22bc4-d63a%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(cwd, here.canonicalize().unwrap().to_str().unwrap());
}

#[test]
fn importing_an_opencode_session_of_a_gigabyte_is_refused_small() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let id = "ses_dd42fa730ffeH3bwJBPSmba31G";
    let real = exported(
        dir,
        "--opencode-root",
        "opencode/1.2.27/local-share-opencode",
        id,
        false,
    );
    let member = format!("native/opencode/{id}.json");
    let doc: Value = serde_json::from_slice(&read_member(&real, &member)).unwrap();
    let (store, here) = places(dir);
    let schema = testdata("opencode/1.18.33/local-share-opencode/opencode.db.schema.sql");
    rusqlite::Connection::open(store.join("opencode.db"))
        .unwrap()
        .execute_batch(&std::fs::read_to_string(schema).unwrap())
        .unwrap();
    let import = |bundle: &Path| imported(dir, "--opencode-root", &store, bundle, &here);
    let rows = || -> i64 {
        let db = rusqlite::Connection::open(store.join("opencode.db")).unwrap();
        let count = "SELECT (SELECT count(*) FROM session) + (SELECT count(*) FROM part)";
        db.query_row(count, [], |r| r.get(0)).unwrap()
    };
    // Its messages again and again, to a gigabyte: refused once the tree is as large as a
    // session may be, nothing written.
    let message = serde_json::to_string(&doc["messages"][0]).unwrap();
    let mut head = doc.clone();
    head["messages"] = json!(["@@"]);
    let hostile = rebuilt(&real, &member, |w| {
        spliced(w, &head, |w| {
            let n = (member_bytes() - (1 << 20)) / (message.len() as u64 + 1);
            items(w, &message, n as usize);
        });
    });
    let ran = import(&hostile);
    bounded(
        &ran,
        "bundle import (OpenCode, a gigabyte)",
        2,
        Some("bundle_too_large"),
    );
    assert_eq!(rows(), 0);
    // A session with a part of 40 MiB and one of many small values (within the 48 MiB of tree
    // a session may take): restored.
    let mut big = doc.clone();
    let parts = big["messages"][0]["parts"].as_array_mut().unwrap();
    let mut long = parts[0].clone();
    long["text"] = json!("@@");
    long["id"] = json!("prt_0000000000000000000000long");
    let mut wide = parts[0].clone();
    wide["text"] = json!("");
    wide["extra"] = json!(vec![0; 64 << 10]);
    wide["id"] = json!("prt_0000000000000000000000wide");
    parts.push(long);
    parts.push(wide);
    let hostile = rebuilt(&real, &member, |w| {
        spliced(w, &big, |w| long_string(w, "z", 40 << 20));
    });
    let ran = import(&hostile);
    bounded(
        &ran,
        "bundle import (OpenCode, long and wide parts)",
        0,
        None,
    );
    assert!(rows() > 2);
}
