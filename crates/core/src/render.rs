//! Transcript text → HTML for the desktop app: Markdown rendered with pulldown-cmark, then
//! sanitized with ammonia, here in Rust, before anything reaches the webview. Transcript content
//! is untrusted: a `<script>`, an `onerror=` or a `javascript:` link in it must arrive inert, and
//! no message may cost more than linear time to render.
//!
//! Three decisions keep that true:
//! - Raw HTML in the Markdown is shown as text, never passed on as markup: transcripts quote HTML
//!   far more often than they mean it, and raw HTML is what made the sanitiser's HTML parser
//!   quadratic (unclosed tags and implied reopenings nest without bound).
//! - Markdown nested deeper than [`MAX_DEPTH`] (20 KB of `>` is 20,000 nested quotes), or longer
//!   than [`MAX_MARKDOWN_BYTES`], is shown as escaped plain text in a `<pre>`: html5ever's scope
//!   checks walk the open-element stack, so sanitising costs size × depth.
//! - Task-list checkboxes become ☐/☑ text: no `<input>` reaches the page.

use std::borrow::Cow;
use std::sync::OnceLock;

use pulldown_cmark::{html, CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// Deepest element nesting rendered as Markdown. Real messages stay far below (a list in a list
/// in a quote with code is about 10); the sanitiser's cost per element grows with it.
pub const MAX_DEPTH: usize = 48;

/// Longest message rendered as Markdown; longer ones (pasted logs, dumps) are plain text.
pub const MAX_MARKDOWN_BYTES: usize = 256 * 1024;

/// Markdown to sanitized HTML, or the escaped text in a `<pre>` when it is too large or too
/// deeply nested to render in bounded time.
pub fn markdown(text: &str) -> String {
    if text.len() > MAX_MARKDOWN_BYTES {
        return plain(text);
    }
    let Some(events) = bounded_events(text) else {
        return plain(text);
    };
    let mut raw = String::with_capacity(text.len() * 3 / 2);
    html::push_html(&mut raw, events.into_iter());
    sanitize(&raw)
}

/// The parser's events with raw HTML and task markers turned into text, or `None` as soon as
/// the nesting passes [`MAX_DEPTH`]. Parsing itself is linear; this only stops what follows.
fn bounded_events(text: &str) -> Option<Vec<Event<'_>>> {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_TASKLISTS);
    let mut depth = 0usize;
    let mut out = Vec::new();
    for event in Parser::new_ext(text, options) {
        let event = match event {
            Event::Start(tag) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return None;
                }
                Event::Start(match tag {
                    // A block of raw HTML shows as what it is: code.
                    Tag::HtmlBlock => Tag::CodeBlock(CodeBlockKind::Indented),
                    other => other,
                })
            }
            Event::End(tag) => {
                depth = depth.saturating_sub(1);
                Event::End(match tag {
                    TagEnd::HtmlBlock => TagEnd::CodeBlock,
                    other => other,
                })
            }
            Event::Html(s) | Event::InlineHtml(s) => Event::Text(s),
            Event::TaskListMarker(done) => Event::Text(if done { "☑ " } else { "☐ " }.into()),
            other => other,
        };
        out.push(event);
    }
    Some(out)
}

/// Text shown as it is, preserving its lines.
fn plain(text: &str) -> String {
    format!("<pre>{}</pre>", escape(text))
}

/// Cleans HTML to a safe subset: no scripts, no event handlers, no styles, no images, no form
/// elements; links only to absolute http and https URLs, with `rel="noopener noreferrer"`;
/// `class` only as `language-*` on `<code>` (for highlighting).
pub fn sanitize(html: &str) -> String {
    static CLEANER: OnceLock<ammonia::Builder<'static>> = OnceLock::new();
    CLEANER
        .get_or_init(|| {
            let mut b = ammonia::Builder::default();
            b.url_schemes(["http", "https"].into_iter().collect())
                // Relative and protocol-relative (`//host`) links would resolve against the
                // app's own origin or reach a host without saying so: dropped.
                .url_relative(ammonia::UrlRelative::Deny)
                .rm_tags(["img", "map", "area"])
                .link_rel(Some("noopener noreferrer"))
                .add_tag_attributes("code", ["class"])
                .attribute_filter(|element, attribute, value| match (element, attribute) {
                    ("code", "class") => language_classes(value).map(Cow::Owned),
                    _ => Some(Cow::Borrowed(value)),
                });
            b
        })
        .clean(html)
        .to_string()
}

/// The `language-<name>` tokens of a class list (names of letters, digits and `+-_.#`), or
/// `None` when there are none.
fn language_classes(value: &str) -> Option<String> {
    let kept: Vec<&str> = value
        .split_ascii_whitespace()
        .filter(|c| {
            c.strip_prefix("language-").is_some_and(|name| {
                !name.is_empty()
                    && name
                        .chars()
                        .all(|ch| ch.is_ascii_alphanumeric() || "+-_.#".contains(ch))
            })
        })
        .collect();
    (!kept.is_empty()).then(|| kept.join(" "))
}

/// Plain text as HTML (tool output, diffs): escaped, never interpreted.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn renders_markdown_with_code_blocks() {
        let html = markdown("# Title\n\nSome `code` and\n\n```rust\nfn main() {}\n```\n");
        assert!(html.contains("<h1>Title</h1>"));
        assert!(html.contains("<code>code</code>"));
        assert!(
            html.contains(r#"<code class="language-rust">fn main() {}"#),
            "{html}"
        );
    }

    #[test]
    fn hostile_content_arrives_inert() {
        let evil = r#"<script>alert(1)</script><img src=x onerror="alert(2)"><a href="javascript:alert(3)">x</a>
<iframe src="https://evil"></iframe><div onclick="alert(4)" style="background:url(x)">y</div>
<svg onload=alert(6)></svg>

A [link](javascript:alert(5)) and [ok](https://example.com)."#;
        let html = markdown(evil);
        assert_inert(&html);
        assert!(html.contains(r#"href="https://example.com""#));
        assert!(html.contains("noopener"));
        // Raw HTML is shown as text, so the reader sees what the message held.
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert_eq!(escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
        // The sanitiser alone (raw HTML reaching it) drops the same things.
        assert_inert(&sanitize(evil));
    }

    /// No element or attribute that can run code, load something, or navigate elsewhere.
    fn assert_inert(html: &str) {
        const BAD_TAGS: [&str; 10] = [
            "script", "iframe", "svg", "img", "input", "form", "button", "area", "style", "object",
        ];
        for (name, attrs) in tags(html) {
            assert!(
                !BAD_TAGS.contains(&name.as_str()),
                "<{name}> survived: {html}"
            );
            for (attr, value) in attrs {
                assert!(
                    !attr.starts_with("on") && attr != "style",
                    "{attr} survived: {html}"
                );
                if attr == "class" {
                    assert!(
                        name == "code" && value.split(' ').all(|c| c.starts_with("language-")),
                        "class {value:?} on <{name}> survived: {html}"
                    );
                }
                if attr == "href" {
                    assert!(
                        value.starts_with("http://") || value.starts_with("https://"),
                        "href {value:?} survived: {html}"
                    );
                }
            }
        }
    }

    /// Every value of attribute `name` in `html`.
    fn attribute_values(html: &str, name: &str) -> Vec<String> {
        tags(html)
            .into_iter()
            .flat_map(|(_, attrs)| attrs)
            .filter(|(a, _)| a == name)
            .map(|(_, v)| v)
            .collect()
    }

    /// The tags of sanitized HTML (text has `<` escaped; attribute values are double-quoted
    /// and may hold `>`), as lowercase names (`/p` for an end tag) with their attributes.
    fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
        let mut out = Vec::new();
        let mut chars = html.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '<' {
                continue;
            }
            let mut name = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || c == '>' {
                    break;
                }
                name.push(c.to_ascii_lowercase());
                chars.next();
            }
            let mut attrs = Vec::new();
            loop {
                while chars.next_if(|c| c.is_whitespace() || *c == '/').is_some() {}
                match chars.next() {
                    None | Some('>') => break,
                    Some(first) => {
                        let mut attr = first.to_ascii_lowercase().to_string();
                        while let Some(c) = chars.next_if(|c| !"= >".contains(*c)) {
                            attr.push(c.to_ascii_lowercase());
                        }
                        let mut value = String::new();
                        if chars.next_if_eq(&'=').is_some() {
                            assert_eq!(chars.next(), Some('"'), "unquoted value in {html}");
                            value = chars.by_ref().take_while(|c| *c != '"').collect();
                        }
                        attrs.push((attr, value));
                    }
                }
            }
            out.push((name, attrs));
        }
        out
    }

    #[test]
    fn task_lists_are_text_not_inputs() {
        let html = markdown("- [ ] open\n- [x] done\n");
        assert!(!html.contains("<input"), "{html}");
        assert!(html.contains("☐ open") && html.contains("☑ done"), "{html}");
    }

    #[test]
    fn only_language_classes_survive() {
        let raw = r#"<code class="language-rust flash live-dot">a</code><code class="x">b</code>
<span class="language-rust">c</span><p class="msg">d</p><code class="language-&quot;x">e</code>"#;
        let html = sanitize(raw);
        assert!(
            html.contains(r#"<code class="language-rust">a</code>"#),
            "{html}"
        );
        assert!(html.contains("<code>b</code>"), "{html}");
        assert_eq!(
            attribute_values(&html, "class"),
            ["language-rust"],
            "{html}"
        );
        // Through Markdown: an info string that is not a plain name gives no class at all.
        let md = markdown("```c++\nx\n```\n\n```\"><b>\ny\n```\n");
        assert!(md.contains(r#"class="language-c++""#), "{md}");
        assert_eq!(attribute_values(&md, "class"), ["language-c++"], "{md}");
    }

    #[test]
    fn links_keep_only_absolute_http_targets() {
        let md =
            "[a](https://a.example/x) <https://b.example> [c](//c.example/x) [d](/etc/passwd) \
                  [e](#top) [f](mailto:x@y.z) [g](file:///etc/passwd) [h](tauri://localhost/x) \
                  [i](javascript:alert(1)) [j](data:text/html,x) https://bare.example";
        let html = markdown(md);
        assert_eq!(
            attribute_values(&html, "href"),
            ["https://a.example/x", "https://b.example"],
            "{html}"
        );
        // Bare URLs stay text (no autolinking).
        assert!(html.contains("https://bare.example") && !html.contains("href=\"https://bare"));
        let raw = sanitize(r#"<a href="//evil.example/">p</a><a href="http://ok.example/">q</a>"#);
        assert_eq!(
            attribute_values(&raw, "href"),
            ["http://ok.example/"],
            "{raw}"
        );
    }

    /// Nesting and size that made rendering quadratic (20 KB of `>`: seconds; 100 KB: minutes).
    /// Each case must come back as escaped text, which it only can by stopping at the bound:
    /// rendered in full, the 1 MB cases alone would take hours.
    #[test]
    fn hostile_depth_and_size_fall_back_to_text() {
        let lists: String = (0..2000)
            .map(|i| format!("{}1. x\n", "   ".repeat(i % 400)))
            .collect();
        for size in [20 * 1024, 200 * 1024, 1024 * 1024] {
            let cases = [
                ">".repeat(size),
                "> ".repeat(size / 2),
                "<div>".repeat(size / 5),
                "1. ".repeat(size / 3),
                "> - ".repeat(size / 4),
                "*".repeat(size),
                "[".repeat(size),
                "*a".repeat(size / 2),
                lists.repeat(1 + size / lists.len()),
            ];
            for case in cases {
                let html = markdown(&case);
                assert!(
                    max_depth(&html) <= MAX_DEPTH + 2,
                    "{} bytes of {:?}…",
                    case.len(),
                    case.get(..12).unwrap_or(&case)
                );
            }
        }
        // The cases that nest are the ones that must have stopped at the bound.
        for case in [
            ">".repeat(20 * 1024),
            "1. ".repeat(7000),
            "> - ".repeat(5000),
        ] {
            let html = markdown(&case);
            assert!(
                html.starts_with("<pre>") && html.ends_with("</pre>"),
                "{:?}",
                case.get(..8)
            );
            assert!(html.contains("&gt;") || html.contains("1. 1."));
        }
        // Raw tags are text now: 20 KB of `<div>` is one code block, not 4,000 nested divs.
        let divs = markdown(&"<div>".repeat(4096));
        assert!(
            !divs.contains("<div"),
            "{}",
            divs.get(..200).unwrap_or(&divs)
        );
        assert!(divs.contains("&lt;div&gt;&lt;div&gt;"));
        // Over the size cap: text, even when it is harmless Markdown.
        let big = "**bold** and `code`\n\n".repeat(MAX_MARKDOWN_BYTES / 20);
        let html = markdown(&big);
        assert!(
            html.starts_with("<pre>**bold** and `code`"),
            "{}",
            html.get(..60).unwrap_or("")
        );
        // Just under both bounds: still Markdown.
        let nested = format!("{}deep", "> ".repeat(MAX_DEPTH - 2));
        assert!(
            markdown(&nested).contains("<blockquote>"),
            "{}",
            markdown(&nested)
        );
    }

    /// The deepest element nesting in well-formed HTML (what ammonia writes).
    fn max_depth(html: &str) -> usize {
        const VOID: [&str; 3] = ["br", "hr", "wbr"];
        let (mut depth, mut max) = (0usize, 0usize);
        for (name, _) in tags(html) {
            if name.starts_with('/') {
                depth = depth.saturating_sub(1);
            } else if !VOID.contains(&name.as_str()) {
                depth += 1;
                max = max.max(depth);
            }
        }
        max
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever the text, the output has no input, no scripts or handlers, classes only
        /// `language-*`, links only absolute http(s), and bounded nesting.
        #[test]
        fn any_text_renders_inert_and_bounded(
            parts in proptest::collection::vec(prop_oneof![
                Just("<input type=checkbox checked>"), Just("- [ ] "), Just("- [x] "),
                Just("<code class=\"evil language-x\">"), Just("```js\n"), Just("```\"x\n"),
                Just("<a href=\"//h.example\">"), Just("[l](javascript:x)"), Just("[m](/p)"),
                Just("<https://h.example>"), Just("> "), Just("1. "), Just("* "), Just("  "),
                Just("\n"), Just("<div>"), Just("</div>"), Just("<p class=x>"), Just("*"),
                Just("["), Just("]"), Just("("), Just(")"), Just("text"), Just("<b>"),
                Just("<script>"), Just("<img src=x onerror=y>"), Just("| a |\n|---|\n"),
            ], 0..300)
        ) {
            let text: String = parts.concat();
            let html = markdown(&text);
            assert_inert(&html);
            prop_assert!(max_depth(&html) <= MAX_DEPTH + 2);
        }
    }
}
