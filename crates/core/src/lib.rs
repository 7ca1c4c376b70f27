//! agent-sessions-core: everything that is not UI.
//!
//! Finds the sessions coding agents (Claude Code, Codex CLI, OpenCode) leave on a machine,
//! reads them into one model, and acts on them. Both front ends — the headless CLI and the
//! desktop app — call [`catalog::Catalog`]; nothing here knows about either of them.

pub mod actions;
pub mod bundle;
pub mod catalog;
pub mod config;
pub mod error;
pub mod index;
pub mod library;
pub mod live;
pub mod model;
pub mod paths;
pub mod provider;
pub mod render;
pub mod service;
pub mod view;
pub mod watch;

pub use catalog::{Catalog, ScanReport};
pub use error::Error;
pub use library::Library;
pub use model::*;
pub use provider::{ProviderSet, Roots, ScanProgress};
