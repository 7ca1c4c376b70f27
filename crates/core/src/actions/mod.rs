//! What a user can do with a session beyond reading it.

pub mod export;
pub mod handoff;
pub mod locate;
pub mod resume;
pub mod reveal;
pub mod terminal;
pub mod translate;
pub mod trash;
