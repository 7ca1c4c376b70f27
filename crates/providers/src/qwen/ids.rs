//! The shape of a Qwen Code subagent's own id, its file stem: `agent-<type>-<call id>`
//! (`agent-general-purpose-call_mock0`); sessions' ids are UUIDs.

/// `agent-` and 1 to 128 letters, digits, `-` and `_`.
pub fn is_subagent_id(id: &str) -> bool {
    id.strip_prefix("agent-").is_some_and(|rest| {
        (1..=128).contains(&rest.len())
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    })
}
