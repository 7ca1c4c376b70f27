//! `bundle export|inspect|import`: a session as a portable `.agent-session.zip` and back into
//! an agent's store (the work is `agent_sessions_core::bundle`; this is flags, where files go,
//! and the summary as text).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use agent_sessions_core::actions::export::refuse_agent_store;
use agent_sessions_core::bundle::{self, Bundle, Manifest, Mode};
use agent_sessions_core::{Error, Roots};
use serde_json::json;

use crate::envelope::Envelope;
use crate::progress;

#[derive(clap::Subcommand)]
pub enum BundleAction {
    /// Write a session (with its subagents) as <title>.agent-session.zip. Complete by default:
    /// the agent's own records verbatim, private (0600): it can hold secrets.
    Export(ExportArgs),
    /// Check a bundle and print what it holds (nothing is written).
    Inspect { file: PathBuf },
}

#[derive(clap::Args)]
pub struct ExportArgs {
    /// The session id (or an unambiguous prefix of it).
    id: String,
    /// Write to FILE (default: <title>.agent-session.zip in the current directory).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Replace FILE when it exists.
    #[arg(long)]
    force: bool,
    /// Redact secrets and home paths and leave out the agent's own records (for handing the
    /// session to someone or another agent; it cannot be restored).
    #[arg(long)]
    share_safe: bool,
    /// Read the stores directly instead of through the cache.
    #[arg(long)]
    no_cache: bool,
}

pub fn run(roots: &Roots, action: BundleAction) -> Result<Envelope, Error> {
    match action {
        BundleAction::Export(args) => export(roots, args),
        BundleAction::Inspect { file } => inspect(&file),
    }
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
    let shown = std::fs::canonicalize(&saved.path).unwrap_or(saved.path.clone());
    let mut text = format!("wrote {} ({} bytes)\n", shown.display(), saved.bytes);
    text.push_str(&summary(&saved.manifest));
    if mode == Mode::Complete {
        text.push_str(
            "warning: a complete bundle holds the session verbatim and can contain secrets; \
             share it only with people you trust, or make a --share-safe one\n",
        );
    }
    let mut out = Envelope::ok(
        json!({ "path": shown, "bytes": saved.bytes, "manifest": saved.manifest }),
        text,
    );
    out.warn(lib.warnings());
    Ok(out)
}

fn inspect(file: &Path) -> Result<Envelope, Error> {
    let b = Bundle::open(file)?;
    let text = format!(
        "{} ({} bytes, sha256 {}): checked, every file matches its manifest\n{}",
        file.display(),
        b.size,
        b.sha256,
        summary(&b.manifest)
    );
    Ok(Envelope::ok(
        json!({ "path": file, "bytes": b.size, "sha256": b.sha256, "manifest": b.manifest }),
        text,
    ))
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
