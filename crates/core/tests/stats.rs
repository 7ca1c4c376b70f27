//! Stats over every fixture store: each grouping's total is the sum of the sessions' own
//! figures, and each group holds exactly the sessions that belong to it.

mod common;

use agent_sessions_core::stats::{key_of, stats, By, Figures};
use agent_sessions_core::{Catalog, CostBasis, ProviderKind, Roots, ScanProgress, SessionMeta};
use common::{repo, store_dir};

/// Every fixture version of every agent, as one set of roots.
fn all_fixtures() -> Roots {
    Roots::from_fn(|kind| {
        let dir = repo().join("testdata").join(kind.as_str());
        let mut versions: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path().join(store_dir(kind)))
            .filter(|p| p.is_dir())
            .collect();
        versions.sort();
        versions
    })
}

/// The figures summed the plain way, one session at a time.
fn by_hand<'a>(sessions: impl Iterator<Item = &'a SessionMeta>) -> Figures {
    let mut f = Figures::default();
    for s in sessions {
        f.sessions += 1;
        f.messages += s.counts.user + s.counts.assistant;
        if let Some(t) = &s.tokens {
            f.tokens.add(t);
        }
        // The agent's figure, else the estimate from the price table (catalog `enrich`).
        match (s.cost_usd, s.cost_estimate_usd, s.cost_basis) {
            (Some(c), None, CostBasis::Recorded) => f.cost_usd += c,
            (None, Some(c), CostBasis::Estimated) => {
                f.cost_usd += c;
                f.estimated += 1;
            }
            (None, None, CostBasis::Unpriced) => f.unpriced += 1,
            (None, None, CostBasis::None) => assert!(s.tokens.is_none_or(|t| t.is_zero())),
            other => panic!("{}: cost {other:?}", s.id),
        }
        f.with_cost += u64::from(s.cost_usd.is_some() || s.cost_estimate_usd.is_some());
    }
    f
}

/// Equal, costs to floating-point rounding (they are summed in another order).
fn assert_same(got: &Figures, want: &Figures, what: &str) {
    let cost = (got.cost_usd - want.cost_usd).abs();
    assert!(
        cost <= 1e-9 * want.cost_usd.abs().max(1.0),
        "{what}: cost {got:?} vs {want:?}"
    );
    let (mut got, mut want) = (got.clone(), want.clone());
    got.cost_usd = 0.0;
    want.cost_usd = 0.0;
    assert_eq!(got, want, "{what}");
}

#[test]
fn every_grouping_sums_to_the_sessions_own_figures() {
    let roots = all_fixtures();
    let report = Catalog::new(&roots, &[])
        .scan(&ScanProgress::default())
        .unwrap();
    let sessions = &report.sessions;
    let all = by_hand(sessions.iter());
    // The fixtures must give the test something to add up.
    assert!(all.sessions > 30, "{} sessions", all.sessions);
    assert!(all.tokens.input > 0 && all.tokens.output > 0, "{all:?}");
    assert!(
        all.tokens.cache_read > 0 && all.tokens.cache_write > 0,
        "{all:?}"
    );
    assert!(all.cost_usd > 0.0 && all.with_cost > 0, "{all:?}");
    // Codex records no cost: its sessions are priced from their tokens (gpt-5-codex).
    assert!(
        all.estimated > 0 && all.with_cost > all.estimated,
        "{all:?}"
    );
    for by in By::ALL {
        let st = stats(sessions, by);
        assert_eq!(st.by, by);
        assert_same(&st.total, &all, &format!("{by:?} total"));
        let mut summed = Figures::default();
        for g in &st.groups {
            let members = sessions.iter().filter(|s| key_of(s, by) == g.key);
            assert_same(&g.figures, &by_hand(members), &format!("{by:?} {}", g.key));
            summed.sessions += g.figures.sessions;
            summed.messages += g.figures.messages;
            summed.tokens.add(&g.figures.tokens);
            summed.cost_usd += g.figures.cost_usd;
            summed.with_cost += g.figures.with_cost;
            summed.estimated += g.figures.estimated;
            summed.unpriced += g.figures.unpriced;
        }
        assert_same(&summed, &all, &format!("{by:?} groups"));
        let keys: std::collections::HashSet<_> = st.groups.iter().map(|g| &g.key).collect();
        assert_eq!(keys.len(), st.groups.len(), "{by:?}: a key twice");
    }
    let agents: Vec<_> = stats(sessions, By::Agent)
        .groups
        .into_iter()
        .map(|g| g.key)
        .collect();
    let mut sorted = agents.clone();
    sorted.sort();
    let mut all_agents: Vec<&str> = ProviderKind::ALL.iter().map(|k| k.as_str()).collect();
    all_agents.sort();
    assert_eq!(sorted, all_agents);
    let days = stats(sessions, By::Day).groups;
    assert!(days.len() >= 2, "{} days", days.len());
    assert!(
        days.windows(2).all(|w| w[0].key < w[1].key),
        "days out of order"
    );
}

#[test]
fn a_filtered_list_counts_only_its_sessions() {
    let report = Catalog::new(&all_fixtures(), &[])
        .scan(&ScanProgress::default())
        .unwrap();
    let codex: Vec<_> = report
        .sessions
        .iter()
        .filter(|s| s.provider == ProviderKind::Codex)
        .collect();
    let st = stats(codex.iter().copied(), By::Model);
    assert_same(&st.total, &by_hand(codex.iter().copied()), "codex only");
    assert!(st.total.sessions > 0 && st.total.sessions < report.sessions.len() as u64);
}
