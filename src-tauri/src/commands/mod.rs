//! The commands the UI calls, one small module per area.

pub mod actions;
pub mod search;
pub mod sessions;
pub mod transcript;

/// Errors cross to the UI as their sentence.
pub type CmdResult<T> = Result<T, String>;

pub fn to_ui(e: impl std::fmt::Display) -> String {
    e.to_string()
}
