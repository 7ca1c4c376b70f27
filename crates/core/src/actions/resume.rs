//! Resume commands: the agent's own command for exactly one session, run in its directory.

use serde::{Deserialize, Serialize};

/// A command line that resumes a session. `program` and `args` are never interpreted by a shell
/// here; [`ResumeCommand::posix`] and [`ResumeCommand::powershell`] quote them for pasting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResumeCommand {
    pub program: String,
    pub args: Vec<String>,
    /// The directory to run it in.
    pub cwd: Option<String>,
}

impl ResumeCommand {
    pub fn new(program: &str, args: &[&str], cwd: Option<&str>) -> Self {
        ResumeCommand {
            program: program.to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            cwd: cwd.map(str::to_owned),
        }
    }

    /// `cd '<cwd>' && program args…` for sh, bash, zsh and fish.
    pub fn posix(&self) -> String {
        let mut words = vec![posix_quote(&self.program)];
        words.extend(self.args.iter().map(|a| posix_quote(a)));
        let command = words.join(" ");
        match &self.cwd {
            Some(dir) => format!("cd {} && {command}", posix_quote(dir)),
            None => command,
        }
    }

    /// `Set-Location -LiteralPath '<cwd>'; & program args…` for Windows PowerShell 5.1.
    pub fn powershell(&self) -> String {
        let mut words = vec![format!("& {}", ps_quote(&self.program))];
        words.extend(self.args.iter().map(|a| ps_quote(a)));
        let command = words.join(" ");
        match &self.cwd {
            Some(dir) => format!("Set-Location -LiteralPath {}; {command}", ps_quote(dir)),
            None => command,
        }
    }

    /// The form for this platform's usual shell.
    pub fn for_this_platform(&self) -> String {
        if cfg!(windows) {
            self.powershell()
        } else {
            self.posix()
        }
    }
}

fn is_plain(word: &str) -> bool {
    !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@%+,".contains(&b))
}

fn posix_quote(word: &str) -> String {
    if is_plain(word) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn ps_quote(word: &str) -> String {
    if is_plain(word) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_for_each_shell() {
        let c = ResumeCommand::new("claude", &["--resume", "abc-1"], Some("/home/me/it's here"));
        assert_eq!(
            c.posix(),
            r"cd '/home/me/it'\''s here' && claude --resume abc-1"
        );
        assert_eq!(
            c.powershell(),
            "Set-Location -LiteralPath '/home/me/it''s here'; & claude --resume abc-1"
        );
        let plain = ResumeCommand::new("codex", &["resume", "x"], None);
        assert_eq!(plain.posix(), "codex resume x");
    }
}
