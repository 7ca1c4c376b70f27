//! Transcript details beyond the golden files: lazy blobs, threading, sidechains.

mod common;

use std::path::Path;

use agent_sessions_core::{Catalog, Part, ProviderKind, ScanProgress, SessionMeta, ToolStatus};

fn claude(root: &Path) -> Catalog {
    common::catalog(ProviderKind::Claude, root)
}

fn session(c: &Catalog, id: &str) -> SessionMeta {
    let sessions = c.scan(&ScanProgress::default()).unwrap().sessions;
    c.find(&sessions, id).unwrap().clone()
}

fn tools(t: &agent_sessions_core::Transcript) -> Vec<&agent_sessions_core::ToolPart> {
    t.messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Tool(t) => Some(t),
            _ => None,
        })
        .collect()
}

#[test]
fn spilled_tool_output_is_a_lazy_blob() {
    let c = claude(&common::fixture(ProviderKind::Claude, "2.1.9"));
    let s = session(&c, "bde0a626");
    let t = c.load(&s).unwrap();
    let tool = tools(&t)
        .into_iter()
        .find(|t| t.output_blob.is_some())
        .unwrap();
    assert_eq!(
        tool.output_blob.as_deref(),
        Some("tool-results/toolu_mock0019.txt")
    );
    assert!(tool.output_truncated);
    let bytes = c.blob(&s, tool.output_blob.as_ref().unwrap()).unwrap();
    assert_eq!(bytes.len(), 348_893);
    assert!(bytes.starts_with(b"1\n2\n3\n"));
    for bad in [
        "tool-results/../x",
        "tool-results/",
        "line:x:tool:t",
        "nope",
        "line:0:video:1",
    ] {
        assert!(c.blob(&s, bad).is_err(), "{bad} should be refused");
    }
}

#[test]
fn large_inline_results_and_images_are_blobs_read_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("projects/-w");
    std::fs::create_dir_all(&project).unwrap();
    let big = "z".repeat(40_000);
    let lines = [
        r#"{"type":"user","uuid":"u1","sessionId":"s1","cwd":"/w","message":{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"aGVsbG8="}}]}}"#.to_owned(),
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","message":{"id":"m1","model":"x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"yes"}}]}}"#.to_owned(),
        format!(r#"{{"type":"user","uuid":"r1","parentUuid":"a1","sessionId":"s1","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"{big}","is_error":true}}]}}}}"#),
        r#"{"type":"assistant","uuid":"a2","parentUuid":"r1","sessionId":"s1","message":{"id":"m2","model":"x","content":[{"type":"text","text":"done"}]}}"#.to_owned(),
    ];
    std::fs::write(project.join("s1.jsonl"), lines.join("\n") + "\n").unwrap();
    let c = claude(dir.path());
    let s = session(&c, "s1");
    let t = c.load(&s).unwrap();

    let image = t.messages[0].parts.iter().find_map(|p| match p {
        Part::File { blob, mime, .. } => Some((blob.clone().unwrap(), mime.clone())),
        _ => None,
    });
    let (key, mime) = image.unwrap();
    assert_eq!(mime.as_deref(), Some("image/png"));
    assert_eq!(c.blob(&s, &key).unwrap(), b"hello");

    let tool = tools(&t)[0];
    assert_eq!(tool.status, ToolStatus::Error);
    assert!(tool.output_truncated);
    assert!(tool.output.as_ref().unwrap().len() < 33_000);
    let full = c.blob(&s, tool.output_blob.as_ref().unwrap()).unwrap();
    assert_eq!(full, big.as_bytes());

    // Threading: the second answer follows the first through the tool result.
    assert_eq!(t.messages[1].parent_id.as_deref(), Some("u1"));
    assert_eq!(t.messages[2].parent_id.as_deref(), Some("m1"));
}

#[test]
fn threading_only_points_back_to_earlier_messages() {
    for v in ["1.0.30", "2.0.50", "2.1.9", "2.1.332"] {
        let c = claude(&common::fixture(ProviderKind::Claude, v));
        for s in c.scan(&ScanProgress::default()).unwrap().sessions {
            let t = c.load(&s).unwrap();
            let mut seen = std::collections::HashSet::new();
            let mut threaded = 0;
            for m in &t.messages {
                if let Some(p) = &m.parent_id {
                    assert!(
                        seen.contains(p),
                        "{v} {}: {} points to a later or unknown {p}",
                        s.id,
                        m.id
                    );
                    threaded += 1;
                }
                seen.insert(m.id.clone());
            }
            assert!(
                threaded + 1 >= t.messages.iter().filter(|m| !m.meta).count().min(2),
                "{v} {}",
                s.id
            );
        }
    }
}

#[test]
fn inline_sidechains_show_in_the_parent_but_do_not_count() {
    let c = claude(&common::fixture(ProviderKind::Claude, "1.0.30"));
    let s = session(&c, "4621572c");
    let t = c.load(&s).unwrap();
    let side: Vec<_> = t.messages.iter().filter(|m| m.sidechain).collect();
    assert!(side.len() >= 3);
    assert!(side.iter().all(|m| !m.counted));
    assert_eq!((s.counts.user, s.counts.assistant), (1, 2));
}
