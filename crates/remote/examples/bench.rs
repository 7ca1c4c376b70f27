//! Remote figures over a real loopback ssh (a throwaway sshd on 127.0.0.1, `loopback`):
//!
//!     cargo build --release -p agent-sessions-cli
//!     cargo run --release -p agent-sessions-remote --example bench -- [--size-mb 300] [--runs 3]
//!
//! Generates a Claude store of `--size-mb` in `target/remote-bench/` (once), serves it as the
//! remote home with the release CLI as the server, and prints a table: connecting, the first
//! list on a cold remote cache, warm lists, search round trips, and how long an appended line
//! takes to arrive as a `follow` event, and a bundle of one large session (`--big-mb`, made
//! once beside the store) exported to here, uploaded back and restored there as a copy (the
//! copy is removed again). Times are the best of `--runs` (latency: median and worst of 20
//! appends).
//!
//! A second table (`--suite kept` prints it alone) is what a server keeps between the calls of
//! one connection: on a new connection, its first `list`, a second `list`, and a `show` (the
//! first page of a session named by an id prefix, which finds it in a listing) after them,
//! with the remote's cache warm and with no usable cache there (`AGENT_SESSIONS_CACHE_DIR`
//! below a file). `--server PATH` serves with another build of the CLI (an older one, to
//! compare).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agent_sessions_remote::loopback::Sshd;
use agent_sessions_remote::protocol::*;
use agent_sessions_remote::ssh::Ssh;
use agent_sessions_remote::Client;
use serde_json::{json, Value};

/// A session file's size: 1,500 sessions for 300 MB.
const SESSION_BYTES: usize = 200_000;
const NEEDLE: &str = "zebrafish";

struct Args {
    size_mb: usize,
    runs: usize,
    big_mb: usize,
    /// `all` or `kept`.
    suite: String,
    server: PathBuf,
}

fn args() -> Args {
    let mut out = Args {
        size_mb: 300,
        runs: 3,
        big_mb: 40,
        suite: "all".into(),
        server: workspace().join("target/release/agent-sessions-cli"),
    };
    let words: Vec<String> = std::env::args().skip(1).collect();
    for pair in words.chunks(2) {
        let value = pair.get(1).and_then(|v| v.parse().ok());
        match (pair[0].as_str(), value) {
            ("--size-mb", Some(v)) => out.size_mb = v,
            ("--runs", Some(v)) => out.runs = v,
            ("--big-mb", Some(v)) => out.big_mb = v,
            ("--suite", _) if matches!(pair.get(1).map(String::as_str), Some("all" | "kept")) => {
                out.suite = pair[1].clone()
            }
            ("--server", _) if pair.len() == 2 => out.server = PathBuf::from(&pair[1]),
            _ => panic!(
                "usage: bench [--size-mb N] [--runs N] [--big-mb N] [--suite all|kept] [--server PATH]"
            ),
        }
    }
    out
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn session_id(k: usize) -> String {
    format!("{k:08x}-0000-4000-8000-{k:012x}")
}

/// One session of about [`SESSION_BYTES`]: prompts and answers, the needle in every 100th.
fn write_session(path: &Path, k: usize) -> std::io::Result<()> {
    write_sized(path, k, SESSION_BYTES, false)
}

/// One session of about `bytes`; `noisy`: its text is hex digits that change from message to
/// message (compressed to about half, like real transcripts, where the repeated filler
/// compresses 30-fold).
fn write_sized(path: &Path, k: usize, bytes: usize, noisy: bool) -> std::io::Result<()> {
    let id = session_id(k);
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut seed = k as u64 | 1;
    let mut filler = "the quick brown fox jumps over the lazy dog while tests run ".repeat(30);
    let mut written = 0;
    let mut i = 0;
    while written < bytes {
        if noisy {
            filler = (0..110)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    format!("{:016x}", seed)
                })
                .collect();
        }
        let needle = if k.is_multiple_of(100) && i == 3 {
            NEEDLE
        } else {
            ""
        };
        let user = format!(
            r#"{{"type":"user","uuid":"u{k}-{i}","sessionId":"{id}","cwd":"/bench/p{}","timestamp":"2026-11-30T10:{:02}:00.000Z","message":{{"role":"user","content":"question {i} {needle} {filler}"}}}}"#,
            k % 20,
            i % 60
        );
        let answer = format!(
            r#"{{"type":"assistant","uuid":"a{k}-{i}","parentUuid":"u{k}-{i}","sessionId":"{id}","timestamp":"2026-11-30T10:{:02}:01.000Z","message":{{"id":"msg_{k}_{i}","model":"claude-x","role":"assistant","content":[{{"type":"text","text":"answer {i} {filler}"}}],"usage":{{"input_tokens":100,"output_tokens":50}}}}}}"#,
            i % 60
        );
        writeln!(f, "{user}\n{answer}")?;
        written += user.len() + answer.len() + 2;
        i += 1;
    }
    f.flush()
}

/// The remote home with its Claude store (generated once).
fn ensure_home(size_mb: usize) -> PathBuf {
    let home = workspace().join(format!("target/remote-bench/home-{size_mb}MB"));
    let projects = home.join(".claude/projects");
    let sessions = size_mb * 1_000_000 / SESSION_BYTES;
    let done = home.join(".generated");
    if !done.exists() {
        eprintln!(
            "generating {sessions} sessions ({size_mb} MB) in {}",
            home.display()
        );
        for k in 0..sessions {
            let dir = projects.join(format!("-bench-p{}", k % 20));
            std::fs::create_dir_all(&dir).unwrap();
            write_session(&dir.join(format!("{}.jsonl", session_id(k))), k).unwrap();
        }
        std::fs::write(&done, "").unwrap();
    }
    home
}

/// The CLI (the release build unless `--server` names another), installed as the remote's
/// server of this version.
fn install_server(home: &Path, cli: &Path) {
    assert!(
        cli.exists(),
        "build the server first: cargo build --release -p agent-sessions-cli"
    );
    let dir = home.join(format!(
        ".cache/agent-sessions/server/{}",
        agent_sessions_remote::ssh::VERSION
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("agent-sessions-cli");
    let _ = std::fs::remove_file(&target);
    std::os::unix::fs::symlink(std::fs::canonicalize(cli).unwrap(), target).unwrap();
}

/// Empties the remote's session cache (its index files), leaving the server in place.
fn clear_cache(home: &Path) {
    let dir = home.join(".cache/agent-sessions");
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with("index-") {
            std::fs::remove_file(e.path()).unwrap();
        }
    }
}

fn connect(sshd: &Sshd) -> Client {
    let mut ssh = Ssh::new("testbox").unwrap();
    ssh.config = Some(sshd.config());
    Client::connect(Box::new(ssh)).unwrap()
}

fn list(client: &mut Client) -> usize {
    let r: ListResult = client.call(method::LIST, ListParams::default()).unwrap();
    r.sessions.len()
}

fn search(client: &mut Client, query: &str) -> usize {
    let v: Value = client
        .call(method::SEARCH, json!({ "query": query, "limit": 20 }))
        .unwrap();
    v["results"]["hits"].as_array().map_or(0, Vec::len)
}

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut out = None;
    let mut fastest = Duration::MAX;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let v = f();
        fastest = fastest.min(t.elapsed());
        out = Some(v);
    }
    (fastest, out.unwrap())
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// Claims session 1 for this process.
fn claim_live(home: &Path) -> PathBuf {
    agent_sessions_remote::loopback::claim_live(&home.join(".claude"), &session_id(1))
}

/// Appends prompts to the live session; each one's time to arrive as a follow event.
fn follow_latency(sshd: &Sshd, home: &Path, appends: usize) -> Vec<Duration> {
    let pid_file = claim_live(home);
    let path = home.join(format!(
        ".claude/projects/-bench-p1/{}.jsonl",
        session_id(1)
    ));
    let mut client = connect(sshd);
    let log: LogResult = client
        .call(
            method::LOG,
            SessionRef {
                id: session_id(1),
                provider: None,
                source_path: None,
            },
        )
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let params = FollowParams {
        provider: log.session.provider,
        id: log.session.id.clone(),
        cursor: log.cursor,
        source_path: None,
    };
    let follower = std::thread::spawn(move || {
        client
            .follow(params, &mut |e| {
                if !e.events.is_empty() {
                    let _ = tx.send(Instant::now());
                }
                true
            })
            .unwrap();
    });
    std::thread::sleep(Duration::from_millis(500));
    let mut out = Vec::new();
    for n in 0..appends {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        let line = format!(
            r#"{{"type":"user","uuid":"live{n}","sessionId":"{}","timestamp":"2026-11-30T11:00:00.000Z","message":{{"role":"user","content":"live prompt {n}"}}}}"#,
            session_id(1)
        );
        let sent = Instant::now();
        writeln!(f, "{line}").unwrap();
        drop(f);
        let got = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("no follow event");
        out.push(got - sent);
        std::thread::sleep(Duration::from_millis(200));
    }
    std::fs::remove_file(pid_file).unwrap();
    follower.join().unwrap();
    out.sort();
    out
}

/// The id of the large session (beyond the generated ones).
const BIG: usize = 0xb17;

/// The large session, written once into a Claude root of its own beside the store (so the
/// other rows read the same store whatever this does).
fn ensure_big(home: &Path, mb: usize) -> PathBuf {
    let dir = home.join(".claude-big/projects/-bench-big");
    // A big session of an older bench (other id) would be listed too.
    if let Ok(old) = std::fs::read_dir(&dir) {
        for e in old.flatten() {
            if !e
                .file_name()
                .to_string_lossy()
                .starts_with(&session_id(BIG))
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let path = dir.join(format!("{}.jsonl", session_id(BIG)));
    let wanted = mb * 1_000_000;
    let size = std::fs::metadata(&path).map_or(0, |m| m.len() as usize);
    if size < wanted {
        std::fs::create_dir_all(&dir).unwrap();
        write_sized(&path, BIG, wanted, true).unwrap();
    }
    path
}

/// Bundle rows: the large session exported over ssh, uploaded again, restored as a copy there
/// (the copy's files removed after each run).
fn bundle_rows(sshd: &Sshd, home: &Path, args: &Args, rows: &mut Vec<(String, String)>) {
    let big = ensure_big(home, args.big_mb);
    let size_mb = std::fs::metadata(&big).unwrap().len() as f64 / 1e6;
    let mut client = connect(sshd);
    client
        .set_roots(RootsParams {
            roots: vec![(
                agent_sessions_core::ProviderKind::Claude,
                home.join(".claude-big"),
            )],
        })
        .unwrap();
    let local = tempfile::tempdir().unwrap();
    let file = local.path().join("big.agent-session.zip");
    let params = BundleExportParams {
        session: SessionRef {
            id: session_id(BIG),
            provider: None,
            source_path: None,
        },
        share_safe: false,
    };
    let (t, exported) = best(args.runs, || {
        let mut out = std::fs::File::create(&file).unwrap();
        client.bundle_export(&params, &mut out).unwrap()
    });
    let bundle_mb = exported.bytes as f64 / 1e6;
    rows.push((
        format!("bundle export to here ({size_mb:.0} MB session, {bundle_mb:.1} MB bundle)"),
        ms(t),
    ));
    let (t, _) = best(args.runs, || client.upload(&file).unwrap());
    rows.push((
        format!("bundle upload ({bundle_mb:.1} MB, 512 KiB chunks)"),
        ms(t),
    ));
    let work = home.join("restored-here");
    std::fs::create_dir_all(&work).unwrap();
    let restore = |client: &mut Client| {
        let upload = client.upload(&file).unwrap();
        let t = Instant::now();
        let mut p = BundleImportParams {
            upload,
            dir: work.clone(),
            as_copy: true,
            token: None,
        };
        let preview: BundleImportResult = client.call(method::BUNDLE_IMPORT, &p).unwrap();
        p.token = Some(preview.preview.token.clone());
        let done: BundleImportResult = client.call(method::BUNDLE_IMPORT, &p).unwrap();
        let took = t.elapsed();
        assert!(done.restored.is_some());
        // The copy goes again, so every run restores into the same store.
        if let agent_sessions_core::bundle::restore::Method::Files { files } =
            &preview.preview.method
        {
            for f in files {
                let _ = std::fs::remove_file(f);
                let _ = std::fs::remove_dir_all(f);
            }
        }
        took
    };
    let t = (0..args.runs.max(1))
        .map(|_| restore(&mut client))
        .min()
        .unwrap();
    rows.push((
        "bundle import there as a copy (preview + restore, after the upload)".into(),
        ms(t),
    ));
}

/// What the server keeps between calls: a new connection's first list, second list and a show
/// after them, best of `runs` (each on a new connection), on `sshd`.
fn kept_rows(sshd: &Sshd, runs: usize, label: &str, rows: &mut Vec<(String, String)>) {
    let show = ShowParams {
        session: SessionRef::named(&session_id(7)[..13]),
        offset: 0,
        limit: 50,
    };
    let mut times = [Duration::MAX; 3];
    let mut listed = 0;
    for _ in 0..runs.max(1) {
        let mut client = connect(sshd);
        timed(&mut times[0], || listed = list(&mut client));
        timed(&mut times[1], || {
            list(&mut client);
        });
        timed(&mut times[2], || {
            client.show(&show).unwrap();
        });
    }
    let names = [
        format!("first list of a connection ({listed} sessions)"),
        "second list, same connection".into(),
        "show (first page, id prefix) after a list".into(),
    ];
    for (name, t) in names.into_iter().zip(times) {
        rows.push((format!("{label}: {name}"), ms(t)));
    }
}

/// Runs `f`, keeping the shorter of its time and `best`.
fn timed(best: &mut Duration, f: impl FnOnce()) {
    let t = Instant::now();
    f();
    *best = (*best).min(t.elapsed());
}

/// The kept-listing table: with the remote's cache warm, then with none usable there.
fn kept_table(home: &Path, args: &Args) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let sshd = Sshd::start(home).unwrap_or_else(|e| panic!("{e}"));
    list(&mut connect(&sshd));
    kept_rows(&sshd, args.runs, "warm cache", &mut rows);
    drop(sshd);
    // A cache folder no server can make: below a file.
    let file = home.join("../not-a-folder");
    std::fs::write(&file, "").unwrap();
    let nowhere = file.join("cache").display().to_string();
    let sshd = Sshd::start_with(home, &[("AGENT_SESSIONS_CACHE_DIR", &nowhere)])
        .unwrap_or_else(|e| panic!("{e}"));
    kept_rows(&sshd, args.runs, "no cache", &mut rows);
    rows
}

fn print_table(title: &str, rows: Vec<(String, String)>) {
    println!("\n{title}\n");
    println!("| what | time |\n| --- | ---: |");
    for (what, time) in rows {
        println!("| {what} | {time} |");
    }
}

fn main() {
    let args = args();
    let home = ensure_home(args.size_mb);
    install_server(&home, &args.server);
    let kept = kept_table(&home, &args);
    if args.suite == "kept" {
        let title = format!(
            "what a connection's server keeps ({} MB, {}; best of {})",
            args.size_mb,
            args.server.display(),
            args.runs
        );
        print_table(&title, kept);
        return;
    }
    let sshd = Sshd::start(&home).unwrap_or_else(|e| panic!("{e}"));
    let mut rows: Vec<(String, String)> = Vec::new();

    let (t, _) = best(args.runs, || connect(&sshd));
    rows.push(("connect: ssh login + server start + hello".into(), ms(t)));

    let (t, n) = best(args.runs, || {
        clear_cache(&home);
        let mut c = connect(&sshd);
        list(&mut c)
    });
    rows.push((
        format!(
            "first list, cold remote cache ({n} sessions, {} MB)",
            args.size_mb
        ),
        ms(t),
    ));

    let mut client = connect(&sshd);
    list(&mut client);
    let (t, _) = best(args.runs, || list(&mut client));
    rows.push(("warm list, open connection".into(), ms(t)));
    let (t, _) = best(args.runs, || list(&mut connect(&sshd)));
    rows.push(("warm list, new connection".into(), ms(t)));

    // Text index filled on the remote, as its service loop or `agent-sessions-cli index` does.
    let indexed = std::process::Command::new(workspace().join("target/release/agent-sessions-cli"))
        .arg("index")
        .env("HOME", &home)
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env_remove("AGENT_SESSIONS_CACHE_DIR")
        .status()
        .unwrap();
    assert!(indexed.success());
    let (t, hits) = best(args.runs, || search(&mut client, NEEDLE));
    rows.push((format!("search round trip, rare word ({hits} hits)"), ms(t)));
    let (t, hits) = best(args.runs, || search(&mut client, "quick brown"));
    rows.push((
        format!("search round trip, common words ({hits} hits)"),
        ms(t),
    ));

    let latencies = follow_latency(&sshd, &home, 20);
    rows.push((
        "follow: append → event, median of 20".into(),
        ms(latencies[latencies.len() / 2]),
    ));
    rows.push((
        "follow: append → event, worst of 20".into(),
        ms(*latencies.last().unwrap()),
    ));

    bundle_rows(&sshd, &home, &args, &mut rows);

    print_table(
        &format!("remote over loopback ssh ({} runs, best)", args.runs),
        rows,
    );
    print_table("what a connection's server keeps", kept);
}
