//! `export <id> --format md|json|html [-o FILE]`: one session as a document (the work is
//! `agent_sessions_core::actions::export`; this is flags, where the output goes, and errors).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use agent_sessions_core::actions::export::{
    refuse_agent_store, Exporter, Failure, Format, Options, ToolOutput,
};
use agent_sessions_core::{Error, Roots};
use clap::CommandFactory;

use crate::envelope::Envelope;
use crate::{progress, render};

#[derive(clap::Args)]
pub struct Args {
    /// The session id, an unambiguous prefix of it, or the path of its file (which names one of
    /// two files holding the same session).
    id: String,
    /// md (Markdown), json (the unified model, docs/export-format.md) or html (one
    /// self-contained file: no scripts, nothing loaded from elsewhere).
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    format: Format,
    /// Write to FILE (all or nothing, readable by you only) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Replace FILE when it exists (without it, an existing FILE is an error).
    #[arg(long, requires = "output")]
    force: bool,
    /// Include the model's reasoning.
    #[arg(long)]
    reasoning: bool,
    /// Tool output (and diffs): full, trim (the first 40 lines / 4 KB, marked) or none.
    #[arg(long, value_name = "HOW", default_value = "trim", value_parser = parse_tool_output)]
    tool_output: ToolOutput,
    /// Include meta records (injected context, bookkeeping).
    #[arg(long)]
    meta: bool,
    /// Read the stores directly instead of through the cache.
    #[arg(long)]
    no_cache: bool,
}

fn parse_format(name: &str) -> Result<Format, String> {
    Format::parse(name).ok_or_else(|| format!("unknown format {name:?}; use md, json or html"))
}

fn parse_tool_output(name: &str) -> Result<ToolOutput, String> {
    ToolOutput::parse(name).ok_or_else(|| format!("{name:?} is not full, trim or none"))
}

pub fn run(roots: &Roots, args: Args, json: bool) -> Result<Envelope, Error> {
    require_output_for_json(&args, json);
    let mut lib = crate::open(roots, &[], !args.no_cache);
    let report = progress::run("scanning", |p| lib.sessions(p))?;
    let session = lib.catalog().find(&report.sessions, &args.id)?.clone();
    let exporter = Exporter::from_store(lib.catalog(), &session, args.options());
    deliver(&exporter, &args, roots, lib.warnings())
}

pub(crate) fn require_output_for_json(args: &Args, json: bool) {
    if json && args.output.is_none() {
        crate::Cli::command()
            .error(
                clap::error::ErrorKind::MissingRequiredArgument,
                "--json prints a report of the written file, so export needs -o FILE with it; \
                 without -o the document itself goes to standard output",
            )
            .exit();
    }
}

impl Args {
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    pub(crate) fn options(&self) -> Options {
        Options {
            reasoning: self.reasoning,
            tool_output: self.tool_output,
            meta: self.meta,
        }
    }
}

/// The document to standard output, or to `-o FILE` (never inside an agent's store under
/// `roots`) with a report.
pub(crate) fn deliver(
    exporter: &Exporter,
    args: &Args,
    roots: &Roots,
    warnings: &[String],
) -> Result<Envelope, Error> {
    let Some(path) = &args.output else {
        for w in warnings {
            eprintln!("warning: {}", render::terminal_safe(w));
        }
        to_stdout(exporter, args.format)?;
        return Ok(Envelope::silent());
    };
    refuse_agent_store(roots, path)?;
    let bytes = exporter.save(args.format, path, args.force)?;
    let shown = dunce::canonicalize(path).unwrap_or_else(|_| path.clone());
    let mut out = Envelope::exported(shown, bytes, args.format.extension());
    out.warn(warnings);
    Ok(out)
}

fn to_stdout(exporter: &Exporter, format: Format) -> Result<(), Error> {
    let stdout = std::io::stdout();
    let terminal = stdout.is_terminal();
    let mut lock = stdout.lock();
    let written = if terminal {
        exporter.write(format, &mut TerminalSafe::new(&mut lock))
    } else {
        exporter.write(format, &mut lock)
    };
    match written {
        Err(Failure::Write(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|f| f.into_error(Path::new("standard output"))),
    }
}

/// Passes UTF-8 text on with control and bidi characters shown as `\u{…}`. A character split
/// between two writes waits for its other half.
struct TerminalSafe<W: Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> TerminalSafe<W> {
    fn new(inner: W) -> Self {
        TerminalSafe {
            inner,
            pending: Vec::new(),
        }
    }
}

impl<W: Write> Write for TerminalSafe<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        let valid = match std::str::from_utf8(&self.pending) {
            Ok(_) => self.pending.len(),
            // Only the end is incomplete: keep it for the next write.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => self.pending.len(),
        };
        let text = String::from_utf8_lossy(&self.pending[..valid]);
        self.inner
            .write_all(render::terminal_safe(&text).as_bytes())?;
        self.pending.drain(..valid);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_output_is_safe_across_split_characters() {
        let text = "a\u{1b}[2Jé\u{202e}b\n".as_bytes();
        let mut out = Vec::new();
        {
            let mut safe = TerminalSafe::new(&mut out);
            // Split inside `é` (two bytes) and inside the bidi override (three).
            for chunk in [&text[..6], &text[6..8], &text[8..9], &text[9..]] {
                safe.write_all(chunk).unwrap();
            }
        }
        assert_eq!(String::from_utf8(out).unwrap(), "a\\u{1b}[2Jé\\u{202e}b\n");
    }
}
