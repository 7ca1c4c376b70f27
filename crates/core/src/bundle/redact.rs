//! The redaction pass of share-safe bundles (SPEC §9): best effort, not a guarantee. Each rule
//! replaces what it finds by `[REDACTED:<rule>]` (home directories by `~`) and is counted, so
//! the counts can be shown before the bundle is saved. Rules run in this order, each on what
//! the ones before left:
//!
//! | rule | finds |
//! | --- | --- |
//! | `private_key` | PEM private key blocks (`-----BEGIN … PRIVATE KEY-----` to its END, or the end of the text) |
//! | `jwt` | JSON Web Tokens (`eyJ….eyJ….…`) |
//! | `token` | known token prefixes: Anthropic/OpenAI `sk-…`, GitHub `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_`/`github_pat_`, Slack `xox?-`, AWS `AKIA…`, Google `AIza…`, GitLab `glpat-`, npm `npm_`, Hugging Face `hf_`, Stripe `sk_live_`/`rk_live_`, SendGrid `SG.` |
//! | `assignment` | the value of `NAME=value` where NAME ends in KEY, TOKEN, SECRET, PASSWORD, PASSWD or CREDENTIAL(S) (upper case), or is `api_key`, `apikey`, `secret`, `token`, `password`, `passwd` (lower case) |
//! | `home_path` | `/home/<user>`, `/Users/<user>`, `/root`, `C:\Users\<user>` → `~` |

use std::sync::OnceLock;

use regex::{Captures, Regex};
use serde::{Deserialize, Serialize};

/// How many replacements each rule made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct RedactionCounts {
    pub private_key: u64,
    pub jwt: u64,
    pub token: u64,
    pub assignment: u64,
    pub home_path: u64,
}

impl RedactionCounts {
    pub fn total(&self) -> u64 {
        self.private_key + self.jwt + self.token + self.assignment + self.home_path
    }
}

#[derive(Clone, Copy)]
enum Rule {
    PrivateKey,
    Jwt,
    Token,
    Assignment,
    HomePath,
}

struct Rules(Vec<(Rule, Regex)>);

fn rules() -> &'static Rules {
    static RULES: OnceLock<Rules> = OnceLock::new();
    RULES.get_or_init(|| {
        let r = |re: &str| Regex::new(re).expect("redaction rules are valid");
        Rules(vec![
            (
                Rule::PrivateKey,
                r(r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)"),
            ),
            (
                Rule::Jwt,
                r(r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}"),
            ),
            (
                Rule::Token,
                r(concat!(
                    r"\b(?:sk-ant-[A-Za-z0-9_-]{20,}|sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}",
                    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}",
                    r"|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}",
                    r"|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}",
                    r"|[sr]k_live_[0-9A-Za-z]{20,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,})"
                )),
            ),
            (
                Rule::Assignment,
                r(concat!(
                    r"\b([A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)",
                    r"|[a-z0-9_]*(?:api_key|apikey|secret|token|password|passwd))",
                    r#"=("[^"\n]*"|'[^'\n]*'|[^\s"'`]+)"#
                )),
            ),
            (
                Rule::HomePath,
                // Only where a path starts: `/usr/home/x` is not a home directory.
                r(concat!(
                    r#"(^|[\s"'`=(:,\[{>])"#,
                    r#"(?:/home/[^/\s"'`<>:;|]+|/Users/[^/\s"'`<>:;|]+|/root\b"#,
                    r#"|[A-Za-z]:\\Users\\[^\\\s"'`<>:;|]+)"#
                )),
            ),
        ])
    })
}

/// Runs the rules over text after text, counting as it goes.
#[derive(Default)]
pub struct Redactor {
    counts: RedactionCounts,
}

impl Redactor {
    pub fn counts(&self) -> RedactionCounts {
        self.counts
    }

    /// `text` with every finding replaced; `None` when nothing was found.
    pub fn redact(&mut self, text: &str) -> Option<String> {
        let mut current: Option<String> = None;
        for (rule, re) in &rules().0 {
            let input = current.as_deref().unwrap_or(text);
            let mut n = 0u64;
            let out = re.replace_all(input, |c: &Captures| {
                let whole = c.get(0).map_or("", |m| m.as_str());
                match rule {
                    Rule::Assignment => {
                        let value = c.get(2).map_or("", |m| m.as_str());
                        if value.trim_matches(['"', '\'']).is_empty()
                            || value.contains("[REDACTED:")
                        {
                            return whole.to_owned();
                        }
                        n += 1;
                        format!("{}=[REDACTED:assignment]", &c[1])
                    }
                    Rule::HomePath => {
                        n += 1;
                        format!("{}~", &c[1])
                    }
                    Rule::PrivateKey => {
                        n += 1;
                        "[REDACTED:private_key]".to_owned()
                    }
                    Rule::Jwt => {
                        n += 1;
                        "[REDACTED:jwt]".to_owned()
                    }
                    Rule::Token => {
                        n += 1;
                        "[REDACTED:token]".to_owned()
                    }
                }
            });
            if n > 0 {
                let out = out.into_owned();
                match rule {
                    Rule::PrivateKey => self.counts.private_key += n,
                    Rule::Jwt => self.counts.jwt += n,
                    Rule::Token => self.counts.token += n,
                    Rule::Assignment => self.counts.assignment += n,
                    Rule::HomePath => self.counts.home_path += n,
                }
                current = Some(out);
            }
        }
        current
    }

    /// JSON text with every string value redacted (keys and structure untouched).
    pub fn redact_json(&mut self, text: &str) -> String {
        super::jsontext::edit_values(text, &mut |s| self.redact(&s.value()?)).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_paths_become_tilde_without_touching_other_paths() {
        let mut r = Redactor::default();
        let out = r
            .redact("cd /home/bob/projects/demo && ls /usr/home/x /root/x C:\\Users\\Ann\\a")
            .unwrap();
        assert_eq!(out, "cd ~/projects/demo && ls /usr/home/x ~/x ~\\a");
        assert_eq!(r.counts().home_path, 3);
        assert_eq!(r.redact("/rooted/path"), None);
    }
}
