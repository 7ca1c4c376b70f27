//! Transcript text → HTML for the desktop app: Markdown rendered with pulldown-cmark, then
//! sanitized with ammonia, here in Rust, before anything reaches the webview. Transcript content
//! is untrusted: a `<script>`, an `onerror=` or a `javascript:` link in it must arrive inert.

use pulldown_cmark::{html, Options, Parser};

/// Markdown to sanitized HTML. Raw HTML in the source is escaped-or-dropped by ammonia's
/// allowlist; links keep only http(s)/mailto targets and open nothing by themselves.
pub fn markdown(text: &str) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_TASKLISTS);
    let mut raw = String::with_capacity(text.len() * 3 / 2);
    html::push_html(&mut raw, Parser::new_ext(text, options));
    sanitize(&raw)
}

/// Cleans HTML to a safe subset: no scripts, no event handlers, no styles, no remote images,
/// links limited to http, https and mailto with `rel="noopener noreferrer"`.
pub fn sanitize(html: &str) -> String {
    ammonia::Builder::default()
        .url_schemes(["http", "https", "mailto"].into_iter().collect())
        .rm_tags(["img"])
        .link_rel(Some("noopener noreferrer"))
        .add_tag_attributes("code", ["class"])
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        .add_tags(["input"])
        .clean(html)
        .to_string()
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
        for bad in [
            "<script",
            "onerror",
            "href=\"javascript",
            "<iframe",
            "onclick",
            "style=",
            "<svg",
            "onload",
            "<img",
        ] {
            assert!(!html.to_lowercase().contains(bad), "{bad} survived: {html}");
        }
        assert!(html.contains(r#"href="https://example.com""#));
        assert!(html.contains("noopener"));
        assert_eq!(escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
    }
}
