//! The index's own tokenizer, `as_cjk`: FTS5's `unicode61` (reached through the `fts5_api` of
//! a connection) for every script that writes spaces between words, and one token per
//! character for Chinese, Japanese and Korean, which do not — so that any run of those
//! characters in a message is found as a phrase of its characters (`検索` in 全文検索の機能).
//! The same code tokenizes for FTS5 (registered on every connection to the cache, see
//! [`register`]) and for us: the table `terms` lists every term of the indexed text, and a
//! prefix query is answered by an `OR` of the terms that start with it instead of FTS5's
//! prefix indexes (which cost 60% of the indexing time).
//!
//! rusqlite does not wrap FTS5's C API, so this is a small unsafe binding: `SELECT fts5(?1)`
//! hands out the connection's `fts5_api` (the documented way), `xFindTokenizer` unicode61's
//! functions, `xCreate` an instance with the index's arguments, `xCreateTokenizer` registers
//! ours.

use std::collections::HashSet;
use std::ffi::{c_char, c_int, c_void};
use std::hash::BuildHasher;
use std::ptr;

use rusqlite::ffi;
use rusqlite::Connection;

/// The name of the index's tokenizer in the schema (`tokenize = 'as_cjk'`).
pub const NAME: &str = "as_cjk";

/// Whether `c` is a token of its own: a Han ideograph (CJK Unified Ideographs with extensions
/// A–H, compatibility ideographs, 々〆〇), Hiragana, Katakana (with its phonetic extensions and
/// the half-width forms) or a Hangul syllable or compatibility letter. Only letters: the
/// punctuation of those blocks (・, the voicing marks) stays a separator, as in `unicode61`.
/// Full-width Latin letters and digits are not here: they stay `unicode61`'s (one token per
/// word, case folded, not equal to the ASCII word).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3005..=0x3007
        | 0x3041..=0x3096
        | 0x309D..=0x309F
        | 0x30A1..=0x30FA
        | 0x30FC..=0x30FF
        | 0x3131..=0x318E
        | 0x31F0..=0x31FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFF66..=0xFF9F
        | 0x20000..=0x2FA1F
        | 0x30000..=0x323AF)
        && c.is_alphanumeric()
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

/// Where each token goes: its bytes (folded), and where it stands in the text (byte offsets).
/// A code other than `SQLITE_OK` stops the tokenizing (FTS5's callback may fail).
type Emit<'a> = dyn FnMut(&[u8], usize, usize) -> c_int + 'a;

/// An instance of FTS5's `unicode61` with the index's arguments (`remove_diacritics 2`).
struct Unicode61 {
    functions: ffi::fts5_tokenizer,
    instance: *mut ffi::Fts5Tokenizer,
}

impl Unicode61 {
    /// # Safety
    /// `api` is a live connection's, and stays alive while the result is.
    unsafe fn create(api: *mut ffi::fts5_api) -> rusqlite::Result<Unicode61> {
        let mut user_data: *mut c_void = ptr::null_mut();
        let mut functions = ffi::fts5_tokenizer {
            xCreate: None,
            xDelete: None,
            xTokenize: None,
        };
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
        Ok(Unicode61 {
            functions,
            instance,
        })
    }

    /// Tokenizes `text`, which stands at `offset` in the whole text the offsets are of.
    fn tokenize(&mut self, flags: c_int, text: &[u8], offset: usize, emit: &mut Emit) -> c_int {
        unsafe extern "C" fn on_token(
            ctx: *mut c_void,
            _flags: c_int,
            token: *const c_char,
            len: c_int,
            start: c_int,
            end: c_int,
        ) -> c_int {
            // SAFETY: `ctx` is the pair passed below, alive during xTokenize; `token` points
            // to `len` bytes that unicode61 wrote.
            let (emit, offset) = &mut *ctx.cast::<(&mut Emit, usize)>();
            let bytes = std::slice::from_raw_parts(token.cast::<u8>(), len.max(0) as usize);
            let at = |i: c_int| *offset + i.max(0) as usize;
            emit(bytes, at(start), at(end))
        }
        let Some(tokenize) = self.functions.xTokenize else {
            return ffi::SQLITE_OK;
        };
        if text.is_empty() {
            return ffi::SQLITE_OK;
        }
        // A text over 2 GiB is tokenized in part (never happens: messages are capped far lower).
        let len = c_int::try_from(text.len()).unwrap_or(c_int::MAX);
        let mut ctx = (emit, offset);
        // SAFETY: the instance is alive (deleted only in Drop); the text outlives the call.
        unsafe {
            tokenize(
                self.instance,
                (&mut ctx as *mut (&mut Emit, usize)).cast(),
                flags,
                text.as_ptr().cast(),
                len,
                Some(on_token),
            )
        }
    }
}

impl Drop for Unicode61 {
    fn drop(&mut self) {
        if let Some(delete) = self.functions.xDelete {
            // SAFETY: created by xCreate of the same functions, deleted once.
            unsafe { delete(self.instance) };
        }
    }
}

/// Stops at the first code other than `SQLITE_OK`.
macro_rules! ok {
    ($rc:expr) => {
        let rc = $rc;
        if rc != ffi::SQLITE_OK {
            return rc;
        }
    };
}

/// Bytes the scan classifies at once, a bit each in a `u64` ([`Block`]).
const BLOCK: usize = 64;

/// Which of 64 bytes of the text (bit `i`: the byte at `base + i`; none past the end) are
/// token bytes (`unicode61` treats every ASCII character but a letter or digit as a
/// separator), uppercase ASCII letters, and bytes beyond ASCII.
#[derive(Clone, Copy)]
struct Block {
    token: u64,
    upper: u64,
    beyond: u64,
}

/// `0x80` in each byte of `y` (all under `0x80`) that is at least `n` (no carry crosses bytes).
#[inline(always)]
fn at_least(y: u64, n: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    y.wrapping_add(ONES * u64::from(0x80 - n)) & 0x8080_8080_8080_8080
}

/// The bit `0x80` of each of the eight bytes of `m` as the eight low bits (byte `k`: bit `k`).
#[inline(always)]
fn gather(m: u64) -> u64 {
    ((m >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

impl Block {
    /// The classes of the first [`BLOCK`] bytes of `bytes` (zeros, separators, past its end).
    #[inline(always)]
    fn of(bytes: &[u8]) -> Block {
        match bytes.first_chunk::<BLOCK>() {
            Some(full) => Block::classify(full),
            None => {
                let mut padded = [0u8; BLOCK];
                padded[..bytes.len()].copy_from_slice(bytes);
                Block::classify(&padded)
            }
        }
    }

    /// Eight bytes at a time in a word: no branch per byte, so the end of a token costs no
    /// mispredicted jump (the byte-at-a-time scan's main cost).
    #[inline(always)]
    fn classify(bytes: &[u8; BLOCK]) -> Block {
        let mut block = Block {
            token: 0,
            upper: 0,
            beyond: 0,
        };
        for (k, word) in bytes.chunks_exact(8).enumerate() {
            let x = u64::from_le_bytes(word.try_into().unwrap_or_default());
            let beyond = x & 0x8080_8080_8080_8080;
            let y = x & !0x8080_8080_8080_8080;
            let digit = at_least(y, b'0') & !at_least(y, b'9' + 1);
            let lower = at_least(y, b'a') & !at_least(y, b'z' + 1);
            let upper = at_least(y, b'A') & !at_least(y, b'Z' + 1) & !beyond;
            block.token |= gather(digit | lower | upper | beyond) << (8 * k);
            block.upper |= gather(upper) << (8 * k);
            block.beyond |= gather(beyond) << (8 * k);
        }
        block
    }
}

/// The low `n` bits (all for 64 or more).
#[inline(always)]
fn low(n: usize) -> u64 {
    match n {
        0..64 => (1 << n) - 1,
        _ => u64::MAX,
    }
}

/// A piece of the text between separators: its span, and whether it holds an uppercase ASCII
/// letter or a byte beyond ASCII.
#[derive(Clone, Copy)]
struct Piece {
    start: usize,
    end: usize,
    upper: bool,
    beyond: bool,
}

/// The pieces of a text, found 64 bytes at a time ([`Block`]).
struct Pieces<'a> {
    text: &'a [u8],
    /// Where bit 0 of `block` stands in the text.
    base: usize,
    /// The classes from `base` on, with the token bits of the pieces handed out cleared.
    block: Block,
}

impl<'a> Pieces<'a> {
    fn new(text: &'a [u8]) -> Pieces<'a> {
        Pieces {
            text,
            base: 0,
            block: Block::of(text),
        }
    }

    /// Moves to the next block; false past the end of the text.
    #[inline(always)]
    fn advance(&mut self) -> bool {
        self.base += BLOCK;
        if self.base >= self.text.len() {
            self.block.token = 0;
            return false;
        }
        self.block = Block::of(&self.text[self.base..]);
        true
    }
}

impl Iterator for Pieces<'_> {
    type Item = Piece;

    #[inline(always)]
    fn next(&mut self) -> Option<Piece> {
        while self.block.token == 0 {
            if !self.advance() {
                return None;
            }
        }
        let from = self.block.token.trailing_zeros() as usize;
        let start = self.base + from;
        // The separators after the piece, from its first byte on: none when it runs on past
        // the block (bits past the text's end are separators).
        let after = !self.block.token >> from;
        if after != 0 {
            let len = after.trailing_zeros() as usize;
            let span = low(len) << from;
            self.block.token &= !low(from + len);
            return Some(Piece {
                start,
                end: start + len,
                upper: self.block.upper & span != 0,
                beyond: self.block.beyond & span != 0,
            });
        }
        let mut piece = Piece {
            start,
            end: self.text.len(),
            upper: self.block.upper >> from != 0,
            beyond: self.block.beyond >> from != 0,
        };
        while self.advance() {
            let len = (!self.block.token).trailing_zeros() as usize;
            piece.upper |= self.block.upper & low(len) != 0;
            piece.beyond |= self.block.beyond & low(len) != 0;
            self.block.token &= !low(len);
            if len < BLOCK {
                piece.end = self.base + len;
                break;
            }
        }
        Some(piece)
    }
}

/// The index's tokenizing of `text` (any bytes; FTS5 hands them as stored). Without crossing
/// into `unicode61` for ASCII words (most of a transcript), which is exact because `unicode61`
/// treats every ASCII character but a letter or digit as a separator: a token never spans one,
/// so the text is cut at them ([`Pieces`]), a piece of ASCII letters and digits is one token
/// (folded: ASCII case only; handed out as it stands in the text when it has no uppercase
/// letter), and pieces holding other characters go to [`mixed`], those next to each other as
/// one (one call into `unicode61` for a sentence of Cyrillic words, not one a word). Generic in
/// `emit` so that the callback is inlined into the scan.
fn tokenize<F>(u61: &mut Unicode61, flags: c_int, text: &[u8], emit: &mut F) -> c_int
where
    F: FnMut(&[u8], usize, usize) -> c_int,
{
    let mut folded = Vec::new();
    // Pieces beyond ASCII with only separators between them, not tokenized yet.
    let mut run: Option<(usize, usize)> = None;
    for piece in Pieces::new(text) {
        let Piece { start, end, .. } = piece;
        if piece.beyond {
            run = Some((run.map_or(start, |(from, _)| from), end));
            continue;
        }
        if let Some((from, to)) = run.take() {
            ok!(mixed(u61, flags, text, from, to, emit));
        }
        ok!(match piece.upper {
            true => {
                folded.clear();
                folded.extend_from_slice(&text[start..end]);
                folded.make_ascii_lowercase();
                emit(&folded, start, end)
            }
            false => emit(&text[start..end], start, end),
        });
    }
    match run {
        Some((from, to)) => mixed(u61, flags, text, from, to, emit),
        None => ffi::SQLITE_OK,
    }
}

/// The first byte of a CJK character's UTF-8 ([`is_cjk`]: all from U+3005 on) is at least this:
/// a piece without such a byte goes to `unicode61` whole, without decoding it here.
const CJK_LEAD: u8 = 0xE3;

/// A piece of `text` holding characters beyond ASCII: each CJK character ([`is_cjk`]) is a
/// token, and the runs between them go to `unicode61` whole (so a script with spaces is
/// tokenized exactly as before). Bytes that are not UTF-8 go with the run they are in.
fn mixed<F>(
    u61: &mut Unicode61,
    flags: c_int,
    text: &[u8],
    start: usize,
    end: usize,
    emit: &mut F,
) -> c_int
where
    F: FnMut(&[u8], usize, usize) -> c_int,
{
    if !text[start..end].iter().any(|&b| b >= CJK_LEAD) {
        return u61.tokenize(flags, &text[start..end], start, emit);
    }
    let (mut run, mut at) = (start, start);
    for chunk in text[start..end].utf8_chunks() {
        for (i, c) in chunk.valid().char_indices() {
            if is_cjk(c) {
                let (from, to) = (at + i, at + i + c.len_utf8());
                ok!(u61.tokenize(flags, &text[run..from], run, emit));
                ok!(emit(&text[from..to], from, to));
                run = to;
            }
        }
        at += chunk.valid().len() + chunk.invalid().len();
    }
    u61.tokenize(flags, &text[run..end], run, emit)
}

/// Registers `as_cjk` on `conn`. Every connection that opens the cache does, before it touches
/// a full-text table (FTS5 makes the table's tokenizer when it first opens the table).
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    unsafe extern "C" fn x_create(
        api: *mut c_void,
        _args: *mut *const c_char,
        _count: c_int,
        out: *mut *mut ffi::Fts5Tokenizer,
    ) -> c_int {
        // SAFETY: the user data is the connection's `fts5_api`, alive with the connection
        // that made the table asking for a tokenizer.
        match Unicode61::create(api.cast()) {
            Ok(u61) => {
                *out = Box::into_raw(Box::new(u61)).cast();
                ffi::SQLITE_OK
            }
            Err(_) => ffi::SQLITE_ERROR,
        }
    }
    unsafe extern "C" fn x_delete(instance: *mut ffi::Fts5Tokenizer) {
        // SAFETY: made by `x_create`, deleted once by FTS5.
        drop(Box::from_raw(instance.cast::<Unicode61>()));
    }
    unsafe extern "C" fn x_tokenize(
        instance: *mut ffi::Fts5Tokenizer,
        ctx: *mut c_void,
        flags: c_int,
        text: *const c_char,
        len: c_int,
        x_token: Option<
            unsafe extern "C" fn(*mut c_void, c_int, *const c_char, c_int, c_int, c_int) -> c_int,
        >,
    ) -> c_int {
        let Some(x_token) = x_token else {
            return ffi::SQLITE_OK;
        };
        // SAFETY: FTS5 hands an instance of `x_create` and `len` bytes of text, alive during
        // the call; offsets within a text under 2 GiB fit in an int.
        let u61 = &mut *instance.cast::<Unicode61>();
        let text = match len {
            1.. => std::slice::from_raw_parts(text.cast::<u8>(), len as usize),
            _ => &[],
        };
        let mut emit = |token: &[u8], start: usize, end: usize| {
            x_token(
                ctx,
                0,
                token.as_ptr().cast(),
                token.len() as c_int,
                start as c_int,
                end as c_int,
            )
        };
        tokenize(u61, flags, text, &mut emit)
    }
    let api = fts5_api(conn)?;
    let mut functions = ffi::fts5_tokenizer {
        xCreate: Some(x_create),
        xDelete: Some(x_delete),
        xTokenize: Some(x_tokenize),
    };
    // SAFETY: `api` is the live connection's; FTS5 copies the functions, and the user data
    // (the api itself) lives as long as the connection, which owns the registration.
    let rc = unsafe {
        let create = (*api)
            .xCreateTokenizer
            .ok_or_else(|| failure(1, "no xCreateTokenizer"))?;
        create(api, c"as_cjk".as_ptr(), api.cast(), &mut functions, None)
    };
    if rc != ffi::SQLITE_OK {
        return Err(failure(rc, "cannot register the index's tokenizer"));
    }
    Ok(())
}

/// The index's tokenizer for our own use, on an in-memory connection of its own (so it can
/// live beside a transaction of the cache's connection, or on another thread).
pub struct Tokenizer {
    u61: Unicode61,
    /// Owns what `u61` points into; dropped after it (fields drop in order).
    _conn: Connection,
}

// SAFETY: the instance is plain memory of the tokenizer, used through `&mut self` only, and
// its connection (which rusqlite lets move between threads) moves with it.
unsafe impl Send for Tokenizer {}

impl Tokenizer {
    pub fn new() -> rusqlite::Result<Tokenizer> {
        let conn = Connection::open_in_memory()?;
        let api = fts5_api(&conn)?;
        // SAFETY: the connection lives in the tokenizer, dropped after the instance.
        let u61 = unsafe { Unicode61::create(api)? };
        Ok(Tokenizer { u61, _conn: conn })
    }

    /// Calls `each` with every token of `text`, as FTS5 indexes it (folded).
    pub fn tokens(&mut self, text: &str, each: &mut dyn FnMut(&str)) {
        let mut emit = |token: &[u8], _: usize, _: usize| {
            if let Ok(token) = std::str::from_utf8(token) {
                each(token);
            }
            ffi::SQLITE_OK
        };
        tokenize(
            &mut self.u61,
            ffi::FTS5_TOKENIZE_DOCUMENT,
            text.as_bytes(),
            &mut emit,
        );
    }

    /// The tokens of `text`, in order.
    pub fn split(&mut self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.tokens(text, &mut |t| out.push(t.to_owned()));
        out
    }

    /// Calls `each` with every token of `text` (any bytes, as FTS5 hands them) and its byte
    /// span, as FTS5 gets them when it indexes a document: what the bench times.
    pub fn each_token(&mut self, text: &[u8], mut each: impl FnMut(&[u8], usize, usize)) {
        let mut emit = |token: &[u8], start: usize, end: usize| {
            each(token, start, end);
            ffi::SQLITE_OK
        };
        tokenize(&mut self.u61, ffi::FTS5_TOKENIZE_DOCUMENT, text, &mut emit);
    }

    /// The same through FTS5's `unicode61` alone (C, no CJK rule): the bench's yardstick.
    pub fn each_unicode61_token(&mut self, text: &[u8], mut each: impl FnMut(&[u8], usize, usize)) {
        let mut emit = |token: &[u8], start: usize, end: usize| {
            each(token, start, end);
            ffi::SQLITE_OK
        };
        self.u61
            .tokenize(ffi::FTS5_TOKENIZE_DOCUMENT, text, 0, &mut emit);
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
        self.tokenizer.tokens(text, &mut note);
    }
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

    /// A connection with `as_cjk` and a table `t` of one column tokenized by it.
    fn table() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE t USING fts5(body, tokenize = '{}');
             CREATE VIRTUAL TABLE v USING fts5vocab(t, row);",
            super::super::TOKENIZER
        ))
        .unwrap();
        conn
    }

    /// The tokens we see are the terms FTS5 stores (fts5vocab over a table of the same text).
    #[test]
    fn tokens_equal_the_terms_fts5_indexes() {
        let conn = table();
        let text = "Café NAÏVE straße İstanbul ﬁle 日本語テスト ωmega src/mod_12.rs \
                    parseConfig7 handle_request don't 0x1f E0042 a\u{301}b ™x \
                    连接数据库失败 데이터베이스에 ｶﾀｶﾅ Ｗｅｂサーバー・設定";
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
        for term in [
            "cafe",
            "parseconfig7",
            "日",
            "テ",
            "连",
            "데",
            "ｶ",
            "ｗｅｂ",
            "サ",
            "ー",
        ] {
            assert!(got.contains(&term.to_owned()), "{term} in {got:?}");
        }
        assert!(!got.contains(&"・".to_owned()) && !got.contains(&"日本語テスト".to_owned()));
    }

    /// Any run of CJK characters in a text is found as a phrase, next to any other characters;
    /// the snippet marks the run.
    #[test]
    fn a_cjk_run_is_found_anywhere_as_a_phrase() {
        let conn = table();
        for body in [
            "全文検索の機能を追加",
            "连接数据库失败 (error 42)",
            "데이터베이스에 연결할 수 없습니다",
            "ログをparseする",
        ] {
            conn.execute("INSERT INTO t (body) VALUES (?1)", [body])
                .unwrap();
        }
        let find = |q: &str| -> Vec<String> {
            conn.prepare("SELECT highlight(t, 0, '«', '»') FROM t WHERE t MATCH ?1")
                .unwrap()
                .query_map([q], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        };
        assert_eq!(find("\"検索\""), ["全文«検索»の機能を追加"]);
        assert_eq!(find("\"数据库\""), ["连接«数据库»失败 (error 42)"]);
        assert_eq!(
            find("\"데이터베이스\""),
            ["«데이터베이스»에 연결할 수 없습니다"]
        );
        assert_eq!(find("\"ログ\" parse"), ["«ログ»を«parse»する"]);
        assert!(find("\"索検\"").is_empty());
        assert!(find("\"検索機能\"").is_empty());
    }

    /// (token, start, end) of `text` through `tokenize` with `u61`, or through unicode61 alone.
    fn triples(t: &mut Tokenizer, text: &[u8], ours: bool) -> Vec<(String, usize, usize)> {
        let mut out = Vec::new();
        let mut emit = |token: &[u8], start: usize, end: usize| {
            out.push((String::from_utf8_lossy(token).into_owned(), start, end));
            ffi::SQLITE_OK
        };
        let flags = ffi::FTS5_TOKENIZE_DOCUMENT;
        match ours {
            true => tokenize(&mut t.u61, flags, text, &mut emit),
            false => t.u61.tokenize(flags, text, 0, &mut emit),
        };
        out
    }

    /// On text without CJK characters the index's tokenizer is `unicode61` exactly (tokens and
    /// offsets, for snippets), on any mix of ASCII words, punctuation, accented and other
    /// scripts, combining marks, full-width forms and emoji; with them, each CJK character is
    /// a token of its own, at its place, and the rest is what `unicode61` makes of the text
    /// with spaces around each.
    #[test]
    fn the_tokenizer_is_unicode61_but_for_cjk_characters() {
        use proptest::prelude::*;
        let alphabet = prop::sample::select(vec![
            "a",
            "Z",
            "q",
            "7",
            "0",
            " ",
            "\n",
            "\t",
            "_",
            "-",
            ".",
            "/",
            "'",
            "\\",
            "\u{0}",
            "é",
            "É",
            "ß",
            "İ",
            "ﬁ",
            "ω",
            "\u{301}",
            "™",
            "—",
            "😀",
            "\u{a0}",
            "Ⅻ",
            "Ｗ",
            "ｅ",
            "１",
            "日",
            "本",
            "検",
            "々",
            "の",
            "ガ",
            "ー",
            "・",
            "。",
            "\u{3099}",
            "ｶ",
            "한",
            "ㅋ",
            "\u{20b9f}",
            "豈",
        ]);
        let texts = prop::collection::vec(alphabet, 0..60).prop_map(|parts| parts.concat());
        let mut runner = proptest::test_runner::TestRunner::default();
        runner
            .run(&texts, |text| {
                let mut t = Tokenizer::new().unwrap();
                let got = triples(&mut t, text.as_bytes(), true);
                if !text.chars().any(is_cjk) {
                    let want = triples(&mut t, text.as_bytes(), false);
                    prop_assert_eq!(got, want, "text {:?}", text);
                    return Ok(());
                }
                let spaced: String = text
                    .chars()
                    .map(|c| match is_cjk(c) {
                        true => format!(" {c} "),
                        false => c.to_string(),
                    })
                    .collect();
                let want: Vec<String> = triples(&mut t, spaced.as_bytes(), false)
                    .into_iter()
                    .map(|(token, ..)| token)
                    .collect();
                let tokens: Vec<String> = got.iter().map(|(token, ..)| token.clone()).collect();
                prop_assert_eq!(&tokens, &want, "text {:?}", text);
                let mut after = 0;
                for (token, start, end) in &got {
                    prop_assert!(after <= *start && start < end, "{:?} in {:?}", got, text);
                    let cjk = token.chars().next().is_some_and(is_cjk);
                    prop_assert!(!cjk || text[*start..*end] == **token, "{:?}", got);
                    after = *end;
                }
                Ok(())
            })
            .unwrap();
    }

    /// Bytes that are not UTF-8 (FTS5 hands a blob's as they are) go to `unicode61` with the
    /// run around them: no panic, and the CJK characters beside them are still tokens.
    #[test]
    fn bytes_that_are_not_utf8_are_tokenized_as_unicode61_does() {
        let mut t = Tokenizer::new().unwrap();
        let text = b"ab\xff\xfecd \xe6\x97\xa5\xe6\x9c\xac\xe2\x82 x\xe6\x97";
        let tokens: Vec<String> = triples(&mut t, text, true)
            .into_iter()
            .map(|(token, ..)| token)
            .collect();
        let mut want: Vec<String> = triples(&mut t, b"ab\xff\xfecd ", false)
            .into_iter()
            .map(|(token, ..)| token)
            .collect();
        want.extend(["日".to_owned(), "本".to_owned()]);
        want.extend(
            triples(&mut t, b"\xe2\x82 x\xe6\x97", false)
                .into_iter()
                .map(|(token, ..)| token),
        );
        assert_eq!(tokens, want);
    }

    /// The tokenizer as first written (a byte at a time, a call per piece), kept as the
    /// yardstick the fast one must equal: the same tokens, offsets and result code. (Its
    /// pieces beyond ASCII go to today's [`mixed`], whose one change, skipping pieces that
    /// cannot hold a CJK letter, the comparison with `unicode61` above checks.)
    mod first {
        use super::super::*;

        pub fn tokenize<F>(u61: &mut Unicode61, flags: c_int, text: &[u8], emit: &mut F) -> c_int
        where
            F: FnMut(&[u8], usize, usize) -> c_int,
        {
            let mut folded = Vec::new();
            let mut piece = |start: usize, end: usize, ascii: bool, upper: bool| {
                if start == end {
                    ffi::SQLITE_OK
                } else if !ascii {
                    mixed(u61, flags, text, start, end, emit)
                } else if upper {
                    folded.clear();
                    folded.extend_from_slice(&text[start..end]);
                    folded.make_ascii_lowercase();
                    emit(&folded, start, end)
                } else {
                    emit(&text[start..end], start, end)
                }
            };
            let (mut start, mut ascii, mut upper) = (0, true, false);
            for (i, &b) in text.iter().enumerate() {
                if b.is_ascii_alphanumeric() {
                    upper |= b.is_ascii_uppercase();
                } else if !b.is_ascii() {
                    ascii = false;
                } else {
                    ok!(piece(start, i, ascii, upper));
                    (start, ascii, upper) = (i + 1, true, false);
                }
            }
            piece(start, text.len(), ascii, upper)
        }
    }

    /// Every token (its bytes), its span, and the result code, of `text` through the fast
    /// tokenizer or the first one, with the callback failing at token `stop` (as FTS5's may).
    type Run = (Vec<(Vec<u8>, usize, usize)>, c_int);

    fn run(t: &mut Tokenizer, text: &[u8], stop: usize, fast: bool) -> Run {
        let mut out = Vec::new();
        let mut emit = |token: &[u8], start: usize, end: usize| {
            if out.len() == stop {
                return ffi::SQLITE_ABORT;
            }
            out.push((token.to_vec(), start, end));
            ffi::SQLITE_OK
        };
        let flags = ffi::FTS5_TOKENIZE_DOCUMENT;
        let rc = match fast {
            true => tokenize(&mut t.u61, flags, text, &mut emit),
            false => first::tokenize(&mut t.u61, flags, text, &mut emit),
        };
        (out, rc)
    }

    /// Pieces of text as FTS5 may hand them: every ASCII byte (or, without `separators`, only
    /// letters, digits and a space: long words, across the scan's 64-byte blocks), letters of
    /// many scripts, CJK letters and punctuation, and bytes that are not UTF-8 (lone
    /// continuation and lead bytes, cut sequences, an overlong form, an encoded surrogate,
    /// 0xFF).
    fn pieces(separators: bool) -> Vec<Vec<u8>> {
        let mut pieces: Vec<Vec<u8>> = (0..128u8)
            .filter(|b| separators || b.is_ascii_alphanumeric() || *b == b' ')
            .map(|b| vec![b])
            .collect();
        for word in [
            "Ab",
            "parseConfig7",
            "x",
            "HTTP",
            "é",
            "É",
            "İ",
            "ß",
            "ω",
            "Ж",
            "ﬁ",
        ] {
            pieces.push(word.as_bytes().to_vec());
        }
        for c in
            "\u{301}\u{a0}™—😀ⅫＷｅ１日本検々のガー・。\u{3099}ｶ한ㅋ\u{20b9f}豈\u{fffd}".chars()
        {
            pieces.push(c.to_string().into_bytes());
        }
        let bad: [&[u8]; 9] = [
            b"\x80",
            b"\xbf",
            b"\xc3",
            b"\xe6\x97",
            b"\xe3",
            b"\xf0\x9f\x98",
            b"\xc0\x80",
            b"\xed\xa0\x80",
            b"\xff",
        ];
        pieces.extend(bad.iter().map(|b| b.to_vec()));
        pieces
    }

    /// The fast tokenizer hands FTS5 exactly what the first one did (tokens, offsets, result
    /// code, where the callback fails), on random mixes of [`pieces`], short and long.
    #[test]
    fn the_fast_tokenizer_equals_the_first_one() {
        use proptest::prelude::*;
        let t = std::cell::RefCell::new(Tokenizer::new().unwrap());
        let runs = [
            (true, 0..80, 2048),
            (true, 0..6000, 48),
            (false, 0..400, 512),
        ];
        for (separators, parts, cases) in runs {
            let texts = prop::collection::vec(prop::sample::select(pieces(separators)), parts)
                .prop_map(|parts| parts.concat());
            let config = proptest::test_runner::Config {
                cases,
                ..Default::default()
            };
            proptest::test_runner::TestRunner::new(config)
                .run(&(texts, any::<prop::sample::Index>()), |(text, stop)| {
                    let t = &mut *t.borrow_mut();
                    let want = run(t, &text, usize::MAX, false);
                    let got = run(t, &text, usize::MAX, true);
                    prop_assert_eq!(&got, &want, "text {:?}", text);
                    // Failing at some token: the same tokens before it, and its code.
                    let stop = stop.index(want.0.len() + 1);
                    let want = run(t, &text, stop, false);
                    prop_assert_eq!(run(t, &text, stop, true), want, "text {:?}", text);
                    Ok(())
                })
                .unwrap();
        }
    }

    /// Words of every length up to three blocks, at every offset in a block, with an uppercase
    /// letter or a byte beyond ASCII at their start, middle or end, are cut as before.
    #[test]
    fn words_across_the_scans_blocks_are_cut_as_before() {
        let mut t = Tokenizer::new().unwrap();
        for offset in 0..=BLOCK + 2 {
            for len in
                (1..=3 * BLOCK + 1).filter(|l| *l < 5 || l % BLOCK < 3 || BLOCK - l % BLOCK < 3)
            {
                for odd in ["", "Q", "é", "\u{ff}"] {
                    for at in [0, len / 2, len - 1] {
                        let mut word = "a".repeat(len);
                        word.replace_range(at..at + 1, odd);
                        let text = format!("{}{word}.7Z", "-".repeat(offset));
                        let want = run(&mut t, text.as_bytes(), usize::MAX, false);
                        let got = run(&mut t, text.as_bytes(), usize::MAX, true);
                        assert_eq!(got, want, "{text:?}");
                    }
                }
            }
        }
    }

    /// Every byte value, alone and between words of each kind, is cut and folded as before.
    #[test]
    fn every_byte_is_cut_as_before() {
        let mut t = Tokenizer::new().unwrap();
        for b in 0..=255u8 {
            for (before, after) in [("", ""), ("aB", "Cd"), ("é", "日"), ("日", "x\u{301}")] {
                let text = [before.as_bytes(), &[b], after.as_bytes(), &[b, b]].concat();
                let want = run(&mut t, &text, usize::MAX, false);
                assert_eq!(run(&mut t, &text, usize::MAX, true), want, "{text:?}");
            }
        }
    }
}
