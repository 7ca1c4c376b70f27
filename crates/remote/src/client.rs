//! The client: one connection at a time over a [`Transport`], requests answered in order, and
//! a new connection when the link drops. A call that was cut off is sent again once on the new
//! connection (every call but `follow` is a read); a follower sends the cursor it kept, so it
//! resumes where it was and hears `truncated` when the server's window no longer reaches back
//! that far.

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::Path;
use std::thread::sleep;
use std::time::Duration;

use base64::Engine;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::lines::{write_line, Line, LineReader};
use crate::protocol::*;
use crate::transport::{Link, Transport};

/// New connections tried after a drop before giving up, and the wait before the first (doubled
/// each time).
const RECONNECT_TRIES: u32 = 6;
const RECONNECT_WAIT: Duration = Duration::from_millis(200);

struct Conn {
    reader: LineReader<BufReader<Box<dyn Read + Send>>>,
    writer: Box<dyn Write + Send>,
    link: Box<dyn Link>,
}

pub struct Client {
    transport: Box<dyn Transport>,
    conn: Option<Conn>,
    next_id: u64,
    /// Roots named by the caller, sent again on every new connection.
    roots: Option<RootsParams>,
    hello: Hello,
    /// Connections opened, the first included.
    pub connections: u32,
}

impl Client {
    /// Connects and reads the server's hello.
    pub fn connect(transport: Box<dyn Transport>) -> Result<Client, Error> {
        let mut client = Client {
            transport,
            conn: None,
            next_id: 1,
            roots: None,
            hello: Hello::ours(),
            connections: 0,
        };
        client.open()?;
        Ok(client)
    }

    /// What the server said of itself.
    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    pub fn host(&self) -> String {
        self.transport.host()
    }

    fn open(&mut self) -> Result<(), Error> {
        self.conn = None;
        let stream = self.transport.open()?;
        self.connections += 1;
        let mut conn = Conn {
            reader: LineReader::new(BufReader::new(stream.reader), MAX_REPLY_LINE),
            writer: stream.writer,
            link: stream.link,
        };
        let first = next_line(&mut conn, &self.transport.host())?;
        self.hello = check_hello(first, &self.transport.host())?;
        self.conn = Some(conn);
        if let Some(roots) = self.roots.clone() {
            self.request(method::ROOTS, json!(roots))?;
        }
        Ok(())
    }

    /// Reads `roots` on the server from now on (and after every reconnection).
    pub fn set_roots(&mut self, roots: RootsParams) -> Result<(), Error> {
        self.request(method::ROOTS, json!(roots))?;
        self.roots = Some(roots);
        Ok(())
    }

    /// Calls `method` and reads its result; sent once more on a new connection when the link
    /// dropped.
    pub fn call<R: DeserializeOwned>(
        &mut self,
        method: &str,
        params: impl Serialize,
    ) -> Result<R, Error> {
        let params = serde_json::to_value(params).map_err(|e| self.protocol(e.to_string()))?;
        let value = match self.request(method, params.clone()) {
            Err(e) if e.is_dropped() => {
                self.reconnect()?;
                self.request(method, params)?
            }
            other => other?,
        };
        serde_json::from_value(value).map_err(|e| self.protocol(format!("{method}: {e}")))
    }

    /// Sends a request and reads until its answer (events of other requests are dropped).
    fn request(&mut self, method: &str, params: Value) -> Result<Value, Error> {
        let id = self.send(method, params)?;
        loop {
            let line = self.read()?;
            if line.id != Some(id) || line.event.is_some() {
                continue;
            }
            return answer(line);
        }
    }

    fn send(&mut self, method: &str, params: Value) -> Result<u64, Error> {
        let id = self.next_id;
        self.next_id += 1;
        let request = Request {
            id,
            method: method.to_owned(),
            params,
        };
        let host = self.transport.host();
        let conn = self
            .conn
            .as_mut()
            .ok_or_else(|| closed(&host, "not connected"))?;
        if write_line(&mut *conn.writer, &request).is_err() {
            return Err(link_failure(conn, &host));
        }
        Ok(id)
    }

    fn read(&mut self) -> Result<ServerLine, Error> {
        let host = self.transport.host();
        let conn = self
            .conn
            .as_mut()
            .ok_or_else(|| closed(&host, "not connected"))?;
        let line = next_line(conn, &host)?;
        serde_json::from_slice(&line).map_err(|e| Error::Protocol {
            host,
            detail: format!("a line that is not a reply: {e}"),
        })
    }

    /// A new connection after a drop, tried a few times with growing waits.
    fn reconnect(&mut self) -> Result<(), Error> {
        let mut wait = RECONNECT_WAIT;
        let mut last = None;
        for _ in 0..RECONNECT_TRIES {
            match self.open() {
                Ok(()) => return Ok(()),
                Err(e) if e.is_dropped() => last = Some(e),
                Err(e) => return Err(e),
            }
            sleep(wait);
            wait *= 2;
        }
        Err(last.unwrap_or_else(|| closed(&self.transport.host(), "reconnecting failed")))
    }

    /// Follows a session from `cursor`: `on_event` gets every event line (return false to
    /// stop). Reconnects after a drop and resumes from the last cursor. Returns that cursor.
    pub fn follow(
        &mut self,
        mut params: FollowParams,
        on_event: &mut dyn FnMut(&FollowEvent) -> bool,
    ) -> Result<u64, Error> {
        loop {
            match self.follow_once(&mut params, on_event) {
                Ok(cursor) => return Ok(cursor),
                // `params.cursor` is the last event's: the new connection resumes there.
                Err(e) if e.is_dropped() => self.reconnect()?,
                Err(e) => return Err(e),
            }
        }
    }

    fn follow_once(
        &mut self,
        params: &mut FollowParams,
        on_event: &mut dyn FnMut(&FollowEvent) -> bool,
    ) -> Result<u64, Error> {
        // The server answers after the event that says the session ended.
        let end = self.stream(method::FOLLOW, json!(params), &mut |client, event| {
            let event: FollowEvent = serde_json::from_value(event)
                .map_err(|e| client.protocol(format!("follow event: {e}")))?;
            params.cursor = event.cursor;
            Ok(on_event(&event) || event.ended)
        })?;
        Ok(end["cursor"].as_u64().unwrap_or(params.cursor))
    }

    /// Watches the server's change feed from `cursor` (a `list`'s `seq`): `on_change` gets
    /// every change as it happens (return false to stop; a `reset` means list again).
    /// Reconnects after a drop and goes on from the last cursor (the new connection's feed
    /// answers that with a `reset`). Returns the last cursor. The connection is the watch's
    /// while it runs: make other calls on a `Client` of their own.
    pub fn watch(
        &mut self,
        mut cursor: u64,
        on_change: &mut dyn FnMut(&WatchEvent) -> bool,
    ) -> Result<u64, Error> {
        loop {
            let mut stopped = false;
            let run = self.stream(
                method::WATCH,
                json!(WatchParams { cursor }),
                &mut |client, event| {
                    let event: WatchEvent = serde_json::from_value(event)
                        .map_err(|e| client.protocol(format!("watch event: {e}")))?;
                    cursor = event.seq;
                    stopped = !on_change(&event);
                    Ok(!stopped)
                },
            );
            match run {
                Ok(_) => return Ok(cursor),
                Err(e) if e.is_dropped() && !stopped => self.reconnect()?,
                Err(e) => return Err(e),
            }
        }
    }

    /// Sends a streaming request and hands each of its events to `on_event` until its answer;
    /// when `on_event` says stop (false), the stream is cancelled and its answer awaited.
    fn stream(
        &mut self,
        method: &str,
        params: Value,
        on_event: &mut dyn FnMut(&Client, Value) -> Result<bool, Error>,
    ) -> Result<Value, Error> {
        let id = self.send(method, params)?;
        let mut cancelled = false;
        loop {
            let line = self.read()?;
            if line.id != Some(id) {
                continue;
            }
            let Some(event) = line.event else {
                return answer(line);
            };
            if cancelled {
                continue;
            }
            if !on_event(self, event)? {
                cancelled = true;
                self.send(method::CANCEL, json!(CancelParams { id }))?;
            }
        }
    }

    /// Makes a bundle of a session on the server and writes its bytes to `out`, checked
    /// against the size and SHA-256 the server sent. Not sent again after a drop (the bytes
    /// written so far are the caller's to throw away): the call fails with the link's error.
    pub fn bundle_export(
        &mut self,
        params: &BundleExportParams,
        out: &mut dyn Write,
    ) -> Result<BundleExported, Error> {
        let mut hasher = Sha256::new();
        let mut written = 0u64;
        let end = self.stream(
            method::BUNDLE_EXPORT,
            json!(params),
            &mut |client, event| {
                let chunk: Chunk = serde_json::from_value(event)
                    .map_err(|e| client.protocol(format!("bundle chunk: {e}")))?;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(chunk.base64.as_bytes())
                    .map_err(|e| client.protocol(format!("bundle chunk: {e}")))?;
                if chunk.offset != written || bytes.len() > DOWNLOAD_CHUNK {
                    return Err(client.protocol(format!(
                        "a bundle chunk of {} bytes at {} after {written} bytes",
                        bytes.len(),
                        chunk.offset
                    )));
                }
                out.write_all(&bytes)?;
                hasher.update(&bytes);
                written += bytes.len() as u64;
                Ok(true)
            },
        )?;
        let exported: BundleExported = serde_json::from_value(end)
            .map_err(|e| self.protocol(format!("bundle_export: {e}")))?;
        let sum = crate::command::hex(&hasher.finalize());
        if exported.bytes != written || exported.sha256 != sum {
            return Err(self.protocol(format!(
                "the bundle arrived as {written} bytes with SHA-256 {sum}, the server sent {} bytes with {}",
                exported.bytes, exported.sha256
            )));
        }
        out.flush()?;
        Ok(exported)
    }

    /// Sends a file to the server in chunks of at most [`UPLOAD_CHUNK`] bytes; its upload
    /// number (for `bundle_import` on this connection). Starts over once on a new connection
    /// after a drop.
    pub fn upload(&mut self, path: &Path) -> Result<u64, Error> {
        let sha256 = crate::command::sha256_file(path)?;
        match self.upload_once(path, &sha256) {
            Err(e) if e.is_dropped() => {
                self.reconnect()?;
                self.upload_once(path, &sha256)
            }
            other => other,
        }
    }

    fn upload_once(&mut self, path: &Path, sha256: &str) -> Result<u64, Error> {
        let mut file = File::open(path)?;
        let bytes = file.metadata()?.len();
        let start = UploadStartParams {
            bytes,
            sha256: sha256.to_owned(),
        };
        let started: UploadStarted = self.answer_of(method::UPLOAD_START, json!(start))?;
        let mut buf = vec![0u8; UPLOAD_CHUNK];
        let mut offset = 0u64;
        loop {
            let n = file.read(&mut buf)?;
            let last = offset + n as u64 == bytes;
            if n == 0 && offset < bytes {
                return Err(Error::Io(std::io::Error::other(format!(
                    "{} got shorter while it was sent",
                    path.display()
                ))));
            }
            if n > 0 {
                let chunk = UploadChunkParams {
                    upload: started.upload,
                    chunk: Chunk {
                        offset,
                        base64: base64::engine::general_purpose::STANDARD.encode(&buf[..n]),
                    },
                };
                let _: UploadReceived = self.answer_of(method::UPLOAD_CHUNK, json!(chunk))?;
                offset += n as u64;
            }
            if last {
                return Ok(started.upload);
            }
        }
    }

    /// One request's answer, read as `R` (no resending: for requests that are not reads).
    fn answer_of<R: DeserializeOwned>(&mut self, method: &str, params: Value) -> Result<R, Error> {
        let value = self.request(method, params)?;
        serde_json::from_value(value).map_err(|e| self.protocol(format!("{method}: {e}")))
    }

    pub(crate) fn protocol(&self, detail: String) -> Error {
        Error::Protocol {
            host: self.transport.host(),
            detail,
        }
    }
}

fn answer(line: ServerLine) -> Result<Value, Error> {
    match (line.result, line.error) {
        (_, Some(e)) => Err(Error::Server(e)),
        (Some(v), None) => Ok(v),
        (None, None) => Ok(Value::Null),
    }
}

/// The next line's bytes; the link's own account of why it ended when there is none.
fn next_line(conn: &mut Conn, host: &str) -> Result<Vec<u8>, Error> {
    match conn.reader.next_line() {
        Ok(Some(Line::Text(bytes))) => Ok(bytes),
        Ok(Some(Line::TooLong { len })) => Err(Error::Protocol {
            host: host.to_owned(),
            detail: format!("a reply of {len} bytes is over the limit of {MAX_REPLY_LINE}"),
        }),
        Ok(None) | Err(_) => Err(link_failure(conn, host)),
    }
}

fn link_failure(conn: &mut Conn, host: &str) -> Error {
    conn.link
        .failure()
        .unwrap_or_else(|| closed(host, "the connection ended"))
}

fn closed(host: &str, detail: &str) -> Error {
    Error::Closed {
        host: host.to_owned(),
        detail: detail.to_owned(),
    }
}

/// The server's first line must be a hello of our protocol.
fn check_hello(line: Vec<u8>, host: &str) -> Result<Hello, Error> {
    let parsed: Option<Hello> = serde_json::from_slice::<ServerLine>(&line)
        .ok()
        .and_then(|l| l.hello);
    let Some(hello) = parsed else {
        let shown: String = String::from_utf8_lossy(&line).chars().take(200).collect();
        return Err(Error::Protocol {
            host: host.to_owned(),
            detail: format!("expected a hello, got {shown:?} (does the remote's shell print something at login?)"),
        });
    };
    if hello.protocol != PROTOCOL_VERSION {
        return Err(Error::Version {
            host: host.to_owned(),
            theirs: hello.server,
            protocol: hello.protocol,
            ours: env!("CARGO_PKG_VERSION").to_owned(),
        });
    }
    Ok(hello)
}
