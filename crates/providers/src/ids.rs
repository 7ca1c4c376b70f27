//! The shapes of session ids (each agent's own in its descriptor, `registry::Agent::session_id`;
//! UUIDs here, shared by several). An id of the wrong shape is refused wherever it would
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

/// Whether `id` has the shape of `kind`'s session ids (its subagents' own too where
/// `subagent`; the shapes are the agent's, in its descriptor): the one check an id passes
/// before a bundle, a trash or a deletion uses it in a path or a command line. None of the
/// agents' shapes holds a separator, a dot or nothing (checked for each in the tests).
pub fn is_session_id(kind: ProviderKind, id: &str, subagent: bool) -> bool {
    let agent = crate::registry::agent(kind);
    (agent.session_id)(id) || (subagent && agent.subagent_id.is_some_and(|own| own(id)))
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
        assert!(is_session_id(
            ProviderKind::Opencode,
            "ses_dd4233f85ffeF6TN3TEhX5oKKw",
            false
        ));
        assert!(!is_session_id(ProviderKind::Opencode, "ses_a-b", true));
        assert!(is_session_id(ProviderKind::Claude, "agent-a22d75e", true));
        assert!(!is_session_id(ProviderKind::Claude, "agent-a22d75e", false));
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
