//! The crate graph keeps the layers the design names (docs/architecture.md, "Layers"): the model
//! depends on nothing of ours, the providers on the model only, the core on both, and only front
//! ends depend on the core. Cargo enforces each edge once it is absent from a manifest (a crate
//! cannot import what it does not depend on); this test keeps the edges absent. It reads every
//! workspace member's Cargo.toml, including dev-, build- and per-target dependencies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, TableLike};

/// Every workspace crate and its layer: a crate may depend only on crates of lower layers.
const LAYERS: &[(&str, u8)] = &[
    ("agent-sessions-model", 0),
    ("agent-sessions-providers", 1),
    ("agent-sessions-core", 2),
    // The remote layer: the core's calls served and called over a byte stream.
    ("agent-sessions-remote", 3),
    // Front ends.
    ("agent-sessions-cli", 4),
    ("agent-sessions", 4),
    ("agent-sessions-bench", 4),
];

/// Test-only crates: above the providers (they read fixtures through the registry), below the
/// core, and only ever a dev-dependency, so no build of a front end contains them.
const TEST_ONLY: &[&str] = &["agent-sessions-test-support"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &Path) -> DocumentMut {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The package names a dependency table names (a renamed dependency by its `package`).
fn names(table: &dyn TableLike, out: &mut BTreeSet<String>) {
    for (key, item) in table.iter() {
        let package = item
            .as_table_like()
            .and_then(|t| t.get("package"))
            .and_then(Item::as_str);
        out.insert(package.unwrap_or(key).to_owned());
    }
}

/// Every package a manifest depends on, in any section.
fn dependencies(doc: &DocumentMut) -> BTreeSet<String> {
    dependencies_in(
        doc,
        &["dependencies", "dev-dependencies", "build-dependencies"],
    )
}

/// The packages a manifest depends on in these sections (also per target).
fn dependencies_in(doc: &DocumentMut, sections: &[&str]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut tables: Vec<&dyn TableLike> = vec![doc.as_table()];
    if let Some(targets) = doc.get("target").and_then(Item::as_table_like) {
        tables.extend(targets.iter().filter_map(|(_, t)| t.as_table_like()));
    }
    for table in tables {
        for &section in sections {
            if let Some(deps) = table.get(section).and_then(Item::as_table_like) {
                names(deps, &mut out);
            }
        }
    }
    out
}

/// Each workspace member's package name and the workspace packages it depends on.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    graph_of(dependencies)
}

/// The same, counting only what a build of the crate itself contains (no dev-dependencies).
fn built_graph() -> BTreeMap<String, BTreeSet<String>> {
    graph_of(|doc| dependencies_in(doc, &["dependencies", "build-dependencies"]))
}

fn graph_of(
    dependencies: impl Fn(&DocumentMut) -> BTreeSet<String>,
) -> BTreeMap<String, BTreeSet<String>> {
    let root = read(&workspace().join("Cargo.toml"));
    let members = root["workspace"]["members"]
        .as_array()
        .expect("workspace.members is a list");
    let mut manifests = BTreeMap::new();
    for member in members {
        let dir = member.as_str().expect("a member is a path");
        let doc = read(&workspace().join(dir).join("Cargo.toml"));
        let name = doc["package"]["name"].as_str().expect("package.name");
        manifests.insert(name.to_owned(), dependencies(&doc));
    }
    let ours: BTreeSet<String> = manifests.keys().cloned().collect();
    manifests
        .into_iter()
        .map(|(name, deps)| (name, deps.intersection(&ours).cloned().collect()))
        .collect()
}

fn layer(name: &str) -> u8 {
    if TEST_ONLY.contains(&name) {
        return 2; // with the core: above the providers, and the core's tests may use it
    }
    LAYERS
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| {
            panic!("{name} is in no layer: add it to LAYERS and to docs/architecture.md")
        })
        .1
}

#[test]
fn every_crate_depends_only_on_lower_layers() {
    let graph = graph();
    // The table names exactly the workspace's crates (a renamed or dropped crate shows here).
    let listed: BTreeSet<String> = LAYERS
        .iter()
        .map(|(n, _)| *n)
        .chain(TEST_ONLY.iter().copied())
        .map(str::to_owned)
        .collect();
    assert_eq!(graph.keys().cloned().collect::<BTreeSet<_>>(), listed);
    for (name, deps) in &graph {
        for dep in deps {
            // A test-only crate sits with the core, whose tests use it: the one equal layer.
            let allowed = layer(dep) < layer(name)
                || (TEST_ONLY.contains(&dep.as_str()) && layer(name) >= layer(dep));
            assert!(
                allowed,
                "{name} (layer {}) depends on {dep} (layer {}): a crate may use only lower layers",
                layer(name),
                layer(dep)
            );
        }
    }
}

#[test]
fn the_model_and_the_providers_stand_alone() {
    let graph = graph();
    assert_eq!(graph["agent-sessions-model"], BTreeSet::new());
    assert_eq!(
        graph["agent-sessions-providers"],
        BTreeSet::from(["agent-sessions-model".to_owned()])
    );
    let dependents: BTreeSet<&str> = graph
        .iter()
        .filter(|(_, deps)| deps.contains("agent-sessions-core"))
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(
        dependents,
        BTreeSet::from([
            "agent-sessions-remote",
            "agent-sessions-cli",
            "agent-sessions",
            "agent-sessions-bench"
        ])
    );
}

/// A test-only crate is no crate's normal or build dependency (what it may use is checked with
/// the layers: nothing above the providers, so the core's tests use it without a second core).
#[test]
fn test_only_crates_are_dev_dependencies_only() {
    let built = built_graph();
    for name in TEST_ONLY {
        for (user, deps) in &built {
            assert!(
                !deps.contains(*name),
                "{user} depends on {name} outside [dev-dependencies]: it is for tests only"
            );
        }
    }
    // It is used: by the core's, the CLI's, the remote's and the app's tests.
    let graph = graph();
    let users: BTreeSet<&str> = graph
        .iter()
        .filter(|(_, deps)| deps.contains(TEST_ONLY[0]))
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(
        users,
        BTreeSet::from([
            "agent-sessions-core",
            "agent-sessions-cli",
            "agent-sessions-remote",
            "agent-sessions"
        ])
    );
}

/// The reader sees every section a dependency can hide in: a dev-dependency of the providers on
/// the core (which Cargo would build) is caught as surely as a normal one.
#[test]
fn dependencies_in_every_section_are_read() {
    let doc: DocumentMut = r#"
[package]
name = "x"
[dependencies]
a = "1"
[dev-dependencies]
renamed = { package = "b", path = "../b" }
[build-dependencies]
c = "1"
[target.'cfg(unix)'.dependencies]
d = "1"
[target.'cfg(windows)'.dev-dependencies.e]
version = "1"
"#
    .parse()
    .unwrap();
    let want: BTreeSet<String> = ["a", "b", "c", "d", "e"].map(str::to_owned).into();
    assert_eq!(dependencies(&doc), want);
}

/// Within the core, the index takes the providers it reads, never the catalog (a service above
/// it): no index module names it. Cargo cannot check a rule inside one crate, so this does.
#[test]
fn the_index_takes_providers_not_the_catalog() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/index");
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            assert!(
                !line.contains("catalog::") && !line.contains("Catalog"),
                "{}:{}: {line}",
                path.display(),
                i + 1
            );
        }
        read += 1;
    }
    assert!(read >= 4, "{read} files in {}", dir.display());
}
