//! The command transport: a child process whose stdin and stdout carry the protocol, started
//! from an argv (never a local shell's string). What the child is comes from a [`Launcher`]:
//! `ssh … ALIAS <script>` ([`crate::ssh`]), `wsl.exe -d DISTRO --exec sh -c <script>`
//! ([`crate::wsl::Wsl`]), or plain `sh -c <script>` in tests. Everything else is shared: the
//! remote script that runs the installed server or names the platform, the bootstrap that
//! uploads this build's binary through the child's stdin (checksum-verified, renamed into
//! place), and reading why a child ended.
//!
//! The server's folder is named by the version and a short digest of the binary that would be
//! uploaded ([`server_dir`]), so a rebuilt development binary of the same version is uploaded
//! again instead of an older one being reused. A server installed by hand lives in the plain
//! version folder: it is tried when nothing can be uploaded (another platform, or no binary).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::ssh::{parse_uname, serve_script, upload_script, Platform, INSTALLED, MISSING};
use crate::transport::{Link, Stream, Transport};

/// The server's version: the start of its folder's name on a remote.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Kept of a child's stderr, for the message when it fails.
const STDERR_KEEP: usize = 16 << 10;

/// How a child that runs a script of ours on the host is started.
pub trait Launcher: Send + Sync {
    /// A command running `script` (POSIX sh) on the host, its stdin and stdout the script's.
    fn command(&self, script: &str) -> Command;
    /// The host's name, for messages.
    fn host(&self) -> String;
    /// How to tell why a child that ended failed, from its stderr and status.
    fn classify(&self) -> Classify {
        Box::new(closed)
    }
    /// The binary to upload and where the notes go.
    fn bootstrap(&self) -> Bootstrap<'_>;
}

/// Every launcher is a transport: a connection is a child started by it.
impl<L: Launcher> Transport for L {
    fn open(&self) -> Result<Stream, Error> {
        open(self, &self.bootstrap())
    }

    fn host(&self) -> String {
        Launcher::host(self)
    }
}

/// Reads a child's end (host, stderr, status) as an error that says what to do (a closure: the
/// ssh config in use is named in ssh's).
pub type Classify = Box<dyn Fn(&str, &str, Option<ExitStatus>) -> Error + Send>;

/// What a launcher needs besides itself to open a connection: the binary to upload (none:
/// never upload) and where bootstrap notes go.
pub struct Bootstrap<'a> {
    pub server_binary: Option<&'a Path>,
    pub notes: &'a Mutex<Vec<String>>,
}

/// Opens a connection: starts the server, installing it first when it is missing and this
/// binary runs there.
pub fn open(launcher: &dyn Launcher, boot: &Bootstrap) -> Result<Stream, Error> {
    let host = launcher.host();
    let upload = match boot.server_binary {
        Some(binary) => Some((
            binary,
            digest(binary).map_err(|e| bootstrap_error(&host, binary, e))?,
        )),
        None => None,
    };
    let dir = upload
        .as_ref()
        .map_or_else(|| VERSION.to_owned(), |(_, sum)| server_dir(sum));
    let remote = match start(launcher, &dir)? {
        Started::Serving(stream) => return Ok(stream),
        Started::Missing(platform) => platform,
    };
    match upload {
        Some((binary, sum)) if remote == Platform::ours() => {
            install(launcher, binary, &sum, &dir, boot.notes)?;
            match start(launcher, &dir)? {
                Started::Serving(stream) => Ok(stream),
                Started::Missing(_) => Err(Error::Bootstrap {
                    host,
                    reason: "the server was installed but is still not found".into(),
                }),
            }
        }
        // Nothing to upload that runs there: a server installed by hand, or what to install.
        Some(_) => match start(launcher, VERSION)? {
            Started::Serving(stream) => Ok(stream),
            Started::Missing(platform) => Err(missing(&host, &platform)),
        },
        None => Err(missing(&host, &remote)),
    }
}

fn missing(host: &str, remote: &Platform) -> Error {
    let ours = Platform::ours();
    Error::ServerMissing {
        host: host.to_owned(),
        remote: format!("{} {}", remote.os, remote.arch),
        ours: format!("{} {}", ours.os, ours.arch),
        path: format!("~/.cache/agent-sessions/server/{VERSION}/agent-sessions-cli"),
    }
}

fn bootstrap_error(host: &str, binary: &Path, e: io::Error) -> Error {
    Error::Bootstrap {
        host: host.to_owned(),
        reason: format!("cannot read {}: {e}", binary.display()),
    }
}

/// The folder (under `~/.cache/agent-sessions/server/`) of the server whose SHA-256 is
/// `sha256`: the version and the digest's first 12 hex digits.
pub fn server_dir(sha256: &str) -> String {
    format!("{VERSION}-{}", &sha256[..12.min(sha256.len())])
}

/// The SHA-256 of a file, in hex, computed once per path per process (a binary does not
/// change under a running process; reading 50 MB again for every connection would).
pub fn digest(path: &Path) -> io::Result<String> {
    static DONE: OnceLock<Mutex<HashMap<PathBuf, String>>> = OnceLock::new();
    let done = DONE.get_or_init(Mutex::default);
    if let Some(sum) = crate::server_lock(done).get(path) {
        return Ok(sum.clone());
    }
    let sum = sha256_file(path)?;
    crate::server_lock(done).insert(path.to_owned(), sum.clone());
    Ok(sum)
}

/// The SHA-256 of a file as it is now, in hex.
pub fn sha256_file(path: &Path) -> io::Result<String> {
    let mut hasher = Sha256::new();
    io::copy(&mut File::open(path)?, &mut hasher)?;
    Ok(hex(&hasher.finalize()))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

enum Started {
    Serving(Stream),
    Missing(Platform),
}

fn spawn(launcher: &dyn Launcher, script: &str) -> Result<Child, Error> {
    let mut command = launcher.command(script);
    let program = command.get_program().to_string_lossy().into_owned();
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Spawn {
            reason: format!("{e}; is {program} installed?"),
            program,
        })
}

/// Starts the server in `dir`, or learns the remote's platform when it is not installed there.
fn start(launcher: &dyn Launcher, dir: &str) -> Result<Started, Error> {
    let mut child = spawn(launcher, &serve_script(dir))?;
    let stderr = collect(child.stderr.take());
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut first = Vec::new();
    // The hello, or the script's one line; nothing at all when the child failed.
    let _ = stdout.by_ref().take(64 << 10).read_until(b'\n', &mut first);
    let writer = child.stdin.take().expect("piped");
    let mut link = ChildLink {
        host: launcher.host(),
        classify: launcher.classify(),
        child,
        stderr: Some(stderr),
    };
    if first.is_empty() {
        let host = launcher.host();
        return Err(link.failure().unwrap_or_else(|| closed(&host, "", None)));
    }
    if let Some(platform) = std::str::from_utf8(&first)
        .ok()
        .and_then(|l| l.strip_prefix(MISSING))
    {
        return Ok(Started::Missing(parse_uname(platform)));
    }
    Ok(Started::Serving(Stream {
        reader: Box::new(io::Cursor::new(first).chain(stdout)),
        writer: Box::new(writer),
        link: Box::new(link),
    }))
}

/// Uploads `binary` through the child's stdin into `dir`, checked against `sum` there.
fn install(
    launcher: &dyn Launcher,
    binary: &Path,
    sum: &str,
    dir: &str,
    notes: &Mutex<Vec<String>>,
) -> Result<(), Error> {
    let host = launcher.host();
    let mut child = spawn(launcher, &upload_script(dir, sum))?;
    let stderr = collect(child.stderr.take());
    let mut stdin = child.stdin.take().expect("piped");
    let sent = File::open(binary).and_then(|mut f| io::copy(&mut f, &mut stdin));
    drop(stdin);
    let mut said = String::new();
    let _ = child
        .stdout
        .take()
        .expect("piped")
        .read_to_string(&mut said);
    let status = child.wait()?;
    if said.trim() == INSTALLED && status.success() {
        let size = sent.unwrap_or(0);
        crate::server_lock(notes).push(format!(
            "installed agent-sessions-cli {VERSION} on {host} ({size} bytes, sha256 {sum})"
        ));
        return Ok(());
    }
    let err = stderr.join().unwrap_or_default();
    Err(Error::Bootstrap {
        host,
        reason: format!("{} {}", said.trim(), err.trim()),
    })
}

/// A running child: killed when the connection is dropped.
struct ChildLink {
    host: String,
    classify: Classify,
    child: Child,
    stderr: Option<JoinHandle<String>>,
}

impl Link for ChildLink {
    fn failure(&mut self) -> Option<Error> {
        let status = wait_a_little(&mut self.child);
        let stderr = self.stderr.take()?.join().unwrap_or_default();
        Some((self.classify)(&self.host, &stderr, status))
    }
}

impl Drop for ChildLink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_a_little(child: &mut Child) -> Option<ExitStatus> {
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

/// The first [`STDERR_KEEP`] bytes of a child's stderr, read on a thread (so a chatty stderr
/// never blocks the child).
fn collect(stderr: Option<impl Read + Send + 'static>) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let Some(mut stderr) = stderr else {
            return String::new();
        };
        let mut kept = Vec::new();
        let _ = stderr
            .by_ref()
            .take(STDERR_KEEP as u64)
            .read_to_end(&mut kept);
        let _ = io::copy(&mut stderr, &mut io::sink());
        String::from_utf8_lossy(&kept).into_owned()
    })
}

/// A child that ended: its last words, or its status.
pub fn closed(host: &str, stderr: &str, status: Option<ExitStatus>) -> Error {
    let detail = last_words(stderr);
    let detail = match (detail.is_empty(), status) {
        (true, Some(s)) => format!("the command exited ({s})"),
        (true, None) => "the link dropped".to_owned(),
        (false, _) => detail,
    };
    Error::Closed {
        host: host.to_owned(),
        detail,
    }
}

/// The last lines of stderr, one line, printable.
pub(crate) fn last_words(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let tail = lines[lines.len().saturating_sub(2)..].join(" ");
    // Without its final full stop: the messages go on after it with ". " of their own.
    let tail = tail.trim_end_matches('.');
    tail.chars().filter(|c| !c.is_control()).take(300).collect()
}
