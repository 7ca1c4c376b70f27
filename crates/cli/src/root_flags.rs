//! The per-agent root flags (`--claude-root DIR`, `--codex-root DIR`, …): one for every agent of
//! the registry, named and described from its descriptor, so adding an agent adds its flag.

use std::path::PathBuf;
use std::sync::LazyLock;

use agent_sessions_core::provider::registry::{Agent, AGENTS};
use agent_sessions_core::ProviderKind;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};

/// Each agent with its flag's name (`claude-root`). Clap wants `'static` names: made once.
static FLAGS: LazyLock<Vec<(&'static Agent, &'static str)>> = LazyLock::new(|| {
    let flag = |a: &Agent| -> &'static str { Box::leak(format!("{}-root", a.name()).into()) };
    AGENTS.iter().map(|&a| (a, flag(a))).collect()
});

/// The directories given with the per-agent flags, agent by agent in the registry's order.
#[derive(Debug, Clone, Default)]
pub struct RootFlags(pub Vec<(ProviderKind, PathBuf)>);

/// `Claude Code's store; repeatable. Default: $CLAUDE_CONFIG_DIR or ~/.claude.`
fn help(agent: &Agent) -> String {
    let var = match agent.env_subdir {
        Some(sub) => format!("${}/{sub}", agent.env_var),
        None => format!("${}", agent.env_var),
    };
    let stores = agent.home_stores(agent_sessions_core::model::Os::current());
    let homes: Vec<String> = stores
        .iter()
        .map(|s| format!("~/{}", s.join("/")))
        .collect();
    let home = if homes.is_empty() {
        "~/".to_owned()
    } else {
        homes.join(" and ")
    };
    format!(
        "{}'s store; repeatable. Default: {var} or {home}.",
        agent.label
    )
}

impl Args for RootFlags {
    fn augment_args(cmd: Command) -> Command {
        FLAGS.iter().fold(cmd, |cmd, &(agent, name)| {
            cmd.arg(
                Arg::new(name)
                    .long(name)
                    .value_name("DIR")
                    .help(help(agent))
                    .global(true)
                    .action(ArgAction::Append)
                    .value_parser(clap::value_parser!(PathBuf)),
            )
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for RootFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = RootFlags::default();
        flags.update_from_arg_matches(matches)?;
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        self.0 = FLAGS
            .iter()
            .flat_map(|&(agent, name)| {
                let dirs = matches.get_many::<PathBuf>(name).into_iter().flatten();
                dirs.map(move |d| (agent.kind, d.clone()))
            })
            .collect();
        Ok(())
    }
}
