//! The client: one connection at a time over a [`Transport`], requests answered in order, and
//! a new connection when the link drops. A call that was cut off is sent again once on the new
//! connection (every call but `follow` is a read); a follower sends the cursor it kept, so it
//! resumes where it was and hears `truncated` when the server's window no longer reaches back
//! that far.

use std::io::{BufReader, Read, Write};
use std::thread::sleep;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

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
        let id = self.send(method::FOLLOW, json!(params))?;
        loop {
            let line = self.read()?;
            if line.id != Some(id) {
                continue;
            }
            let Some(event) = line.event else {
                let end = answer(line)?;
                return Ok(end["cursor"].as_u64().unwrap_or(params.cursor));
            };
            let event: FollowEvent = serde_json::from_value(event)
                .map_err(|e| self.protocol(format!("follow event: {e}")))?;
            params.cursor = event.cursor;
            if !on_event(&event) {
                self.send(method::CANCEL, json!(CancelParams { id }))?;
            }
            if event.ended {
                return Ok(event.cursor);
            }
        }
    }

    fn protocol(&self, detail: String) -> Error {
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
