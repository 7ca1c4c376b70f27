//! The settings file, `config.toml` (SPEC §10): where it is, what it holds, and editing it.
//!
//! Reading never fails: whatever is broken (bad TOML, a wrong type, an unknown terminal id) is
//! a [`ConfigWarning`] naming the file, line and key, and that setting keeps its default. The
//! file itself is only ever written by [`ConfigFile::save`], through `toml_edit`, so the user's
//! comments, ordering and keys we do not know survive an edit.
//!
//! Precedence (flags > environment > config > defaults) is applied where the values are used:
//! roots in [`crate::paths::resolve`]; every other setting has no flag or variable yet.

mod save;
pub(crate) use save::sync_dir;
mod schema;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use toml_edit::DocumentMut;

use crate::filter::{Filter, SortKey};
use crate::model::ProviderKind;
pub use schema::{KeySpec, Os, TerminalInfo, Type, Value, KEYS, TERMINALS};

/// The variable that names the config file, overriding the per-OS location.
pub const CONFIG_ENV: &str = "AGENT_SESSIONS_CONFIG";

/// A config file bigger than this is not read (it cannot be a settings file).
const MAX_BYTES: u64 = 256 * 1024;

/// Where the config file is: `$AGENT_SESSIONS_CONFIG`, else `config.toml` in the per-OS config
/// dir (`$XDG_CONFIG_HOME` or `~/.config` on Linux, `~/Library/Application Support` on macOS,
/// `%APPDATA%` on Windows) under `agent-sessions/`. None only when there is no home at all.
pub fn config_path(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(file) = env(CONFIG_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(file));
    }
    Some(crate::paths::config_dir(env)?.join("config.toml"))
}

/// Where a setting in effect came from, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Flag,
    Env,
    Config,
    Default,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Flag => "flag",
            Source::Env => "env",
            Source::Config => "config",
            Source::Default => "default",
        }
    }
}

/// Something wrong in the config file; the setting it is about keeps its default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(rename = "ConfigProblem")]
pub struct ConfigWarning {
    pub path: PathBuf,
    /// 1-based line, when the problem has a place in the file.
    pub line: Option<usize>,
    /// The dotted key (`ui.theme`), when the problem is about one.
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": {key}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Why the config file could not be changed. The file is untouched in every case.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{0:?} is not a setting; the settings are {list}", list = schema::key_list())]
    UnknownKey(String),

    #[error("{key}: {reason}")]
    BadValue { key: String, reason: String },

    #[error("the config file {path} cannot be edited until it is fixed: {reason}")]
    Broken { path: PathBuf, reason: String },

    #[error("the config file {path} changed since it was read; read it again before saving")]
    Changed { path: PathBuf },

    #[error("cannot write the config file {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("there is no config directory on this system; set {CONFIG_ENV} to a file path")]
    NoPath,
}

impl ConfigError {
    /// A short stable code for front ends.
    pub fn code(&self) -> &'static str {
        match self {
            ConfigError::UnknownKey(_) => "config_unknown_key",
            ConfigError::BadValue { .. } => "config_bad_value",
            ConfigError::Broken { .. } => "config_broken",
            ConfigError::Changed { .. } => "config_changed",
            ConfigError::Write { .. } => "config_write",
            ConfigError::NoPath => "config_no_path",
        }
    }
}

/// The config file as read: its settings (file values over defaults), its problems, and the
/// document to edit.
#[derive(Clone)]
pub struct ConfigFile {
    path: Option<PathBuf>,
    /// The text read from disk (None: there was no file). `save` refuses to overwrite anything else.
    original: Option<String>,
    /// The editable document; None when the file cannot be edited without losing what is in it.
    doc: Option<DocumentMut>,
    /// Why `doc` is None.
    broken: Option<String>,
    /// Valid settings found in the file, normalised (`~/` expanded).
    values: BTreeMap<&'static str, Value>,
    /// `[prices]`: the models whose price the user set (core `pricing`).
    prices: BTreeMap<String, crate::pricing::Price>,
    warnings: Vec<ConfigWarning>,
    home: Option<PathBuf>,
}

impl fmt::Debug for ConfigFile {
    // Never the values: one of them is an API key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConfigFile")
            .field("path", &self.path)
            .field("keys", &self.values.keys().collect::<Vec<_>>())
            .field("warnings", &self.warnings)
            .finish()
    }
}

impl ConfigFile {
    /// No file: every setting is its default.
    pub fn none() -> Self {
        ConfigFile {
            path: None,
            original: None,
            doc: None,
            broken: None,
            values: BTreeMap::new(),
            prices: BTreeMap::new(),
            warnings: Vec::new(),
            home: home_dir(),
        }
    }

    /// Reads the file at [`config_path`]; see [`ConfigFile::load`].
    pub fn load_default(env: &dyn Fn(&str) -> Option<String>) -> Self {
        match config_path(env) {
            Some(path) => ConfigFile::load(&path),
            None => ConfigFile::none(),
        }
    }

    /// Reads `path`. Never fails: a missing file is all defaults, a broken one is warnings.
    pub fn load(path: &Path) -> Self {
        let mut file = ConfigFile {
            path: Some(path.to_path_buf()),
            ..ConfigFile::none()
        };
        match read_text(path) {
            Ok(None) => file.doc = Some(DocumentMut::new()),
            Ok(Some(text)) => {
                file.original = Some(text.clone());
                file.apply_text(&text);
            }
            Err((line, message)) => {
                file.warn(
                    line,
                    None,
                    format!("{message}; every setting has its default"),
                );
                file.broken = Some(message);
            }
        }
        file
    }

    /// Reads settings from `text` as if it were the file at `path` (nothing touches the disk).
    pub fn from_text(path: &Path, text: &str) -> Self {
        let mut file = ConfigFile {
            path: Some(path.to_path_buf()),
            original: Some(text.to_owned()),
            ..ConfigFile::none()
        };
        file.apply_text(text);
        file
    }

    /// Parses `text` into the document, values and warnings.
    fn apply_text(&mut self, text: &str) {
        self.values.clear();
        self.prices.clear();
        self.warnings.clear();
        match toml_edit::Document::parse(text) {
            Ok(parsed) => {
                let found = schema::read(&parsed, self.home.as_deref());
                self.values = found.values;
                self.prices = found.prices;
                for (line, key, message) in found.problems {
                    self.warn(line, key, message);
                }
                self.doc = Some(parsed.into_mut());
                self.broken = None;
            }
            Err(e) => {
                let line = e.span().map(|s| line_of(text, s.start));
                let message = format!("not valid TOML: {}", first_line(e.message()));
                self.warn(
                    line,
                    None,
                    format!("{message}; every setting has its default"),
                );
                self.broken = Some(match line {
                    Some(l) => format!("line {l}: {message}"),
                    None => message,
                });
                self.doc = None;
            }
        }
    }

    fn warn(&mut self, line: Option<usize>, key: Option<String>, message: String) {
        self.warnings.push(ConfigWarning {
            path: self.path.clone().unwrap_or_default(),
            line,
            key,
            message,
        });
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Whether a file was there to read.
    pub fn exists(&self) -> bool {
        self.original.is_some() || self.broken.is_some()
    }

    /// The `[prices]` overrides, for `pricing::install`.
    pub fn prices(&self) -> &BTreeMap<String, crate::pricing::Price> {
        &self.prices
    }

    pub fn warnings(&self) -> &[ConfigWarning] {
        &self.warnings
    }

    /// Whether the file gives `key` a valid value (so it is not its default).
    pub fn is_set(&self, key: &str) -> bool {
        self.values.contains_key(key)
    }

    /// What to do when the file holds the translation key and other users can read or change
    /// it (a file written by hand; Settings saves it 0600): its path, mode and the fix. None
    /// when it holds no key, is private, or on a system without Unix modes.
    pub fn key_exposure(&self) -> Option<String> {
        let path = self.path.as_deref()?;
        if self.values.get("translate.api_key")?.as_text().is_empty() {
            return None;
        }
        let mode = open_to_others(path)?;
        Some(format!(
            "{} holds translate.api_key and other users can read or change it (mode {mode:o}); make it private with `chmod 600 {}`",
            path.display(),
            path.display()
        ))
    }

    /// The value in effect from the file, or the default (None for an unknown key).
    pub fn value(&self, key: &str) -> Option<Value> {
        let spec = schema::find(key)?;
        Some(
            self.values
                .get(spec.key)
                .cloned()
                .unwrap_or_else(|| spec.default_value()),
        )
    }

    /// The typed settings: file values over defaults.
    pub fn settings(&self) -> Settings {
        Settings::from_values(|key| self.value(key).expect("a key of the schema"))
    }

    /// Sets `key` to `value` (a JSON bool, string or array of strings, as the key wants) in the
    /// document; [`ConfigFile::save`] writes it. A value that would not read back is refused.
    pub fn set(&mut self, key: &str, value: &serde_json::Value) -> Result<(), ConfigError> {
        let spec = schema::find(key).ok_or_else(|| ConfigError::UnknownKey(key.to_owned()))?;
        let item = schema::to_toml(spec, value, self.home.as_deref())?;
        let doc = self.editable()?;
        save::put(doc, spec.key, item).map_err(|reason| ConfigError::BadValue {
            key: spec.key.to_owned(),
            reason,
        })?;
        let text = doc.to_string();
        self.apply_text(&text);
        Ok(())
    }

    /// Removes `key` from the document, so it takes its default again.
    pub fn unset(&mut self, key: &str) -> Result<(), ConfigError> {
        let spec = schema::find(key).ok_or_else(|| ConfigError::UnknownKey(key.to_owned()))?;
        let doc = self.editable()?;
        save::remove(doc, spec.key);
        let text = doc.to_string();
        self.apply_text(&text);
        Ok(())
    }

    fn editable(&mut self) -> Result<&mut DocumentMut, ConfigError> {
        let path = self.path.clone().ok_or(ConfigError::NoPath)?;
        match (&mut self.doc, &self.broken) {
            (Some(doc), _) => Ok(doc),
            (None, reason) => Err(ConfigError::Broken {
                path,
                reason: reason.clone().unwrap_or_default(),
            }),
        }
    }

    /// The document as it would be saved.
    pub fn text(&self) -> Option<String> {
        self.doc.as_ref().map(|d| d.to_string())
    }

    /// Writes the document atomically (a temporary file in the same directory, then a rename),
    /// 0600 on unix. Refuses when the file changed on disk since it was read, so an edit made
    /// meanwhile in an editor is never lost. A symlinked file is written where it points.
    pub fn save(&mut self) -> Result<(), ConfigError> {
        let path = self.path.clone().ok_or(ConfigError::NoPath)?;
        let text = self.editable()?.to_string();
        let on_disk = read_text(&path).map_err(|(_, reason)| ConfigError::Broken {
            path: path.clone(),
            reason,
        })?;
        if on_disk != self.original {
            return Err(ConfigError::Changed { path });
        }
        let target = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        save::write_atomic(&target, text.as_bytes(), |_| Ok(()))
            .map_err(|source| ConfigError::Write { path, source })?;
        self.original = Some(text);
        Ok(())
    }
}

/// Reads the file: Ok(None) when there is none; Err((line, why)) when it cannot be used.
fn read_text(path: &Path) -> Result<Option<String>, (Option<usize>, String)> {
    use std::io::Read;
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err((None, format!("cannot read the file: {e}"))),
    };
    // Checked before opening: opening a named pipe would block.
    if !meta.is_file() {
        return Err((None, "not a regular file".to_owned()));
    }
    if meta.len() > MAX_BYTES {
        return Err((None, format!("bigger than {} KiB", MAX_BYTES / 1024)));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| (None, format!("cannot read the file: {e}")))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err((None, format!("bigger than {} KiB", MAX_BYTES / 1024)));
    }
    String::from_utf8(bytes).map(Some).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = line_of(&String::from_utf8_lossy(&e.as_bytes()[..at]), at);
        (Some(line), "not UTF-8 text".to_owned())
    })
}

/// The permission bits of the file at `path` (a link: of the file it points to) when group or
/// others have any of them.
#[cfg(unix)]
fn open_to_others(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
    (mode & 0o077 != 0).then_some(mode)
}

#[cfg(not(unix))]
fn open_to_others(_path: &Path) -> Option<u32> {
    None
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

fn first_line(message: &str) -> &str {
    message.trim().lines().next().unwrap_or("")
}

fn home_dir() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf())
}

/// How the session tree is grouped by default (the app's group modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum GroupBy {
    /// Directory → Agent → Sessions.
    DirAgent,
    /// Agent → Directory → Sessions.
    AgentDir,
    /// One list, newest first.
    Flat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    System,
    Light,
    Dark,
}

/// Every setting, typed: what the app and the CLI use.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct Settings {
    /// Each agent's `[providers.<agent>]`, for every agent of the registry (so adding an agent
    /// adds no field here). Read it with [`Settings::provider`].
    pub providers: BTreeMap<ProviderKind, ProviderSettings>,
    pub ui: UiSettings,
    /// The list's filters as last set.
    pub filter: Filter,
    pub terminal: TerminalSettings,
    pub translate: TranslateSettings,
    pub actions: ActionSettings,
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ProviderSettings {
    pub enabled: bool,
    /// Empty: the agent's environment variable or its per-OS default.
    pub roots: Vec<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct UiSettings {
    pub group_by: GroupBy,
    pub hidden_dirs: Vec<PathBuf>,
    pub theme: Theme,
    pub sort_by: SortKey,
    /// Fold directories under their repository (worktrees under the main one) in the tree.
    pub fold_repos: bool,
    /// The machine shown at start: a Host alias of the ssh config; empty is this computer.
    pub host: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct TerminalSettings {
    /// An id from [`TERMINALS`]; empty means Automatic.
    pub app: String,
}

/// The translation endpoint. Serialising it never includes the key: it is for Rust only.
#[derive(Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct TranslateSettings {
    pub base_url: String,
    #[serde(skip)]
    pub api_key: String,
    pub api_key_set: bool,
    pub model: String,
    pub language: String,
}

impl fmt::Debug for TranslateSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TranslateSettings")
            .field("base_url", &self.base_url)
            .field("api_key_set", &self.api_key_set)
            .field("model", &self.model)
            .field("language", &self.language)
            .finish()
    }
}

impl TranslateSettings {
    /// Nothing is ever sent before an endpoint and a model are set.
    pub fn is_configured(&self) -> bool {
        !self.base_url.is_empty() && !self.model.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ActionSettings {
    pub allow_delete: bool,
    pub allow_permanent_delete: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings::from_values(|key| {
            schema::find(key)
                .expect("a key of the schema")
                .default_value()
        })
    }
}

impl Settings {
    fn from_values(get: impl Fn(&str) -> Value) -> Self {
        let flag = |k: &str| get(k).as_bool();
        let text = |k: &str| get(k).as_text().to_owned();
        let dirs = |k: &str| get(k).as_list().iter().map(PathBuf::from).collect();
        let provider = |kind: ProviderKind| ProviderSettings {
            enabled: flag(&format!("providers.{kind}.enabled")),
            roots: dirs(&format!("providers.{kind}.roots")),
        };
        let day = |t: &str| chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d").ok();
        let api_key = text("translate.api_key");
        Settings {
            providers: crate::provider::registry::AGENTS
                .iter()
                .map(|a| (a.kind, provider(a.kind)))
                .collect(),
            ui: UiSettings {
                group_by: match text("ui.group_by").as_str() {
                    "agent-dir" => GroupBy::AgentDir,
                    "flat" => GroupBy::Flat,
                    _ => GroupBy::DirAgent,
                },
                hidden_dirs: dirs("ui.hidden_dirs"),
                theme: match text("ui.theme").as_str() {
                    "light" => Theme::Light,
                    "dark" => Theme::Dark,
                    _ => Theme::System,
                },
                sort_by: SortKey::parse(&text("ui.sort_by")).unwrap_or_default(),
                fold_repos: flag("ui.fold_repos"),
                host: text("ui.host"),
            },
            filter: Filter {
                agent: ProviderKind::parse(&text("filter.agent")),
                since: day(&text("filter.since")),
                until: day(&text("filter.until")),
                model: Some(text("filter.model")).filter(|m| !m.is_empty()),
                has_subagents: flag("filter.has_subagents"),
                archived: flag("filter.archived"),
                live: flag("filter.live"),
            },
            terminal: TerminalSettings {
                app: text("terminal.app"),
            },
            translate: TranslateSettings {
                base_url: text("translate.base_url"),
                api_key_set: !api_key.is_empty(),
                api_key,
                model: text("translate.model"),
                language: text("translate.language"),
            },
            actions: ActionSettings {
                allow_delete: flag("actions.allow_delete"),
                allow_permanent_delete: flag("actions.allow_permanent_delete"),
            },
        }
    }

    /// One agent's settings. Settings read or defaulted list every agent; one missing (only
    /// possible in a value built by hand) is off.
    pub fn provider(&self, kind: ProviderKind) -> &ProviderSettings {
        static OFF: ProviderSettings = ProviderSettings {
            enabled: false,
            roots: Vec::new(),
        };
        self.providers.get(&kind).unwrap_or(&OFF)
    }
}

/// One setting as shown to people: its value in effect (secrets masked) and where it came from.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    pub key: &'static str,
    pub value: serde_json::Value,
    pub source: Source,
    /// The variable behind an `env` source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env: Option<&'static str>,
}

/// What a secret shows as once it is set.
pub const MASK: &str = "********";

/// Every setting in effect, in schema order, with its source: roots and `enabled` as resolved
/// (flags and environment included), the rest from the file or the defaults.
pub fn describe(file: &ConfigFile, resolved: &crate::paths::Resolved) -> Vec<Shown> {
    KEYS.iter()
        .map(|spec| {
            let mut shown = Shown {
                key: spec.key,
                value: file.value(spec.key).expect("a key of the schema").to_json(),
                source: if file.is_set(spec.key) {
                    Source::Config
                } else {
                    Source::Default
                },
                env: None,
            };
            if let Some(p) = resolved.for_key(spec.key) {
                if spec.key.ends_with(".enabled") {
                    shown.value = p.enabled.into();
                    shown.source = p.enabled_from;
                } else {
                    shown.value = p
                        .roots
                        .iter()
                        .map(|r| r.to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .into();
                    shown.source = p.roots_from;
                    shown.env = p.env_var;
                }
            }
            if spec.secret && shown.value.as_str().is_some_and(|s| !s.is_empty()) {
                shown.value = MASK.into();
            }
            shown
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_from_one() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 99), 3);
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let s = Settings::default();
        assert_eq!(s.providers.len(), ProviderKind::ALL.len());
        assert!(ProviderKind::ALL.iter().all(|&k| s.provider(k).enabled));
        assert!(s.provider(ProviderKind::Claude).roots.is_empty());
        assert_eq!(s.ui.group_by, GroupBy::DirAgent);
        assert_eq!(s.ui.theme, Theme::System);
        assert_eq!(s.ui.host, "", "this computer");
        assert_eq!(s.terminal.app, "");
        assert_eq!(s.translate.language, "Vietnamese");
        assert!(!s.translate.is_configured());
        assert!(!s.actions.allow_delete && !s.actions.allow_permanent_delete);
    }

    #[test]
    fn the_env_variable_names_the_file() {
        let env = |k: &str| (k == CONFIG_ENV).then(|| "/x/my.toml".to_owned());
        assert_eq!(config_path(&env), Some(PathBuf::from("/x/my.toml")));
        let empty = |k: &str| (k == CONFIG_ENV).then(String::new);
        let default = config_path(&empty).unwrap();
        assert!(
            default.ends_with("agent-sessions/config.toml"),
            "{default:?}"
        );
    }
}

#[cfg(test)]
mod price_tests {
    use super::*;

    #[test]
    fn prices_are_read_from_their_table_and_bad_ones_warned_about() {
        let text = r#"
[ui]
theme = "dark"

[prices."mock-model"]
input = 1
output = 2.5
cache_read = 0.1

[prices."half"]
input = 1

[prices."bad"]
input = -1
output = 1

[prices."odd"]
input = 1
output = 1
batch = 3
"#;
        let file = ConfigFile::from_text(Path::new("/x/config.toml"), text);
        let prices = file.prices();
        assert_eq!(prices.keys().collect::<Vec<_>>(), ["mock-model"]);
        let p = prices["mock-model"];
        assert_eq!(
            (p.input, p.output, p.cache_read, p.cache_write),
            (1.0, 2.5, Some(0.1), None)
        );
        let warned: Vec<(Option<usize>, Option<&str>)> = file
            .warnings()
            .iter()
            .map(|w| (w.line, w.key.as_deref()))
            .collect();
        assert_eq!(
            warned,
            [
                (Some(10), Some("prices.half")),
                (Some(13), Some("prices.bad")),
                (Some(17), Some("prices.odd"))
            ]
        );
        assert!(file.warnings()[0].message.contains("output is missing"));
        // The other settings are read as before.
        assert_eq!(file.settings().ui.theme, Theme::Dark);
    }
}
