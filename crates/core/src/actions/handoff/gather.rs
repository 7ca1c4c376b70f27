//! What a handoff is made of, collected from a transcript read one message at a time: the goal,
//! the user's other messages, the working state (files changed, the last plan, commands run,
//! errors, the last compaction summary) and the last turns.
//!
//! Memory is bounded whatever the session's size: every text is cut to its cap as it is read,
//! and each list keeps only as many entries as a handoff could show (rings of the newest), with
//! the total counted.

use std::collections::{HashMap, VecDeque};

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::quote::{cut_head, cut_tail, one_line};
use crate::actions::export::input_hint;
use crate::model::{FileChange, Message, Part, Role, ToolPart, ToolStatus};
use crate::provider::capability::launch::{Plan, Step, StepStatus};
use crate::provider::registry::AGENTS;

/// The goal (the first user message) is cut to this many characters (and to a quarter of the
/// budget, see `render`).
pub const GOAL_CAP: usize = 4_000;
/// Each other user message.
pub const USER_CAP: usize = 1_000;
/// Each turn: a user message's start, or the end of the assistant's answer (its texts and tool
/// lines, the oldest left out first).
pub const TURN_CAP: usize = 1_500;
/// The last plan.
pub const PLAN_CAP: usize = 2_000;
/// The last compaction summary.
pub const SUMMARY_CAP: usize = 3_000;
/// Each error: its tool line and the end of its output.
pub const ERROR_CAP: usize = 600;
/// Each one-line entry (a file, a command, a tool line).
pub const LINE_CAP: usize = 200;

/// How many of each list are kept (the newest).
pub const MAX_USERS: usize = 200;
pub const MAX_TURNS: usize = 12;
pub const MAX_COMMANDS: usize = 20;
pub const MAX_ERRORS: usize = 5;
pub const MAX_FILES: usize = 100;
/// Paths remembered while reading (their changes are summed); more are counted only.
const TRACKED_FILES: usize = 2_000;

/// A message as the handoff quotes it.
#[derive(Debug, Clone)]
pub struct Said {
    /// The how-manieth user message this is (0 is the goal); `None` for the assistant.
    pub user: Option<usize>,
    pub role: Role,
    pub at: Option<DateTime<Utc>>,
    /// Already cut to its cap.
    pub text: String,
}

/// A list that keeps its newest `max` entries and counts them all.
#[derive(Debug, Clone)]
pub struct Newest<T> {
    pub items: VecDeque<T>,
    pub total: usize,
    max: usize,
}

impl<T> Newest<T> {
    fn new(max: usize) -> Self {
        Newest {
            items: VecDeque::new(),
            total: 0,
            max,
        }
    }

    fn push(&mut self, item: T) {
        self.total += 1;
        if self.items.len() == self.max {
            self.items.pop_front();
        }
        self.items.push_back(item);
    }
}

/// One file's changes over the session.
#[derive(Debug, Clone)]
pub struct FileTouched {
    pub path: String,
    /// The last change: `add`, `update` or `delete`.
    pub change: String,
    pub additions: u64,
    pub deletions: u64,
    /// When it was last changed (an ordinal over the session's changes).
    last: usize,
}

/// Everything a handoff can show, newest last in every list.
#[derive(Debug, Clone)]
pub struct Gathered {
    pub goal: Option<Said>,
    /// User messages after the goal.
    pub users: Newest<Said>,
    /// Turns (user and assistant messages) after the goal.
    pub turns: Newest<Said>,
    files: HashMap<String, FileTouched>,
    /// Paths not tracked because [`TRACKED_FILES`] were already.
    pub files_untracked: usize,
    /// `ok   ls -la`: status and the command's first line.
    pub commands: Newest<String>,
    pub errors: Newest<String>,
    pub plan: Option<String>,
    pub summary: Option<String>,
    /// The assistant's messages since the last user message: one turn, once it ends.
    answer: Option<Answer>,
    cwd: Option<String>,
    changes_seen: usize,
}

/// The assistant's part of a turn while it is read: its texts and tool lines in order, the
/// oldest dropped once they pass [`TURN_CAP`] (the end of an answer is where work stopped).
#[derive(Debug, Clone, Default)]
struct Answer {
    at: Option<DateTime<Utc>>,
    entries: VecDeque<String>,
    chars: usize,
    dropped: usize,
}

impl Answer {
    fn push(&mut self, entry: String) {
        self.chars += entry.chars().count() + 1;
        self.entries.push_back(entry);
        while self.chars > TURN_CAP && self.entries.len() > 1 {
            if let Some(old) = self.entries.pop_front() {
                self.chars -= old.chars().count() + 1;
                self.dropped += 1;
            }
        }
    }

    fn text(self) -> String {
        let mut text = String::new();
        if self.dropped > 0 {
            text = format!("[… {} earlier parts of this answer]\n", self.dropped);
        }
        text.push_str(&Vec::from(self.entries).join("\n"));
        cut_tail(&text, TURN_CAP)
    }
}

impl Gathered {
    /// Paths are shown relative to `cwd` when they are below it.
    pub fn new(cwd: Option<&str>) -> Self {
        Gathered {
            goal: None,
            users: Newest::new(MAX_USERS),
            turns: Newest::new(MAX_TURNS),
            files: HashMap::new(),
            files_untracked: 0,
            commands: Newest::new(MAX_COMMANDS),
            errors: Newest::new(MAX_ERRORS),
            plan: None,
            summary: None,
            answer: None,
            cwd: cwd.filter(|d| !d.is_empty()).map(str::to_owned),
            changes_seen: 0,
        }
    }

    /// Files changed, least recently changed first.
    pub fn files(&self) -> Vec<&FileTouched> {
        let mut files: Vec<&FileTouched> = self.files.values().collect();
        files.sort_by_key(|f| f.last);
        files
    }

    /// Takes in the next message of the transcript.
    pub fn push(&mut self, m: &Message) {
        if m.meta {
            return;
        }
        for part in &m.parts {
            self.working_state(part);
        }
        if m.sidechain {
            return; // An inline subagent's conversation is not the session's.
        }
        match m.role {
            Role::User if m.counted => {
                self.end_answer();
                let ordinal = usize::from(self.goal.is_some()) + self.users.total;
                let cap = if ordinal == 0 { GOAL_CAP } else { USER_CAP };
                let said = Said {
                    user: Some(ordinal),
                    role: Role::User,
                    at: m.timestamp,
                    text: cut_head(&user_text(m), cap),
                };
                if ordinal == 0 {
                    self.goal = Some(said);
                } else {
                    self.turns.push(said.clone());
                    self.users.push(said);
                }
            }
            Role::Assistant => {
                let answer = self.answer.get_or_insert_with(Answer::default);
                answer.at = m.timestamp.or(answer.at);
                for entry in answer_entries(m) {
                    answer.push(entry);
                }
            }
            _ => {}
        }
    }

    /// Ends the assistant's turn being read (at the next user message, or the end).
    fn end_answer(&mut self) {
        let Some(answer) = self.answer.take() else {
            return;
        };
        if answer.entries.is_empty() {
            return; // Reasoning alone.
        }
        self.turns.push(Said {
            user: None,
            role: Role::Assistant,
            at: answer.at,
            text: answer.text(),
        });
    }

    /// Call once the last message is in.
    pub fn finish(&mut self) {
        self.end_answer();
    }

    fn working_state(&mut self, part: &Part) {
        match part {
            Part::Tool(tool) => {
                if tool.status != ToolStatus::Error {
                    self.changed(&tool.changes);
                    if let Some(plan) = plan_of(tool) {
                        self.plan = Some(cut_head(&plan, PLAN_CAP));
                    }
                }
                if let Some(command) = command_of(&tool.input) {
                    let status = match tool.status {
                        ToolStatus::Ok => "ok   ",
                        ToolStatus::Error => "error",
                        ToolStatus::Pending => "?    ",
                    };
                    self.commands
                        .push(cut_head(&format!("{status} {command}"), LINE_CAP));
                }
                if tool.status == ToolStatus::Error {
                    self.errors.push(error_of(tool));
                }
            }
            // A patch part sums its step (OpenCode): the step's edit tools, counted above,
            // already hold its lines, so it adds the files and their order but no counts.
            Part::Patch { files } => {
                let named: Vec<FileChange> = files
                    .iter()
                    .map(|f| FileChange {
                        additions: 0,
                        deletions: 0,
                        ..f.clone()
                    })
                    .collect();
                self.changed(&named);
            }
            Part::Compaction {
                summary: Some(summary),
                ..
            } if !summary.trim().is_empty() => {
                self.summary = Some(cut_head(summary, SUMMARY_CAP));
            }
            _ => {}
        }
    }

    fn changed(&mut self, files: &[FileChange]) {
        for f in files {
            self.changes_seen += 1;
            let path = self.shown_path(&f.path);
            let tracked = self.files.len();
            match self.files.get_mut(&path) {
                Some(known) => {
                    known.change.clone_from(&f.change);
                    known.additions += f.additions;
                    known.deletions += f.deletions;
                    known.last = self.changes_seen;
                }
                None if tracked < TRACKED_FILES => {
                    let touched = FileTouched {
                        path: path.clone(),
                        change: f.change.clone(),
                        additions: f.additions,
                        deletions: f.deletions,
                        last: self.changes_seen,
                    };
                    self.files.insert(path, touched);
                }
                None => self.files_untracked += 1,
            }
        }
    }

    /// `path` relative to the session's directory when below it, on one line.
    fn shown_path(&self, path: &str) -> String {
        let relative = self
            .cwd
            .as_deref()
            .and_then(|cwd| path.strip_prefix(cwd.trim_end_matches('/')))
            .and_then(|rest| rest.strip_prefix('/'))
            .filter(|rest| !rest.is_empty());
        one_line(relative.unwrap_or(path))
    }
}

/// A user message's text parts, and a line per attached file.
fn user_text(m: &Message) -> String {
    let mut pieces: Vec<String> = Vec::new();
    for part in &m.parts {
        match part {
            Part::Text { text } => pieces.push(text.clone()),
            Part::File { path, mime, .. } => {
                let what = path.as_deref().or(mime.as_deref()).unwrap_or("a file");
                pieces.push(format!("[attached: {}]", one_line(what)));
            }
            _ => {}
        }
    }
    pieces.join("\n\n")
}

/// An assistant message's texts (each cut to [`TURN_CAP`]) and a line per tool call, in order;
/// reasoning is left out.
fn answer_entries(m: &Message) -> Vec<String> {
    m.parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } if !text.trim().is_empty() => Some(cut_head(text, TURN_CAP)),
            Part::Tool(tool) => Some(cut_head(&tool_line(tool), LINE_CAP)),
            _ => None,
        })
        .collect()
}

/// `[tool] Bash: ls -la (ok)`.
fn tool_line(tool: &ToolPart) -> String {
    let status = match tool.status {
        ToolStatus::Ok => "ok",
        ToolStatus::Error => "error",
        ToolStatus::Pending => "no result",
    };
    let name = one_line(&tool.name);
    match input_hint(&tool.input) {
        Some(hint) => format!("[tool] {name}: {hint} ({status})"),
        None => format!("[tool] {name} ({status})"),
    }
}

/// The command a shell tool ran, its first line: `command` (a string, or an argv where
/// `bash -lc X` is shown as X) or `cmd`.
fn command_of(input: &Value) -> Option<String> {
    let text = match (&input["command"], &input["cmd"]) {
        (Value::String(s), _) | (_, Value::String(s)) => s.clone(),
        (Value::Array(words), _) => {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [shell, flag, script] if is_shell(shell) && flag.starts_with('-') => {
                    (*script).to_owned()
                }
                _ => words.join(" "),
            }
        }
        _ => return None,
    };
    let text = text.trim();
    let mut lines = text.lines();
    let first = one_line(lines.next()?);
    let more = lines.next().is_some();
    Some(if more { format!("{first} …") } else { first }).filter(|c| !c.is_empty())
}

fn is_shell(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    matches!(name, "sh" | "bash" | "zsh" | "dash" | "fish")
}

/// The tool line and the end of the output of a failed call.
fn error_of(tool: &ToolPart) -> String {
    let line = cut_head(&tool_line(tool), LINE_CAP);
    let output = tool.output.as_deref().unwrap_or("").trim();
    if output.is_empty() {
        return line;
    }
    let room = ERROR_CAP.saturating_sub(line.chars().count() + 1);
    format!("{line}\n{}", cut_tail(output, room))
}

/// The plan a todo or plan tool recorded, as text: the tool is one of an agent's plan tools
/// (`Agent::plan_tools`: Claude's `TodoWrite` and `ExitPlanMode`, Codex's `update_plan`,
/// OpenCode's `todowrite`), and its steps are a checklist after the reason given for them.
fn plan_of(tool: &ToolPart) -> Option<String> {
    let name = tool.name.to_ascii_lowercase();
    let reader = AGENTS
        .iter()
        .flat_map(|a| a.plan_tools)
        .find(|t| t.name == name)?;
    let text = match (reader.read)(&tool.input)? {
        Plan::Text(text) => text,
        Plan::Steps { why, steps } => {
            let steps = checklist(&steps)?;
            match why.filter(|w| !w.trim().is_empty()) {
                Some(why) => format!("{why}\n\n{steps}"),
                None => steps,
            }
        }
    };
    Some(text).filter(|s| !s.trim().is_empty())
}

/// `[x] done`, `[~] doing`, `[ ] to do`, `[-] cancelled`, `[?]` another status, one per step;
/// `None` without steps.
fn checklist(steps: &[Step]) -> Option<String> {
    let lines: Vec<String> = steps
        .iter()
        .map(|step| {
            let mark = match step.status {
                StepStatus::Done => "[x]",
                StepStatus::Doing => "[~]",
                StepStatus::ToDo => "[ ]",
                StepStatus::Cancelled => "[-]",
                StepStatus::Other => "[?]",
            };
            format!("{mark} {}", one_line(&step.text))
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_from_each_agents_shell_tools() {
        let cases = [
            (json!({"command": "ls -la"}), Some("ls -la")),
            (json!({"cmd": "cargo test\nmore"}), Some("cargo test …")),
            (
                json!({"command": ["bash", "-lc", "git status"]}),
                Some("git status"),
            ),
            (
                json!({"command": ["rg", "-n", "x", "src"]}),
                Some("rg -n x src"),
            ),
            (json!({"chars": "y\n"}), None),
            (json!({"command": "  "}), None),
        ];
        for (input, want) in cases {
            assert_eq!(command_of(&input).as_deref(), want, "{input}");
        }
    }

    #[test]
    fn plans_from_each_agents_plan_tools() {
        let tool = |name: &str, input: Value| ToolPart {
            call_id: "c".into(),
            name: name.into(),
            input,
            status: ToolStatus::Ok,
            output: None,
            output_truncated: false,
            output_blob: None,
            changes: vec![],
            subagent_id: None,
        };
        let codex = tool(
            "update_plan",
            json!({"explanation": "why", "plan": [{"step": "a", "status": "completed"},
                   {"step": "b", "status": "in_progress"}, {"step": "c", "status": "pending"}]}),
        );
        assert_eq!(plan_of(&codex).unwrap(), "why\n\n[x] a\n[~] b\n[ ] c");
        let claude = tool("ExitPlanMode", json!({"plan": "1. do\n2. check"}));
        assert_eq!(plan_of(&claude).unwrap(), "1. do\n2. check");
        assert_eq!(plan_of(&tool("todowrite", json!({"todos": []}))), None);
    }
}
