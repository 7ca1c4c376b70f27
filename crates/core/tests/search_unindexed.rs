//! A search finds the same messages whether their sessions are in the text index, read
//! directly because they are not yet, or some of each: over the fixtures of all three agents
//! and a generated store with diacritics, JSON escapes, other scripts, paths and identifiers.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use agent_sessions_core::index::{SearchFilter, SearchResults};
use agent_sessions_core::{Library, ProviderKind, Roots, ScanProgress};

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "parser",
    "timeout",
    "migration",
    "unwrap",
    "branch",
    "schema",
    "retry",
    "config",
    "café",
    "Café",
    "NAÏVE",
    "naive",
    "Straße",
    "İstanbul",
    "日本語",
    "テスト",
    "Ωmega",
    "ﬁle",
    "src/mod_12.rs",
    "E0042",
    "0x1f",
    "parseConfig7",
    "handle_request",
    "don't",
    "e-mail",
    "foo.bar",
    "(paren)",
    "—",
    "…",
    "😀",
    "x\u{301}y",
    "retrying",
    "retry_backoff",
    "TODO:",
];

/// Identifiers of one family (`stage0` … `stage59`): a prefix query spells them out into more
/// phrases than BM25 ranks (see `index::RANKED_PHRASES`), so its matches come newest first.
const FAMILY: usize = 60;

fn sentence(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| match rng.below(8) {
            0 => format!("stage{}", rng.below(FAMILY)),
            _ => WORDS[rng.below(WORDS.len())].to_owned(),
        })
        .collect::<Vec<_>>()
        .join(if rng.below(5) == 0 { "\n" } else { " " })
}

/// A Claude store of `sessions` sessions: prompts, answers, tool calls and results; some
/// lines with non-ASCII written as JSON `\u` escapes, as some writers do.
fn generated_store(root: &Path, sessions: usize, month: &str) {
    let mut rng = Rng(0x5eed_1234);
    for s in 0..sessions {
        let project = root.join(format!("projects/-tmp-gen-p{}", s % 3));
        std::fs::create_dir_all(&project).unwrap();
        let id = format!("00000000-0000-4000-8000-{s:012x}");
        let mut f = std::fs::File::create(project.join(format!("{id}.jsonl"))).unwrap();
        for m in 0..(3 + rng.below(12)) {
            let ts = format!("{month}-{:02}T10:{:02}:{:02}Z", 1 + s % 28, m / 60, m % 60);
            let base = serde_json::json!({
                "sessionId": id, "timestamp": ts, "cwd": format!("/tmp/gen/p{}", s % 3),
                "uuid": format!("u-{s}-{m}"), "version": "2.1.9",
            });
            let mut rec = base.clone();
            match m % 3 {
                0 => {
                    rec["type"] = "user".into();
                    rec["message"] =
                        serde_json::json!({"role": "user", "content": sentence(&mut rng, 12)});
                }
                1 => {
                    rec["type"] = "assistant".into();
                    rec["message"] = serde_json::json!({
                        "id": format!("msg-{s}-{m}"), "role": "assistant",
                        "content": [
                            {"type": "text", "text": sentence(&mut rng, 20)},
                            {"type": "tool_use", "id": format!("t-{s}-{m}"), "name": "Bash",
                             "input": {"command": sentence(&mut rng, 4)}},
                        ],
                    });
                }
                _ => {
                    rec["type"] = "user".into();
                    rec["message"] = serde_json::json!({"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": format!("t-{s}-{}", m - 1),
                         "content": sentence(&mut rng, 30)},
                    ]});
                }
            }
            writeln!(f, "{}", json_line(&rec, rng.below(3) == 0)).unwrap();
        }
    }
}

/// A record as one JSON line; `escaped`: with every non-ASCII character written as `\u`
/// escapes (UTF-16, pairs for those past the BMP), as some writers do.
fn json_line(rec: &serde_json::Value, escaped: bool) -> String {
    let line = serde_json::to_string(rec).unwrap();
    if !escaped {
        return line;
    }
    line.chars()
        .map(|c| match c {
            c if c.is_ascii() => c.to_string(),
            c => c
                .encode_utf16(&mut [0; 2])
                .iter()
                .map(|u| format!("\\u{u:04x}"))
                .collect(),
        })
        .collect()
}

/// One query in `SAMPLE` is asked. As a Windows program under Wine (scripts/test-windows.sh)
/// each search without the index reads every session through the Wine server, and all of
/// them took five minutes; a quarter checks the same reads on Windows' files (the search
/// itself is the same code on every system, checked with every query on Linux).
const SAMPLE: usize = if cfg!(windows) { 4 } else { 1 };

fn queries() -> Vec<&'static str> {
    vec![
        "parser",
        "PARSER",
        "cafe",
        "CAFÉ",
        "naive",
        "strasse",
        "straße",
        "istanbul",
        "日本語",
        "テスト",
        "ωmega",
        "file",
        "ﬁle",
        "xy",
        "src/mod_12.rs",
        "mod_12",
        "e0042",
        "0x1f",
        "parseconfig7",
        "handle_request",
        "don't",
        "\"retry config\"",
        "\"config retry\"",
        "retr*",
        "retry_*",
        "parse*",
        "timeout migration",
        "timeout OR unwrap",
        "schema branch OR naive",
        "\"—\"",
        "\"—\" parser",
        "hello-from-tool",
        "main.py",
        "\"main.py prints\"",
        // A phrase whose last word is a prefix.
        "\"retry con*\"",
        "\"main.py pri\"*",
        "compac*",
        "stage*",
        "stage4*",
        "stage4* OR parser",
        // A spelled-out prefix beside another term (an FTS5 syntax error once).
        "retr* config",
        "timeout parse*",
        "schema retr* OR naive",
        "Stage17",
        "nowhere-at-all",
        "paren",
        "todo",
    ]
}

/// (provider, session, message) → snippet, of every hit.
fn hits(results: &SearchResults) -> BTreeMap<(ProviderKind, String, String), String> {
    results
        .hits
        .iter()
        .map(|h| {
            (
                (h.provider, h.session_id.clone(), h.message_id.clone()),
                h.snippet.clone(),
            )
        })
        .collect()
}

/// These Claude roots with a Codex and an OpenCode fixture.
fn with_codex_and_opencode(claude: impl IntoIterator<Item = PathBuf>) -> Roots {
    Roots::default()
        .with(ProviderKind::Claude, claude)
        .with(
            ProviderKind::Codex,
            [common::fixture(ProviderKind::Codex, "0.171.0")],
        )
        .with(
            ProviderKind::Opencode,
            [common::fixture(ProviderKind::Opencode, "1.18.33")],
        )
}

/// One store's sessions in three caches: text all indexed, none, half.
struct Three {
    indexed: Library,
    unindexed: Library,
    halfway: Library,
    /// How many sessions have text.
    sessions: usize,
    _dirs: [tempfile::TempDir; 3],
}

fn three(roots: &Roots) -> Three {
    let p = ScanProgress::default();
    let dirs = [(); 3].map(|_| tempfile::tempdir().unwrap());
    let open = |k: usize| {
        let mut lib = Library::open(roots, &[], Some(dirs[k].path().to_path_buf()));
        lib.refresh(&p).unwrap();
        lib
    };
    let (mut indexed, unindexed, mut halfway) = (open(0), open(1), open(2));
    let sessions = indexed.pending_text();
    indexed.index_text(&p).unwrap();
    assert_eq!(indexed.pending_text(), 0);
    halfway.index_some_text(sessions / 2, &p).unwrap();
    Three {
        indexed,
        unindexed,
        halfway,
        sessions,
        _dirs: dirs,
    }
}

#[test]
fn search_finds_the_same_with_and_without_the_text_index() {
    let generated = tempfile::tempdir().unwrap();
    generated_store(generated.path(), 60, "2026-10");
    let roots = with_codex_and_opencode([
        common::fixture(ProviderKind::Claude, "2.1.332"),
        common::fixture(ProviderKind::Claude, "2.0.50"),
        generated.path().to_path_buf(),
    ]);
    let Three {
        indexed,
        unindexed,
        halfway,
        sessions,
        ..
    } = three(&roots);
    assert!(sessions > 60, "{sessions}");

    let all = SearchFilter {
        limit: 100_000,
        ..SearchFilter::default()
    };
    let mut matched = 0;
    for q in queries().into_iter().step_by(SAMPLE) {
        let want = indexed.search_now(q, &all).unwrap();
        assert_eq!(want.read_directly, 0, "{q}");
        matched += usize::from(!want.hits.is_empty());
        for (name, lib, read) in [
            ("unindexed", &unindexed, sessions),
            ("half indexed", &halfway, sessions - sessions / 2),
        ] {
            let got = lib.search_now(q, &all).unwrap();
            assert_eq!(got.read_directly, read, "{q} {name}");
            assert!(!got.partial, "{q} {name}");
            assert_eq!(hits(&got), hits(&want), "{q:?}, {name}");
        }
    }
    assert!(
        matched >= 25 / SAMPLE,
        "most queries match something: {matched}"
    );

    // A limit returns that many, however the sessions are held.
    let five = SearchFilter {
        limit: 5,
        ..SearchFilter::default()
    };
    for lib in [&indexed, &unindexed, &halfway] {
        assert_eq!(lib.search_now("parser", &five).unwrap().hits.len(), 5);
    }
    // Half an index holds five already: nothing needs reading.
    assert_eq!(
        halfway.search_now("parser", &five).unwrap().read_directly,
        0
    );
    // Filters apply to the sessions read directly too.
    let codex = SearchFilter {
        providers: vec![ProviderKind::Codex],
        ..all.clone()
    };
    let gen_dir = SearchFilter {
        dir: Some("/tmp/gen/p1".into()),
        ..all.clone()
    };
    for filter in [codex, gen_dir] {
        let want = hits(
            &indexed
                .search_now("hello-from-tool OR parser", &filter)
                .unwrap(),
        );
        let got = hits(
            &unindexed
                .search_now("hello-from-tool OR parser", &filter)
                .unwrap(),
        );
        assert_eq!(got, want, "{filter:?}");
    }
}

/// A session that cannot be read while it is not indexed makes the answer partial, and says
/// so; the others are still searched.
#[test]
fn an_unreadable_unindexed_session_makes_the_search_partial() {
    let store = tempfile::tempdir().unwrap();
    generated_store(store.path(), 6, "2026-10");
    let roots = Roots::default().with(ProviderKind::Claude, [store.path()]);
    let cache = tempfile::tempdir().unwrap();
    let mut lib = Library::open(&roots, &[], Some(cache.path().to_path_buf()));
    lib.refresh(&ScanProgress::default()).unwrap();
    let all = SearchFilter {
        limit: 1000,
        ..SearchFilter::default()
    };
    let before = lib.search_now("parser OR timeout", &all).unwrap();
    assert!(!before.partial && !before.hits.is_empty());
    let gone = store
        .path()
        .join("projects/-tmp-gen-p0/00000000-0000-4000-8000-000000000000.jsonl");
    std::fs::remove_file(&gone).unwrap();
    let after = lib.search_now("parser OR timeout", &all).unwrap();
    assert!(after.partial, "{after:?}");
    assert_eq!(after.unreadable, 1);
    assert!(!after.hits.is_empty());
    assert!(after
        .hits
        .iter()
        .all(|h| h.session_id != "00000000-0000-4000-8000-000000000000"));
}

/// Sessions a search can only read by parsing them whole (OpenCode's database rows) are
/// indexed before the one-file sessions it reads at the speed of reading.
#[test]
fn sessions_read_only_whole_are_indexed_first() {
    // Claude sessions newer than every fixture's.
    let newer = tempfile::tempdir().unwrap();
    generated_store(newer.path(), 4, "2030-01");
    let roots = with_codex_and_opencode([newer.path().to_path_buf()]);
    let cache = tempfile::tempdir().unwrap();
    let mut lib = Library::open(&roots, &[], Some(cache.path().to_path_buf()));
    let p = ScanProgress::default();
    let sessions = lib.sessions(&p).unwrap().sessions;
    let opencode = sessions
        .iter()
        .filter(|s| s.provider == ProviderKind::Opencode)
        .count();
    assert!(opencode > 0 && opencode < sessions.len());
    // Newest first alone would index other sessions among the first `opencode`.
    assert!(sessions[..opencode]
        .iter()
        .any(|s| s.provider != ProviderKind::Opencode));
    lib.index_some_text(opencode, &p).unwrap();
    let only = |provider| SearchFilter {
        providers: vec![provider],
        limit: 100_000,
        ..SearchFilter::default()
    };
    let read = |provider| {
        lib.search_now("hello OR parser", &only(provider))
            .unwrap()
            .read_directly
    };
    assert_eq!(read(ProviderKind::Opencode), 0);
    assert!(read(ProviderKind::Claude) > 0);
    assert!(read(ProviderKind::Codex) > 0);
}

/// Real Chinese, Japanese and Korean sentences (no spaces between their words), some beside
/// ASCII words or full-width forms, as people write prompts in those languages.
const CJK_SENTENCES: &[&str] = &[
    "连接数据库失败，请检查配置文件中的端口号。",
    "请帮我重构这个函数，让它支持异步调用。",
    "测试用例在持续集成环境里超时了。",
    "运行 cargo test 之后出现了 panic。",
    "全文検索の機能を追加してください。",
    "このエラーはタイムアウトが原因だと思います。",
    "データベースのマイグレーションを実行しました。",
    "テストが失敗したので、ログを確認します。",
    "日本語のドキュメントを更新しました",
    "parserのバグを修正しました（issue #42）。",
    "Ｗｅｂサーバーの設定を変更",
    "데이터베이스에 연결할 수 없습니다.",
    "이 함수를 비동기로 리팩터링해 주세요.",
    "테스트가 시간 초과로 실패했습니다.",
    "로그 레벨을 디버그로 바꿔서 다시 실행해 보세요.",
    "timeout after 30s, retrying",
];

/// A Claude store of prompts and answers made of [`CJK_SENTENCES`], a third of its lines with
/// the non-ASCII written as JSON `\u` escapes. Returns every message's text.
fn cjk_store(root: &Path, sessions: usize) -> Vec<String> {
    let mut rng = Rng(0xc1c_2026);
    let mut texts = Vec::new();
    let project = root.join("projects/-tmp-cjk");
    std::fs::create_dir_all(&project).unwrap();
    for s in 0..sessions {
        let id = format!("00000000-0000-4000-9000-{s:012x}");
        let mut f = std::fs::File::create(project.join(format!("{id}.jsonl"))).unwrap();
        for m in 0..(2 + rng.below(8)) {
            let text = (0..1 + rng.below(3))
                .map(|_| CJK_SENTENCES[rng.below(CJK_SENTENCES.len())])
                .collect::<Vec<_>>()
                .join(["", " ", "\n"][rng.below(3)]);
            let mut rec = serde_json::json!({
                "sessionId": id, "cwd": "/tmp/cjk", "uuid": format!("c-{s}-{m}"),
                "timestamp": format!("2026-11-{:02}T09:{:02}:00Z", 1 + s % 28, m),
                "version": "2.1.9",
            });
            if m % 2 == 0 {
                rec["type"] = "user".into();
                rec["message"] = serde_json::json!({"role": "user", "content": text});
            } else {
                rec["type"] = "assistant".into();
                rec["message"] = serde_json::json!({
                    "id": format!("msg-c-{s}-{m}"), "role": "assistant",
                    "content": [{"type": "text", "text": text}],
                });
            }
            texts.push(text);
            writeln!(f, "{}", json_line(&rec, rng.below(3) == 0)).unwrap();
        }
    }
    texts
}

/// Whether `text` holds `run` where a token can start: a run that starts with a word (Latin,
/// full-width) is part of a longer one right after an ASCII letter or digit (`retryingparser`).
fn holds(text: &str, run: &str) -> bool {
    let starts_cjk = run
        .chars()
        .next()
        .is_some_and(|c| !c.is_ascii() && c < '\u{ff00}');
    text.match_indices(run).any(|(at, _)| {
        starts_cjk
            || !text[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

/// Any run of Chinese, Japanese or Korean characters inside a message finds it (words are
/// not separated by spaces there), with the run marked in the snippet; and the index, the
/// direct read of sessions not indexed yet and half of each agree, hit for hit and snippet for
/// snippet. (With `unicode61` a run was one token: `検索` found nothing in 全文検索の機能.)
#[test]
fn any_cjk_run_finds_its_messages_with_and_without_the_text_index() {
    let store = tempfile::tempdir().unwrap();
    let texts = cjk_store(store.path(), 40);
    let roots = Roots::default().with(
        ProviderKind::Claude,
        [
            store.path().to_path_buf(),
            common::fixture(ProviderKind::Claude, "2.1.332"),
        ],
    );
    let Three {
        indexed,
        unindexed,
        halfway,
        ..
    } = three(&roots);
    let all = SearchFilter {
        limit: 100_000,
        ..SearchFilter::default()
    };
    // (query, the run each hit's message holds, marked in its snippet as typed or folded)
    let runs: &[(&str, &str, &str)] = &[
        ("検索", "検索", "«検索»"),
        ("数据库", "数据库", "«数据库»"),
        ("失败", "失败", "«失败»"),
        ("失敗", "失敗", "«失敗»"),
        ("데이터베이스", "데이터베이스", "«데이터베이스»"),
        ("연결", "연결", "«연결»"),
        ("タイムアウト", "タイムアウト", "«タイムアウト»"),
        ("マイグレーション", "マイグレーション", "«マイグレーション»"),
        ("日本*", "日本", "«日本»"),
        ("리팩터*", "리팩터", "«리팩터»"),
        ("\"全文検索の機能\"", "全文検索の機能", "«全文検索の機能»"),
        ("バグ", "バグ", "«バグ»"),
        ("parserのバグ", "parserのバグ", "«parserのバグ»"),
        ("サーバー", "サーバー", "«サーバー»"),
        ("ｗｅｂ", "Ｗｅｂ", "«Ｗｅｂ»"),
        ("异步调用", "异步调用", "«异步调用»"),
    ];
    for (q, run, marked) in runs {
        let want = indexed.search_now(q, &all).unwrap();
        let holding = texts.iter().filter(|t| holds(t, run)).count();
        assert!(holding > 0, "{run} is in the store");
        // A hit with no message is the session's title (its first prompt).
        let messages = want.hits.iter().filter(|h| !h.message_id.is_empty());
        assert_eq!(
            messages.count(),
            holding,
            "{q}: every message holding {run}"
        );
        // Marked whole, but where FTS5's snippet starts at the text's start and the window of
        // 24 tokens ends inside the run: then its start is marked.
        let start: String = marked.chars().take(2).collect();
        for hit in &want.hits {
            assert!(hit.snippet.contains(&start), "{q}: {}", hit.snippet);
        }
        assert!(want.hits.iter().any(|h| h.snippet.contains(marked)), "{q}");
    }
    let others = [
        "検索機能",
        "索検",
        "\"cargo test\"",
        "cargo 之后",
        "ログ OR 로그",
        "重构 函数",
        "テスト",
        "parser",
        "timeout",
        "issue",
        "実行*",
        "\"데이터 베이스\"",
    ];
    let queries = runs.iter().map(|(q, ..)| *q).chain(others);
    for q in queries {
        let want = indexed.search_now(q, &all).unwrap();
        for (name, lib) in [("unindexed", &unindexed), ("half indexed", &halfway)] {
            let got = lib.search_now(q, &all).unwrap();
            assert!(got.read_directly > 0 && !got.partial, "{q} {name}");
            assert_eq!(hits(&got), hits(&want), "{q:?}, {name}");
        }
    }
    // Characters in another order, or a run the text does not hold, find nothing.
    for q in ["検索機能", "索検"] {
        assert!(indexed.search_now(q, &all).unwrap().hits.is_empty(), "{q}");
    }
}

/// OpenCode's database sessions are filtered by their raw rows before a search parses them
/// (`index::direct`): no word of theirs may be filtered away. Every word of every fixture
/// version's messages (v1 rows, v2 `session_message` rows, JSON files) (a sample of at most 300 each, and phrases of two) finds the same hits,
/// snippets included, whether the sessions are indexed or read directly.
#[test]
fn every_word_of_opencode_sessions_is_found_unindexed() {
    use agent_sessions_core::model::Part;
    // The v2 generation exists only as the fixture's SQL (see testdata's README): built here.
    let v2 = tempfile::tempdir().unwrap();
    let script = common::repo().join("testdata/opencode/v2-synthetic/build.sql");
    rusqlite::Connection::open(v2.path().join("opencode.db"))
        .unwrap()
        .execute_batch(&std::fs::read_to_string(script).unwrap())
        .unwrap();
    let stores = ["1.2.27", "1.18.33", "1.0.98"]
        .map(|v| (v, common::fixture(ProviderKind::Opencode, v)))
        .into_iter()
        .chain([("v2-synthetic", v2.path().to_path_buf())]);
    for (version, store) in stores {
        let roots = Roots::default().with(ProviderKind::Opencode, [store]);
        let Three {
            indexed, unindexed, ..
        } = three(&roots);
        let p = ScanProgress::default();
        let mut words = std::collections::BTreeSet::new();
        let mut phrases = Vec::new();
        for meta in indexed.listed(&p).unwrap().sessions {
            // Meta records are not searchable; a tool's output only in its first 16 KB.
            for m in indexed.load(&meta).unwrap().messages {
                if m.meta {
                    continue;
                }
                for part in &m.parts {
                    let (text, phrase) = match part {
                        Part::Text { text } | Part::Reasoning { text, .. } => (text.clone(), true),
                        Part::Tool(t) => {
                            let out: String = t
                                .output
                                .as_deref()
                                .unwrap_or("")
                                .chars()
                                .take(4000)
                                .collect();
                            (format!("{} {out}", t.name), false)
                        }
                        _ => continue,
                    };
                    let ws: Vec<String> = text
                        .split(|c: char| !c.is_alphanumeric())
                        .filter(|w| !w.is_empty())
                        .map(str::to_lowercase)
                        .collect();
                    if let ([a, b, ..], true) = (ws.as_slice(), phrase) {
                        phrases.push(format!("\"{a} {b}\""));
                    }
                    words.extend(ws.into_iter().filter(|w| w.len() > 1));
                }
            }
        }
        assert!(words.len() > 30, "{version}: {}", words.len());
        let step = words.len().div_ceil(300 / SAMPLE);
        let queries: Vec<String> = words
            .into_iter()
            .step_by(step)
            .chain(phrases.into_iter().take(40 / SAMPLE))
            .collect();
        let all = SearchFilter {
            limit: 100_000,
            ..SearchFilter::default()
        };
        for q in &queries {
            let want = indexed.search_now(q, &all).unwrap();
            assert!(!want.hits.is_empty(), "{version} {q}");
            let got = unindexed.search_now(q, &all).unwrap();
            assert!(got.read_directly > 0 && !got.partial, "{version} {q}");
            assert_eq!(hits(&got), hits(&want), "{version} {q}");
        }
    }
}
