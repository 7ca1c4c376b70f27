//! What a tool answers, made for a model's context: plain text built block by block (a row, a
//! hit, a message) within a token budget, each block redacted first when the caller asked, and
//! a footer that says whether the page was cut and the cursor that goes on from there.

use agent_sessions_core::bundle::redact::Redactor;

/// Tokens are counted as characters / 4 (rounded up): a bound a tokenizer's count of English
/// and code stays under, so a page stays within its budget whatever the model.
pub const CHARS_PER_TOKEN: usize = 4;
pub const DEFAULT_TOKENS: u32 = 4_000;
pub const MIN_TOKENS: u32 = 200;
pub const MAX_TOKENS: u32 = 20_000;
/// Kept free of blocks for the footer (the cursor line and a note).
const FOOTER_CHARS: usize = 400;

/// The budget a call asked for, kept within [MIN_TOKENS, MAX_TOKENS].
pub fn budget(asked: Option<u32>) -> usize {
    asked
        .unwrap_or(DEFAULT_TOKENS)
        .clamp(MIN_TOKENS, MAX_TOKENS) as usize
}

#[cfg(test)]
pub fn tokens_of(text: &str) -> usize {
    text.chars().count().div_ceil(CHARS_PER_TOKEN)
}

/// A page being filled.
pub struct Page {
    text: String,
    /// Characters the blocks may take (the budget less the footer's share).
    room: usize,
    used: usize,
    redactor: Option<Redactor>,
    pub truncated: bool,
}

impl Page {
    pub fn new(max_tokens: usize, redact: bool) -> Page {
        Page {
            text: String::new(),
            room: (max_tokens * CHARS_PER_TOKEN).saturating_sub(FOOTER_CHARS),
            used: 0,
            redactor: redact.then(Redactor::default),
            truncated: false,
        }
    }

    /// `text` as the caller sees it: redacted when asked.
    fn clean(&mut self, text: String) -> String {
        match &mut self.redactor {
            Some(r) => r.redact(&text).unwrap_or(text),
            None => text,
        }
    }

    /// Characters the page still has room for.
    fn left(&self) -> usize {
        self.room.saturating_sub(self.used)
    }

    /// Adds a block that must be there whatever its size (a header), cut to the room left.
    pub fn head(&mut self, block: String) {
        let block = self.clean(block);
        let left = self.left();
        let block = cut(&block, left);
        self.used += block.chars().count();
        self.text.push_str(&block);
    }

    /// Adds `block` if it fits; otherwise the page is full (`truncated`) and false is returned.
    /// A block too large for even an empty page is cut to fit, so every page moves on.
    pub fn push(&mut self, block: String, first: bool) -> bool {
        let block = self.clean(block);
        let n = block.chars().count();
        let left = self.left();
        if n <= left {
            self.used += n;
            self.text.push_str(&block);
            return true;
        }
        self.truncated = true;
        if first {
            let note = format!(
                "\n[… cut: this block is {n} characters; the rest did not fit in the page]\n"
            );
            // Neither the note nor the block may take more than the room left (a header can
            // have taken nearly all of it).
            let note = cut(&note, left);
            let kept = cut(&block, left - note.chars().count());
            self.used += kept.chars().count() + note.chars().count();
            self.text.push_str(&kept);
            self.text.push_str(&note);
            return true;
        }
        false
    }

    /// The page with its footer: `truncated` and the cursor of the next page, when there is one.
    pub fn finish(mut self, next: Option<String>, what: &str) -> String {
        let footer = match (&next, self.truncated) {
            (Some(c), _) => {
                format!("\ntruncated: true — more {what}: call again with cursor=\"{c}\"\n")
            }
            (None, true) => "\ntruncated: true — the rest did not fit in max_tokens\n".to_owned(),
            (None, false) => "\ntruncated: false\n".to_owned(),
        };
        if let Some(r) = &self.redactor {
            let n = r.counts().total();
            self.text
                .push_str(&format!("redacted: {n} secrets or home paths replaced\n"));
        }
        self.text.push_str(&footer);
        self.text
    }
}

/// At most `chars` characters of `text`.
fn cut(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((i, _)) => text[..i].to_owned(),
        None => text.to_owned(),
    }
}

/// The first line of `text`, at most `max` characters (an ellipsis when cut).
pub fn line(text: &str, max: usize) -> String {
    let first = text.lines().next().unwrap_or("").trim();
    if first.chars().count() <= max {
        return first.to_owned();
    }
    format!("{}…", cut(first, max.saturating_sub(1)))
}

/// `text` cut to `max` characters, saying how much was left out.
pub fn clip(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_owned();
    }
    format!("{}… [{} more characters]", cut(text, max), n - max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_never_exceeds_its_budget() {
        let mut page = Page::new(200, false);
        let mut first = true;
        while page.push("x".repeat(97) + "\n", first) {
            first = false;
        }
        assert!(page.truncated);
        let text = page.finish(Some("7".into()), "messages");
        assert!(tokens_of(&text) <= 200, "{} tokens", tokens_of(&text));
        assert!(text.contains("cursor=\"7\""));
    }

    #[test]
    fn a_block_larger_than_the_page_is_cut_to_fit() {
        let mut page = Page::new(200, false);
        assert!(page.push("y".repeat(5_000), true));
        let text = page.finish(None, "messages");
        assert!(tokens_of(&text) <= 200, "{} tokens", tokens_of(&text));
        assert!(text.contains("[… cut: this block is 5000 characters"));
    }

    #[test]
    fn a_header_that_fills_the_page_leaves_no_room_and_no_overflow() {
        let mut page = Page::new(200, false);
        page.head("h".repeat(10_000));
        assert!(page.push("z".repeat(300), true));
        assert!(!page.push("more\n".into(), false));
        let text = page.finish(Some("1".into()), "messages");
        assert!(tokens_of(&text) <= 200, "{} tokens", tokens_of(&text));
    }

    #[test]
    fn redaction_happens_before_the_block_is_measured() {
        let mut page = Page::new(200, true);
        page.push(
            "key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789\n".into(),
            true,
        );
        let text = page.finish(None, "messages");
        assert!(!text.contains("sk-ant-api03"), "{text}");
        assert!(text.contains("[REDACTED:token]") && text.contains("redacted: 1"));
    }
}
