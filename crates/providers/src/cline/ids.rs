//! The shape of Cline's ids (`crate::ids` for what the shapes guard): 3.x sessions are the
//! start time in ms and a suffix (`1796568592650_62ic8`), 2.x tasks the start time alone
//! (`1796568459073`); a 3.x subagent is `<session>__agent_<ms>_<suffix>`.

/// ASCII letters, digits and `_`, starting with a digit, at most `max` of them.
fn is_word(id: &str, max: usize) -> bool {
    (1..=max).contains(&id.len())
        && id.starts_with(|c: char| c.is_ascii_digit())
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A 3.x session id or a 2.x task id.
pub fn is_session_id(id: &str) -> bool {
    is_word(id, 64) && !id.contains("__")
}

/// A 3.x subagent's id: its parent's id, `__`, and its own `agent_…` name.
pub fn is_subagent_id(id: &str) -> bool {
    id.split_once("__").is_some_and(|(parent, own)| {
        is_session_id(parent)
            && own
                .strip_prefix("agent_")
                .is_some_and(|rest| is_word(rest, 64))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_of_their_shapes() {
        for id in ["1796568592650_62ic8", "1796568459073"] {
            assert!(is_session_id(id), "{id}");
        }
        assert!(is_subagent_id(
            "1796568635963_quxl9__agent_1796568636237_3o8jsw"
        ));
        for id in [
            "",
            "..",
            "a/b",
            "17965_x.json",
            "_x",
            "1796__agent_1",
            "x__agent_1",
        ] {
            assert!(!is_session_id(id) || id == "1796__agent_1", "{id}");
            assert!(!is_subagent_id(id) || id == "1796__agent_1", "{id}");
        }
        assert!(!is_session_id("1796__agent_1"));
        assert!(!is_subagent_id("1796568635963_quxl9__agent_../x"));
    }
}
