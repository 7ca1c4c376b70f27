//! What a session cost when its agent did not record it: tokens × the model's prices.
//!
//! The table ships with the app (`data/prices.json`, built by `scripts/update-prices.py` from
//! LiteLLM's maintained catalogue, dated) and `config.toml`'s `[prices]` table overrides or adds
//! models (USD per million tokens). Only the agent's own figure is "recorded"; everything here
//! is an estimate and says so (`CostBasis::Estimated`), and a model with no price says that
//! instead of adding nothing silently (`CostBasis::Unpriced`).

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock, RwLock};

use serde::{Deserialize, Serialize};

use crate::model::{CostBasis, SessionMeta, Tokens};

/// USD per million tokens. A missing cache price is charged as input.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cache_read: Option<f64>,
    pub cache_write: Option<f64>,
}

impl Price {
    /// What `tokens` cost at this price, in USD.
    pub fn cost(&self, t: &Tokens) -> f64 {
        let per_m = |n: u64, p: f64| n as f64 * p / 1_000_000.0;
        per_m(t.input, self.input)
            + per_m(t.output, self.output)
            + per_m(t.cache_read, self.cache_read.unwrap_or(self.input))
            + per_m(t.cache_write, self.cache_write.unwrap_or(self.input))
    }
}

/// The bundled table as written by `scripts/update-prices.py`.
#[derive(Deserialize)]
struct Bundled {
    source: String,
    date: String,
    models: BTreeMap<String, [Option<f64>; 4]>,
}

/// Prices by model name, with where they came from.
#[derive(Debug, Clone, Default)]
pub struct Prices {
    models: BTreeMap<String, Price>,
    /// "LiteLLM 1.110.2, …" and the day the table was built.
    pub source: String,
    pub date: String,
    /// Models priced by `config.toml`.
    overridden: Vec<String>,
}

static BUNDLED: LazyLock<Prices> = LazyLock::new(|| {
    Prices::parse(include_str!("../data/prices.json")).expect("the bundled price table parses")
});

/// The prices in effect for this process: the bundled table until [`install`] adds overrides.
static CURRENT: LazyLock<RwLock<Arc<Prices>>> =
    LazyLock::new(|| RwLock::new(Arc::new(BUNDLED.clone())));

/// The bundled table with `overrides` (from `config.toml`) on top; what [`current`] returns from
/// now on. Called when the settings are read or edited.
pub fn install(overrides: &BTreeMap<String, Price>) {
    let prices = Arc::new(BUNDLED.with(overrides));
    *CURRENT.write().unwrap_or_else(|e| e.into_inner()) = prices;
}

/// The prices in effect (see [`install`]).
pub fn current() -> Arc<Prices> {
    CURRENT.read().unwrap_or_else(|e| e.into_inner()).clone()
}

impl Prices {
    fn parse(text: &str) -> Result<Prices, serde_json::Error> {
        let bundled: Bundled = serde_json::from_str(text)?;
        let models = bundled
            .models
            .into_iter()
            .filter_map(|(name, [input, output, cache_read, cache_write])| {
                let price = Price {
                    input: input?,
                    output: output?,
                    cache_read,
                    cache_write,
                };
                Some((name.to_ascii_lowercase(), price))
            })
            .collect();
        Ok(Prices {
            models,
            source: bundled.source,
            date: bundled.date,
            overridden: Vec::new(),
        })
    }

    /// This table with `overrides` replacing or adding models.
    pub fn with(&self, overrides: &BTreeMap<String, Price>) -> Prices {
        let mut prices = self.clone();
        for (name, price) in overrides {
            prices.models.insert(name.to_ascii_lowercase(), *price);
            prices.overridden.push(name.clone());
        }
        prices
    }

    pub fn len(&self) -> usize {
        self.models.len()
    }

    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// The models `config.toml` priced, as written there.
    pub fn overridden(&self) -> &[String] {
        &self.overridden
    }

    /// Whether `config.toml` priced `model`.
    pub fn is_overridden(&self, model: &str) -> bool {
        self.overridden
            .iter()
            .any(|m| m.eq_ignore_ascii_case(model))
    }

    /// The price of `model` as an agent records it: the name itself, else without a provider
    /// prefix (`anthropic/claude-…`, OpenCode's `provider/model`), a Vertex `@date` or a
    /// `[1m]`-style tag, else without a release date (`-20250929`, `-2024-08-06`), which the
    /// catalogue lists under the undated alias.
    pub fn lookup(&self, model: &str) -> Option<Price> {
        let name = model.trim().to_ascii_lowercase();
        candidates(&name).find_map(|n| self.models.get(n.as_str()).copied())
    }

    /// Fills `s.cost_estimate_usd` and `s.cost_basis` from its tokens and model.
    pub fn price(&self, s: &mut SessionMeta) {
        s.cost_estimate_usd = None;
        s.cost_basis = if s.cost_usd.is_some() {
            CostBasis::Recorded
        } else {
            match (&s.tokens, &s.model) {
                (Some(t), _) if t.is_zero() => CostBasis::None,
                (None, _) => CostBasis::None,
                (Some(t), Some(model)) => match self.lookup(model) {
                    Some(price) => {
                        s.cost_estimate_usd = Some(price.cost(t));
                        CostBasis::Estimated
                    }
                    None => CostBasis::Unpriced,
                },
                (Some(_), None) => CostBasis::Unpriced,
            }
        };
    }
}

/// The names `lookup` tries, most specific first.
fn candidates(name: &str) -> impl Iterator<Item = String> {
    let bare = name.rsplit('/').next().unwrap_or(name);
    let bare = bare.split(['@', '[']).next().unwrap_or(bare).trim();
    let undated = strip_date(bare);
    [name.to_owned(), bare.to_owned(), undated.to_owned()].into_iter()
}

/// `claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`; `gpt-4o-2024-08-06` → `gpt-4o`.
fn strip_date(name: &str) -> &str {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((head, tail)) = name.rsplit_once('-') {
        if tail.len() == 8 && digits(tail) {
            return head;
        }
    }
    let parts: Vec<&str> = name.rsplitn(4, '-').collect();
    if let [d, m, y, head] = parts[..] {
        if y.len() == 4 && m.len() == 2 && d.len() == 2 && digits(y) && digits(m) && digits(d) {
            return head;
        }
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ProviderKind;

    fn tokens(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Tokens {
        Tokens {
            input,
            output,
            cache_read,
            cache_write,
        }
    }

    fn session(model: Option<&str>, t: Option<Tokens>) -> SessionMeta {
        let mut s = SessionMeta::new(ProviderKind::Codex, "id".into(), "/x".into());
        s.model = model.map(str::to_owned);
        s.tokens = t;
        s
    }

    #[test]
    fn the_bundled_table_holds_the_agents_models_at_the_catalogues_prices() {
        let p = &*BUNDLED;
        assert!(p.len() > 300, "{} models", p.len());
        assert!(p.source.starts_with("LiteLLM "), "{}", p.source);
        assert_eq!(p.date.len(), 10);
        // Anthropic's list prices for Opus 4.5 and Sonnet 4.5, OpenAI's for GPT-5 Codex.
        let opus = p.lookup("claude-opus-4-5").unwrap();
        assert_eq!((opus.input, opus.output), (5.0, 25.0));
        assert_eq!((opus.cache_read, opus.cache_write), (Some(0.5), Some(6.25)));
        let codex = p.lookup("gpt-5-codex").unwrap();
        assert_eq!(
            (codex.input, codex.output, codex.cache_read),
            (1.25, 10.0, Some(0.125))
        );
        assert!(p.lookup("gemini-2.5-pro").is_some());
    }

    #[test]
    fn names_as_agents_record_them_find_their_price() {
        let p = &*BUNDLED;
        let sonnet = p.lookup("claude-sonnet-4-5").unwrap();
        for name in [
            "claude-sonnet-4-5-20250929",
            "anthropic/claude-sonnet-4-5",
            "Claude-Sonnet-4-5",
            "claude-sonnet-4-5@20250929",
            "claude-sonnet-4-5[1m]",
        ] {
            assert_eq!(p.lookup(name), Some(sonnet), "{name}");
        }
        assert_eq!(strip_date("gpt-4o-2024-08-06"), "gpt-4o");
        assert_eq!(strip_date("gpt-5"), "gpt-5");
        assert_eq!(strip_date("o3-mini"), "o3-mini");
        assert_eq!(p.lookup("mock-model"), None);
        assert_eq!(p.lookup(""), None);
    }

    #[test]
    fn a_session_is_priced_from_its_tokens_or_says_why_not() {
        let p = &*BUNDLED;
        // 1 M input, 100 k output, 2 M cache reads at GPT-5 Codex: 1.25 + 1.0 + 0.25.
        let mut s = session(
            Some("gpt-5-codex"),
            Some(tokens(1_000_000, 100_000, 2_000_000, 0)),
        );
        p.price(&mut s);
        assert_eq!(s.cost_basis, CostBasis::Estimated);
        assert!((s.cost_estimate_usd.unwrap() - 2.5).abs() < 1e-9);
        assert_eq!(s.cost(), s.cost_estimate_usd);

        let mut unknown = session(Some("mock-model"), Some(tokens(10, 10, 0, 0)));
        p.price(&mut unknown);
        assert_eq!(
            (unknown.cost_basis, unknown.cost()),
            (CostBasis::Unpriced, None)
        );

        let mut no_model = session(None, Some(tokens(10, 10, 0, 0)));
        p.price(&mut no_model);
        assert_eq!(no_model.cost_basis, CostBasis::Unpriced);

        let mut no_tokens = session(Some("gpt-5-codex"), None);
        p.price(&mut no_tokens);
        assert_eq!(
            (no_tokens.cost_basis, no_tokens.cost()),
            (CostBasis::None, None)
        );

        // The agent's own figure wins and is never replaced by an estimate.
        let mut recorded = session(Some("gpt-5-codex"), Some(tokens(1_000_000, 0, 0, 0)));
        recorded.cost_usd = Some(0.5);
        p.price(&mut recorded);
        assert_eq!(recorded.cost_basis, CostBasis::Recorded);
        assert_eq!(
            (recorded.cost(), recorded.cost_estimate_usd),
            (Some(0.5), None)
        );
    }

    #[test]
    fn overrides_replace_and_add_models() {
        let mine = Price {
            input: 1.0,
            output: 2.0,
            cache_read: None,
            cache_write: None,
        };
        let overrides = BTreeMap::from([
            ("mock-model".to_owned(), mine),
            ("GPT-5-Codex".to_owned(), mine),
        ]);
        let p = BUNDLED.with(&overrides);
        assert_eq!(p.lookup("mock-model"), Some(mine));
        assert_eq!(p.lookup("gpt-5-codex-20250915"), Some(mine));
        assert!(p.is_overridden("gpt-5-codex"));
        // A missing cache price charges cache tokens as input.
        assert!((mine.cost(&tokens(0, 0, 1_000_000, 1_000_000)) - 2.0).abs() < 1e-9);
        // The bundled table itself is unchanged.
        assert_ne!(BUNDLED.lookup("gpt-5-codex"), Some(mine));
    }
}
