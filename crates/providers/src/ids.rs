//! The shapes of each agent's session ids. An id of the wrong shape is refused wherever it would
//! reach a command line or a file name (resume, trash, bundles), never quoted: so an id never
//! starts with `-` (no id becomes an option) and never needs quoting.

use crate::error::Error;
use agent_sessions_model::resume::shown;
use agent_sessions_model::ProviderKind;

/// `8-4-4-4-12` hex digits: Claude session ids and Codex thread ids (UUID v4 and v7).
pub fn is_uuid(id: &str) -> bool {
    let groups: Vec<&str> = id.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// `ses_` and letters and digits: OpenCode session ids (`ses_dd4233f85ffeF6TN3TEhX5oKKw`).
pub fn is_opencode_id(id: &str) -> bool {
    id.strip_prefix("ses_").is_some_and(|rest| {
        (1..=64).contains(&rest.len()) && rest.bytes().all(|b| b.is_ascii_alphanumeric())
    })
}

/// `agent-<letters and digits>`: a Claude subagent's id (its file stem).
pub fn is_claude_agent(id: &str) -> bool {
    id.strip_prefix("agent-").is_some_and(|rest| {
        (1..=64).contains(&rest.len()) && rest.bytes().all(|b| b.is_ascii_alphanumeric())
    })
}

/// A Gemini CLI 0.3x subagent's id (`viw0gn`): letters and digits.
pub fn is_short_id(id: &str) -> bool {
    (1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// `agent-<type>-<call id>`: a Qwen Code subagent's id (its file stem,
/// `agent-general-purpose-call_mock0`): letters, digits, `-` and `_`.
pub fn is_qwen_agent(id: &str) -> bool {
    id.strip_prefix("agent-").is_some_and(|rest| {
        (1..=128).contains(&rest.len())
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    })
}

/// Whether `id` has the shape of `kind`'s session ids (a Claude subagent's too where
/// `subagent`): the one check an id passes before a bundle, a trash or a deletion uses it in a
/// path or a command line. None of these shapes holds a separator, a dot or nothing.
pub fn is_session_id(kind: ProviderKind, id: &str, subagent: bool) -> bool {
    match kind {
        ProviderKind::Claude => is_uuid(id) || (subagent && is_claude_agent(id)),
        ProviderKind::Codex => is_uuid(id),
        ProviderKind::Opencode => is_opencode_id(id),
        ProviderKind::Gemini => is_uuid(id) || (subagent && is_short_id(id)),
        ProviderKind::Qwen => is_uuid(id) || (subagent && is_qwen_agent(id)),
    }
}

/// The error for an id that does not have the shape of `kind`'s ids: it is refused, never
/// quoted. The agent is named by its registry label.
pub fn invalid_id(kind: ProviderKind, id: &str) -> Error {
    Error::ResumeUnavailable(format!(
        "\"{}\" is not a valid {} session id",
        shown(id),
        crate::registry::agent(kind).label
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_of_each_shape() {
        for id in [
            "0c6a524c-d98f-459f-ab17-05cfea6d7f09",
            "01a22bce-52eb-79e1-82f6-59016fd48470",
        ] {
            assert!(is_uuid(id), "{id}");
        }
        for id in [
            "",
            "-0c6a524c-d98f-459f-ab17-05cfea6d7f0",
            "0c6a524c-d98f-459f-ab17-05cfea6d7f09-",
            "0c6a524c-d98f-459f-ab17-05cfea6d7f0g",
            "0c6a524cd-98f-459f-ab17-05cfea6d7f09",
            "agent-a22d75e",
            "--help",
        ] {
            assert!(!is_uuid(id), "{id}");
        }
        assert!(is_opencode_id("ses_dd4233f85ffeF6TN3TEhX5oKKw"));
        for id in ["ses_", "ses_a-b", "-ses_x", "ses_x y", "ses_é", "msg_abc"] {
            assert!(!is_opencode_id(id), "{id}");
        }
        assert!(is_session_id(ProviderKind::Claude, "agent-a22d75e", true));
        assert!(!is_session_id(ProviderKind::Claude, "agent-a22d75e", false));
        assert!(is_session_id(ProviderKind::Gemini, "viw0gn", true));
        assert!(!is_session_id(ProviderKind::Gemini, "viw0gn", false));
        let qwen_child = "agent-general-purpose-call_mock0";
        assert!(is_session_id(ProviderKind::Qwen, qwen_child, true));
        assert!(!is_session_id(ProviderKind::Qwen, qwen_child, false));
        for kind in ProviderKind::ALL {
            for id in [
                "",
                ".",
                "..",
                "a/b",
                "ses_a/../..",
                "agent-",
                "agent-a/b",
                "agent-..",
            ] {
                assert!(!is_session_id(kind, id, true), "{kind:?} {id:?}");
            }
        }
    }
}
