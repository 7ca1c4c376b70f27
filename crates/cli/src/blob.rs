//! `blob <id> <key> [-o FILE]`: the bytes behind a blob key of a transcript (a spilled tool
//! output, a large tool result, an image), whole, to standard output or a file. The keys are
//! the `output_blob` of tool parts and the `blob` of file parts in `show --json`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use agent_sessions_core::actions::export::{refuse_agent_store, write_file};
use agent_sessions_core::{blob, Error, Roots};
use base64::Engine;
use serde_json::json;

use crate::envelope::Envelope;
use crate::{progress, render};

#[derive(clap::Args)]
pub struct Args {
    /// The session id, an unambiguous prefix of it, or the path of its file (which names one of
    /// two files holding the same session).
    id: String,
    /// The blob key, as `show --json` gives it (`tool-results/…`, `line:…`, `part:…`).
    key: String,
    /// Write to FILE (all or nothing, readable by you only) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Replace FILE when it exists.
    #[arg(long, requires = "output")]
    force: bool,
    /// Read the stores directly instead of through the cache.
    #[arg(long)]
    no_cache: bool,
}

pub fn run(roots: &Roots, args: Args, json: bool) -> Result<Envelope, Error> {
    let mut lib = crate::open(roots, &[], !args.no_cache);
    let report = progress::run("scanning", |p| lib.sessions(p))?;
    let session = lib.catalog().find(&report.sessions, &args.id)?.clone();
    let bytes = blob::read(lib.catalog(), &session, &args.key)?;
    let mime = blob::image_mime(&bytes);
    if let Some(path) = &args.output {
        refuse_agent_store(roots, path)?;
        let written = write_file(path, args.force, |w| {
            w.write_all(&bytes).map_err(|e| Error::Write {
                path: path.clone(),
                source: e,
            })
        })?;
        let shown = dunce::canonicalize(path).unwrap_or_else(|_| path.clone());
        let text = format!("wrote {} ({written} bytes)\n", shown.display());
        let mut out = Envelope::ok(
            json!({ "path": shown, "bytes": written, "key": args.key, "image": mime }),
            text,
        );
        out.warn(lib.warnings());
        return Ok(out);
    }
    if json {
        // Bytes in JSON: base64, whatever they are.
        let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let mut out = Envelope::ok(
            json!({ "key": args.key, "bytes": bytes.len(), "image": mime, "base64": data }),
            String::new(),
        );
        out.warn(lib.warnings());
        return Ok(out);
    }
    for w in lib.warnings() {
        eprintln!("warning: {}", render::terminal_safe(w));
    }
    to_stdout(&bytes)?;
    Ok(Envelope::silent())
}

/// The bytes as they are into a pipe or file; a terminal gets text only, with control and
/// bidi characters shown as escapes (a transcript's bytes must not drive the terminal).
fn to_stdout(bytes: &[u8]) -> Result<(), Error> {
    let stdout = std::io::stdout();
    let terminal = stdout.is_terminal();
    let mut lock = stdout.lock();
    let written = if terminal {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return Err(Error::Write {
                path: PathBuf::from("standard output"),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "binary data is not printed to a terminal; use -o FILE or a pipe",
                ),
            });
        };
        lock.write_all(render::terminal_safe(text).as_bytes())
    } else {
        lock.write_all(bytes)
    };
    match written.and_then(|_| lock.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| Error::Write {
            path: PathBuf::from("standard output"),
            source: e,
        }),
    }
}
