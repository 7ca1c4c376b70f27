//! agent-sessions-cli: the headless front end. Every command is a thin call into
//! `agent-sessions-core`; output is a human table by default or one JSON envelope with `--json`.

mod envelope;
mod render;

use std::path::PathBuf;
use std::process::ExitCode;

use agent_sessions_core::paths::{process_env, resolve_roots};
use agent_sessions_core::{Catalog, Error, ProviderKind, Roots, ScanProgress};
use clap::{Parser, Subcommand};

use crate::envelope::Envelope;

#[derive(Parser)]
#[command(
    name = "agent-sessions-cli",
    version,
    about = "Find, read and search the sessions coding agents leave on this machine"
)]
struct Cli {
    /// A Claude Code root (like ~/.claude); repeatable. Default: $CLAUDE_CONFIG_DIR or ~/.claude.
    #[arg(long = "claude-root", value_name = "DIR", global = true)]
    claude_root: Vec<PathBuf>,
    /// A Codex root (like ~/.codex); repeatable. Default: $CODEX_HOME or ~/.codex.
    #[arg(long = "codex-root", value_name = "DIR", global = true)]
    codex_root: Vec<PathBuf>,
    /// An OpenCode data dir; repeatable. Default: $XDG_DATA_HOME/opencode or ~/.local/share/opencode.
    #[arg(long = "opencode-root", value_name = "DIR", global = true)]
    opencode_root: Vec<PathBuf>,
    /// Print one JSON envelope instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every session, newest first.
    Scan {
        /// Only these providers (claude, codex, opencode); repeatable.
        #[arg(long = "provider", value_name = "NAME", value_parser = parse_provider)]
        providers: Vec<ProviderKind>,
    },
    /// Print one session's full transcript.
    Show {
        /// The session id (or an unambiguous prefix of it).
        id: String,
    },
}

fn parse_provider(name: &str) -> Result<ProviderKind, String> {
    ProviderKind::parse(name)
        .ok_or_else(|| format!("unknown provider {name:?}; use claude, codex or opencode"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
    match run(cli) {
        Ok(out) => {
            out.print(json);
            ExitCode::SUCCESS
        }
        Err(e) => {
            Envelope::failure(&e).print(json);
            ExitCode::from(exit_code(&e))
        }
    }
}

fn exit_code(e: &Error) -> u8 {
    match e {
        Error::RootMissing { .. } => 2,
        _ => 1,
    }
}

fn run(cli: Cli) -> Result<Envelope, Error> {
    let explicit = Roots {
        claude: cli.claude_root,
        codex: cli.codex_root,
        opencode: cli.opencode_root,
    };
    let roots = resolve_roots(&explicit, &process_env)?;
    match cli.command {
        Command::Scan { providers } => {
            let catalog = Catalog::new(&roots, &providers);
            let report = catalog.scan(&ScanProgress::default())?;
            let mut out = Envelope::scan(report);
            out.warn_unavailable(&catalog, &providers);
            Ok(out)
        }
        Command::Show { id } => {
            let catalog = Catalog::new(&roots, &[]);
            let report = catalog.scan(&ScanProgress::default())?;
            let session = catalog.find(&report.sessions, &id)?;
            let transcript = catalog.load(session)?;
            let resume = catalog.resume_command(session)?;
            Ok(Envelope::show(transcript, resume))
        }
    }
}
