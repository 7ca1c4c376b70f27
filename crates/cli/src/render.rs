//! Text output for people: the session table and a readable transcript.

use std::fmt::Write;

use agent_sessions_core::actions::resume::{ResumeCommand, ShellCommand};
use agent_sessions_core::index::Hit;
use agent_sessions_core::{Diagnostics, Error, Message, Part, Role, SessionMeta, ToolStatus};
use chrono::{DateTime, Utc};

fn time(t: Option<DateTime<Utc>>) -> String {
    t.map(|t| t.format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_else(|| "-".into())
}

fn one_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() > max {
        let cut: String = line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

/// An aligned table, one session a row, in the order given (newest first).
pub fn session_table(sessions: &[SessionMeta], diagnostics: &Diagnostics) -> String {
    let rows: Vec<[String; 6]> = sessions
        .iter()
        .map(|s| {
            let title = s.title.as_deref().unwrap_or("(untitled)");
            let title = if s.parent_id.is_some() {
                format!("↳ {}", one_line(title, 58))
            } else {
                one_line(title, 60)
            };
            [
                time(s.updated_at),
                s.provider.to_string(),
                s.id.clone(),
                format!("{}/{}", s.counts.user, s.counts.assistant),
                title,
                s.cwd.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let header = ["UPDATED", "AGENT", "ID", "USER/ASST", "TITLE", "CWD"].map(String::from);
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(i, (c, w))| if i == 5 { c.clone() } else { pad(c, w) })
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    let n = sessions.len();
    let _ = writeln!(out, "{n} session{}", if n == 1 { "" } else { "s" });
    if diagnostics.parse_errors > 0 {
        let _ = writeln!(
            out,
            "{} unreadable records (see --json diagnostics)",
            diagnostics.parse_errors
        );
    }
    out
}

fn pad(cell: &str, width: usize) -> String {
    let n = cell.chars().count();
    format!("{cell}{}", " ".repeat(width.saturating_sub(n)))
}

/// A transcript's header as readable text: title, agent, id, model, directory, counts and the
/// resume command (or why there is none).
pub fn transcript_header(
    w: &mut impl std::io::Write,
    s: &SessionMeta,
    resume: Result<&ResumeCommand, &Error>,
) -> std::io::Result<()> {
    let mut out = String::new();
    let _ = writeln!(out, "{}", s.title.as_deref().unwrap_or("(untitled)"));
    let _ = writeln!(
        out,
        "{} · {} · {}",
        s.provider,
        s.id,
        s.model.as_deref().unwrap_or("-")
    );
    let _ = writeln!(out, "cwd: {}", s.cwd.as_deref().unwrap_or("-"));
    let _ = writeln!(
        out,
        "messages: user {} · assistant {} · tool calls {}",
        s.counts.user, s.counts.assistant, s.counts.tool_calls
    );
    let _ = match resume {
        Ok(resume) => writeln!(out, "resume: {}", resume.for_this_platform()),
        Err(e) => writeln!(out, "{e}"),
    };
    w.write_all(terminal_safe(&out).as_bytes())
}

/// One message as readable text.
pub fn write_message(w: &mut impl std::io::Write, m: &Message) -> std::io::Result<()> {
    let mut out = String::new();
    message(&mut out, m);
    w.write_all(terminal_safe(&out).as_bytes())
}

fn message(out: &mut String, m: &Message) {
    let who = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::System => "system",
    };
    let side = if m.sidechain { " (subagent)" } else { "" };
    let _ = writeln!(out, "\n── {who}{side} · {} ──", time(m.timestamp));
    for p in &m.parts {
        match p {
            Part::Text { text } => {
                let _ = writeln!(out, "{text}");
            }
            Part::Reasoning { text, encrypted } => {
                let shown = if text.is_empty() && *encrypted {
                    "(encrypted)"
                } else {
                    text.as_str()
                };
                let _ = writeln!(out, "  [reasoning] {}", one_line(shown, 100));
            }
            Part::Tool(tool) => {
                let status = match tool.status {
                    ToolStatus::Ok => "ok",
                    ToolStatus::Error => "error",
                    ToolStatus::Pending => "pending",
                };
                let input = one_line(&tool.input.to_string(), 100);
                let _ = writeln!(out, "  [tool {}] {input} → {status}", tool.name);
                if let Some(o) = &tool.output {
                    let lines = o.lines().count();
                    let _ = writeln!(out, "    {} ({lines} lines)", one_line(o, 96));
                }
                for c in &tool.changes {
                    let _ = writeln!(
                        out,
                        "    {} {} +{} -{}",
                        c.change, c.path, c.additions, c.deletions
                    );
                }
                if let Some(child) = &tool.subagent_id {
                    let _ = writeln!(out, "    → subagent {child}");
                }
            }
            Part::Patch { files } => {
                for c in files {
                    let _ = writeln!(
                        out,
                        "  [patch] {} {} +{} -{}",
                        c.change, c.path, c.additions, c.deletions
                    );
                }
            }
            Part::File { path, blob, .. } => {
                let what = path.as_deref().or(blob.as_deref()).unwrap_or("");
                let _ = writeln!(out, "  [file] {what}");
            }
            Part::Compaction { trigger, .. } => {
                let _ = writeln!(
                    out,
                    "  ── context compacted ({}) ──",
                    trigger.as_deref().unwrap_or("summary")
                );
            }
            Part::Notice { source, text } => {
                let _ = writeln!(out, "  [{source}] {}", one_line(text, 100));
            }
        }
    }
}

/// Search hits: session, where, and the snippet with the match marked.
pub fn hits(hits: &[Hit]) -> String {
    let mut out = String::new();
    for h in hits {
        let title = h.title.as_deref().unwrap_or("(untitled)");
        let at = if h.message_id.is_empty() {
            "title".to_owned()
        } else {
            h.message_id.clone()
        };
        let _ = writeln!(
            out,
            "{} {}  {}  [{at}]",
            h.provider,
            h.session_id,
            one_line(title, 60)
        );
        let _ = writeln!(out, "    {}", h.snippet.replace('\n', " "));
    }
    let n = hits.len();
    let _ = writeln!(out, "{n} hit{}", if n == 1 { "" } else { "s" });
    out
}

/// Problems per file, then the format versions seen.
pub fn diagnostics(
    d: &Diagnostics,
    versions: &[(agent_sessions_core::ProviderKind, String, u64)],
) -> String {
    let mut out = String::new();
    for item in &d.items {
        let line = item.line.map(|l| format!(":{l}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "{} {}{line}: {}",
            item.provider,
            item.path.display(),
            item.reason
        );
    }
    let _ = writeln!(out, "{} problems", d.parse_errors);
    let _ = writeln!(out, "format versions:");
    for (p, v, n) in versions {
        let _ = writeln!(out, "  {p} {v}: {n} sessions");
    }
    out
}

/// One timeline event as a line: `seq  time  type  data`.
pub fn event_line(e: &agent_sessions_core::live::events::Event) -> String {
    let ts =
        e.ts.map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
            .unwrap_or_else(|| "-".into());
    let kind = serde_json::to_value(e.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let data = if e.data == serde_json::json!({}) {
        String::new()
    } else {
        e.data.to_string()
    };
    format!("{:>5}  {ts}  {kind:<13} {data}", e.seq)
}

/// Text for a terminal. Transcript content is hostile: an escape sequence in it could retitle
/// the terminal, write the clipboard (OSC 52) or hide lines, a carriage return could overwrite
/// what was shown, and a bidi control could reorder it. Control characters other than newline
/// and tab, and bidi controls, are shown as `\u{…}` instead.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(
                c,
                '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{2028}' | '\u{2029}'
            )
            || ('\u{202A}'..='\u{202E}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_char(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::terminal_safe;

    /// The count under the hits agrees with its number ("1 hit", it said "1 hits").
    #[test]
    fn the_hit_count_is_singular_for_one() {
        let hit = agent_sessions_core::index::Hit {
            session_id: "s".into(),
            provider: agent_sessions_core::ProviderKind::Claude,
            message_id: "m".into(),
            title: None,
            snippet: "«x»".into(),
            score: 1.0,
            source_path: Default::default(),
        };
        assert_eq!(super::hits(&[]), "0 hits\n");
        assert!(super::hits(std::slice::from_ref(&hit)).ends_with("\n1 hit\n"));
        assert!(super::hits(&[hit.clone(), hit]).ends_with("\n2 hits\n"));
    }

    #[test]
    fn terminal_output_carries_no_control_sequences() {
        let hostile = "a\u{1b}]0;pwned\u{7}b\r\u{9b}c\u{202e}d\u{7f}\te\nf";
        let safe = terminal_safe(hostile);
        assert_eq!(
            safe,
            "a\\u{1b}]0;pwned\\u{7}b\\u{d}\\u{9b}c\\u{202e}d\\u{7f}\te\nf"
        );
        assert!(!safe
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'));
        assert!(matches!(
            terminal_safe("plain\ttext\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
