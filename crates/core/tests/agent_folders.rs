//! An agent is one folder (docs/architecture.md, "Adding an agent"): outside
//! `crates/providers/src/<agent>/`, an agent's name appears in the code of three files only —
//! the `ProviderKind` enum, the registry's list and the providers' module list. Everything else
//! (the action engines, the catalog, the front ends) asks the registry, so an agent added
//! there is handled everywhere and no engine has an arm per agent.
//!
//! Counted on code lines of non-test sources: comments, `#[cfg(test)]` items and files only a
//! test module declares are left out, as are the test-only crates (bench, test-support).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use agent_sessions_core::provider::registry::AGENTS;

/// The files that may name every agent.
const ALLOWED: &[&str] = &[
    "crates/model/src/lib.rs",
    "crates/providers/src/registry.rs",
    "crates/providers/src/lib.rs",
];

/// Trees of sources that are read; test and bench trees inside them are skipped.
/// Identifiers of other products that hold an agent's name without being that agent's
/// knowledge: Cline's VS Code extension is `saoudrizwan.claude-dev`. Removed from a line of the
/// folder named before it is counted.
const BORROWED: &[(&str, &str)] = &[("crates/providers/src/cline/", "saoudrizwan.claude-dev")];

const TREES: &[&str] = &["crates", "src-tauri/src"];
const SKIPPED: &[&str] = &[
    "tests",
    "benches",
    "examples",
    "target",
    "bench",
    "test-support",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !SKIPPED.contains(&name.as_str()) {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") && name != "bindings.rs" {
            out.push(path);
        }
    }
}

/// Files declared by their parent as `#[cfg(test)] mod name;`.
fn test_modules(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for pair in lines.windows(2) {
            let [attr, item] = pair else { continue };
            if !(attr.starts_with("#[cfg(") && attr.contains("test") && !attr.contains("not(test"))
            {
                continue;
            }
            let Some(name) = item
                .trim_start_matches("pub ")
                .strip_prefix("mod ")
                .and_then(|m| m.strip_suffix(';'))
            else {
                continue;
            };
            let parent = f.parent().unwrap();
            let base = match f.file_name().and_then(|n| n.to_str()) {
                Some("lib.rs" | "mod.rs" | "main.rs") => parent.to_path_buf(),
                _ => f.with_extension(""),
            };
            out.insert(base.join(format!("{name}.rs")));
            out.insert(base.join(name).join("mod.rs"));
        }
    }
    out
}

/// The code lines of a source: comments dropped, and nothing from the first test item on.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_block = false;
    for (i, line) in text.lines().enumerate() {
        let s = line.trim();
        if s.starts_with("#[cfg(") && s.contains("test") && !s.contains("not(test") {
            break;
        }
        if in_block {
            in_block = !s.contains("*/");
            continue;
        }
        if s.starts_with("/*") {
            in_block = !s.contains("*/");
            continue;
        }
        if s.starts_with("//") || s.starts_with('*') {
            continue;
        }
        let code = match line.find(" //") {
            Some(at) => &line[..at],
            None => line,
        };
        out.push((i + 1, code.to_owned()));
    }
    out
}

#[test]
fn outside_its_folder_an_agent_is_named_only_by_the_enum_and_the_registry() {
    let root = workspace();
    let mut files = Vec::new();
    for tree in TREES {
        sources(&root.join(tree), &mut files);
    }
    let tests = test_modules(&files);
    let mut faults = Vec::new();
    for agent in AGENTS {
        let name = agent.name();
        let own = root.join("crates/providers/src").join(name);
        for f in files
            .iter()
            .filter(|f| !f.starts_with(&own) && !tests.contains(*f))
        {
            let rel = f
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if ALLOWED.contains(&rel.as_str()) {
                continue;
            }
            let text = std::fs::read_to_string(f).unwrap();
            for (n, line) in code_lines(&text) {
                let mut line = line.to_lowercase();
                for (_, id) in BORROWED.iter().filter(|(d, _)| rel.starts_with(d)) {
                    line = line.replace(id, "");
                }
                if line.contains(name) {
                    faults.push(format!("{name}: {rel}:{n}: {}", line.trim()));
                }
            }
        }
    }
    assert!(
        faults.is_empty(),
        "agent knowledge outside the agent's folder (move it into crates/providers/src/<agent>/ \
         and reach it through the registry):\n{}",
        faults.join("\n")
    );
}

#[test]
fn the_count_sees_a_name_in_code_and_not_in_comments_or_tests() {
    let text = "// claude\nlet a = \"claude\"; // codex\n#[cfg(test)]\nmod t { codex }";
    let lines = code_lines(text);
    assert_eq!(lines.len(), 1);
    assert!(lines[0].1.contains("claude") && !lines[0].1.contains("codex"));
}
