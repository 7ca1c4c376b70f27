//! The host the window shows when it is not this computer (docs/remote.md, "In the app"): one
//! `agent_sessions_remote::Client` over the system ssh, and the few conversions from the
//! protocol's answers into what the window already shows for local sessions (transcript pages
//! rendered by core's `view`, blobs by core's `blob::view`, stats and health by core over the
//! remote's listing). The commands ask [`Active::current`] and call either this or the local
//! service; nothing here reads a local store.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use agent_sessions_core::actions::resume::{ResumeCommand, ShellCommand};
use agent_sessions_core::actions::trash::Plan;
use agent_sessions_core::blob::{self, BlobView};
use agent_sessions_core::health::{self, CacheInfo, Health};
use agent_sessions_core::index::SearchResults;
use agent_sessions_core::live::follow::Update;
use agent_sessions_core::raw::RawRecords;
use agent_sessions_core::service::WatcherState;
use agent_sessions_core::view::{self, TranscriptPage};
use agent_sessions_core::{Message, ProviderKind, Roots, ScanReport, SessionMeta, Transcript};
use agent_sessions_remote::protocol as wire;
use agent_sessions_remote::ssh::Ssh;
use agent_sessions_remote::terminal;
use agent_sessions_remote::{Client, Error as RemoteError};

use crate::commands::{CmdError, CmdResult, ErrorCode, SessionRef};

/// How often the window's remote is asked what changed (its live dots and a live tail) when
/// its server predates `watch` (or a watch cannot be set up).
pub const POLL_MS: u64 = 2000;

/// Opens another connection to the same host (the change watcher's own).
type Connector = Arc<dyn Fn() -> Result<Client, RemoteError> + Send + Sync>;

/// How a watch of the host's changes ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Watched {
    /// `on_change` said stop.
    Stopped,
    /// The server predates `watch` (`unknown_method`): ask it with `changes` instead.
    Unsupported,
}

/// The remote host shown now; none: this computer.
#[derive(Default)]
pub struct Active(Mutex<Option<Arc<Host>>>);

impl Active {
    pub fn current(&self) -> Option<Arc<Host>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn set(&self, host: Option<Arc<Host>>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = host;
    }

    /// Refuses `what` (an action over this computer's stores) while a remote is shown.
    pub fn local_only(&self, what: &str) -> CmdResult<()> {
        match self.current() {
            Some(host) => Err(CmdError::new(
                ErrorCode::RemoteUnsupported,
                format!("{what} works on this computer's sessions only for now, not on {}'s; run agent-sessions-cli on {} for it", host.alias, host.alias),
            )),
            None => Ok(()),
        }
    }

    /// Whether `host` is still the one shown (a poller of an older one stops).
    pub fn is(&self, host: &Arc<Host>) -> bool {
        self.current().is_some_and(|h| Arc::ptr_eq(&h, host))
    }
}

/// A connected host.
pub struct Host {
    pub alias: String,
    /// `ssh -F FILE` (`AGENT_SESSIONS_SSH_CONFIG`), also in the commands a user copies.
    pub config: Option<PathBuf>,
    client: Mutex<Client>,
    /// A second connection for the change watcher (a `watch` holds its connection).
    second: Option<Connector>,
    /// The changes are pushed now (`watch` runs), not polled.
    watching: AtomicBool,
}

impl Host {
    /// Connects through the system ssh (BatchMode: a login that would prompt fails at once,
    /// saying what to set up), installing this build's server there when it is missing and
    /// the remote's platform is ours.
    pub fn connect(alias: &str, config: Option<PathBuf>) -> CmdResult<Host> {
        let mut ssh = Ssh::with_config(alias, config.clone()).map_err(remote_error)?;
        ssh.server_binary = server_binary();
        let client = Client::connect(Box::new(ssh.clone())).map_err(remote_error)?;
        let second: Connector = Arc::new(move || Client::connect(Box::new(ssh.clone())));
        Ok(Host::over(alias, config, client).with_second(second))
    }

    /// The host a picker name names: on Windows `wsl:NAME` is that WSL distribution (through
    /// wsl.exe), anything else an ssh alias.
    pub fn open(alias: &str, config: Option<PathBuf>) -> CmdResult<Host> {
        #[cfg(windows)]
        if let Some(distro) = agent_sessions_remote::wsl::distro_of(alias) {
            return Host::connect_wsl(distro);
        }
        Host::connect(alias, config)
    }

    /// A WSL distribution, with the same bootstrap as ssh. The Windows app cannot be uploaded
    /// into Linux, so the server there is one installed by hand unless
    /// `AGENT_SESSIONS_SERVER_BINARY` names a Linux build (`server_missing` says where).
    #[cfg(windows)]
    fn connect_wsl(distro: &str) -> CmdResult<Host> {
        use agent_sessions_remote::wsl::{host_name, Wsl};
        let mut wsl = Wsl::new(distro);
        wsl.server_binary = std::env::var_os("AGENT_SESSIONS_SERVER_BINARY")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from);
        let client = Client::connect(Box::new(wsl)).map_err(remote_error)?;
        Ok(Host::over(&host_name(distro), None, client))
    }

    /// A host over any connected client (the tests' in-memory server).
    pub fn over(alias: &str, config: Option<PathBuf>, client: Client) -> Host {
        Host {
            alias: alias.to_owned(),
            config,
            client: Mutex::new(client),
            second: None,
            watching: AtomicBool::new(false),
        }
    }

    /// The host, with a way to open the change watcher's connection.
    pub fn with_second(mut self, connect: Connector) -> Host {
        self.second = Some(connect);
        self
    }

    /// Watches the host's change feed on a connection of its own (listed first, so the
    /// cursor is that connection's): `on_change` gets each change as the server pushes it, and
    /// the server's empty event every few seconds while nothing changes (return false to
    /// stop). A dropped link is opened again by the client and answered with `reset`.
    pub fn watch(
        &self,
        on_change: &mut dyn FnMut(&wire::WatchEvent) -> bool,
    ) -> CmdResult<Watched> {
        let Some(connect) = &self.second else {
            return Ok(Watched::Unsupported);
        };
        let mut client = connect().map_err(remote_error)?;
        let listed = client
            .list(&wire::ListParams::default())
            .map_err(remote_error)?;
        self.watching.store(true, Ordering::SeqCst);
        let run = client.watch(listed.seq, on_change);
        self.watching.store(false, Ordering::SeqCst);
        match run {
            Ok(_) => Ok(Watched::Stopped),
            Err(RemoteError::Server(w)) if w.code == "unknown_method" => Ok(Watched::Unsupported),
            Err(e) => Err(remote_error(e)),
        }
    }

    /// Runs `call` on the connection (one call at a time), its error said for the window.
    fn with<R>(&self, call: impl FnOnce(&mut Client) -> Result<R, RemoteError>) -> CmdResult<R> {
        let mut client = self.client.lock()?;
        call(&mut client).map_err(remote_error)
    }

    /// Every session there, newest first, and the change sequence it is as of.
    pub fn list(&self) -> CmdResult<(ScanReport, u64)> {
        let listed = self.with(|c| c.list(&wire::ListParams::default()))?;
        let report = ScanReport {
            sessions: listed.sessions,
            diagnostics: listed.diagnostics,
        };
        Ok((report, listed.seq))
    }

    /// The sessions changed or removed there after `seq`.
    pub fn changes(&self, seq: u64) -> CmdResult<wire::ChangesResult> {
        self.with(|c| c.changes(seq))
    }

    /// A page of the transcript, rendered here as a local one is.
    pub fn page(
        &self,
        session: &SessionRef,
        offset: usize,
        limit: usize,
    ) -> CmdResult<TranscriptPage> {
        let params = wire::ShowParams {
            session: wire_ref(session),
            offset,
            limit,
        };
        let page = self.with(|c| c.show(&params))?;
        Ok(TranscriptPage {
            session: page.session,
            messages: page.messages.iter().map(view::message_view).collect(),
            offset: offset.min(page.total),
            total: page.total,
        })
    }

    /// Where the message with `id` is (pages are read until it is found).
    pub fn position(&self, session: &SessionRef, id: &str) -> CmdResult<Option<usize>> {
        Ok(self.find(session, id)?.map(|(i, _)| i))
    }

    /// The message with `id` and where it is (pages are read until it is found).
    pub fn find(&self, session: &SessionRef, id: &str) -> CmdResult<Option<(usize, Message)>> {
        self.with(|c| c.find(wire_ref(session), id))
    }

    /// The whole transcript, read there page by page (what an export here is written from,
    /// as `export --host` does; outputs kept as blobs stay previews).
    pub fn transcript(&self, session: &SessionRef) -> CmdResult<Transcript> {
        self.with(|c| c.transcript(wire_ref(session)))
    }

    pub fn search(
        &self,
        query: &str,
        providers: Vec<ProviderKind>,
        limit: usize,
    ) -> CmdResult<SearchResults> {
        let params = wire::SearchParams {
            query: query.to_owned(),
            limit,
            providers,
            ..wire::SearchParams::default()
        };
        Ok(self.with(|c| c.search(&params))?.results.into())
    }

    /// What the window may show of a blob (the remote sends it whole, at most 32 MiB).
    pub fn blob(&self, session: &SessionRef, key: &str) -> CmdResult<BlobView> {
        let params = wire::BlobParams {
            session: wire_ref(session),
            key: key.to_owned(),
        };
        Ok(blob::view(&self.with(|c| c.blob(&params))?))
    }

    /// The session as a bundle made there (complete or `share_safe`), written to `out` as it
    /// arrives (each chunk checked in order, the whole against the server's SHA-256).
    pub fn bundle(
        &self,
        session: &SessionRef,
        share_safe: bool,
        out: &mut dyn std::io::Write,
    ) -> CmdResult<wire::BundleExported> {
        let params = wire::BundleExportParams {
            session: wire_ref(session),
            share_safe,
        };
        self.with(|c| c.bundle_export(&params, out))
    }

    /// Sends a local bundle file there (checked whole against its SHA-256 on arrival); the
    /// upload's number names it on this connection.
    pub fn upload(&self, path: &Path) -> CmdResult<u64> {
        self.with(|c| c.upload(path))
    }

    /// The uploaded bundle restored there under `dir` (`token`: the preview's, which allows
    /// exactly that restore), or only previewed (no token).
    pub fn bundle_import(
        &self,
        upload: u64,
        dir: &Path,
        as_copy: bool,
        token: Option<String>,
    ) -> CmdResult<wire::BundleImportResult> {
        let params = wire::BundleImportParams {
            upload,
            dir: dir.to_path_buf(),
            as_copy,
            token,
        };
        self.with(|c| c.bundle_import(&params))
    }

    /// Trash (or `permanent`ly delete) the session there: without `plan`, the host's plan (its
    /// own opt-ins); with the plan the user confirmed, run only if planning again gives it.
    pub fn trash(
        &self,
        session: &SessionRef,
        permanent: bool,
        subagents: Option<bool>,
        plan: Option<Plan>,
    ) -> CmdResult<wire::TrashResult> {
        let params = wire::TrashParams {
            session: wire_ref(session),
            permanent,
            subagents,
            plan,
        };
        self.with(|c| c.trash(&params))
    }

    /// The session's handoff to `target`, written there from its store.
    pub fn handoff(
        &self,
        session: &SessionRef,
        target: ProviderKind,
    ) -> CmdResult<wire::HandoffDoc> {
        let params = wire::HandoffParams {
            session: wire_ref(session),
            to: target,
            budget: None,
        };
        self.with(|c| c.handoff(&params))
    }

    /// The agent's own records behind message `id` of the session, read there by core's
    /// `raw` (the raw-JSON view).
    pub fn raw(&self, session: &SessionRef, id: &str) -> CmdResult<RawRecords> {
        let params = wire::RawParams {
            session: wire_ref(session),
            message: id.to_owned(),
        };
        self.with(|c| c.raw(&params))
    }

    /// Continue in… `target` there: the host writes the handoff's prompt file in its cache and
    /// answers the agent's command; this is `ssh -t` running it in the session's directory
    /// there, with the document's length. An agent missing there is `not_found` carrying the
    /// `ssh -t` command that starts it by hand (`copy`).
    pub fn handoff_launch(
        &self,
        session: &SessionRef,
        target: ProviderKind,
    ) -> CmdResult<(ResumeCommand, wire::HandoffPrepared)> {
        let params = wire::HandoffParams {
            session: wire_ref(session),
            to: target,
            budget: None,
        };
        let prepared = self.client.lock()?.handoff_prepare(&params);
        let prepared = match prepared {
            Err(RemoteError::Server(w)) if w.code == "agent_not_found" => {
                let mut e = remote_error(RemoteError::Server(w));
                e.copy = Some(self.agent_by_hand(session, target)?.posix());
                return Err(e);
            }
            other => other.map_err(remote_error)?,
        };
        let ssh = self.ssh_command(&handoff_command(&prepared)?)?;
        Ok((ssh, prepared))
    }

    /// `ssh -t ALIAS 'cd -- DIR && AGENT'`: the agent started by hand there, in the session's
    /// directory (its prompt pasted from Copy).
    fn agent_by_hand(
        &self,
        session: &SessionRef,
        target: ProviderKind,
    ) -> CmdResult<ResumeCommand> {
        let dir = self.with(|c| c.session(wire_ref(session)))?.cwd;
        let program = agent_sessions_core::actions::handoff::launch::program(target);
        let there = ResumeCommand::new(program, &[], dir.as_deref())
            .map_err(|e| CmdError::invalid_input(e.to_string()))?;
        self.ssh_command(&there)
    }

    /// The session's events so far, as `log` reads them there (`truncated` as there: older
    /// events fell out of its follower's window, said as a local timeline says it).
    pub fn events(&self, session: &SessionRef) -> CmdResult<Update> {
        let log = self.with(|c| c.log(&wire_ref(session)))?;
        Ok(Update {
            events: log.events,
            cursor: log.cursor,
            truncated: log.truncated,
            ended: log.ended,
        })
    }

    /// The Diagnostics panel for the remote's listing: the roots the remote reads (whether
    /// they exist there) and its cache (shown, not cleared from here), its skipped records and
    /// tool versions; polled. An older server names neither: then one root per agent (where
    /// its sessions lie) and no cache.
    pub fn health(&self) -> CmdResult<Health> {
        let (listing, _) = self.list()?;
        let places = self
            .with(|c| c.diagnostics(&wire::DiagnosticsParams::default()))?
            .places;
        let roots = if places.roots.is_empty() {
            roots_of(&listing.sessions)
        } else {
            Roots::from_fn(|kind| {
                places
                    .roots
                    .iter()
                    .filter(|r| r.provider == kind)
                    .map(|r| r.root.clone())
                    .collect()
            })
        };
        let watcher = if self.watching.load(Ordering::SeqCst) {
            // The server watches its roots and pushes what changed (`watch`).
            WatcherState::Watching {
                paths: roots
                    .iter()
                    .flat_map(|(_, dirs)| dirs.iter().map(|d| (d.clone(), true)))
                    .collect(),
            }
        } else {
            WatcherState::Polling {
                every_ms: POLL_MS,
                reason: format!(
                    "{} is a remote host whose server predates pushed changes: the app asks it what changed",
                    self.alias
                ),
            }
        };
        let cache = places.cache.map_or(
            CacheInfo {
                dir: None,
                path: None,
                bytes: 0,
            },
            CacheInfo::from,
        );
        let mut health = health::report(&roots, &listing, watcher, cache);
        // The roots are there, not here: whether they exist is the remote's answer (an older
        // server's roots exist since sessions were read from them).
        for r in &mut health.roots {
            r.exists = places
                .roots
                .iter()
                .find(|p| p.provider == r.provider && p.root == r.root)
                .is_none_or(|p| p.exists);
        }
        Ok(health)
    }

    /// The session's resume command as the remote builds it (POSIX on a Unix remote).
    pub fn resume(&self, session: &SessionRef) -> CmdResult<ResumeCommand> {
        self.with(|c| c.resume(&wire_ref(session)))
    }

    /// What "Resume in terminal" runs there: the session's resume command, once the host has
    /// checked that its directory is there and its agent installed. A refusal names the host,
    /// and a missing agent carries the `ssh -t` command that resumes it by hand (`copy`).
    pub fn resume_in_terminal(&self, session: &SessionRef) -> CmdResult<ResumeCommand> {
        self.checked_there(session, true)
    }

    /// What "Open terminal" runs there: a login shell in the session's directory, once the
    /// host has checked that it is there.
    pub fn shell_in_dir(&self, session: &SessionRef) -> CmdResult<ResumeCommand> {
        self.checked_there(session, false)
    }

    /// The host's check (`agent_sessions_remote::terminal::there`), its refusals said for the
    /// window.
    fn checked_there(&self, session: &SessionRef, resume: bool) -> CmdResult<ResumeCommand> {
        let checked = terminal::there(&mut *self.client.lock()?, &wire_ref(session), resume);
        match checked {
            Err(RemoteError::Server(w)) if w.code == "agent_not_found" => {
                let mut e = self.refused_there(w);
                e.copy = Some(self.ssh_command(&self.resume(session)?)?.posix());
                Err(e)
            }
            Err(RemoteError::Server(w)) if w.code == "directory_missing" => {
                Err(self.refused_there(w))
            }
            other => other.map_err(remote_error),
        }
    }

    /// A check of the host's that refused a terminal, said as on that host (its message reads
    /// as a local one: "the session's directory … no longer exists").
    fn refused_there(&self, w: wire::WireError) -> CmdError {
        let mut e = remote_error(RemoteError::Server(w));
        e.message = format!("On {}: {}", self.alias, e.message);
        e
    }

    /// `ssh [-F FILE] -t -- ALIAS <remote command>`: the remote's login shell runs the command
    /// (POSIX-quoted by core); locally it is an argv.
    pub fn ssh_command(&self, remote: &ResumeCommand) -> CmdResult<ResumeCommand> {
        terminal::over_ssh(&self.alias, self.config.as_deref(), remote).map_err(invalid)
    }
}

/// A login shell started in `dir` (`agent_sessions_remote::terminal::login_shell_in`; the
/// window's own path is `terminal::there`), as the tests read it.
#[cfg(test)]
pub fn login_shell_in(dir: &str) -> CmdResult<ResumeCommand> {
    terminal::login_shell_in(dir).map_err(invalid)
}

/// `command` kept on screen when it fails there (`agent_sessions_remote::terminal::held`).
pub fn held(command: &ResumeCommand, alias: &str) -> CmdResult<ResumeCommand> {
    terminal::held(command, alias).map_err(invalid)
}

/// A command word the remote sent that cannot be quoted (a control character in it).
fn invalid(e: agent_sessions_core::model::Unresumable) -> CmdError {
    CmdError::invalid_input(e.to_string())
}

/// What Continue in… runs there: `cd -- DIR && exec ARGV…` (POSIX-quoted when wrapped in ssh;
/// a directory or word holding a control character is refused by `ResumeCommand::new`).
pub fn handoff_command(prepared: &wire::HandoffPrepared) -> CmdResult<ResumeCommand> {
    let dir = prepared.cwd.to_str().ok_or_else(|| {
        CmdError::invalid_input("the session's directory there is not valid UTF-8")
    })?;
    let argv: Vec<&str> = prepared.argv.iter().map(String::as_str).collect();
    if argv.is_empty() {
        return Err(CmdError::new(
            ErrorCode::Protocol,
            "the remote sent an empty handoff command",
        ));
    }
    ResumeCommand::new("exec", &argv, Some(dir)).map_err(|e| CmdError::invalid_input(e.to_string()))
}

/// For a WSL host (Windows): `wsl.exe -d DISTRO --exec sh -c COMMAND`
/// (`agent_sessions_remote::terminal::wsl_command`; the window's own path is
/// `Host::ssh_command`), as the tests read it.
#[cfg(test)]
pub fn wsl_command(distro: &str, remote: &str) -> CmdResult<ResumeCommand> {
    terminal::wsl_command(distro, remote).map_err(invalid)
}

/// `ssh [-F FILE] -t -- ALIAS COMMAND` (`agent_sessions_remote::terminal::ssh_command`; the
/// window's own path is `Host::ssh_command`), as the tests read it.
#[cfg(test)]
pub fn ssh_command(alias: &str, config: Option<&Path>, remote: &str) -> CmdResult<ResumeCommand> {
    terminal::ssh_command(alias, config, remote).map_err(invalid)
}

/// The CLI a remote of our platform is given when it lacks the server:
/// `AGENT_SESSIONS_SERVER_BINARY`, else `agent-sessions-cli` beside the app.
fn server_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("AGENT_SESSIONS_SERVER_BINARY").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let name: OsString = format!("agent-sessions-cli{}", std::env::consts::EXE_SUFFIX).into();
    let beside = std::env::current_exe().ok()?.parent()?.join(name);
    beside.is_file().then_some(beside)
}

/// Each agent's root there: the folder all its sessions' files lie under.
fn roots_of(sessions: &[SessionMeta]) -> Roots {
    Roots::from_fn(|kind| {
        let mut paths = sessions
            .iter()
            .filter(|s| s.provider == kind)
            .map(|s| s.source_path.parent().unwrap_or(&s.source_path));
        let Some(first) = paths.next() else {
            return Vec::new();
        };
        let common = paths.fold(first.to_path_buf(), |acc, p| common_prefix(&acc, p));
        vec![common]
    })
}

fn common_prefix(a: &Path, b: &Path) -> PathBuf {
    a.components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect()
}

fn wire_ref(session: &SessionRef) -> wire::SessionRef {
    wire::SessionRef {
        source_path: session.source_path.clone(),
        ..wire::SessionRef::exact(session.provider, session.id.clone())
    }
}

/// A remote's error for the window: the connection's own codes (`ssh_auth`, `ssh_host_key`,
/// `ssh_unreachable`, `server_missing`, …) with the crate's text saying what to set up; the
/// server's core codes folded as local ones are.
pub fn remote_error(e: RemoteError) -> CmdError {
    let code = match &e {
        // Codes the UI knows cross as they are (`delete_disabled`, `bundle_unsafe`, …).
        RemoteError::Server(w) => match ErrorCode::of(&w.code) {
            ErrorCode::Internal => crate::commands::fold_code(&w.code),
            known => known,
        },
        other => ErrorCode::of(other.code()),
    };
    CmdError::new(code, e.to_string())
}

#[cfg(test)]
mod tests {
    //! The remote dispatch against a real server (the remote crate's, on a thread over the
    //! in-memory transport) reading the Claude fixture store: each answer equals what the
    //! local path gives for the same store.
    use std::path::Path;
    use std::process::Command;

    use agent_sessions_core::{Library, ScanProgress};
    use agent_sessions_remote::server::{serve, Options};
    use agent_sessions_remote::transport::Memory;

    use super::*;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/claude/2.1.332/dot-claude")
    }

    fn roots() -> Roots {
        let mut roots = Roots::default();
        roots.get_mut(ProviderKind::Claude).push(fixture());
        roots
    }

    /// A host whose server keeps its cache in `cache` (a search needs one), or reads directly.
    fn host_cached(cache: Option<&Path>) -> Host {
        host_on(roots(), cache)
    }

    /// A host whose server reads `roots`.
    fn host_on(roots: Roots, cache: Option<&Path>) -> Host {
        let cache = cache.map(Path::to_path_buf);
        let memory = Memory::new(move |input, output| {
            let options = Options {
                roots: roots.clone(),
                cache_dir: cache.clone(),
                resolve: Box::new(|r| Ok(r.clone())),
            };
            let _ = serve(input, output, options);
        });
        let client = Client::connect(Box::new(memory)).unwrap();
        Host::over("testbox", None, client)
    }

    fn host() -> Host {
        host_cached(None)
    }

    fn local() -> (Library, Vec<SessionMeta>) {
        let lib = Library::open(&roots(), &[], None);
        let sessions = lib
            .catalog()
            .scan(&ScanProgress::default())
            .unwrap()
            .sessions;
        (lib, sessions)
    }

    fn named(s: &SessionMeta) -> SessionRef {
        SessionRef::of(s)
    }

    #[test]
    fn the_list_pages_and_positions_are_the_local_ones() {
        let host = host();
        let (lib, sessions) = local();
        let (report, _) = host.list().unwrap();
        let ids = |s: &[SessionMeta]| {
            let mut v: Vec<String> = s.iter().map(|s| s.id.clone()).collect();
            v.sort();
            v
        };
        assert_eq!(ids(&report.sessions), ids(&sessions));
        let longest = sessions
            .iter()
            .max_by_key(|s| s.counts.user + s.counts.assistant)
            .unwrap();
        let transcript = lib.catalog().load(longest).unwrap();
        let want = view::page(&transcript, 1, 3);
        let got = host.page(&named(longest), 1, 3).unwrap();
        assert_eq!((got.offset, got.total), (want.offset, want.total));
        let html = |p: &TranscriptPage| {
            p.messages
                .iter()
                .map(|m| m.html.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(html(&got), html(&want));
        let last = transcript.messages.last().unwrap();
        assert_eq!(
            host.position(&named(longest), &last.id).unwrap(),
            Some(transcript.messages.len() - 1)
        );
        assert_eq!(
            host.position(&named(longest), "no-such-message").unwrap(),
            None
        );
    }

    #[test]
    fn blobs_events_stats_and_health_come_from_the_remote() {
        let host = host();
        let (lib, sessions) = local();
        let spilled = sessions
            .iter()
            .find(|s| s.id.starts_with("5fec8eab"))
            .unwrap();
        let key = "tool-results/bd1gkvvug.txt";
        let want = blob::load_view(lib.catalog(), spilled, key).unwrap();
        assert_eq!(host.blob(&named(spilled), key).unwrap(), want);
        let traversal = host
            .blob(&named(spilled), "tool-results/../../../x")
            .unwrap_err();
        assert_eq!(traversal.code, "not_found");

        let events = host.events(&named(spilled)).unwrap();
        let local_events = agent_sessions_core::live::follow::Follower::new(spilled.clone(), 0)
            .poll(lib.catalog())
            .unwrap();
        assert_eq!(events.events, local_events.events);

        let health = host.health().unwrap();
        let [root] = &health.roots[..] else {
            panic!("one root: {:?}", health.roots)
        };
        // The server's root itself, not the folder its sessions lie under.
        assert_eq!(
            (root.provider, &root.root),
            (ProviderKind::Claude, &fixture())
        );
        assert!(root.exists);
        assert_eq!(root.sessions, sessions.len() as u64);
        assert!(matches!(health.watcher, WatcherState::Polling { .. }));
        // A server reading the stores directly has no cache.
        assert_eq!((health.cache.dir, health.cache.path), (None, None));
    }

    /// A session whose timeline is longer than a follower's window: the remote's answer reaches
    /// the Timeline tab saying older events are not shown (`truncated`), with the very events
    /// and cursor the same session on this computer gives it; a short one is whole.
    #[test]
    fn a_remote_timeline_says_when_older_events_are_not_shown() {
        use agent_sessions_core::live::follow::WINDOW;
        use agent_sessions_core::live::timeline::Timelines;
        use agent_sessions_test_support::long_claude_session;
        let store = tempfile::tempdir().unwrap();
        let (long, short) = (
            "0f0f0f0f-0000-4000-8000-000000000001",
            "0f0f0f0f-0000-4000-8000-000000000002",
        );
        long_claude_session(store.path(), long, WINDOW);
        long_claude_session(store.path(), short, 3);
        let roots = Roots::default().with(ProviderKind::Claude, [store.path()]);
        let host = host_on(roots.clone(), None);
        let lib = Library::open(&roots, &[], None);
        let mut here = Timelines::default();
        let (listed, _) = host.list().unwrap();
        for (id, truncated) in [(long, true), (short, false)] {
            let meta = listed.sessions.iter().find(|s| s.id == id).unwrap();
            let there = host.events(&named(meta)).unwrap();
            let local = here.read(lib.catalog(), meta).unwrap();
            assert_eq!(local.truncated, truncated, "{id}");
            assert_eq!(
                (there.truncated, there.cursor, there.ended),
                (local.truncated, local.cursor, local.ended),
                "{id}"
            );
            assert_eq!(there.events, local.events, "{id}");
        }
    }

    /// The Diagnostics of a host name the cache there: its file of the server's roots and its
    /// size, as core's `CacheInfo` finds them on that machine.
    #[test]
    fn health_shows_the_remotes_cache() {
        let cache = tempfile::tempdir().unwrap();
        let host = host_cached(Some(cache.path()));
        let health = host.health().unwrap();
        let there = CacheInfo::of(Some(cache.path()), &roots());
        assert!(there.bytes > 0, "the remote's listing filled its cache");
        assert_eq!(health.cache, there);
        assert_eq!(health.roots.len(), 1);
        assert_eq!(health.roots[0].root, fixture());
    }

    /// Markdown, JSON and HTML of a remote session, written here from its pages, are byte for
    /// byte the local export of the same store; a message is found with its index.
    #[test]
    fn exports_and_messages_from_the_remote_are_the_local_ones() {
        use agent_sessions_core::actions::export::{Exporter, Format, Options};
        let host = host();
        let (lib, sessions) = local();
        for session in &sessions {
            let transcript = host.transcript(&named(session)).unwrap();
            for format in [Format::Markdown, Format::Json, Format::Html] {
                let document = |e: Exporter| {
                    let mut out = Vec::new();
                    e.exported_at(None).write(format, &mut out).unwrap();
                    out
                };
                let got = document(Exporter::from_transcript(&transcript, Options::default()));
                let want = document(Exporter::from_store(
                    lib.catalog(),
                    session,
                    Options::default(),
                ));
                assert_eq!(got, want, "{} as {format:?}", session.id);
            }
            if let Some(last) = transcript.messages.last() {
                let (i, found) = host.find(&named(session), &last.id).unwrap().unwrap();
                assert_eq!((i, &found.id), (transcript.messages.len() - 1, &last.id));
            }
        }
    }

    /// The raw-JSON view of a remote message is the local core call's on the same store, for
    /// every message of the fixture; an unknown or malformed id gets its code.
    #[test]
    fn raw_records_come_from_the_remote() {
        let host = host();
        let (lib, sessions) = local();
        let mut records = 0;
        for session in &sessions {
            for message in &lib.catalog().load(session).unwrap().messages {
                let want =
                    agent_sessions_core::raw::records(lib.catalog(), session, message).unwrap();
                let got = host.raw(&named(session), &message.id).unwrap();
                assert_eq!(got, want, "{} {}", session.id, message.id);
                records += got.records.len();
            }
        }
        assert!(records > 0);
        let first = named(&sessions[0]);
        assert_eq!(
            host.raw(&first, "no-such").unwrap_err().code,
            "message_not_found"
        );
        assert_eq!(host.raw(&first, "a\nb").unwrap_err().code, "invalid_input");
    }

    /// A host over a writable copy of the Claude fixture whose watcher connections are new
    /// connections to the same server (`old`: a server that predates `watch`, seen as one
    /// whose requests for it are answered `unknown_method`).
    fn watched_host(root: &Path, cache: &Path, old: bool) -> Host {
        use std::io::{BufRead, BufReader, Write};
        let root = root.to_path_buf();
        let cache = cache.to_path_buf();
        let memory = Arc::new(Memory::new(move |input, output| {
            let options = Options {
                roots: Roots::default().with(ProviderKind::Claude, [&root]),
                cache_dir: Some(cache.clone()),
                resolve: Box::new(|r| Ok(r.clone())),
            };
            if !old {
                let _ = serve(input, output, options);
                return;
            }
            let (mut to_server, from_client) = agent_sessions_remote::transport::pipe();
            std::thread::spawn(move || {
                for line in BufReader::new(input).lines().map_while(Result::ok) {
                    let line = line.replace("\"method\":\"watch\"", "\"method\":\"watch2\"");
                    if writeln!(to_server, "{line}").is_err() {
                        return;
                    }
                }
            });
            let _ = serve(from_client, output, options);
        }));
        let client = Client::connect(Box::new(memory.clone())).unwrap();
        let second: Connector = Arc::new(move || Client::connect(Box::new(memory.clone())));
        Host::over("testbox", None, client).with_second(second)
    }

    /// The host pushes a write to one of its sessions to the watcher (a second connection),
    /// which Diagnostics then calls watching; told to stop, the watch ends at the server's next
    /// (empty) event. An older server's `unknown_method` is the fallback to polling.
    #[test]
    fn a_watch_hears_a_write_there_and_an_older_server_is_polled() {
        const S: &str = "9d22e384-6685-4b75-ac35-088162e4c4a9";
        let store = tempfile::tempdir().unwrap();
        let copied = Command::new("cp")
            .arg("-R")
            .arg(fixture().join("."))
            .arg(store.path())
            .status()
            .unwrap();
        assert!(copied.success());
        let cache = tempfile::tempdir().unwrap();
        let host = Arc::new(watched_host(store.path(), cache.path(), false));
        let file = store
            .path()
            .join(format!("projects/-home-bob-projects-demo/{S}.jsonl"));
        let before = host.list().unwrap().0.sessions;
        let users = before.iter().find(|s| s.id == S).unwrap().counts.user;
        let (tx, rx) = std::sync::mpsc::channel();
        let watcher = host.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            watcher.watch(&mut |event| {
                let _ = tx.send(event.clone());
                !stopping.load(Ordering::SeqCst)
            })
        });
        // The watch is set up (its connection listed) before the write.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !host.watching.load(Ordering::SeqCst) {
            assert!(
                std::time::Instant::now() < deadline,
                "the watch never started"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(matches!(
            host.health().unwrap().watcher,
            WatcherState::Watching { .. }
        ));
        let line = format!(
            r#"{{"type":"user","uuid":"pushed-1","sessionId":"{S}","timestamp":"2030-01-01T00:00:00.000Z","message":{{"role":"user","content":"pushed"}}}}"#
        );
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .unwrap();
        std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()).unwrap();
        let pushed = loop {
            assert!(std::time::Instant::now() < deadline + std::time::Duration::from_secs(30));
            let event = rx
                .recv_timeout(std::time::Duration::from_secs(30))
                .expect("the write was never pushed");
            if let Some(s) = event.changed.iter().find(|s| s.id == S) {
                break s.clone();
            }
        };
        assert_eq!(pushed.counts.user, users + 1);
        stop.store(true, Ordering::SeqCst);
        assert_eq!(thread.join().unwrap().unwrap(), Watched::Stopped);
        assert!(matches!(
            host.health().unwrap().watcher,
            WatcherState::Polling { .. }
        ));

        let old = watched_host(store.path(), cache.path(), true);
        let mut called = false;
        let run = old.watch(&mut |_| {
            called = true;
            true
        });
        assert_eq!(run.unwrap(), Watched::Unsupported);
        assert!(!called);
        // The same server still answers `changes`, which the poller asks instead.
        let (_, seq) = old.list().unwrap();
        assert!(old.changes(seq).is_ok());
    }

    #[test]
    fn search_hits_name_listed_sessions() {
        let cache = tempfile::tempdir().unwrap();
        let host = host_cached(Some(cache.path()));
        let (_, sessions) = local();
        let hits = host.search("the", vec![], 20).unwrap().hits;
        assert!(!hits.is_empty());
        assert!(hits
            .iter()
            .all(|h| sessions.iter().any(|s| s.id == h.session_id)));
        // Over 32 terms: the remote's core refuses it, as a local search is refused.
        let many = vec!["word"; 33].join(" ");
        assert_eq!(
            host.search(&many, vec![], 20).unwrap_err().code,
            "invalid_input"
        );
    }

    #[test]
    fn an_unknown_session_is_not_found_and_connection_codes_cross_as_they_are() {
        let host = host();
        let missing = SessionRef {
            provider: ProviderKind::Claude,
            id: "00000000-nope".into(),
            source_path: None,
        };
        assert_eq!(host.page(&missing, 0, 10).unwrap_err().code, "not_found");
        let auth = remote_error(RemoteError::AuthFailed {
            alias: "devbox".into(),
            detail: "Permission denied (publickey)".into(),
            config: None,
        });
        assert_eq!(auth.code, "ssh_auth");
        assert!(auth.message.contains("ssh-add"), "{}", auth.message);
        let missing = remote_error(RemoteError::ServerMissing {
            host: "devbox".into(),
            remote: "linux aarch64".into(),
            ours: "linux x86_64".into(),
            path: "~/.cache/agent-sessions/server/0.1.0/agent-sessions-cli".into(),
        });
        assert_eq!(missing.code, "server_missing");
    }

    /// Runs a pasted `ssh … 'COMMAND'` in a real `sh` in `dir`, with `ssh` standing in as a
    /// function that hands its last argument to a shell, as the remote's login shell would.
    fn run_pasted(pasted: &str, dir: &Path, login_shell: &Path) -> std::process::Output {
        let script = format!("ssh() {{ for a; do last=$a; done; sh -c \"$last\"; }}\n{pasted}");
        Command::new("sh")
            .arg("-c")
            .arg(&script)
            .env("SHELL", login_shell)
            .current_dir(dir)
            .output()
            .unwrap()
    }

    /// The resume command there, wrapped in `ssh -t`: what a user pastes, run by a real `sh`
    /// with `ssh` standing in as a function that hands its last argument to a shell, as the
    /// remote's login shell would.
    #[test]
    fn remote_commands_reach_the_remote_shell_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let hostile = dir
            .path()
            .join("it's a $(touch pwned) `x` \\ dir; rm -rf ~");
        std::fs::create_dir(&hostile).unwrap();
        let shell = dir.path().join("print-dir");
        std::fs::write(&shell, "#!/bin/sh\npwd\n").unwrap();
        let executable = std::os::unix::fs::PermissionsExt::from_mode(0o755);
        std::fs::set_permissions(&shell, executable).unwrap();

        let there = login_shell_in(hostile.to_str().unwrap()).unwrap();
        let ssh = ssh_command("devbox", Some(Path::new("/tmp/my config")), &there.posix()).unwrap();
        assert_eq!(
            &ssh.args()[..5],
            ["-F", "/tmp/my config", "-t", "--", "devbox"]
        );
        let pasted = ssh.posix();
        assert!(
            pasted.starts_with("ssh -F '/tmp/my config' -t -- devbox '"),
            "{pasted}"
        );
        let out = run_pasted(&pasted, dir.path(), &shell);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim_end(),
            hostile.to_str().unwrap()
        );
        assert!(!dir.path().join("pwned").exists());

        for bad in ["/w/a\nb", "/w/\u{1b}]0;x\u{7}"] {
            assert_eq!(login_shell_in(bad).unwrap_err().code, "invalid_input");
        }
        assert!(ssh_command("devbox", None, "true\u{7}").is_err());
    }

    /// Resume (or Open terminal) on a host where it cannot run: the terminal's ssh command, run
    /// by a real `sh` as the remote's login shell would, says why and that it waits for Enter
    /// (a local terminal closes when its command ends: the window only flashed). A command that
    /// works runs exactly, nothing added to what it prints.
    #[test]
    fn a_remote_command_that_fails_stays_on_screen_saying_why() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("it's gone");
        let resume = ResumeCommand::new("true", &[], Some(gone.to_str().unwrap())).unwrap();
        let ssh = ssh_command("devbox", None, &held(&resume, "devbox").unwrap().posix()).unwrap();
        let out = run_pasted(&ssh.posix(), dir.path(), Path::new("/bin/sh"));
        let said = String::from_utf8_lossy(&out.stdout);
        let why = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(why.contains("it's gone"), "{why}");
        assert!(
            said.contains(
                "exit status 2 on devbox (the reason is above). Press Enter to close this window."
            ),
            "{said}"
        );

        let here = dir.path().join("a $(touch pwned) dir");
        std::fs::create_dir(&here).unwrap();
        let resume = ResumeCommand::new("pwd", &[], Some(here.to_str().unwrap())).unwrap();
        let ssh = ssh_command(
            "devbox",
            None,
            &held(&resume, "x; touch pwned").unwrap().posix(),
        )
        .unwrap();
        let out = run_pasted(&ssh.posix(), dir.path(), Path::new("/bin/sh"));
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim_end(),
            here.to_str().unwrap()
        );
        assert!(!dir.path().join("pwned").exists() && !here.join("pwned").exists());
    }

    /// Resume in terminal and Open terminal into a directory that is not on the host are
    /// refused by the host before a terminal opens, saying where; Copy resume command still
    /// copies the command (it is not for a terminal here).
    #[test]
    fn a_terminal_into_a_directory_gone_there_is_refused_naming_the_host() {
        let host = host();
        let session = SessionRef {
            provider: ProviderKind::Claude,
            id: "9d22e384-6685-4b75-ac35-088162e4c4a9".into(),
            source_path: None,
        };
        let want = "On testbox: the session's directory /home/bob/projects/demo no longer exists";
        for refused in [
            host.resume_in_terminal(&session).unwrap_err(),
            host.shell_in_dir(&session).unwrap_err(),
        ] {
            assert_eq!(refused.code, ErrorCode::NotFound);
            assert!(refused.message.starts_with(want), "{}", refused.message);
            assert_eq!(refused.copy, None);
        }
        assert_eq!(
            host.resume(&session).unwrap().cwd(),
            Some("/home/bob/projects/demo")
        );
    }

    /// A WSL host's command: the distribution's `sh` gets the same POSIX text ssh's login
    /// shell would, as one argv element.
    #[test]
    fn a_wsl_host_runs_the_remote_command_through_wsl_exe() {
        let there = login_shell_in("/home/me/it's").unwrap();
        let wsl = wsl_command("Debian 12", &there.posix()).unwrap();
        assert_eq!(wsl.program(), "wsl.exe");
        assert_eq!(
            wsl.args(),
            [
                "-d",
                "Debian 12",
                "--exec",
                "sh",
                "-c",
                there.posix().as_str()
            ]
        );
        assert!(wsl_command("Ubuntu", "true\u{7}").is_err());
    }

    /// Continue in… on a host: the host's prepared command (`/bin/sh -c SCRIPT … FILE AGENT`)
    /// wrapped as `ssh -t ALIAS 'cd -- DIR && exec …'`, run by a real `sh` with `ssh` standing in
    /// as the remote's login shell: the stand-in agent runs in the hostile directory with the
    /// prompt file's exact text as its one argument, and the file is gone.
    #[test]
    fn a_prepared_handoff_runs_the_agent_there_over_ssh() {
        use agent_sessions_core::actions::handoff::launch::UNIX_SCRIPT;
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let hostile = dir.path().join("it's a $(touch pwned) `x` \\ dir; -rf *");
        std::fs::create_dir(&hostile).unwrap();
        let record = dir.path().join("record");
        let agent = dir.path().join("codex");
        let script = format!(
            "#!/bin/sh\npwd > '{0}.pwd'\nprintf '%s' \"$#\" > '{0}.argc'\nprintf '%s' \"$1\" > '{0}.prompt'\n",
            record.display()
        );
        std::fs::write(&agent, script).unwrap();
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
        let prompt_file = dir.path().join("handoff-1-2.md");
        let doc = "This is a handoff\n```\n$(touch pwned) `x` 'q' \\\n```\n";
        std::fs::write(&prompt_file, doc).unwrap();
        let words = |v: &[&Path]| -> Vec<String> {
            v.iter().map(|p| p.to_str().unwrap().to_owned()).collect()
        };
        let mut argv: Vec<String> = ["/bin/sh", "-c", UNIX_SCRIPT, "agent-sessions-handoff"]
            .map(String::from)
            .to_vec();
        argv.extend(words(&[&prompt_file, &agent]));
        let prepared = wire::HandoffPrepared {
            cwd: hostile.clone(),
            prompt_file: prompt_file.clone(),
            argv,
            chars: doc.chars().count(),
        };

        let there = handoff_command(&prepared).unwrap();
        let ssh = ssh_command("devbox", Some(Path::new("/tmp/my config")), &there.posix()).unwrap();
        assert_eq!(ssh.program(), "ssh");
        assert_eq!(
            &ssh.args()[..5],
            ["-F", "/tmp/my config", "-t", "--", "devbox"]
        );
        assert_eq!(ssh.args().len(), 6);
        let remote = &ssh.args()[5];
        assert!(remote.starts_with("cd -- '"), "{remote}");
        assert!(remote.contains(" && exec /bin/sh -c '"), "{remote}");

        let out = run_pasted(&ssh.posix(), dir.path(), Path::new("/bin/sh"));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let read = |ext: &str| std::fs::read_to_string(record.with_extension(ext)).unwrap();
        assert_eq!(read("argc"), "1");
        assert_eq!(read("prompt"), doc.trim_end_matches('\n'));
        assert_eq!(read("pwd").trim_end(), hostile.to_str().unwrap());
        assert!(!prompt_file.exists());
        assert!(!dir.path().join("pwned").exists());

        // Control characters in the directory or a word there are refused, not quoted.
        let mut bad = prepared.clone();
        bad.cwd = PathBuf::from("/w/a\nb");
        assert_eq!(handoff_command(&bad).unwrap_err().code, "invalid_input");
        let mut bad = prepared.clone();
        bad.argv.push("\u{1b}]0;x\u{7}".into());
        assert_eq!(handoff_command(&bad).unwrap_err().code, "invalid_input");
        bad.argv.clear();
        assert_eq!(handoff_command(&bad).unwrap_err().code, "protocol");
    }
}
