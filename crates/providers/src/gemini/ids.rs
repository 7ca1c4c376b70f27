//! The shape of a Gemini CLI subagent's own id: 0.3x writes short ones (`viw0gn`), 0.61 UUIDs
//! (`crate::ids::is_uuid`); sessions' ids are UUIDs.

/// Letters and digits, 1 to 64 of them (`viw0gn`), or a UUID.
pub fn is_subagent_id(id: &str) -> bool {
    crate::ids::is_uuid(id)
        || ((1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric()))
}
