//! The tools, read-only: search, list, read, timeline, stats. Each answers plain text within a
//! token budget (`page`), with the ids and the cursor the next call uses; a tool's failure is
//! an error result (`error [code]: what went wrong and what to do`), never a crash of the server.

use std::fmt::Write;
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};

use agent_sessions_core::index::SearchFilter;
use agent_sessions_core::stats::{self, By};
use agent_sessions_core::{FileChange, Message, Part, ProviderKind, Role, SessionMeta, ToolStatus};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ErrorData, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

use super::page::{self, clip, line, Page};
use super::privacy::{self, Privacy};
use super::source::{Failure, Source};

/// The parameters every tool shares.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Output {
    /// At most this many tokens in the answer (counted as characters / 4); 200 to 20000,
    /// default 4000. A longer answer is cut and says `truncated: true`.
    pub max_tokens: Option<u32>,
    /// Replace secrets (API keys, tokens, private keys, KEY=value assignments) and home
    /// directories in the answer, as a share-safe bundle does. Default false.
    pub redact: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words, "quoted phrases" and prefix* (all must match), as the app's search box.
    pub query: String,
    /// Only this agent's sessions: claude, codex or opencode.
    pub agent: Option<String>,
    /// Only sessions whose directory or repository is this absolute path or below it.
    pub dir: Option<String>,
    /// Only sessions updated on or after this day (YYYY-MM-DD, UTC).
    pub since: Option<String>,
    /// Only sessions updated on or before this day (YYYY-MM-DD, UTC).
    pub until: Option<String>,
    /// At most this many hits (1 to 50, default 10).
    pub limit: Option<u32>,
    #[serde(flatten)]
    pub output: Output,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {
    /// Only this agent's sessions: claude, codex or opencode.
    pub agent: Option<String>,
    /// Only sessions whose directory or repository is this absolute path or below it.
    pub dir: Option<String>,
    /// Only sessions updated on or after this day (YYYY-MM-DD, UTC).
    pub since: Option<String>,
    /// Only sessions updated on or before this day (YYYY-MM-DD, UTC).
    pub until: Option<String>,
    /// Only sessions of this model (its exact name).
    pub model: Option<String>,
    /// At most this many sessions on this page (1 to 200, default 30).
    pub limit: Option<u32>,
    /// Where to go on from: the cursor a previous page's footer gave.
    pub cursor: Option<String>,
    #[serde(flatten)]
    pub output: Output,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadArgs {
    /// The session's id (or an unambiguous prefix of it), as list_sessions and
    /// search_sessions give it.
    pub session_id: String,
    /// Start at this message id (a search hit's `message`), instead of the first message.
    pub message_id: Option<String>,
    /// Where to go on from: the cursor a previous page's footer gave (a message number).
    pub cursor: Option<String>,
    /// At most this many messages on this page (default: as many as max_tokens allows).
    pub count: Option<u32>,
    /// Include the model's reasoning (thinking) text. Default false.
    pub include_reasoning: Option<bool>,
    /// Include tool calls' output (each cut to 2000 characters). Default false: only the
    /// tool's name, input and status.
    pub include_tool_output: Option<bool>,
    /// "text" (default) or "json": each message as the unified JSON record (every part,
    /// untrimmed), when the exact content matters.
    pub format: Option<String>,
    #[serde(flatten)]
    pub output: Output,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TimelineArgs {
    /// The session's id (or an unambiguous prefix of it).
    pub session_id: String,
    /// Where to go on from: the cursor a previous page's footer gave (an event number).
    pub cursor: Option<String>,
    #[serde(flatten)]
    pub output: Output,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct StatsArgs {
    /// Group by dir (default), repo, agent, model, day or week.
    pub by: Option<String>,
    /// Only this agent's sessions: claude, codex or opencode.
    pub agent: Option<String>,
    /// Only sessions updated on or after this day (YYYY-MM-DD, UTC).
    pub since: Option<String>,
    #[serde(flatten)]
    pub output: Output,
}

/// The server: one source of sessions, the privacy settings, the tools.
#[derive(Clone)]
pub struct Server {
    source: Arc<Mutex<Box<dyn Source>>>,
    privacy: Arc<Privacy>,
    /// Which machine, for the instructions (empty: this one).
    host: String,
    tool_router: ToolRouter<Server>,
}

type Answer = Result<String, Failure>;

impl Server {
    pub fn new(source: Box<dyn Source>, privacy: Privacy, host: String) -> Server {
        Server {
            source: Arc::new(Mutex::new(source)),
            privacy: Arc::new(privacy),
            host,
            tool_router: Server::tool_router(),
        }
    }

    /// Runs `work` on a thread that may block (the stores are files and SQLite), one call at a
    /// time on the source, and makes its answer a tool result.
    async fn answer(
        &self,
        work: impl FnOnce(&mut dyn Source, &Privacy) -> Answer + Send + 'static,
    ) -> Result<CallToolResult, ErrorData> {
        let source = self.source.clone();
        let privacy = self.privacy.clone();
        let done = tokio::task::spawn_blocking(move || {
            let mut source = source.lock().unwrap_or_else(|e| e.into_inner());
            work(source.as_mut(), &privacy)
        })
        .await;
        let answer = done.unwrap_or_else(|e| Err(Failure::new("internal", e.to_string())));
        Ok(match answer {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(f) => CallToolResult::error(vec![ContentBlock::text(format!(
                "error [{}]: {}",
                f.code, f.message
            ))]),
        })
    }
}

#[tool_router]
impl Server {
    #[tool(
        name = "search_sessions",
        description = "Search the past sessions of every coding agent on this machine for words or \"phrases\": what was decided, how something was fixed. Each hit gives the session id, the message id and a snippet; read_session with both reads the conversation there.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search_sessions(
        &self,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(move |source, privacy| search(source, privacy, args))
            .await
    }

    #[tool(
        name = "list_sessions",
        description = "List past sessions of the coding agents, newest first: id, agent, last update, message counts, title and directory; filter by agent, directory, dates or model. Paged: a cut page ends with the cursor of the next.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_sessions(
        &self,
        Parameters(args): Parameters<ListArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(move |source, privacy| list(source, privacy, args))
            .await
    }

    #[tool(
        name = "read_session",
        description = "Read a session's conversation, or a range of it from a message id: user and assistant text, tool calls (output and reasoning on request). Paged within max_tokens: a cut page ends with `truncated: true` and the cursor of the next.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn read_session(
        &self,
        Parameters(args): Parameters<ReadArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(move |source, privacy| read(source, privacy, args))
            .await
    }

    #[tool(
        name = "session_timeline",
        description = "A session's activity timeline: session start, prompts, tool starts and ends, notifications, stops, with times (names and lengths only, no text). Paged like read_session.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn session_timeline(
        &self,
        Parameters(args): Parameters<TimelineArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(move |source, privacy| timeline(source, privacy, args))
            .await
    }

    #[tool(
        name = "session_stats",
        description = "Sessions, messages, tokens and cost (USD, estimated where the agent did not record it) grouped by directory, repository, agent, model, day or week.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn session_stats(
        &self,
        Parameters(args): Parameters<StatsArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(move |source, privacy| session_stats(source, privacy, args))
            .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let machine = if self.host.is_empty() {
            "this machine".to_owned()
        } else {
            format!("the machine {}", self.host)
        };
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "agent-sessions",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(format!(
                "Read-only access to the past sessions of the coding agents on {machine}. \
                 search_sessions finds where something was discussed; read_session reads it \
                 (session_id and message_id from a hit); list_sessions, session_timeline and \
                 session_stats give the overview. Answers are plain text within max_tokens; \
                 pass redact=true to hide secrets and home directories."
            ))
    }
}

fn agent(name: &Option<String>) -> Result<Vec<ProviderKind>, Failure> {
    match name.as_deref() {
        None | Some("") => Ok(Vec::new()),
        Some(n) => crate::parse_provider(n)
            .map(|p| vec![p])
            .map_err(|e| Failure::new("bad_params", e)),
    }
}

fn day(
    text: &Option<String>,
    parse: fn(&str) -> Result<i64, String>,
) -> Result<Option<i64>, Failure> {
    text.as_deref()
        .map(|t| parse(t).map_err(|e| Failure::new("bad_params", e)))
        .transpose()
}

/// A cursor a footer gave: a number.
fn cursor(text: &Option<String>) -> Result<usize, Failure> {
    match text.as_deref() {
        None | Some("") => Ok(0),
        Some(t) => t.parse().map_err(|_| {
            Failure::new(
                "bad_params",
                format!(
                    "cursor {t:?} is not one a page gave; leave it out to start at the beginning"
                ),
            )
        }),
    }
}

fn updated(s: &SessionMeta) -> String {
    s.updated_at
        .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_else(|| "-".into())
}

fn warnings_block(warnings: &[String]) -> String {
    warnings.iter().map(|w| format!("warning: {w}\n")).collect()
}

fn search(source: &mut dyn Source, privacy: &Privacy, args: SearchArgs) -> Answer {
    if args.query.trim().is_empty() {
        return Err(Failure::new(
            "bad_query",
            "the query is empty: give words, \"a phrase\" or a prefix*",
        ));
    }
    let limit = args.limit.unwrap_or(10).clamp(1, 50) as usize;
    let filter = SearchFilter {
        providers: agent(&args.agent)?,
        dir: args.dir.clone(),
        since_ms: day(&args.since, crate::parse_date)?,
        until_ms: day(&args.until, crate::parse_end_date)?,
        limit,
    };
    let (hits, warnings) = privacy.search(source, &args.query, filter)?;
    let mut page = Page::new(
        page::budget(args.output.max_tokens),
        privacy.redact(&args.output),
    );
    page.head(warnings_block(&warnings));
    page.head(format!("{} hits for {:?}\n", hits.len(), args.query));
    for (i, h) in hits.iter().enumerate() {
        let at = if h.message_id.is_empty() {
            "(the title)".to_owned()
        } else {
            format!("message_id={}", h.message_id)
        };
        let block = format!(
            "\n[{}] {} session_id={} {at}\n  title: {}\n  {}\n",
            i + 1,
            h.provider,
            h.session_id,
            line(h.title.as_deref().unwrap_or("(untitled)"), 100),
            h.snippet.replace('\n', " ")
        );
        if !page.push(block, i == 0) {
            break;
        }
    }
    Ok(page.finish(None, "hits"))
}

fn list(source: &mut dyn Source, privacy: &Privacy, args: ListArgs) -> Answer {
    let providers = agent(&args.agent)?;
    let since = day(&args.since, crate::parse_date)?;
    let until = day(&args.until, crate::parse_end_date)?;
    let start = cursor(&args.cursor)?;
    let limit = args.limit.unwrap_or(30).clamp(1, 200) as usize;
    let listed = privacy.list(source, &providers)?;
    let dir = args.dir.as_deref().map(|d| d.trim_end_matches('/'));
    let chosen: Vec<&SessionMeta> = listed
        .sessions
        .iter()
        .filter(|s| dir.is_none_or(|d| privacy::is_under(s, d)))
        .filter(|s| since.is_none_or(|t| s.updated_at.is_some_and(|u| u.timestamp_millis() >= t)))
        .filter(|s| until.is_none_or(|t| s.updated_at.is_some_and(|u| u.timestamp_millis() <= t)))
        .filter(|s| args.model.is_none() || s.model == args.model)
        .collect();
    let mut page = Page::new(
        page::budget(args.output.max_tokens),
        privacy.redact(&args.output),
    );
    page.head(warnings_block(&listed.warnings));
    page.head(format!("{} sessions; from {}:\n", chosen.len(), start));
    let mut next = None;
    for (i, s) in chosen.iter().enumerate().skip(start) {
        if i == start + limit {
            next = Some(i);
            break;
        }
        let block = format!(
            "\n{} {} session_id={}  {} user / {} assistant messages\n  title: {}\n  dir: {}\n",
            updated(s),
            s.provider,
            s.id,
            s.counts.user,
            s.counts.assistant,
            line(s.title.as_deref().unwrap_or("(untitled)"), 100),
            s.cwd.as_deref().unwrap_or("-")
        );
        if !page.push(block, i == start) {
            next = Some(i);
            break;
        }
    }
    Ok(page.finish(next.map(|n| n.to_string()), "sessions"))
}

/// How a message is written out.
struct Shape {
    reasoning: bool,
    tool_output: bool,
    json: bool,
}

fn read(source: &mut dyn Source, privacy: &Privacy, args: ReadArgs) -> Answer {
    let start = cursor(&args.cursor)?;
    let shape = Shape {
        reasoning: args.include_reasoning.unwrap_or(false),
        tool_output: args.include_tool_output.unwrap_or(false),
        json: match args.format.as_deref() {
            None | Some("text") => false,
            Some("json") => true,
            Some(other) => {
                return Err(Failure::new(
                    "bad_params",
                    format!("format {other:?} is not text or json"),
                ))
            }
        },
    };
    let count = args.count.map_or(usize::MAX, |c| c.max(1) as usize);
    let mut page = Page::new(
        page::budget(args.output.max_tokens),
        privacy.redact(&args.output),
    );
    // Until `message_id` is met, nothing is shown; then messages from the cursor on.
    let mut seeking = args.message_id.clone();
    let (mut index, mut shown, mut next, mut checked) = (0usize, 0usize, None, false);
    let session = source.messages(&args.session_id, &mut |session, m| {
        if !checked {
            // A hidden session is refused below, with nothing of it read.
            if privacy.allow(session).is_err() {
                return ControlFlow::Break(());
            }
            page.head(header(session));
            checked = true;
        }
        let at = index;
        index += 1;
        if m.meta || at < start {
            return ControlFlow::Continue(());
        }
        if let Some(id) = &seeking {
            if &m.id != id {
                return ControlFlow::Continue(());
            }
            seeking = None;
        }
        if shown == count || !page.push(message(at, &m, &shape), shown == 0) {
            next = Some(at);
            return ControlFlow::Break(());
        }
        shown += 1;
        ControlFlow::Continue(())
    })?;
    privacy.allow(&session)?;
    if let Some(id) = seeking {
        return Err(Failure::new(
            "message_not_found",
            format!(
                "session {} has no message {id:?} after message {start}; search_sessions gives message ids, or leave message_id out",
                session.id
            ),
        ));
    }
    if !checked {
        page.head(header(&session));
    }
    if shown == 0 && next.is_none() {
        page.head(format!("(no messages from {start} on)\n"));
    }
    Ok(page.finish(next.map(|n| n.to_string()), "messages"))
}

fn header(s: &SessionMeta) -> String {
    format!(
        "{}\n{} session_id={} model={} updated {}\ndir: {}\n",
        line(s.title.as_deref().unwrap_or("(untitled)"), 200),
        s.provider,
        s.id,
        s.model.as_deref().unwrap_or("-"),
        updated(s),
        s.cwd.as_deref().unwrap_or("-")
    )
}

/// One message: `[n] role · time · message_id=…`, its text, tool calls in one line each.
fn message(n: usize, m: &Message, shape: &Shape) -> String {
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::System => "system",
    };
    let time = m
        .timestamp
        .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_else(|| "-".into());
    let mut out = format!("\n[{n}] {role} · {time} · message_id={}\n", m.id);
    if shape.json {
        let _ = writeln!(out, "{}", serde_json::to_string(m).unwrap_or_default());
        return out;
    }
    for part in &m.parts {
        part_text(&mut out, part, shape);
    }
    out
}

fn part_text(out: &mut String, part: &Part, shape: &Shape) {
    match part {
        Part::Text { text } => {
            let _ = writeln!(out, "{text}");
        }
        Part::Reasoning { text, .. } if shape.reasoning && !text.is_empty() => {
            let _ = writeln!(out, "(reasoning) {text}");
        }
        Part::Reasoning { .. } => {}
        Part::Tool(tool) => {
            let status = match tool.status {
                ToolStatus::Ok => "ok",
                ToolStatus::Error => "error",
                ToolStatus::Pending => "no result",
            };
            let input = clip(&tool.input.to_string(), 300);
            let _ = writeln!(out, "(tool {}) {input} → {status}", tool.name);
            if let (true, Some(o)) = (shape.tool_output, &tool.output) {
                let _ = writeln!(out, "(output) {}", clip(o, 2_000));
            }
            changes(out, "changed", &tool.changes);
        }
        Part::Patch { files } => changes(out, "patch", files),
        Part::File { path, mime, .. } => {
            let _ = writeln!(
                out,
                "(file) {} {}",
                path.as_deref().unwrap_or("-"),
                mime.as_deref().unwrap_or("")
            );
        }
        Part::Compaction { summary, .. } => {
            let _ = writeln!(
                out,
                "(context compacted) {}",
                clip(summary.as_deref().unwrap_or(""), 500)
            );
        }
        Part::Notice { source, text } => {
            let _ = writeln!(out, "({source}) {}", clip(text, 300));
        }
    }
}

/// One line a file: `(label) update src/x.rs +3 -1`.
fn changes(out: &mut String, label: &str, files: &[FileChange]) {
    for c in files {
        let (what, path) = (&c.change, &c.path);
        let _ = writeln!(
            out,
            "({label}) {what} {path} +{} -{}",
            c.additions, c.deletions
        );
    }
}

fn timeline(source: &mut dyn Source, privacy: &Privacy, args: TimelineArgs) -> Answer {
    let start = cursor(&args.cursor)?;
    let (session, events) = source.timeline(&args.session_id)?;
    privacy.allow(&session)?;
    let mut page = Page::new(
        page::budget(args.output.max_tokens),
        privacy.redact(&args.output),
    );
    page.head(header(&session));
    page.head(format!("{} events; from {start}:\n", events.len()));
    let mut next = None;
    for (i, e) in events.iter().enumerate().skip(start) {
        if !page.push(format!("{}\n", crate::render::event_line(e)), i == start) {
            next = Some(i);
            break;
        }
    }
    Ok(page.finish(next.map(|n| n.to_string()), "events"))
}

fn session_stats(source: &mut dyn Source, privacy: &Privacy, args: StatsArgs) -> Answer {
    let by = match args.by.as_deref() {
        None | Some("") => By::Dir,
        Some(name) => By::parse(name).ok_or_else(|| {
            Failure::new(
                "bad_params",
                format!("by {name:?} is not dir, repo, agent, model, day or week"),
            )
        })?,
    };
    let since = day(&args.since, crate::parse_date)?;
    let listed = privacy.list(source, &agent(&args.agent)?)?;
    let sessions = listed
        .sessions
        .iter()
        .filter(|s| since.is_none_or(|t| s.updated_at.is_some_and(|u| u.timestamp_millis() >= t)));
    let table = crate::stats::table(&stats::stats(sessions, by));
    let mut page = Page::new(
        page::budget(args.output.max_tokens),
        privacy.redact(&args.output),
    );
    page.head(warnings_block(&listed.warnings));
    for (i, row) in table.lines().enumerate() {
        if !page.push(format!("{row}\n"), i == 0) {
            break;
        }
    }
    Ok(page.finish(None, "groups"))
}
