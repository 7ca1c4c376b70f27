//! Searching the sessions whose text is not in the index yet (a first start, a session that
//! changed since it was indexed), by reading them, so a search finds every match from the
//! first second whatever the indexer has reached.
//!
//! Two cheap filters come first, then FTS5 itself decides. A session's file is read raw and
//! folded (case, diacritics, JSON escapes), and must contain every token of some `OR` group at
//! a token start — as `rg` would, at the speed of reading; only the sessions that pass are
//! parsed. Of those, the messages whose folded text passes the same test are put in a
//! temporary FTS5 table (the same tokenizer as the index) and the query runs there, so a
//! message matches exactly when it would match in the index, and its snippet is made the same
//! way. The filters only ever let too much through: the folding here is never finer than
//! FTS5's `unicode61` (it also decomposes compatibility forms and drops every combining mark),
//! and a token boundary is only ruled out by an ASCII letter or digit, which both agree on.

use std::collections::HashSet;
use std::io::Read;

use memchr::memmem::Finder;
use rayon::prelude::*;
use rusqlite::{params, Connection};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use super::query::Item;
use super::text;
use super::{Hit, MARK_END, MARK_START};
use crate::catalog::Catalog;
use crate::model::SessionMeta;

/// Sessions parsed side by side before their candidate messages are matched.
const CHUNK: usize = 8;

/// Raw file reads, cut at line ends.
const READ_SIZE: usize = 4 << 20;

/// One token of a query term as the filters look for it.
struct Needle {
    finder: Finder<'static>,
    /// The token must end there (every token but a prefix term's last).
    whole: bool,
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
                    let mut folded = Vec::new();
                    fold_str(text, &mut folded);
                    let tokens: Vec<&[u8]> = folded
                        .split(|b| *b == b' ')
                        .filter(|t| !t.is_empty())
                        .collect();
                    let last = tokens.len().saturating_sub(1);
                    let group = groups.last_mut().expect("one group at least");
                    for (i, token) in tokens.iter().enumerate() {
                        group.push(Needle {
                            finder: Finder::new(token).into_owned(),
                            whole: !(*prefix && i == last),
                        });
                    }
                }
            }
        }
        groups.retain(|g| !g.is_empty());
        Needles { groups }
    }

    /// Whether some group's tokens all occur in `folded` (the result of a fold).
    fn any_group(&self, folded: &[u8]) -> bool {
        self.groups
            .iter()
            .any(|g| g.iter().all(|n| occurs(n, folded)))
    }
}

/// Whether `needle` occurs in `folded` where a token could start (and end, for a whole one).
fn occurs(needle: &Needle, folded: &[u8]) -> bool {
    let len = needle.finder.needle().len();
    needle.finder.find_iter(folded).any(|at| {
        let starts = at == 0 || !folded[at - 1].is_ascii_alphanumeric();
        let ends = !needle.whole
            || folded
                .get(at + len)
                .is_none_or(|b| !b.is_ascii_alphanumeric());
        starts && ends
    })
}

/// Appends the folded form of one character: ASCII letters and digits lowercased, other
/// letters and digits lowercased, decomposed (NFKD) and stripped of combining marks, combining
/// marks dropped, everything else a space.
fn fold_char(c: char, out: &mut Vec<u8>) {
    if c.is_ascii() {
        out.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase() as u8
        } else {
            b' '
        });
    } else if is_combining_mark(c) {
    } else if c.is_alphanumeric() {
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
    } else {
        out.push(b' ');
    }
}

pub fn fold_str(text: &str, out: &mut Vec<u8>) {
    for c in text.chars() {
        fold_char(c, out);
    }
}

/// Folds raw JSON text: as [`fold_str`], with string escapes decoded (`\u00e9` is `é`; `\n`
/// and the like separate tokens) and bytes that are not UTF-8 taken as separators.
fn fold_json(bytes: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\\' {
            match bytes.get(i + 1) {
                Some(b'u') => {
                    let (c, used) = json_unicode(&bytes[i..]);
                    fold_char(c, out);
                    i += used;
                }
                Some(_) => {
                    out.push(b' ');
                    i += 2;
                }
                None => i += 1,
            }
        } else if b.is_ascii() {
            out.push(if b.is_ascii_alphanumeric() {
                b.to_ascii_lowercase()
            } else {
                b' '
            });
            i += 1;
        } else {
            let len = match b {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => 1,
            };
            match bytes
                .get(i..i + len)
                .and_then(|s| std::str::from_utf8(s).ok())
            {
                Some(s) => s.chars().for_each(|c| fold_char(c, out)),
                None => out.push(b' '),
            }
            i += len.min(bytes.len() - i);
        }
    }
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
    let mut found: Vec<Vec<bool>> = needles
        .groups
        .iter()
        .map(|g| vec![false; g.len()])
        .collect();
    let mut raw = Vec::with_capacity(READ_SIZE);
    let mut folded = Vec::with_capacity(READ_SIZE);
    let mut chunk = vec![0u8; READ_SIZE];
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return true,
        };
        raw.extend_from_slice(&chunk[..n]);
        // Fold whole lines only: no escape or character is cut, and no token spans lines.
        let Some(end) = memchr::memrchr(b'\n', &raw) else {
            continue;
        };
        folded.clear();
        fold_json(&raw[..end], &mut folded);
        raw.drain(..=end);
        if mark_found(needles, &folded, &mut found) {
            return true;
        }
    }
    folded.clear();
    fold_json(&raw, &mut folded);
    mark_found(needles, &folded, &mut found)
}

/// Notes which tokens occur in `folded`; true once some group has all of its tokens.
fn mark_found(needles: &Needles, folded: &[u8], found: &mut [Vec<bool>]) -> bool {
    for (group, seen) in needles.groups.iter().zip(found.iter_mut()) {
        for (needle, seen) in group.iter().zip(seen.iter_mut()) {
            if !*seen && occurs(needle, folded) {
                *seen = true;
            }
        }
        if seen.iter().all(|s| *s) {
            return true;
        }
    }
    false
}

/// The messages of a session that may match, read from its store; `None` when it could not
/// be read.
fn candidates(
    catalog: &Catalog,
    meta: &SessionMeta,
    needles: &Needles,
) -> Option<Vec<(String, String)>> {
    let one_file = catalog
        .providers()
        .get(meta.provider)
        .is_some_and(|p| p.reads_in_part(meta));
    if one_file && !file_may_match(&meta.source_path, needles) {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    let mut folded = Vec::new();
    let read = catalog.load_each(meta, &mut |m| {
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
    catalog: &Catalog,
    sessions: &[SessionMeta],
    items: &[Item],
    fts: &str,
    limit: usize,
) -> rusqlite::Result<Found> {
    let needles = Needles::new(items);
    let mut found = Found::default();
    if needles.groups.is_empty() {
        return Ok(found);
    }
    for chunk in sessions.chunks(CHUNK) {
        let read: Vec<Option<Vec<(String, String)>>> = chunk
            .par_iter()
            .map(|meta| candidates(catalog, meta, &needles))
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
            continue;
        }
        for (i, message_id, snippet, rank) in matches(conn, &messages, fts)? {
            let meta = &chunk[i];
            found.hits.push(Hit {
                session_id: meta.id.clone(),
                provider: meta.provider,
                message_id,
                title: meta.title.clone(),
                snippet,
                score: -rank,
            });
        }
        if found.hits.len() >= limit {
            found.hits.truncate(limit);
            break;
        }
    }
    Ok(found)
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
            "SELECT session, message_id, snippet(unindexed, -1, '{MARK_START}', '{MARK_END}', '…', 12), rank
             FROM temp.unindexed WHERE unindexed MATCH ?1 ORDER BY rank"
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

/// Drops hits of `more` already in `hits` (a session indexed in part: its older messages are
/// in the index, its newer ones were read).
pub fn merge(hits: &mut Vec<Hit>, more: Vec<Hit>) {
    let key = |h: &Hit| (h.provider, h.session_id.clone(), h.message_id.clone());
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
        let tokens = |s: String| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
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
        let only_punctuation = super::super::query::parse("\"--\"").unwrap();
        assert!(Needles::new(&only_punctuation).groups.is_empty());
    }
}
