//! Where the sessions, messages, tokens and money went: the figures of a list of sessions
//! summed per directory, repository, agent, model, day or week.
//!
//! The input is whatever list the caller shows (filters are the caller's business), and every
//! figure is the sessions' own (`SessionMeta::counts`, `tokens`, `cost_usd`): nothing is
//! estimated, so the total of every grouping is the sum of the sessions in it. A session lands
//! in exactly one group; what it lacks (no directory, no model, no date) is a group of its own,
//! never dropped.

use std::collections::HashMap;

use chrono::{Datelike, Days, NaiveDate, Weekday};
use serde::Serialize;

use crate::model::{CostBasis, SessionMeta, Tokens};

/// What the sessions are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ts_rs::TS)]
#[ts(rename = "StatsBy")]
#[serde(rename_all = "lowercase")]
pub enum By {
    /// The session's working directory, normalised (`SessionMeta::dir`: one directory is one
    /// group however the agent wrote it).
    Dir,
    /// The git repository the directory is in (the directory itself outside a repository).
    Repo,
    /// The coding agent (claude, codex, opencode).
    Agent,
    Model,
    /// The UTC day the session was last active (its start when it has no update): the day
    /// the list's date filters compare, so a day's count is the list that day filters to.
    Day,
    /// The ISO week of that day (`2026-W48`).
    Week,
}

impl By {
    pub const ALL: [By; 6] = [By::Dir, By::Repo, By::Agent, By::Model, By::Day, By::Week];

    pub fn as_str(self) -> &'static str {
        match self {
            By::Dir => "dir",
            By::Repo => "repo",
            By::Agent => "agent",
            By::Model => "model",
            By::Day => "day",
            By::Week => "week",
        }
    }

    pub fn parse(name: &str) -> Option<By> {
        By::ALL.into_iter().find(|b| b.as_str() == name)
    }

    /// Days and weeks read in time order; the rest most costly first.
    fn is_time(self) -> bool {
        matches!(self, By::Day | By::Week)
    }
}

/// The group of sessions that have no value for the grouping (no directory, model or date).
pub const NONE_KEY: &str = "(none)";

/// The summed figures of some sessions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ts_rs::TS)]
pub struct Figures {
    pub sessions: u64,
    /// Conversation messages as the list counts them (user prompts + assistant messages).
    pub messages: u64,
    pub tokens: Tokens,
    /// Recorded costs plus estimates (`pricing`) where the agent recorded none.
    pub cost_usd: f64,
    /// Sessions with a cost, recorded or estimated (the others add nothing to `cost_usd`).
    pub with_cost: u64,
    /// Of `with_cost`, the sessions whose cost is an estimate.
    pub estimated: u64,
    /// Sessions with tokens but no price for their model: left out of `cost_usd`.
    pub unpriced: u64,
}

impl Figures {
    fn add(&mut self, s: &SessionMeta) {
        self.sessions += 1;
        self.messages += s.counts.user + s.counts.assistant;
        if let Some(t) = &s.tokens {
            self.tokens.add(t);
        }
        if let Some(c) = s.cost() {
            self.cost_usd += c;
            self.with_cost += 1;
        }
        match s.cost_basis {
            CostBasis::Estimated => self.estimated += 1,
            CostBasis::Unpriced => self.unpriced += 1,
            CostBasis::Recorded | CostBasis::None => {}
        }
    }

    fn merge(&mut self, other: &Figures) {
        self.sessions += other.sessions;
        self.messages += other.messages;
        self.tokens.add(&other.tokens);
        self.cost_usd += other.cost_usd;
        self.with_cost += other.with_cost;
        self.estimated += other.estimated;
        self.unpriced += other.unpriced;
    }

    /// Every token the sessions moved (input, output and both cache kinds).
    pub fn total_tokens(&self) -> u64 {
        let t = &self.tokens;
        t.input + t.output + t.cache_read + t.cache_write
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(rename = "StatsGroup")]
pub struct Group {
    pub key: String,
    #[serde(flatten)]
    pub figures: Figures,
}

/// Figures per group, and in all.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct Stats {
    pub by: By,
    pub total: Figures,
    pub groups: Vec<Group>,
}

/// The group a session falls in.
pub fn key_of(s: &SessionMeta, by: By) -> String {
    let key = match by {
        By::Dir => dir_of(s),
        By::Repo => s.repo_root.clone().or_else(|| dir_of(s)),
        By::Agent => Some(s.provider.as_str().to_owned()),
        By::Model => s.model.clone().filter(|m| !m.is_empty()),
        // A session's day is that of its last activity, as for the list's date filters.
        By::Day => s.last_active().map(|t| t.format("%Y-%m-%d").to_string()),
        By::Week => s.last_active().map(|t| {
            let w = t.iso_week();
            format!("{}-W{:02}", w.year(), w.week())
        }),
    };
    key.unwrap_or_else(|| NONE_KEY.to_owned())
}

/// The normalised directory (the catalog fills it); the agent's own `cwd` for a session that
/// has not been through the catalog.
fn dir_of(s: &SessionMeta) -> Option<String> {
    s.dir.clone().or_else(|| s.cwd.clone())
}

/// The figures of `sessions` grouped `by`. The total is summed from the groups, so it equals
/// their sum exactly (costs too, though they are floating point).
pub fn stats<'a>(sessions: impl IntoIterator<Item = &'a SessionMeta>, by: By) -> Stats {
    let mut groups: HashMap<String, Figures> = HashMap::new();
    for s in sessions {
        groups.entry(key_of(s, by)).or_default().add(s);
    }
    let mut groups: Vec<Group> = groups
        .into_iter()
        .map(|(key, figures)| Group { key, figures })
        .collect();
    if by.is_time() {
        groups.sort_by(|a, b| a.key.cmp(&b.key));
        fill_gaps(&mut groups, by);
    } else {
        groups.sort_by(|a, b| {
            b.figures
                .cost_usd
                .total_cmp(&a.figures.cost_usd)
                .then_with(|| b.figures.total_tokens().cmp(&a.figures.total_tokens()))
                .then_with(|| b.figures.sessions.cmp(&a.figures.sessions))
                .then_with(|| a.key.cmp(&b.key))
        });
    }
    let mut total = Figures::default();
    for g in &groups {
        total.merge(&g.figures);
    }
    Stats { by, total, groups }
}

/// The most days (or weeks) a range is filled to: a century of days.
const MAX_PERIODS: i64 = 36_600;

fn step_days(by: By) -> i64 {
    if by == By::Week {
        7
    } else {
        1
    }
}

/// Every day (or week) from the first to the last as a group, in order, the ones without
/// sessions with zero figures: a chart or table of the groups read as if those days had never
/// been (issue 36). `groups` is sorted by key; the undated group ("(none)") sorts first and stays.
fn fill_gaps(groups: &mut Vec<Group>, by: By) {
    let dated = |g: &Group| period_start(&g.key, by);
    let (Some(first), Some(last)) = (
        groups.iter().find_map(dated),
        groups.iter().rev().find_map(dated),
    ) else {
        return;
    };
    let step = Days::new(step_days(by) as u64);
    // A date an agent wrote wrong (the year 9999) would make millions of empty groups.
    if (last - first).num_days() / step_days(by) > MAX_PERIODS {
        return;
    }
    let mut have: HashMap<String, Group> = groups.drain(..).map(|g| (g.key.clone(), g)).collect();
    if let Some(none) = have.remove(NONE_KEY) {
        groups.push(none);
    }
    let mut at = first;
    while at <= last {
        let key = match by {
            By::Week => {
                let w = at.iso_week();
                format!("{}-W{:02}", w.year(), w.week())
            }
            _ => at.format("%Y-%m-%d").to_string(),
        };
        let figures = have.remove(&key).map(|g| g.figures).unwrap_or_default();
        groups.push(Group { key, figures });
        at = at + step;
    }
}

/// The first day of a day's or an ISO week's key (`2026-11-03`, `2026-W45`); None for "(none)".
fn period_start(key: &str, by: By) -> Option<NaiveDate> {
    match by {
        By::Week => {
            let (year, week) = key.split_once("-W")?;
            NaiveDate::from_isoywd_opt(year.parse().ok()?, week.parse().ok()?, Weekday::Mon)
        }
        _ => NaiveDate::parse_from_str(key, "%Y-%m-%d").ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ProviderKind;

    fn session(id: &str, cwd: Option<&str>, created: Option<&str>) -> SessionMeta {
        let mut s = SessionMeta::new(ProviderKind::Claude, id.into(), id.into());
        s.cwd = cwd.map(Into::into);
        s.created_at = created.map(|c| c.parse().unwrap());
        s
    }

    #[test]
    fn weeks_are_iso_weeks_and_missing_values_are_a_group() {
        // 2027-01-01 is a Friday: ISO week 53 of 2026.
        let s = session("a", None, Some("2027-01-01T10:00:00Z"));
        assert_eq!(key_of(&s, By::Week), "2026-W53");
        assert_eq!(key_of(&s, By::Day), "2027-01-01");
        assert_eq!(key_of(&s, By::Dir), NONE_KEY);
        assert_eq!(key_of(&session("b", None, None), By::Day), NONE_KEY);
    }

    #[test]
    fn a_directory_outside_a_repository_is_its_own_repo() {
        let mut s = session("a", Some("/w/x/sub"), None);
        assert_eq!(key_of(&s, By::Repo), "/w/x/sub");
        s.repo_root = Some("/w/x".into());
        assert_eq!(key_of(&s, By::Repo), "/w/x");
        assert_eq!(key_of(&s, By::Dir), "/w/x/sub");
    }

    #[test]
    fn a_directory_written_two_ways_is_one_group_and_totals_stay_the_sums() {
        // The agent wrote `/w/x/` and `/w/x/./`; the catalog normalised both to `/w/x`.
        let mut list = vec![
            session("a", Some("/w/x/"), None),
            session("b", Some("/w/x/./"), None),
            session("c", Some("/w/y"), None),
            session("d", None, None),
        ];
        for (i, s) in list.iter_mut().enumerate() {
            s.dir = s.cwd.as_deref().map(crate::paths::normalize_dir);
            s.counts.user = i as u64 + 1;
            s.counts.assistant = 2;
            s.tokens = Some(Tokens {
                input: 100 * (i as u64 + 1),
                output: 7,
                cache_read: 3,
                cache_write: i as u64,
            });
            s.cost_usd = (i != 2).then_some(0.25 * (i as f64 + 1.0));
        }
        list[2].repo_root = Some("/w".into());
        let mut summed = Figures::default();
        list.iter().for_each(|s| summed.add(s));
        for by in [By::Dir, By::Repo] {
            let st = stats(&list, by);
            let keys: Vec<_> = st.groups.iter().map(|g| g.key.as_str()).collect();
            // Most costly first: d ($1.00), a and b ($0.75), c (no cost).
            let third = if by == By::Dir { "/w/y" } else { "/w" };
            assert_eq!(keys, [NONE_KEY, "/w/x", third], "{by:?}");
            assert_eq!(st.groups[1].figures.sessions, 2);
            assert_eq!(st.groups[1].figures.messages, 1 + 2 + 2 + 2);
            assert_eq!(st.total, summed, "{by:?}");
        }
        assert_eq!(summed.sessions, 4);
        assert_eq!(summed.tokens.input, 1000);
        assert_eq!(summed.with_cost, 3);
    }

    #[test]
    fn a_day_counts_the_sessions_its_filter_lists() {
        // Started on the 1st, last active on the 3rd: counted on the 3rd, and the list filtered
        // to the 3rd shows it (a heatmap click on a day must show what the day counted).
        let mut a = session("a", None, Some("2026-11-01T10:00:00Z"));
        a.updated_at = Some("2026-11-03T09:00:00Z".parse().unwrap());
        let b = session("b", None, Some("2026-11-02T10:00:00Z"));
        let list = [a, b];
        let st = stats(&list, By::Day);
        for g in &st.groups {
            let day = NaiveDate::parse_from_str(&g.key, "%Y-%m-%d").unwrap();
            let filter = crate::filter::Filter {
                since: Some(day),
                until: Some(day),
                ..Default::default()
            };
            let listed = list.iter().filter(|s| filter.matches(s, false)).count();
            assert_eq!(listed as u64, g.figures.sessions, "{}", g.key);
        }
        let keys: Vec<_> = st.groups.iter().map(|g| g.key.as_str()).collect();
        assert_eq!(keys, ["2026-11-02", "2026-11-03"]);
        assert_eq!(st.groups[1].figures.sessions, 1);
    }

    #[test]
    fn days_read_in_time_order() {
        let list = [
            session("a", None, Some("2026-11-03T00:00:00Z")),
            session("b", None, Some("2026-10-30T00:00:00Z")),
            session("c", None, Some("2026-11-03T23:00:00Z")),
        ];
        let st = stats(&list, By::Day);
        let keys: Vec<_> = st.groups.iter().map(|g| g.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "2026-10-30",
                "2026-10-31",
                "2026-11-01",
                "2026-11-02",
                "2026-11-03"
            ]
        );
        assert_eq!(st.groups[4].figures.sessions, 2);
        assert_eq!(st.groups[1].figures, Figures::default());
        assert_eq!(st.total.sessions, 3);
    }

    #[test]
    fn every_day_and_week_in_the_range_is_a_group_and_undated_ones_stay_first() {
        // A chart of the groups read as if the days without sessions had never been: every day
        // (and week) from the first to the last is listed, the empty ones with zero figures.
        let list = [
            session("a", None, Some("2026-12-30T10:00:00Z")),
            session("b", None, Some("2027-01-02T10:00:00Z")),
            session("c", None, Some("2027-01-13T10:00:00Z")),
            session("d", None, None),
        ];
        let days = stats(&list, By::Day);
        let keys: Vec<_> = days.groups.iter().map(|g| g.key.as_str()).collect();
        assert_eq!(keys.len(), 1 + 15, "{keys:?}");
        assert_eq!(
            keys[..4],
            [NONE_KEY, "2026-12-30", "2026-12-31", "2027-01-01"]
        );
        assert_eq!(keys[15], "2027-01-13");
        assert_eq!(days.total.sessions, 4);
        let weeks = stats(&list, By::Week);
        let keys: Vec<_> = weeks.groups.iter().map(|g| g.key.as_str()).collect();
        // 2026-12-30 is in 2026-W53, 2027-01-02 too, 2027-01-13 in 2027-W02.
        assert_eq!(keys, [NONE_KEY, "2026-W53", "2027-W01", "2027-W02"]);
        assert_eq!(weeks.groups[1].figures.sessions, 2);
        assert_eq!(weeks.groups[2].figures.sessions, 0);
    }

    #[test]
    fn a_date_written_wrong_does_not_fill_millions_of_days() {
        let list = [
            session("a", None, Some("2026-12-30T10:00:00Z")),
            session("b", None, Some("9999-01-02T10:00:00Z")),
        ];
        let keys: Vec<_> = stats(&list, By::Day)
            .groups
            .into_iter()
            .map(|g| g.key)
            .collect();
        assert_eq!(keys, ["2026-12-30", "9999-01-02"]);
        assert_eq!(stats(&list, By::Week).groups.len(), 2);
    }
}
