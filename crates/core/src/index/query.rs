//! The search syntax users type — words, "quoted phrases", prefix* — turned into an FTS5 match
//! expression that can never be an SQL or FTS syntax error.

use crate::error::Error;

/// The most terms (words, phrases, prefixes) a query may have. FTS5's cost grows with the
/// square of the number of prefix terms (4,000 took 0.56 s on the fixtures, 10,000 several
/// seconds); no one types more than a few, and a pasted paragraph is better quoted.
pub const MAX_TERMS: usize = 32;

/// The longest query accepted, in characters (bounds phrase length too).
pub const MAX_QUERY_CHARS: usize = 2000;

/// One part of a parsed query: a word or "phrase" (its text as typed; FTS5 splits it into
/// tokens, and `prefix` makes the last token a prefix), or `OR` between two of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Term { text: String, prefix: bool },
    Or,
}

/// Translates a user query. Every term is quoted, so FTS5 operators and punctuation in it are
/// plain text; terms are ANDed; `OR` between terms is kept. A query over [`MAX_QUERY_CHARS`]
/// or with more than [`MAX_TERMS`] terms is refused with an error that says so.
pub fn to_fts(query: &str) -> Result<String, Error> {
    let items = parse(query)?;
    let terms: Vec<String> = items
        .iter()
        .map(|item| match item {
            Item::Or => "OR".to_owned(),
            Item::Term { text, prefix } => {
                let mut term = quote(text);
                if *prefix {
                    term.push('*');
                }
                term
            }
        })
        .collect();
    Ok(terms.join(" "))
}

/// Splits a user query into terms and `OR`s (see [`to_fts`] for the rules and limits).
pub fn parse(query: &str) -> Result<Vec<Item>, Error> {
    let length = query.chars().count();
    if length > MAX_QUERY_CHARS {
        return Err(Error::BadQuery(format!(
            "the query is {length} characters long; at most {MAX_QUERY_CHARS} are searched"
        )));
    }
    let mut terms: Vec<Item> = Vec::new();
    let mut chars = query.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        if c == '"' {
            chars.next();
            let mut phrase = String::new();
            let mut closed = false;
            for c in chars.by_ref() {
                if c == '"' {
                    closed = true;
                    break;
                }
                phrase.push(c);
            }
            if !closed {
                return Err(Error::BadQuery(format!(
                    "the quote before {phrase:?} is not closed; add a closing \""
                )));
            }
            if !phrase.trim().is_empty() {
                terms.push(Item::Term {
                    text: phrase,
                    prefix: false,
                });
            }
            continue;
        }
        let mut word = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() || c == '"' {
                break;
            }
            word.push(c);
            chars.next();
        }
        if word == "OR" {
            if terms.last().is_some_and(|t| *t != Item::Or) {
                terms.push(Item::Or);
            }
            continue;
        }
        let (stem, prefix) = match word.strip_suffix('*') {
            Some(stem) => (stem.trim_end_matches('*'), true),
            None => (word.as_str(), false),
        };
        if stem.is_empty() {
            if prefix {
                return Err(Error::BadQuery(
                    "a lone * matches nothing; put it after a word, like build*".into(),
                ));
            }
            continue;
        }
        terms.push(Item::Term {
            text: stem.to_owned(),
            prefix,
        });
    }
    if terms.last() == Some(&Item::Or) {
        terms.pop();
    }
    if terms.is_empty() {
        return Err(Error::BadQuery(
            "the query is empty; type a word or a \"phrase\"".into(),
        ));
    }
    let count = terms.iter().filter(|t| **t != Item::Or).count();
    if count > MAX_TERMS {
        return Err(Error::BadQuery(format!(
            "the query has {count} terms; at most {MAX_TERMS} are searched: remove some, or quote a \"phrase\" (one term)"
        )));
    }
    Ok(terms)
}

fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_phrases_prefixes_and_or() {
        assert_eq!(to_fts("cargo test").unwrap(), r#""cargo" "test""#);
        assert_eq!(
            to_fts(r#""connection refused" retry*"#).unwrap(),
            r#""connection refused" "retry"*"#
        );
        assert_eq!(to_fts("a OR b").unwrap(), r#""a" OR "b""#);
        assert_eq!(
            to_fts("NEAR(x) -y ^z col:w").unwrap(),
            r#""NEAR(x)" "-y" "^z" "col:w""#
        );
    }

    #[test]
    fn bad_syntax_is_a_clear_error() {
        let e = to_fts(r#"say "hello"#).unwrap_err();
        assert!(e.to_string().contains("not closed"), "{e}");
        assert!(to_fts("   ").unwrap_err().to_string().contains("empty"));
        assert!(to_fts("*").unwrap_err().to_string().contains("lone *"));
    }

    #[test]
    fn terms_and_length_are_bounded() {
        let words = |n: usize| (0..n).map(|i| format!("w{i}*")).collect::<Vec<_>>();
        let at_cap = words(MAX_TERMS).join(" OR ");
        assert_eq!(to_fts(&at_cap).unwrap().matches('*').count(), MAX_TERMS);
        let e = to_fts(&words(MAX_TERMS + 1).join(" ")).unwrap_err();
        assert!(e.to_string().contains("at most 32"), "{e}");
        // A quoted phrase is one term however many words it has.
        let phrase = format!("\"{}\"", words(100).join(" "));
        assert!(to_fts(&phrase).is_ok());
        let long = "x".repeat(MAX_QUERY_CHARS + 1);
        let e = to_fts(&long).unwrap_err();
        assert!(e.to_string().contains("at most 2000"), "{e}");
    }
}
