//! The TypeScript form of every type the app's commands send or take, generated from the Rust
//! types (ts-rs) into `ui/src/lib/generated.ts`, which is checked in: `cargo test` fails when
//! the file differs from what the types say, so the UI cannot drift from the backend
//! unnoticed. `UPDATE_BINDINGS=1 cargo test -p agent-sessions bindings` rewrites it.

use std::any::TypeId;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use agent_sessions_core::model;
use agent_sessions_core::provider::registry::AGENTS;
use agent_sessions_core::{actions, blob, bundle, config, health, index, service};
use agent_sessions_core::{live, raw, stats, view};
use ts_rs::{Config, TypeVisitor, TS};

use crate::commands;

const REGENERATE: &str =
    "run `UPDATE_BINDINGS=1 cargo test -p agent-sessions bindings` to regenerate";

/// The declarations: each type after the types it uses, each once.
struct Decls {
    cfg: Config,
    /// By name: ts-rs visits dependencies in no fixed order, a file must not change.
    text: BTreeMap<String, String>,
    /// Each name declared, with its declaration.
    names: BTreeMap<String, String>,
    seen: BTreeSet<TypeId>,
}

impl TypeVisitor for Decls {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // Only named types are declared; `Option`, `Vec` and primitives are written inline.
        if T::output_path().is_none() || !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        T::visit_dependencies(self);
        let name = T::ident(&self.cfg);
        let decl = format!("export {}\n", T::decl(&self.cfg));
        // ts-rs declares `JsonValue` for more than one serde_json type, alike.
        match self.names.get(&name) {
            Some(known) if *known == decl => return,
            Some(_) => {
                panic!("two types are named {name} in TypeScript: give one #[ts(rename = \"…\")]")
            }
            None => self.names.insert(name, decl.clone()),
        };
        let docs = T::docs().unwrap_or_default();
        self.text.insert(T::ident(&self.cfg), docs + &decl);
    }
}

/// Every type a command returns or takes, and the events' payloads; what they use comes along.
fn generated() -> String {
    let mut d = Decls {
        // Counts and sizes stay far below 2^53: serde_json sends them as numbers.
        cfg: Config::new().with_large_int("number"),
        text: BTreeMap::new(),
        names: BTreeMap::new(),
        seen: BTreeSet::new(),
    };
    d.visit::<model::SessionMeta>();
    d.visit::<commands::SessionRef>();
    d.visit::<commands::CmdError>();
    // The list, transcripts, search, status and the scan's progress.
    d.visit::<commands::sessions::SessionList>();
    d.visit::<commands::sessions::SessionChanges>();
    d.visit::<commands::sessions::Status>();
    d.visit::<service::Progress>();
    d.visit::<view::TranscriptPage>();
    d.visit::<raw::RawRecords>();
    d.visit::<live::follow::Update>();
    d.visit::<index::Hit>();
    d.visit::<commands::search::Found>();
    d.visit::<view::ResumeView>();
    d.visit::<view::TranslationView>();
    // Settings, terminals, export, handoff.
    d.visit::<commands::settings::SettingsView>();
    d.visit::<commands::settings::Change>();
    d.visit::<commands::terminal::Terminals>();
    d.visit::<commands::terminal::Opened>();
    d.visit::<commands::hosts::HostsView>();
    d.visit::<agent_sessions_core::mcp_config::McpSetup>();
    d.visit::<commands::handoff::Continued>();
    d.visit::<commands::handoff::HandoffText>();
    d.visit::<actions::export::Format>();
    d.visit::<actions::export::Options>();
    d.visit::<commands::export::Exported>();
    // Bundles, trash.
    d.visit::<commands::bundle::BundleSaved>();
    d.visit::<commands::bundle::BundleOpened>();
    d.visit::<bundle::restore::Preview>();
    d.visit::<commands::bundle::BundleRestored>();
    d.visit::<actions::trash::Plan>();
    d.visit::<actions::trash::Done>();
    // Stats, diagnostics, blobs.
    d.visit::<stats::Stats>();
    d.visit::<health::Health>();
    d.visit::<blob::BlobView>();
    format!(
        "// Generated from the Rust types (src-tauri/src/bindings.rs): do not edit; {REGENERATE}.\n\n{}",
        d.text.into_values().collect::<String>()
    )
}

fn lib_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/lib")
}

/// Writes `files` into a scratch folder and names those that differ from the ones in `dir`;
/// with `UPDATE_BINDINGS=1`, copies them into `dir` instead.
fn stale(dir: &Path, files: &[(&str, String)]) -> Vec<String> {
    let scratch = tempfile::tempdir().unwrap();
    let mut stale = Vec::new();
    for (name, text) in files {
        let fresh = scratch.path().join(name);
        std::fs::write(&fresh, text).unwrap();
        let checked_in = dir.join(name);
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::copy(&fresh, &checked_in).unwrap();
        } else if std::fs::read(&checked_in).ok() != std::fs::read(&fresh).ok() {
            stale.push(checked_in.display().to_string());
        }
    }
    stale
}

/// The agent registry as the UI's agent list: names, labels, programs, badge colours and why
/// an agent lacks an action the UI offers (shown unavailable with that reason).
fn agents() -> String {
    let rows: Vec<String> = AGENTS
        .iter()
        .map(|a| {
            let [light, dark] = a.colours;
            let row = serde_json::json!({
                "kind": a.name(), "label": a.label, "program": a.program,
                "colours": { "light": light, "dark": dark },
                "handoff_unavailable": a.launch.handoff.get().err(),
                "trash_unavailable": a.trash.trash.get().err(),
                "delete_unavailable": a.trash.permanent.get().err(),
                "looks_near": (a.provider)(Vec::new()).looks_near(),
            });
            format!("  {row},\n")
        })
        .collect();
    format!(
        "// Generated from the agent registry (crates/providers/src/registry.rs) by \
         src-tauri/src/bindings.rs: do not edit; {REGENERATE}.\n\n\
         import type {{ ProviderKind }} from \"./generated\";\n\n\
         /** One agent: `colours` are a badge's [background, text], per theme. */\n\
         export interface Agent {{\n  kind: ProviderKind;\n  label: string;\n  program: string;\n  \
         colours: {{ light: [string, string]; dark: [string, string] }};\n  \
         /** Why \"Continue in…\" cannot start this agent; null when it can. */\n  \
         handoff_unavailable: string | null;\n  \
         /** Why its sessions cannot be moved to the trash; null when they can. */\n  \
         trash_unavailable: string | null;\n  \
         /** Why its sessions cannot be deleted for good; null when they can. */\n  \
         delete_unavailable: string | null;\n  \
         /** Whether it keeps sessions where the user works (Aider's history in each project), \
         so its scan also looks in the directories other agents' sessions ran in. */\n  \
         looks_near: boolean;\n}}\n\n\
         /** Every agent, in the order lists show them. */\n\
         export const AGENTS: readonly Agent[] = [\n{}];\n",
        rows.concat()
    )
}

fn bindings() -> Vec<(&'static str, String)> {
    vec![("generated.ts", generated()), ("agents.ts", agents())]
}

#[test]
fn bindings_match_the_rust_types() {
    let stale = stale(&lib_dir(), &bindings());
    assert!(
        stale.is_empty(),
        "{stale:?} differ from the Rust types: {REGENERATE}"
    );
}

#[test]
fn a_file_that_differs_is_named() {
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let files = bindings();
    for (name, text) in &files {
        // The UI's copies with one field more than the Rust type has, and one agent less.
        let edited = text
            .replacen(
                "export type SessionMeta = {",
                "export type SessionMeta = { extra: string, ",
                1,
            )
            .replacen("\"kind\":\"codex\"", "\"kind\":\"gone\"", 1);
        assert_ne!(&edited, text, "{name} is what the test expects");
        std::fs::write(dir.path().join(name), edited).unwrap();
    }
    let named = stale(dir.path(), &files);
    assert_eq!(named.len(), 2, "{named:?}");
    assert!(named[0].ends_with("generated.ts"));
}

/// The places that list agents, for every agent of the registry: what "Adding an agent" in
/// docs/architecture.md asks for. (The bench's generator has its own test in crates/bench.)
#[test]
fn every_agent_is_in_every_place_that_lists_agents() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |path: &str| std::fs::read_to_string(repo.join(path)).unwrap();
    let conf = read("src-tauri/tauri.conf.json");
    // The CLI's `--<name>-root` flags, config.toml's keys, `Roots` and `Settings` are made from
    // the registry (crates/cli/tests/cli.rs checks each agent's flag works).
    let e2e = read("tests/e2e/run.py");
    let docs = read("docs/architecture.md");
    let checklist = docs
        .split("\n## Adding an agent\n")
        .nth(1)
        .expect("docs/architecture.md has an \"Adding an agent\" section");
    for place in [
        "registry.rs",
        "ProviderKind",
        "testdata/",
        "corpus.rs",
        "UPDATE_BINDINGS",
    ] {
        assert!(checklist.contains(place), "the checklist names {place}");
    }
    let testdata = repo.join("testdata");
    let demo = crate::state::demo_roots(&testdata);
    for agent in AGENTS {
        let name = agent.name();
        // Fixtures: at least one version with the agent's store, which is also the demo store.
        assert!(
            !demo.get(agent.kind).is_empty(),
            "testdata/{name}/<version>/{} is missing",
            agent.fixture_store
        );
        let resource = format!("\"../testdata/{name}\": \"demo/{name}\"");
        assert!(
            conf.contains(&resource),
            "tauri.conf.json bundles {resource}"
        );
        assert!(
            agents().contains(&format!("\"kind\":\"{name}\"")),
            "agents.ts lists {name}"
        );
        for key in ["enabled", "roots"] {
            let key = format!("providers.{name}.{key}");
            assert!(
                config::KEYS.iter().any(|k| k.key == key),
                "config.toml has {key}"
            );
        }
        assert!(
            e2e.contains(&format!("\"{name}\"")),
            "the e2e counts {name}'s sessions"
        );
    }
}
