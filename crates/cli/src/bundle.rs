//! `bundle export|inspect|import|continue`: a session as a portable `.agent-session.zip`, back
//! into an agent's store, or continued in an agent from the bundle (the work is
//! `agent_sessions_core::bundle`; this is flags, where files go, and the summary as text).

use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use agent_sessions_core::actions::export::refuse_agent_store;
use agent_sessions_core::bundle::restore::Method;
use agent_sessions_core::bundle::{
    self, Agents, Bundle, BundleError, Manifest, Mode, Preview, Restored, Target, Tokens,
};
use agent_sessions_core::config::ConfigFile;
use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::near;
use agent_sessions_core::{Error, Roots, SessionMeta};
use serde_json::{json, Value};

use crate::envelope::Envelope;
use crate::{progress, render};

#[derive(clap::Subcommand)]
pub enum BundleAction {
    /// Write a session (with its subagents) as <title>.agent-session.zip. Complete by default:
    /// the agent's own records verbatim, private (0600): it can hold secrets.
    Export(ExportArgs),
    /// Check a bundle and print what it holds (nothing is written).
    Inspect { file: PathBuf },
    /// Restore a complete bundle into its agent's store (the default root, or --claude-root,
    /// --codex-root, --opencode-root) so that the agent resumes it in DIR.
    Import(ImportArgs),
    /// Continue the bundle's session in an agent (its own or another) in DIR, from the bundle's
    /// transcript: nothing is restored (what a share-safe bundle is for). Like `handoff`.
    Continue(ContinueArgs),
}

#[derive(clap::Args)]
pub struct ContinueArgs {
    file: PathBuf,
    /// The directory the agent starts in (the path the session was recorded in is not reused).
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    #[command(flatten)]
    start: crate::handoff::Start,
}

#[derive(clap::Args)]
pub struct ImportArgs {
    pub(crate) file: PathBuf,
    /// The directory the session continues in (the path it was recorded in is not reused).
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: PathBuf,
    /// Give every session of the bundle a new id (when the session is in the store already;
    /// not for OpenCode).
    #[arg(long)]
    pub(crate) as_copy: bool,
    /// Restore without asking (needed with --json or without a terminal).
    #[arg(long)]
    pub(crate) yes: bool,
    /// Read the store directly instead of through the cache.
    #[arg(long)]
    no_cache: bool,
}

#[derive(clap::Args)]
pub struct ExportArgs {
    /// The session id, an unambiguous prefix of it, or the path of its file (which names one of
    /// two files holding the same session).
    pub(crate) id: String,
    /// Write to FILE (default: <title>.agent-session.zip in the current directory).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    /// Replace FILE when it exists.
    #[arg(long)]
    pub(crate) force: bool,
    /// Redact secrets and home paths and leave out the agent's own records (for handing the
    /// session to someone or another agent; it cannot be restored).
    #[arg(long)]
    pub(crate) share_safe: bool,
    /// Read the stores directly instead of through the cache.
    #[arg(long)]
    no_cache: bool,
}

pub fn run(
    roots: &Roots,
    action: BundleAction,
    json: bool,
    config: &ConfigFile,
) -> Result<Envelope, Error> {
    match action {
        BundleAction::Export(args) => export(roots, args),
        BundleAction::Inspect { file } => inspect(&file),
        BundleAction::Import(args) => import(roots, args, json),
        BundleAction::Continue(args) => continue_in(args, config),
    }
}

fn continue_in(args: ContinueArgs, config: &ConfigFile) -> Result<Envelope, Error> {
    let b = Bundle::open(&args.file)?;
    let continued = bundle::handoff::handoff(&b, &args.dir, args.start.to, args.start.budget())?;
    crate::handoff::start(&continued.session, &args.start, config, || {
        Ok(continued.handoff.clone())
    })
}

fn export(roots: &Roots, args: ExportArgs) -> Result<Envelope, Error> {
    let mut lib = crate::open(roots, &[], !args.no_cache);
    let report = progress::run("scanning", |p| lib.sessions(p))?;
    let session = lib.catalog().find(&report.sessions, &args.id)?.clone();
    let mode = if args.share_safe {
        Mode::ShareSafe
    } else {
        Mode::Complete
    };
    let prepared = bundle::prepare(lib.catalog(), &report.sessions, &session, mode)?;
    let path = args
        .output
        .unwrap_or_else(|| PathBuf::from(prepared.file_name()));
    refuse_agent_store(roots, &path)?;
    let saved = prepared.save(&path, args.force)?;
    let mut out = exported(&saved.path, saved.bytes, &saved.manifest);
    out.warn(lib.warnings());
    Ok(out)
}

/// What `bundle export` prints for a bundle written to `path` (here or from a remote).
pub(crate) fn exported(path: &Path, bytes: u64, manifest: &Manifest) -> Envelope {
    let shown = dunce::canonicalize(path).unwrap_or(path.to_path_buf());
    let mut text = format!("wrote {} ({} bytes)\n", shown.display(), bytes);
    text.push_str(&summary(manifest));
    if manifest.mode == Mode::Complete {
        text.push_str(
            "warning: a complete bundle holds the session verbatim and can contain secrets; \
             share it only with people you trust, or make a --share-safe one\n",
        );
    }
    Envelope::ok(
        json!({ "path": shown, "bytes": bytes, "manifest": manifest }),
        text,
    )
}

fn inspect(file: &Path) -> Result<Envelope, Error> {
    let b = Bundle::open(file)?;
    let text = format!(
        "{} ({} bytes, unpacks to {} bytes, sha256 {}): checked, every file matches its manifest\n{}",
        file.display(),
        b.size,
        b.unpacked,
        b.sha256,
        summary(&b.manifest)
    );
    Ok(Envelope::ok(
        json!({ "path": file, "bytes": b.size, "unpacked": b.unpacked, "sha256": b.sha256, "manifest": b.manifest }),
        text,
    ))
}

/// Preview, confirm, restore, and list the restored session with its resume command.
fn import(roots: &Roots, args: ImportArgs, json: bool) -> Result<Envelope, Error> {
    let b = Bundle::open(&args.file)?;
    let kind = b.manifest.source.provider;
    let root = bundle::restore::store_for(kind, roots, &args.dir).ok_or_else(|| {
        BundleError::Target(format!(
            "there is no {kind} store to restore into; pass --{kind}-root DIR"
        ))
    })?;
    let target_roots = Roots::default().with(kind, [&root]);
    let mut lib = crate::open(&target_roots, &[kind], !args.no_cache);
    let listed = progress::run("scanning", |p| lib.sessions(p))?;
    let target = Target {
        root,
        dir: args.dir.clone(),
        as_copy: args.as_copy,
    };
    let agents = Agents::from_path();
    let tokens = Tokens::new();
    let preview = bundle::preview(
        &b,
        lib.catalog(),
        &listed.sessions,
        &target,
        &agents,
        &tokens,
    )?;
    if let Some(refused) = consent(&b.manifest, &preview, args.yes, json) {
        return Ok(refused);
    }
    let restored = bundle::restore(
        &args.file,
        lib.catalog(),
        &listed.sessions,
        &target,
        &agents,
        &tokens,
        &preview.token,
    )?;
    // The restored session, as the list shows it now.
    let now = progress::run("scanning", |p| lib.sessions(p))?;
    let session = now
        .sessions
        .iter()
        .find(|s| s.id == restored.session_id)
        .cloned();
    let resume = match &session {
        Some(s) => agent_sessions_remote::resume_json(lib.catalog().resume_command(s).as_ref()),
        None => Value::Null,
    };
    let mut out = restored_envelope(&preview, &restored, session.as_ref(), resume);
    out.warn(lib.warnings());
    let cache = default_cache_dir();
    out.warn(&Vec::from_iter(near::remember_restored(
        cache.as_deref(),
        &restored,
    )));
    Ok(out)
}

/// What `bundle import` prints after a restore (here or on a remote): the restored session
/// as listed there, and its resume command as `show --json` gives it.
pub(crate) fn restored_envelope(
    preview: &Preview,
    restored: &Restored,
    session: Option<&SessionMeta>,
    resume_json: Value,
) -> Envelope {
    let mut text = format!(
        "restored the {} session {} into {} (continue it in {})\n",
        restored.provider,
        restored.session_id,
        preview.root.display(),
        restored.dir.display()
    );
    if let Some(s) = session {
        let _ = writeln!(
            text,
            "  messages: {} user, {} assistant, {} tool calls",
            s.counts.user, s.counts.assistant, s.counts.tool_calls
        );
    }
    if let Some(shell) = resume_json["shell"].as_str() {
        let _ = writeln!(text, "  resume: {shell}");
    }
    let mut out = Envelope::ok(
        json!({ "preview": preview, "restored": restored, "session": session, "resume_command": resume_json }),
        text,
    );
    if session.is_none() {
        out.warn(&[format!(
            "{} was restored but is not listed yet; list the sessions again",
            restored.session_id
        )]);
    }
    out
}

/// Shows the preview and asks, unless `yes`; the envelope to print instead of restoring when
/// it was not confirmed (with `--json` or without a terminal, `--yes` is required).
pub(crate) fn consent(
    manifest: &Manifest,
    preview: &Preview,
    yes: bool,
    json: bool,
) -> Option<Envelope> {
    if yes {
        return None;
    }
    let shown = preview_text(manifest, preview);
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let planned =
        |text: String| Envelope::ok(json!({ "preview": preview, "restored": null }), text);
    if json || !terminal {
        if !json {
            eprint!("{}", render::terminal_safe(&shown));
        }
        return Some(planned(shown.clone()).fail_with(
            "confirmation_needed",
            "nothing was restored: run again with --yes to restore as previewed".into(),
        ));
    }
    if !confirm(&shown) {
        return Some(
            planned(String::new()).fail_with("cancelled", "cancelled; nothing was changed".into()),
        );
    }
    None
}

/// Asks on the terminal; true only for an explicit yes.
fn confirm(preview: &str) -> bool {
    let mut err = std::io::stderr();
    let _ = write!(err, "{}Restore? [y/N] ", render::terminal_safe(preview));
    let _ = err.flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// What a restore would do, for people.
fn preview_text(m: &Manifest, p: &Preview) -> String {
    let mut t = summary(m);
    let _ = writeln!(
        t,
        "restore into the {} store {}{}",
        p.provider,
        p.root.display(),
        if p.as_copy {
            ", as a copy with new ids"
        } else {
            ""
        }
    );
    let _ = writeln!(
        t,
        "  directory: {} (recorded in {})",
        p.dir.display(),
        p.from_dir.as_deref().unwrap_or("an unknown directory")
    );
    for (old, new) in &p.sessions {
        if old == new {
            let _ = writeln!(t, "  session {new}");
        } else {
            let _ = writeln!(t, "  session {old} as {new}");
        }
    }
    match &p.method {
        Method::Files { files } => {
            for f in files {
                let _ = writeln!(t, "  create: {}", f.display());
            }
        }
        Method::Import { program } => {
            let _ = writeln!(t, "  run: {} import (once per session)", program.display());
        }
        Method::Rows { db } => {
            let _ = writeln!(
                t,
                "  insert the rows into {} in one transaction",
                db.display()
            );
        }
        Method::Append {
            file,
            from_len,
            bytes,
        } => {
            let made = if *from_len == 0 && !file.exists() {
                " (creating it)"
            } else {
                ""
            };
            let _ = writeln!(t, "  append {bytes} bytes to {}{made}", file.display());
        }
    }
    for n in &p.notes {
        let _ = writeln!(t, "  note: {n}");
    }
    t
}

/// What a bundle holds, for people.
fn summary(m: &Manifest) -> String {
    let mut t = String::new();
    let s = &m.session;
    let mode = match m.mode {
        Mode::Complete => "complete",
        Mode::ShareSafe => "share-safe",
    };
    let _ = writeln!(
        t,
        "{mode} bundle (format {}) of the {} session {} {}",
        m.format_version,
        m.source.provider,
        s.id,
        s.title
            .as_deref()
            .map(|t| format!("({t})"))
            .unwrap_or_default()
    );
    let _ = writeln!(
        t,
        "  made {} by agent-sessions {} on {}, from {} {}",
        m.created_at.format("%Y-%m-%d %H:%M"),
        m.app_version,
        m.source.host.as_deref().unwrap_or("an unnamed host"),
        m.source.provider,
        m.source
            .tool_version
            .as_deref()
            .unwrap_or("(version unknown)")
    );
    if let Some(cwd) = &s.cwd {
        let _ = writeln!(t, "  directory: {cwd}");
    }
    let _ = writeln!(
        t,
        "  messages: {} user, {} assistant, {} tool calls",
        s.counts.user, s.counts.assistant, s.counts.tool_calls
    );
    for sub in &m.subagents {
        let _ = writeln!(
            t,
            "  subagent {} {}",
            sub.id,
            sub.title
                .as_deref()
                .map(|t| format!("({t})"))
                .unwrap_or_default()
        );
    }
    let native = m.native_files().count();
    let _ = writeln!(
        t,
        "  files: {} ({native} of the agent's own)",
        m.files.len()
    );
    if let Some(r) = &m.redaction {
        let _ = writeln!(
            t,
            "  redacted: {} private keys, {} JWTs, {} tokens, {} KEY= values, {} home paths",
            r.private_key, r.jwt, r.token, r.assignment, r.home_path
        );
    }
    for n in &m.notes {
        let _ = writeln!(t, "  note: {n}");
    }
    t
}
