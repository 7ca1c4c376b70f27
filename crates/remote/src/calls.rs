//! The protocol's methods as typed calls on a [`Client`]: each sends its parameters and reads
//! the answer as the protocol's type, so the CLI and the app read every answer the same way
//! and neither declares a method's answer of its own. A whole transcript is read here too,
//! page by page through `show`, once for both.

use std::ops::ControlFlow;

use agent_sessions_core::actions::resume::ResumeCommand;
use agent_sessions_core::raw::RawRecords;
use agent_sessions_core::{Diagnostics, Message, SessionMeta, Transcript};
use base64::Engine;

use crate::error::Error;
use crate::protocol::*;
use crate::Client;

impl Client {
    /// Every session there (refreshed first, as `scan` does), newest first, and the change
    /// sequence the listing is as of.
    pub fn list(&mut self, params: &ListParams) -> Result<ListResult, Error> {
        self.call(method::LIST, params)
    }

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

    /// For Resume in terminal there: the resume command once the host has checked that the
    /// session's directory is there (`directory_missing`) and its agent installed
    /// (`agent_not_found`), as a local one is checked before a terminal opens.
    pub fn resume_in_terminal(&mut self, session: &SessionRef) -> Result<ResumeCommand, Error> {
        self.ready(session, Open::Resume)?
            .command()
            .map_err(Error::Server)
    }

    /// For Open terminal there: the session's directory, checked by the host to be there
    /// (`directory_missing`).
    pub fn terminal_dir(&mut self, session: &SessionRef) -> Result<String, Error> {
        let answer = self.ready(session, Open::Shell)?;
        if let Some(e) = answer.error {
            return Err(Error::Server(e));
        }
        answer.cwd.ok_or_else(|| {
            Error::Server(WireError::new(
                "protocol",
                "the remote answered without the session's directory",
            ))
        })
    }

    fn ready(&mut self, session: &SessionRef, open: Open) -> Result<ResumeResult, Error> {
        let params = ResumeParams {
            session: session.clone(),
            open: Some(open),
        };
        self.call(method::RESUME, params)
    }

    /// Plans (no `plan`) or runs (the plan the user confirmed) a trash or deletion there.
    pub fn trash(&mut self, params: &TrashParams) -> Result<TrashResult, Error> {
        self.call(method::TRASH, params)
    }

    /// The handoff document of a session, built there.
    pub fn handoff(&mut self, params: &HandoffParams) -> Result<HandoffDoc, Error> {
        self.call(method::HANDOFF, params)
    }

    /// One page of a transcript.
    pub fn show(&mut self, params: &ShowParams) -> Result<ShowResult, Error> {
        self.call(method::SHOW, params)
    }

    /// A transcript's first page, as large as the server makes pages: the session as listed
    /// there (an id prefix is enough), its resume command and how many messages it has.
    pub fn first_page(&mut self, session: SessionRef) -> Result<ShowResult, Error> {
        self.show(&ShowParams {
            session,
            offset: 0,
            limit: 0,
        })
    }

    /// Hands the messages of `first` and of each page after it to `each`, in order, until
    /// `each` breaks or the last page is read; the transcript's diagnostics (the last page's).
    /// Pages are fetched as they are needed, so a long transcript is never held here whole.
    pub fn each_message(
        &mut self,
        first: ShowResult,
        each: &mut dyn FnMut(Message) -> ControlFlow<()>,
    ) -> Result<Diagnostics, Error> {
        // Later pages name the session exactly (down to its file, should two hold it), which
        // the server answers without a new scan.
        let session = SessionRef::listed(&first.session);
        let (mut page, mut offset) = (first, 0);
        loop {
            for message in std::mem::take(&mut page.messages) {
                if each(message).is_break() {
                    return Ok(page.diagnostics);
                }
            }
            let Some(next) = page.next else {
                return Ok(page.diagnostics);
            };
            // A server whose pages do not move on would be read forever.
            if next <= offset {
                return Err(self.protocol(format!(
                    "the transcript page at {offset} names {next} as the next"
                )));
            }
            offset = next;
            let params = ShowParams {
                session: session.clone(),
                offset,
                limit: 0,
            };
            page = self.show(&params)?;
        }
    }

    /// The whole transcript, read page by page (what an export is written from here).
    pub fn transcript(&mut self, session: SessionRef) -> Result<Transcript, Error> {
        let first = self.first_page(session)?;
        let meta = first.session.clone();
        let mut messages = Vec::new();
        let diagnostics = self.each_message(first, &mut |m| {
            messages.push(m);
            ControlFlow::Continue(())
        })?;
        Ok(Transcript {
            session: meta,
            messages,
            diagnostics,
        })
    }

    /// The message with `id` and its index in the transcript; pages are read until it is found.
    pub fn find(
        &mut self,
        session: SessionRef,
        id: &str,
    ) -> Result<Option<(usize, Message)>, Error> {
        let first = self.first_page(session)?;
        let (mut index, mut found) = (0, None);
        self.each_message(first, &mut |m| {
            if m.id == id {
                found = Some((index, m));
                return ControlFlow::Break(());
            }
            index += 1;
            ControlFlow::Continue(())
        })?;
        Ok(found)
    }

    /// The session as listed there: a page of one message, the smallest answer that names it.
    pub fn session(&mut self, session: SessionRef) -> Result<SessionMeta, Error> {
        let params = ShowParams {
            session,
            offset: 0,
            limit: 1,
        };
        Ok(self.show(&params)?.session)
    }

    /// A session's events so far; `follow` goes on from the answer's cursor.
    pub fn log(&mut self, session: &SessionRef) -> Result<LogResult, Error> {
        self.call(method::LOG, session)
    }

    /// The bytes behind a blob key of a session (sent whole, at most [`MAX_BLOB`]).
    pub fn blob(&mut self, params: &BlobParams) -> Result<Vec<u8>, Error> {
        let answer: BlobResult = self.call(method::BLOB, params)?;
        base64::engine::general_purpose::STANDARD
            .decode(answer.base64)
            .map_err(|e| self.protocol(format!("a blob that is not base64: {e}")))
    }

    /// The agent's own records behind one message (`raw`): what the raw-JSON view shows.
    pub fn raw(&mut self, params: &RawParams) -> Result<RawRecords, Error> {
        self.call(method::RAW, params)
    }

    /// Previews (no `token`) or restores (the preview's `token`) an uploaded bundle there.
    pub fn bundle_import(
        &mut self,
        params: &BundleImportParams,
    ) -> Result<BundleImportResult, Error> {
        self.call(method::BUNDLE_IMPORT, params)
    }

    /// The handoff's prompt file written there and the agent's command that reads it
    /// (`agent_not_found` when the agent is not installed there).
    pub fn handoff_prepare(&mut self, params: &HandoffParams) -> Result<HandoffPrepared, Error> {
        self.call(method::HANDOFF_PREPARE, params)
    }
}
