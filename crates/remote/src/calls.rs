//! The protocol's methods as typed calls on a [`Client`]: each sends its parameters and reads
//! the answer as the protocol's type, so the CLI and the app read every answer the same way
//! and neither declares a method's answer of its own.

use agent_sessions_core::actions::resume::ResumeCommand;

use crate::error::Error;
use crate::protocol::*;
use crate::Client;

impl Client {
    /// Hits of a search there, and the warnings of the server's library.
    pub fn search(&mut self, params: &SearchParams) -> Result<SearchResult, Error> {
        self.call(method::SEARCH, params)
    }

    /// The sessions changed or removed there after `cursor` (a `list`'s `seq`, or the last
    /// answer's); `reset` means list again.
    pub fn changes(&mut self, cursor: u64) -> Result<ChangesResult, Error> {
        self.call(method::CHANGES, ChangesParams { cursor })
    }

    /// Unreadable records, format versions, and the roots and cache the server reads.
    pub fn diagnostics(&mut self, params: &DiagnosticsParams) -> Result<DiagnosticsResult, Error> {
        self.call(method::DIAGNOSTICS, params)
    }

    /// The session's resume command as the server builds it; its refusal keeps the server's
    /// code (`resume_unavailable`, …).
    pub fn resume(&mut self, session: &SessionRef) -> Result<ResumeCommand, Error> {
        let answer: ResumeResult = self.call(method::RESUME, session)?;
        answer.command().map_err(Error::Server)
    }

    /// Plans (no `plan`) or runs (the plan the user confirmed) a trash or deletion there.
    pub fn trash(&mut self, params: &TrashParams) -> Result<TrashResult, Error> {
        self.call(method::TRASH, params)
    }

    /// The handoff document of a session, built there.
    pub fn handoff(&mut self, params: &HandoffParams) -> Result<HandoffDoc, Error> {
        self.call(method::HANDOFF, params)
    }
}
