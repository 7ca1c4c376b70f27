//! Export (SPEC §7): every fixture session of every provider exported in all three formats,
//! the JSON read back into the model, golden files for one session per provider, hostile content
//! inert in HTML (checked by parsing the page the way a browser does) and contained in Markdown,
//! and the all-or-nothing file writer.

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use agent_sessions_core::actions::export::{
    write_file, Document, Exporter, Format, Options, ToolOutput, HTML_CSP, SCHEMA_VERSION,
};
use agent_sessions_core::{
    Catalog, ChangeSummary, Counts, Diagnostic, Diagnostics, Error, FileChange, Message, Part,
    ProviderKind, Role, ScanProgress, SessionMeta, ToolPart, ToolStatus, Transcript,
};
use agent_sessions_test_support::file_names as names;
use common::{catalog, golden_text, repo, store_dir};
use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
use scraper::{Html, Selector};

const EVERYTHING: Options = Options {
    reasoning: true,
    tool_output: ToolOutput::Full,
    meta: true,
};

/// Every fixture store: (provider, version dir, root).
fn stores() -> Vec<(ProviderKind, PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for kind in ProviderKind::ALL {
        let dir = repo().join("testdata").join(kind.as_str());
        let mut versions: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join(store_dir(kind)).is_dir())
            .collect();
        versions.sort();
        assert!(!versions.is_empty(), "no {kind} fixtures");
        for v in versions {
            let root = v.join(store_dir(kind));
            out.push((kind, v, root));
        }
    }
    out
}

fn sessions(catalog: &Catalog) -> Vec<SessionMeta> {
    catalog.scan(&ScanProgress::default()).unwrap().sessions
}

fn export(e: &Exporter, format: Format) -> String {
    let mut out = Vec::new();
    e.write(format, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// Every message's text appears in the Markdown as written and in the HTML as the app renders
/// it; every tool call is there with its output; the JSON reads back into exactly what the
/// catalog loads.
#[test]
fn every_fixture_session_exports_whole_in_every_format() {
    let mut exported = 0;
    let mut kinds = HashSet::new();
    for (kind, _, root) in stores() {
        let catalog = catalog(kind, &root);
        for s in sessions(&catalog) {
            let loaded = catalog.load(&s).unwrap();
            let e = Exporter::from_store(&catalog, &s, EVERYTHING);
            let md = export(&e, Format::Markdown);
            let html = export(&e, Format::Html);
            let json = export(&e, Format::Json);
            check_contains_every_message(&loaded, &md, &html);

            let doc = Document::from_reader(json.as_bytes()).unwrap();
            assert_eq!(doc.schema_version, SCHEMA_VERSION);
            assert_eq!(doc.options, EVERYTHING);
            assert_eq!(same_cost(doc.session.clone(), &s), s, "{}", s.id);
            assert_eq!(doc.diagnostics, loaded.diagnostics, "{}", s.id);
            // Full output reads blobs; the transcript holds previews of those. Everything else
            // is the model exactly.
            let blobs = with_previews(&doc.messages, &loaded.messages);
            assert_eq!(blobs.len(), loaded.messages.len());
            assert_eq!(blobs, loaded.messages, "{}", s.id);

            // A loaded transcript exports to the same document as the store read while writing,
            // but for the outputs only the store has in full.
            let from_loaded = Exporter::from_transcript(&loaded, EVERYTHING);
            let doc2 = Document::from_reader(export(&from_loaded, Format::Json).as_bytes());
            assert_eq!(doc2.unwrap().messages, loaded.messages);

            exported += 1;
            kinds.insert(kind);
        }
    }
    assert!(exported > 80, "only {exported} sessions exported");
    assert_eq!(kinds.len(), ProviderKind::ALL.len());
}

/// `read` with its cost set to `want`'s when they differ by a rounding step at most:
/// serde_json's default float parser (what `Document::from_reader` uses) may read the last
/// digit one step off what was written, as it did when the store itself was read.
fn same_cost(mut read: SessionMeta, want: &SessionMeta) -> SessionMeta {
    let close = |read: &mut Option<f64>, want: Option<f64>| {
        if let (Some(a), Some(b)) = (*read, want) {
            assert!((a - b).abs() <= f64::EPSILON * b.abs(), "{a} vs {b}");
            *read = want;
        }
    };
    close(&mut read.cost_usd, want.cost_usd);
    close(&mut read.cost_estimate_usd, want.cost_estimate_usd);
    read
}

/// The document's messages with each blob-read output put back to the transcript's preview.
fn with_previews(exported: &[Message], loaded: &[Message]) -> Vec<Message> {
    let mut out = exported.to_vec();
    for (m, l) in out.iter_mut().zip(loaded) {
        for (p, lp) in m.parts.iter_mut().zip(&l.parts) {
            if let (Part::Tool(t), Part::Tool(lt)) = (p, lp) {
                if lt.output_truncated && t.output != lt.output {
                    assert!(!t.output_truncated, "a blob read in full is not truncated");
                    assert!(t.output.as_ref().unwrap().len() > lt.output.as_ref().unwrap().len());
                    *t = lt.clone();
                }
            }
        }
    }
    out
}

fn check_contains_every_message(t: &Transcript, md: &str, html: &str) {
    let page = Html::parse_document(html);
    let articles = page.select(&sel("main > article")).count();
    let mut shown = 0;
    for m in &t.messages {
        if !m.parts.is_empty() {
            shown += 1;
        }
        for p in &m.parts {
            match p {
                Part::Text { text } => {
                    for line in text.lines().filter(|l| !l.trim().is_empty()) {
                        assert!(
                            md.contains(line) || md.contains(&line.replace('<', "&lt;")),
                            "{}: {line:?} not in the Markdown",
                            t.session.id
                        );
                    }
                    let rendered = agent_sessions_core::render::markdown(text);
                    assert!(html.contains(&rendered), "{}: {rendered}", t.session.id);
                }
                Part::Reasoning { text, .. } if !text.is_empty() => {
                    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap();
                    assert!(md.contains(first.trim()), "{first:?}");
                    let rendered = agent_sessions_core::render::markdown(text);
                    assert!(html.contains(&rendered));
                }
                Part::Tool(tool) => {
                    let name = agent_sessions_core::render::escape(&tool.name);
                    assert!(html.contains(&format!("<code>{name}</code>")), "{name}");
                    assert!(md.contains(&tool.name));
                    let preview = tool.output.as_deref().filter(|_| !tool.output_truncated);
                    if let Some(out) = preview.filter(|o| !o.is_empty()) {
                        // The preview's first line; a blob-backed output is there in full.
                        let first = out.lines().next().unwrap();
                        assert!(md.contains(first), "{first:?}");
                        let escaped = agent_sessions_core::render::escape(first);
                        assert!(html.contains(&escaped), "{escaped:?}");
                    }
                }
                _ => {}
            }
        }
    }
    assert_eq!(articles, shown, "{}: one article per message", t.session.id);
}

fn sel(css: &str) -> Selector {
    Selector::parse(css).unwrap()
}

/// Golden Markdown, HTML and JSON for one session per provider (no export time, the store
/// root as `$ROOT`, the version as `$VERSION`). `UPDATE_GOLDEN=1` rewrites them.
#[test]
fn golden_exports_one_session_per_provider() {
    let picks = [
        (
            ProviderKind::Claude,
            "2.0.50",
            "669d0c53-3d15-4f40-9830-4e99247562a5",
        ),
        (
            ProviderKind::Codex,
            "0.63.0",
            "01a22bc5-669b-7e11-bc53-ef00e1c0e7ab",
        ),
        (
            ProviderKind::Opencode,
            "1.0.98",
            "ses_dd4233f85ffeF6TN3TEhX5oKKw",
        ),
    ];
    let options = Options {
        reasoning: true,
        ..Options::default()
    };
    for (kind, version, id) in picks {
        let root = common::fixture(kind, version);
        let catalog = catalog(kind, &root);
        let all = sessions(&catalog);
        let s = all.iter().find(|s| s.id == id).unwrap();
        let e = Exporter::from_store(&catalog, s, options).exported_at(None);
        for format in Format::ALL {
            let text = common::with_root_placeholder(&export(&e, format), &root)
                .replace(env!("CARGO_PKG_VERSION"), "$VERSION");
            let file = repo()
                .join("testdata")
                .join(kind.as_str())
                .join(version)
                .join("expected/export")
                .join(format!("{id}.{}", format.extension()));
            golden_text(&text, &file);
        }
    }
}

#[test]
fn options_leave_out_reasoning_meta_and_tool_output() {
    let t = synthetic("plain", "plain output", &big_output());
    let json = |o: Options| {
        let text = export(&Exporter::from_transcript(&t, o), Format::Json);
        Document::from_reader(text.as_bytes()).unwrap()
    };
    let parts = |d: &Document| -> Vec<Part> {
        d.messages
            .iter()
            .flat_map(|m| m.parts.clone())
            .collect::<Vec<_>>()
    };
    let tools = |d: &Document| -> Vec<ToolPart> {
        parts(d)
            .into_iter()
            .filter_map(|p| match p {
                Part::Tool(t) => Some(t),
                _ => None,
            })
            .collect()
    };

    // Defaults: no reasoning, no meta records, outputs trimmed and flagged.
    let d = json(Options::default());
    assert_eq!(d.options, Options::default());
    assert!(!parts(&d)
        .iter()
        .any(|p| matches!(p, Part::Reasoning { .. })));
    assert!(d.messages.iter().all(|m| !m.meta));
    assert_eq!(d.messages.len(), t.messages.len() - 1);
    let big = &tools(&d)[1];
    let kept = big.output.as_deref().unwrap();
    assert!(kept.len() <= 4096 && kept.lines().count() <= 40);
    assert!(big.output_truncated);
    assert!(big_output().starts_with(kept));
    let small = &tools(&d)[0];
    assert_eq!(small.output.as_deref(), Some("plain output"));
    assert!(!small.output_truncated);

    let md = export(
        &Exporter::from_transcript(&t, Options::default()),
        Format::Markdown,
    );
    assert!(
        md.contains("… 460 more lines (") && md.contains(") not shown"),
        "{md}"
    );
    assert!(!md.contains("Reasoning") && !md.contains("secret reasoning"));
    assert!(!md.contains("injected context"));
    assert!(!md.contains("line 45\n"));
    let html = export(
        &Exporter::from_transcript(&t, Options::default()),
        Format::Html,
    );
    assert!(html.contains("<p class=\"cut\">… 460 more lines ("));
    assert!(!html.contains("secret reasoning") && !html.contains("injected context"));

    // Everything.
    let d = json(EVERYTHING);
    assert_eq!(d.messages, t.messages);
    let md = export(&Exporter::from_transcript(&t, EVERYTHING), Format::Markdown);
    assert!(md.contains("secret reasoning") && md.contains("injected context"));
    assert!(md.contains("line 499\n") && !md.contains("not shown"));
    let html = export(&Exporter::from_transcript(&t, EVERYTHING), Format::Html);
    assert!(html.contains("<details class=\"reasoning\"><summary>Reasoning</summary>"));
    assert!(html.contains("line 499\n"));

    // No tool output: calls, inputs and statuses stay; outputs and diffs go.
    let none = Options {
        tool_output: ToolOutput::None,
        ..Options::default()
    };
    let d = json(none);
    assert!(tools(&d).iter().all(|t| t.output.is_none()));
    assert!(tools(&d)
        .iter()
        .all(|t| t.changes.iter().all(|c| c.diff.is_none())));
    assert_eq!(tools(&d).len(), 2);
    let md = export(&Exporter::from_transcript(&t, none), Format::Markdown);
    assert!(!md.contains("plain output") && !md.contains("line 1\n"));
    assert!(md.contains("**Tool `Bash`** · ok · `ls -la`"), "{md}");
    assert!(md.contains("\"command\": \"ls -la\""));
    assert!(md.contains("- update `src/main.rs` (+1 −1)"));
    assert!(!md.contains("+fn main"));
}

/// `full` reads what the transcript keeps only as a blob: a Claude tool result of 340 KB.
#[test]
fn full_tool_output_reads_blobs_from_the_store() {
    let root = common::fixture(ProviderKind::Claude, "2.1.9");
    let catalog = catalog(ProviderKind::Claude, &root);
    let all = sessions(&catalog);
    let s = all
        .iter()
        .find(|s| s.id == "bde0a626-a69a-4954-8861-5b8029a4f65f")
        .unwrap();
    let blob = std::fs::read_to_string(
        root.join("projects/-home-bob-projects-demo/bde0a626-a69a-4954-8861-5b8029a4f65f/tool-results/toolu_mock0019.txt"),
    )
    .unwrap();
    assert!(blob.len() > 300_000);
    let full = Options {
        tool_output: ToolOutput::Full,
        ..Options::default()
    };
    let e = Exporter::from_store(&catalog, s, full);
    let md = export(&e, Format::Markdown);
    assert!(md.contains(&blob), "the whole blob is in the Markdown");
    let doc = Document::from_reader(export(&e, Format::Json).as_bytes()).unwrap();
    let tool = doc
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .find_map(|p| match p {
            Part::Tool(t) if t.output_blob.is_some() => Some(t),
            _ => None,
        })
        .unwrap();
    assert_eq!(tool.output.as_deref(), Some(blob.as_str()));
    assert!(!tool.output_truncated);
    // Trimmed, the preview is cut further and says so; from a loaded transcript (no store),
    // full output says the rest stayed in the session's files.
    let md = export(
        &Exporter::from_store(&catalog, s, Options::default()),
        Format::Markdown,
    );
    assert!(!md.contains(&blob[..20_000]) && md.contains(" not shown*"));
    let loaded = catalog.load(s).unwrap();
    let md = export(&Exporter::from_transcript(&loaded, full), Format::Markdown);
    assert!(md.contains("the rest of this output is in the session's own files"));
}

/// Transcript content that tries everything a page could run or load: after export, the page
/// parsed as a browser parses it has no script, no handler, no javascript: URL, nothing loaded
/// from anywhere, our CSP first in the head, and every hostile string still there as text.
#[test]
fn hostile_content_is_inert_in_the_html_export() {
    let t = synthetic(HOSTILE, HOSTILE, HOSTILE);
    for options in [EVERYTHING, Options::default()] {
        let html = export(&Exporter::from_transcript(&t, options), Format::Html);
        let page = Html::parse_document(&html);
        assert_inert(&page);
        // Our structure survived: one article per message, every tool in its own <details>,
        // and nothing of the transcript reached the head.
        let articles = page.select(&sel("body > main > article")).count();
        let expected = if options.meta { 4 } else { 3 };
        assert_eq!(articles, expected, "{html}");
        assert_eq!(page.select(&sel("main article > details.tool")).count(), 2);
        let head: Vec<String> = page
            .select(&sel("head > *"))
            .map(|e| e.value().name().to_owned())
            .collect();
        assert_eq!(
            head,
            ["meta", "meta", "meta", "meta", "meta", "title", "style"]
        );
        let text: String = page.root_element().text().collect();
        for shown in [
            "<script>alert('text')</script>",
            "<img src=x onerror=alert(2)>",
            "</details></pre></article>",
            "<iframe src=\"https://evil.example/\"></iframe>",
        ] {
            assert!(text.contains(shown), "{shown:?} not shown as text");
        }
    }
}

const HOSTILE: &str = r#"<script>alert('text')</script>
<img src=x onerror=alert(2)> <svg onload=alert(3)><circle/></svg> <math><mi xlink:href="javascript:alert(4)">x</mi></math>
<iframe src="https://evil.example/"></iframe> <object data="x.swf"></object> <embed src="x.swf">
<link rel=stylesheet href="https://evil.example/x.css"> <style>body{background:url(https://evil.example/t)}</style>
<meta http-equiv="refresh" content="0;url=https://evil.example/"> <base href="https://evil.example/">
<form action="https://evil.example/"><button formaction="javascript:alert(5)">x</button></form>
<!-- an unclosed comment
</details></pre></article></main><script>alert(6)</script>
[click](javascript:alert(7)) [data](data:text/html,<script>alert(8)</script>) ![img](https://evil.example/pixel.png)
[ref]: javascript:alert(9)
<a href="javascript:alert(10)" onclick="alert(11)">a</a> <div style="position:fixed" onmouseover=alert(12)>d</div>
```
</details><script>alert(13)</script>
````
~~~
<p onclick=alert(14)>x</p>
"#;

fn assert_inert(page: &Html) {
    let forbidden = [
        "script", "iframe", "frame", "object", "embed", "link", "svg", "math", "img", "form",
        "button", "input", "base", "video", "audio", "source", "applet", "noscript", "template",
    ];
    let mut styles = 0;
    for node in page.tree.nodes() {
        let Some(el) = node.value().as_element() else {
            continue;
        };
        let name = el.name();
        assert!(!forbidden.contains(&name), "<{name}> in the page");
        if name == "style" {
            styles += 1;
        }
        if name == "meta" {
            if let Some(equiv) = el.attr("http-equiv") {
                assert!(equiv.eq_ignore_ascii_case("content-security-policy"));
            }
        }
        for (attr, value) in el.attrs() {
            let attr = attr.to_ascii_lowercase();
            assert!(!attr.starts_with("on"), "{attr}={value:?} on <{name}>");
            assert!(
                ![
                    "style",
                    "src",
                    "srcset",
                    "action",
                    "formaction",
                    "background",
                    "poster"
                ]
                .contains(&attr.as_str()),
                "{attr}={value:?} on <{name}>"
            );
            let v = value.trim().to_ascii_lowercase();
            assert!(
                !v.starts_with("javascript:")
                    && !v.starts_with("data:")
                    && !v.starts_with("vbscript:"),
                "{attr}={value:?} on <{name}>"
            );
            if attr == "href" {
                assert_eq!(name, "a", "href on <{name}>");
                assert!(
                    v.starts_with("https://") || v.starts_with("http://"),
                    "{value}"
                );
            }
        }
    }
    assert_eq!(styles, 1, "only our own stylesheet");
    let csp = sel(r#"head > meta[http-equiv="Content-Security-Policy"]"#);
    let csp: Vec<_> = page.select(&csp).collect();
    assert_eq!(csp.len(), 1);
    assert_eq!(csp[0].value().attr("content"), Some(HTML_CSP));
    for directive in [
        "default-src 'none'",
        "style-src 'unsafe-inline'",
        "img-src data:",
    ] {
        assert!(HTML_CSP.contains(directive));
    }
    // The CSP comes before anything it governs: only the charset precedes it.
    let first: Vec<_> = page.select(&sel("head > meta")).take(2).collect();
    assert_eq!(first[0].value().attr("charset"), Some("utf-8"));
    assert_eq!(
        first[1].value().attr("http-equiv"),
        Some("Content-Security-Policy")
    );
}

/// In Markdown, no transcript content ends a fence early, opens one that swallows the next
/// message, or passes raw HTML through: parsed back, every message heading is a heading, every
/// tool output is one whole code block, and there is no HTML at all.
#[test]
fn hostile_content_stays_contained_in_the_markdown_export() {
    let t = synthetic(HOSTILE, HOSTILE, HOSTILE);
    let md = export(&Exporter::from_transcript(&t, EVERYTHING), Format::Markdown);
    let mut headings = Vec::new();
    let mut code_blocks = Vec::new();
    let mut in_heading = None::<String>;
    let mut in_code = None::<String>;
    for event in Parser::new(&md) {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => panic!("raw HTML {h:?} in the Markdown"),
            Event::Start(Tag::Heading { .. }) => in_heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => headings.extend(in_heading.take()),
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => in_code = Some(String::new()),
            Event::End(TagEnd::CodeBlock) => code_blocks.extend(in_code.take()),
            Event::Text(s) | Event::Code(s) => {
                if let Some(h) = in_heading.as_mut().or(in_code.as_mut()) {
                    h.push_str(&s);
                }
            }
            _ => {}
        }
    }
    assert!(headings[0].starts_with("<script>"), "the title is text");
    let roles: Vec<&str> = headings[1..]
        .iter()
        .map(|h| h.split(" · ").next().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["User", "Assistant", "User (meta)", "Assistant"],
        "{headings:?}\n{md}"
    );
    // Tool output, tool input and the diff each come back whole from their own fence.
    let output = HOSTILE;
    assert!(code_blocks.iter().any(|b| b == output), "{code_blocks:?}");
    let input = serde_json::to_string_pretty(&t.messages[1].parts.iter().find_map(|p| match p {
        Part::Tool(t) => Some(t.input.clone()),
        _ => None,
    }))
    .unwrap();
    assert!(code_blocks.iter().any(|b| b.trim_end() == input.trim_end()));
}

/// Pieces of hostile Markdown: tags CommonMark reads as HTML and tags only a browser or a
/// lenient renderer does (`<svg/onload=…>`, an unquoted attribute with quotes inside), every
/// kind of markup, and the code that holds them inert.
const PIECES: &[&str] = &[
    "<img src=x onerror=alert(1)>",
    "<img src=x onerror=alert('x')>",
    "<svg/onload=alert(2)>",
    "<script>alert(3)</script>",
    "</details>",
    "<!-- c",
    "<?php x ?>",
    "<!DOCTYPE html>",
    "<a href=\"javascript:x\">",
    "<https://evil.example/>",
    "<div>\n",
    "<b",
    "<",
    ">",
    "`",
    "```",
    "~~~",
    "    ",
    "\n",
    "\n\n",
    "> ",
    "- ",
    "1. ",
    "\\",
    "*",
    "_",
    "[x](",
    ")",
    "&",
    "&lt;",
    "|",
    "# ",
    " ",
    "text",
    "é",
];

/// Text from [`PIECES`] and a few random characters between them.
fn hostile_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let piece = prop_oneof![
        3 => proptest::sample::select(PIECES).prop_map(str::to_owned),
        1 => "[a-z<>`/\\\\ \n]{1,4}",
    ];
    proptest::collection::vec(piece, 1..24).prop_map(|p| p.concat())
}

/// Where `md` is code (a code block or a code span): text there shows as itself.
fn code_ranges(md: &str) -> Vec<std::ops::Range<usize>> {
    let mut code = Vec::new();
    for (event, range) in Parser::new(md).into_offset_iter() {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => panic!("raw HTML {h:?} in:\n{md}"),
            Event::Start(Tag::CodeBlock(_)) | Event::Code(_) => code.push(range),
            _ => {}
        }
    }
    code
}

/// No tag survives in `md` outside code: every `<` that a lenient renderer could read as the
/// start of a tag (a letter, `/`, `!` or `?` after it) is inside code (elsewhere it is written
/// `&lt;`; a backslash is not enough, Markdown.pl-style renderers ignore it).
fn assert_no_raw_tag(md: &str) {
    let code = code_ranges(md);
    let bytes = md.as_bytes();
    for (at, _) in md.match_indices('<') {
        let starts_tag = bytes
            .get(at + 1)
            .is_some_and(|c| c.is_ascii_alphabetic() || b"/!?".contains(c));
        if !starts_tag || code.iter().any(|r| r.contains(&at)) {
            continue;
        }
        let start = md[..at].rfind('\n').map_or(0, |n| n + 1);
        let line = md[start..].lines().next().unwrap_or_default();
        panic!("a raw tag in {line:?} of:\n{md}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]

    /// Whatever the transcript holds, in any kind of message (prompt, reply, reasoning, tool
    /// input and output, diff, notice, file, compaction summary, title and facts), the Markdown
    /// export has no tag outside code: CommonMark sees no HTML, and no `<tag` a more lenient
    /// renderer would take is left unescaped.
    #[test]
    fn no_tag_from_the_transcript_survives_in_the_markdown(text in hostile_text()) {
        let t = synthetic(&text, &text, &text);
        let md = export(&Exporter::from_transcript(&t, EVERYTHING), Format::Markdown);
        assert_no_raw_tag(&md);
    }
}

/// The two tags the review found passed raw, and the same inside code, where they stay as
/// written.
#[test]
fn lenient_tags_are_escaped_and_code_is_kept() {
    let text = "a <img src=x onerror=alert('x')> b <svg/onload=alert(2)>\n\n`<svg/onload=x>`\n\n```\n<img src=x onerror=y>\n```\n";
    let t = synthetic(text, text, text);
    let md = export(&Exporter::from_transcript(&t, EVERYTHING), Format::Markdown);
    assert_no_raw_tag(&md);
    assert!(
        md.contains("a &lt;img src=x onerror=alert('x')> b &lt;svg/onload=alert(2)>"),
        "{md}"
    );
    assert!(
        md.contains("\n`<svg/onload=x>`\n") && md.contains("\n<img src=x onerror=y>\n```\n"),
        "{md}"
    );
}

fn big_output() -> String {
    (0..500).map(|i| format!("line {i}\n")).collect()
}

/// A four-message session: a prompt, an answer with reasoning, two tool calls (the second with
/// `output`) and a diff, a meta record, and a closing answer with `text`.
fn synthetic(text: &str, small: &str, output: &str) -> Transcript {
    let ts = "2026-11-30T10:00:00Z".parse().ok();
    let msg = |id: &str, role: Role, parts: Vec<Part>| Message {
        id: id.into(),
        role,
        parent_id: None,
        timestamp: ts,
        model: (role == Role::Assistant).then(|| text.lines().next().unwrap().to_owned()),
        counted: true,
        meta: false,
        sidechain: false,
        parts,
        source_lines: vec![1],
    };
    let tool = |id: &str, out: &str| ToolPart {
        call_id: id.into(),
        name: if text == "plain" {
            "Bash".into()
        } else {
            text.into()
        },
        input: if text == "plain" {
            serde_json::json!({ "command": "ls -la" })
        } else {
            serde_json::json!({ "command": text, "nested": { "html": "</pre></details>" } })
        },
        status: ToolStatus::Ok,
        output: Some(out.into()),
        output_truncated: false,
        output_blob: None,
        changes: vec![FileChange {
            path: if text == "plain" {
                "src/main.rs".into()
            } else {
                text.into()
            },
            change: "update".into(),
            diff: Some(format!(
                "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+fn main() {{}}\n+{text}\n"
            )),
            additions: 1,
            deletions: 1,
        }],
        subagent_id: None,
    };
    let mut meta = msg(
        "m3",
        Role::User,
        vec![Part::Text {
            text: "injected context".into(),
        }],
    );
    meta.meta = true;
    meta.counted = false;
    let mut session = SessionMeta::new(ProviderKind::Claude, "s-1".into(), "/x.jsonl".into());
    session.title = Some(text.into());
    session.cwd = Some(text.into());
    session.model = Some(text.into());
    session.git_branch = Some(text.into());
    session.counts = Counts {
        user: 1,
        assistant: 2,
        tool_calls: 2,
    };
    session.changes = Some(ChangeSummary {
        additions: 1,
        deletions: 1,
        files: 1,
    });
    let mut diagnostics = Diagnostics::default();
    diagnostics.push(Diagnostic {
        provider: ProviderKind::Claude,
        path: "/x.jsonl".into(),
        line: Some(7),
        reason: text.into(),
    });
    Transcript {
        session,
        messages: vec![
            msg("m1", Role::User, vec![Part::Text { text: text.into() }]),
            msg(
                "m2",
                Role::Assistant,
                vec![
                    Part::Reasoning {
                        text: format!("secret reasoning\n{text}"),
                        encrypted: false,
                    },
                    Part::Text { text: text.into() },
                    Part::Tool(tool("t1", small)),
                    Part::Tool(tool("t2", output)),
                    Part::Notice {
                        source: text.into(),
                        text: text.into(),
                    },
                    Part::File {
                        path: Some(text.into()),
                        mime: Some(text.into()),
                        blob: None,
                    },
                    Part::Compaction {
                        trigger: Some(text.into()),
                        pre_tokens: Some(10),
                        summary: Some(text.into()),
                    },
                ],
            ),
            meta,
            msg(
                "m4",
                Role::Assistant,
                vec![Part::Text { text: text.into() }],
            ),
        ],
        diagnostics,
    }
}

// ---------------------------------------------------------------------------------------------
// Files

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn put(w: &mut dyn std::io::Write, bytes: &[u8]) -> Result<(), Error> {
    w.write_all(bytes).map_err(|e| Error::Write {
        path: "test".into(),
        source: e,
    })
}

#[test]
fn files_are_written_whole_private_and_never_over_another() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.md");
    let size = write_file(&path, false, |w| put(w, b"first\n")).unwrap();
    assert_eq!(size, 6);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "first\n");
    #[cfg(unix)]
    assert_eq!(mode(&path), 0o600);

    // An existing file is left alone without `overwrite`, and the body never runs.
    let e = write_file(&path, false, |_| panic!("must not write")).unwrap_err();
    assert!(matches!(e, Error::FileExists { .. }), "{e}");
    assert_eq!(e.code(), "file_exists");
    assert!(e.to_string().contains("already exists"), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "first\n");

    // With it, replaced whole (and private, whatever the old file's mode was).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    write_file(&path, true, |w| put(w, b"second\n")).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "second\n");
    #[cfg(unix)]
    assert_eq!(mode(&path), 0o600);

    // A body that fails part way leaves the old file as it was and no temporary file.
    let e = write_file(&path, true, |w| {
        w.write_all(b"half").unwrap();
        Err(Error::session_not_found("x"))
    })
    .unwrap_err();
    assert!(e.is_session_not_found());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "second\n");
    assert_eq!(names(dir.path()), ["out.md"]);

    // A link or a directory in the way counts as existing.
    #[cfg(unix)]
    {
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
        let e = write_file(&link, false, |_| Ok(())).unwrap_err();
        assert!(matches!(e, Error::FileExists { .. }));
        assert!(!dir.path().join("nowhere").exists());
    }
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    assert!(matches!(
        write_file(&sub, false, |_| Ok(())).unwrap_err(),
        Error::FileExists { .. }
    ));

    // A folder that does not exist: a clear write error naming the file.
    let missing = dir.path().join("no/such/dir/out.md");
    let e = write_file(&missing, false, |_| Ok(())).unwrap_err();
    assert_eq!(e.code(), "write");
    assert!(
        e.to_string()
            .starts_with(&format!("cannot write {}", missing.display())),
        "{e}"
    );
}

#[test]
fn an_export_saved_to_a_file_is_the_document() {
    let t = synthetic("plain", "plain output", "x");
    let dir = tempfile::tempdir().unwrap();
    for format in Format::ALL {
        let path = dir.path().join(format!("s.{}", format.extension()));
        let e = Exporter::from_transcript(&t, Options::default()).exported_at(None);
        let size = e.save(format, &path, false).unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        assert_eq!(written.len() as u64, size);
        assert_eq!(written, export(&e, format));
    }
    assert_eq!(names(dir.path()), ["s.html", "s.json", "s.md"]);
}

#[test]
fn a_json_export_of_another_schema_is_refused() {
    let t = synthetic("plain", "plain output", "x");
    let json = export(
        &Exporter::from_transcript(&t, Options::default()),
        Format::Json,
    );
    let other = json.replacen(SCHEMA_VERSION, "agent-sessions.export.v9", 1);
    let e = Document::from_reader(other.as_bytes()).unwrap_err();
    assert!(e.to_string().contains("agent-sessions.export.v9"), "{e}");
    let doc = Document::from_reader(json.as_bytes()).unwrap();
    assert_eq!(doc.diagnostics, t.diagnostics);
    assert_eq!(doc.into_transcript().session, t.session);
}
