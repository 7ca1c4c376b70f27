//! Codex's `apply_patch` envelope (`*** Begin Patch … *** End Patch`) → the files it changes.

use agent_sessions_model::FileChange;

/// Parses the patch text; files whose headers are unreadable are skipped.
pub fn parse(text: &str) -> Vec<FileChange> {
    let mut files: Vec<FileChange> = Vec::new();
    for line in text.lines() {
        let header = [
            ("*** Add File: ", "add"),
            ("*** Update File: ", "update"),
            ("*** Delete File: ", "delete"),
        ]
        .into_iter()
        .find_map(|(prefix, change)| line.strip_prefix(prefix).map(|p| (p, change)));
        if let Some((path, change)) = header {
            files.push(FileChange {
                path: path.trim().to_owned(),
                change: change.to_owned(),
                diff: Some(String::new()),
                additions: 0,
                deletions: 0,
            });
            continue;
        }
        if line.starts_with("*** Begin Patch")
            || line.starts_with("*** End Patch")
            || line.starts_with("*** End of File")
        {
            continue;
        }
        let Some(file) = files.last_mut() else {
            continue;
        };
        if let Some(to) = line.strip_prefix("*** Move to: ") {
            file.path = format!("{} → {}", file.path, to.trim());
            continue;
        }
        file.additions += u64::from(line.starts_with('+'));
        file.deletions += u64::from(line.starts_with('-'));
        if let Some(diff) = file.diff.as_mut() {
            diff.push_str(line);
            diff.push('\n');
        }
    }
    files
}

/// The patch inside a shell command that runs `apply_patch <<'EOF' … EOF` (Codex 0.100+ runs
/// patches through `exec_command`).
pub fn from_shell(command: &str) -> Option<&str> {
    const END: &str = "*** End Patch";
    if !command.trim_start().starts_with("apply_patch") {
        return None;
    }
    let patch = command.get(command.find("*** Begin Patch")?..)?;
    patch.get(..patch.find(END)? + END.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_adds_updates_moves_and_deletes() {
        let p = "*** Begin Patch\n*** Add File: hello.txt\n+hello world\n*** Update File: a.rs\n*** Move to: b.rs\n@@ fn x\n-old\n+new\n ctx\n*** Delete File: gone.txt\n*** End Patch\n";
        let files = parse(p);
        assert_eq!(files.len(), 3);
        assert_eq!(
            (
                files[0].path.as_str(),
                files[0].change.as_str(),
                files[0].additions
            ),
            ("hello.txt", "add", 1)
        );
        assert_eq!(files[1].path, "a.rs → b.rs");
        assert_eq!((files[1].additions, files[1].deletions), (1, 1));
        assert_eq!(
            files[1].diff.as_deref(),
            Some("@@ fn x\n-old\n+new\n ctx\n")
        );
        assert_eq!(files[2].change, "delete");
    }

    #[test]
    fn finds_patches_in_shell_heredocs() {
        let cmd = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x\n+y\n*** End Patch\nEOF";
        assert_eq!(parse(from_shell(cmd).unwrap())[0].path, "x");
        assert!(from_shell("echo '*** Begin Patch *** End Patch'").is_none());
    }
}
