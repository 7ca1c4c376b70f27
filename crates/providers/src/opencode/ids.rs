//! The shape of OpenCode's session ids (`crate::ids` for what the shapes guard).

/// `ses_` and letters and digits: OpenCode session ids (`ses_dd4233f85ffeF6TN3TEhX5oKKw`).
pub fn is_session_id(id: &str) -> bool {
    id.strip_prefix("ses_").is_some_and(|rest| {
        (1..=64).contains(&rest.len()) && rest.bytes().all(|b| b.is_ascii_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_of_its_shape() {
        assert!(is_session_id("ses_dd4233f85ffeF6TN3TEhX5oKKw"));
        for id in ["ses_", "ses_a-b", "-ses_x", "ses_x y", "ses_é", "msg_abc"] {
            assert!(!is_session_id(id), "{id}");
        }
    }
}
