//! The shape of Claude Code's ids (`crate::ids` for what the shapes guard): a session's is a
//! UUID, a subagent's own file stem is `agent-<letters and digits>`.

/// `agent-<letters and digits>`: a Claude subagent's id (its file stem).
pub fn is_subagent_id(id: &str) -> bool {
    id.strip_prefix("agent-").is_some_and(|rest| {
        (1..=64).contains(&rest.len()) && rest.bytes().all(|b| b.is_ascii_alphanumeric())
    })
}
