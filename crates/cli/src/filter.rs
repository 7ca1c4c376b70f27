//! The list filters and sort order as `scan` flags: parsed into core's `filter::Filter` and
//! `SortKey`, which the app's chips follow too.

use agent_sessions_core::filter::{Filter, SortKey};
use agent_sessions_core::ProviderKind;
use chrono::NaiveDate;

#[derive(clap::Args, Debug, Default)]
pub struct FilterArgs {
    /// Only this agent's sessions.
    #[arg(long, value_name = "NAME", value_parser = crate::AgentName)]
    agent: Option<ProviderKind>,
    /// Only sessions last active on this day (UTC, YYYY-MM-DD) or after.
    #[arg(long, value_name = "DAY", value_parser = crate::parse_day)]
    since: Option<NaiveDate>,
    /// Only sessions last active on this day (UTC, YYYY-MM-DD) or before.
    #[arg(long, value_name = "DAY", value_parser = crate::parse_day)]
    until: Option<NaiveDate>,
    /// Only sessions of this model (its exact name).
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// Only sessions that have subagent (child) sessions.
    #[arg(long)]
    has_subagents: bool,
    /// Only archived sessions.
    #[arg(long)]
    archived: bool,
    /// Only sessions an agent has open now.
    #[arg(long)]
    live: bool,
    /// Order: updated (default), created, messages, tokens, cost; largest first.
    #[arg(long, value_name = "KEY", value_parser = parse_sort)]
    sort: Option<SortKey>,
}

impl FilterArgs {
    pub fn filter(&self) -> Filter {
        Filter {
            agent: self.agent,
            since: self.since,
            until: self.until,
            model: self.model.clone(),
            has_subagents: self.has_subagents,
            archived: self.archived,
            live: self.live,
        }
    }

    pub fn sort(&self) -> SortKey {
        self.sort.unwrap_or_default()
    }

    /// `scan`'s envelope of a listing (read here or on a host): filtered, sorted, with the
    /// listing's warnings.
    pub fn scanned(
        &self,
        mut report: agent_sessions_core::ScanReport,
        warnings: &[String],
    ) -> crate::envelope::Envelope {
        self.filter().retain(&mut report.sessions);
        self.sort().sort(&mut report.sessions);
        let mut out = crate::envelope::Envelope::scan(report);
        out.warn(warnings);
        out
    }
}

fn parse_sort(text: &str) -> Result<SortKey, String> {
    SortKey::parse(text).ok_or_else(|| {
        let all: Vec<&str> = SortKey::ALL.iter().map(|k| k.as_str()).collect();
        format!("expected one of {}", all.join(", "))
    })
}
