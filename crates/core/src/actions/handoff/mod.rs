//! "Continue in…": hand a session's work to another agent (SPEC §7, M6).
//!
//! The session is never converted into the other agent's format. Instead a Markdown context is
//! written from the unified transcript ([`render`]: the goal, the user's requests, the working
//! state, the recent turns, trimmed to a budget by fixed rules, with transcript text quoted so
//! it cannot pose as instructions or tool output: [`quote`]) and given to the target agent as
//! its first prompt, started in the chosen terminal in the session's directory ([`launch`]).
//! `docs/handoff.md` describes the document, the budget rules and the launch.

mod gather;
pub mod launch;
pub mod quote;
pub mod render;

use serde::Serialize;

use crate::model::{Message, ProviderKind, SessionMeta};
use crate::{Catalog, Error};

pub use launch::{launch, plan, prepare, Planned, Prepared};
pub use render::{agent_name, Shown};

/// The budget when none is given: about 6,000 tokens.
pub const DEFAULT_BUDGET: usize = 24_000;
/// The smallest budget: the opening, the Source block, the closing and a short goal always fit.
pub const MIN_BUDGET: usize = 5_000;
/// The largest budget. The prompt reaches the agent as one argument, and Linux refuses an
/// argument over 128 KiB (`MAX_ARG_STRLEN`): 32,000 characters are at most 128,000 bytes.
pub const MAX_BUDGET: usize = 32_000;

/// A handoff's size limit in characters (Unicode scalar values), within
/// [`MIN_BUDGET`]..=[`MAX_BUDGET`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Budget(usize);

impl Budget {
    /// `None` outside [`MIN_BUDGET`]..=[`MAX_BUDGET`].
    pub fn new(chars: usize) -> Option<Budget> {
        (MIN_BUDGET..=MAX_BUDGET)
            .contains(&chars)
            .then_some(Budget(chars))
    }

    pub fn chars(self) -> usize {
        self.0
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget(DEFAULT_BUDGET)
    }
}

/// A handoff document and what it shows of the session.
#[derive(Debug, Clone, Serialize)]
pub struct Handoff {
    pub source: ProviderKind,
    pub target: ProviderKind,
    pub session_id: String,
    pub budget: usize,
    /// The document's length in characters (never above `budget`).
    pub chars: usize,
    /// How much of each piece is shown (entries shown of the session's total).
    pub shown: Vec<Shown>,
    pub markdown: String,
}

/// The handoff of `session` to `target`, from its messages in order; `starts_in` is the directory
/// the target starts in when it is not the session's own (a bundle continued elsewhere).
pub fn from_messages<'m>(
    session: &SessionMeta,
    messages: impl IntoIterator<Item = &'m Message>,
    target: ProviderKind,
    starts_in: Option<&str>,
    budget: Budget,
) -> Handoff {
    let mut gathered = gather::Gathered::new(session.cwd.as_deref());
    for m in messages {
        gathered.push(m);
    }
    gathered.finish();
    finish(session, &gathered, target, starts_in, budget)
}

/// A handoff gathered a message at a time from a transcript read as a stream (a bundle's):
/// memory stays bounded whatever the number of messages (see `gather`).
pub struct Gathering {
    session: SessionMeta,
    gathered: gather::Gathered,
}

impl Gathering {
    pub fn new(session: SessionMeta) -> Gathering {
        let gathered = gather::Gathered::new(session.cwd.as_deref());
        Gathering { session, gathered }
    }

    pub fn session(&self) -> &SessionMeta {
        &self.session
    }

    pub fn push(&mut self, message: &Message) {
        self.gathered.push(message);
    }

    /// The handoff to `target`, and the session it is of.
    pub fn finish(
        mut self,
        target: ProviderKind,
        starts_in: Option<&str>,
        budget: Budget,
    ) -> (SessionMeta, Handoff) {
        self.gathered.finish();
        let doc = finish(&self.session, &self.gathered, target, starts_in, budget);
        (self.session, doc)
    }
}

/// The handoff of `session` to `target`, reading its transcript from the store a message at a
/// time (memory stays bounded whatever the session's size: see `gather`).
pub fn from_store(
    catalog: &Catalog,
    session: &SessionMeta,
    target: ProviderKind,
    budget: Budget,
) -> Result<Handoff, Error> {
    let mut gathered = gather::Gathered::new(session.cwd.as_deref());
    catalog.load_each(session, &mut |m| gathered.push(&m))?;
    gathered.finish();
    Ok(finish(session, &gathered, target, None, budget))
}

fn finish(
    session: &SessionMeta,
    gathered: &gather::Gathered,
    target: ProviderKind,
    starts_in: Option<&str>,
    budget: Budget,
) -> Handoff {
    let (markdown, shown) = render::document(session, gathered, target, starts_in, budget.chars());
    Handoff {
        source: session.provider,
        target,
        session_id: session.id.clone(),
        budget: budget.chars(),
        chars: quote::chars(&markdown),
        shown,
        markdown,
    }
}
