//! How an agent's program is found and started: where installers put it, the argv that
//! resumes a session, opens the agent in a directory or hands it a prompt, and what its live
//! process looks like.
//!
//! The engines are in the core: `actions::locate` looks for the program (`PATH`, then the
//! agent's [`Launch`] places, then the places every agent may be in), `actions::handoff` starts
//! it with a prompt ([`Handoff`]), and `paths` and the catalog fold a session's directory under
//! its repository with the agent's [`Worktrees`]. The resume argv is the provider's own
//! (`Provider::resume_command`); the program's name and the agent's label are the descriptor's.
//! A live process is recognised by the program's name (`crate::process`). A handoff's working
//! state shows the session's last plan, read from the agent's [`PlanTool`]s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::Capability;

/// Where an agent's program is and how it takes a first prompt.
#[derive(Debug, Clone, Copy)]
pub struct Launch {
    /// Folders under the home directory where the agent's own installer puts its program
    /// (`.claude/local`): looked at right after `PATH`, before the package managers' folders,
    /// since it is what the agent's docs tell users to run.
    pub installer_dirs: &'static [&'static str],
    /// The macOS desktop app that carries the agent's program inside it.
    pub mac_app: Option<MacApp>,
    /// The folder-name prefix of the editor extension (VS Code and its forks) that bundles the
    /// agent's program (`openai.chatgpt-`).
    pub editor_extension: Option<&'static str>,
    /// How "Continue in…" hands the agent its first prompt, or why it cannot.
    pub handoff: Capability<Handoff>,
    /// How the agent is told about an MCP server (`agent-sessions-cli mcp`), or why it cannot.
    pub mcp: Capability<McpSetup>,
}

/// An MCP server as an agent is told to start it: the name it is registered under, its
/// program and arguments.
pub struct McpServer<'a> {
    pub name: &'a str,
    pub program: &'a str,
    pub args: &'a [String],
}

/// Where the agent's setup for `server` goes (a file, or that it is a command to run) and
/// the exact snippet.
pub type McpSetup = fn(&McpServer) -> (&'static str, String);

/// `value` as pretty JSON ending in a newline (a snippet to merge into a settings file).
pub fn pretty_json(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default() + "\n"
}

/// A macOS app folder searched (newest version first, a few levels down) for the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacApp {
    /// Entries starting with `prefix` in `dir` under the home directory
    /// (`Library/Application Support/Claude`, `claude-code`).
    InHome {
        dir: &'static str,
        prefix: &'static str,
    },
    /// Entries starting with `prefix` in each Applications folder (`Codex.app`).
    InApplications { prefix: &'static str },
}

/// How an agent is started with a prompt of many lines as its first message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handoff {
    /// The options just before the prompt, which is the argv's last element: empty where the
    /// prompt is the agent's positional argument (`claude PROMPT`), else the option that takes
    /// it (`opencode --prompt PROMPT`).
    pub prompt_options: &'static [&'static str],
    /// On Linux and macOS, for an agent whose first message ends its run: how it is started
    /// twice instead, the first run sending the prompt, the second interactive from where the
    /// first left off. `None` where one run takes the prompt and stays (and on Windows, where
    /// `prompt_options` are used: there is no shell there to chain two runs through safely).
    pub then: Option<Then>,
}

/// An agent started twice on Linux and macOS (see [`Handoff::then`]): `first` sends the prompt
/// and returns, then the agent is started again with the single option `interactive`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Then {
    /// The options of the first run, [`Handoff::FILE`] standing for the prompt file's path
    /// (`--message-file FILE`).
    pub first: &'static [&'static str],
    /// The one option of the second, interactive run (`--restore-chat-history`).
    pub interactive: &'static str,
}

impl Handoff {
    /// Stands in `prompt_options` for the prompt file's path, for an agent that reads the
    /// prompt from a file itself (`aider --read FILE`): the path is the word there and the
    /// prompt's text is no word of the argv at all. The agent may read the file again later
    /// (Aider does on every turn), so the launch leaves it in place.
    pub const FILE: &'static str = "{prompt file}";

    /// Whether the agent is handed the prompt file's path (see [`Handoff::FILE`]) rather than
    /// the prompt's text.
    pub fn reads_file(&self) -> bool {
        self.prompt_options.contains(&Self::FILE)
    }

    /// The options with [`Handoff::FILE`] replaced by `file`.
    pub fn options_with<'a>(&self, file: &'a str) -> Vec<&'a str> {
        with_file(self.prompt_options, file)
    }
}

impl Then {
    /// The first run's options with [`Handoff::FILE`] replaced by `file`.
    pub fn first_with<'a>(&self, file: &'a str) -> Vec<&'a str> {
        with_file(self.first, file)
    }
}

/// `options` with [`Handoff::FILE`] replaced by `file`.
fn with_file<'a>(options: &'static [&'static str], file: &'a str) -> Vec<&'a str> {
    let word = |o: &&'static str| if *o == Handoff::FILE { file } else { *o };
    options.iter().map(word).collect()
}

/// The worktrees an agent makes for a repository, so a session run in one is listed under the
/// repository it was made from.
#[derive(Debug, Clone, Copy)]
pub struct Worktrees {
    /// Path components, inside a repository, of the folder the agent makes worktrees in
    /// (`.claude/worktrees`): a directory below `<repo>/<these>/<name>` belongs to `<repo>`.
    pub in_repo: &'static [&'static [&'static str]],
    /// Worktrees the agent records in its store, for directories git cannot place (gone).
    pub recorded: Option<Recorded>,
}

/// Where in a store root the agent records its worktrees, and how to read them.
#[derive(Debug, Clone, Copy)]
pub struct Recorded {
    /// The files the record is read from: when none of them changed, it is read again from
    /// memory.
    pub sources: fn(&Path) -> Vec<PathBuf>,
    /// worktree directory → the main worktree of its project, as the agent wrote them; `None`
    /// when the store cannot be read (its scan says why).
    pub read: fn(&Path) -> Option<BTreeMap<String, String>>,
}

impl Worktrees {
    /// An agent that makes no worktrees of its own.
    pub const NONE: Worktrees = Worktrees {
        in_repo: &[],
        recorded: None,
    };
}

/// A tool of the agent whose input records the session's plan (a handoff's working state).
#[derive(Debug, Clone, Copy)]
pub struct PlanTool {
    /// The tool's name in lower case (names are compared without case: `TodoWrite`).
    pub name: &'static str,
    /// The plan its input records; `None` when it holds none.
    pub read: fn(&serde_json::Value) -> Option<Plan>,
}

/// A plan as an agent recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// The plan in its own words.
    Text(String),
    /// Steps with their status, after the reason for them where one was given.
    Steps {
        why: Option<String>,
        steps: Vec<Step>,
    },
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub status: StepStatus,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepStatus {
    Done,
    Doing,
    ToDo,
    Cancelled,
    /// A status of another word.
    Other,
}

/// The steps of the list `entries`: each entry's text at `text_key` (an entry without one is
/// left out) and its `status` (`completed`, `in_progress`, `pending`, `cancelled` and the like).
pub fn steps(entries: &serde_json::Value, text_key: &str) -> Vec<Step> {
    let Some(entries) = entries.as_array() else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|e| {
            let text = e[text_key].as_str()?.to_owned();
            let status = match e["status"].as_str().unwrap_or("") {
                "completed" | "done" => StepStatus::Done,
                "in_progress" | "in-progress" => StepStatus::Doing,
                "pending" | "" => StepStatus::ToDo,
                "cancelled" | "canceled" => StepStatus::Cancelled,
                _ => StepStatus::Other,
            };
            Some(Step { status, text })
        })
        .collect()
}

/// The input of a todo tool as several agents write it: a `todos` list, each entry with its
/// `content` and `status`.
pub fn todos(input: &serde_json::Value) -> Option<Plan> {
    Some(Plan::Steps {
        why: None,
        steps: steps(&input["todos"], "content"),
    })
}
