//! Reading and writing protocol lines. A line is read into a buffer of at most `cap` bytes: the
//! rest of a longer line is skipped unread (it is reported as [`Line::TooLong`]), so a peer
//! sending a gigabyte without a newline costs `cap` bytes of memory, never more.

use std::io::{self, BufRead, Write};

use serde::Serialize;

/// One line read.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// The line's bytes, without its newline (a last line without one counts too).
    Text(Vec<u8>),
    /// The line was longer than the cap; `len` bytes were skipped.
    TooLong { len: usize },
}

/// Reads lines of at most `cap` bytes from `input`.
pub struct LineReader<R> {
    input: R,
    cap: usize,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(input: R, cap: usize) -> Self {
        LineReader { input, cap }
    }

    /// The next line, or `None` at the end of the stream.
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut line = Vec::new();
        let mut len = 0usize;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                return Ok((len > 0).then(|| finish(line, len, self.cap)));
            }
            let newline = chunk.iter().position(|&b| b == b'\n');
            let take = newline.unwrap_or(chunk.len());
            if len + take <= self.cap {
                line.extend_from_slice(&chunk[..take]);
            } else {
                // Over the cap: stop keeping bytes (and free what was kept).
                line = Vec::new();
            }
            len += take;
            self.input.consume(take + usize::from(newline.is_some()));
            if newline.is_some() {
                return Ok(Some(finish(line, len, self.cap)));
            }
        }
    }
}

fn finish(line: Vec<u8>, len: usize, cap: usize) -> Line {
    if len > cap {
        Line::TooLong { len }
    } else {
        Line::Text(line)
    }
}

/// Writes `value` as one line and flushes it (the peer waits for whole lines).
pub fn write_line(out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    let mut bytes = serde_json::to_vec(value).map_err(io::Error::other)?;
    bytes.push(b'\n');
    out.write_all(&bytes)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], cap: usize) -> Vec<Line> {
        let mut r = LineReader::new(io::BufReader::with_capacity(7, input), cap);
        std::iter::from_fn(|| r.next_line().unwrap()).collect()
    }

    #[test]
    fn splits_lines_across_buffer_refills() {
        let got = lines(b"first line\nsecond\n\nlast", 100);
        assert_eq!(
            got,
            vec![
                Line::Text(b"first line".to_vec()),
                Line::Text(b"second".to_vec()),
                Line::Text(Vec::new()),
                Line::Text(b"last".to_vec()),
            ]
        );
    }

    #[test]
    fn a_line_over_the_cap_is_skipped_and_the_next_is_read() {
        let mut input = vec![b'x'; 50];
        input.extend_from_slice(b"\nok\n");
        let got = lines(&input, 10);
        assert_eq!(
            got,
            vec![Line::TooLong { len: 50 }, Line::Text(b"ok".to_vec())]
        );
    }

    #[test]
    fn a_line_of_exactly_the_cap_is_kept() {
        assert_eq!(lines(b"abcd\n", 4), vec![Line::Text(b"abcd".to_vec())]);
        assert_eq!(lines(b"abcde", 4), vec![Line::TooLong { len: 5 }]);
    }
}
