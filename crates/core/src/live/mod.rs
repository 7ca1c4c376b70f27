//! Live detection: which sessions a running agent process has open.

pub mod events;
pub mod follow;
pub mod process;
pub mod tail;
