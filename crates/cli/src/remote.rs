//! `--host ALIAS`: `scan`, `show`, `search`, `log` (with `--follow`), `stats`, `diagnostics`,
//! `export`, `bundle export|import`, `trash`, `delete`, `handoff --print` and `open` (a
//! terminal here running `ssh -t` there) answered by
//! `agent-sessions-cli serve --stdio` on another machine, reached
//! through the system ssh (`--ssh-config FILE` or `AGENT_SESSIONS_SSH_CONFIG` for `ssh -F`).
//! The answers are data; the envelopes are built from them by the same functions as local
//! output, so a command prints the same thing whichever machine read the store.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_sessions_core::actions::export::{refuse_agent_store, write_file, Exporter};
use agent_sessions_core::bundle::Bundle;
use agent_sessions_core::config::ConfigFile;
use agent_sessions_core::paths::{process_env, resolve};
use agent_sessions_core::{
    Diagnostics, Error, Message, ProviderKind, Roots, ScanReport, SessionMeta,
};
use agent_sessions_remote::protocol::*;
use agent_sessions_remote::ssh::Ssh;
use agent_sessions_remote::{Client, Error as RemoteError};
use serde_json::json;

use crate::bundle::{BundleAction, ExportArgs as BundleExportArgs, ImportArgs as BundleImportArgs};
use crate::envelope::{Envelope, MessageSource};
use crate::handoff::Args as HandoffArgs;
use crate::trash::Common as TrashCommon;
use crate::{follow, render, Command};

/// Where and how to connect.
pub struct Target {
    pub alias: String,
    pub ssh_config: Option<PathBuf>,
    /// `--root` flags given with `--host`: the remote reads these instead of its own.
    pub roots: Vec<(ProviderKind, PathBuf)>,
}

/// Runs `command` on the host and prints its envelope.
pub fn main(target: Target, command: Command, json: bool) -> ExitCode {
    let result = connect(&target).and_then(|client| run(client, command, json, &target));
    match result {
        Ok(out) => {
            out.print(json);
            match out.failed() {
                Some(e) => {
                    eprintln!("error: {}", render::terminal_safe(&e.to_string()));
                    ExitCode::from(exit_code(e.code()))
                }
                None if out.has_error() => ExitCode::from(2),
                None => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            Envelope::failure_coded(e.code(), e.to_string()).print(json);
            ExitCode::from(exit_code(e.code()))
        }
    }
}

/// Refusals of what was asked (as locally) exit 2; failures 1.
fn exit_code(code: &str) -> u8 {
    const REFUSALS: &[&str] = &[
        "root_missing",
        "bad_query",
        "bad_host",
        "bad_params",
        "remote_unsupported",
        // A bundle's refusals (all but io and restore_failed), as locally.
        "bundle_invalid",
        "bundle_unsafe",
        "bundle_too_large",
        "bundle_checksum",
        "bundle_manifest",
        "bundle_version",
        "unsupported",
        "bundle_not_restorable",
        "bad_target",
        "restore_token",
        "session_live",
        "session_exists",
        // Trash's refusals (all but trash_failed), as locally.
        "delete_disabled",
        "permanent_delete_disabled",
        "session_recent",
        "subagents_undecided",
        "subagents_go_along",
        "agent_missing",
        "invalid_session_id",
        "unsafe_path",
        "stale_plan",
    ];
    if REFUSALS.contains(&code) {
        2
    } else {
        1
    }
}

pub(crate) fn connect(target: &Target) -> Result<Client, RemoteError> {
    // On Windows a `wsl:NAME` host is a WSL distribution, reached through wsl.exe.
    #[cfg(windows)]
    if let Some(distro) = agent_sessions_remote::wsl::distro_of(&target.alias) {
        let wsl = agent_sessions_remote::wsl::Wsl::new(distro);
        return with_roots(Client::connect(Box::new(wsl))?, target);
    }
    let mut ssh = Ssh::with_config(&target.alias, ssh_config(target))?;
    // This very binary is the server a remote of the same platform gets.
    ssh.server_binary = std::env::current_exe().ok();
    let notes = ssh.notes.clone();
    let client = Client::connect(Box::new(ssh))?;
    for note in notes.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        eprintln!("note: {}", render::terminal_safe(note));
    }
    with_roots(client, target)
}

/// `--ssh-config FILE`, else `AGENT_SESSIONS_SSH_CONFIG`: the `ssh -F` of the connection and
/// of the commands `open` runs.
fn ssh_config(target: &Target) -> Option<PathBuf> {
    target
        .ssh_config
        .clone()
        .or_else(|| std::env::var_os("AGENT_SESSIONS_SSH_CONFIG").map(PathBuf::from))
}

fn with_roots(mut client: Client, target: &Target) -> Result<Client, RemoteError> {
    if !target.roots.is_empty() {
        client.set_roots(RootsParams {
            roots: target.roots.clone(),
        })?;
    }
    Ok(client)
}

fn run(
    mut client: Client,
    command: Command,
    json: bool,
    target: &Target,
) -> Result<Envelope, RemoteError> {
    match command {
        Command::Scan {
            providers,
            no_cache,
            filter,
        } => {
            let listed = client.list(&ListParams {
                providers,
                no_cache,
            })?;
            let report = ScanReport {
                sessions: listed.sessions,
                diagnostics: listed.diagnostics,
            };
            Ok(filter.scanned(report, &listed.warnings))
        }
        Command::Show { id, no_cache: _ } => show(client, id),
        Command::Search {
            query,
            limit,
            providers,
            dir,
            since,
            until,
        } => {
            let params = SearchParams {
                query,
                limit,
                providers,
                dir,
                since_ms: since,
                until_ms: until,
            };
            search(&mut client, params)
        }
        Command::Log { id, follow, tail } => log(&mut client, id, tail, follow, json),
        Command::Stats(args) => {
            let listed = client.list(&ListParams {
                providers: args.providers,
                no_cache: args.no_cache,
            })?;
            let mut out = crate::stats::envelope(&listed.sessions, args.by);
            out.warn(&listed.warnings);
            Ok(out)
        }
        Command::Diagnostics { providers } => diagnostics(&mut client, providers),
        Command::Export(args) => export(client, args, json),
        Command::Bundle { action } => bundle(client, action, json),
        Command::Trash(args) => trash(&mut client, args.common, false, json),
        Command::Delete(args) => trash(&mut client, args.common, true, json),
        Command::Handoff(args) => handoff(&mut client, args),
        Command::Open(args) => {
            let config = ConfigFile::load_default(&process_env);
            let alias = &target.alias;
            let ssh_config = ssh_config(target);
            crate::open::remote(&mut client, alias, ssh_config.as_deref(), args, &config)
        }
        _ => Err(unsupported(
            "--host works with scan, show, search, log, stats, diagnostics, export, bundle export, bundle import, trash, delete, handoff --print and open; run other commands on the host itself (ssh HOST agent-sessions-cli …)",
        )),
    }
}

/// `trash`/`delete --host`: planned on the host with its opt-ins, shown and confirmed here as
/// locally, then run there only if planning again gives the plan shown.
fn trash(
    client: &mut Client,
    args: TrashCommon,
    permanent: bool,
    json: bool,
) -> Result<Envelope, RemoteError> {
    let mut params = TrashParams {
        session: SessionRef::named(args.id.clone()),
        permanent,
        subagents: args.subagents(),
        plan: None,
    };
    let planned = client.trash(&params)?;
    if let Some(refused) = crate::trash::consent(&planned.plan, args.yes, json) {
        return Ok(refused);
    }
    // The session by its full id and file from now on: the confirmed plan names it.
    let planned_session = &planned.plan.session;
    params.session = SessionRef {
        source_path: Some(planned_session.source_path.clone()),
        ..SessionRef::exact(planned_session.provider, planned_session.id.clone())
    };
    params.plan = Some(planned.plan);
    let ran = client.trash(&params)?;
    let Some(done) = ran.done else {
        return Err(unsupported("the host answered without doing the plan"));
    };
    let mut out = crate::trash::done_envelope(&ran.plan, &done);
    out.warn(&ran.warnings);
    Ok(out)
}

/// `handoff --host --print`: the document built on the host, printed here. Starting an agent
/// in a terminal there is not done from here.
fn handoff(client: &mut Client, args: HandoffArgs) -> Result<Envelope, RemoteError> {
    if !args.start.prints() {
        return Err(unsupported(
            "handoff with --host only prints the document (--print); to start an agent on the host, run handoff there (ssh -t HOST agent-sessions-cli handoff …), or paste the printed document into an agent started over ssh",
        ));
    }
    let params = HandoffParams {
        session: SessionRef::named(args.id),
        to: args.start.to,
        budget: Some(args.start.budget().chars()),
    };
    let doc = client.handoff(&params)?;
    Ok(Envelope::ok(json!(doc), doc.markdown))
}

fn unsupported(message: &str) -> RemoteError {
    RemoteError::Server(WireError::new("remote_unsupported", message))
}

fn bundle(mut client: Client, action: BundleAction, json: bool) -> Result<Envelope, RemoteError> {
    match action {
        BundleAction::Export(args) => bundle_export(&mut client, args),
        BundleAction::Import(args) => bundle_import(&mut client, args, json),
        BundleAction::Inspect { .. } | BundleAction::Continue(_) => Err(unsupported(
            "bundle inspect and bundle continue read a bundle on this machine: run them without --host",
        )),
    }
}

/// `bundle export --host`: made on the host, its bytes written here (0600, all or nothing)
/// and checked by the bundle reader before it is reported.
fn bundle_export(client: &mut Client, args: BundleExportArgs) -> Result<Envelope, RemoteError> {
    let params = BundleExportParams {
        session: SessionRef::named(args.id),
        share_safe: args.share_safe,
    };
    // Without -o the name is the host's (<title>.agent-session.zip), known at the end.
    let path = args.output.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            ".agent-session-download-{}.zip",
            std::process::id()
        ))
    });
    let roots = local_roots();
    refuse_agent_store(&roots, &path).map_err(from_core)?;
    let mut answer = None;
    // On any failure write_file leaves nothing behind; the remote's error is kept as it is.
    let written = write_file(&path, args.force, |out| {
        answer = Some(client.bundle_export(&params, out));
        match &answer {
            Some(Err(e)) => Err(Error::io(
                path.clone(),
                std::io::Error::other(e.to_string()),
            )),
            _ => Ok(()),
        }
    });
    let answer = match (answer, written) {
        (Some(Err(e)), _) => return Err(e),
        (_, Err(e)) => return Err(from_core(e)),
        (Some(Ok(a)), Ok(_)) => a,
        (None, Ok(_)) => return Err(unsupported("the bundle was not sent")),
    };
    let path = match args.output {
        Some(path) => path,
        None => name_download(&path, &answer.name, args.force, &roots).map_err(from_core)?,
    };
    let checked = Bundle::open(&path).map_err(|e| from_core(e.into()))?;
    Ok(crate::bundle::exported(
        &path,
        checked.size,
        &checked.manifest,
    ))
}

/// Moves a download to the name the host gave it, in the same folder, replacing nothing
/// unless `force`.
fn name_download(temp: &Path, name: &str, force: bool, roots: &Roots) -> Result<PathBuf, Error> {
    // The host's name is of its making: only a plain `….agent-session.zip` name is used.
    let plain = Path::new(name)
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| {
            n.ends_with(".agent-session.zip")
                && !n.starts_with('.')
                && !n.chars().any(char::is_control)
        });
    let name = PathBuf::from(plain.unwrap_or("session.agent-session.zip"));
    let target = temp.with_file_name(name);
    let done = refuse_agent_store(roots, &target).and_then(|()| {
        if force {
            return std::fs::rename(temp, &target).map_err(|e| Error::io(target.clone(), e));
        }
        std::fs::hard_link(temp, &target).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => Error::FileExists {
                path: target.clone(),
            },
            _ => Error::io(target.clone(), e),
        })
    });
    let _ = std::fs::remove_file(temp);
    done.map(|()| target)
}

/// `bundle import --host`: the bundle is checked here, uploaded, previewed on the host (the
/// same checks and refusals as there), confirmed here as a local import is, and restored
/// there with the preview's token.
fn bundle_import(
    client: &mut Client,
    args: BundleImportArgs,
    json: bool,
) -> Result<Envelope, RemoteError> {
    Bundle::open(&args.file).map_err(|e| from_core(e.into()))?;
    let upload = client.upload(&args.file)?;
    let mut params = BundleImportParams {
        upload,
        dir: args.dir.clone(),
        as_copy: args.as_copy,
        token: None,
    };
    let preview = client.bundle_import(&params)?;
    if let Some(refused) =
        crate::bundle::consent(&preview.manifest, &preview.preview, args.yes, json)
    {
        return Ok(refused);
    }
    params.token = Some(preview.preview.token.clone());
    let done = client.bundle_import(&params)?;
    let Some(restored) = &done.restored else {
        return Err(RemoteError::Server(WireError::new(
            "protocol",
            "the host answered the restore without what it restored",
        )));
    };
    Ok(crate::bundle::restored_envelope(
        &done.preview,
        restored,
        done.session.as_ref(),
        done.resume_command.clone(),
    ))
}

fn show(mut client: Client, id: String) -> Result<Envelope, RemoteError> {
    let first = client.first_page(SessionRef::named(id))?;
    // Why there is none (`resume_unavailable`, `resume_other_copy`…), as the host said it.
    let resume = first.resume().map_err(|e| as_core(RemoteError::Server(e)));
    let session = first.session.clone();
    let source = Pages {
        client: RefCell::new(client),
        first: RefCell::new(Some(first)),
    };
    Ok(Envelope::show_from(Box::new(source), session, resume))
}

/// `export --host`: the transcript is read from the host page by page, the document written
/// here (outputs the store keeps as blobs stay previews, as for any loaded transcript).
fn export(
    mut client: Client,
    args: crate::export::Args,
    json: bool,
) -> Result<Envelope, RemoteError> {
    crate::export::require_output_for_json(&args, json);
    let transcript = client.transcript(SessionRef::named(args.id()))?;
    let exporter = Exporter::from_transcript(&transcript, args.options());
    // The file is written on this machine: never into one of its agents' stores.
    crate::export::deliver(&exporter, &args, &local_roots(), &[]).map_err(from_core)
}

fn local_roots() -> Roots {
    let config = ConfigFile::load_default(&process_env);
    resolve(&Roots::default(), &process_env, &config)
        .map(|r| r.roots())
        .unwrap_or_default()
}

fn from_core(e: Error) -> RemoteError {
    RemoteError::Server(WireError::new(e.code(), e.to_string()))
}

/// A transcript's pages, fetched as `show` writes them out.
struct Pages {
    client: RefCell<Client>,
    first: RefCell<Option<ShowResult>>,
}

impl MessageSource for Pages {
    fn each(
        &self,
        _session: &SessionMeta,
        each: &mut dyn FnMut(Message),
    ) -> Result<Diagnostics, Error> {
        let Some(first) = self.first.borrow_mut().take() else {
            return Err(as_core(RemoteError::Server(WireError::new(
                "internal",
                "the transcript was already read",
            ))));
        };
        let mut client = self.client.borrow_mut();
        let mut each = |m| {
            each(m);
            ControlFlow::Continue(())
        };
        client.each_message(first, &mut each).map_err(as_core)
    }
}

/// The host's error (or the link's, when it dropped) as the core error `show` holds, its code
/// and message as they were: printed as a local `show` prints its own.
fn as_core(e: RemoteError) -> Error {
    Error::Remote {
        code: e.code().to_owned(),
        message: e.to_string(),
    }
}

fn search(client: &mut Client, params: SearchParams) -> Result<Envelope, RemoteError> {
    let answer = client.search(&params)?;
    let mut out = Envelope::search(answer.results.into());
    out.warn(&answer.warnings);
    Ok(out)
}

fn log(
    client: &mut Client,
    id: String,
    tail: Option<usize>,
    following: bool,
    json: bool,
) -> Result<Envelope, RemoteError> {
    let first = client.log(&SessionRef::named(id))?;
    let skip = tail.map_or(0, |n| first.events.len().saturating_sub(n));
    let shown = &first.events[skip..];
    if !following {
        return Ok(Envelope::events(shown.to_vec(), first.cursor));
    }
    for e in shown {
        follow::print_event(e, json);
    }
    if first.ended {
        return Ok(Envelope::silent());
    }
    let params = FollowParams {
        provider: first.session.provider,
        id: first.session.id.clone(),
        cursor: first.cursor,
        // The file the log was read from: another file may hold the same session.
        source_path: Some(first.session.source_path.clone()),
    };
    client.follow(params, &mut |update| {
        if update.truncated {
            eprintln!("warning: fell behind; some events were skipped");
        }
        for e in &update.events {
            follow::print_event(e, json);
        }
        true
    })?;
    Ok(Envelope::silent())
}

fn diagnostics(client: &mut Client, providers: Vec<ProviderKind>) -> Result<Envelope, RemoteError> {
    let answer = client.diagnostics(&DiagnosticsParams { providers })?;
    let diagnostics = Diagnostics {
        parse_errors: answer.parse_errors,
        items: answer.items,
    };
    let versions = answer
        .format_versions
        .into_iter()
        .map(|v| (v.provider, v.format_version, v.sessions))
        .collect();
    Ok(Envelope::diagnostics(diagnostics, versions))
}
