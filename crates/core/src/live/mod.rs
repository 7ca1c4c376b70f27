//! Live detection: which sessions a running agent process has open.
// Reads text from other processes and agents' files: no byte-index string slicing (it panics
// inside a multi-byte character).
#![cfg_attr(not(test), deny(clippy::string_slice))]

pub mod events;
pub mod follow;
pub mod process;
pub mod tail;
