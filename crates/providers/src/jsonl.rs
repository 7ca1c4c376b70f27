//! Line iteration shared by the JSONL-based providers (Claude Code, Codex).
//!
//! Streams a file from a byte offset with a reused buffer, so memory stays bounded whatever the
//! file size; a line longer than [`MAX_LINE`] is skipped (and reported) rather than buffered; a
//! last line without its newline is handed out as `partial`, because a live agent may be halfway
//! through writing it.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use agent_sessions_model::{Diagnostic, Diagnostics, ProviderKind};

/// The longest line kept in memory. Longer lines are skipped with a diagnostic.
pub const MAX_LINE: usize = 64 << 20;

/// One line of a JSONL file.
#[derive(Debug)]
pub struct Line<'a> {
    /// The bytes without the trailing newline (and without a `\r` before it).
    pub bytes: &'a [u8],
    /// Byte offset of the line's start in the file.
    pub offset: u64,
    /// 1-based line number.
    pub number: u64,
    /// The line had no newline: the file ended in the middle of it.
    pub partial: bool,
    /// The line was longer than [`MAX_LINE`]; `bytes` is empty.
    pub too_long: bool,
}

/// Reads a JSONL file line by line from a starting offset.
pub struct LineReader<R> {
    reader: BufReader<R>,
    buf: Vec<u8>,
    /// Offset of the next unread byte.
    offset: u64,
    /// Number of lines read so far (the last line's number).
    number: u64,
    max_line: usize,
    /// The previous read ended on a line without its newline: a newline arriving now ends that
    /// line rather than starting an empty one.
    mid_line: bool,
}

impl LineReader<File> {
    /// Opens `path` read-only and positions it at `offset`, whose line is number `number + 1`.
    pub fn open_at(path: &Path, offset: u64, number: u64) -> io::Result<Self> {
        let mut file = super::files::open_regular(path)?;
        if offset > 0 {
            file.seek(SeekFrom::Start(offset))?;
        }
        Ok(Self::new(file, offset, number))
    }

    /// Like [`LineReader::open_at`], resuming after a scan that consumed a final line that had
    /// no newline yet (see [`LineReader::ended_mid_line`]).
    pub fn resume_at(path: &Path, offset: u64, number: u64, mid_line: bool) -> io::Result<Self> {
        let mut reader = Self::open_at(path, offset, number)?;
        reader.mid_line = mid_line;
        Ok(reader)
    }
}

impl<R: Read> LineReader<R> {
    pub fn new(inner: R, offset: u64, number: u64) -> Self {
        LineReader {
            reader: BufReader::with_capacity(256 << 10, inner),
            buf: Vec::new(),
            offset,
            number,
            max_line: MAX_LINE,
            mid_line: false,
        }
    }

    pub fn with_max_line(mut self, max_line: usize) -> Self {
        self.max_line = max_line;
        self
    }

    /// The offset just past the last line returned.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The number of the last line returned.
    pub fn line_number(&self) -> u64 {
        self.number
    }

    /// The last line returned had no newline (and was not taken back with `unread`).
    pub fn ended_mid_line(&self) -> bool {
        self.mid_line
    }

    /// The next line, or `None` at the end of the file. Empty lines are skipped.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        loop {
            self.buf.clear();
            let start = self.offset;
            let (consumed, terminated, too_long) = self.read_raw_line()?;
            if consumed == 0 {
                return Ok(None);
            }
            self.offset += consumed;
            let mut end = self.buf.len();
            if terminated && end > 0 && self.buf[end - 1] == b'\r' {
                end -= 1;
            }
            let was_mid_line = std::mem::replace(&mut self.mid_line, !terminated);
            if was_mid_line && terminated && end == 0 && !too_long {
                // The newline that ends the line handed out last time.
                continue;
            }
            self.number += 1;
            if !too_long && self.buf[..end].iter().all(u8::is_ascii_whitespace) {
                if terminated {
                    continue;
                }
                // Trailing whitespace without newline: nothing to hand out yet.
                self.offset = start;
                self.number -= 1;
                self.mid_line = was_mid_line;
                return Ok(None);
            }
            return Ok(Some(Line {
                bytes: &self.buf[..end],
                offset: start,
                number: self.number,
                partial: !terminated,
                too_long,
            }));
        }
    }

    /// Takes back the last line: the next scan should start at it again.
    pub fn unread(&mut self, line_offset: u64) {
        self.offset = line_offset;
        self.number = self.number.saturating_sub(1);
        self.mid_line = false;
    }

    /// Reads up to and including the next newline into `buf` (unless it grows past the limit).
    /// Returns (bytes consumed, ended with a newline, was too long).
    fn read_raw_line(&mut self) -> io::Result<(u64, bool, bool)> {
        let mut consumed = 0u64;
        let mut too_long = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok((consumed, false, too_long));
            }
            let (chunk, found) = match memchr::memchr(b'\n', available) {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if !too_long {
                if self.buf.len() + chunk.len() > self.max_line {
                    too_long = true;
                    self.buf = Vec::new();
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            let used = found.unwrap_or(available.len());
            self.reader.consume(used);
            consumed += used as u64;
            if found.is_some() {
                return Ok((consumed, true, too_long));
            }
        }
    }
}

/// A problem on one line of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineProblem {
    pub line: u64,
    pub reason: String,
}

/// Problems met in one file: all counted, the first few kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineProblems {
    pub count: u64,
    pub items: Vec<LineProblem>,
}

impl LineProblems {
    /// Problems kept per file (all are counted).
    pub const KEPT: usize = 20;

    pub fn push(&mut self, line: u64, reason: String) {
        self.count += 1;
        if self.items.len() < Self::KEPT {
            self.items.push(LineProblem { line, reason });
        }
    }

    /// Adds these problems to a report about `path`.
    pub fn report(&self, provider: ProviderKind, path: &Path, out: &mut Diagnostics) {
        for p in &self.items {
            out.push(Diagnostic {
                provider,
                path: path.to_path_buf(),
                line: Some(p.line),
                reason: p.reason.clone(),
            });
        }
        out.parse_errors += self.count - self.items.len() as u64;
    }
}

/// Where a file's scan stopped, with the running summary `acc` of everything before it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cursor<A> {
    pub offset: u64,
    pub lines: u64,
    /// The last record read had no newline after it yet.
    pub mid_line: bool,
    pub problems: LineProblems,
    pub acc: A,
}

/// Reads `path` from `cursor` to its end, handing each complete line to `fold`, which returns
/// `Err(reason)` for a line that is not a record. A half-written last line that does not decode
/// is left for the next scan; other bad lines are counted as problems.
pub fn fold_file<A>(
    path: &Path,
    mut cursor: Cursor<A>,
    mut fold: impl FnMut(&mut A, &[u8]) -> Result<(), String>,
) -> io::Result<Cursor<A>> {
    let mut reader = LineReader::resume_at(path, cursor.offset, cursor.lines, cursor.mid_line)?;
    while let Some(line) = reader.next_line()? {
        if line.too_long {
            cursor
                .problems
                .push(line.number, "line longer than 64 MiB skipped".into());
            continue;
        }
        match fold(&mut cursor.acc, line.bytes) {
            Ok(()) => {}
            Err(_) if line.partial => {
                let at = line.offset;
                reader.unread(at);
                break;
            }
            Err(reason) => cursor.problems.push(line.number, reason),
        }
    }
    cursor.offset = reader.offset();
    cursor.lines = reader.line_number();
    cursor.mid_line = reader.ended_mid_line();
    Ok(cursor)
}

/// Hands every complete record of a whole file to `each` as JSON (with its byte offset and line
/// number), for transcript loading. Bad lines become diagnostics; a half-written last line ends
/// the read quietly.
pub fn for_each_record(
    provider: ProviderKind,
    path: &Path,
    each: impl FnMut(&serde_json::Value, u64, u64),
) -> Result<Diagnostics, crate::error::Error> {
    for_each_record_from(provider, path, 0, 0, each)
}

/// [`for_each_record`] from `offset`, a line start preceded by `lines` lines (to read only the
/// end of a growing file).
pub fn for_each_record_from(
    provider: ProviderKind,
    path: &Path,
    offset: u64,
    lines: u64,
    mut each: impl FnMut(&serde_json::Value, u64, u64),
) -> Result<Diagnostics, crate::error::Error> {
    let io = |e| crate::error::Error::io(path, e);
    let mut diagnostics = Diagnostics::default();
    let mut reader = LineReader::open_at(path, offset, lines).map_err(io)?;
    while let Some(line) = reader.next_line().map_err(io)? {
        let problem = |reason: String| Diagnostic {
            provider,
            path: path.to_path_buf(),
            line: Some(line.number),
            reason,
        };
        if line.too_long {
            diagnostics.push(problem("line longer than 64 MiB skipped".into()));
            continue;
        }
        match parse_line::<serde_json::Value>(line.bytes) {
            Ok(value) => each(&value, line.offset, line.number),
            Err(_) if line.partial => break,
            Err(reason) => diagnostics.push(problem(reason)),
        }
    }
    Ok(diagnostics)
}

/// Decodes one JSON line. Invalid UTF-8 and lone UTF-16 surrogates, which real transcripts
/// contain (tool output cut mid-character), are repaired to U+FFFD instead of losing the record.
pub fn parse_line<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let mut scratch = Vec::new();
    parse_line_borrowed(bytes, &mut scratch)
}

/// [`parse_line`] for types that borrow from the line; a repaired copy lives in `scratch`.
pub fn parse_line_borrowed<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
    scratch: &'a mut Vec<u8>,
) -> Result<T, String> {
    let first = match serde_json::from_slice(bytes) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let Some(repaired) = repair(bytes) else {
        return Err(describe(&first));
    };
    *scratch = repaired;
    let scratch: &'a Vec<u8> = scratch;
    serde_json::from_slice(scratch).map_err(|_| describe(&first))
}

fn describe(e: &serde_json::Error) -> String {
    match e.classify() {
        serde_json::error::Category::Eof => format!("truncated JSON ({e})"),
        _ => format!("invalid JSON ({e})"),
    }
}

/// Rewrites invalid UTF-8 and unpaired `\uD800`–`\uDFFF` escapes as U+FFFD. `None` when there is
/// nothing to repair.
fn repair(bytes: &[u8]) -> Option<Vec<u8>> {
    let text = String::from_utf8_lossy(bytes);
    let fixed = replace_lone_surrogates(&text);
    match (&text, fixed) {
        (std::borrow::Cow::Borrowed(_), None) => None,
        (_, Some(f)) => Some(f.into_bytes()),
        (std::borrow::Cow::Owned(t), None) => Some(t.clone().into_bytes()),
    }
}

fn replace_lone_surrogates(text: &str) -> Option<String> {
    if !text.contains("\\u") && !text.contains("\\U") {
        return None;
    }
    // Built as bytes: every cut is at an ASCII `\`, so the result is UTF-8 again.
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(text.len());
    let mut changed = false;
    let mut i = 0;
    let mut last = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            // Count the run of backslashes: only an odd one starts an escape.
            let run_start = i;
            while i < bytes.len() && bytes[i] == b'\\' {
                i += 1;
            }
            let run = i - run_start;
            if run % 2 == 1 && i < bytes.len() && bytes[i] == b'u' {
                let esc_start = i - 1;
                if let Some(unit) = hex4(bytes, i + 1) {
                    if (0xD800..0xDC00).contains(&unit) {
                        let paired = bytes.get(i + 5) == Some(&b'\\')
                            && bytes.get(i + 6) == Some(&b'u')
                            && hex4(bytes, i + 7).is_some_and(|u| (0xDC00..0xE000).contains(&u));
                        if paired {
                            i += 11;
                            continue;
                        }
                    }
                    if (0xD800..0xE000).contains(&unit) {
                        out.extend_from_slice(&bytes[last..esc_start]);
                        out.extend_from_slice(b"\\uFFFD");
                        changed = true;
                        last = i + 5;
                    }
                    i += 5;
                }
            }
            continue;
        }
        i += 1;
    }
    if !changed {
        return None;
    }
    out.extend_from_slice(&bytes[last..]);
    String::from_utf8(out).ok()
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let s = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(s, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(data: &[u8]) -> Vec<(String, u64, u64, bool, bool)> {
        let mut r = LineReader::new(data, 0, 0).with_max_line(16);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push((
                String::from_utf8_lossy(l.bytes).into_owned(),
                l.offset,
                l.number,
                l.partial,
                l.too_long,
            ));
        }
        out
    }

    #[test]
    fn splits_lines_and_marks_partial_tail() {
        let got = lines(b"{\"a\":1}\r\n\n{\"b\":2}\n{\"c\"");
        assert_eq!(
            got,
            vec![
                ("{\"a\":1}".into(), 0, 1, false, false),
                ("{\"b\":2}".into(), 10, 3, false, false),
                ("{\"c\"".into(), 18, 4, true, false),
            ]
        );
    }

    #[test]
    fn skips_overlong_lines_without_buffering_them() {
        let got = lines(b"{\"long\":\"aaaaaaaaaaaaaaaaaaaaaa\"}\n{}\n");
        assert_eq!(got[0].0, "");
        assert!(got[0].4);
        assert_eq!(got[1], ("{}".into(), 34, 2, false, false));
    }

    #[test]
    fn repairs_lone_surrogates_and_bad_utf8() {
        let v: serde_json::Value = parse_line(br#"{"t":"a\ud800b"}"#).unwrap();
        assert_eq!(v["t"], "a\u{FFFD}b");
        let v: serde_json::Value = parse_line(br#"{"t":"\ud83d\ude00 \udc00"}"#).unwrap();
        assert_eq!(v["t"], "\u{1F600} \u{FFFD}");
        let v: serde_json::Value = parse_line(b"{\"t\":\"a\xffb\"}").unwrap();
        assert_eq!(v["t"], "a\u{FFFD}b");
        // An escaped backslash before `u` is not an escape.
        let v: serde_json::Value = parse_line(br#"{"t":"\\ud800"}"#).unwrap();
        assert_eq!(v["t"], "\\ud800");
    }

    #[test]
    fn reports_truncation_clearly() {
        let e = parse_line::<serde_json::Value>(br#"{"t":"abc"#).unwrap_err();
        assert!(e.starts_with("truncated JSON"), "{e}");
        let e = parse_line::<serde_json::Value>(b"nonsense").unwrap_err();
        assert!(e.starts_with("invalid JSON"), "{e}");
    }
}
