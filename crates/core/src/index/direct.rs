//! Searching the sessions whose text is not in the index yet (a first start, a session that
//! changed since it was indexed), by reading them, so a search finds every match from the
//! first second whatever the indexer has reached.
//!
//! Two cheap filters come first, then FTS5 itself decides. A session's file (or, for a store
//! without one, its records as stored: OpenCode's rows) is read raw and folded (case,
//! diacritics, JSON escapes), and must contain every token of some `OR` group at a token
//! start — as `rg` would, at the speed of reading; only the sessions that pass are parsed. Of those, the messages whose folded text passes the same test are put in a
//! temporary FTS5 table (the same tokenizer as the index) and the query runs there, so a
//! message matches exactly when it would match in the index, and its snippet is made the same
//! way. The filters only ever let too much through: the folding here is never finer than the
//! index's tokenizer (`unicode61`'s folding; this one also decomposes compatibility forms and
//! drops every combining mark), a token boundary is only ruled out by an ASCII letter or
//! digit, which both agree on, and a CJK character (a token of its own) is looked for anywhere.

use std::collections::{BTreeSet, HashSet};
use std::io::Read;

use memchr::memmem::Finder;
use rayon::prelude::*;
use rusqlite::{params, Connection};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use super::query::{expand, starting_with, Item};
use super::text;
use super::tokens::{self, Tokenizer};
use super::{Hit, MARK_END, MARK_START};
use crate::model::SessionMeta;
use crate::provider::{Provider, ProviderSet};

/// Sessions parsed side by side before their candidate messages are matched.
const CHUNK: usize = 8;

/// Sessions the raw filter reads side by side before those that pass are parsed, doubled at
/// each window. Reading a database session's rows costs more than a file's read (a
/// connection, the copy shown found), so a search that finds its hits in the newest sessions
/// should not filter them all; one that does not, filters the rest in a few large windows.
const FIRST_WINDOW: usize = 32;

/// Raw file reads, cut at line ends.
const READ_SIZE: usize = 4 << 20;

/// A line longer than this is not held to be searched (the transcript readers skip such lines
/// with a diagnostic too): the file is parsed instead, so memory stays bounded.
const MAX_LINE: usize = 64 << 20;

/// One token of a query term as the filters look for it.
struct Needle {
    finder: Finder<'static>,
    /// The token must end there (every token but a prefix term's last).
    whole: bool,
    /// A CJK character, a token wherever it is (no boundary needed around it).
    anywhere: bool,
}

/// The query as the filters see it: `OR` groups, each a list of tokens that must all occur.
/// A term with no token (only punctuation) is left out, as FTS5 leaves it out of an `AND`;
/// a group of nothing but such terms matches nothing.
pub struct Needles {
    groups: Vec<Vec<Needle>>,
}

impl Needles {
    pub fn new(items: &[Item]) -> Needles {
        let mut groups = vec![Vec::new()];
        for item in items {
            match item {
                Item::Or => groups.push(Vec::new()),
                Item::Term { text, prefix } => {
                    let group = groups.last_mut().expect("one group at least");
                    needles_of(text, *prefix, group);
                }
            }
        }
        groups.retain(|g| !g.is_empty());
        Needles { groups }
    }

    /// A mark for each token of each group, none set: what the raw filter has found so far.
    fn none_found(&self) -> Vec<Vec<bool>> {
        self.groups.iter().map(|g| vec![false; g.len()]).collect()
    }

    /// Whether some group's tokens all occur in `folded` (the result of a fold).
    fn any_group(&self, folded: &[u8]) -> bool {
        self.groups
            .iter()
            .any(|g| g.iter().all(|n| occurs(n, folded)))
    }
}

/// Adds the needles of one query term to `group`. Its CJK characters are tokens of their own,
/// each a needle found anywhere: a phrase of them also matches where the text has separators
/// between them (`検 索` holds the phrase `"検索"`), so the run itself is not looked for. Between
/// them, the term's other words are cut at ASCII separators, as the tokenizer cuts them.
fn needles_of(text: &str, prefix: bool, group: &mut Vec<Needle>) {
    let mut words: Vec<Vec<u8>> = Vec::new();
    let mut buf = [0u8; 4];
    let mut run = String::new();
    let fold_run = |run: &mut String, words: &mut Vec<Vec<u8>>| {
        let mut folded = Vec::new();
        fold_str(run, &mut folded);
        words.extend(
            folded
                .split(|b| !b.is_ascii_alphanumeric() && b.is_ascii())
                .filter(|t| !t.is_empty())
                .map(<[u8]>::to_vec),
        );
        run.clear();
    };
    for c in text.chars() {
        if !tokens::is_cjk(c) {
            run.push(c);
            continue;
        }
        fold_run(&mut run, &mut words);
        let mut folded = Vec::new();
        fold_str(c.encode_utf8(&mut buf), &mut folded);
        group.push(Needle {
            finder: Finder::new(&folded).into_owned(),
            whole: false,
            anywhere: true,
        });
    }
    fold_run(&mut run, &mut words);
    let last = words.len().saturating_sub(1);
    // Only the term's last token is a prefix, and only when it is not a CJK character (then
    // the query has dropped the star).
    let ends_in_word = !text
        .trim_end()
        .chars()
        .next_back()
        .is_some_and(tokens::is_cjk);
    for (i, word) in words.iter().enumerate() {
        group.push(Needle {
            finder: Finder::new(word).into_owned(),
            whole: !(prefix && ends_in_word && i == last),
            anywhere: false,
        });
    }
}

/// Whether `needle` occurs in `folded` where a token could start (and end, for a whole one).
/// Only an ASCII letter or digit next to it rules a place out: both tokenizers agree on those.
fn occurs(needle: &Needle, folded: &[u8]) -> bool {
    occurs_where(needle, folded, |at| {
        at == 0 || !folded[at - 1].is_ascii_alphanumeric()
    })
}

/// [`occurs`] in lowercased raw JSON: a token may also start right after an escape (`\n`,
/// `\u00e9`), whose last character is a letter or digit of the JSON text, not of the string.
fn occurs_raw(needle: &Needle, raw: &[u8]) -> bool {
    occurs_where(needle, raw, |at| {
        at == 0
            || !raw[at - 1].is_ascii_alphanumeric()
            || (at >= 2 && raw[at - 2] == b'\\')
            || (at >= 6 && raw[at - 6] == b'\\' && raw[at - 5] == b'u')
    })
}

fn occurs_where(needle: &Needle, text: &[u8], starts: impl Fn(usize) -> bool) -> bool {
    if needle.anywhere {
        return needle.finder.find(text).is_some();
    }
    let len = needle.finder.needle().len();
    needle.finder.find_iter(text).any(|at| {
        let ends = !needle.whole
            || text
                .get(at + len)
                .is_none_or(|b| !b.is_ascii_alphanumeric());
        ends && starts(at)
    })
}

/// Appends the folded form of one character: ASCII lowercased (punctuation stays: only letters
/// and digits matter next to a token), other letters and digits lowercased, decomposed (NFKD)
/// and stripped of combining marks, combining marks dropped, other characters a space.
fn fold_char(c: char, out: &mut Vec<u8>) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase() as u8);
    } else if !c.is_alphanumeric() {
        if !is_combining_mark(c) {
            out.push(b' ');
        }
    } else {
        let mut buf = [0u8; 4];
        for d in c.to_lowercase().nfkd() {
            if is_combining_mark(d) {
                continue;
            }
            if d.is_alphanumeric() {
                for l in d.to_lowercase() {
                    out.extend_from_slice(l.encode_utf8(&mut buf).as_bytes());
                }
            } else {
                out.push(b' ');
            }
        }
    }
}

pub fn fold_str(text: &str, out: &mut Vec<u8>) {
    fold_plain(text.as_bytes(), out);
}

/// Folds raw JSON text: as [`fold_str`], with string escapes decoded (`\u00e9` is `é`; `\n`
/// and the like separate tokens) and bytes that are not UTF-8 taken as separators.
fn fold_json(bytes: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < bytes.len() {
        let end = memchr::memchr(b'\\', &bytes[i..]).map_or(bytes.len(), |k| i + k);
        fold_plain(&bytes[i..end], out);
        i = end;
        match bytes.get(i + 1) {
            None if i < bytes.len() => i += 1,
            None => {}
            Some(b'u') => {
                let (c, used) = json_unicode(&bytes[i..]);
                fold_char(c, out);
                i += used;
            }
            Some(_) => {
                out.push(b' ');
                i += 2;
            }
        }
    }
}

/// Folds text with no escapes in it: runs of ASCII (nearly all of a transcript) copied and
/// lowercased in bulk, other characters one by one.
fn fold_plain(mut run: &[u8], out: &mut Vec<u8>) {
    while !run.is_empty() {
        let ascii = ascii_prefix(run);
        let from = out.len();
        out.extend_from_slice(&run[..ascii]);
        out[from..].make_ascii_lowercase();
        run = &run[ascii..];
        let Some(&first) = run.first() else {
            break;
        };
        let len = match first {
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => 1,
        };
        match run.get(..len).and_then(|s| std::str::from_utf8(s).ok()) {
            Some(s) => s.chars().for_each(|c| fold_char(c, out)),
            None => out.push(b' '),
        }
        run = &run[len.min(run.len())..];
    }
}

/// How many bytes at the start of `bytes` are ASCII (eight at a time).
fn ascii_prefix(bytes: &[u8]) -> usize {
    let mut words = bytes.chunks_exact(8);
    let mut n = 0;
    for w in words.by_ref() {
        let w = u64::from_ne_bytes(w.try_into().expect("eight bytes"));
        if w & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        n += 8;
    }
    n + bytes[n..].iter().take_while(|b| b.is_ascii()).count()
}

/// The character of a `\uXXXX` escape (a surrogate pair when one follows) and the bytes used;
/// an unreadable escape is a separator.
fn json_unicode(bytes: &[u8]) -> (char, usize) {
    let hex = |s: &[u8]| -> Option<u32> {
        let s = std::str::from_utf8(s.get(2..6)?).ok()?;
        u32::from_str_radix(s, 16).ok()
    };
    let Some(high) = hex(bytes) else {
        return (' ', 2);
    };
    if (0xd800..0xdc00).contains(&high) {
        if let Some(low) = bytes
            .get(6..)
            .filter(|r| r.starts_with(b"\\u"))
            .and_then(hex)
            .filter(|l| (0xdc00..0xe000).contains(l))
        {
            let c = 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
            return (char::from_u32(c).unwrap_or(' '), 12);
        }
    }
    (char::from_u32(high).unwrap_or(' '), 6)
}

/// Whether the file of a session may hold a match: every token of some group occurs in it,
/// read raw. A file that cannot be read may (the parse that follows says why not).
fn file_may_match(path: &std::path::Path, needles: &Needles) -> bool {
    let Ok(mut file) = std::fs::File::open(path) else {
        return true;
    };
    let mut found = needles.none_found();
    let mut raw = Vec::new();
    let mut folded = Vec::new();
    loop {
        match (&mut file).take(READ_SIZE as u64).read_to_end(&mut raw) {
            Ok(0) => break,
            Ok(_) => {}
            Err(_) => return true,
        }
        // Fold whole lines only: no escape or character is cut, and no token spans lines.
        let Some(end) = memchr::memrchr(b'\n', &raw) else {
            if raw.len() > MAX_LINE {
                // A line longer than any reader takes: let the parse say what it is.
                return true;
            }
            continue;
        };
        let done = lines_match(&mut raw[..end], needles, &mut found, &mut folded);
        raw.drain(..=end);
        if done {
            return true;
        }
    }
    lines_match(&mut raw, needles, &mut found, &mut folded)
}

/// Notes which tokens occur in these whole lines of raw JSON; true once some group has all of
/// its tokens. Pure ASCII without `\u` escapes (most of a store) is searched in place,
/// lowercased; anything else is folded first.
fn lines_match(
    raw: &mut [u8],
    needles: &Needles,
    found: &mut [Vec<bool>],
    folded: &mut Vec<u8>,
) -> bool {
    if raw.is_ascii() && memchr::memmem::find(raw, b"\\u").is_none() {
        raw.make_ascii_lowercase();
        return mark_found(needles, found, |n| occurs_raw(n, raw));
    }
    folded.clear();
    fold_json(raw, folded);
    mark_found(needles, found, |n| occurs(n, folded))
}

/// Notes which tokens `occurs` finds; true once some group has all of its tokens.
fn mark_found(
    needles: &Needles,
    found: &mut [Vec<bool>],
    occurs: impl Fn(&Needle) -> bool,
) -> bool {
    for (group, seen) in needles.groups.iter().zip(found.iter_mut()) {
        for (needle, seen) in group.iter().zip(seen.iter_mut()) {
            if !*seen && occurs(needle) {
                *seen = true;
            }
        }
        if seen.iter().all(|s| *s) {
            return true;
        }
    }
    false
}

/// Whether the session may hold a match, by the raw filter: its file read raw when it is its
/// one file, else its records as stored when the store has them (OpenCode's rows), else yes.
fn may_match(providers: &ProviderSet, meta: &SessionMeta, needles: &Needles) -> bool {
    let Some(provider) = providers.get(meta.provider) else {
        return true;
    };
    if provider.reads_in_part(meta) {
        return file_may_match(&meta.source_path, needles);
    }
    records_may_match(provider, meta, needles)
}

/// [`file_may_match`] over the session's stored records, a line each, in batches. Records
/// that cannot be read may match (the parse that follows says why not).
fn records_may_match(provider: &dyn Provider, meta: &SessionMeta, needles: &Needles) -> bool {
    let mut found = needles.none_found();
    let mut batch = Vec::new();
    let mut folded = Vec::new();
    let mut matched = false;
    let read = provider.each_raw_record(meta, &mut |record| {
        batch.extend_from_slice(record);
        batch.push(b'\n');
        if batch.len() >= READ_SIZE {
            matched = lines_match(&mut batch, needles, &mut found, &mut folded);
            batch.clear();
        }
        !matched
    });
    match read {
        Ok(true) => matched || lines_match(&mut batch, needles, &mut found, &mut folded),
        Ok(false) | Err(_) => true,
    }
}

/// The messages of a session that may match, read from its store; `None` when it could not
/// be read.
fn candidates(
    providers: &ProviderSet,
    meta: &SessionMeta,
    needles: &Needles,
) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut folded = Vec::new();
    let read = providers.get(meta.provider)?.load_each(meta, &mut |m| {
        if let Some((id, text)) = text::searchable(&m) {
            folded.clear();
            fold_str(&text, &mut folded);
            if needles.any_group(&folded) {
                out.push((id, text));
            }
        }
    });
    read.ok().map(|_| out)
}

/// What reading the not-yet-indexed sessions found.
#[derive(Debug, Default)]
pub struct Found {
    pub hits: Vec<Hit>,
    /// Sessions that could not be read.
    pub unreadable: usize,
}

/// Searches `sessions` (newest first) by reading them, until `limit` hits are found. `fts` is
/// the query as the index runs it.
pub fn search(
    conn: &Connection,
    providers: &ProviderSet,
    sessions: &[SessionMeta],
    items: &[Item],
    expand: bool,
    limit: usize,
) -> rusqlite::Result<Found> {
    let needles = Needles::new(items);
    let native = super::query::to_fts_items(items);
    let mut tokenizer = Tokenizer::new()?;
    let mut found = Found::default();
    if needles.groups.is_empty() {
        return Ok(found);
    }
    // The raw filter runs over a window of sessions side by side (a session with the tokens
    // stops being read where they are found, one without them costs one read), then the
    // sessions that passed are parsed, a chunk at a time, until `limit` hits: a query found
    // in the newest sessions reads no further window (see `FIRST_WINDOW`).
    let query = Parsed {
        providers,
        needles: &needles,
        items,
        expand,
        native: &native,
    };
    let mut rest = sessions;
    let mut size = FIRST_WINDOW;
    while !rest.is_empty() {
        let (window, after) = rest.split_at(size.min(rest.len()));
        rest = after;
        size *= 2;
        let may: Vec<bool> = window
            .par_iter()
            .map(|meta| may_match(providers, meta, &needles))
            .collect();
        let passed: Vec<&SessionMeta> = window
            .iter()
            .zip(may)
            .filter_map(|(meta, may)| may.then_some(meta))
            .collect();
        for chunk in passed.chunks(CHUNK) {
            read_chunk(conn, &query, chunk, &mut tokenizer, &mut found)?;
            if found.hits.len() >= limit {
                found.hits.truncate(limit);
                return Ok(found);
            }
        }
    }
    Ok(found)
}

/// What parsing a chunk of sessions needs of the search.
struct Parsed<'a> {
    providers: &'a ProviderSet,
    needles: &'a Needles,
    items: &'a [Item],
    expand: bool,
    native: &'a str,
}

/// Parses `chunk`'s sessions side by side and adds the hits of their candidate messages.
fn read_chunk(
    conn: &Connection,
    q: &Parsed,
    chunk: &[&SessionMeta],
    tokenizer: &mut Tokenizer,
    found: &mut Found,
) -> rusqlite::Result<()> {
    let read: Vec<Option<Vec<(String, String)>>> = chunk
        .par_iter()
        .map(|meta| candidates(q.providers, meta, q.needles))
        .collect();
    found.unreadable += read.iter().filter(|r| r.is_none()).count();
    let messages: Vec<(usize, String, String)> = read
        .into_iter()
        .enumerate()
        .flat_map(|(i, r)| {
            r.unwrap_or_default()
                .into_iter()
                .map(move |(id, t)| (i, id, t))
        })
        .collect();
    if messages.is_empty() {
        return Ok(());
    }
    let expanded = if q.expand {
        spelled_out(q.items, &messages, tokenizer)?
    } else {
        None
    };
    let fts = expanded.as_deref().unwrap_or(q.native);
    for (i, message_id, snippet, rank) in matches(conn, &messages, fts)? {
        let meta = chunk[i];
        found.hits.push(Hit {
            session_id: meta.id.clone(),
            provider: meta.provider,
            message_id,
            title: meta.title.clone(),
            snippet,
            score: -rank,
            source_path: meta.source_path.clone(),
        });
    }
    Ok(())
}

/// Runs the query over `messages` (session index, id, text) in a temporary FTS5 table with
/// the index's tokenizer: best first, with snippets made as the index makes them.
fn matches(
    conn: &Connection,
    messages: &[(usize, String, String)],
    fts: &str,
) -> rusqlite::Result<Vec<(usize, String, String, f64)>> {
    conn.execute_batch(&format!(
        "DROP TABLE IF EXISTS temp.unindexed;
         CREATE VIRTUAL TABLE temp.unindexed USING fts5(
           title, body, session UNINDEXED, message_id UNINDEXED, tokenize = '{}');",
        super::TOKENIZER
    ))?;
    let result = (|| {
        let mut insert = conn.prepare(
            "INSERT INTO temp.unindexed (title, body, session, message_id) VALUES ('', ?1, ?2, ?3)",
        )?;
        for (i, id, text) in messages {
            insert.execute(params![text, *i as i64, id])?;
        }
        let mut stmt = conn.prepare(&format!(
            "SELECT session, message_id, snippet(unindexed, -1, '{MARK_START}', '{MARK_END}', '…', {}), rank
             FROM temp.unindexed WHERE unindexed MATCH ?1 ORDER BY rank",
            super::query::snippet_tokens(fts)
        ))?;
        let rows = stmt.query_map([fts], |r| {
            Ok((
                r.get::<_, i64>(0)? as usize,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, f64>(3)?,
            ))
        })?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
    })();
    conn.execute_batch("DROP TABLE IF EXISTS temp.unindexed")?;
    result
}

/// The query with its prefixes spelled out from the terms of `messages` (as the index spells
/// them out from its own), or `None` when there are too many.
fn spelled_out(
    items: &[Item],
    messages: &[(usize, String, String)],
    tokenizer: &mut Tokenizer,
) -> rusqlite::Result<Option<String>> {
    let mut terms = BTreeSet::new();
    for (_, _, text) in messages {
        tokenizer.tokens(text, &mut |t| {
            if !terms.contains(t) {
                terms.insert(t.to_owned());
            }
        });
    }
    let mut known = |prefix: &str| {
        Ok(starting_with(
            terms.range::<str, _>((
                std::ops::Bound::Included(prefix),
                std::ops::Bound::Unbounded,
            )),
            prefix,
        ))
    };
    Ok(expand(items, tokenizer, &mut known)?.map(|e| e.fts))
}

/// Drops hits of `more` already in `hits` (a session indexed in part: its older messages are
/// in the index, its newer ones were read). By file too: one session in two files (a copy) has
/// the same messages in each, and each file's hit opens its own.
pub fn merge(hits: &mut Vec<Hit>, more: Vec<Hit>) {
    let key = |h: &Hit| {
        (
            h.provider,
            h.session_id.clone(),
            h.message_id.clone(),
            h.source_path.clone(),
        )
    };
    let seen: HashSet<_> = hits.iter().map(key).collect();
    hits.extend(more.into_iter().filter(|h| !seen.contains(&key(h))));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(s: &str) -> String {
        let mut out = Vec::new();
        fold_str(s, &mut out);
        String::from_utf8(out).unwrap()
    }

    fn json_folded(s: &[u8]) -> String {
        let mut out = Vec::new();
        fold_json(s, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn folding_is_never_finer_than_unicode61() {
        assert_eq!(folded("Café NAÏVE"), "cafe naive");
        assert_eq!(folded("İstanbul ǰ ﬁle"), "istanbul j file");
        assert_eq!(folded("a\u{301}b"), "ab");
        // Symbols are separators, even those that decompose to letters.
        assert_eq!(folded("™x"), " x");
        let tokens = |s: String| {
            s.split(|c: char| c.is_ascii() && !c.is_ascii_alphanumeric())
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            tokens(json_folded(
                br#"{"t":"caf\u00e9\nnext \ud83d\ude00 \"q\" \u0130x"}"#
            )),
            ["t", "cafe", "next", "q", "ix"]
        );
        // Cut or bad escapes and bytes are separators, not panics.
        assert_eq!(tokens(json_folded(b"ab\\u0")), ["ab", "0"]);
        assert_eq!(tokens(json_folded(b"ab\\")), ["ab"]);
        assert_eq!(tokens(json_folded(b"a\xffb\xe2\x82")), ["a", "b"]);
    }

    #[test]
    fn tokens_are_looked_for_at_token_starts() {
        let items = super::super::query::parse("retry* \"connection refused\"").unwrap();
        let needles = Needles::new(&items);
        assert!(needles.any_group(folded("retrying: Connection refused").as_bytes()));
        assert!(!needles.any_group(folded("noretry connection refused").as_bytes()));
        assert!(!needles.any_group(folded("retry connections refused").as_bytes()));
        // In raw JSON, right after an escape is a token start too; inside a word is not.
        let raw = |s: &str| {
            let mut found = vec![vec![false; 2]];
            lines_match(
                &mut s.as_bytes().to_vec(),
                &needles,
                &mut found,
                &mut Vec::new(),
            )
        };
        assert!(raw(r#"{"a":"Retrying\nconnection refused"}"#));
        // An escaped letter is a letter: `éretry` is one token.
        assert!(!raw(r#"{"a":"\u00e9retry connection refused"}"#));
        assert!(!raw(r#"{"a":"noretry connection refused"}"#));
        assert!(raw(r#"{"a":"caf\u00e9 retry connection refused"}"#));
        let only_punctuation = super::super::query::parse("\"--\"").unwrap();
        assert!(Needles::new(&only_punctuation).groups.is_empty());
    }

    /// OpenCode's database sessions are filtered by their rows, as files are: a session without
    /// the query's tokens is not parsed, one with them passes, and its every word passes
    /// (`tests/search_unindexed.rs` checks the hits against the index). Its JSON copies
    /// (1.0.98) are parsed, as before.
    #[test]
    fn opencode_rows_are_filtered_raw() {
        use crate::model::ProviderKind;
        let needles = |q: &str| Needles::new(&super::super::query::parse(q).unwrap());
        for (version, rows) in [("1.2.27", true), ("1.18.33", true), ("1.0.98", false)] {
            let root = agent_sessions_test_support::fixture(ProviderKind::Opencode, version);
            let agent = crate::provider::registry::agent(ProviderKind::Opencode);
            let provider = (agent.provider)(vec![root]);
            let scan = provider
                .scan(&Vec::new(), &crate::provider::ScanProgress::default())
                .unwrap();
            assert!(scan.changed.len() >= 5, "{version}");
            let set = ProviderSet::of(vec![provider]);
            let provider = set.get(ProviderKind::Opencode).unwrap();
            for meta in &scan.changed {
                assert_eq!(
                    !may_match(&set, meta, &needles("nowherezzqx")),
                    rows,
                    "{version} {}",
                    meta.id
                );
                let mut words = BTreeSet::new();
                provider
                    .load_each(meta, &mut |m| {
                        if let Some((_, text)) = text::searchable(&m) {
                            let mut folded = Vec::new();
                            fold_str(&text, &mut folded);
                            words.extend(
                                folded
                                    .split(|b| !b.is_ascii_alphanumeric())
                                    .filter(|w| !w.is_empty())
                                    .map(|w| String::from_utf8_lossy(w).into_owned()),
                            );
                        }
                    })
                    .unwrap();
                for w in &words {
                    assert!(may_match(&set, meta, &needles(w)), "{version} {w}");
                }
            }
        }
    }
}
