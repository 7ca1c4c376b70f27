//! Transports: what carries the protocol's bytes. A transport opens a [`Stream`] (bytes each
//! way, plus the [`Link`] that keeps it alive and can say why it ended); the client opens
//! another after a dropped connection. Three exist: the system `ssh` ([`crate::ssh`]),
//! `wsl.exe` ([`crate::wsl`]) and [`Memory`], a server on a thread of this process for tests.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;

use crate::error::Error;

/// One connection's bytes.
pub struct Stream {
    pub reader: Box<dyn Read + Send>,
    pub writer: Box<dyn Write + Send>,
    pub link: Box<dyn Link>,
}

/// What keeps a connection alive (a child process, a thread), owned with its stream.
pub trait Link: Send {
    /// Why the connection ended, once its reader saw the end (a child's stderr and status).
    fn failure(&mut self) -> Option<Error>;
}

/// Opens connections to one host.
pub trait Transport: Send + Sync {
    fn open(&self) -> Result<Stream, Error>;
    /// The host's name, for messages.
    fn host(&self) -> String;
}

/// A shared transport (a test keeps a handle to cut its connections).
impl<T: Transport> Transport for Arc<T> {
    fn open(&self) -> Result<Stream, Error> {
        (**self).open()
    }

    fn host(&self) -> String {
        (**self).host()
    }
}

/// A server on a thread of this process, over a pipe pair: the protocol without a network, so
/// the client and server are tested together. `cut` drops every open connection (a test's
/// stand-in for a killed ssh).
pub struct Memory {
    serve: Arc<dyn Fn(PipeReader, PipeWriter) + Send + Sync>,
    cut: std::sync::Mutex<Vec<Arc<AtomicBool>>>,
}

impl Memory {
    /// Each connection runs `serve` on a new thread with its ends of the pipes.
    pub fn new(serve: impl Fn(PipeReader, PipeWriter) + Send + Sync + 'static) -> Self {
        Memory {
            serve: Arc::new(serve),
            cut: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Breaks every connection opened so far: their readers fail as a dropped link does.
    pub fn cut(&self) {
        for flag in crate::server_lock(&self.cut).drain(..) {
            flag.store(true, Ordering::SeqCst);
        }
    }
}

struct NoLink;

impl Link for NoLink {
    fn failure(&mut self) -> Option<Error> {
        None
    }
}

impl Transport for Memory {
    fn open(&self) -> Result<Stream, Error> {
        let (to_server, server_in) = pipe();
        let (server_out, mut from_server) = pipe();
        let cut = Arc::new(AtomicBool::new(false));
        from_server.cut = Some(cut.clone());
        crate::server_lock(&self.cut).push(cut);
        let serve = self.serve.clone();
        std::thread::spawn(move || serve(server_in, server_out));
        Ok(Stream {
            reader: Box::new(from_server),
            writer: Box::new(to_server),
            link: Box::new(NoLink),
        })
    }

    fn host(&self) -> String {
        "memory".into()
    }
}

/// One direction of an in-process pipe: writes are chunks on a channel; dropping the writer
/// ends the reader's stream.
pub fn pipe() -> (PipeWriter, PipeReader) {
    let (tx, rx) = mpsc::channel();
    (
        PipeWriter(tx),
        PipeReader {
            rx,
            pending: Vec::new(),
            at: 0,
            cut: None,
        },
    )
}

pub struct PipeWriter(Sender<Vec<u8>>);

pub struct PipeReader {
    rx: Receiver<Vec<u8>>,
    pending: Vec<u8>,
    at: usize,
    cut: Option<Arc<AtomicBool>>,
}

impl Write for PipeWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .send(buf.to_vec())
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the reader is gone"))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl PipeReader {
    fn is_cut(&self) -> bool {
        self.cut.as_ref().is_some_and(|c| c.load(Ordering::SeqCst))
    }
}

impl Read for PipeReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.pending.len() {
            if self.is_cut() {
                return Err(io::Error::new(
                    io::ErrorKind::ConnectionReset,
                    "connection cut",
                ));
            }
            match self.rx.recv_timeout(Duration::from_millis(20)) {
                Ok(chunk) => {
                    self.pending = chunk;
                    self.at = 0;
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Ok(0),
            }
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_carries_bytes_and_ends_when_the_writer_drops() {
        let (mut w, mut r) = pipe();
        w.write_all(b"hello ").unwrap();
        w.write_all(b"world").unwrap();
        drop(w);
        let mut got = String::new();
        r.read_to_string(&mut got).unwrap();
        assert_eq!(got, "hello world");
    }
}
