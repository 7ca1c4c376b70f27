//! The command that resumes a session, as data: the agent's program, its arguments and the
//! directory to run it in. Providers build it (they know their agent's command line); the
//! actions quote it for a shell (`agent_sessions_core::actions::resume`, whose module doc has
//! the rules). Its one invariant is kept here, where every value is made: no word holds a
//! control character, because a command is pasted into a shell and escaping cannot be done for
//! every shell (see the quoting rules).

use std::fmt;

/// A command line that resumes a session. `program` and `args` are never interpreted by a shell
/// here; the actions quote them for pasting. Built only by [`ResumeCommand::new`], so every
/// value holds no control character.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ResumeCommand {
    program: String,
    args: Vec<String>,
    /// The directory to run it in.
    cwd: Option<String>,
}

/// Why no command could be built: the text after "resume command unavailable: ".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresumable(pub String);

impl fmt::Display for Unresumable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unresumable {}

impl ResumeCommand {
    /// Refuses any word holding a control character (a newline pasted without bracketed paste
    /// runs the command, an escape sequence or a bidi override makes the shown text differ
    /// from what runs). An empty `cwd` is no directory. Ids in `args` must have been checked by
    /// the provider already.
    pub fn new(program: &str, args: &[&str], cwd: Option<&str>) -> Result<Self, Unresumable> {
        for word in std::iter::once(&program).chain(args) {
            if has_control(word) {
                return Err(Unresumable(format!(
                    "the command word \"{}\" contains control characters",
                    shown(word)
                )));
            }
        }
        let cwd = cwd.filter(|d| !d.is_empty());
        if let Some(dir) = cwd.filter(|d| has_control(d)) {
            return Err(Unresumable(format!(
                "the directory name \"{}\" contains control characters; resume it manually",
                shown(dir)
            )));
        }
        Ok(ResumeCommand {
            program: program.to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            cwd: cwd.map(str::to_owned),
        })
    }

    pub fn program(&self) -> &str {
        &self.program
    }

    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// The directory to run it in.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }
}

/// Characters a pasted command must not hold: C0 and C1 controls, DEL, line and paragraph
/// separators, and the bidirectional-text controls (ALM, LRM, RLM, LRE…RLO, LRI…PDI).
pub fn is_control(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

fn has_control(word: &str) -> bool {
    word.chars().any(is_control)
}

/// `word` for an error message, each control character written as `\u{…}`.
pub fn shown(word: &str) -> String {
    word.chars()
        .map(|c| {
            if is_control(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}
