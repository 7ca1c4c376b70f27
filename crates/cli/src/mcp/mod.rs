//! `mcp`: a Model Context Protocol server on standard input and output (the official SDK,
//! `rmcp`), so a coding agent can search and read the sessions of every agent on this machine,
//! or on another with `--host`. Read-only: no tool writes anything. It answers only whoever
//! started it (its stdio): nothing listens on a port. `--print-config AGENT` prints how to
//! register it with an agent instead.

mod page;
mod privacy;
mod source;
mod tools;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use agent_sessions_core::config::ConfigFile;
use agent_sessions_core::index::lock::{lock_path, IndexLock};
use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::mcp_config;
use agent_sessions_core::{Library, Roots, ScanProgress};
use rmcp::ServiceExt;
use serde_json::json;

use crate::envelope::Envelope;
use crate::render::terminal_safe;

#[derive(clap::Args)]
pub struct Args {
    /// Print how to register this server with an agent (claude, codex, opencode, gemini) and
    /// exit: the command to run or the snippet for its settings file (with --host, a server
    /// of that machine's sessions).
    #[arg(long, value_name = "AGENT", value_parser = clap::builder::PossibleValuesParser::new(mcp_config::agents()))]
    print_config: Option<String>,
}

/// Where the server reads: this machine (its resolved roots) or a host.
pub enum Machine {
    Local(Roots),
    Host(crate::remote::Target),
}

/// Runs `mcp` until its input closes (or prints a setup).
pub fn main(args: Args, machine: Machine, config: &ConfigFile, json: bool) -> ExitCode {
    if let Some(agent) = args.print_config {
        return print_config(&agent, &machine, json);
    }
    let privacy = privacy::Privacy::new(&config.settings().ui.hidden_dirs);
    let (source, host): (Box<dyn source::Source>, String) = match machine {
        Machine::Local(roots) => {
            index_in_background(roots.clone());
            (Box::new(source::Local::new(roots)), String::new())
        }
        Machine::Host(target) => match crate::remote::connect(&target) {
            Ok(client) => (Box::new(source::Remote::new(client)), target.alias),
            Err(e) => {
                Envelope::failure_coded(e.code(), e.to_string()).print(json);
                return ExitCode::from(1);
            }
        },
    };
    let server = tools::Server::new(source, privacy, host);
    match serve(server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Standard output is the protocol's: what went wrong goes to standard error.
            eprintln!("error: the MCP server stopped: {}", terminal_safe(&e));
            ExitCode::from(1)
        }
    }
}

fn serve(server: tools::Server) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| e.to_string())?;
        running.waiting().await.map_err(|e| e.to_string())?;
        Ok(())
    })
}

fn print_config(agent: &str, machine: &Machine, json: bool) -> ExitCode {
    // This very binary, by its full path: an agent starts it without our PATH. On Windows
    // without the verbatim `\\?\` prefix a plain canonicalize gives: a user pastes this path,
    // and tools that take a program's path (Node's spawn among them) do not all accept it.
    let program = std::env::current_exe()
        .ok()
        .and_then(|p| dunce::canonicalize(p).ok())
        .unwrap_or_else(|| PathBuf::from("agent-sessions-cli"));
    let host = match machine {
        Machine::Host(target) => Some(target.alias.as_str()),
        Machine::Local(_) => None,
    };
    let Some(setup) = mcp_config::setup(agent, &program.to_string_lossy(), host) else {
        return ExitCode::from(2);
    };
    if !json {
        // The snippet alone on standard output, so it can be piped or pasted as it is.
        eprintln!("# {}: {}", setup.agent, setup.place);
    }
    Envelope::ok(json!(setup), setup.snippet.clone()).print(json);
    ExitCode::SUCCESS
}

/// How long one indexing step may hold the cache before calls get their turn.
const STEP: Duration = Duration::from_millis(300);
/// How often the indexer looks for new or changed sessions once it has caught up.
const IDLE: Duration = Duration::from_secs(20);

/// Keeps the cache's list and text index up to date while the server runs, so searches read
/// the index instead of the stores (a long-running process is what makes repeated searches
/// fast). A failure only costs speed: calls search what is indexed and read the rest. Each
/// round holds the cache's indexing lock, as `index` does; a round that finds another run
/// indexing leaves the work to it.
fn index_in_background(roots: Roots) {
    let Some(dir) = default_cache_dir() else {
        return;
    };
    std::thread::spawn(move || {
        let mut lib = Library::open(&roots, &[], Some(dir));
        let Some(lock) = lib.index().map(|i| lock_path(i.path())) else {
            return;
        };
        let progress = ScanProgress::default();
        loop {
            if let Ok(Ok(_held)) = IndexLock::try_take(&lock) {
                let _ = lib.refresh(&progress);
                while matches!(lib.index_text_step(64, STEP, &progress), Ok(n) if n > 0) {}
            }
            std::thread::sleep(IDLE);
        }
    });
}
