//! Every key the config file knows, its type and default, in one table; and reading a parsed
//! document against it, key by key.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::LazyLock;

use serde::Serialize;
use toml_edit::{Item, TableLike};

use super::ConfigError;
use crate::pricing::Price;
use crate::provider::registry::{Agent, AGENTS};

/// What a key holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Bool,
    /// A list of absolute directories (a leading `~/` is the home directory).
    Dirs,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// Empty (every agent) or an agent's name: a choice of [`AGENT_FILTER`].
    Agent,
    /// Empty (Automatic) or the id of a terminal of this OS in [`TERMINALS`].
    Terminal,
    /// Empty (not set up) or an http(s) URL.
    Url,
    /// Printable text, possibly empty.
    Text,
    /// Printable text, not empty.
    Word,
    /// Empty (not set) or a day, `YYYY-MM-DD`.
    Date,
}

#[derive(Debug, Clone, Copy)]
enum Default {
    Bool(bool),
    Text(&'static str),
    Empty,
}

/// One setting.
#[derive(Debug, Clone, Copy)]
pub struct KeySpec {
    /// Dotted: `section.key` (`providers.claude.roots`).
    pub key: &'static str,
    pub ty: Type,
    default: Default,
    /// Never shown or echoed in a message (the API key).
    pub secret: bool,
}

/// The group modes the app offers (ui/src/lib/group.ts `GroupMode`).
pub const GROUP_MODES: &[&str] = &["dir-agent", "agent-dir", "flat"];
pub const THEMES: &[&str] = &["system", "light", "dark"];
/// The list's sort orders (core `filter::SortKey`).
pub const SORT_KEYS: &[&str] = &["updated", "created", "messages", "tokens", "cost"];
/// The agent filter: empty (every agent) or one agent of the registry.
pub static AGENT_FILTER: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    std::iter::once("")
        .chain(AGENTS.iter().map(|a| a.name()))
        .collect()
});

const fn key(key: &'static str, ty: Type, default: Default) -> KeySpec {
    KeySpec {
        key,
        ty,
        default,
        secret: false,
    }
}

/// Every setting, in the order `config show` lists them: each agent's `providers.<name>.enabled`
/// and `.roots` (from the registry, so adding an agent adds its keys), then [`OTHER_KEYS`].
pub static KEYS: LazyLock<Vec<KeySpec>> = LazyLock::new(|| {
    // Made once per process: two short names per agent, kept for its life.
    let name = |agent: &Agent, key: &str| -> &'static str {
        Box::leak(format!("providers.{}.{key}", agent.name()).into_boxed_str())
    };
    let providers = AGENTS.iter().flat_map(|agent| {
        [
            key(name(agent, "enabled"), Type::Bool, Default::Bool(true)),
            key(name(agent, "roots"), Type::Dirs, Default::Empty),
        ]
    });
    providers.chain(OTHER_KEYS.iter().copied()).collect()
});

/// The settings that are not an agent's, in order.
const OTHER_KEYS: &[KeySpec] = &[
    key(
        "ui.group_by",
        Type::Choice(GROUP_MODES),
        Default::Text("dir-agent"),
    ),
    key("ui.hidden_dirs", Type::Dirs, Default::Empty),
    key("ui.theme", Type::Choice(THEMES), Default::Text("system")),
    key(
        "ui.sort_by",
        Type::Choice(SORT_KEYS),
        Default::Text("updated"),
    ),
    key("ui.fold_repos", Type::Bool, Default::Bool(false)),
    // The machine the app shows: a Host alias of the ssh config; empty is this computer.
    key("ui.host", Type::Text, Default::Text("")),
    // The list's filters as last set in the app (core `filter::Filter`).
    key("filter.agent", Type::Agent, Default::Text("")),
    key("filter.since", Type::Date, Default::Text("")),
    key("filter.until", Type::Date, Default::Text("")),
    key("filter.model", Type::Text, Default::Text("")),
    key("filter.has_subagents", Type::Bool, Default::Bool(false)),
    key("filter.archived", Type::Bool, Default::Bool(false)),
    key("filter.live", Type::Bool, Default::Bool(false)),
    key("terminal.app", Type::Terminal, Default::Text("")),
    key("translate.base_url", Type::Url, Default::Text("")),
    KeySpec {
        secret: true,
        ..key("translate.api_key", Type::Text, Default::Text(""))
    },
    key("translate.model", Type::Text, Default::Text("")),
    key(
        "translate.language",
        Type::Word,
        Default::Text("Vietnamese"),
    ),
    key("actions.allow_delete", Type::Bool, Default::Bool(false)),
    key(
        "actions.allow_permanent_delete",
        Type::Bool,
        Default::Bool(false),
    ),
];

/// The systems a setting can differ by: model data, shared with live detection.
pub use crate::model::Os;

/// Every terminal id the config accepts: the terminals module's table is the one list of them
/// (id, name, systems; also how each is found and opened).
pub use crate::actions::terminal::{TerminalSpec as TerminalInfo, KNOWN as TERMINALS};

/// Caps that keep a hostile file from costing much.
const MAX_TEXT: usize = 4096;
const MAX_LIST: usize = 64;

/// A setting's value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Value {
    Bool(bool),
    Text(String),
    List(Vec<String>),
}

impl Value {
    pub fn as_bool(&self) -> bool {
        matches!(self, Value::Bool(true))
    }

    pub fn as_text(&self) -> &str {
        match self {
            Value::Text(t) => t,
            _ => "",
        }
    }

    pub fn as_list(&self) -> &[String] {
        match self {
            Value::List(l) => l,
            _ => &[],
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

impl KeySpec {
    pub fn default_value(&self) -> Value {
        match self.default {
            Default::Bool(b) => Value::Bool(b),
            Default::Text(t) => Value::Text(t.to_owned()),
            Default::Empty => Value::List(Vec::new()),
        }
    }

    fn default_text(&self) -> String {
        match self.default {
            Default::Bool(b) => b.to_string(),
            Default::Text("") => "(empty)".to_owned(),
            Default::Text(t) => format!("{t:?}"),
            Default::Empty => "[]".to_owned(),
        }
    }
}

pub fn find(key: &str) -> Option<&'static KeySpec> {
    KEYS.iter().find(|k| k.key == key)
}

pub fn key_list() -> String {
    KEYS.iter().map(|k| k.key).collect::<Vec<_>>().join(", ")
}

/// Whether `path` is a table of settings (`providers`, `providers.claude`, `ui`, …).
fn is_section(path: &str) -> bool {
    KEYS.iter().any(|k| {
        k.key
            .strip_prefix(path)
            .is_some_and(|rest| rest.starts_with('.'))
    })
}

/// What reading a document found: the valid values, and (line, key, message) for the rest.
pub struct Found {
    pub values: BTreeMap<&'static str, Value>,
    /// `[prices]`: model → price, USD per million tokens (core `pricing`).
    pub prices: BTreeMap<String, Price>,
    pub problems: Vec<(Option<usize>, Option<String>, String)>,
}

/// Reads every key of a parsed document against [`KEYS`]. A bad value costs that key only.
pub fn read(doc: &toml_edit::Document<&str>, home: Option<&Path>) -> Found {
    let mut found = Found {
        values: BTreeMap::new(),
        prices: BTreeMap::new(),
        problems: Vec::new(),
    };
    let lines = LineIndex::new(doc.raw());
    walk(doc.as_table(), "", home, &lines, &mut found);
    found
}

fn walk(
    table: &dyn TableLike,
    prefix: &str,
    home: Option<&Path>,
    lines: &LineIndex,
    found: &mut Found,
) {
    for (name, item) in table.iter() {
        let path = if prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{prefix}.{name}")
        };
        let span = item
            .span()
            .or_else(|| table.key(name).and_then(|k| k.span()));
        let line = span.map(|s| lines.line(s.start));
        if path == PRICES {
            read_prices(item, lines, found);
        } else if let Some(spec) = find(&path) {
            match validate(spec, item, home) {
                Ok(value) => {
                    found.values.insert(spec.key, value);
                }
                Err(why) => found.problems.push((
                    line,
                    Some(path),
                    format!("{why}; using the default {}", spec.default_text()),
                )),
            }
        } else if is_section(&path) {
            match item.as_table_like() {
                Some(inner) => walk(inner, &path, home, lines, found),
                None => found.problems.push((
                    line,
                    Some(path),
                    format!(
                        "expected a table of settings, found {}; its settings have their defaults",
                        kind_of(item)
                    ),
                )),
            }
        } else {
            found.problems.push((
                line,
                Some(path),
                "not a known setting; ignored (it stays in the file)".to_owned(),
            ));
        }
    }
}

/// The table of price overrides: `[prices."<model>"]` with `input`, `output` and optionally
/// `cache_read`, `cache_write`, in USD per million tokens.
pub const PRICES: &str = "prices";

fn read_prices(item: &Item, lines: &LineIndex, found: &mut Found) {
    let Some(models) = item.as_table_like() else {
        let line = item.span().map(|s| lines.line(s.start));
        let why = format!(
            "expected a table of models, found {}; no prices overridden",
            kind_of(item)
        );
        found.problems.push((line, Some(PRICES.to_owned()), why));
        return;
    };
    for (model, entry) in models.iter() {
        match read_price(entry) {
            Ok(price) => {
                found.prices.insert(model.to_owned(), price);
            }
            Err(why) => {
                let line = entry.span().map(|s| lines.line(s.start));
                let key = format!("{PRICES}.{model}");
                found
                    .problems
                    .push((line, Some(key), format!("{why}; the bundled price applies")));
            }
        }
    }
}

/// One model's price; every figure a non-negative number, `input` and `output` required.
fn read_price(entry: &Item) -> Result<Price, String> {
    let table = entry
        .as_table_like()
        .ok_or("expected a table with input and output (USD per million tokens)")?;
    let number = |name: &str| -> Result<Option<f64>, String> {
        let Some(value) = table.get(name) else {
            return Ok(None);
        };
        let n = match value.as_value() {
            Some(toml_edit::Value::Float(f)) => *f.value(),
            Some(toml_edit::Value::Integer(i)) => *i.value() as f64,
            _ => return Err(format!("{name} must be a number")),
        };
        if n.is_finite() && n >= 0.0 {
            Ok(Some(n))
        } else {
            Err(format!("{name} must be a number of USD, 0 or more"))
        }
    };
    if let Some((name, _)) = table
        .iter()
        .find(|(k, _)| !["input", "output", "cache_read", "cache_write"].contains(k))
    {
        return Err(format!(
            "{name} is not a price (input, output, cache_read, cache_write)"
        ));
    }
    Ok(Price {
        input: number("input")?.ok_or("input is missing")?,
        output: number("output")?.ok_or("output is missing")?,
        cache_read: number("cache_read")?,
        cache_write: number("cache_write")?,
    })
}

/// Byte offset → 1-based line, by binary search over the line starts.
struct LineIndex(Vec<usize>);

impl LineIndex {
    fn new(text: &str) -> Self {
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        LineIndex(starts)
    }

    fn line(&self, offset: usize) -> usize {
        self.0.partition_point(|&start| start <= offset).max(1)
    }
}

fn kind_of(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Table(_) => "a table",
        Item::ArrayOfTables(_) => "an array of tables",
        Item::Value(v) => match v {
            toml_edit::Value::String(_) => "a string",
            toml_edit::Value::Integer(_) => "an integer",
            toml_edit::Value::Float(_) => "a float",
            toml_edit::Value::Boolean(_) => "a boolean",
            toml_edit::Value::Datetime(_) => "a date",
            toml_edit::Value::Array(_) => "an array",
            toml_edit::Value::InlineTable(_) => "an inline table",
        },
    }
}

/// `item` if it is one of `words`, or why not.
fn choice(words: &[&str], item: &Item) -> Result<Value, String> {
    let list: Vec<String> = words.iter().map(|w| format!("{w:?}")).collect();
    let one_of = format!("one of {}", list.join(", "));
    let text = item
        .as_str()
        .ok_or_else(|| format!("expected {one_of}, found {}", kind_of(item)))?;
    if words.contains(&text) {
        Ok(Value::Text(text.to_owned()))
    } else {
        Err(format!(
            "expected {one_of}, found {:?}",
            printable_prefix(text)
        ))
    }
}

/// The value of `item` for `spec`, normalised, or why it is not one.
pub fn validate(spec: &KeySpec, item: &Item, home: Option<&Path>) -> Result<Value, String> {
    let wrong = |expected: &str| format!("expected {expected}, found {}", kind_of(item));
    match spec.ty {
        Type::Bool => item
            .as_bool()
            .map(Value::Bool)
            .ok_or_else(|| wrong("true or false")),
        Type::Dirs => {
            let array = item
                .as_array()
                .ok_or_else(|| wrong("an array of directory paths"))?;
            if array.len() > MAX_LIST {
                return Err(format!("more than {MAX_LIST} directories"));
            }
            array
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| {
                            format!(
                                "expected directory paths, found {}",
                                kind_of(&Item::Value(v.clone()))
                            )
                        })
                        .and_then(|p| dir(p, home))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Value::List)
        }
        Type::Choice(words) => choice(words, item),
        Type::Agent => choice(&AGENT_FILTER, item),
        Type::Terminal => {
            let id = item
                .as_str()
                .ok_or_else(|| wrong("a terminal id (a string)"))?;
            terminal(id).map(|()| Value::Text(id.to_owned()))
        }
        Type::Url => {
            let url = item.as_str().ok_or_else(|| wrong("a URL (a string)"))?;
            text(url, spec)?;
            let scheme_ok =
                url.is_empty() || url.starts_with("https://") || url.starts_with("http://");
            if !scheme_ok || url.contains(char::is_whitespace) {
                return Err("expected an http:// or https:// URL without spaces".to_owned());
            }
            Ok(Value::Text(url.to_owned()))
        }
        Type::Date => {
            let day = item
                .as_str()
                .ok_or_else(|| wrong("a day \"YYYY-MM-DD\" (a string)"))?;
            let valid = day.is_empty()
                || (day.len() == 10 && chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").is_ok());
            if !valid {
                return Err(format!(
                    "expected a day \"YYYY-MM-DD\" or \"\", found {:?}",
                    printable_prefix(day)
                ));
            }
            Ok(Value::Text(day.to_owned()))
        }
        Type::Text | Type::Word => {
            let value = item.as_str().ok_or_else(|| wrong("a string"))?;
            text(value, spec)?;
            if spec.ty == Type::Word && value.trim().is_empty() {
                return Err("expected a word, found an empty string".to_owned());
            }
            Ok(Value::Text(value.to_owned()))
        }
    }
}

/// Plain printable text of a sane length. Secrets are never echoed.
fn text(value: &str, spec: &KeySpec) -> Result<(), String> {
    if value.chars().count() > MAX_TEXT {
        return Err(format!("longer than {MAX_TEXT} characters"));
    }
    if value.chars().any(char::is_control) {
        return Err(if spec.secret {
            "contains control characters (newline, tab, …)".to_owned()
        } else {
            format!(
                "{:?} contains control characters (newline, tab, …)",
                printable_prefix(value)
            )
        });
    }
    Ok(())
}

/// The start of a value, for a message: short, whatever the file holds.
fn printable_prefix(value: &str) -> String {
    value.chars().take(64).collect()
}

/// How an absolute path starts on this system, for the message that refuses another.
const ABSOLUTE_START: &str = if cfg!(windows) {
    r"a drive such as C:\ or with ~\"
} else {
    "/ or ~/"
};

/// An absolute directory, with a leading `~` expanded.
fn dir(raw: &str, home: Option<&Path>) -> Result<String, String> {
    if raw.is_empty() {
        return Err("a directory path is empty".to_owned());
    }
    if raw.chars().count() > MAX_TEXT || raw.chars().any(char::is_control) {
        return Err(format!(
            "{:?} is not a usable path (control characters or too long)",
            printable_prefix(raw)
        ));
    }
    let rest = if raw == "~" {
        Some("")
    } else {
        raw.strip_prefix("~/")
            .or_else(|| raw.strip_prefix("~\\").filter(|_| cfg!(windows)))
    };
    let path = match (rest, home) {
        (Some(""), Some(home)) => home.to_path_buf(),
        (Some(rest), Some(home)) => home.join(rest),
        (Some(_), None) => {
            return Err(format!(
                "{raw:?} starts with ~ but there is no home directory"
            ))
        }
        (None, _) => Path::new(raw).to_path_buf(),
    };
    if !path.is_absolute() {
        return Err(format!(
            "{raw:?} is not an absolute path (start it with {ABSOLUTE_START})"
        ));
    }
    Ok(path.to_string_lossy().into_owned())
}

fn terminal(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Ok(());
    }
    let here = Os::current();
    match TERMINALS.iter().find(|t| t.id == id) {
        Some(t) if t.os.contains(&here) => Ok(()),
        Some(t) => Err(format!(
            "{id:?} ({}) is a terminal of {}, not of {}",
            t.name,
            t.os.iter()
                .map(|o| o.name())
                .collect::<Vec<_>>()
                .join(" and "),
            here.name()
        )),
        None => {
            let known: Vec<&str> = TERMINALS
                .iter()
                .filter(|t| t.os.contains(&here))
                .map(|t| t.id)
                .collect();
            Err(format!(
                "{:?} is not a known terminal id; use one of {} or empty for Automatic",
                printable_prefix(id),
                known.join(", ")
            ))
        }
    }
}

/// The TOML for `value` (JSON, as the app sends it), refused when it would not read back.
pub fn to_toml(
    spec: &KeySpec,
    value: &serde_json::Value,
    home: Option<&Path>,
) -> Result<Item, ConfigError> {
    let bad = |reason: String| ConfigError::BadValue {
        key: spec.key.to_owned(),
        reason,
    };
    let item = match (spec.ty, value) {
        (Type::Bool, serde_json::Value::Bool(b)) => toml_edit::value(*b),
        (Type::Dirs, serde_json::Value::Array(list)) => {
            let mut array = toml_edit::Array::new();
            for v in list {
                let s = v
                    .as_str()
                    .ok_or_else(|| bad("expected an array of directory paths".to_owned()))?;
                array.push(s);
            }
            toml_edit::value(array)
        }
        (
            Type::Choice(_)
            | Type::Agent
            | Type::Terminal
            | Type::Url
            | Type::Text
            | Type::Word
            | Type::Date,
            serde_json::Value::String(s),
        ) => toml_edit::value(s.as_str()),
        (Type::Bool, _) => return Err(bad("expected true or false".to_owned())),
        (Type::Dirs, _) => return Err(bad("expected an array of directory paths".to_owned())),
        _ => return Err(bad("expected a string".to_owned())),
    };
    validate(spec, &item, home).map_err(bad)?;
    Ok(item)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_checked() {
        let spec = find("filter.since").unwrap();
        let check = |t: &str| validate(spec, &toml_edit::value(t), None);
        assert_eq!(check("2026-03-10"), Ok(Value::Text("2026-03-10".into())));
        assert_eq!(check(""), Ok(Value::Text(String::new())));
        for bad in ["2026-3-10", "2026-02-30", "yesterday", "2026-03-10T00:00"] {
            let err = check(bad).unwrap_err();
            assert!(err.contains("YYYY-MM-DD"), "{bad}: {err}");
        }
        let err = to_toml(spec, &serde_json::json!(20260310), None).unwrap_err();
        assert!(err.to_string().contains("filter.since"), "{err}");
    }

    #[test]
    fn every_key_has_a_valid_default() {
        for spec in KEYS.iter() {
            let item = match spec.default_value() {
                Value::Bool(b) => toml_edit::value(b),
                Value::Text(t) => toml_edit::value(t),
                Value::List(_) => toml_edit::value(toml_edit::Array::new()),
            };
            assert_eq!(
                validate(spec, &item, None),
                Ok(spec.default_value()),
                "{}",
                spec.key
            );
        }
    }

    #[test]
    fn terminal_ids_are_unique_and_plain() {
        for (i, t) in TERMINALS.iter().enumerate() {
            assert!(TERMINALS[i + 1..].iter().all(|o| o.id != t.id), "{}", t.id);
            assert!(t
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'));
        }
    }

    #[test]
    fn sections_are_prefixes_of_keys() {
        assert!(is_section("providers") && is_section("providers.codex") && is_section("ui"));
        assert!(!is_section("ui.theme") && !is_section("provider") && !is_section("u"));
    }

    #[test]
    #[cfg_attr(
        windows,
        ignore = "Linux homes and roots (/home/u): not absolute paths on Windows"
    )]
    fn dirs_expand_the_home_and_must_be_absolute() {
        let home = Path::new("/home/u");
        assert_eq!(
            dir("~/.claude-work", Some(home)).unwrap(),
            "/home/u/.claude-work"
        );
        assert_eq!(dir("~", Some(home)).unwrap(), "/home/u");
        assert!(dir("relative/dir", Some(home))
            .unwrap_err()
            .contains("absolute"));
        assert!(dir("~/x", None).unwrap_err().contains("no home"));
        assert!(dir("", Some(home)).is_err());
        assert!(dir("/a\nb", Some(home)).is_err());
    }

    #[test]
    fn secrets_are_never_echoed() {
        let spec = find("translate.api_key").unwrap();
        let err = validate(spec, &toml_edit::value("sk-SECRET\n"), None).unwrap_err();
        assert!(!err.contains("SECRET"), "{err}");
    }
}
