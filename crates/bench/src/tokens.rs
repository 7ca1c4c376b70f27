//! The tokens suite: the index's own tokenizer (`as_cjk`) alone, on the message text of the
//! index suite's corpus as the cache holds it, and on text of many scripts; FTS5's `unicode61`
//! (C) on the same bytes as the yardstick. FTS5 calls the tokenizer for every indexed message,
//! for the first search's direct read and for snippets, so its speed is part of each.

use std::path::Path;
use std::time::Duration;

use agent_sessions_core::index::{self, Tokenizer};
use agent_sessions_core::{Library, Roots, ScanProgress};

use crate::corpus::Rng;
use crate::Args;

/// Sentences of the scripts a transcript holds beside English and code: each CJK letter is a
/// token of its own, everything else goes through `unicode61`'s rules.
const SENTENCES: &[&str] = &[
    "数据库连接失败，请检查配置文件中的端口号。",
    "全文検索の機能を追加してください。ログをparseする関数を直します。",
    "데이터베이스에 연결할 수 없습니다. 설정을 확인하세요.",
    "Не удалось подключиться к базе данных: проверьте настройки.",
    "Η σύνδεση με τη βάση δεδομένων απέτυχε.",
    "Die Änderung überschreibt die Größe der Datei nicht.",
    "La requête a échoué : le délai d'attente est dépassé.",
    "İstanbul'daki sunucuya bağlanılamadı; ŞİFRE yanlış.",
    "تعذر الاتصال بقاعدة البيانات",
    "डेटाबेस से कनेक्ट नहीं हो सका",
    "Ｗｅｂサーバー・設定 ✅ done 🚀 naïve café ﬁle",
];

/// The message text of the cache the index suite makes (titles and bodies, as FTS5 tokenizes
/// them), indexing the corpus first if its cache is missing or out of date.
fn corpus_text(base: &Path) -> Vec<String> {
    let roots = Roots::from_fn(|kind| vec![base.join(kind.as_str())]);
    let cache = base.join("cache");
    let p = ScanProgress::default();
    let mut lib = Library::open(&roots, &[], Some(cache.clone()));
    lib.sessions(&p).unwrap();
    lib.index_text(&p).unwrap();
    drop(lib);
    let mut texts = Vec::new();
    for file in index::cache_files(&index::index_path(&cache, &roots)) {
        let conn = index::open_file(&file).unwrap();
        let mut stmt = conn.prepare("SELECT title, body FROM fts").unwrap();
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?,
                    r.get::<_, Option<String>>(1)?,
                ))
            })
            .unwrap();
        for row in rows {
            let (title, body) = row.unwrap();
            texts.extend(title.into_iter().chain(body).filter(|t| !t.is_empty()));
        }
    }
    texts
}

/// About `bytes` of messages made of [`SENTENCES`] mixed with English and code words, one
/// message of a few sentences at a time.
fn scripts_text(bytes: usize) -> Vec<String> {
    let english = [
        "the build fails because",
        "parseConfig(path)",
        "src/main.rs:42",
        "OK",
    ];
    let mut rng = Rng::new(0x70c5);
    let (mut texts, mut total) = (Vec::new(), 0);
    while total < bytes {
        let mut text = String::new();
        for _ in 0..1 + rng.below(6) {
            match rng.below(3) {
                0 => text.push_str(english[rng.below(english.len() as u64) as usize]),
                _ => text.push_str(SENTENCES[rng.below(SENTENCES.len() as u64) as usize]),
            }
            text.push(' ');
        }
        total += text.len();
        texts.push(text);
    }
    texts
}

/// How long this thread has run on a CPU (Linux's schedstat, in ns): the machine the figures
/// were taken on is shared, and a wall clock counted the others' time slices too.
fn on_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let ns = stat.split_whitespace().next().and_then(|v| v.parse().ok());
    Duration::from_nanos(ns.unwrap_or(0))
}

/// One row: tokens and the best time over `runs` of tokenizing every text.
struct Measure {
    what: String,
    bytes: usize,
    tokens: usize,
    time: Duration,
}

/// Tokenizes every text with `each_token`, `runs` times; the checksum of spans keeps the work.
fn measure(
    what: &str,
    texts: &[String],
    runs: u32,
    mut tokenize: impl FnMut(&[u8], &mut dyn FnMut(&[u8], usize, usize)),
) -> Measure {
    let bytes = texts.iter().map(String::len).sum();
    let mut best = Duration::MAX;
    let mut tokens = 0;
    for _ in 0..runs.max(1) {
        let (mut count, mut sum) = (0usize, 0usize);
        let start = on_cpu();
        for text in texts {
            tokenize(text.as_bytes(), &mut |t, s, e| {
                count += 1;
                sum = sum.wrapping_add(t.len() ^ s ^ e);
            });
        }
        best = best.min(on_cpu() - start);
        std::hint::black_box(sum);
        tokens = count;
    }
    Measure {
        what: what.to_owned(),
        bytes,
        tokens,
        time: best,
    }
}

/// The tokens suite (`--suite tokens`): needs the index suite's corpus (made if missing).
pub fn suite(args: &Args) {
    let base = args
        .dir
        .join(format!("g2-all-{}MB-big{}", args.size_mb, args.big_mb));
    if !base.join("claude").exists() {
        eprintln!("no corpus at {}: run `--suite index` first", base.display());
        std::process::exit(2);
    }
    let corpus = corpus_text(&base);
    let scripts = scripts_text(50_000_000);
    let mut t = Tokenizer::new().unwrap();
    let mut rows = Vec::new();
    for (name, texts) in [("corpus text", &corpus), ("many scripts", &scripts)] {
        rows.push(measure(
            &format!("{name}: as_cjk (ours)"),
            texts,
            args.runs,
            |text, each| t.each_token(text, each),
        ));
        rows.push(measure(
            &format!("{name}: unicode61 alone (C)"),
            texts,
            args.runs,
            |text, each| t.each_unicode61_token(text, each),
        ));
    }
    println!(
        "\ntokens suite: {} ({} messages) and {} messages of many scripts\n",
        base.display(),
        corpus.len(),
        scripts.len()
    );
    println!(
        "| {:<34} | {:>8} | {:>11} | {:>9} | {:>7} | {:>8} |",
        "tokenizer on", "MB", "tokens", "CPU time", "MB/s", "ns/token"
    );
    println!(
        "|{:-<36}|{:->10}|{:->13}|{:->11}|{:->9}|{:->10}|",
        "", "", "", "", "", ""
    );
    for r in rows {
        let secs = r.time.as_secs_f64();
        println!(
            "| {:<34} | {:>8.1} | {:>11} | {:>7.0} ms | {:>7.0} | {:>8.1} |",
            r.what,
            r.bytes as f64 / 1e6,
            r.tokens,
            secs * 1e3,
            r.bytes as f64 / 1e6 / secs,
            secs * 1e9 / r.tokens.max(1) as f64
        );
    }
}
