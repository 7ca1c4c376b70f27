//! `stats [--by dir|repo|agent|model|day|week] [--provider NAME]`: sessions, messages, tokens
//! and cost per group (the work is `agent_sessions_core::stats`; this is flags and a table).

use std::fmt::Write;

use agent_sessions_core::stats::{self, By, Figures, Stats};
use agent_sessions_core::{Error, ProviderKind, Roots, SessionMeta};
use serde_json::json;

use crate::envelope::Envelope;
use crate::progress;

#[derive(clap::Args)]
pub struct Args {
    /// Group by dir, repo, agent, model, day (UTC, the day a session started) or week (ISO).
    #[arg(long, value_name = "GROUPING", default_value = "dir", value_parser = parse_by)]
    pub(crate) by: By,
    /// Only these agents' sessions; repeatable.
    #[arg(long = "provider", value_name = "NAME", value_parser = crate::AgentName)]
    pub(crate) providers: Vec<ProviderKind>,
    /// Read the stores directly instead of through the cache.
    #[arg(long)]
    pub(crate) no_cache: bool,
}

fn parse_by(name: &str) -> Result<By, String> {
    By::parse(name).ok_or_else(|| format!("{name:?} is not dir, repo, agent, model, day or week"))
}

pub fn run(roots: &Roots, args: Args) -> Result<Envelope, Error> {
    let mut lib = crate::open(roots, &args.providers, !args.no_cache);
    let report = progress::run("scanning", |p| lib.sessions(p))?;
    let mut out = envelope(&report.sessions, args.by);
    out.warn(lib.warnings());
    out.warn_unavailable(lib.catalog(), &args.providers);
    Ok(out)
}

/// The figures of `sessions` grouped `by`, as JSON and a table (also `stats --host`).
pub(crate) fn envelope(sessions: &[SessionMeta], by: By) -> Envelope {
    let st = stats::stats(sessions, by);
    let text = table(&st);
    Envelope::ok(json!(st), text)
}

fn row(key: &str, f: &Figures) -> [String; 8] {
    // "≈" when any of it is an estimate (`pricing`); "+?" when sessions with tokens had no
    // price for their model and are left out.
    let cost = match (f.with_cost, f.estimated, f.unpriced) {
        (0, _, 0) => "-".into(),
        (0, _, _) => "?".into(),
        (_, e, u) => format!(
            "{}{:.2}{}",
            if e > 0 { "≈" } else { "" },
            f.cost_usd,
            if u > 0 { "+?" } else { "" }
        ),
    };
    [
        key.to_owned(),
        f.sessions.to_string(),
        f.messages.to_string(),
        f.tokens.input.to_string(),
        f.tokens.output.to_string(),
        f.tokens.cache_read.to_string(),
        f.tokens.cache_write.to_string(),
        cost,
    ]
}

/// Numbers right-aligned, the group (a path, a model, a day) first and left-aligned.
pub(crate) fn table(st: &Stats) -> String {
    let header = [
        st.by.as_str().to_uppercase(),
        "SESSIONS".into(),
        "MSGS".into(),
        "INPUT".into(),
        "OUTPUT".into(),
        "CACHE READ".into(),
        "CACHE WRITE".into(),
        "COST USD".into(),
    ];
    let mut rows = vec![header];
    rows.extend(
        st.groups
            .iter()
            .map(|g| row(&crate::render::terminal_safe(&g.key), &g.figures)),
    );
    rows.push(row("TOTAL", &st.total));
    let mut widths = [0usize; 8];
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for r in &rows {
        let mut line = String::new();
        for (i, (cell, w)) in r.iter().zip(widths).enumerate() {
            let pad = " ".repeat(w - cell.chars().count());
            if i == 0 {
                let _ = write!(line, "{cell}{pad}");
            } else {
                let _ = write!(line, "  {pad}{cell}");
            }
        }
        let _ = writeln!(out, "{line}");
    }
    out.push_str(&cost_legend(&st.total));
    out
}

/// What "≈" and "?" in the cost column mean, when they appear.
fn cost_legend(total: &Figures) -> String {
    let mut out = String::new();
    if total.estimated > 0 {
        let prices = agent_sessions_core::pricing::current();
        let mine = match prices.overridden() {
            [] => String::new(),
            models => format!(", and config.toml's [prices] for {}", models.join(", ")),
        };
        let _ = writeln!(
            out,
            "≈ {} sessions' cost estimated from their tokens at the prices of {} ({}){mine}.",
            total.estimated, prices.source, prices.date
        );
    }
    if total.unpriced > 0 {
        let _ = writeln!(
            out,
            "? {} sessions with tokens have no price for their model and are not counted; \
             price it in config.toml's [prices] table.",
            total.unpriced
        );
    }
    out
}
