//! The search syntax users type — words, "quoted phrases", prefix* — turned into an FTS5 match
//! expression that can never be an SQL or FTS syntax error. A word of Chinese, Japanese or
//! Korean characters needs nothing of its own here: quoted, FTS5 splits it with the index's
//! tokenizer into one token per character, a phrase, so it matches any message holding that run.

use super::tokens::{is_cjk, Tokenizer};
use crate::error::Error;

/// The most terms (words, phrases, prefixes) a query may have. FTS5's cost grows with the
/// square of the number of prefix terms (4,000 took 0.56 s on the fixtures, 10,000 several
/// seconds); no one types more than a few, and a pasted paragraph is better quoted.
pub const MAX_TERMS: usize = 32;

/// The longest query accepted, in characters (bounds phrase length too).
pub const MAX_QUERY_CHARS: usize = 2000;

/// One part of a parsed query: a word or "phrase" (its text as typed; FTS5 splits it into
/// tokens, and `prefix` makes the last token a prefix), or `OR` between two of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Term { text: String, prefix: bool },
    Or,
}

/// Translates a user query. Every term is quoted, so FTS5 operators and punctuation in it are
/// plain text; terms are ANDed; `OR` between terms is kept. A query over [`MAX_QUERY_CHARS`]
/// or with more than [`MAX_TERMS`] terms is refused with an error that says so.
#[cfg(test)]
pub fn to_fts(query: &str) -> Result<String, Error> {
    Ok(to_fts_items(&parse(query)?))
}

/// [`to_fts`] of parsed items.
pub fn to_fts_items(items: &[Item]) -> String {
    let terms: Vec<String> = items
        .iter()
        .map(|item| match item {
            Item::Or => "OR".to_owned(),
            Item::Term { text, prefix } => term(text, *prefix),
        })
        .collect();
    terms.join(" ")
}

/// Splits a user query into terms and `OR`s (see [`to_fts`] for the rules and limits).
pub fn parse(query: &str) -> Result<Vec<Item>, Error> {
    let length = query.chars().count();
    if length > MAX_QUERY_CHARS {
        return Err(Error::BadQuery(format!(
            "the query is {length} characters long; at most {MAX_QUERY_CHARS} are searched"
        )));
    }
    let mut terms: Vec<Item> = Vec::new();
    let mut chars = query.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        if c == '"' {
            chars.next();
            let mut phrase = String::new();
            let mut closed = false;
            for c in chars.by_ref() {
                if c == '"' {
                    closed = true;
                    break;
                }
                phrase.push(c);
            }
            if !closed {
                let at = match phrase.trim() {
                    "" => "at the end".to_owned(),
                    text => format!("before {text:?}"),
                };
                return Err(Error::BadQuery(format!(
                    "the quote {at} is not closed; add a closing \""
                )));
            }
            // `"connection ref*"` and `"connection ref"*`: the phrase's last word is a prefix.
            let mut prefix = false;
            while chars.peek() == Some(&'*') {
                chars.next();
                prefix = true;
            }
            let trimmed = phrase.trim_end();
            if let Some(stem) = trimmed.strip_suffix('*') {
                phrase = stem.trim_end_matches(['*', ' ']).to_owned();
                prefix = true;
            }
            if !phrase.trim().is_empty() {
                let prefix = prefix && !ends_cjk(&phrase);
                terms.push(Item::Term {
                    text: phrase,
                    prefix,
                });
            } else if prefix {
                return Err(Error::BadQuery(
                    "a lone * matches nothing; put it after a word, like build*".into(),
                ));
            }
            continue;
        }
        let mut word = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() || c == '"' {
                break;
            }
            word.push(c);
            chars.next();
        }
        // All words must match already: `AND` between two says so, and is not a word.
        if word == "AND" {
            continue;
        }
        if word == "OR" {
            if terms.last().is_some_and(|t| *t != Item::Or) {
                terms.push(Item::Or);
            }
            continue;
        }
        let (stem, prefix) = match word.strip_suffix('*') {
            Some(stem) => (stem.trim_end_matches('*'), true),
            None => (word.as_str(), false),
        };
        if stem.is_empty() {
            if prefix {
                return Err(Error::BadQuery(
                    "a lone * matches nothing; put it after a word, like build*".into(),
                ));
            }
            continue;
        }
        terms.push(Item::Term {
            text: stem.to_owned(),
            prefix: prefix && !ends_cjk(stem),
        });
    }
    if terms.last() == Some(&Item::Or) {
        terms.pop();
    }
    if terms.is_empty() {
        return Err(Error::BadQuery(
            "the query is empty; type a word or a \"phrase\"".into(),
        ));
    }
    let count = terms.iter().filter(|t| **t != Item::Or).count();
    if count > MAX_TERMS {
        return Err(Error::BadQuery(format!(
            "the query has {count} terms; at most {MAX_TERMS} are searched: remove some, or quote a \"phrase\" (one term)"
        )));
    }
    Ok(terms)
}

/// Whether a term ends with a CJK character: each is a token of its own, so such a prefix
/// (`日本*`) is its phrase (`"日本"`, which finds 日本語 as it finds any run holding 日本).
fn ends_cjk(text: &str) -> bool {
    text.trim_end().chars().next_back().is_some_and(is_cjk)
}

/// How many tokens a snippet shows: twelve words, or twenty-four characters when the query
/// holds a CJK character (its hits are mostly such text, one token per character: at twelve,
/// FTS5's snippet, which likes to start at the start of the text, cut a six-character hit in
/// two).
pub fn snippet_tokens(fts: &str) -> usize {
    match fts.chars().any(is_cjk) {
        true => 24,
        false => 12,
    }
}

/// A query whose prefix terms match more known terms than this, in all, is left to FTS5
/// (`"stem"*`, slower without a prefix index): an `OR` of that many phrases costs about as
/// much (625 phrases: 7 ms to find the newest thousand matches in 40 MB of text).
pub const MAX_EXPANSION: usize = 2000;

/// An FTS5 expression whose prefix terms are spelled out.
pub struct Expanded {
    pub fts: String,
    /// How many phrases the prefix terms became (BM25 costs in proportion to them).
    pub phrases: usize,
    /// Every phrase of `fts` in FTS5's order (left to right), each an expression of its own:
    /// what the rank function's document frequencies are counted for (`rank.rs`).
    pub each: Vec<String>,
}

/// Every phrase of [`to_fts_items`]'s expression, in order (see [`Expanded::each`]).
pub fn phrases_of(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .filter_map(|item| match item {
            Item::Or => None,
            Item::Term { text, prefix } => Some(term(text, *prefix)),
        })
        .collect()
}

/// Where the terms that start with a prefix come from: the index's `terms` table, or the
/// messages a direct search reads. `None`: more than [`MAX_EXPANSION`].
pub type Known<'a> = dyn FnMut(&str) -> rusqlite::Result<Option<Vec<String>>> + 'a;

/// Like [`to_fts`], but each prefix term becomes an `OR` of phrases, one per known term that
/// starts with its last token (`"connection ref"*` → `("connection refused" OR "connection
/// refs")`), which FTS5 answers from its term index instead of merging every term under the
/// prefix. `None` when the prefixes have more than [`MAX_EXPANSION`] terms in all. A prefix with no
/// known term keeps its `"stem"*` form, which then matches nothing, cheaply.
pub fn expand(
    items: &[Item],
    tokenizer: &mut Tokenizer,
    known: &mut Known<'_>,
) -> rusqlite::Result<Option<Expanded>> {
    let mut parts = Vec::with_capacity(items.len());
    let mut each = Vec::with_capacity(items.len());
    let mut phrases = 0;
    for item in items {
        let Item::Term { text, prefix } = item else {
            parts.push("OR".to_owned());
            continue;
        };
        let tokens = tokenizer.split(text);
        let Some((last, head)) = tokens.split_last().filter(|_| *prefix) else {
            parts.push(term(text, *prefix));
            each.push(term(text, *prefix));
            continue;
        };
        let Some(terms) = known(last)?.filter(|t| phrases + t.len() <= MAX_EXPANSION) else {
            return Ok(None);
        };
        if terms.is_empty() {
            parts.push(term(text, true));
            each.push(term(text, true));
            continue;
        }
        phrases += terms.len();
        let head = head.join(" ");
        let alternatives: Vec<String> = terms
            .iter()
            .map(|t| {
                quote(&if head.is_empty() {
                    t.clone()
                } else {
                    format!("{head} {t}")
                })
            })
            .collect();
        parts.push(format!("({})", alternatives.join(" OR ")));
        each.extend(alternatives);
    }
    Ok(Some(Expanded {
        fts: and_join(&parts),
        phrases,
        each,
    }))
}

/// Joins the parts of an expression with `AND` where the user's query put nothing between
/// two terms: FTS5 takes two phrases side by side as `AND`, but not a parenthesized `OR`
/// next to anything (`("a" OR "b") "c"` is a syntax error). `AND` binds tighter than `OR`,
/// as the side-by-side form does, so the meaning is the same.
fn and_join(parts: &[String]) -> String {
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            let or = part == "OR" || parts[i - 1] == "OR";
            out.push_str(if or { " " } else { " AND " });
        }
        out.push_str(part);
    }
    out
}

/// The known terms in `sorted` that start with `prefix` (at most [`MAX_EXPANSION`]).
pub fn starting_with<S: AsRef<str>>(
    sorted: impl Iterator<Item = S>,
    prefix: &str,
) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for t in sorted.take_while(|t| t.as_ref().starts_with(prefix)) {
        if out.len() == MAX_EXPANSION {
            return None;
        }
        out.push(t.as_ref().to_owned());
    }
    Some(out)
}

fn term(text: &str, prefix: bool) -> String {
    let mut term = quote(text);
    if prefix {
        term.push('*');
    }
    term
}

fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_phrases_prefixes_and_or() {
        assert_eq!(to_fts("cargo test").unwrap(), r#""cargo" "test""#);
        assert_eq!(
            to_fts(r#""connection refused" retry*"#).unwrap(),
            r#""connection refused" "retry"*"#
        );
        assert_eq!(to_fts("a OR b").unwrap(), r#""a" OR "b""#);
        assert_eq!(to_fts("a AND b").unwrap(), r#""a" "b""#);
        assert_eq!(to_fts("a and b").unwrap(), r#""a" "and" "b""#);
        let lone = to_fts("parser \"").unwrap_err().to_string();
        assert!(
            lone.contains("the quote at the end is not closed"),
            "{lone}"
        );
        // A phrase's last word as a prefix, the star inside the quotes or after them.
        for q in [r#""hello wor*""#, r#""hello wor"*"#, r#""hello wor **""#] {
            assert_eq!(to_fts(q).unwrap(), r#""hello wor"*"#, "{q}");
        }
        assert!(to_fts(r#""*""#).is_err());
        assert_eq!(
            to_fts("NEAR(x) -y ^z col:w").unwrap(),
            r#""NEAR(x)" "-y" "^z" "col:w""#
        );
    }

    #[test]
    fn prefixes_are_spelled_out_from_the_known_terms() {
        let known_terms = [
            "conn",
            "connection",
            "refs",
            "refused",
            "retries",
            "retry",
            "z",
        ];
        let mut tokenizer = Tokenizer::new().unwrap();
        let mut spell = |q: &str, cap: usize| {
            let items = parse(q).unwrap();
            let mut known = |p: &str| {
                let i = known_terms.partition_point(|t| *t < p);
                Ok(starting_with(known_terms[i..].iter(), p).filter(|t| t.len() <= cap))
            };
            expand(&items, &mut tokenizer, &mut known)
                .unwrap()
                .map(|e| (e.fts, e.phrases))
        };
        assert_eq!(
            spell("Retr* OR x", 9),
            Some((r#"("retries" OR "retry") OR "x""#.into(), 2))
        );
        // The phrase's last token is the prefix; its other tokens stay, folded.
        assert_eq!(
            spell("Connection-REF* conn", 9),
            Some((
                r#"("connection refs" OR "connection refused") AND "conn""#.into(),
                2
            ))
        );
        assert_eq!(
            spell("x retr* OR z", 9),
            Some((r#""x" AND ("retries" OR "retry") OR "z""#.into(), 2))
        );
        // A prefix no term starts with keeps FTS5's form (it matches nothing).
        assert_eq!(spell("nothing*", 9), Some((r#""nothing"*"#.into(), 0)));
        assert_eq!(spell("r*", 1), None);
    }

    /// Spelled-out prefixes beside other terms are valid FTS5 and mean what the query says
    /// (a parenthesized `OR` next to a phrase was a syntax error).
    #[test]
    fn spelled_out_prefixes_run_in_fts5() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(b);
             INSERT INTO t (b) VALUES ('retry schema'), ('retries'), ('schema'), ('x retry'), ('z');",
        )
        .unwrap();
        let known_terms = ["retries", "retry", "schema", "x", "z"];
        let mut tokenizer = Tokenizer::new().unwrap();
        for (q, want) in [
            ("retr* schema", vec![1]),
            ("schema retr*", vec![1]),
            ("x retr* OR z", vec![4, 5]),
            ("retr* OR schema", vec![1, 2, 3, 4]),
            ("x-retr* retr*", vec![4]),
        ] {
            let items = parse(q).unwrap();
            let mut known = |p: &str| {
                let i = known_terms.partition_point(|t| *t < p);
                Ok(starting_with(known_terms[i..].iter(), p))
            };
            let fts = expand(&items, &mut tokenizer, &mut known)
                .unwrap()
                .unwrap()
                .fts;
            let rows: Vec<i64> = conn
                .prepare("SELECT rowid FROM t WHERE t MATCH ?1 ORDER BY rowid")
                .unwrap()
                .query_map([&fts], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| panic!("{q} as {fts}: {e}"));
            assert_eq!(rows, want, "{q} as {fts}");
        }
    }

    /// A CJK word is quoted as any word (FTS5 makes it a phrase of its characters); a prefix
    /// ending in a CJK character is that phrase, one ending in another word stays a prefix.
    #[test]
    fn a_cjk_prefix_is_its_phrase() {
        assert_eq!(to_fts("日本* 検索").unwrap(), r#""日本" "検索""#);
        assert_eq!(to_fts(r#""接続 데이터*""#).unwrap(), r#""接続 데이터""#);
        assert_eq!(to_fts("日本abc*").unwrap(), r#""日本abc"*"#);
        let mut tokenizer = Tokenizer::new().unwrap();
        let items = parse("ログparse*").unwrap();
        let mut known = |p: &str| Ok(starting_with(["parser", "parses"].iter(), p));
        let fts = expand(&items, &mut tokenizer, &mut known)
            .unwrap()
            .unwrap()
            .fts;
        assert_eq!(fts, r#"("ロ グ parser" OR "ロ グ parses")"#);
    }

    #[test]
    fn bad_syntax_is_a_clear_error() {
        let e = to_fts(r#"say "hello"#).unwrap_err();
        assert!(e.to_string().contains("not closed"), "{e}");
        assert!(to_fts("   ").unwrap_err().to_string().contains("empty"));
        assert!(to_fts("*").unwrap_err().to_string().contains("lone *"));
    }

    #[test]
    fn terms_and_length_are_bounded() {
        let words = |n: usize| (0..n).map(|i| format!("w{i}*")).collect::<Vec<_>>();
        let at_cap = words(MAX_TERMS).join(" OR ");
        assert_eq!(to_fts(&at_cap).unwrap().matches('*').count(), MAX_TERMS);
        let e = to_fts(&words(MAX_TERMS + 1).join(" ")).unwrap_err();
        assert!(e.to_string().contains("at most 32"), "{e}");
        // A quoted phrase is one term however many words it has.
        let phrase = format!("\"{}\"", words(100).join(" "));
        assert!(to_fts(&phrase).is_ok());
        let long = "x".repeat(MAX_QUERY_CHARS + 1);
        let e = to_fts(&long).unwrap_err();
        assert!(e.to_string().contains("at most 2000"), "{e}");
    }
}
