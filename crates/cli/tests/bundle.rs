//! `agent-sessions-cli bundle export|inspect`: a bundle written private under its title (or
//! `-o`), never into an agent's store, inspected with every file checked, and a damaged one
//! refused with exit code 2.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{copy_dir as copy, json_of, testdata};

/// The CLI with a cache of its own, no real home, and `args` (roots included).
fn cli(cwd: &Path, args: &[&str]) -> Output {
    common::cli(&cwd.join(".cache"), args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

#[test]
fn export_writes_a_private_bundle_named_after_the_title_and_inspect_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = testdata("claude/2.1.332/dot-claude");
    let root = root.to_str().unwrap();
    let out = cli(
        dir.path(),
        &[
            "--claude-root",
            root,
            "bundle",
            "export",
            "3783a6bc",
            "--json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    let path = PathBuf::from(v["data"]["path"].as_str().unwrap());
    assert_eq!(
        path.file_name().unwrap(),
        "SUBAGENT-please-delegate-counting-lines-in-main-py.agent-session.zip"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let m = &v["data"]["manifest"];
    assert_eq!(m["mode"], "complete");
    assert_eq!(m["subagents"][0]["id"], "agent-ab351964a1d85ae3b");
    // Text: the summary and the warning that it can hold secrets.
    let text = cli(
        dir.path(),
        &[
            "--claude-root",
            root,
            "bundle",
            "export",
            "3783a6bc",
            "-o",
            "again.zip",
        ],
    );
    let said = String::from_utf8_lossy(&text.stdout);
    assert!(said.contains("can contain secrets"), "{said}");
    // Inspect: the same manifest, checked.
    let out = cli(
        dir.path(),
        &["bundle", "inspect", path.to_str().unwrap(), "--json"],
    );
    assert!(out.status.success());
    let i = json_of(&out);
    assert_eq!(i["data"]["manifest"], *m);
    assert_eq!(i["data"]["sha256"].as_str().unwrap().len(), 64);
    // What it unpacks to: every file the manifest lists, and the manifest itself.
    let unpacked = i["data"]["unpacked"].as_u64().unwrap();
    let files: u64 = m["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["size"].as_u64().unwrap())
        .sum();
    let manifest_size = {
        let mut zip = zip::ZipArchive::new(std::fs::File::open(&path).unwrap()).unwrap();
        let size = zip.by_name("manifest.json").unwrap().size();
        size
    };
    assert_eq!(unpacked, files + manifest_size);
    let text = cli(dir.path(), &["bundle", "inspect", path.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&text.stdout);
    assert!(said.contains("every file matches its manifest"), "{said}");
    assert!(
        said.contains(&format!("unpacks to {unpacked} bytes")),
        "{said}"
    );
    assert!(said.contains("subagent agent-ab351964a1d85ae3b"), "{said}");
}

#[test]
fn share_safe_exports_say_what_was_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let root = testdata("codex/0.171.0/dot-codex");
    let out = cli(
        dir.path(),
        &[
            "--codex-root",
            root.to_str().unwrap(),
            "bundle",
            "export",
            "01a22bc4-cb24",
            "--share-safe",
            "-o",
            "safe.zip",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("share-safe bundle"), "{said}");
    assert!(said.contains("home paths"), "{said}");
    assert!(!said.contains("can contain secrets"), "{said}");
    let i = json_of(&cli(
        dir.path(),
        &["bundle", "inspect", "safe.zip", "--json"],
    ));
    assert_eq!(i["data"]["manifest"]["mode"], "share_safe");
    assert!(
        i["data"]["manifest"]["redaction"]["home_path"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert_eq!(i["data"]["manifest"]["session"]["cwd"], "~/projects/demo");
}

#[test]
fn bundles_never_go_into_a_store_and_damage_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let fixture = testdata("codex/0.171.0/dot-codex");
    copy(&fixture, &store);
    let inside = store.join("b.zip");
    let out = cli(
        dir.path(),
        &[
            "--codex-root",
            store.to_str().unwrap(),
            "bundle",
            "export",
            "01a22bc4-cb24",
            "-o",
            inside.to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    assert!(!inside.exists());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing is ever written there"));
    // A bundle cut short: a clear error, exit 2.
    let ok = cli(
        dir.path(),
        &[
            "--codex-root",
            store.to_str().unwrap(),
            "bundle",
            "export",
            "01a22bc4-cb24",
            "-o",
            "b.zip",
        ],
    );
    assert!(ok.status.success());
    let bytes = std::fs::read(dir.path().join("b.zip")).unwrap();
    std::fs::write(dir.path().join("cut.zip"), &bytes[..bytes.len() / 2]).unwrap();
    let out = cli(dir.path(), &["bundle", "inspect", "cut.zip", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v = json_of(&out);
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], "bundle_invalid");
}

/// A bundle of `id` from the fixture store `rel` (root flag `flag`), written to `dir/b.zip`.
fn exported(dir: &Path, flag: &str, rel: &str, id: &str) -> PathBuf {
    let root = testdata(rel);
    let out = cli(
        dir,
        &[
            flag,
            root.to_str().unwrap(),
            "bundle",
            "export",
            id,
            "-o",
            "b.zip",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("b.zip")
}

#[test]
fn import_previews_then_restores_with_yes_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = exported(
        dir.path(),
        "--codex-root",
        "codex/0.171.0/dot-codex",
        "01a22bc4-d63a",
    );
    let store = dir.path().join("codex-home");
    let project = dir.path().join("new place");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "--codex-root",
            store.to_str().unwrap(),
            "bundle",
            "import",
            bundle.to_str().unwrap(),
            "--dir",
            project.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        cli(dir.path(), &a)
    };
    // Without --yes (and no terminal): the preview, exit 2, nothing written.
    let out = run(&["--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v = json_of(&out);
    assert_eq!(v["error"]["code"], "confirmation_needed");
    let files = v["data"]["preview"]["method"]["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "the session and its subagent");
    assert!(v["data"]["preview"]["token"]
        .as_str()
        .unwrap()
        .starts_with("v1."));
    assert!(std::fs::read_dir(&store).unwrap().next().is_none());
    // With --yes: restored, listed with its counts, resumable in the new place.
    let out = run(&["--yes", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    let s = &v["data"]["session"];
    assert_eq!(s["id"], "01a22bc4-d63a-7983-80d0-f3d6ee14c936");
    assert_eq!(
        s["cwd"].as_str(),
        dunce::canonicalize(&project).unwrap().to_str()
    );
    assert_eq!(s["counts"]["user"], 1);
    let argv = v["data"]["resume_command"]["argv"].as_array().unwrap();
    assert_eq!(argv[0], "codex");
    assert_eq!(argv[2], "01a22bc4-d63a-7983-80d0-f3d6ee14c936");
    for f in files {
        assert!(Path::new(f.as_str().unwrap()).is_file());
    }
    // Again: refused, exit 2; as a copy: a new id.
    let out = run(&["--yes", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["error"]["code"], "session_exists");
    let out = run(&["--yes", "--as-copy"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("restored the codex session"), "{said}");
    assert!(
        !said.contains("01a22bc4-d63a-7983-80d0-f3d6ee14c936"),
        "{said}"
    );
}

#[test]
fn import_refuses_share_safe_bundles_and_missing_directories() {
    let dir = tempfile::tempdir().unwrap();
    let root = testdata("claude/2.1.332/dot-claude");
    let out = cli(
        dir.path(),
        &[
            "--claude-root",
            root.to_str().unwrap(),
            "bundle",
            "export",
            "9d22e384",
            "--share-safe",
            "-o",
            "s.zip",
        ],
    );
    assert!(out.status.success());
    let store = dir.path().join("store");
    std::fs::create_dir(&store).unwrap();
    let s = store.to_str().unwrap();
    let out = cli(
        dir.path(),
        &[
            "--claude-root",
            s,
            "bundle",
            "import",
            "s.zip",
            "--dir",
            ".",
            "--yes",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["error"]["code"], "bundle_not_restorable");
    let b = exported(
        dir.path(),
        "--claude-root",
        "claude/2.1.332/dot-claude",
        "9d22e384",
    );
    let out = cli(
        dir.path(),
        &[
            "--claude-root",
            s,
            "bundle",
            "import",
            b.to_str().unwrap(),
            "--dir",
            "nowhere",
            "--yes",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["error"]["code"], "bad_target");
    assert!(std::fs::read_dir(&store).unwrap().next().is_none());
}

/// An Aider run restored into a directory no other agent ran in and no root names (issue 33,
/// point 2) is listed by a later plain `scan --provider aider`, run elsewhere: the restore
/// remembered the directory in our cache. Once its history file is gone the directory is
/// forgotten (dropped from what the cache remembers) and nothing is listed from it.
#[test]
fn a_directory_an_aider_run_was_restored_into_is_listed_from_anywhere() {
    let work = tempfile::tempdir().unwrap();
    let id = "aider-4af21869db5e7876";
    let bundle = exported(work.path(), "--aider-root", "aider/0.86.2", id);
    let target = tempfile::tempdir().unwrap();
    let dir = dunce::canonicalize(target.path()).unwrap();
    let d = dir.to_str().unwrap();
    let args = [
        "bundle",
        "import",
        bundle.to_str().unwrap(),
        "--dir",
        d,
        "--yes",
        "--json",
    ];
    let out = cli(work.path(), &args);
    let v = json_of(&out);
    assert_eq!(v["data"]["restored"]["method"]["kind"], "append", "{v}");
    let new_id = v["data"]["restored"]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Elsewhere: a folder of its own, not the target nor above it.
    let elsewhere = tempfile::tempdir().unwrap();
    let scan = |cwd: &Path| {
        let out = common::cli(
            &work.path().join(".cache"),
            &["scan", "--provider", "aider", "--json"],
        )
        .current_dir(cwd)
        .output()
        .unwrap();
        json_of(&out)["data"]["sessions"]
            .as_array()
            .unwrap()
            .clone()
    };
    let listed = scan(elsewhere.path());
    assert!(
        listed.iter().any(|s| s["id"] == new_id && s["cwd"] == d),
        "{new_id} in {d} is not listed: {listed:?}"
    );
    std::fs::remove_file(dir.join(".aider.chat.history.md")).unwrap();
    assert!(scan(elsewhere.path()).iter().all(|s| s["cwd"] != d));
    let remembered =
        std::fs::read_to_string(work.path().join(".cache/restored-dirs.json")).unwrap_or_default();
    assert!(!remembered.contains(d), "{remembered}");
}
