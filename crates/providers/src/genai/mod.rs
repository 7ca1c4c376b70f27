//! What Gemini CLI and Qwen Code (a fork of it) share: the Gemini API's content parts (`text`,
//! `thought`, `functionCall`, `functionResponse`) that both write into their records, and Gemini
//! CLI's `ConversationRecord` (one JSON document, or from Gemini 0.39 a JSONL replay log), which
//! Qwen Code wrote too before 0.5. Each agent's folder (`crate::gemini`, `crate::qwen`) uses this
//! module and never the other's folder (docs/formats.md, "Gemini CLI", "Qwen Code").

pub(crate) mod bundle;
pub(crate) mod conversation;
#[cfg(test)]
mod fixtures;
pub(crate) mod launch;
pub(crate) mod parts;
pub(crate) mod session;
pub(crate) mod store;
pub(crate) mod trash;

/// For the tests of each agent's folder: a fixture store copied to a place it may change.
#[cfg(test)]
pub(crate) use fixtures::copy_tree;

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::capability::launch::{pretty_json, McpServer};
use crate::error::Error;
use agent_sessions_model::{ResumeCommand, SessionMeta};

/// The `mcpServers` object both agents read from their `settings.json` (Qwen Code kept Gemini
/// CLI's), with `server` in it: a snippet to merge into that file.
pub(crate) fn mcp_servers(server: &McpServer) -> String {
    let mut servers = serde_json::Map::new();
    servers.insert(
        server.name.to_owned(),
        serde_json::json!({ "command": server.program, "args": server.args }),
    );
    pretty_json(&serde_json::json!({ "mcpServers": servers }))
}

/// `sha256(dir)` in lower-case hex: the name of a project folder under `tmp/` (Gemini before
/// 0.29 and always for `projectHash`; Qwen before 0.5, and its `tmp/` output folders).
pub(crate) fn project_hash(dir: &str) -> String {
    Sha256::digest(dir.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The first of `candidates` whose hash is `folder`, with every ancestor of each candidate
/// tried too (a tool's file path names a file inside the project). A hash cannot be reversed,
/// so this is how a pre-0.29 folder gets its directory back; a match is proof, never a guess.
pub(crate) fn dir_of_hash<'a>(
    folder: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    candidates.into_iter().find_map(|c| {
        Path::new(c)
            .ancestors()
            .filter_map(Path::to_str)
            .filter(|d| d.len() > 1 && agent_sessions_model::path::absolute_on_any_os(d))
            .find(|d| project_hash(d) == folder)
            .map(str::to_owned)
    })
}

/// Whether `name` looks like a sha256 folder name (64 lower-case hex digits).
pub(crate) fn is_hash_folder(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The file name of a spilled tool output named in a truncated result (`…For full output see:
/// /h/.gemini/tmp/demo/tool-outputs/session-<id>/<name>.txt`, Qwen: `…saved to: /h/.qwen/tmp/
/// <hash>/<name>.output`): only the name is kept, and only a plain one, so the blob it becomes
/// is looked up in the folder this session's own store has for it, never at a path a record
/// names.
pub(crate) fn spilled_name(output: &str) -> Option<String> {
    const MARKERS: [&str; 2] = [
        "For full output see: ",
        "The full output has been saved to: ",
    ];
    let rest = MARKERS
        .iter()
        .find_map(|m| output.split_once(m).map(|(_, r)| r))?;
    let path = rest.split(['\n', ' ']).next()?.trim_end_matches(['.', ',']);
    let name = PathBuf::from(path.replace('\\', "/"))
        .file_name()?
        .to_str()?
        .to_owned();
    crate::files::plain_name(&name).ok().map(str::to_owned)
}

/// The most read of a small side file (`projects.json`, `.project_root`,
/// `trustedFolders.json`, a subagent's `.meta.json`).
pub(crate) const SIDE_FILE_MAX: u64 = 1 << 20;

/// A small JSON side file, or `None` when it is missing, too large or not JSON.
pub(crate) fn read_json(path: &Path) -> Option<serde_json::Value> {
    let bytes = crate::files::read_document(path, SIDE_FILE_MAX).ok()?;
    crate::jsonl::parse_line(&bytes).ok()
}

/// The directories a root names itself, to match a hashed folder against: the folders of
/// `trustedFolders.json` (`{"<dir>": "TRUST_FOLDER", …}`) and the home folder above the root.
pub(crate) fn root_candidates(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(serde_json::Value::Object(t)) = read_json(&root.join("trustedFolders.json")) {
        out.extend(t.into_iter().map(|(dir, _)| dir));
    }
    out.extend(root.parent().and_then(Path::to_str).map(str::to_owned));
    out
}

/// The root a session file is under, four folders up (`<root>/tmp/<folder>/chats/<file>`,
/// `<root>/projects/<folder>/chats/<file>`), five for a subagent (one folder deeper).
pub(crate) fn root_of(session: &SessionMeta) -> Option<&Path> {
    let up = if session.parent_id.is_some() { 5 } else { 4 };
    session.source_path.ancestors().nth(up)
}

/// The file `name` (a plain name, from a blob key) in `dir`, the folder this session's store
/// spills outputs to (`None`: it has none, for `why`).
pub(crate) fn read_spilled(
    session: &SessionMeta,
    key: &str,
    dir: Option<PathBuf>,
    name: &str,
    why: &str,
) -> Result<Vec<u8>, Error> {
    let dir = dir.ok_or_else(|| crate::blob::not_found(session, key, why))?;
    let path = crate::files::child(&dir, name)
        .ok_or_else(|| crate::blob::not_found(session, key, "not a file name"))?;
    crate::files::read_document(&path, crate::files::MAX_DOCUMENT)
        .map_err(|e| crate::blob::not_found(session, key, &e.to_string()))
}

/// `<program> --resume <id>` run in the session's directory, for both agents: each finds a
/// session by id only among the sessions of the directory it runs in. A subagent resumes
/// through its parent.
pub(crate) fn resume_in_dir(
    agent: &crate::registry::Agent,
    session: &SessionMeta,
) -> Result<ResumeCommand, Error> {
    let id = session.parent_id.as_deref().unwrap_or(&session.id);
    if !crate::ids::is_uuid(id) {
        return Err(crate::ids::invalid_id(agent.kind, id));
    }
    let Some(cwd) = session.cwd.as_deref() else {
        return Err(Error::ResumeUnavailable(format!(
            "the directory of this {} session is not known (its project folder is a hash no \
             known directory matches), and `{} --resume` finds a session only from its own \
             directory: run `{} --resume {id}` there",
            agent.label, agent.program, agent.program
        )));
    };
    ResumeCommand::new(agent.program, &["--resume", id], Some(cwd)).map_err(Error::from)
}

/// The bytes of a blob a [`session::Builder::for_blob`] build found, or why there are none.
pub(crate) fn found_blob(
    session: &SessionMeta,
    key: &str,
    built: session::Built,
) -> Result<Vec<u8>, Error> {
    built
        .blob
        .map(String::into_bytes)
        .ok_or_else(|| crate::blob::not_found(session, key, "no such tool result"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_name_their_directory_and_ancestors_are_tried() {
        let demo = "/tmp/agent-rec/gemini-0.28.2/home/projects/demo";
        let folder = project_hash(demo);
        assert!(is_hash_folder(&folder));
        assert_eq!(
            folder,
            "af6eaf514d984238901bb980f47e61877edb52112b7be87a846f1fa7765b8935"
        );
        let file = format!("{demo}/notes.txt");
        assert_eq!(dir_of_hash(&folder, [file.as_str()]).as_deref(), Some(demo));
        assert_eq!(dir_of_hash(&folder, ["/elsewhere", "relative/x"]), None);
    }

    #[test]
    fn spilled_names_are_plain_file_names() {
        let g = "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /h/.gemini/tmp/demo/tool-outputs/session-4bd1/run_shell_command_1_0.txt\n1\n2";
        assert_eq!(
            spilled_name(g).as_deref(),
            Some("run_shell_command_1_0.txt")
        );
        let q = "Tool output was too large and has been truncated.\nThe full output has been saved to: /h/.qwen/tmp/5972/run_shell_command_2d8.output\nTo read…";
        assert_eq!(
            spilled_name(q).as_deref(),
            Some("run_shell_command_2d8.output")
        );
        assert_eq!(spilled_name("For full output see: /"), None);
        assert_eq!(spilled_name("plain output"), None);
    }
}
