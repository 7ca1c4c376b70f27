//! agent-sessions-bench: generates a realistic corpus and prints a table of what the core costs
//! on it, with `cat` of the same files as the I/O baseline measured in the same run.
//!
//! `cargo run --release -p agent-sessions-bench -- --size-mb 300`

mod corpus;

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agent_sessions_core::provider::{ProviderSet, ScanProgress};
use agent_sessions_core::{Catalog, ProviderKind, Roots};
use clap::Parser;

#[derive(Parser)]
#[command(about = "Benchmark the session scan on a generated corpus")]
struct Args {
    /// Corpus size in MB (10^6 bytes), per provider.
    #[arg(long, default_value_t = 300)]
    size_mb: u64,
    /// Size of the one large transcript, in MB.
    #[arg(long, default_value_t = 40)]
    big_mb: u64,
    /// Which providers to measure (claude, codex); default all.
    #[arg(long = "provider", value_parser = parse_provider)]
    providers: Vec<ProviderKind>,
    /// Where corpora are kept between runs.
    #[arg(long, default_value = "target/bench-corpus")]
    dir: PathBuf,
    /// How many times each timing runs (the best is shown).
    #[arg(long, default_value_t = 3)]
    runs: u32,
}

fn parse_provider(name: &str) -> Result<ProviderKind, String> {
    match ProviderKind::parse(name) {
        Some(k @ (ProviderKind::Claude | ProviderKind::Codex)) => Ok(k),
        _ => Err(format!(
            "no corpus generator for {name:?}; use claude or codex"
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
    let args = Args::parse();
    let kinds = if args.providers.is_empty() {
        vec![ProviderKind::Claude, ProviderKind::Codex]
    } else {
        args.providers.clone()
    };
    for kind in kinds {
        run(kind, &args);
    }
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

    let mut roots = Roots::default();
    match kind {
        ProviderKind::Claude => roots.claude.push(root.clone()),
        _ => roots.codex.push(root.clone()),
    }
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
    let mut f = fs::OpenOptions::new().append(true).open(&big).unwrap();
    f.write_all(format!("{line}\n").as_bytes()).unwrap();
    drop(f);
    reset_peak();
    let start = Instant::now();
    let out = provider.scan(&state, &ScanProgress::default()).unwrap();
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

fn ensure_corpus(kind: ProviderKind, root: &Path, total: u64, big: u64) -> PathBuf {
    let marker = root.join("BIG");
    if let Ok(path) = fs::read_to_string(&marker) {
        return PathBuf::from(path.trim());
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
        _ => corpus::codex_root(root, total, big, &mut rng),
    }
    .unwrap();
    fs::write(&marker, big_path.to_string_lossy().as_bytes()).unwrap();
    big_path
}

fn all_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out
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
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
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
