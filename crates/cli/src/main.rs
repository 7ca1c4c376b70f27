//! agent-sessions-cli: the headless front end. Every command is a thin call into
//! `agent-sessions-core`; output is a human table by default or one JSON envelope with `--json`.

mod agents;
mod blob;
mod bundle;
mod config;
mod envelope;
mod export;
mod filter;
mod follow;
mod handoff;
// Named apart from core's `index`, which this file uses too.
#[path = "index.rs"]
mod index_command;
mod mcp;
mod open;
mod progress;
mod remote;
mod render;
mod root_flags;
mod search;
mod serve;
mod stats;
mod translate;
mod trash;

use std::path::PathBuf;
use std::process::ExitCode;

use agent_sessions_core::config::ConfigFile;
use agent_sessions_core::index;
use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::paths::{process_env, resolve};
use agent_sessions_core::provider::registry;
use agent_sessions_core::{Error, Library, ProviderKind, Roots};
use clap::{Parser, Subcommand};

use crate::envelope::Envelope;

#[derive(Parser)]
#[command(
    name = "agent-sessions-cli",
    version,
    about = "Find, read and search the sessions coding agents leave on this machine"
)]
struct Cli {
    /// `--<agent>-root DIR` for every agent of the registry.
    #[command(flatten)]
    agent_roots: root_flags::RootFlags,
    /// A root of any agent, as KIND=DIR (claude=~/.claude); repeatable, added to the per-agent
    /// flags above.
    #[arg(long = "root", value_name = "KIND=DIR", global = true, value_parser = parse_root)]
    root: Vec<(ProviderKind, PathBuf)>,
    /// Print one JSON envelope instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// Read the sessions of another machine: a Host of ~/.ssh/config, reached with the system
    /// ssh (scan, show, search, log, stats, diagnostics, export, bundle export|import, trash,
    /// delete, handoff --print, open: a terminal here running ssh -t there). Nothing is left
    /// running there.
    #[arg(long, global = true, value_name = "ALIAS")]
    host: Option<String>,
    /// The ssh config file for --host (ssh -F FILE). Default: $AGENT_SESSIONS_SSH_CONFIG, else
    /// ssh's own.
    #[arg(
        long = "ssh-config",
        global = true,
        value_name = "FILE",
        requires = "host"
    )]
    ssh_config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every session, newest first.
    Scan {
        /// Only these agents' sessions; repeatable.
        #[arg(long = "provider", value_name = "NAME", value_parser = AgentName)]
        providers: Vec<ProviderKind>,
        /// Read the stores directly instead of through the cache.
        #[arg(long)]
        no_cache: bool,
        #[command(flatten)]
        filter: filter::FilterArgs,
    },
    /// Print one session's full transcript.
    Show {
        /// The session id, an unambiguous prefix of it, or the path of its file (which names one of
        /// two files holding the same session).
        id: String,
        /// Read the stores directly instead of through the cache.
        #[arg(long)]
        no_cache: bool,
    },
    /// Search titles and message text: words, "quoted phrases", prefix*. Sessions the index
    /// does not hold yet are read directly, and an `index` is started in the background for
    /// the next search (AGENT_SESSIONS_NO_BACKGROUND_INDEX=1: not).
    Search(search::Args),
    /// Print a session's activity timeline (session_start, prompt, tool_start, tool_end,
    /// notification, ask, stop, session_end); names and lengths only, no text.
    Log {
        /// The session id, an unambiguous prefix of it, or the path of its file (which names one of
        /// two files holding the same session).
        id: String,
        /// Keep printing as the session grows, until it ends (or Ctrl-C).
        #[arg(long)]
        follow: bool,
        /// Only the last N events (before following).
        #[arg(long, value_name = "N")]
        tail: Option<usize>,
    },
    /// Sessions, messages, tokens and cost per directory, repository, agent, model, day or week.
    Stats(stats::Args),
    /// Write the bytes behind a blob key of a transcript (a spilled tool output, a large tool
    /// result, an image) to standard output or a file.
    Blob(blob::Args),
    /// List unreadable records and the format versions seen.
    Diagnostics {
        #[arg(long = "provider", value_name = "NAME", value_parser = AgentName)]
        providers: Vec<ProviderKind>,
    },
    /// Export one session as Markdown, JSON or a self-contained HTML file.
    Export(export::Args),
    /// The settings file (config.toml): where it is, what is in effect, whether it is valid.
    Config {
        #[command(subcommand)]
        action: config::ConfigAction,
    },
    /// The installed terminals, the one Automatic picks and the configured one.
    Terminals,
    /// The agents this build reads, and the roots each reads now.
    Agents,
    /// Open a terminal in a session's directory, resuming the session with --resume.
    Open(open::Args),
    /// Continue a session in another agent: start it in a terminal in the session's directory
    /// with a handoff (goal, requests, working state, recent turns) as its first prompt.
    Handoff(handoff::Args),
    /// Translate one message with the endpoint set up in config.toml's [translate] (only that
    /// message's text is sent).
    Translate(translate::Args),
    /// Move a session to the trash (Claude: the OS trash; Codex: its archive); needs
    /// [actions] allow_delete in config.toml.
    Trash(trash::TrashArgs),
    /// Delete a session for good (needs [actions] allow_permanent_delete too).
    Delete(trash::DeleteArgs),
    /// Portable session bundles: export, inspect, import (restore into the agent's store).
    Bundle {
        #[command(subcommand)]
        action: bundle::BundleAction,
    },
    /// Bring the session list and the full-text index fully up to date, then exit (timings
    /// with --json).
    Index(index_command::Args),
    /// The session cache.
    Cache {
        #[command(subcommand)]
        action: CacheAction,
    },
    /// Serve the sessions to coding agents over the Model Context Protocol on standard input
    /// and output (read-only tools: search, list, read, timeline, stats; docs/mcp.md), with
    /// --host a remote machine's; exits when standard input closes.
    Mcp(mcp::Args),
    /// Answer the remote protocol (docs/remote.md) on standard input and output, for
    /// `--host` on another machine; exits when standard input closes.
    Serve {
        /// Serve on standard input and output (the only way: nothing listens on a port).
        #[arg(long, required = true)]
        stdio: bool,
    },
}

#[derive(Subcommand)]
enum CacheAction {
    /// Print where the cache file for these roots is.
    Path,
    /// Delete every cache file (safe at any time; the next scan rebuilds it).
    Clear,
}

fn parse_root(given: &str) -> Result<(ProviderKind, PathBuf), String> {
    let (kind, dir) = given
        .split_once('=')
        .ok_or_else(|| format!("{given:?} is not KIND=DIR"))?;
    Ok((parse_provider(kind)?, PathBuf::from(dir)))
}

fn parse_provider(name: &str) -> Result<ProviderKind, String> {
    ProviderKind::parse(name)
        .ok_or_else(|| format!("unknown provider {name:?}; use {}", registry::names_or()))
}

/// An agent's name as a flag's value: the registry's names are its possible values, so `--help`
/// lists every agent without naming one here.
#[derive(Clone)]
struct AgentName;

impl clap::builder::TypedValueParser for AgentName {
    type Value = ProviderKind;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<ProviderKind, clap::Error> {
        let name = value.to_string_lossy();
        parse_provider(&name).map_err(|why| {
            let flag = arg.map(|a| a.to_string()).unwrap_or_default();
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("invalid value '{name}' for '{flag}': {why}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let names = registry::AGENTS.iter().map(|a| a.name());
        Some(Box::new(names.map(clap::builder::PossibleValue::new)))
    }
}

fn parse_day(text: &str) -> Result<chrono::NaiveDate, String> {
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map_err(|_| format!("{text:?} is not a date like 2026-11-30"))
}

fn parse_date(text: &str) -> Result<i64, String> {
    Ok(parse_day(text)?
        .and_hms_opt(0, 0, 0)
        .unwrap_or_default()
        .and_utc()
        .timestamp_millis())
}

fn parse_end_date(text: &str) -> Result<i64, String> {
    Ok(parse_day(text)?
        .and_hms_milli_opt(23, 59, 59, 999)
        .unwrap_or_default()
        .and_utc()
        .timestamp_millis())
}

fn main() -> ExitCode {
    // Before anything reads SQLite (an OpenCode store, the cache).
    index::without_memory_statistics();
    let code = command();
    // The private copies of agents' databases kept for reuse hold the user's sessions.
    agent_sessions_core::provider::sqlite::release_copies();
    code
}

fn command() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
    if let Command::Mcp(_) = cli.command {
        return mcp_command(cli);
    }
    if let Some(alias) = cli.host.clone() {
        let target = remote::Target {
            alias,
            ssh_config: cli.ssh_config.clone(),
            roots: explicit_roots(&cli),
        };
        return remote::main(target, cli.command, json);
    }
    // A broken config never stops a command: its problems are warnings on every command.
    let config = ConfigFile::load_default(&process_env);
    agent_sessions_core::pricing::install(config.prices());
    let config_warnings: Vec<String> = config.warnings().iter().map(|w| w.to_string()).collect();
    match run(cli, &config) {
        Ok(mut out) => {
            out.warn(&config_warnings);
            out.print(json);
            match out.failed() {
                // Output was streamed and stopped part way: say why, after it.
                Some(e) => {
                    eprintln!("error: {}", render::terminal_safe(&e.to_string()));
                    ExitCode::from(exit_code(&e))
                }
                None if out.has_error() => ExitCode::from(2),
                None => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            let mut out = Envelope::failure(&e);
            out.warn(&config_warnings);
            out.print(json);
            ExitCode::from(exit_code(&e))
        }
    }
}

/// `mcp`: a server that runs until its input closes, on this machine's roots or a host.
fn mcp_command(cli: Cli) -> ExitCode {
    let config = ConfigFile::load_default(&process_env);
    agent_sessions_core::pricing::install(config.prices());
    let machine = match cli.host.clone() {
        Some(alias) => mcp::Machine::Host(remote::Target {
            alias,
            ssh_config: cli.ssh_config.clone(),
            roots: explicit_roots(&cli),
        }),
        None => {
            let mut explicit = Roots::default();
            for (kind, dir) in explicit_roots(&cli) {
                explicit.get_mut(kind).push(dir);
            }
            match resolve(&explicit, &process_env, &config) {
                Ok(resolved) => mcp::Machine::Local(resolved.roots()),
                Err(e) => {
                    Envelope::failure(&e).print(cli.json);
                    return ExitCode::from(exit_code(&e));
                }
            }
        }
    };
    let Command::Mcp(args) = cli.command else {
        unreachable!("only mcp comes here")
    };
    mcp::main(args, machine, &config, cli.json)
}

fn exit_code(e: &Error) -> u8 {
    match e {
        Error::RootMissing { .. } | Error::BadQuery(_) => 2,
        Error::Terminal(t) if t.is_bad_id() => 2,
        Error::Trash(t) if t.is_refusal() => 2,
        Error::Bundle(b) if b.is_refusal() => 2,
        _ => 1,
    }
}

/// Every root flag, as (agent, directory).
fn explicit_roots(cli: &Cli) -> Vec<(ProviderKind, PathBuf)> {
    let named = cli.agent_roots.0.iter().cloned();
    named.chain(cli.root.iter().cloned()).collect()
}

fn run(cli: Cli, config: &ConfigFile) -> Result<Envelope, Error> {
    let mut explicit = Roots::default();
    for (kind, dir) in explicit_roots(&cli) {
        explicit.get_mut(kind).push(dir);
    }
    // Flags, then the agents' variables, then config.toml, then the per-OS defaults.
    let resolved = resolve(&explicit, &process_env, config)?;
    let flags = explicit_roots(&cli);
    // An agent that keeps its sessions where the user works looks in this directory too, and
    // in the directories a restore wrote one of its sessions into (`near`).
    let mut near: Vec<PathBuf> = std::env::current_dir().into_iter().collect();
    if let Some(cache) = default_cache_dir() {
        near.extend(agent_sessions_core::near::dirs(&cache));
    }
    let roots = resolved.roots().near(near);
    match cli.command {
        Command::Scan {
            providers,
            no_cache,
            filter,
        } => {
            let mut lib = open(&roots, &providers, !no_cache);
            let report = progress::run("scanning", |p| lib.sessions(p))?;
            let mut out = filter.scanned(report, lib.warnings());
            out.warn_unavailable(lib.catalog(), &providers);
            Ok(out)
        }
        Command::Show { id, no_cache } => {
            let mut lib = open(&roots, &[], !no_cache);
            let report = progress::run("scanning", |p| lib.sessions(p))?;
            let session = lib.catalog().find(&report.sessions, &id)?;
            let session = session.clone();
            // No resume command (a hostile id or directory) still shows the transcript.
            let resume = lib.catalog().resume_command(&session);
            let warnings = lib.warnings().to_vec();
            let mut out = Envelope::show(lib, session, resume);
            out.warn(&warnings);
            Ok(out)
        }
        Command::Search(args) => search::run(&roots, &flags, args),
        Command::Log { id, follow, tail } => {
            let mut lib = open(&roots, &[], true);
            let report = progress::run("scanning", |p| lib.sessions(p))?;
            let session = lib.catalog().find(&report.sessions, &id)?.clone();
            follow::run(lib.catalog(), session, tail, follow, cli.json)
        }
        Command::Diagnostics { providers } => {
            let mut lib = open(&roots, &providers, true);
            let report = progress::run("scanning", |p| lib.sessions(p))?;
            let versions = index::format_versions(&report.sessions);
            let mut out = Envelope::diagnostics(report.diagnostics, versions);
            out.warn(lib.warnings());
            Ok(out)
        }
        Command::Stats(args) => stats::run(&roots, args),
        Command::Blob(args) => blob::run(&roots, args, cli.json),
        Command::Export(args) => export::run(&roots, args, cli.json),
        Command::Config { action } => Ok(config::run(&action, config, &resolved, &process_env)),
        Command::Terminals => Ok(open::terminals(config)),
        Command::Agents => Ok(agents::run(&resolved)),
        Command::Open(args) => open::run(&roots, args, config),
        Command::Handoff(args) => handoff::run(&roots, args, config),
        Command::Translate(args) => translate::run(&roots, args, config),
        Command::Trash(args) => trash::run_trash(&roots, args, config, cli.json),
        Command::Delete(args) => trash::run_delete(&roots, args, config, cli.json),
        Command::Bundle { action } => bundle::run(&roots, action, cli.json, config),
        Command::Index(args) => index_command::run(&roots, args),
        Command::Mcp(_) => unreachable!("mcp is run by mcp_command"),
        Command::Serve { stdio: _ } => serve::run(&explicit, config),
        Command::Cache { action } => {
            let dir = default_cache_dir().ok_or_else(|| Error::Cache {
                path: PathBuf::new(),
                reason: "no cache directory on this system".into(),
            })?;
            match action {
                CacheAction::Path => Ok(Envelope::cache_path(index::index_path(&dir, &roots))),
                CacheAction::Clear => Ok(Envelope::cache_cleared(index::clear(&dir)?)),
            }
        }
    }
}

fn open(roots: &Roots, providers: &[ProviderKind], cached: bool) -> Library {
    let dir = if cached { default_cache_dir() } else { None };
    Library::open(roots, providers, dir)
}
