//! What an agent can do beyond being read, as plain data (the agent-folder design,
//! docs/architecture.md, "Adding an agent").
//!
//! Each agent answers questions about its own store in its folder (`crate::<agent>`): which
//! files and rows are this session, what argv resumes it, what must be written to restore a
//! bundle here. The answers are the plain values of this module's types, reached through the
//! agent's descriptor (`crate::registry::Agent`). The engines that act on them — consent, the
//! safety checks, execution and rollback — live in the core, once for every agent, and never
//! ask which agent they are acting for.
//!
//! One file per action: [`trash`] (trash and delete), [`bundle`] (bundle export and restore),
//! [`launch`] (finding the program, resume/open/handoff argv, live processes).

pub mod bundle;
pub mod launch;
pub mod trash;

/// An action an agent has, or the reason it has not (shown by the CLI and the app, which offer
/// the action as unavailable rather than failing when it is tried).
#[derive(Debug, Clone, Copy)]
pub enum Capability<T: 'static> {
    Has(T),
    Lacks(&'static str),
}

impl<T> Capability<T> {
    /// The capability, or the reason the agent lacks it.
    pub fn get(&self) -> Result<&T, &'static str> {
        match self {
            Capability::Has(t) => Ok(t),
            Capability::Lacks(why) => Err(why),
        }
    }
}
