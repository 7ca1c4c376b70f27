//! What is known about a session an agent process has open right now: which process, and what
//! its turn is doing. Plain data; how it is found is the providers' business.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What a live session is doing, from what its transcript states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TurnState {
    /// Started, no prompt yet.
    Starting,
    /// A prompt or a tool is being worked on.
    Working,
    /// The turn ended: the agent waits for the user.
    Waiting,
    /// A permission or question is pending.
    NeedsInput,
    /// No fresh evidence.
    Unknown,
}

/// A session some running agent process has open right now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LiveSession {
    pub id: String,
    pub pid: u32,
    /// What the agent says it is doing (`busy`, `idle`), where it says so.
    pub status: Option<String>,
}
