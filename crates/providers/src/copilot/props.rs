//! Property tests of Copilot CLI's streamed reads (`transcript::load_each_from`): random but
//! realistic event logs (the shapes of `testdata/copilot/1.0.102`), read with small
//! [`Held`] limits so messages are handed out early: streamed, they are what a whole load
//! builds; and a read resumed where a read of the file cut short (at a line end or mid-line,
//! as a live CLI leaves it) said it could be hands out what a whole read does from there on
//! ([`build::resume_mismatch`]), the file grown once and twice. A log is a list of abstract
//! [`Step`]s, so a failing case shrinks to a few.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Value};

use super::transcript::{load, load_each_from};
use crate::build;
use crate::held::Held;
use agent_sessions_model::{ProviderKind, SessionMeta};

#[derive(Debug, Clone)]
enum Step {
    Prompt,
    /// An assistant message with reasoning, text and `calls` tool requests.
    Reply {
        reasoning: bool,
        text: bool,
        calls: u8,
    },
    /// The result of the `back`-th newest call (answered already or not); `big` is longer than
    /// the transcript keeps inline.
    Result {
        back: u8,
        success: bool,
        big: bool,
    },
    /// A result of a call the log does not have.
    UnknownResult,
    /// A subagent's prompt or reply, inside the parent's log.
    Subagent {
        reply: bool,
    },
    Notice(u8),
    /// Turn marks and usage records (no message).
    Bookkeeping,
    /// A type the reader does not know (a diagnostic).
    Unknown,
    /// A ≤ 0.0.341 session carried into the log: several messages of one line.
    Legacy,
}

fn step() -> impl Strategy<Value = Step> {
    use Step::*;
    prop_oneof![
        3 => Just(Prompt),
        5 => (any::<bool>(), any::<bool>(), 0u8..3)
            .prop_map(|(reasoning, text, calls)| Reply { reasoning, text, calls }),
        5 => (0u8..4, any::<bool>(), prop::bool::weighted(0.05))
            .prop_map(|(back, success, big)| Result { back, success, big }),
        1 => Just(UnknownResult),
        1 => any::<bool>().prop_map(|reply| Subagent { reply }),
        1 => (0u8..4).prop_map(Notice),
        2 => Just(Bookkeeping),
        1 => Just(Unknown),
        1 => Just(Legacy),
    ]
}

#[derive(Default)]
struct Writer {
    lines: Vec<Value>,
    calls: Vec<String>,
}

impl Writer {
    fn event(&mut self, kind: &str, data: Value) {
        let n = self.lines.len();
        let parent = n.checked_sub(1).map(|p| format!("e{p}"));
        self.lines.push(json!({
            "type": kind, "data": data, "id": format!("e{n}"),
            "timestamp": format!("2026-12-06T14:{:02}:{:02}.000Z", n / 60 % 60, n % 60),
            "parentId": parent,
        }));
    }

    fn step(&mut self, s: &Step) {
        let n = self.lines.len();
        match s {
            Step::Prompt => self.event("user.message", json!({"content": format!("prompt {n}")})),
            Step::Reply {
                reasoning,
                text,
                calls,
            } => {
                let requests: Vec<Value> = (0..*calls)
                    .map(|k| {
                        let id = format!("call-{n}-{k}");
                        self.calls.push(id.clone());
                        json!({"toolCallId": id, "name": "bash", "arguments": {"command": "ls"}})
                    })
                    .collect();
                let mut data = json!({"messageId": format!("m{n}"), "toolRequests": requests,
                    "model": "gpt-5", "content": if *text { format!("reply {n}") } else { String::new() }});
                if *reasoning {
                    data["reasoningText"] = json!(format!("thinking {n}"));
                }
                self.event("assistant.message", data);
            }
            Step::Result { back, success, big } => {
                let call = self
                    .calls
                    .iter()
                    .rev()
                    .nth(usize::from(*back) % self.calls.len().max(1))
                    .cloned()
                    .unwrap_or_else(|| "call-none".into());
                let content = if *big {
                    "x".repeat(40 << 10)
                } else {
                    format!("out {n}")
                };
                self.event(
                    "tool.execution_complete",
                    json!({"toolCallId": call, "success": success, "result": {"content": content}}),
                );
            }
            Step::UnknownResult => self.event(
                "tool.execution_complete",
                json!({"toolCallId": "elsewhere", "success": true, "result": {"content": "?"}}),
            ),
            Step::Subagent { reply: false } => self.event(
                "user.message",
                json!({"content": format!("task {n}"), "source": "agent-sub"}),
            ),
            Step::Subagent { reply: true } => self.event(
                "assistant.message",
                json!({"content": format!("found {n}"), "parentToolCallId": "call-task"}),
            ),
            Step::Notice(k) => match k {
                0 => self.event(
                    "session.error",
                    json!({"errorType": "model_call", "message": "400"}),
                ),
                1 => self.event("session.info", json!({"message": format!("info {n}")})),
                2 => self.event("session.model_change", json!({"newModel": "gpt-5-mini"})),
                _ => self.event(
                    "session.resume",
                    json!({"resumeTime": "2026-12-06T15:00:00Z"}),
                ),
            },
            Step::Bookkeeping => {
                self.event("assistant.turn_start", json!({"turnId": "0"}));
                self.event(
                    "session.usage_record",
                    json!({"usage": {"inputTokens": 10, "outputTokens": 2}}),
                );
            }
            Step::Unknown => self.event("made.up", json!({})),
            Step::Legacy => self.event(
                "session.import_legacy",
                json!({"legacySession": {
                    "sessionId": "old", "startTime": "2025-10-10T10:00:00Z",
                    "chatMessages": [{"role": "user", "content": "old prompt"},
                        {"role": "assistant", "content": "old reply"}],
                    "timeline": [{"type": "user", "text": "old prompt"}]}}),
            ),
        }
    }
}

/// The log's bytes: one event a line, then `partial` (a share of the last event written
/// again, unended, as a write in progress leaves it).
fn log(steps: &[Step], partial: Option<f64>) -> Vec<u8> {
    let mut w = Writer::default();
    w.event(
        "session.start",
        json!({"sessionId": "props", "copilotVersion": "1.0.102", "context": {"cwd": "/home/u/p"}}),
    );
    for s in steps {
        w.step(s);
    }
    let mut out = Vec::new();
    for l in &w.lines {
        out.extend(serde_json::to_vec(l).unwrap());
        out.push(b'\n');
    }
    if let (Some(share), Some(last)) = (partial, w.lines.last()) {
        let bytes = serde_json::to_vec(last).unwrap();
        let cut = ((bytes.len() as f64 * share) as usize).clamp(1, bytes.len() - 1);
        out.extend(&bytes[..cut]);
    }
    out
}

/// Streamed (holding `keep` messages, as many as needed while a call waits) equals a whole
/// load; and every resume point checks as [`build::resume_mismatch`] says. The points checked.
fn check(bytes: &[u8], limits: (usize, usize)) -> Result<usize, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    std::fs::write(&path, bytes).unwrap();
    let session = SessionMeta::new(ProviderKind::Copilot, "props".into(), path);
    let whole = load(&session).map_err(|e| e.to_string())?;
    let mut streamed = Vec::new();
    let held = Held::with_limits(limits.0, 1000);
    let (diagnostics, _) = load_each_from(&session, None, held, &mut |m| streamed.push(m))
        .map_err(|e| e.to_string())?;
    if streamed != whole.messages || diagnostics != whole.diagnostics {
        return Err(format!(
            "streamed with keep {} differs from a whole load",
            limits.0
        ));
    }
    build::resume_mismatch(&session, limits, load_each_from)
}

#[test]
fn copilot_reads_streamed_and_resumed_equal_a_whole_read() {
    let cases = crate::resume_props::cases(128);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let limits = (2usize..6, prop_oneof![3 => 1usize..6, 1 => Just(1000usize)])
        .prop_map(|(keep, more)| (keep, if more == 1000 { more } else { keep + more }));
    let strategy = (
        prop::collection::vec(step(), 3..24),
        prop::option::weighted(0.3, 0.05f64..0.95),
        limits,
    );
    let points = std::cell::Cell::new(0);
    let result = TestRunner::new(config).run(&strategy, |(steps, partial, limits)| {
        let bytes = log(&steps, partial);
        let checked = check(&bytes, limits).map_err(|e| {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            TestCaseError::fail(format!("{e}\nlimits {limits:?}, log:\n{text}"))
        })?;
        points.set(points.get() + checked);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(points.get() > cases as usize * 10, "{}", points.get());
}
