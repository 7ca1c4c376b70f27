//! `scan`'s filter and sort flags narrow and order the same list the unfiltered scan gives,
//! checked against that list on fixture stores (Claude with subagents, Codex) with several
//! models.

mod common;

use serde_json::Value;

use common::testdata as store;

fn scan(extra: &[&str]) -> (bool, Value, String) {
    let cache = tempfile::tempdir().unwrap();
    let out = common::cli(cache.path(), &["scan", "--json", "--claude-root"])
        .arg(store("claude/2.1.332/dot-claude"))
        .arg("--codex-root")
        .arg(store("codex/0.140.0/dot-codex"))
        .args(extra)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.success(),
        v,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ids(v: &Value) -> Vec<String> {
    v["data"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect()
}

fn sessions(v: &Value) -> Vec<Value> {
    v["data"]["sessions"].as_array().unwrap().clone()
}

#[test]
fn each_flag_keeps_exactly_the_sessions_it_names() {
    let (ok, all, _) = scan(&[]);
    assert!(ok);
    let all = sessions(&all);
    assert!(all.len() >= 4, "the fixture has sessions to filter");
    let expect = |keep: &dyn Fn(&Value) -> bool| -> Vec<String> {
        all.iter()
            .filter(|s| keep(s))
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect()
    };

    let parents: Vec<&str> = all.iter().filter_map(|s| s["parent_id"].as_str()).collect();
    let with_children = expect(&|s| parents.contains(&s["id"].as_str().unwrap()));
    assert!(
        !with_children.is_empty(),
        "the fixture has a session with subagents"
    );
    assert_eq!(ids(&scan(&["--has-subagents"]).1), with_children);

    let model = all
        .iter()
        .find_map(|s| s["model"].as_str())
        .unwrap()
        .to_owned();
    let of_model = expect(&|s| s["model"].as_str() == Some(&model));
    assert!(
        of_model.len() < all.len(),
        "not every session is of {model}"
    );
    assert_eq!(ids(&scan(&["--model", &model]).1), of_model);

    // A day range around the middle session: inclusive, by the last update's UTC day.
    let mut days: Vec<&str> = all
        .iter()
        .map(|s| &s["updated_at"].as_str().unwrap()[..10])
        .collect();
    days.sort();
    let mid = days[days.len() / 2];
    let since = expect(&|s| &s["updated_at"].as_str().unwrap()[..10] >= mid);
    let until = expect(&|s| &s["updated_at"].as_str().unwrap()[..10] <= mid);
    assert_eq!(ids(&scan(&["--since", mid]).1), since);
    assert_eq!(ids(&scan(&["--until", mid]).1), until);
    let both = expect(&|s| &s["updated_at"].as_str().unwrap()[..10] == mid);
    assert_eq!(ids(&scan(&["--since", mid, "--until", mid]).1), both);

    // Combined: AND.
    let combined = expect(&|s| {
        s["model"].as_str() == Some(&model) && &s["updated_at"].as_str().unwrap()[..10] >= mid
    });
    assert_eq!(ids(&scan(&["--model", &model, "--since", mid]).1), combined);

    let codex = expect(&|s| s["provider"] == "codex");
    assert!(!codex.is_empty() && codex.len() < all.len());
    assert_eq!(ids(&scan(&["--agent", "codex"]).1), codex);
    let archived = expect(&|s| s["archived"] == true);
    assert_eq!(ids(&scan(&["--archived"]).1), archived);
    // Nothing runs an agent here: no session is live.
    assert!(ids(&scan(&["--live"]).1).is_empty());
}

#[test]
fn sort_orders_largest_first() {
    let total = |s: &Value| {
        let t = &s["tokens"];
        ["input", "output", "cache_read", "cache_write"]
            .iter()
            .map(|k| t[k].as_u64().unwrap_or(0))
            .sum::<u64>()
    };
    let messages = |s: &Value| {
        s["counts"]["user"].as_u64().unwrap() + s["counts"]["assistant"].as_u64().unwrap()
    };
    let (_, v, _) = scan(&["--sort", "tokens"]);
    let list: Vec<u64> = sessions(&v).iter().map(total).collect();
    assert!(list.windows(2).all(|w| w[0] >= w[1]), "{list:?}");
    assert!(
        list.first() > list.last(),
        "the fixture's sessions differ in tokens"
    );
    let (_, v, _) = scan(&["--sort", "messages"]);
    let list: Vec<u64> = sessions(&v).iter().map(messages).collect();
    assert!(list.windows(2).all(|w| w[0] >= w[1]), "{list:?}");
    let (_, v, _) = scan(&["--sort", "created"]);
    let list: Vec<String> = sessions(&v)
        .iter()
        .map(|s| s["created_at"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(list.windows(2).all(|w| w[0] >= w[1]), "{list:?}");
}

#[test]
fn bad_values_are_refused_with_a_reason() {
    let (ok, _, err) = scan(&["--since", "last week"]);
    assert!(!ok);
    assert!(err.contains("last week"), "{err}");
    let (ok, _, err) = scan(&["--sort", "size"]);
    assert!(!ok);
    assert!(err.contains("cost"), "{err}");
}
