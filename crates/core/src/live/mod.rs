//! Live detection: which sessions a running agent process has open.
// Reads text from other processes and agents' files: no byte-index string slicing (it panics
// inside a multi-byte character).
#![cfg_attr(not(test), deny(clippy::string_slice))]

pub mod events;
pub mod follow;
pub mod timeline;

// Reading other processes and the end of growing files is what providers need too: it lives in
// their crate (below this one) and is re-exported here under its old path.
pub use agent_sessions_providers::{process, tail};
