//! agent-sessions-test-support: what the workspace's integration tests share — the repository's
//! fixture stores (`testdata/<agent>/<version>/<store>`), writable copies of them, a snapshot of
//! a folder to check that nothing was written, golden files, and programs that stand in for an
//! agent or a terminal and record how they were started ([`probe`]). Test-only: a dev-dependency, never a
//! normal one (`crates/core/tests/layers.rs`). Helpers panic on failure, as test code does.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use agent_sessions_model::ProviderKind;
use agent_sessions_providers::registry::agent;

/// Appends `line` and a newline to the file at `path`, as an agent grows its session.
pub fn append_line(path: &Path, line: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{line}").unwrap();
}

/// Writes a Claude session of `pairs` prompts and answers, `<claude_root>/projects/-work-long/
/// <id>.jsonl` (its folder made): with `pairs` at a follower's window (2,000) or more, its
/// timeline holds more events than a follower keeps, so a reader says older ones are left out.
pub fn long_claude_session(claude_root: &Path, id: &str, pairs: usize) -> PathBuf {
    let dir = claude_root.join("projects/-work-long");
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = String::new();
    for i in 0..pairs {
        let t = format!("2026-11-30T10:{:02}:{:02}.000Z", i / 60 % 60, i % 60);
        text += &format!(
            r#"{{"type":"user","uuid":"u{i}","sessionId":"{id}","cwd":"/work/long","timestamp":"{t}","message":{{"role":"user","content":"question {i}"}}}}"#
        );
        text += "\n";
        text += &format!(
            r#"{{"type":"assistant","uuid":"a{i}","parentUuid":"u{i}","sessionId":"{id}","timestamp":"{t}","message":{{"id":"m{i}","model":"claude-x","role":"assistant","content":[{{"type":"text","text":"answer {i}"}}]}}}}"#
        );
        text += "\n";
    }
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, text).unwrap();
    path
}

/// The repository's root.
pub fn repo() -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // Absolute on every system: a Windows build run under Wine was given a Linux path
    // (`/work/…`), which Windows reads as relative to the current drive (a store's root, in
    // a config file, must be absolute).
    std::path::absolute(&repo).unwrap_or(repo)
}

/// A path without links, as the agents spell a directory: on Windows without the `\\?\`
/// prefix `std::fs::canonicalize` adds (which no agent writes in a `cwd`, and the restore
/// does not write either).
pub trait Canonical {
    fn canonical(&self) -> PathBuf;
}

impl Canonical for Path {
    fn canonical(&self) -> PathBuf {
        dunce::canonicalize(self).unwrap()
    }
}

/// `testdata/<rel>` of the repository.
pub fn testdata(rel: &str) -> PathBuf {
    repo().join("testdata").join(rel)
}

/// The folder inside a fixture version that is the agent's root (`dot-claude`).
pub fn store_dir(kind: ProviderKind) -> &'static str {
    agent(kind).fixture_store
}

/// `testdata/<agent>/<version>/<store>`.
pub fn fixture(kind: ProviderKind, version: &str) -> PathBuf {
    testdata(kind.as_str()).join(version).join(store_dir(kind))
}

/// A writable copy of a fixture store, in a folder removed when it is dropped.
pub fn fixture_copy(kind: ProviderKind, version: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(kind, version), dir.path());
    dir
}

/// A copy of the folder `from` (a fixture store) at `to`, to write into.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Every file below `dir` with its bytes (links not followed), in path order: what "nothing
/// was written" is checked against.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if std::fs::symlink_metadata(e.path()).unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), std::fs::read(e.path()).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// The names in `dir`, sorted.
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Dates every file below `dir` back a month: a copy is new, a store nobody wrote lately is not
/// (what trashing and deleting look at).
pub fn age(dir: &Path) {
    let then = SystemTime::now() - Duration::from_secs(30 * 24 * 3600);
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            age(&e.path());
        } else {
            let f = std::fs::File::options().write(true).open(e.path()).unwrap();
            f.set_modified(then).unwrap();
        }
    }
}

/// Compares `text` to the golden file `file`, or writes it there with `UPDATE_GOLDEN=1`.
pub fn golden_text(text: &str, file: &Path) {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(file).unwrap_or_else(|_| {
        panic!(
            "missing golden {}; run with UPDATE_GOLDEN=1",
            file.display()
        )
    });
    if want == text {
        return;
    }
    // The first line that differs, shortened: where no diff tool is at hand (a Windows run).
    let (line, (w, g)) = want
        .lines()
        .chain(std::iter::repeat(""))
        .zip(text.lines().chain(std::iter::repeat("")))
        .enumerate()
        .find(|(_, (w, g))| w != g)
        .unwrap_or((0, ("", "")));
    let short = |s: &str| s.chars().take(300).collect::<String>();
    panic!(
        "{} differs; rerun with UPDATE_GOLDEN=1 and review the diff\nline {}:\n  golden: {}\n  now:    {}",
        file.display(),
        line + 1,
        short(w),
        short(g)
    );
}

/// Programs standing in for an agent or a terminal, which record how they were started.
#[cfg(unix)]
pub mod probe {
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};

    /// `text` written at `path` (its folder made) as an executable file.
    pub fn executable(path: &Path, text: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.to_path_buf()
    }

    /// A program at `path` that writes its directory and its arguments, NUL-separated, to
    /// `record` (whole, by a rename, so a reader never sees half of it).
    pub fn recorder(path: &Path, record: &Path) -> PathBuf {
        let script = format!(
            "#!/bin/sh\nprintf '%s\\0' \"$(pwd -P)\" \"$@\" > '{0}.tmp' && /bin/mv '{0}.tmp' '{0}'\n",
            record.display()
        );
        executable(path, &script)
    }

    /// What a [`recorder`] wrote: its directory, then its arguments. Fails after `limit`.
    pub fn wait_for_record(record: &Path, limit: Duration) -> Vec<String> {
        let start = Instant::now();
        loop {
            if let Ok(bytes) = std::fs::read(record) {
                let mut parts: Vec<String> = bytes
                    .split(|b| *b == 0)
                    .map(|p| String::from_utf8(p.to_vec()).unwrap())
                    .collect();
                parts.pop();
                return parts;
            }
            assert!(
                start.elapsed() < limit,
                "nothing wrote {} within {limit:?}: the program was never started",
                record.display()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// One Claude session (with its subagent) held by two files: a copy of Claude 2.1.9's store
/// where the session's transcript and folder are also copied under a second project folder
/// (as a project folder copied beside itself leaves them), the copy's prompt edited so the two
/// read differently. Ids are unique per agent only in theory: this is the store that proves a
/// session is named by its file too.
pub struct SameIdStore {
    pub dir: tempfile::TempDir,
    /// The session's id, the same in both files.
    pub id: &'static str,
    pub original: PathBuf,
    pub copy: PathBuf,
    /// The prompt of the original, and what the copy says instead.
    pub original_text: &'static str,
    pub copy_text: &'static str,
}

impl SameIdStore {
    pub fn create() -> Self {
        let (id, original_text) = (
            "bf86da8c-29bf-4e85-9165-71bec16f7627",
            "SUBAGENT please delegate counting lines in main.py",
        );
        let copy_text = "COPIED please count the lines of the copy";
        let dir = fixture_copy(ProviderKind::Claude, "2.1.9");
        let projects = dir.path().join("projects");
        let original = projects
            .join("-home-bob-projects-demo")
            .join(format!("{id}.jsonl"));
        let copy = projects
            .join("-home-bob-projects-demo-copy")
            .join(format!("{id}.jsonl"));
        copy_dir(&original.with_extension(""), &copy.with_extension(""));
        let text = std::fs::read_to_string(&original).unwrap();
        assert!(text.contains(original_text), "the fixture changed");
        std::fs::write(&copy, text.replace(original_text, copy_text)).unwrap();
        age(dir.path());
        SameIdStore {
            dir,
            id,
            original,
            copy,
            original_text,
            copy_text,
        }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_holds_every_file_of_the_fixture_and_only_those() {
        let from = fixture(ProviderKind::Claude, "2.1.332");
        let copy = fixture_copy(ProviderKind::Claude, "2.1.332");
        let relative = |dir: &Path| -> Vec<(PathBuf, Vec<u8>)> {
            let files = snapshot(dir);
            files
                .into_iter()
                .map(|(p, bytes)| (p.strip_prefix(dir).unwrap().to_path_buf(), bytes))
                .collect()
        };
        let original = relative(&from);
        assert!(original.len() > 3, "{} files", original.len());
        assert_eq!(relative(copy.path()), original);
    }

    #[cfg(unix)]
    #[test]
    fn a_recorder_records_its_directory_and_its_arguments_as_given() {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("record");
        let program = probe::recorder(&dir.path().join("bin/agent"), &record);
        let status = std::process::Command::new(&program)
            .args(["two words", "'quoted' $HOME", ""])
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(status.success());
        let got = probe::wait_for_record(&record, Duration::from_secs(10));
        let here = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(
            got,
            [here.to_str().unwrap(), "two words", "'quoted' $HOME", ""]
        );
    }
}

/// `text` (JSON, Markdown or HTML output) with the store's `root` written `$ROOT`, as the golden
/// files have it. A path under the root keeps its names but joins them with `/`: a Windows
/// build writes `C:\…\root\projects\x.jsonl` (its `\` doubled inside JSON strings) where the
/// golden files, written on Linux, have `$ROOT/projects/x.jsonl`. On Linux this is a plain
/// replacement.
pub fn with_root_placeholder(text: &str, root: &Path) -> String {
    let raw = root.to_string_lossy();
    let escaped = raw.replace('\\', r"\\");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let found = [escaped.as_str(), &*raw]
            .into_iter()
            .filter_map(|spelling| rest.find(spelling).map(|at| (at, spelling.len())))
            .min();
        let Some((at, len)) = found else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..at]);
        out.push_str("$ROOT");
        rest = &rest[at + len..];
        // The path's own tail: up to what ends a path in the outputs (a quote, a tag, a space).
        let end = rest
            .find(|c: char| c.is_whitespace() || "\"'<>`)".contains(c))
            .unwrap_or(rest.len());
        out.push_str(&rest[..end].replace(r"\\", "/").replace('\\', "/"));
        rest = &rest[end..];
    }
}

#[cfg(test)]
mod root_placeholder {
    use super::*;

    #[test]
    fn a_windows_root_and_the_names_below_it_read_as_on_linux() {
        let root = Path::new(r"\\?\C:\Users\Ann\.claude");
        let json = r#"{"path":"\\\\?\\C:\\Users\\Ann\\.claude\\projects\\x.jsonl","cwd":"C:\\w"}"#;
        assert_eq!(
            with_root_placeholder(json, root),
            r#"{"path":"$ROOT/projects/x.jsonl","cwd":"C:\\w"}"#
        );
        let html = r"<td>\\?\C:\Users\Ann\.claude\projects\x.jsonl</td> C:\w";
        assert_eq!(
            with_root_placeholder(html, root),
            r"<td>$ROOT/projects/x.jsonl</td> C:\w"
        );
    }

    #[test]
    fn a_linux_root_is_replaced_where_it_is() {
        let root = Path::new("/tmp/s");
        let text = "\"/tmp/s/projects/a b.jsonl\" and /tmp/s";
        assert_eq!(
            with_root_placeholder(text, root),
            "\"$ROOT/projects/a b.jsonl\" and $ROOT"
        );
    }
}
