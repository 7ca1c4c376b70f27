//! The index's own tokenizer (FTS5's `unicode61`, reached through the `fts5_api` of a
//! connection), so that we see exactly the terms FTS5 indexes: the table `terms` lists every
//! term of the indexed text, and a prefix query is answered by an `OR` of the terms that start
//! with it instead of FTS5's prefix indexes (which cost 60% of the indexing time).
//!
//! rusqlite does not wrap FTS5's C API, so this is a small unsafe binding: `SELECT fts5(?1)`
//! hands out the connection's `fts5_api` (the documented way), `xFindTokenizer` the
//! tokenizer's functions, `xCreate` an instance with the index's arguments.

use std::collections::HashSet;
use std::ffi::{c_char, c_int, c_void};
use std::hash::BuildHasher;
use std::ptr;

use rusqlite::ffi;
use rusqlite::Connection;

/// A `unicode61` tokenizer with the index's arguments, on an in-memory connection of its own
/// (so it can live beside a transaction of the cache's connection, or on another thread).
pub struct Tokenizer {
    functions: ffi::fts5_tokenizer,
    instance: *mut ffi::Fts5Tokenizer,
    /// Owns what `functions` and `instance` point into; dropped after them (see `Drop`).
    _conn: Connection,
}

fn failure(code: c_int, what: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(ffi::Error::new(code), Some(what.to_owned()))
}

/// The connection's `fts5_api`, or an error if this SQLite has no FTS5.
pub(super) fn fts5_api(conn: &Connection) -> rusqlite::Result<*mut ffi::fts5_api> {
    let mut api: *mut ffi::fts5_api = ptr::null_mut();
    // SAFETY: a statement prepared and finalized on this connection's handle; the bound
    // pointer is written by FTS5 during the step, while `api` is alive.
    unsafe {
        let db = conn.handle();
        let mut stmt: *mut ffi::sqlite3_stmt = ptr::null_mut();
        let sql = c"SELECT fts5(?1)";
        let rc = ffi::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut stmt, ptr::null_mut());
        if rc != ffi::SQLITE_OK {
            return Err(failure(rc, "FTS5 is not available"));
        }
        ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&mut api as *mut *mut ffi::fts5_api).cast(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        ffi::sqlite3_step(stmt);
        ffi::sqlite3_finalize(stmt);
    }
    if api.is_null() {
        return Err(failure(ffi::SQLITE_ERROR, "FTS5 is not available"));
    }
    Ok(api)
}

// SAFETY: the instance is plain memory of the tokenizer, used through `&mut self` only, and
// its connection (which rusqlite lets move between threads) moves with it.
unsafe impl Send for Tokenizer {}

impl Tokenizer {
    /// The index's tokenizer (`unicode61 remove_diacritics 2`, as in the schema).
    pub fn new() -> rusqlite::Result<Tokenizer> {
        let conn = Connection::open_in_memory()?;
        let api = fts5_api(&conn)?;
        let mut user_data: *mut c_void = ptr::null_mut();
        let mut functions = ffi::fts5_tokenizer {
            xCreate: None,
            xDelete: None,
            xTokenize: None,
        };
        // SAFETY: `api` is the live connection's; the functions and user data FTS5 returns
        // stay valid while the connection is open, and the tokenizer owns it.
        unsafe {
            let find = (*api)
                .xFindTokenizer
                .ok_or_else(|| failure(1, "no xFindTokenizer"))?;
            let rc = find(api, c"unicode61".as_ptr(), &mut user_data, &mut functions);
            if rc != ffi::SQLITE_OK {
                return Err(failure(rc, "FTS5 has no unicode61 tokenizer"));
            }
            let create = functions.xCreate.ok_or_else(|| failure(1, "no xCreate"))?;
            let mut args: [*const c_char; 2] = [c"remove_diacritics".as_ptr(), c"2".as_ptr()];
            let mut instance = ptr::null_mut();
            let rc = create(user_data, args.as_mut_ptr(), 2, &mut instance);
            if rc != ffi::SQLITE_OK || instance.is_null() {
                return Err(failure(rc, "cannot create the unicode61 tokenizer"));
            }
            Ok(Tokenizer {
                functions,
                instance,
                _conn: conn,
            })
        }
    }

    /// Calls `each` with every token of `text`, as FTS5 indexes it (folded).
    pub fn tokens(&mut self, text: &str, each: &mut dyn FnMut(&str)) {
        unsafe extern "C" fn on_token(
            ctx: *mut c_void,
            _flags: c_int,
            token: *const c_char,
            len: c_int,
            _start: c_int,
            _end: c_int,
        ) -> c_int {
            // SAFETY: `ctx` is the `&mut dyn FnMut` passed below, alive during xTokenize;
            // `token` points to `len` bytes of UTF-8 that unicode61 wrote.
            let each = &mut *ctx.cast::<&mut dyn FnMut(&str)>();
            let bytes = std::slice::from_raw_parts(token.cast::<u8>(), len.max(0) as usize);
            if let Ok(token) = std::str::from_utf8(bytes) {
                each(token);
            }
            ffi::SQLITE_OK
        }
        let Some(tokenize) = self.functions.xTokenize else {
            return;
        };
        // A text over 2 GiB is tokenized in part (never happens: messages are capped far lower).
        let len = c_int::try_from(text.len()).unwrap_or(c_int::MAX);
        let mut each = each;
        // SAFETY: the instance is alive (dropped only in Drop); the text outlives the call.
        unsafe {
            tokenize(
                self.instance,
                (&mut each as *mut &mut dyn FnMut(&str)).cast(),
                ffi::FTS5_TOKENIZE_DOCUMENT,
                text.as_ptr().cast(),
                len,
                Some(on_token),
            );
        }
    }

    /// The tokens of `text`, in order.
    pub fn split(&mut self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.tokens(text, &mut |t| out.push(t.to_owned()));
        out
    }
}

impl Drop for Tokenizer {
    fn drop(&mut self) {
        if let Some(delete) = self.functions.xDelete {
            // SAFETY: created by xCreate of the same functions, deleted once.
            unsafe { delete(self.instance) };
        }
    }
}

/// Gathers the distinct terms of texts, leaving out those already handed out in this run (the
/// writer keeps them anyway: `INSERT OR IGNORE`); the memory of what was handed out is bounded.
/// Every token of the indexed text is looked up here (tens of millions at 300 MB), so the set
/// hashes with foldhash (seeded per process, so a transcript cannot be written to collide):
/// SipHash was a sixth of this pass (`docs/performance.md`).
pub struct NewTerms {
    tokenizer: Tokenizer,
    handed_out: HashSet<String, foldhash::fast::RandomState>,
    recent: Recent,
}

/// A direct-mapped memory of short terms handed out, in front of `handed_out`: most tokens are
/// a few common words, and a look-up in the set reads its key through a pointer (a cache miss
/// per token, most of this pass's time); here the term's bytes sit in the slot (256 KiB).
/// Exact: a slot answers only for the very term it holds.
struct Recent {
    slots: Vec<[u8; RECENT_SLOT]>,
}

/// A slot: the term's length, then its bytes (terms longer than this go to the set only).
const RECENT_SLOT: usize = 32;
const RECENT_SLOTS: usize = 8192;

impl Recent {
    fn new() -> Recent {
        Recent {
            slots: vec![[0; RECENT_SLOT]; RECENT_SLOTS],
        }
    }

    fn slot(&mut self, term: &str, hash: u64) -> Option<&mut [u8; RECENT_SLOT]> {
        let fits = !term.is_empty() && term.len() < RECENT_SLOT;
        fits.then(|| &mut self.slots[hash as usize % RECENT_SLOTS])
    }

    /// Whether `term` is in its slot; if not, puts it there.
    fn check_in(&mut self, term: &str, hash: u64) -> bool {
        let Some(slot) = self.slot(term, hash) else {
            return false;
        };
        let bytes = term.as_bytes();
        if usize::from(slot[0]) == bytes.len() && &slot[1..=bytes.len()] == bytes {
            return true;
        }
        slot[0] = bytes.len() as u8;
        slot[1..=bytes.len()].copy_from_slice(bytes);
        false
    }
}

/// Past this many remembered terms the memory is emptied (repeats are then written again,
/// harmlessly): about 60 MB at most.
const REMEMBERED_TERMS: usize = 1 << 20;

impl NewTerms {
    pub fn new() -> rusqlite::Result<NewTerms> {
        Ok(NewTerms {
            tokenizer: Tokenizer::new()?,
            handed_out: HashSet::default(),
            recent: Recent::new(),
        })
    }

    /// Adds the terms of `text` not handed out before to `out`.
    pub fn add(&mut self, text: &str, out: &mut Vec<String>) {
        if self.handed_out.len() > REMEMBERED_TERMS {
            self.handed_out.clear();
            self.recent = Recent::new();
        }
        let (seen, recent) = (&mut self.handed_out, &mut self.recent);
        let mut note = |t: &str| {
            // Only terms in the set are in a slot, so a hit there is a term handed out.
            if recent.check_in(t, seen.hasher().hash_one(t)) {
                return;
            }
            if !seen.contains(t) {
                seen.insert(t.to_owned());
                out.push(t.to_owned());
            }
        };
        each_token(&mut self.tokenizer, text, &mut note);
    }
}

/// Calls `each` with every token of `text`, exactly as [`Tokenizer::tokens`] does, but without
/// crossing into SQLite for ASCII words (most of a transcript), which cost a third of the term
/// pass there. Exact because `unicode61` (with no `tokenchars`/`separators` options, as in the
/// schema) treats every ASCII character but a letter or digit as a separator: a token never
/// spans one, so the text is cut at them, a piece of ASCII letters and digits is one token
/// (folded: ASCII case only), and a piece holding other characters goes to `unicode61` whole.
pub fn each_token(tokenizer: &mut Tokenizer, text: &str, each: &mut dyn FnMut(&str)) {
    let mut folded = String::new();
    let mut piece = |start: usize, end: usize, ascii: bool, upper: bool| {
        // Cut at ASCII bytes only, so these are character boundaries (`get` checks in O(1)).
        let Some(piece) = text.get(start..end).filter(|p| !p.is_empty()) else {
            return;
        };
        if !ascii {
            tokenizer.tokens(piece, each);
        } else if upper {
            folded.clear();
            folded.push_str(piece);
            folded.make_ascii_lowercase();
            each(&folded);
        } else {
            each(piece);
        }
    };
    let (mut start, mut ascii, mut upper) = (0, true, false);
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if b.is_ascii_alphanumeric() {
            upper |= b.is_ascii_uppercase();
        } else if !b.is_ascii() {
            ascii = false;
        } else {
            piece(start, i, ascii, upper);
            (start, ascii, upper) = (i + 1, true, false);
        }
    }
    piece(start, text.len(), ascii, upper);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each term is handed out once, whether its slot in `Recent` holds it, another term (20,000
    /// terms share 8,192 slots) or nothing (too long).
    #[test]
    fn each_term_is_handed_out_once() {
        let mut terms = NewTerms::new().unwrap();
        let long = "x".repeat(40);
        let words: Vec<String> = (0..20_000).map(|i| format!("w{i}")).collect();
        let text = format!("{} {long} the", words.join(" "));
        let mut first = Vec::new();
        terms.add(&text, &mut first);
        terms.add(&format!("the {long} w7 {text}"), &mut first);
        let mut want = words.clone();
        want.extend([long.clone(), "the".to_owned()]);
        assert_eq!(first, want);
        let mut again = Vec::new();
        terms.add(&format!("{text} new"), &mut again);
        assert_eq!(again, ["new"]);
    }

    /// The tokens we see are the terms FTS5 stores (fts5vocab over a table of the same text).
    #[test]
    fn tokens_equal_the_terms_fts5_indexes() {
        let conn = Connection::open_in_memory().unwrap();
        let text = "Café NAÏVE straße İstanbul ﬁle 日本語テスト ωmega src/mod_12.rs \
                    parseConfig7 handle_request don't 0x1f E0042 a\u{301}b ™x";
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE t USING fts5(body, tokenize = '{}');
             CREATE VIRTUAL TABLE v USING fts5vocab(t, row);",
            super::super::TOKENIZER
        ))
        .unwrap();
        conn.execute("INSERT INTO t (body) VALUES (?1)", [text])
            .unwrap();
        let mut want: Vec<String> = conn
            .prepare("SELECT term FROM v")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let mut got = Tokenizer::new().unwrap().split(text);
        got.sort();
        got.dedup();
        want.sort();
        assert_eq!(got, want);
        assert!(got.contains(&"cafe".to_owned()) && got.contains(&"parseconfig7".to_owned()));
    }

    /// The fast path finds the very tokens `unicode61` does, in order, on any mix of ASCII
    /// words, punctuation, accented and other scripts, combining marks and emoji.
    #[test]
    fn each_token_equals_unicode61() {
        use proptest::prelude::*;
        let alphabet = prop::sample::select(vec![
            "a", "Z", "q", "7", "0", " ", "\n", "\t", "_", "-", ".", "/", "'", "\\", "\u{0}", "é",
            "É", "ß", "İ", "ﬁ", "日", "本", "ω", "\u{301}", "™", "—", "😀", "\u{a0}", "Ⅻ",
        ]);
        let texts = prop::collection::vec(alphabet, 0..60).prop_map(|parts| parts.concat());
        let mut runner = proptest::test_runner::TestRunner::default();
        runner
            .run(&texts, |text| {
                let mut tokenizer = Tokenizer::new().unwrap();
                let want = tokenizer.split(&text);
                let mut got = Vec::new();
                each_token(&mut tokenizer, &text, &mut |t| got.push(t.to_owned()));
                prop_assert_eq!(got, want, "text {:?}", text);
                Ok(())
            })
            .unwrap();
    }
}
