//! Hostile and changing stores: the reader lists what it can, says what it could not read,
//! never panics or blocks, and a scan from its state reads only what changed.

use std::path::{Path, PathBuf};

use super::*;

fn fixture(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/cline")
        .join(version)
        .join("dot-cline")
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// A writable copy of both recorded generations in one root.
fn store() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("dot-cline");
    copy(&fixture("3.0.65"), &root);
    copy(&fixture("2.18.0"), &root);
    (tmp, root)
}

fn scan(root: &Path, prev: &ProviderState) -> ScanOutput {
    ClineProvider::new(vec![root.to_path_buf()])
        .scan(prev, &ScanProgress::default())
        .unwrap()
}

fn counts(out: &ScanOutput, id: &str) -> Counts {
    out.changed.iter().find(|s| s.id == id).unwrap().counts
}

const V3: &str = "1796568592650_62ic8";
const V2: &str = "1796568459073";

fn v3_messages(root: &Path) -> PathBuf {
    root.join(format!("data/sessions/{V3}/{V3}.messages.json"))
}

fn v2_messages(root: &Path) -> PathBuf {
    root.join(format!("data/tasks/{V2}/ui_messages.json"))
}

#[test]
fn both_generations_are_listed_from_one_root() {
    let (_tmp, root) = store();
    let out = scan(&root, &Vec::new());
    assert_eq!(out.changed.len(), 10, "6 sessions of 3.x, 4 tasks of 2.x");
    assert_eq!(out.diagnostics.items, vec![]);
    assert_eq!((counts(&out, V3).user, counts(&out, V3).assistant), (2, 5));
    assert_eq!((counts(&out, V2).user, counts(&out, V2).assistant), (2, 5));
}

#[test]
fn a_truncated_document_is_a_diagnostic_and_the_rest_is_listed() {
    let (_tmp, root) = store();
    for path in [v3_messages(&root), v2_messages(&root)] {
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    }
    let out = scan(&root, &Vec::new());
    assert_eq!(out.changed.len(), 10);
    // Listed from what could be read: no messages, its metadata still there.
    assert_eq!(counts(&out, V3), Counts::default());
    let v3 = out.changed.iter().find(|s| s.id == V3).unwrap();
    assert_eq!(v3.model.as_deref(), Some("mock-coder"));
    for path in [v3_messages(&root), v2_messages(&root)] {
        let said = out.diagnostics.items.iter().find(|d| d.path == path);
        assert!(
            said.is_some_and(|d| d.reason.contains("not a JSON document")),
            "{:?}",
            out.diagnostics
        );
    }
}

#[test]
fn invalid_utf8_is_repaired_not_fatal() {
    let (_tmp, root) = store();
    let path = v3_messages(&root);
    let text = std::fs::read(&path).unwrap();
    let at = text.windows(4).position(|w| w == b"beta").unwrap();
    let mut bad = text.clone();
    bad[at] = 0xff;
    std::fs::write(&path, bad).unwrap();
    let out = scan(&root, &Vec::new());
    assert_eq!((counts(&out, V3).user, counts(&out, V3).assistant), (2, 5));
    let session = out.changed.iter().find(|s| s.id == V3).unwrap();
    let t = ClineProvider::new(vec![root.clone()])
        .load(session)
        .unwrap();
    assert!(serde_json::to_string(&t.messages)
        .unwrap()
        .contains("\u{fffd}eta"));
}

#[test]
fn a_corrupt_index_database_changes_nothing() {
    let (_tmp, root) = store();
    let db = root.join("data/db/sessions.db");
    std::fs::write(&db, b"not a database at all").unwrap();
    let out = scan(&root, &Vec::new());
    assert_eq!(out.changed.len(), 10);
    assert_eq!(out.diagnostics.items, vec![]);
}

#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_a_file_never_blocks() {
    let (_tmp, root) = store();
    let path = v2_messages(&root);
    std::fs::remove_file(&path).unwrap();
    let c = std::ffi::CString::new(path.to_string_lossy().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // A 3.x messages file that is a folder is no file of a session.
    std::fs::remove_file(v3_messages(&root)).unwrap();
    std::fs::create_dir(v3_messages(&root)).unwrap();
    let out = scan(&root, &Vec::new());
    assert!(out.changed.iter().all(|s| s.id != V3));
    assert!(out
        .diagnostics
        .items
        .iter()
        .any(|d| d.path == path && d.reason.contains("not a regular file")));
}

#[test]
fn a_rescan_reads_only_what_changed() {
    let (_tmp, root) = store();
    let first = scan(&root, &Vec::new());
    let again = scan(&root, &first.state);
    assert!(again.changed.is_empty() && again.removed.is_empty());
    // A changed task history describes every 2.x task again; a folder gone is removed.
    let history = root.join("data/state/taskHistory.json");
    let mut text = std::fs::read_to_string(&history).unwrap();
    text.push('\n');
    std::fs::write(&history, text).unwrap();
    std::fs::remove_dir_all(root.join(format!("data/sessions/{V3}"))).unwrap();
    let third = scan(&root, &again.state);
    let mut changed: Vec<&str> = third.changed.iter().map(|s| s.id.as_str()).collect();
    changed.sort();
    assert_eq!(
        changed,
        [
            "1796568459073",
            "1796568500313",
            "1796568536556",
            "1796568553202"
        ]
    );
    let removed: Vec<&str> = third.removed.iter().map(|k| k.id.as_str()).collect();
    assert_eq!(removed, [V3]);
}

#[test]
fn a_large_output_is_a_preview_and_its_blob_is_whole() {
    let (_tmp, root) = store();
    let out = scan(&root, &Vec::new());
    let session = out
        .changed
        .iter()
        .find(|s| s.id == "1796568629496_hmg3q")
        .unwrap();
    let p = ClineProvider::new(vec![root.clone()]);
    let t = p.load(session).unwrap();
    let tool = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .find_map(|part| match part {
            agent_sessions_model::Part::Tool(tool) => Some(tool),
            _ => None,
        })
        .unwrap();
    assert!(tool.output_truncated);
    let whole = p
        .blob(session, tool.output_blob.as_deref().unwrap())
        .unwrap();
    assert!(whole.len() > parts::PREVIEW_BYTES);
    assert!(String::from_utf8(whole)
        .unwrap()
        .trim_end()
        .ends_with("\n30000"));
}

/// Cline's default stores on each system: the CLI's `~/.cline`, then the VS Code extension's
/// folder in VS Code's `globalStorage` (`~/.config/Code` on Linux, `~/Library/Application
/// Support/Code` on macOS, `%APPDATA%\Code` = `AppData\Roaming\Code` under the home on Windows).
#[test]
fn the_extension_folder_is_a_default_store_on_every_system() {
    let user = ["Code", "User", "globalStorage", "saoudrizwan.claude-dev"];
    for (os, vscode) in [
        (Os::Linux, &[".config"][..]),
        (Os::Macos, &["Library", "Application Support"][..]),
        (Os::Windows, &["AppData", "Roaming"][..]),
    ] {
        let extension: Vec<&str> = vscode.iter().chain(&user).copied().collect();
        assert_eq!(
            AGENT.home_stores(os),
            [&[".cline"][..], &extension[..]],
            "{os:?}"
        );
    }
    // Every other agent keeps one store (or none).
    for agent in crate::registry::AGENTS.iter().filter(|a| a.kind != KIND) {
        assert!(agent.home_stores(Os::Linux).len() <= 1, "{}", agent.label);
    }
}

/// A session written to just now is live while a `cline` process runs; an old one is not.
#[cfg(target_os = "linux")]
#[test]
fn sessions_are_live_while_cline_runs_and_they_were_just_written() {
    crate::process::live_while_running(&AGENT);
}

/// A task list entry as Cline might have written it: its keys in `order` (a rotation of
/// Cline's), `spaced` with JSON whitespace, with non-ASCII text.
fn entry_text(id: u16, order: usize, spaced: bool) -> String {
    let mut keys = [
        format!("\"id\":\"{id}\""),
        format!("\"ts\":{}", 1_700_000_000_000u64 + u64::from(id)),
        "\"task\":\"naïve — задача \\\"q\\\" ✓\"".to_owned(),
        "\"tokensIn\":5".to_owned(),
        "\"totalCost\":0.25".to_owned(),
    ];
    let n = keys.len();
    keys.rotate_left(order % n);
    let sep = if spaced { ", " } else { "," };
    format!("{{{}}}", keys.join(sep))
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(64))]

    /// Any task list (entries in any key order, spaced or not): trashing some of its tasks
    /// leaves every other entry's bytes in their order, and appending restored entries keeps
    /// the list's bytes before them; the list is a JSON array of the expected ids throughout.
    #[test]
    fn a_task_list_keeps_its_other_entries_byte_for_byte(
        list in proptest::collection::vec((0usize..5, proptest::bool::ANY, proptest::bool::ANY), 0..12),
        spaced_list in proptest::bool::ANY,
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let history = index::history_path(tmp.path());
        std::fs::create_dir_all(history.parent().unwrap()).unwrap();
        let entries: Vec<(String, String, bool)> = list
            .iter()
            .enumerate()
            .map(|(i, (order, spaced, goes))| {
                (i.to_string(), entry_text(i as u16, *order, *spaced), *goes)
            })
            .collect();
        let all: Vec<&str> = entries.iter().map(|(_, t, _)| t.as_str()).collect();
        let text = match spaced_list {
            true => format!("[\n  {}\n]\n", all.join(",\n  ")),
            false => format!("[{}]", all.join(",")),
        };
        std::fs::write(&history, &text).unwrap();
        let gone: Vec<String> = entries.iter().filter(|e| e.2).map(|e| e.0.clone()).collect();
        let kept: Vec<&str> = entries.iter().filter(|e| !e.2).map(|e| e.1.as_str()).collect();

        index::delete(&history, &gone).unwrap();
        let now = std::fs::read_to_string(&history).unwrap();
        let raw: Vec<Box<serde_json::value::RawValue>> = serde_json::from_str(&now).unwrap();
        let raw: Vec<&str> = raw.iter().map(|r| r.get()).collect();
        proptest::prop_assert_eq!(&raw, &kept);

        let new = serde_json::json!({"id": "restored", "ts": 1, "task": "t"});
        index::append(&history, std::slice::from_ref(&new)).unwrap();
        let after = std::fs::read_to_string(&history).unwrap();
        proptest::prop_assert!(after.starts_with(now.trim_end().strip_suffix(']').unwrap()));
        let list: Vec<serde_json::Value> = serde_json::from_str(&after).unwrap();
        proptest::prop_assert_eq!(list.len(), kept.len() + 1);
        proptest::prop_assert_eq!(&list[kept.len()], &new);
    }
}

/// A task list that is not Cline's array of tasks (another shape, an entry that is not a task,
/// an id that is not a string, torn, a BOM) is neither cut nor appended to: each edit is
/// refused with a reason, and the file stays as it was. An entry nested past any parser's
/// depth is read without recursion, and goes when its id goes.
#[test]
fn a_task_list_that_is_not_an_array_is_left_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let history = index::history_path(tmp.path());
    std::fs::create_dir_all(history.parent().unwrap()).unwrap();
    for text in [
        "{\"id\":\"1\"}",
        "[{\"id\":\"1\"}",
        "[{\"id\":\"1\"}] trailing",
        "[{\"id\":1}]",
        "[\"1\"]",
        "\u{feff}[]",
    ] {
        std::fs::write(&history, text).unwrap();
        let e = index::delete(&history, &["1".to_owned()]).expect_err(text);
        assert!(e.contains("not Cline's list of tasks"), "{e}");
        let new = serde_json::json!({"id": "2"});
        let e = index::append(&history, &[new]).unwrap_err();
        assert!(e.contains("not Cline's list of tasks"), "{e}");
        assert_eq!(std::fs::read_to_string(&history).unwrap(), text);
    }
    let deep = format!(
        "[{{\"id\":\"1\",\"x\":{}{}}},{{\"id\":\"2\"}}]",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    std::fs::write(&history, &deep).unwrap();
    index::delete(&history, &["1".to_owned()]).unwrap();
    assert_eq!(
        std::fs::read_to_string(&history).unwrap(),
        "[{\"id\":\"2\"}]"
    );
}
