//! Property tests of the resume points of streamed reads (`build::stream`, `Held::resume_line`):
//! random but realistic Claude sessions and Codex rollouts, read with small
//! [`Held`](crate::held::Held) limits so messages are handed out early, are checked by
//! [`build::resume_mismatch`] at every cut (line ends and mid-line) and after a second growth:
//! a read resumed where a read of the prefix said it could be hands out exactly what a whole
//! read does from that line on (but for parents before that line). The linked reads
//! (`load_each_linked`, what the app's open transcript splices) are checked with parents.
//!
//! A session is a list of abstract steps ([`ClaudeStep`], [`CodexStep`]) rendered into the
//! agents' record shapes (as in `testdata/`), so a failing case shrinks to a few steps.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Value};

use crate::build::{self, LoadEachFrom};
use agent_sessions_model::{ProviderKind, SessionMeta};

/// One step of a Claude session; `back` picks an earlier message id or call (from the newest).
#[derive(Debug, Clone)]
enum ClaudeStep {
    Prompt,
    /// A new answer: one record per block (thinking, text, calls), all with one `message.id`,
    /// with `between` other records after its first block: hook attachments (0), notes (1),
    /// or the result of the newest call (2: Claude Code runs a call while the answer streams).
    Answer {
        thinking: bool,
        text: bool,
        calls: u8,
        between: Vec<u8>,
    },
    /// One more record of an earlier answer's `message.id` (a late split record, or a repeated
    /// id), with a text or a call.
    More {
        back: u8,
        call: bool,
    },
    /// Results for earlier calls (answered already or not) in one user record.
    Results {
        back: Vec<u8>,
        error: bool,
    },
    /// A result for a call that is not in the file.
    UnknownResult,
    Sidechain {
        assistant: bool,
    },
    /// An injected, meta user record (a reminder).
    Meta,
    Command,
    Interrupt,
    /// A compaction boundary, and the summary after it.
    Compaction {
        summary: bool,
    },
    /// A compact summary alone (no open boundary before it).
    LoneSummary,
    /// A `summary` title record (not a message).
    Title,
    Attachment,
    System,
}

/// One step of a Codex rollout; `back` picks an earlier call (from the newest).
#[derive(Debug, Clone)]
enum CodexStep {
    Turn {
        model: u8,
    },
    User,
    Injected,
    Developer,
    Reply {
        compaction_output: bool,
    },
    Reasoning,
    Call {
        completed: bool,
    },
    Output {
        back: u8,
        code: u8,
    },
    UnknownOutput,
    UserEvent,
    AgentEvent,
    Aborted,
    Error,
    /// A `compacted` line, its summary repeating the last reply (as 0.116–0.158 wrote it) or not.
    Compacted {
        repeats_reply: bool,
    },
    /// Bookkeeping events (token counts).
    TokenCount,
}

fn claude_step() -> impl Strategy<Value = ClaudeStep> {
    use ClaudeStep::*;
    prop_oneof![
        4 => Just(Prompt),
        6 => (any::<bool>(), any::<bool>(), 0u8..3, between())
            .prop_map(|(thinking, text, calls, between)| Answer { thinking, text, calls, between }),
        4 => (0u8..3, any::<bool>()).prop_map(|(back, call)| More { back, call }),
        3 => (prop::collection::vec(0u8..4, 1..3), any::<bool>())
            .prop_map(|(back, error)| Results { back, error }),
        1 => Just(UnknownResult),
        1 => any::<bool>().prop_map(|assistant| Sidechain { assistant }),
        1 => Just(Meta),
        1 => Just(Command),
        1 => Just(Interrupt),
        1 => any::<bool>().prop_map(|summary| Compaction { summary }),
        1 => Just(LoneSummary),
        1 => Just(Title),
        1 => Just(Attachment),
        1 => Just(System),
    ]
}

/// What comes between an answer's first block and the rest: mostly nothing.
fn between() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![Just(vec![]), prop::collection::vec(0u8..3, 1..5)]
}

fn codex_step(with_user_items: bool) -> impl Strategy<Value = CodexStep> {
    use CodexStep::*;
    // Without user items, `user_message` events are the prompts.
    let user = if with_user_items { User } else { UserEvent };
    prop_oneof![
        2 => (0u8..3).prop_map(|model| Turn { model }),
        3 => Just(user),
        1 => Just(Injected),
        1 => Just(Developer),
        4 => prop::bool::weighted(0.1).prop_map(|compaction_output| Reply { compaction_output }),
        2 => Just(Reasoning),
        4 => prop::bool::weighted(0.1).prop_map(|completed| Call { completed }),
        4 => (0u8..4, 0u8..3).prop_map(|(back, code)| Output { back, code }),
        1 => Just(UnknownOutput),
        2 => Just(UserEvent),
        1 => Just(AgentEvent),
        1 => Just(Aborted),
        1 => Just(Error),
        1 => any::<bool>().prop_map(|repeats_reply| Compacted { repeats_reply }),
        1 => Just(TokenCount),
    ]
}

/// The item `back` places before the newest of `items`, if there is one.
fn pick(items: &[String], back: u8) -> Option<&String> {
    items
        .iter()
        .rev()
        .nth(usize::from(back) % items.len().max(1))
}

fn timestamp(n: usize) -> String {
    format!("2026-11-30T09:{:02}:{:02}.000Z", (n / 60) % 60, n % 60)
}

/// Renders Claude steps into the records Claude Code writes, one per line.
#[derive(Default)]
struct ClaudeWriter {
    lines: Vec<Value>,
    last_uuid: Option<String>,
    answers: Vec<String>,
    calls: Vec<String>,
}

impl ClaudeWriter {
    fn record(&mut self, kind: &str, sidechain: bool, mut fields: Value) {
        let n = self.lines.len();
        let uuid = format!("u{n}");
        let common = json!({
            "parentUuid": self.last_uuid,
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": "/home/u/demo",
            "sessionId": "props",
            "version": "2.1.9",
            "type": kind,
            "uuid": uuid,
            "timestamp": timestamp(n),
        });
        for (k, v) in common.as_object().into_iter().flatten() {
            fields[k] = v.clone();
        }
        if !sidechain {
            self.last_uuid = Some(uuid);
        }
        self.lines.push(fields);
    }

    fn user(&mut self, content: Value, extra: Value) {
        let mut fields = json!({"message": {"role": "user", "content": content}});
        for (k, v) in extra.as_object().into_iter().flatten() {
            fields[k] = v.clone();
        }
        self.record("user", false, fields);
    }

    fn assistant(&mut self, id: &str, block: Value, sidechain: bool) {
        let fields = json!({"message": {
            "id": id, "type": "message", "role": "assistant", "model": "claude-test",
            "content": [block], "stop_reason": null,
            "usage": {"input_tokens": 3, "output_tokens": 5},
        }});
        self.record("assistant", sidechain, fields);
    }

    fn call_block(&mut self) -> Value {
        let id = format!("toolu_{}", self.calls.len());
        self.calls.push(id.clone());
        let input = json!({"command": format!("echo {id}")});
        json!({"type": "tool_use", "id": id, "name": "Bash", "input": input})
    }

    fn step(&mut self, step: &ClaudeStep) {
        let n = self.lines.len();
        match step {
            ClaudeStep::Prompt => self.user(json!(format!("prompt {n}")), json!({})),
            ClaudeStep::Answer {
                thinking,
                text,
                calls,
                between,
            } => {
                let id = format!("msg_{n}");
                self.answers.push(id.clone());
                // `None`: a call, numbered when written (results in between find it).
                let mut blocks = Vec::new();
                if *thinking {
                    let text = format!("think {n}");
                    blocks.push(Some(
                        json!({"type": "thinking", "thinking": text, "signature": "s"}),
                    ));
                }
                if *text || (*calls == 0 && !*thinking) {
                    blocks.push(Some(json!({"type": "text", "text": format!("answer {n}")})));
                }
                blocks.extend((0..*calls).map(|_| None));
                for (i, b) in blocks.into_iter().enumerate() {
                    let b = b.unwrap_or_else(|| self.call_block());
                    self.assistant(&id, b, false);
                    for other in between.iter().filter(|_| i == 0) {
                        self.step(&match other {
                            0 => ClaudeStep::Attachment,
                            1 => ClaudeStep::System,
                            _ => ClaudeStep::Results {
                                back: vec![0],
                                error: false,
                            },
                        });
                    }
                }
            }
            ClaudeStep::More { back, call } => {
                let Some(id) = pick(&self.answers, *back).cloned() else {
                    return;
                };
                let block = if *call {
                    self.call_block()
                } else {
                    json!({"type": "text", "text": format!("more {n}")})
                };
                self.assistant(&id, block, false);
            }
            ClaudeStep::Results { back, error } => {
                let blocks: Vec<Value> = back
                    .iter()
                    .filter_map(|b| pick(&self.calls, *b))
                    .map(|id| {
                        json!({"type": "tool_result", "tool_use_id": id,
                            "content": format!("out {n}"), "is_error": error})
                    })
                    .collect();
                if !blocks.is_empty() {
                    self.user(json!(blocks), json!({"toolUseResult": {"stdout": "out"}}));
                }
            }
            ClaudeStep::UnknownResult => self.user(
                json!([{"type": "tool_result", "tool_use_id": format!("toolu_gone{n}"),
                    "content": "lost"}]),
                json!({}),
            ),
            ClaudeStep::Sidechain { assistant } => {
                if *assistant {
                    self.assistant(
                        &format!("msg_side{n}"),
                        json!({"type": "text", "text": "side"}),
                        true,
                    );
                } else {
                    let fields = json!({"message": {"role": "user", "content": "side prompt"}});
                    self.record("user", true, fields);
                }
            }
            ClaudeStep::Meta => self.user(
                json!("<system-reminder>remember</system-reminder>"),
                json!({"isMeta": true}),
            ),
            ClaudeStep::Command => self.user(
                json!("<command-name>/model</command-name>\n<command-args>x</command-args>"),
                json!({}),
            ),
            ClaudeStep::Interrupt => self.user(
                json!([{"type": "text", "text": "[Request interrupted by user]"}]),
                json!({}),
            ),
            ClaudeStep::Compaction { summary } => {
                let fields = json!({"subtype": "compact_boundary",
                    "content": "Conversation compacted",
                    "compactMetadata": {"trigger": "auto", "preTokens": 1000 + n}});
                self.record("system", false, fields);
                if *summary {
                    self.summary(n);
                }
            }
            ClaudeStep::LoneSummary => self.summary(n),
            ClaudeStep::Title => {
                let leaf = self.last_uuid.clone();
                self.lines
                    .push(json!({"type": "summary", "summary": "a title", "leafUuid": leaf}));
            }
            ClaudeStep::Attachment => {
                let fields = json!({"attachment": {"type": "todo"},
                    "rendered": [{"content": "todo list"}]});
                self.record("attachment", false, fields);
            }
            ClaudeStep::System => {
                let fields =
                    json!({"subtype": "informational", "content": "note", "level": "info"});
                self.record("system", false, fields);
            }
        }
    }

    fn summary(&mut self, n: usize) {
        let text = format!("This session is being continued from a previous conversation {n}");
        self.user(
            json!(text),
            json!({"isCompactSummary": true, "isVisibleInTranscriptOnly": true}),
        );
    }
}

/// Renders Codex steps into a 0.140-style rollout (envelope lines), one per line.
#[derive(Default)]
struct CodexWriter {
    lines: Vec<Value>,
    calls: Vec<String>,
    last_reply: Option<String>,
}

/// What Codex writes before the summary in a `compacted` line (cut short; its end is what
/// the reader looks for).
const PREAMBLE: &str = "Another language model started to solve this problem. Here is the \
    summary produced by the other language model, use the information in this summary to \
    assist with your own analysis:\n";

impl CodexWriter {
    fn line(&mut self, kind: &str, payload: Value) {
        let ts = timestamp(self.lines.len());
        self.lines
            .push(json!({"timestamp": ts, "type": kind, "payload": payload}));
    }

    fn item(&mut self, payload: Value) {
        self.line("response_item", payload);
    }

    fn message(&mut self, role: &str, kind: &str, text: &str) {
        self.item(
            json!({"type": "message", "role": role, "content": [{"type": kind, "text": text}]}),
        );
    }

    fn event(&mut self, payload: Value) {
        self.line("event_msg", payload);
    }

    fn step(&mut self, step: &CodexStep) {
        use CodexStep::*;
        let n = self.lines.len();
        match step {
            Turn { model } => self.line(
                "turn_context",
                json!({"turn_id": format!("t{n}"), "cwd": "/home/u/demo",
                    "model": format!("gpt-{model}")}),
            ),
            User => self.message("user", "input_text", &format!("prompt {n}")),
            Injected => self.message(
                "user",
                "input_text",
                "<environment_context>\n  <cwd>/home/u/demo</cwd>\n</environment_context>",
            ),
            Developer => self.message("developer", "input_text", "<permissions instructions>x"),
            Reply { compaction_output } => {
                let text = format!("reply {n}");
                let mut line = json!({"timestamp": timestamp(n), "type": "response_item",
                    "payload": {"type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": text}]}});
                if *compaction_output {
                    line["metadata"] = json!({"compaction_output": true});
                }
                self.lines.push(line);
                self.last_reply = Some(text);
            }
            Reasoning => self.item(json!({"type": "reasoning",
                "summary": [{"type": "summary_text", "text": format!("think {n}")}],
                "encrypted_content": "e"})),
            Call { completed } => {
                let id = format!("call_{n}");
                self.calls.push(id.clone());
                let mut payload = json!({"type": "function_call", "name": "shell",
                    "arguments": "{\"command\":[\"ls\"]}", "call_id": id});
                if *completed {
                    payload["status"] = json!("completed");
                }
                self.item(payload);
            }
            Output { back, code } => {
                let Some(id) = pick(&self.calls, *back).cloned() else {
                    return;
                };
                let output = format!("Process exited with code {code}\nOutput:\nout {n}\n");
                self.item(json!({"type": "function_call_output", "call_id": id, "output": output}));
            }
            UnknownOutput => self.item(
                json!({"type": "function_call_output", "call_id": format!("gone{n}"),
                    "output": "lost"}),
            ),
            UserEvent => self.event(
                json!({"type": "user_message", "message": format!("prompt {n}"), "images": []}),
            ),
            AgentEvent => {
                self.event(json!({"type": "agent_message", "message": format!("said {n}")}))
            }
            Aborted => self.event(json!({"type": "turn_aborted", "reason": "interrupted"})),
            Error => self.event(json!({"type": "error", "message": "boom"})),
            Compacted { repeats_reply } => {
                let summary = match (&self.last_reply, repeats_reply) {
                    (Some(r), true) => r.clone(),
                    _ => format!("summary {n}"),
                };
                self.line(
                    "compacted",
                    json!({"message": format!("{PREAMBLE}{summary}"), "replacement_history": []}),
                );
            }
            TokenCount => self.event(json!({"type": "token_count", "info": null})),
        }
    }
}

/// The file's text: one record a line, then `partial` (a share of one more line, unended).
fn jsonl(lines: &[Value], partial: Option<(Value, f64)>) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend(serde_json::to_vec(l).unwrap());
        out.push(b'\n');
    }
    if let Some((last, share)) = partial {
        let bytes = serde_json::to_vec(&last).unwrap();
        let cut = ((bytes.len() as f64 * share) as usize).clamp(1, bytes.len() - 1);
        out.extend(&bytes[..cut]);
    }
    out
}

fn claude_file(steps: &[ClaudeStep], partial: Option<f64>) -> Vec<u8> {
    let mut w = ClaudeWriter::default();
    for s in steps {
        w.step(s);
    }
    // The partial line is the last record's, written again half way.
    let partial = partial.and_then(|share| Some((w.lines.last()?.clone(), share)));
    jsonl(&w.lines, partial)
}

fn codex_file(steps: &[CodexStep], partial: Option<f64>) -> Vec<u8> {
    let mut w = CodexWriter::default();
    w.line(
        "session_meta",
        json!({"id": "props", "timestamp": timestamp(0), "cwd": "/home/u/demo",
            "originator": "codex_exec", "cli_version": "0.140.0", "source": "exec"}),
    );
    for s in steps {
        w.step(s);
    }
    let partial = partial.and_then(|share| Some((w.lines.last()?.clone(), share)));
    jsonl(&w.lines, partial)
}

/// Checks the resume points of `bytes` read as `provider` with these limits; the points checked.
fn resume_points(
    provider: ProviderKind,
    load_each_from: LoadEachFrom,
    bytes: &[u8],
    limits: (usize, usize),
) -> Result<usize, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("props.jsonl");
    std::fs::write(&path, bytes).unwrap();
    let session = SessionMeta::new(provider, "props".into(), path);
    build::resume_mismatch(&session, limits, load_each_from).map_err(|e| {
        format!(
            "{e}\nlimits {limits:?}, file:\n{}",
            String::from_utf8_lossy(bytes)
        )
    })
}

/// Held limits that hand messages out early: keep 2..6, and 1..6 more or 1000 while a call
/// waits.
fn limits() -> impl Strategy<Value = (usize, usize)> {
    (2usize..6, prop_oneof![3 => 1usize..6, 1 => Just(1000)])
        .prop_map(|(keep, more)| (keep, if more == 1000 { more } else { keep + more }))
}

fn partial() -> impl Strategy<Value = Option<f64>> {
    prop::option::weighted(0.3, 0.05f64..0.95)
}

/// How many cases a property runs: `default`, or `PROPTEST_CASES` (more to search harder; the
/// Windows suite runs fewer, as every file call under Wine goes through its server).
pub(crate) fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// Checks the resume points of `cases` sessions made of `steps` (rendered by `file`, a partial
/// last line or not) with random [`limits`] (`PROPTEST_CASES` runs more); returns the points
/// checked, so a run that found none, which would prove nothing, can fail.
fn property<T: std::fmt::Debug>(
    cases: u32,
    steps: impl Strategy<Value = Vec<T>>,
    file: fn(&[T], Option<f64>) -> Vec<u8>,
    provider: ProviderKind,
    load_each_from: LoadEachFrom,
) -> usize {
    let check = move |bytes: &[u8], limits| resume_points(provider, load_each_from, bytes, limits);
    property_of(cases, steps, file, &check)
}

/// A check of a file's bytes read with these held limits: the points it checked, or what differs.
type Check = dyn Fn(&[u8], (usize, usize)) -> Result<usize, String>;

/// Runs `check` (a file's bytes and held limits → the points it checked) on `cases` sessions
/// made of `steps`, as [`property`] says.
fn property_of<T: std::fmt::Debug>(
    cases: u32,
    steps: impl Strategy<Value = Vec<T>>,
    file: fn(&[T], Option<f64>) -> Vec<u8>,
    check: &Check,
) -> usize {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let points = std::cell::Cell::new(0);
    let strategy = (steps, partial(), limits());
    let result = TestRunner::new(config).run(&strategy, |(steps, partial, limits)| {
        let bytes = file(&steps, partial);
        let checked = check(&bytes, limits);
        points.set(points.get() + checked.map_err(TestCaseError::fail)?);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    points.get()
}

#[test]
fn claude_reads_resumed_equal_a_whole_read() {
    let steps = prop::collection::vec(claude_step(), 3..20);
    let load = crate::claude::transcript::load_each_from;
    let cases = cases(192);
    let points = property(cases, steps, claude_file, ProviderKind::Claude, load);
    assert!(points > cases as usize * 10, "{points}");
}

#[test]
fn codex_reads_resumed_equal_a_whole_read() {
    let steps = any::<bool>()
        .prop_flat_map(|with_user_items| prop::collection::vec(codex_step(with_user_items), 3..24));
    let load = crate::codex::transcript::load_each_from;
    let cases = cases(128);
    let points = property(cases, steps, codex_file, ProviderKind::Codex, load);
    assert!(points > cases as usize * 10, "{points}");
}

/// The case the Claude property shrank to (it failed before [`build::stream`] held a resumed
/// read's messages until it passed where the read before it ended): a call that never gets its
/// result (line 1) keeps everything after it held, up to 4 messages; an answer's text (line 2)
/// is followed by two hook attachments and then its own tool call (line 5). Cut after the
/// prompt on line 6, the read forced the waiting call out and held the answer from line 2 on.
/// A read resumed there, without the waiting call before it, let the answer go at line 4, so
/// the call on line 5 became a second message of the same id.
#[test]
fn an_answer_split_around_other_records_reads_resumed_as_whole() {
    use ClaudeStep::*;
    let steps = [
        Answer {
            thinking: false,
            text: false,
            calls: 1,
            between: vec![],
        },
        Answer {
            thinking: false,
            text: true,
            calls: 1,
            between: vec![0, 0],
        },
        Prompt,
        Attachment,
    ];
    let bytes = claude_file(&steps, None);
    let load = crate::claude::transcript::load_each_from;
    let points = resume_points(ProviderKind::Claude, load, &bytes, (2, 4)).unwrap();
    assert!(points > 5, "{points}");
}

/// A provider module's `load_each_linked`.
type LoadEachLinked = fn(
    &SessionMeta,
    Option<&crate::tail::Resume>,
    crate::held::Held,
    &mut crate::tail::Links,
    &mut dyn FnMut(agent_sessions_model::Message),
) -> crate::tail::Streamed;

/// What the app's open transcript relies on (`service/transcript.rs`): a linked read of the
/// file cut at a line end, then of it grown to the next line end and to its whole, each read
/// resumed where the one before said with the links it left and its messages put in place of
/// the held ones from the point's line on, equals a whole read of the file as it is then,
/// parents included.
fn linked_mismatch(
    provider: ProviderKind,
    linked: LoadEachLinked,
    bytes: &[u8],
    limits: (usize, usize),
) -> Result<usize, String> {
    use agent_sessions_model::Message;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("props.jsonl");
    let session = SessionMeta::new(provider, "props".into(), path.clone());
    let held = || crate::held::Held::with_limits(limits.0, limits.1);
    let read = |resume: Option<&crate::tail::Resume>, links: &mut crate::tail::Links| {
        let mut out = Vec::new();
        let (_, next) = linked(&session, resume, held(), links, &mut |m| out.push(m)).unwrap();
        (out, next)
    };
    let ends: Vec<usize> = (0..bytes.len())
        .filter(|&i| bytes[i] == b'\n')
        .map(|i| i + 1)
        .collect();
    let mut checked = 0;
    for (i, &cut) in ends.iter().enumerate() {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let mut links = crate::tail::Links::default();
        let (mut messages, mut point) = read(None, &mut links);
        // Grown to the next line end, then to the whole file (partial line included).
        for &to in ends.get(i + 1).iter().copied().chain([&bytes.len()]) {
            std::fs::write(&path, &bytes[..to]).unwrap();
            let Some(resume) = point.take() else { break };
            let (again, next) = read(Some(&resume), &mut links);
            if links.earlier_changed() {
                break;
            }
            let first = resume.from.line + 1;
            let at = messages
                .iter()
                .position(|m: &Message| m.source_lines.iter().min().is_some_and(|&l| l >= first));
            messages.truncate(at.unwrap_or(messages.len()));
            messages.extend(again);
            point = next;
            let (whole, _) = read(None, &mut crate::tail::Links::default());
            if messages != whole {
                let at = messages.iter().zip(&whole).position(|(a, b)| a != b);
                return Err(format!(
                    "cut at byte {cut}, grown to {to}, resumed at line {first}: first difference \
                     at #{at:?}:\n spliced {:?}\n whole   {:?}\nlimits {limits:?}, file:\n{}",
                    at.and_then(|i| messages.get(i)),
                    at.and_then(|i| whole.get(i)),
                    String::from_utf8_lossy(bytes)
                ));
            }
            checked += 1;
        }
    }
    Ok(checked)
}

/// [`linked_mismatch`] over random sessions of `steps`, as [`property`] runs them.
fn linked_property<T: std::fmt::Debug>(
    cases: u32,
    steps: impl Strategy<Value = Vec<T>>,
    file: fn(&[T], Option<f64>) -> Vec<u8>,
    provider: ProviderKind,
    linked: LoadEachLinked,
) -> usize {
    let check = move |bytes: &[u8], limits| linked_mismatch(provider, linked, bytes, limits);
    property_of(cases, steps, file, &check)
}

#[test]
fn claude_linked_reads_spliced_equal_a_whole_read_with_parents() {
    let steps = prop::collection::vec(claude_step(), 3..20);
    let linked = crate::claude::transcript::load_each_linked;
    let cases = cases(96);
    let points = linked_property(cases, steps, claude_file, ProviderKind::Claude, linked);
    assert!(points > cases as usize * 5, "{points}");
}

#[test]
fn codex_linked_reads_spliced_equal_a_whole_read() {
    let steps = any::<bool>()
        .prop_flat_map(|with_user_items| prop::collection::vec(codex_step(with_user_items), 3..24));
    let linked = crate::codex::transcript::load_each_linked;
    let cases = cases(64);
    let points = linked_property(cases, steps, codex_file, ProviderKind::Codex, linked);
    assert!(points > cases as usize * 5, "{points}");
}
