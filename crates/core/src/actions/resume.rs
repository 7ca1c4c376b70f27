//! Resume commands: the agent's own command for exactly one session, run in its directory.
//!
//! The command is pasted into a shell, so it must do exactly what it shows and nothing else,
//! whatever a directory name or a store holds. The rules, each tested by running the command in
//! bash, dash, zsh and fish (`tests/resume.rs`; PowerShell is tested by a model of its
//! tokenizer, as no PowerShell installs from Debian's packages):
//!
//! - **Ids** are checked against the agent's own shape (`agent_sessions_providers::ids`) by each
//!   provider before a command is built, and refused otherwise
//!   (`agent_sessions_providers::ids::invalid_id`). So an id never starts with `-` (no id
//!   becomes an option) and never needs quoting.
//! - **Control characters are refused, not escaped.** A word holding a C0 or C1 control, DEL,
//!   a line or paragraph separator, or a bidirectional-text control (which reorders how the
//!   shown path reads) yields [`Error::ResumeUnavailable`] (checked where every
//!   [`ResumeCommand`] is made, in the model: [`ResumeCommand::new`]): a newline pasted without bracketed
//!   paste runs the command without Enter, and an escape sequence or a bidi override makes the
//!   shown text differ from what runs. Escaping cannot be done for every shell: `$'\e'` works
//!   in bash, zsh and fish but not in dash, and PowerShell single quotes have no escapes. Such
//!   a session is resumed by hand; the error says so.
//! - **POSIX** (sh, dash, bash, zsh, fish): a word that is not plain is single-quoted; `'` and
//!   `\` are written outside the quotes as `\'` and `\\`, because fish, unlike sh, reads `\'`
//!   and `\\` as escapes inside single quotes. `cd -- <dir> && …`: a relative directory gets a
//!   leading `./`, so neither `-` (the previous directory, even after `--` in bash), `+1`
//!   (zsh's directory stack) nor `CDPATH` applies; the agent runs only if `cd` worked.
//! - **PowerShell** (5.1 and 7): a word that is not plain is single-quoted, doubling every
//!   character PowerShell ends a single-quoted string on: `'` and the typographic U+2018–U+201B
//!   (`‘ ’ ‚ ‛`). Inside single quotes `$`, backtick and the double quotes `" “ ” „` are plain
//!   text. `Set-Location -LiteralPath` takes no wildcards and no `-` history; PowerShell 5.1 has
//!   no `&&`, so the agent runs under `if ($?)`, only if the directory change worked.
//!
//! **A session in two files** (a project folder copied beside itself, a synced or restored
//! store): an agent whose resume names the session by id alone finds the file itself, so the
//! command of a copy would carry on the other file. Such an agent says which file it opens
//! ([`which_copy`], from its descriptor's `which_copy`); a command is only given for a row
//! whose file that is.

use crate::error::Error;
pub(crate) use crate::model::resume::{is_control, shown};
/// The command is model data (providers build it, front ends show it); this module quotes it.
pub use crate::model::ResumeCommand;
use crate::model::SessionMeta;
/// Id shapes: each provider checks its own; trash and bundles check them too.
pub use crate::provider::ids::is_uuid;
use crate::provider::registry;

/// A [`ResumeCommand`] written for pasting into a shell.
pub trait ShellCommand {
    /// `cd -- '<cwd>' && program args…` for sh, dash, bash, zsh and fish.
    fn posix(&self) -> String;
    /// `Set-Location -LiteralPath '<cwd>'; if ($?) { & program args… }` for PowerShell 5.1+.
    fn powershell(&self) -> String;
    /// The form for this platform's usual shell.
    fn for_this_platform(&self) -> String;
}

impl ShellCommand for ResumeCommand {
    fn posix(&self) -> String {
        let mut words = vec![posix_quote(self.program())];
        words.extend(self.args().iter().map(|a| posix_quote(a)));
        let command = words.join(" ");
        match self.cwd() {
            Some(dir) => format!("cd -- {} && {command}", posix_quote(&not_an_option(dir))),
            None => command,
        }
    }

    fn powershell(&self) -> String {
        let mut words = vec![format!("& {}", ps_quote(self.program()))];
        words.extend(self.args().iter().map(|a| ps_quote(a)));
        let command = words.join(" ");
        match self.cwd() {
            Some(dir) => format!(
                "Set-Location -LiteralPath {}; if ($?) {{ {command} }}",
                ps_quote(dir)
            ),
            None => command,
        }
    }

    fn for_this_platform(&self) -> String {
        if cfg!(windows) {
            self.powershell()
        } else {
            self.posix()
        }
    }
}

/// A relative directory as `./dir`, so `cd` reads no option, stack entry or `CDPATH` from it.
fn not_an_option(dir: &str) -> String {
    if dir.starts_with('/') {
        dir.to_owned()
    } else {
        format!("./{dir}")
    }
}

/// Safe unquoted in every shell here: no expansion, glob, operator or assignment (`=` expands
/// at the start of a word in zsh).
fn is_plain_posix(word: &str) -> bool {
    !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:+".contains(&b))
}

fn posix_quote(word: &str) -> String {
    if is_plain_posix(word) {
        return word.to_owned();
    }
    let mut out = String::with_capacity(word.len() + 2);
    out.push('\'');
    for c in word.chars() {
        match c {
            // Closed, escaped outside the quotes, reopened: the same in sh and in fish.
            '\'' => out.push_str(r"'\''"),
            '\\' => out.push_str(r"'\\'"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Safe unquoted in PowerShell's argument mode: starts with a letter or `-`/`--` and a letter
/// (never a number, which PowerShell would convert, nor `@`, `$`, `(`, `{`, `--%`), and holds
/// no `,` (an array) or other operator.
fn is_plain_ps(word: &str) -> bool {
    let rest = word.trim_start_matches('-');
    word.len() - rest.len() <= 2
        && rest.starts_with(|c: char| c.is_ascii_alphabetic())
        && rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

/// The characters that open or close a single-quoted string in PowerShell.
const PS_SINGLE_QUOTES: [char; 5] = ['\'', '\u{2018}', '\u{2019}', '\u{201A}', '\u{201B}'];

fn ps_quote(word: &str) -> String {
    if is_plain_ps(word) {
        return word.to_owned();
    }
    let mut out = String::with_capacity(word.len() + 2);
    out.push('\'');
    for c in word.chars() {
        // Doubled, any of them stands for itself inside the string.
        if PS_SINGLE_QUOTES.contains(&c) {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

// ---- which copy an agent resumes ------------------------------------------------------------

/// Refuses the resume of a row whose file is not the one the agent's resume by id run in the
/// session's directory opens ([`Error::ResumeOtherCopy`], naming that file), for an agent
/// that finds the file itself. `id` is the id resumed (a subagent's parent's).
pub(crate) fn which_copy(session: &SessionMeta, id: &str) -> Result<(), Error> {
    let Some(check) = registry::agent(session.provider).which_copy else {
        return Ok(());
    };
    check(session, id).map_err(|other| Error::ResumeOtherCopy {
        provider: session.provider,
        id: other.id.into(),
        cwd: other.cwd,
        chosen: other.chosen,
        opens: other.opens,
        found: other.found,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_for_each_shell() {
        let c = ResumeCommand::new(
            "claude",
            &["--resume", "0c6a524c-d98f-459f-ab17-05cfea6d7f09"],
            Some("/home/me/it's here"),
        )
        .unwrap();
        assert_eq!(
            c.posix(),
            r"cd -- '/home/me/it'\''s here' && claude --resume 0c6a524c-d98f-459f-ab17-05cfea6d7f09"
        );
        assert_eq!(
            c.powershell(),
            "Set-Location -LiteralPath '/home/me/it''s here'; \
             if ($?) { & claude --resume '0c6a524c-d98f-459f-ab17-05cfea6d7f09' }"
        );
        let plain = ResumeCommand::new("codex", &["resume", "x"], None).unwrap();
        assert_eq!(plain.posix(), "codex resume x");
        assert_eq!(plain.powershell(), "& codex resume x");
    }
}
