//! What the server keeps from its caller: sessions in config.toml's hidden directories
//! (`ui.hidden_dirs`, which the app hides too) are never listed, found, read or counted, and a
//! call that asks for redaction gets the share-safe bundle's. Disabled agents have no roots
//! (`paths::Resolved::roots`), so nothing of them is read at all.

use std::collections::HashSet;
use std::path::PathBuf;

use agent_sessions_core::index::{Hit, SearchFilter};
use agent_sessions_core::{ProviderKind, SessionMeta};

use super::source::{Failure, Listed, Source};
use super::tools::Output;

/// A search asks for more hits when hidden ones took places, up to this many in all.
const MOST_HITS: usize = 2_000;

#[derive(Debug, Default, Clone)]
pub struct Privacy {
    /// Directories whose sessions are kept out (without trailing separators).
    hidden: Vec<String>,
}

impl Privacy {
    pub fn new(hidden: &[PathBuf]) -> Privacy {
        Privacy {
            hidden: hidden
                .iter()
                .map(|d| trimmed(&d.to_string_lossy()).to_owned())
                .collect(),
        }
    }

    pub fn redact(&self, output: &Output) -> bool {
        output.redact.unwrap_or(false)
    }

    fn hides(&self, s: &SessionMeta) -> bool {
        let Some(cwd) = s.cwd.as_deref() else {
            return false;
        };
        self.hidden.iter().any(|h| under(cwd, h))
    }

    /// Ok unless `session` is in a hidden directory.
    pub fn allow(&self, session: &SessionMeta) -> Result<(), Failure> {
        if self.hides(session) {
            return Err(Failure::new(
                "session_hidden",
                format!(
                    "session {} is in a directory hidden by config.toml's ui.hidden_dirs; remove the directory there to read it",
                    session.id
                ),
            ));
        }
        Ok(())
    }

    /// The source's listing without the hidden sessions.
    pub fn list(
        &self,
        source: &mut dyn Source,
        providers: &[ProviderKind],
    ) -> Result<Listed, Failure> {
        let mut listed = source.list(providers)?;
        listed.sessions.retain(|s| !self.hides(s));
        Ok(listed)
    }

    /// At most `filter.limit` hits outside hidden sessions (asking the source for more while
    /// hidden ones took places), and the search's warnings.
    pub fn search(
        &self,
        source: &mut dyn Source,
        query: &str,
        mut filter: SearchFilter,
    ) -> Result<(Vec<Hit>, Vec<String>), Failure> {
        let wanted = filter.limit;
        let mut found = source.search(query, &filter)?;
        if self.hidden.is_empty() {
            return Ok((found.results.hits, found.warnings));
        }
        let hidden = self.hidden_sessions(source, &filter.providers)?;
        loop {
            let mut hits = found.results.hits;
            let all = hits.len();
            hits.retain(|h| !hidden.contains(&(h.provider, h.session_id.clone())));
            // Enough, or nothing more to find.
            if hits.len() >= wanted || all < filter.limit || filter.limit >= MOST_HITS {
                hits.truncate(wanted);
                return Ok((hits, found.warnings));
            }
            filter.limit = (filter.limit * 4).min(MOST_HITS);
            found = source.search(query, &filter)?;
        }
    }

    fn hidden_sessions(
        &self,
        source: &mut dyn Source,
        providers: &[ProviderKind],
    ) -> Result<HashSet<(ProviderKind, String)>, Failure> {
        let listed = source.list(providers)?;
        Ok(listed
            .sessions
            .iter()
            .filter(|s| self.hides(s))
            .map(|s| (s.provider, s.id.clone()))
            .collect())
    }
}

fn trimmed(dir: &str) -> &str {
    dir.trim_end_matches(['/', '\\'])
}

/// Whether `dir` is `root` or below it ("/" holds every absolute directory), as the app's
/// `isHidden` decides.
fn under(dir: &str, root: &str) -> bool {
    let (dir, root) = (trimmed(dir), trimmed(root));
    dir == root
        || dir
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/') || rest.starts_with('\\'))
}

/// Whether a session's directory or repository is `dir` or below it (`list_sessions`' dir).
pub fn is_under(s: &SessionMeta, dir: &str) -> bool {
    [&s.cwd, &s.repo_root]
        .into_iter()
        .flatten()
        .any(|d| under(d, dir))
}

#[cfg(test)]
mod tests {
    use super::under;

    #[test]
    fn under_matches_the_directory_and_below_only() {
        assert!(under("/home/eve/big", "/home/eve/big"));
        assert!(under("/home/eve/big/", "/home/eve/big"));
        assert!(under("/home/eve/big/sub", "/home/eve/big/"));
        assert!(!under("/home/eve/bigger", "/home/eve/big"));
        assert!(!under("/home/eve", "/home/eve/big"));
        assert!(under("/srv", "/"));
        assert!(under("C:\\work\\x", "C:\\work"));
    }
}
