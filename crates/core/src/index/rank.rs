//! Ranking without BM25's walk over the whole history. FTS5's `bm25()` counts, for every query,
//! how many rows hold each phrase by walking that phrase's whole doclist (positions and all
//! for a phrase of several words): work in proportion to the history, most of a search's time
//! at 1 GB for phrases of common words (`docs/performance.md`). `as_bm25` is the same formula
//! (k1 1.2, b 0.75, every column weighted 1, FTS5's floor on a negative IDF) with each
//! phrase's document frequency estimated by the caller from a bounded window of the newest rows
//! ([`super::Index`]'s `frequencies`): exact when the window is the whole table.
//!
//! Called as `as_bm25(fts, ROWS, COUNT0, COUNT1, …)` (or as FTS5's rank function, `rank MATCH
//! 'as_bm25(ROWS, …)'`): `ROWS` is how many rows the window has, `COUNTi` how many of them hold
//! phrase `i` (FTS5's phrase order, left to right). Lower is better, as with `bm25()`. A call
//! whose counts do not match the query's phrases weighs every phrase alike rather than fail the
//! search. `as_bm25(fts, ROWS, COUNT0, …, TABLE_ROWS, TABLE_TOKENS)` scores as if the table had
//! that many rows and tokens: the index's shards are tables of their own whose scores are
//! compared with each other, so each is scored with the rows and tokens of them all (one
//! shard's mean row length was 14 tokens, the other's 84: the same message scored 0.48 in one
//! and 1.33 in the other).
//!
//! rusqlite does not wrap FTS5's C API (see `tokens.rs`), so this is a small unsafe binding;
//! the function never panics (an unwind cannot cross the C boundary): errors become SQLite
//! error codes.

use std::ffi::{c_int, c_void};
use std::ptr;

use rusqlite::ffi;
use rusqlite::Connection;

use super::tokens::fts5_api;

/// The function's name, as the rank expression spells it.
pub const FUNCTION: &str = "as_bm25";

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// What a query's calls share (FTS5 keeps it with the query, `xSetAuxdata`): each phrase's
/// IDF, the mean row length, and room for one row's phrase frequencies.
struct Shared {
    idf: Vec<f64>,
    avgdl: f64,
    freq: Vec<f64>,
}

/// Registers `as_bm25` on `conn` (each connection that searches needs it).
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let api = fts5_api(conn)?;
    // SAFETY: `api` is the live connection's; the function has no user data to free, and the
    // name is copied by FTS5.
    unsafe {
        let Some(create) = (*api).xCreateFunction else {
            return Err(rusqlite::Error::SqliteFailure(
                ffi::Error::new(ffi::SQLITE_ERROR),
                Some("FTS5 has no xCreateFunction".into()),
            ));
        };
        let rc = create(
            api,
            c"as_bm25".as_ptr(),
            ptr::null_mut(),
            Some(as_bm25),
            None,
        );
        if rc != ffi::SQLITE_OK {
            return Err(rusqlite::Error::SqliteFailure(
                ffi::Error::new(rc),
                Some("cannot register the rank function".into()),
            ));
        }
    }
    Ok(())
}

/// The IDF FTS5's `bm25()` gives a phrase in `hits` of `rows` rows.
fn idf(rows: f64, hits: f64) -> f64 {
    let idf = ((rows - hits + 0.5) / (hits + 0.5)).ln();
    if idf <= 0.0 {
        1e-6
    } else {
        idf
    }
}

unsafe extern "C" fn as_bm25(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n: c_int,
    args: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 calls with its live API, context and `n` arguments.
    let args: &[*mut ffi::sqlite3_value] = if n > 0 && !args.is_null() {
        std::slice::from_raw_parts(args, n as usize)
    } else {
        &[]
    };
    match score(&*api, fts, args) {
        Ok(score) => ffi::sqlite3_result_double(ctx, -score),
        Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
    }
}

unsafe extern "C" fn free_shared(p: *mut c_void) {
    // SAFETY: set by `shared` from a `Box<Shared>`, freed once by FTS5.
    drop(Box::from_raw(p.cast::<Shared>()));
}

/// Calls one of the API's functions, or fails if this FTS5 lacks it.
macro_rules! call {
    ($api:expr, $f:ident ( $($arg:expr),* )) => {
        match $api.$f {
            Some(f) => f($($arg),*),
            None => return Err(ffi::SQLITE_ERROR),
        }
    };
}

/// The query's [`Shared`], made at its first row.
unsafe fn shared<'a>(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    args: &[*mut ffi::sqlite3_value],
) -> Result<&'a mut Shared, c_int> {
    let existing = call!(api, xGetAuxdata(fts, 0)).cast::<Shared>();
    if !existing.is_null() {
        return Ok(&mut *existing);
    }
    let phrases = usize::try_from(call!(api, xPhraseCount(fts))).unwrap_or(0);
    let (mut rows, mut tokens) = (0i64, 0i64);
    check(call!(api, xRowCount(fts, &mut rows)))?;
    check(call!(api, xColumnTotalSize(fts, -1, &mut tokens)))?;
    let value = |i: usize| ffi::sqlite3_value_double(args[i]);
    let whole = args.len() == phrases + 3;
    if whole {
        rows = ffi::sqlite3_value_int64(args[phrases + 1]);
        tokens = ffi::sqlite3_value_int64(args[phrases + 2]);
    }
    let total = rows.max(1) as f64;
    let idf = if (args.len() == phrases + 1 || whole) && value(0) >= 1.0 {
        // A window's share of rows holding the phrase, scaled to the table.
        (1..=phrases)
            .map(|i| idf(total, value(i).clamp(0.0, value(0)) / value(0) * total))
            .collect()
    } else {
        vec![1.0; phrases]
    };
    let shared = Box::into_raw(Box::new(Shared {
        idf,
        avgdl: tokens.max(1) as f64 / total,
        freq: vec![0.0; phrases],
    }));
    let rc = call!(api, xSetAuxdata(fts, shared.cast(), Some(free_shared)));
    // On failure FTS5 has already freed it.
    check(rc)?;
    Ok(&mut *shared)
}

fn check(rc: c_int) -> Result<(), c_int> {
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rc)
    }
}

/// The row's BM25 score (higher is better), as FTS5's `bm25()` computes it.
unsafe fn score(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    args: &[*mut ffi::sqlite3_value],
) -> Result<f64, c_int> {
    let shared = shared(api, fts, args)?;
    shared.freq.iter_mut().for_each(|f| *f = 0.0);
    let mut instances = 0;
    check(call!(api, xInstCount(fts, &mut instances)))?;
    for i in 0..instances {
        let (mut phrase, mut column, mut offset) = (0, 0, 0);
        check(call!(
            api,
            xInst(fts, i, &mut phrase, &mut column, &mut offset)
        ))?;
        if let Some(f) = usize::try_from(phrase)
            .ok()
            .and_then(|p| shared.freq.get_mut(p))
        {
            *f += 1.0;
        }
    }
    let mut length = 0;
    check(call!(api, xColumnSize(fts, -1, &mut length)))?;
    let norm = K1 * (1.0 - B + B * f64::from(length) / shared.avgdl);
    Ok(shared
        .idf
        .iter()
        .zip(&shared.freq)
        .map(|(idf, f)| idf * (f * (K1 + 1.0)) / (f + norm))
        .sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        super::super::tokens::register(&conn).unwrap();
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE t USING fts5(title, body, tokenize = '{}');",
            super::super::TOKENIZER
        ))
        .unwrap();
        let words = [
            "alpha",
            "beta",
            "gamma",
            "delta",
            "alpha beta",
            "omega",
            "kappa",
            "sigma",
            "tau",
            "rho",
            "zeta",
            "eta",
        ];
        for i in 0..300u64 {
            // A small LCG: rows of 2-6 words in varied mixes.
            let mut x = i
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let body: Vec<&str> = (0..(i % 5 + 2))
                .map(|_| {
                    // The smaller of two picks: early words common, late ones rare.
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                    let a = (x >> 33) % words.len() as u64;
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                    words[a.min((x >> 33) % words.len() as u64) as usize]
                })
                .collect();
            conn.execute(
                "INSERT INTO t (title, body) VALUES (?1, ?2)",
                [format!("title {}", words[(i % 6) as usize]), body.join(" ")],
            )
            .unwrap();
        }
        conn
    }

    /// The rank expression for a window of `rows` rows in which phrase `i` is in `counts[i]`.
    fn expression(rows: i64, counts: &[i64]) -> String {
        let mut args = vec![rows.to_string()];
        args.extend(counts.iter().map(i64::to_string));
        format!("{FUNCTION}({})", args.join(", "))
    }

    fn count(conn: &Connection, phrase: &str) -> i64 {
        conn.query_row("SELECT count(*) FROM t WHERE t MATCH ?1", [phrase], |r| {
            r.get(0)
        })
        .unwrap()
    }

    /// With the whole table as the window, `as_bm25` is `bm25()`, row for row.
    #[test]
    fn exact_counts_give_bm25() {
        let conn = table();
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        for (query, phrases) in [
            ("\"kappa\"", vec!["\"kappa\""]),
            (
                "\"alpha beta\" \"sigma\"",
                vec!["\"alpha beta\"", "\"sigma\""],
            ),
            ("\"zeta\" OR \"gamma\"", vec!["\"zeta\"", "\"gamma\""]),
            (
                "(\"tau\" OR \"rho\") AND \"delta\"",
                vec!["\"tau\"", "\"rho\"", "\"delta\""],
            ),
        ] {
            let counts: Vec<i64> = phrases.iter().map(|p| count(&conn, p)).collect();
            let ours = expression(rows, &counts);
            let mut stmt = conn
                .prepare(&format!(
                    "SELECT rowid, bm25(t), rank, {FUNCTION}(t, {}) FROM t
                     WHERE t MATCH ?1 AND rank MATCH ?2 ORDER BY rank",
                    std::iter::once(rows)
                        .chain(counts.iter().copied())
                        .map(|n| n.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .unwrap();
            let got: Vec<(i64, f64, f64)> = stmt
                .query_map([query, ours.as_str()], |r| {
                    // Called as a function, it gives what it gives as the rank.
                    let called: f64 = r.get(3)?;
                    assert_eq!(called, r.get::<_, f64>(2)?);
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert!(got.len() > 10, "{query}: {} rows", got.len());
            for (row, bm25, rank) in &got {
                assert!(
                    (bm25 - rank).abs() < 1e-9,
                    "{query} row {row}: {bm25} vs {rank}"
                );
            }
            // And in bm25's order (ties and the last bits of rounding aside).
            assert!(got.windows(2).all(|w| w[0].1 <= w[1].1 + 1e-12), "{query}");
            // The weights differ between phrases (no IDF at its floor), so they matter.
            let distinct: std::collections::BTreeSet<i64> =
                got.iter().map(|g| (g.1 * 1000.0) as i64).collect();
            assert!(distinct.len() > 3, "{query}: {distinct:?}");
        }
    }

    /// Counts that do not fit the query (or no window) weigh the phrases alike; nothing fails.
    #[test]
    fn counts_that_do_not_fit_are_harmless() {
        let conn = table();
        for rank in [
            "as_bm25()",
            "as_bm25(0, 1)",
            "as_bm25(10, 1, 2, 3)",
            "as_bm25(5, 99)",
        ] {
            let n: i64 = conn
                .query_row(
                    "SELECT count(*) FROM (SELECT rank FROM t WHERE t MATCH 'alpha' AND rank MATCH ?1 ORDER BY rank)",
                    [rank],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(n, count(&conn, "alpha"), "{rank}");
        }
    }
}
