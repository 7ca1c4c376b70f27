//! agent-sessions-bench: generates a realistic corpus and prints a table of what the core costs
//! on it, with `cat` of the same files as the I/O baseline measured in the same run.
//!
//! `cargo run --release -p agent-sessions-bench -- --size-mb 300`

mod corpus;
mod opencode_scan;
mod tokens;

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agent_sessions_core::index::SearchFilter;
use agent_sessions_core::provider::{ProviderSet, ScanProgress};
use agent_sessions_core::service::{INDEX_BATCH, INDEX_STEP};
use agent_sessions_core::{Catalog, Library, ProviderKind, Roots};
use clap::Parser;

#[derive(Parser)]
#[command(about = "Benchmark agent-sessions on a generated corpus and print tables")]
struct Args {
    /// `index`: the cache and search against the targets; `scan`: the raw metadata scan per
    /// provider. Both when omitted. `tokens`: the index's tokenizer alone, on the index suite's
    /// corpus text.
    #[arg(long, value_parser = ["index", "scan", "live", "query", "export", "tokens"])]
    suite: Option<String>,
    /// Corpus size in MB (10^6 bytes), per provider.
    #[arg(long, default_value_t = 300)]
    size_mb: u64,
    /// Size of the one large transcript, in MB.
    #[arg(long, default_value_t = 40)]
    big_mb: u64,
    /// Which providers the scan suite measures (claude, codex, opencode, gemini, qwen); default
    /// the first three.
    #[arg(long = "provider", value_parser = parse_provider)]
    providers: Vec<ProviderKind>,
    /// Where corpora are kept between runs.
    #[arg(long, default_value = "target/bench-corpus")]
    dir: PathBuf,
    /// How many times each timing runs (the best is shown).
    #[arg(long, default_value_t = 3)]
    runs: u32,
    /// The index suite's corpus holds every agent of the registry, not only the first three:
    /// [`EIGHT`]'s shares of `--size-mb`.
    #[arg(long)]
    all_agents: bool,
}

/// The share of the corpus (per cent) each agent takes with `--all-agents`: the first three
/// as most users have them, the five added later smaller, as a user new to them would.
const EIGHT: [(ProviderKind, u64); 8] = [
    (ProviderKind::Claude, 35),
    (ProviderKind::Codex, 20),
    (ProviderKind::Opencode, 15),
    (ProviderKind::Gemini, 6),
    (ProviderKind::Qwen, 6),
    (ProviderKind::Cline, 6),
    (ProviderKind::Copilot, 6),
    (ProviderKind::Aider, 6),
];

fn parse_provider(name: &str) -> Result<ProviderKind, String> {
    match ProviderKind::parse(name) {
        Some(k) => Ok(k),
        None => Err(format!(
            "no agent named {name:?}; use claude, codex or opencode"
        )),
    }
}

struct Row {
    what: String,
    time: Duration,
    bytes: u64,
    peak_rss: Option<u64>,
    note: String,
}

fn main() {
    // As the CLI and the app do, before anything reads SQLite.
    agent_sessions_core::index::without_memory_statistics();
    let args = Args::parse();
    if args.suite.as_deref() == Some("live") {
        live_suite(&args);
        return;
    }
    if args.suite.as_deref() == Some("query") {
        query_suite(&args);
        return;
    }
    if args.suite.as_deref() == Some("tokens") {
        tokens::suite(&args);
        return;
    }
    if args.suite.as_deref() == Some("export") {
        export_suite(&args);
        return;
    }
    if args.suite.as_deref() != Some("scan") {
        index_suite(&args);
    }
    if args.suite.as_deref() != Some("index") {
        let kinds = if args.providers.is_empty() {
            vec![
                ProviderKind::Claude,
                ProviderKind::Codex,
                ProviderKind::Opencode,
            ]
        } else {
            args.providers.clone()
        };
        for kind in kinds {
            match kind {
                ProviderKind::Opencode => opencode_scan::run(&args),
                ProviderKind::Claude
                | ProviderKind::Codex
                | ProviderKind::Gemini
                | ProviderKind::Qwen => run(kind, &args),
                // No generator of one big session for them (`ensure_corpus`): their corpora
                // are measured in the index suite with `--all-agents`.
                ProviderKind::Cline | ProviderKind::Copilot | ProviderKind::Aider => {
                    eprintln!("no scan suite for {kind}: see --suite index --all-agents")
                }
            }
        }
    }
}

/// A cold start the way the app's worker makes it (`service`): a refresh, then the text of
/// at most [`INDEX_BATCH`] sessions for about [`INDEX_STEP`], until none is pending; then
/// searches on the cache it made.
fn in_app_steps(roots: &Roots, cache: &Path, bytes: u64, queries: &[String]) -> Vec<Row> {
    let _ = fs::remove_dir_all(cache);
    let p = ScanProgress::default();
    reset_peak();
    let cpu = cpu_time();
    let start = Instant::now();
    let mut lib = Library::open(roots, &[], Some(cache.to_path_buf()));
    let mut steps = 0;
    loop {
        lib.refresh(&p).unwrap();
        if lib.pending_text() == 0 {
            break;
        }
        lib.index_text_step(INDEX_BATCH, INDEX_STEP, &p).unwrap();
        steps += 1;
    }
    let took = start.elapsed();
    let cpu = cpu_time() - cpu;
    let mut rows = vec![Row {
        what: "cold: list + full-text index, in the app's steps".into(),
        time: took,
        bytes,
        peak_rss: peak_rss(),
        note: format!("{steps} steps of {INDEX_STEP:?}; CPU {cpu:.1?}"),
    }];
    let filter = SearchFilter {
        limit: 20,
        ..SearchFilter::default()
    };
    let (times, hits) = search_times(queries, |q| lib.search_now(q, &filter).unwrap().hits.len());
    rows.push(Row {
        what: "search p95 on the cache the app's steps made".into(),
        time: times.pct(0.95),
        bytes: 0,
        peak_rss: None,
        note: format!("p50 {:.1?}; {hits} hits", times.pct(0.5)),
    });
    drop(lib);
    let _ = fs::remove_dir_all(cache);
    rows
}

/// The index suite: all three providers in one corpus (half Claude with the big transcript,
/// 30% Codex, 20% OpenCode), or with `--all-agents` every agent ([`EIGHT`]), through the
/// cache, as the app and CLI use it.
fn index_suite(args: &Args) {
    let (base, big, roots, files) = if args.all_agents {
        eight_agents_corpus(args)
    } else {
        three_agents_corpus(args)
    };
    let bytes: u64 = files
        .iter()
        .map(|f| f.metadata().map(|m| m.len()).unwrap_or(0))
        .sum();
    let big_len = big.metadata().unwrap().len();
    println!(
        "\nindex suite: {} ({} files, {:.1} MB), {} threads\n",
        base.display(),
        files.len(),
        bytes as f64 / 1e6,
        rayon::current_num_threads()
    );
    let cache = base.join("cache");
    let _ = fs::remove_dir_all(&cache);
    let p = ScanProgress::default();
    let mut rows = Vec::new();
    let (t, _) = best(args.runs, || cat(&files));
    rows.push(Row {
        what: "cat (I/O baseline)".into(),
        time: t,
        bytes,
        peak_rss: None,
        note: "read every file, warm cache".into(),
    });

    reset_peak();
    let cpu = cpu_time();
    let start = Instant::now();
    let mut lib = Library::open(&roots, &[], Some(cache.clone()));
    let n = lib.sessions(&p).unwrap().sessions.len();
    let listed = start.elapsed();
    let list_cpu = cpu_time() - cpu;
    let list_rss = peak_rss();
    rows.push(Row {
        what: "cold: empty cache to complete list".into(),
        time: listed,
        bytes,
        peak_rss: list_rss,
        note: format!("{n} sessions; CPU {list_cpu:.1?}"),
    });

    let queries = queries();
    let filter = SearchFilter {
        limit: 20,
        ..SearchFilter::default()
    };
    reset_peak();
    let cpu = cpu_time();
    let start = Instant::now();
    let indexed = lib.index_text(&p).unwrap();
    let text = start.elapsed();
    let text_cpu = cpu_time() - cpu;
    let text_rss = peak_rss();
    rows.push(Row {
        what: "FTS index completion".into(),
        time: text,
        bytes,
        peak_rss: text_rss,
        note: format!("{indexed} sessions' text; CPU {text_cpu:.1?}"),
    });
    rows.push(Row {
        what: "cold: list + full-text index".into(),
        time: listed + text,
        bytes,
        peak_rss: list_rss.max(text_rss),
        note: format!("CPU {:.1?}", list_cpu + text_cpu),
    });
    drop(lib);

    reset_peak();
    let (t, n) = best(args.runs, || {
        let mut lib = Library::open(&roots, &[], Some(cache.clone()));
        lib.sessions(&p).unwrap().sessions.len()
    });
    rows.push(Row {
        what: "warm start: open cache, refresh, list".into(),
        time: t,
        bytes: 0,
        peak_rss: peak_rss(),
        note: format!("{n} sessions, nothing changed"),
    });

    let mut lib = Library::open(&roots, &[], Some(cache.clone()));
    lib.sessions(&p).unwrap();
    let line = fs::read_to_string(&big)
        .unwrap()
        .lines()
        .find(|l| l.contains("\"type\":\"user\""))
        .unwrap()
        .to_owned();
    let mut f = fs::OpenOptions::new().append(true).open(&big).unwrap();
    f.write_all(format!("{line}\n").as_bytes()).unwrap();
    drop(f);
    reset_peak();
    let start = Instant::now();
    let report = lib.refresh(&p).unwrap();
    rows.push(Row {
        what: format!("append 1 record to the {} MB file, refresh", args.big_mb),
        time: start.elapsed(),
        bytes: 0,
        peak_rss: peak_rss(),
        note: format!("{} changed", report.changed),
    });
    reset_peak();
    let start = Instant::now();
    let cpu = cpu_time();
    let n = lib.index_text(&p).unwrap();
    rows.push(Row {
        what: format!("… then index its text again ({n} session)"),
        time: start.elapsed(),
        bytes: 0,
        peak_rss: peak_rss(),
        note: format!("CPU {:.1?}", cpu_time() - cpu),
    });

    reset_peak();
    let (times, hits) = search_times(&queries, |q| lib.search_now(q, &filter).unwrap().hits.len());
    let pct = |q: f64| times.pct(q);
    rows.push(Row {
        what: format!("search p50 ({} queries)", queries.len()),
        time: pct(0.5),
        bytes: 0,
        peak_rss: None,
        note: format!("{hits} hits in all"),
    });
    rows.push(Row {
        what: format!("search p95 ({} queries)", queries.len()),
        time: pct(0.95),
        bytes: 0,
        peak_rss: peak_rss(),
        note: "words, phrases, prefixes".into(),
    });

    let sessions = lib.sessions(&p).unwrap().sessions;
    let meta = sessions
        .iter()
        .find(|s| s.source_path == big)
        .unwrap()
        .clone();
    reset_peak();
    let (t, n) = best(args.runs, || {
        lib.load(&meta)
            .unwrap()
            .messages
            .into_iter()
            .take(200)
            .count()
    });
    rows.push(Row {
        what: format!("load the {} MB transcript, first 200 messages", args.big_mb),
        time: t,
        bytes: big_len,
        peak_rss: peak_rss(),
        note: format!("{n} messages shown"),
    });
    // Searches right after a cold list, before any text is indexed: every session is read.
    // Last, with a cache of its own, so that its memory is not in the peaks above.
    let first = base.join("cache-first-search");
    let _ = fs::remove_dir_all(&first);
    let mut lib = Library::open(&roots, &[], Some(first.clone()));
    lib.refresh(&p).unwrap();
    reset_peak();
    let (times, hits) = search_times(&queries, |q| lib.search_now(q, &filter).unwrap().hits.len());
    rows.push(Row {
        what: "first search, nothing indexed yet: p50".into(),
        time: times.pct(0.5),
        bytes: 0,
        peak_rss: None,
        note: format!("{hits} hits; every session is read directly"),
    });
    rows.push(Row {
        what: "first search, nothing indexed yet: p95".into(),
        time: times.pct(0.95),
        bytes: 0,
        peak_rss: peak_rss(),
        note: format!("slowest {:.1?}", times.pct(1.0)),
    });
    // The indexer takes the sessions a search must parse whole first (OpenCode's rows); once
    // they are in, a search reads the rest at the speed of reading.
    let whole = lib
        .listed(&p)
        .unwrap()
        .sessions
        .iter()
        .filter(|s| s.provider == ProviderKind::Opencode)
        .count();
    let start = Instant::now();
    lib.index_some_text(whole, &p).unwrap();
    let took = start.elapsed();
    let (times, hits) = search_times(&queries, |q| lib.search_now(q, &filter).unwrap().hits.len());
    rows.push(Row {
        what: "search once OpenCode's rows are indexed: p50".into(),
        time: times.pct(0.5),
        bytes: 0,
        peak_rss: None,
        note: format!("{hits} hits; {whole} sessions indexed first, in {took:.1?}"),
    });
    rows.push(Row {
        what: "search once OpenCode's rows are indexed: p95".into(),
        time: times.pct(0.95),
        bytes: 0,
        peak_rss: None,
        note: format!("slowest {:.1?}", times.pct(1.0)),
    });
    drop(lib);
    let _ = fs::remove_dir_all(&first);
    rows.extend(in_app_steps(
        &roots,
        &base.join("cache-app"),
        bytes,
        &queries,
    ));
    print_table(&rows);
    // Put the big file back as generated, so runs stay comparable.
    fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(big_len)
        .unwrap();
}

/// The live suite: 1,000 Claude sessions watched as the app watches them.
fn live_suite(args: &Args) {
    use std::sync::mpsc;
    let root = args.dir.join("live-1000");
    if !root.join("DONE").exists() {
        let _ = fs::remove_dir_all(&root);
        let mut rng = corpus::Rng::new(0x11fe);
        for i in 0..1000u64 {
            let dir = root.join(format!("projects/-home-user-p{}", i % 50));
            fs::create_dir_all(&dir).unwrap();
            let id = format!("00000000-0000-4000-8000-{i:012x}");
            corpus::claude_session(
                &dir.join(format!("{id}.jsonl")),
                "/home/user/p",
                20_000 + rng.below(40_000),
                &mut rng,
            )
            .unwrap();
        }
        fs::write(root.join("DONE"), b"").unwrap();
    }
    let roots = Roots::default().with(ProviderKind::Claude, [&root]);
    let cache = root.join("cache");
    let _ = fs::remove_dir_all(&cache);
    let p = ScanProgress::default();
    let mut lib = Library::open(&roots, &[], Some(cache));
    let n = lib.sessions(&p).unwrap().sessions.len();
    let files = all_files(&root);
    let line = fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .find(|l| l.contains("\"type\":\"user\""))
        .unwrap()
        .to_owned();
    println!("\nlive suite: {n} sessions watched in {}\n", root.display());
    let mut rows = Vec::new();
    for (label, debounce) in [
        ("app, 100 ms debounce", 100u64),
        ("CLI follow, 30 ms debounce", 30),
    ] {
        let (tx, rx) = mpsc::channel();
        let targets = agent_sessions_core::watch::targets(lib.catalog().providers());
        let _w = agent_sessions_core::watch::watch(
            &targets,
            Duration::from_millis(debounce),
            move |_| {
                let _ = tx.send(Instant::now());
            },
        )
        .unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let mut lat = Vec::new();
        for i in 0..20 {
            let target = &files[(i * 37) % files.len()];
            let start = Instant::now();
            let mut f = fs::OpenOptions::new().append(true).open(target).unwrap();
            f.write_all(format!("{line}\n").as_bytes()).unwrap();
            drop(f);
            rx.recv_timeout(Duration::from_secs(5)).unwrap();
            let r = lib.refresh(&p).unwrap();
            assert_eq!(r.changed, 1);
            lat.push(start.elapsed());
            std::thread::sleep(Duration::from_millis(150));
            while rx.try_recv().is_ok() {}
        }
        lat.sort();
        rows.push(Row {
            what: format!("append → index updated, p50 ({label})"),
            time: lat[lat.len() / 2],
            bytes: 0,
            peak_rss: None,
            note: "20 appends to different sessions".into(),
        });
        rows.push(Row {
            what: format!("append → index updated, p95 ({label})"),
            time: lat[lat.len() * 95 / 100],
            bytes: 0,
            peak_rss: None,
            note: "watch event + debounce + incremental refresh".into(),
        });
    }

    rows.extend(big_live_session(args));

    eprintln!("latency measured; idle phase …");
    // Idle: the app's loop with nothing written (a refresh per 5 s tick), CPU over 10 s.
    let (tx, rx) = mpsc::channel::<()>();
    let targets = agent_sessions_core::watch::targets(lib.catalog().providers());
    let _w = agent_sessions_core::watch::watch(&targets, Duration::from_millis(100), move |_| {
        let _ = tx.send(());
    })
    .unwrap();
    let cpu0 = cpu_time();
    let wall = Instant::now();
    while wall.elapsed() < Duration::from_secs(10) {
        let _ = rx.recv_timeout(Duration::from_secs(5));
        lib.refresh(&p).unwrap();
    }
    let idle = cpu_time() - cpu0;
    rows.push(Row {
        what: "idle, 1,000 sessions watched (10 s)".into(),
        time: idle,
        bytes: 0,
        peak_rss: peak_rss(),
        note: format!("{:.2}% of one core", 100.0 * idle.as_secs_f64() / 10.0),
    });

    eprintln!("idle measured; storm …");
    // Storm: 10,000 appends across 100 sessions as fast as possible.
    let cpu0 = cpu_time();
    let start = Instant::now();
    for i in 0..10_000 {
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(&files[i % 100])
            .unwrap();
        f.write_all(format!("{line}\n").as_bytes()).unwrap();
    }
    let written = start.elapsed();
    eprintln!("storm written in {written:?}; refreshing …");
    let mut refreshes = 0;
    let mut changed = 0;
    while rx.recv_timeout(Duration::from_millis(500)).is_ok() {
        while rx.try_recv().is_ok() {}
        changed += lib.refresh(&p).unwrap().changed;
        refreshes += 1;
    }
    rows.push(Row {
        what: "storm: 10,000 appends to 100 sessions".into(),
        time: start.elapsed(),
        bytes: 0,
        peak_rss: peak_rss(),
        note: format!(
            "written in {written:?}; {refreshes} refreshes, {changed} session updates, CPU {:?}",
            cpu_time() - cpu0
        ),
    });
    print_table(&rows);
}

/// A Claude store `<dir>/<suite>-big-<N>MB` holding one session `id` of `--big-mb` MB, made
/// once (a `DONE` marker); the store and the session's file.
fn big_claude_store(args: &Args, suite: &str, id: &str, seed: u64) -> (PathBuf, PathBuf) {
    let mb = args.big_mb;
    let root = args.dir.join(format!("{suite}-big-{mb}MB"));
    let file = root.join(format!("projects/-home-user-big/{id}.jsonl"));
    if !root.join("DONE").exists() {
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        let mut rng = corpus::Rng::new(seed);
        corpus::claude_session(&file, "/home/user/big", mb * 1_000_000, &mut rng).unwrap();
        fs::write(root.join("DONE"), b"").unwrap();
    }
    (root, file)
}

/// One big live Claude session (`--big-mb`): what a list (its
/// turn state), a follower's first poll and its poll after an append cost, reading the end of
/// the file instead of all of it; and a whole load, for comparison.
fn big_live_session(args: &Args) -> Vec<Row> {
    let id = "00000000-0000-4000-8000-0000000b1900";
    let mb = args.big_mb;
    let (root, file) = big_claude_store(args, "live", id, 0xb16);
    // Claimed live by this process, the way Claude Code writes `sessions/<pid>.json`.
    let me = std::process::id();
    let stat = fs::read_to_string(format!("/proc/{me}/stat")).unwrap();
    let after = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
    let ticks = after.split_whitespace().nth(19).unwrap_or("0");
    fs::create_dir_all(root.join("sessions")).unwrap();
    fs::write(
        root.join(format!("sessions/{me}.json")),
        format!(r#"{{"pid":{me},"sessionId":"{id}","procStart":"{ticks}","status":"busy"}}"#),
    )
    .unwrap();
    let roots = Roots::default().with(ProviderKind::Claude, [&root]);
    let catalog = agent_sessions_core::Catalog::new(&roots, &[]);
    let p = ScanProgress::default();
    let mut sessions = catalog.scan(&p).unwrap().sessions;
    let size = fs::metadata(&file).unwrap().len();
    let mut rows = Vec::new();
    reset_peak();
    let (t, _) = best(3, || catalog.enrich(&mut sessions));
    assert!(sessions[0].live, "the big session is live");
    rows.push(Row {
        what: format!("list: turn state of a live {mb} MB session"),
        time: t,
        bytes: 0,
        peak_rss: None,
        note: "reads the last 256 KiB".into(),
    });
    let s = sessions[0].clone();
    let mut follower = agent_sessions_core::live::follow::Follower::new(s.clone(), 0);
    let start = Instant::now();
    follower.poll(&catalog).unwrap();
    let first = follower.last_cost();
    rows.push(Row {
        what: format!("follow: first poll of a {mb} MB session"),
        time: start.elapsed(),
        bytes: size,
        peak_rss: None,
        note: format!(
            "parses the last {:.1} MB, scans {:.1} MB for line starts",
            first.parsed as f64 / 1e6,
            first.scanned as f64 / 1e6
        ),
    });
    rows.push(polls_after_appends(
        "follow: poll after a one-record append",
        &file,
        id,
        &mut || {
            let update = follower.poll(&catalog).unwrap();
            let saw = !update.events.is_empty() && !update.truncated;
            (saw, follower.last_cost())
        },
    ));
    // The app's Timeline tab asks for the whole timeline again as the session grows: it keeps
    // a follower per shown session (core Timelines) instead of a new one per request.
    let mut timelines = agent_sessions_core::live::timeline::Timelines::default();
    let mut last = timelines.read(&catalog, &s).unwrap().cursor;
    rows.push(polls_after_appends(
        "timeline tab: ask after a one-record append",
        &file,
        id,
        &mut || {
            let whole = timelines.read(&catalog, &s).unwrap();
            let saw = whole.cursor > last;
            last = whole.cursor;
            (saw, timelines.last_cost())
        },
    ));
    // The app's open transcript (the service's cache, as `load_transcript` reads it): after
    // each append the UI asks for the page from the last message it holds to the end. From
    // the file as generated: the appends above used the same message ids.
    let f = fs::OpenOptions::new().write(true).open(&file).unwrap();
    f.set_len(size).unwrap();
    let service = agent_sessions_core::service::Service::new(roots.clone(), None);
    let page = |from: usize| {
        let page = |t: &agent_sessions_core::Transcript| {
            agent_sessions_core::view::page(
                t,
                from.min(t.messages.len().saturating_sub(1)),
                100_000,
            )
        };
        service.with_transcript_of(&s, page).unwrap()
    };
    let mut total = page(usize::MAX).total;
    let mut row = polls_after_appends(
        "app: open transcript's new page after a one-record append",
        &file,
        id,
        &mut || {
            let new = page(total - 1);
            let saw = new.total > total && new.messages.len() == new.total - total + 1;
            total = new.total;
            (saw, Default::default())
        },
    );
    row.note = row
        .note
        .replace("each parsed at most 0 B, scanned 0 B; ", "");
    rows.push(row);
    drop(service);
    reset_peak();
    let start = Instant::now();
    let whole = catalog.load(&s).unwrap();
    rows.push(Row {
        what: format!("for comparison: whole load of the {mb} MB session"),
        time: start.elapsed(),
        bytes: size,
        peak_rss: peak_rss(),
        note: format!(
            "{} messages; what each list and poll cost before",
            whole.messages.len()
        ),
    });
    // Put the file back as generated, so the next run measures the same thing.
    let f = fs::OpenOptions::new().write(true).open(&file).unwrap();
    f.set_len(size).unwrap();
    rows
}

/// Polls (a follower's, or the Timeline tab's asks) after appends of one record each to the
/// big live session (20; a prompt, then an answer, in turn): the median poll's time, the most
/// one parsed and scanned, and how much the process's resident memory grew over what it held
/// before them.
fn polls_after_appends(
    what: &str,
    file: &Path,
    id: &str,
    poll: &mut dyn FnMut() -> (bool, agent_sessions_core::live::follow::PollCost),
) -> Row {
    let mut times = Vec::new();
    let (mut parsed, mut scanned) = (0, 0);
    reset_peak();
    let before = rss().unwrap_or(0);
    for n in 0..20 {
        let line = if n % 2 == 0 {
            format!(
                r#"{{"type":"user","uuid":"bench-append-{n}","sessionId":"{id}","timestamp":"2026-11-30T10:00:00Z","message":{{"role":"user","content":"one more"}}}}"#
            )
        } else {
            format!(
                r#"{{"type":"assistant","uuid":"bench-append-{n}","sessionId":"{id}","timestamp":"2026-11-30T10:00:01Z","message":{{"id":"msg_bench_{n}","model":"claude-x","role":"assistant","content":[{{"type":"text","text":"Done."}}]}}}}"#
            )
        };
        let mut f = fs::OpenOptions::new().append(true).open(file).unwrap();
        f.write_all(format!("{line}\n").as_bytes()).unwrap();
        drop(f);
        let start = Instant::now();
        let (saw, cost) = poll();
        times.push(start.elapsed());
        assert!(saw, "{what}: the append was not seen");
        parsed = cost.parsed.max(parsed);
        scanned = cost.scanned.max(scanned);
    }
    times.sort();
    let grew = peak_rss().unwrap_or(0).saturating_sub(before);
    Row {
        what: what.into(),
        time: times[times.len() / 2],
        bytes: 0,
        peak_rss: peak_rss(),
        note: format!(
            "median of 20 ({:?}); each parsed at most {parsed} B, scanned {scanned} B; memory +{:.1} MB over the {:.0} MB held",
            times[times.len() / 2],
            grew as f64 / 1e6,
            before as f64 / 1e6
        ),
    }
}

/// Resident set size now, in bytes (Linux VmRSS).
fn rss() -> Option<u64> {
    status_bytes("VmRSS:")
}

/// The export suite: one `--big-mb` Claude session exported to a file in each format, read
/// from the store while it is written (what `agent-sessions-cli export -o` does), with the
/// default options and with everything included; a whole load for comparison.
fn export_suite(args: &Args) {
    use agent_sessions_core::actions::export::{Exporter, Format, Options, ToolOutput};
    let id = "00000000-0000-4000-8000-0000000e0900";
    let mb = args.big_mb;
    let (root, file) = big_claude_store(args, "export", id, 0xe0b);
    let roots = Roots::default().with(ProviderKind::Claude, [&root]);
    let catalog = Catalog::new(&roots, &[]);
    let sessions = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let session = sessions.iter().find(|s| s.id == id).unwrap();
    let size = fs::metadata(&file).unwrap().len();
    let out = args.dir.join("export-out");
    fs::create_dir_all(&out).unwrap();
    println!(
        "\nexport suite: one {:.1} MB Claude session\n",
        size as f64 / 1e6
    );
    let mut rows = Vec::new();
    // Exports run before the whole load: memory a load frees stays with the allocator and
    // would hide the exports' own peak.
    reset_peak();
    rows.push(Row {
        what: "baseline: the process after the scan".into(),
        time: Duration::ZERO,
        bytes: 0,
        peak_rss: peak_rss(),
        note: "what every peak below includes".into(),
    });
    let everything = Options {
        reasoning: true,
        tool_output: ToolOutput::Full,
        meta: true,
    };
    for (label, options) in [("defaults", Options::default()), ("everything", everything)] {
        for format in Format::ALL {
            let path = out.join(format!("big.{}", format.extension()));
            reset_peak();
            let (t, written) = best(args.runs, || {
                Exporter::from_store(&catalog, session, options)
                    .save(format, &path, true)
                    .unwrap()
            });
            rows.push(Row {
                what: format!("export as {} ({label})", format.extension()),
                time: t,
                bytes: size,
                peak_rss: peak_rss(),
                note: format!("{:.1} MB written", written as f64 / 1e6),
            });
        }
    }
    reset_peak();
    let (t, n) = best(args.runs, || catalog.load(session).unwrap().messages.len());
    rows.push(Row {
        what: format!("for comparison: whole load of the {mb} MB session"),
        time: t,
        bytes: size,
        peak_rss: peak_rss(),
        note: format!("{n} messages held at once"),
    });
    let _ = fs::remove_dir_all(&out);
    print_table(&rows);
}

/// Query latency alone, on the cache an earlier `--suite index` run left (no rebuild).
fn query_suite(args: &Args) {
    let base = args
        .dir
        .join(format!("g2-all-{}MB-big{}", args.size_mb, args.big_mb));
    let roots = Roots::from_fn(|kind| vec![base.join(kind.as_str())]);
    let mut lib = Library::open(&roots, &[], Some(base.join("cache")));
    let p = ScanProgress::default();
    lib.sessions(&p).unwrap();
    // The index suite puts the big file back as generated: its text is indexed again here.
    lib.index_text(&p).unwrap();
    let filter = SearchFilter {
        limit: 20,
        ..SearchFilter::default()
    };
    let three: Vec<String> = (0..3).flat_map(|_| queries()).collect();
    let (times, _) = search_times(&three, |q| lib.search_now(q, &filter).unwrap().hits.len());
    println!(
        "search over {} runs: p50 {:?}  p95 {:?}  max {:?}",
        three.len(),
        times.pct(0.5),
        times.pct(0.95),
        times.pct(1.0)
    );
}

/// Sorted query latencies.
struct Latencies(Vec<Duration>);

impl Latencies {
    /// The `q` quantile (1.0: the slowest).
    fn pct(&self, q: f64) -> Duration {
        let t = &self.0;
        t[((t.len() as f64 * q) as usize).min(t.len() - 1)]
    }
}

/// Runs every query once; their latencies and the hits found in all. `BENCH_SLOW_QUERIES`
/// prints those over 30 ms.
fn search_times(queries: &[String], mut search: impl FnMut(&str) -> usize) -> (Latencies, usize) {
    let mut times = Vec::new();
    let mut hits = 0;
    for q in queries {
        let start = Instant::now();
        hits += search(q);
        let took = start.elapsed();
        if std::env::var_os("BENCH_SLOW_QUERIES").is_some()
            && took
                > Duration::from_millis(
                    std::env::var("BENCH_SLOW_MS")
                        .ok()
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(30),
                )
        {
            eprintln!("slow query {q:?}: {took:?}");
        }
        times.push(took);
    }
    times.sort();
    (Latencies(times), hits)
}

/// This process's user + system CPU time.
fn cpu_time() -> Duration {
    let stat = fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat[stat.rfind(')').map_or(0, |i| i + 1)..]
        .split_whitespace()
        .collect();
    let ticks: u64 = fields.get(11).and_then(|v| v.parse().ok()).unwrap_or(0)
        + fields.get(12).and_then(|v| v.parse().ok()).unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

/// A fixed query set as users type them: common words, identifiers of every frequency, error
/// codes, paths, phrases, prefixes, and words that are nowhere.
fn queries() -> Vec<String> {
    let common = [
        "parser",
        "timeout",
        "migration",
        "unwrap",
        "branch",
        "schema",
        "handler",
        "retry",
        "config",
        "panic",
    ];
    let mut out = Vec::new();
    for (i, w) in common.iter().enumerate() {
        let frequent = corpus::token(i as u64 * 4);
        let middling = corpus::token(200 + i as u64 * 37);
        let rare = corpus::token(9_000 + i as u64 * 611);
        out.push((*w).to_owned());
        out.push(format!("{w} {middling}"));
        out.push(format!("\"{w} {}\"", common[(i + 1) % common.len()]));
        out.push(frequent.clone());
        out.push(rare);
        out.push(format!("{}*", &frequent[..frequent.len().min(6)]));
        out.push(format!("{w} nowhereword{i}"));
    }
    out
}

fn run(kind: ProviderKind, args: &Args) {
    let root = args
        .dir
        .join(format!("{kind}-{}MB-big{}", args.size_mb, args.big_mb));
    let big = ensure_corpus(
        kind,
        &root,
        args.size_mb * 1_000_000,
        args.big_mb * 1_000_000,
    );
    let files = all_files(&root);
    let total: u64 = files
        .iter()
        .map(|f| f.metadata().map(|m| m.len()).unwrap_or(0))
        .sum();
    let threads = rayon::current_num_threads();
    println!(
        "\n{kind}: {} ({} files, {:.1} MB), {threads} threads\n",
        root.display(),
        files.len(),
        total as f64 / 1e6
    );

    let mut rows = Vec::new();
    let (t, _) = best(args.runs, || cat(&files));
    rows.push(Row {
        what: "cat (I/O baseline)".into(),
        time: t,
        bytes: total,
        peak_rss: None,
        note: "read every file, warm cache".into(),
    });

    let roots = Roots::default().with(kind, [&root]);
    let catalog = Catalog::new(&roots, &[kind]);
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    reset_peak();
    let (t, n) = best(args.runs, || {
        single.install(|| {
            catalog
                .scan(&ScanProgress::default())
                .unwrap()
                .sessions
                .len()
        })
    });
    rows.push(Row {
        what: "cold scan, 1 thread".into(),
        time: t,
        bytes: total,
        peak_rss: peak_rss(),
        note: format!("{n} sessions listed"),
    });

    reset_peak();
    let (t, _) = best(args.runs, || {
        catalog
            .scan(&ScanProgress::default())
            .unwrap()
            .sessions
            .len()
    });
    rows.push(Row {
        what: format!("cold scan, {threads} threads"),
        time: t,
        bytes: total,
        peak_rss: peak_rss(),
        note: "full scan, no previous state".into(),
    });

    let set = ProviderSet::new(&roots, &[kind]);
    let provider = set.get(kind).unwrap();
    let state = provider
        .scan(&Vec::new(), &ScanProgress::default())
        .unwrap()
        .state;
    reset_peak();
    let (t, changed) = best(args.runs, || {
        provider
            .scan(&state, &ScanProgress::default())
            .unwrap()
            .changed
            .len()
    });
    rows.push(Row {
        what: "warm rescan, nothing changed".into(),
        time: t,
        bytes: 0,
        peak_rss: peak_rss(),
        note: format!("{changed} changed; one stat per file"),
    });

    let text = fs::read_to_string(&big).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("\"type\":\"user\"") || l.contains("\"role\":\"user\""))
        .unwrap()
        .to_owned();
    drop(text);
    let big_len = big.metadata().unwrap().len();
    let mut f = fs::OpenOptions::new().append(true).open(&big).unwrap();
    f.write_all(format!("{line}\n").as_bytes()).unwrap();
    drop(f);
    reset_peak();
    let start = Instant::now();
    let out = provider.scan(&state, &ScanProgress::default()).unwrap();
    fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(big_len)
        .unwrap();
    rows.push(Row {
        what: format!("append 1 record to the {} MB file, rescan", args.big_mb),
        time: start.elapsed(),
        bytes: line.len() as u64,
        peak_rss: peak_rss(),
        note: format!("{} changed, read from the stored offset", out.changed.len()),
    });

    let sessions = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    let big_meta = sessions
        .iter()
        .find(|s| s.source_path == big)
        .unwrap()
        .clone();
    let big_size = big.metadata().unwrap().len();
    reset_peak();
    let (t, n) = best(args.runs, || {
        catalog.load(&big_meta).unwrap().messages.len()
    });
    rows.push(Row {
        what: format!("load the {} MB transcript (all of it)", args.big_mb),
        time: t,
        bytes: big_size,
        peak_rss: peak_rss(),
        note: format!("{n} messages"),
    });

    print_table(&rows);
}

type Corpus = (PathBuf, PathBuf, Roots, Vec<PathBuf>);

/// The index suite's first corpus: its folder, the big transcript, the roots, the files.
fn three_agents_corpus(args: &Args) -> Corpus {
    let total = args.size_mb * 1_000_000;
    let base = args
        .dir
        .join(format!("g2-all-{}MB-big{}", args.size_mb, args.big_mb));
    let claude_root = base.join("claude");
    let codex_root = base.join("codex");
    let opencode_root = base.join("opencode");
    let big = ensure_corpus(
        ProviderKind::Claude,
        &claude_root,
        total / 2,
        args.big_mb * 1_000_000,
    );
    ensure_corpus(ProviderKind::Codex, &codex_root, total * 3 / 10, 1_000_000);
    ensure_store(ProviderKind::Opencode, &opencode_root, total / 5);
    let mut files = all_files(&base);
    files.push(opencode_root.join("opencode.db"));
    let roots = Roots::default()
        .with(ProviderKind::Claude, [claude_root])
        .with(ProviderKind::Codex, [codex_root])
        .with(ProviderKind::Opencode, [opencode_root]);
    (base, big, roots, files)
}

/// Every agent in one corpus, [`EIGHT`]'s shares; Claude holds the big transcript.
fn eight_agents_corpus(args: &Args) -> Corpus {
    let total = args.size_mb * 1_000_000;
    let base = args
        .dir
        .join(format!("g8-all-{}MB-big{}", args.size_mb, args.big_mb));
    let mut roots = Roots::default();
    let mut big = PathBuf::new();
    for (kind, share) in EIGHT {
        let root = base.join(kind.as_str());
        let size = total * share / 100;
        match kind {
            ProviderKind::Claude => big = ensure_corpus(kind, &root, size, args.big_mb * 1_000_000),
            ProviderKind::Codex => drop(ensure_corpus(kind, &root, size, 1_000_000)),
            _ => ensure_store(kind, &root, size),
        }
        roots = roots.with(kind, [root]);
    }
    // Every file the agents wrote: JSON documents, Markdown histories and databases too.
    let files = every_file(&base);
    (base, big, roots, files)
}

/// A store of `kind` generated once (a `DONE` file says it is whole).
fn ensure_store(kind: ProviderKind, root: &Path, total: u64) {
    let done = root.join("DONE");
    if done.exists() || root.join("opencode.db").exists() {
        return;
    }
    let _ = fs::remove_dir_all(root);
    eprintln!("generating {} MB {kind} corpus …", total / 1_000_000);
    let mut rng = corpus::Rng::new(0x0c0d);
    corpus::store(kind, root, total, &mut rng).unwrap();
    fs::write(done, b"").unwrap();
}

fn every_file(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "cache") {
                    stack.push(p);
                }
            } else if p.file_name().is_some_and(|n| n != "DONE" && n != "BIG") {
                out.push(p);
            }
        }
    }
    out
}

fn ensure_corpus(kind: ProviderKind, root: &Path, total: u64, big: u64) -> PathBuf {
    let marker = root.join("BIG");
    if let Ok(path) = fs::read_to_string(&marker) {
        // A corpus copied from elsewhere can name a big file that is not its own (or gone):
        // generated again rather than measured on the wrong files.
        let path = PathBuf::from(path.trim());
        if path.starts_with(root) && path.is_file() {
            return path;
        }
        eprintln!("{} names no file of this corpus", marker.display());
    }
    let _ = fs::remove_dir_all(root);
    fs::create_dir_all(root).unwrap();
    eprintln!(
        "generating {} MB {kind} corpus in {} …",
        total / 1_000_000,
        root.display()
    );
    let mut rng = corpus::Rng::new(0x5eed);
    let big_path = match kind {
        ProviderKind::Claude => corpus::claude_root(root, total, big, &mut rng),
        ProviderKind::Gemini => corpus::gemini_root(root, total, &mut rng).and_then(|_| {
            let id = "b1600000-0000-4000-8000-000000000000";
            let path = root.join("tmp/big/chats/session-2026-10-01T00-00-b1600000.jsonl");
            corpus::gemini_session(&path, id, big, &mut rng).map(|_| path)
        }),
        ProviderKind::Qwen => corpus::qwen_root(root, total, &mut rng).and_then(|_| {
            let id = "b1600000-0000-4000-8000-000000000000";
            let path = root.join(format!("projects/-home-user-big/chats/{id}.jsonl"));
            corpus::qwen_session(&path, id, "/home/user/big", big, &mut rng).map(|_| path)
        }),
        ProviderKind::Codex => corpus::codex_root(root, total, big, &mut rng),
        _ => panic!("no corpus with one big session for {kind}"),
    }
    .unwrap();
    fs::write(&marker, big_path.to_string_lossy().as_bytes()).unwrap();
    big_path
}

fn all_files(root: &Path) -> Vec<PathBuf> {
    let mut files = every_file(root);
    files.retain(|p| p.extension().is_some_and(|x| x == "jsonl"));
    files
}

fn cat(files: &[PathBuf]) -> u64 {
    let mut buf = vec![0u8; 1 << 20];
    let mut n = 0;
    for f in files {
        let mut file = fs::File::open(f).unwrap();
        loop {
            let k = file.read(&mut buf).unwrap();
            if k == 0 {
                break;
            }
            n += k as u64;
        }
    }
    n
}

fn best<T>(runs: u32, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best: Option<(Duration, T)> = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let v = f();
        let t = start.elapsed();
        if best.as_ref().is_none_or(|(b, _)| t < *b) {
            best = Some((t, v));
        }
    }
    best.unwrap()
}

/// Resets the kernel's peak-RSS mark for this process (Linux: clear_refs 5).
fn reset_peak() {
    let _ = fs::write("/proc/self/clear_refs", "5");
}

/// Peak resident set size since the last reset, in bytes (Linux VmHWM).
fn peak_rss() -> Option<u64> {
    status_bytes("VmHWM:")
}

/// A size in `/proc/self/status` (`field` with its colon), in bytes.
fn status_bytes(field: &str) -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn print_table(rows: &[Row]) {
    let header = ["measurement", "time", "MB/s", "peak RSS", "note"];
    println!(
        "| {:<42} | {:>10} | {:>10} | {:>9} | {} |",
        header[0], header[1], header[2], header[3], header[4]
    );
    println!(
        "|{:-<44}|{:->12}|{:->12}|{:->11}|{:-<8}|",
        "", "", "", "", ""
    );
    for r in rows {
        let ms = r.time.as_secs_f64() * 1e3;
        let rate = if r.bytes > 1_000_000 && ms > 0.0 {
            format!("{:.0}", r.bytes as f64 / 1e6 / r.time.as_secs_f64())
        } else {
            "-".into()
        };
        let rss = r
            .peak_rss
            .map(|b| format!("{} MB", b / 1_000_000))
            .unwrap_or_else(|| "-".into());
        println!(
            "| {:<42} | {:>7.1} ms | {:>10} | {:>9} | {} |",
            r.what, ms, rate, rss, r.note
        );
    }
}
