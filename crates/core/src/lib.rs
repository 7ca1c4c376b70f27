//! agent-sessions-core: everything that is not UI.
//!
//! Finds the sessions coding agents (Claude Code, Codex CLI, OpenCode) leave on a machine,
//! reads them into one model, and acts on them. Both front ends — the headless CLI and the
//! desktop app — call [`catalog::Catalog`]; nothing here knows about either of them.
//!
//! The model (`agent-sessions-model`) and the providers (`agent-sessions-providers`) are crates
//! of their own below this one, so Cargo forbids them to import it (docs/architecture.md,
//! "Layers"); they are re-exported as [`model`] and [`provider`] under their old paths.

pub mod actions;
pub mod blob;
pub mod bundle;
pub mod catalog;
pub mod config;
pub mod error;
pub mod filter;
pub mod health;
pub mod index;
pub mod library;
pub mod live;
pub mod mcp_config;
pub mod near;
pub mod paths;
pub mod pricing;
pub mod raw;
pub mod render;
pub mod service;
pub mod stats;
pub mod view;
pub mod watch;

pub use agent_sessions_model as model;
pub use agent_sessions_providers as provider;

pub use catalog::{Catalog, ScanReport};
pub use error::{Error, ProviderError};
pub use library::Library;
pub use model::*;
pub use provider::{ProviderSet, Roots, ScanProgress};
