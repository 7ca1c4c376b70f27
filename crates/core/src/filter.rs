//! The session list's filters and sort orders (SPEC §5), as plain data and pure functions, so
//! every front end narrows a list the same way: the CLI's `scan` flags, the app's chips (whose
//! TypeScript twin, ui/src/lib/filter.ts, follows these rules and is tested on the same cases),
//! and the Stats view, which counts what the list shows.
//!
//! Rules:
//! - Every filter left at its default lets everything through; set ones combine with AND.
//! - `since`/`until` are days (UTC), inclusive, compared with the day of the session's last
//!   activity (its last update, else its start: `SessionMeta::last_active`), the same day stats
//!   and Home's heatmap count it under; a session with neither is outside any range.
//! - `model` is the model's exact name (the app offers the ones seen).
//! - `has_subagents`, `archived`, `live` keep only the sessions that have child sessions, are
//!   archived, are live now.
//! - Subagent sessions are judged by themselves; a list shows them under their parent.

use std::cmp::Ordering;
use std::collections::HashSet;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::model::{ProviderKind, SessionMeta};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct Filter {
    pub agent: Option<ProviderKind>,
    pub since: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
    pub model: Option<String>,
    pub has_subagents: bool,
    pub archived: bool,
    pub live: bool,
}

impl Filter {
    /// Whether nothing is filtered out.
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// Whether `session` passes; `has_subagents`: some session names it as its parent.
    pub fn matches(&self, session: &SessionMeta, has_subagents: bool) -> bool {
        let day = session.last_active().map(|t| t.date_naive());
        let in_range = match (self.since, self.until) {
            (None, None) => true,
            (since, until) => {
                day.is_some_and(|d| since.is_none_or(|s| d >= s) && until.is_none_or(|u| d <= u))
            }
        };
        self.agent.is_none_or(|a| session.provider == a)
            && in_range
            && self
                .model
                .as_deref()
                .is_none_or(|m| session.model.as_deref() == Some(m))
            && (!self.has_subagents || has_subagents)
            && (!self.archived || session.archived)
            && (!self.live || session.live)
    }

    /// The sessions that pass, in their order.
    pub fn select<'a>(&self, sessions: &'a [SessionMeta]) -> Vec<&'a SessionMeta> {
        let parents = parents(sessions);
        sessions
            .iter()
            .filter(|s| self.matches(s, parents.contains(&(s.provider, s.id.as_str()))))
            .collect()
    }

    /// Keeps only the sessions that pass.
    pub fn retain(&self, sessions: &mut Vec<SessionMeta>) {
        if self.is_empty() {
            return;
        }
        let parents: HashSet<(ProviderKind, String)> = parents(sessions)
            .into_iter()
            .map(|(p, id)| (p, id.to_owned()))
            .collect();
        sessions.retain(|s| self.matches(s, parents.contains(&(s.provider, s.id.clone()))));
    }
}

/// (provider, id) of every session some other session names as its parent.
fn parents(sessions: &[SessionMeta]) -> HashSet<(ProviderKind, &str)> {
    sessions
        .iter()
        .filter_map(|s| Some((s.provider, s.parent_id.as_deref()?)))
        .collect()
}

/// How a list is ordered; every order is largest (newest) first, ties by provider and id.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum SortKey {
    #[default]
    Updated,
    Created,
    Messages,
    Tokens,
    Cost,
}

impl SortKey {
    pub const ALL: [SortKey; 5] = [
        Self::Updated,
        Self::Created,
        Self::Messages,
        Self::Tokens,
        Self::Cost,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Updated => "updated",
            Self::Created => "created",
            Self::Messages => "messages",
            Self::Tokens => "tokens",
            Self::Cost => "cost",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Orders `a` before `b` when it is larger by this key.
    pub fn compare(self, a: &SessionMeta, b: &SessionMeta) -> Ordering {
        let by = match self {
            Self::Updated => b.updated_at.cmp(&a.updated_at),
            Self::Created => b.created_at.cmp(&a.created_at),
            Self::Messages => messages(b).cmp(&messages(a)),
            Self::Tokens => tokens(b).cmp(&tokens(a)),
            Self::Cost => b.cost().unwrap_or(0.0).total_cmp(&a.cost().unwrap_or(0.0)),
        };
        by.then_with(|| a.provider.cmp(&b.provider))
            .then_with(|| a.id.cmp(&b.id))
    }

    pub fn sort(self, sessions: &mut [SessionMeta]) {
        sessions.sort_by(|a, b| self.compare(a, b));
    }
}

/// What the list shows as a session's message count: prompts and answers.
pub fn messages(s: &SessionMeta) -> u64 {
    s.counts.user + s.counts.assistant
}

/// Every token the session's responses took, cache included.
pub fn tokens(s: &SessionMeta) -> u64 {
    s.tokens
        .map(|t| t.input + t.output + t.cache_read + t.cache_write)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Tokens;
    use chrono::{TimeZone, Utc};

    fn session(provider: ProviderKind, id: &str, day: u32) -> SessionMeta {
        let mut s = SessionMeta::new(provider, id.into(), format!("/s/{id}").into());
        s.updated_at = Some(Utc.with_ymd_and_hms(2026, 3, day, 23, 30, 0).unwrap());
        s.created_at = Some(Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap());
        s
    }

    fn ids(filter: &Filter, sessions: &[SessionMeta]) -> Vec<String> {
        filter
            .select(sessions)
            .iter()
            .map(|s| s.id.clone())
            .collect()
    }

    fn fixture() -> Vec<SessionMeta> {
        let mut a = session(ProviderKind::Claude, "a", 2);
        a.model = Some("claude-opus".into());
        let mut child = session(ProviderKind::Claude, "a-child", 2);
        child.parent_id = Some("a".into());
        child.model = Some("claude-haiku".into());
        let mut b = session(ProviderKind::Codex, "b", 10);
        b.model = Some("gpt-5".into());
        b.archived = true;
        let mut c = session(ProviderKind::Opencode, "c", 20);
        c.live = true;
        c.model = Some("claude-opus".into());
        let mut undated = session(ProviderKind::Claude, "undated", 1);
        undated.updated_at = None;
        undated.created_at = None;
        vec![a, child, b, c, undated]
    }

    #[test]
    fn each_filter_alone() {
        let all = fixture();
        let every: Vec<String> = all.iter().map(|s| s.id.clone()).collect();
        assert_eq!(ids(&Filter::default(), &all), every);
        let f = |edit: fn(&mut Filter)| {
            let mut f = Filter::default();
            edit(&mut f);
            ids(&f, &all)
        };
        assert_eq!(
            f(|f| f.agent = Some(ProviderKind::Claude)),
            ["a", "a-child", "undated"]
        );
        assert_eq!(f(|f| f.model = Some("claude-opus".into())), ["a", "c"]);
        assert_eq!(f(|f| f.has_subagents = true), ["a"]);
        assert_eq!(f(|f| f.archived = true), ["b"]);
        assert_eq!(f(|f| f.live = true), ["c"]);
        // Days are inclusive at both ends, a session updated at 23:30 UTC on the 10th included.
        let day = |d| NaiveDate::from_ymd_opt(2026, 3, d);
        let range = |since, until| {
            ids(
                &Filter {
                    since,
                    until,
                    ..Filter::default()
                },
                &all,
            )
        };
        assert_eq!(range(day(10), None), ["b", "c"]);
        assert_eq!(range(None, day(10)), ["a", "a-child", "b"]);
        assert_eq!(range(day(10), day(10)), ["b"]);
        assert!(range(day(11), day(19)).is_empty());
    }

    #[test]
    fn filters_combine_with_and() {
        let all = fixture();
        let opus_claude = Filter {
            agent: Some(ProviderKind::Claude),
            model: Some("claude-opus".into()),
            ..Filter::default()
        };
        assert_eq!(ids(&opus_claude, &all), ["a"]);
        let live_archived = Filter {
            live: true,
            archived: true,
            ..Filter::default()
        };
        assert!(ids(&live_archived, &all).is_empty());
        let mut kept = all.clone();
        opus_claude.retain(&mut kept);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].id, "a");
    }

    #[test]
    fn a_parent_of_another_provider_is_not_ours() {
        // Ids are the agents' own: a Codex session naming "a" as parent is not Claude's a's child.
        let mut all = fixture();
        all.retain(|s| s.id != "a-child");
        let mut other = session(ProviderKind::Codex, "x", 3);
        other.parent_id = Some("a".into());
        all.push(other);
        let f = Filter {
            has_subagents: true,
            ..Filter::default()
        };
        assert!(ids(&f, &all).is_empty());
    }

    #[test]
    fn sort_orders() {
        let mut all = fixture();
        all[0].tokens = Some(Tokens {
            input: 10,
            output: 5,
            cache_read: 100,
            cache_write: 0,
        });
        all[2].cost_usd = Some(0.5);
        all[3].cost_usd = Some(2.0);
        all[3].counts.user = 3;
        all[2].counts.assistant = 1;
        all[4].created_at = Some(Utc.with_ymd_and_hms(2026, 4, 1, 0, 0, 0).unwrap());
        let order = |key: SortKey| {
            let mut list = all.clone();
            key.sort(&mut list);
            list.into_iter().map(|s| s.id).collect::<Vec<_>>()
        };
        assert_eq!(
            order(SortKey::Updated),
            ["c", "b", "a", "a-child", "undated"]
        );
        assert_eq!(order(SortKey::Created)[0], "undated");
        assert_eq!(order(SortKey::Messages)[..2], ["c", "b"]);
        assert_eq!(order(SortKey::Tokens)[0], "a");
        assert_eq!(order(SortKey::Cost)[..2], ["c", "b"]);
        for key in SortKey::ALL {
            assert_eq!(SortKey::parse(key.as_str()), Some(key));
        }
    }
}
