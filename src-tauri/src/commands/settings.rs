//! The Settings pane: `config.toml` as the app uses it, and saving the user's changes to it.
//!
//! Saving reads the file again, applies only the keys the pane changed (through core's
//! `ConfigFile::set`/`unset`, which refuse a value that would not read back), and writes it
//! with `ConfigFile::save` (atomic, 0600, comments and unknown keys kept). Any refused value
//! means nothing is written. The API key only ever goes in: the view says whether one is set.

use std::path::PathBuf;

use agent_sessions_core::config::{ConfigError, ConfigFile, ConfigWarning, Settings};
use agent_sessions_core::paths::ProviderRoots;
use serde::{Deserialize, Serialize};
use tauri::AppHandle;

use super::{off_main, CmdError, CmdResult};
use crate::state::{resolved, AppState};

/// What the pane shows.
#[derive(Serialize, ts_rs::TS)]
pub struct SettingsView {
    /// Where the file is (None: no config directory on this system).
    path: Option<PathBuf>,
    exists: bool,
    /// File values over defaults; the API key is never in it (`api_key_set` says if one is).
    settings: Settings,
    /// What is wrong in the file (file, line, key, message): those keys have their defaults.
    problems: Vec<ConfigWarning>,
    /// The roots in effect per provider and where they came from (an agent's variable wins
    /// over the config's roots).
    providers: Vec<ProviderRoots>,
    /// The roots in effect that are not folders here (a mistyped store in the pane read
    /// nothing, saying nothing: its agent's sessions just left the list).
    missing_roots: Vec<PathBuf>,
}

impl SettingsView {
    fn of(file: &ConfigFile) -> Self {
        SettingsView {
            path: file.path().map(PathBuf::from),
            exists: file.exists(),
            settings: file.settings(),
            problems: file.warnings().to_vec(),
            missing_roots: Vec::new(),
            providers: resolved(file).map(|r| r.providers).unwrap_or_default(),
        }
        .with_missing_roots()
    }

    fn with_missing_roots(mut self) -> Self {
        self.missing_roots = self
            .providers
            .iter()
            .flat_map(|p| &p.roots)
            .filter(|root| !root.is_dir())
            .cloned()
            .collect();
        self
    }
}

/// One change: `value` null puts the key back to its default (removes it from the file).
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(rename = "SettingChange")]
pub struct Change {
    key: String,
    value: Option<serde_json::Value>,
}

impl Change {
    /// `key` set to `value`, or put back to its default with none.
    pub(super) fn new(key: &str, value: Option<serde_json::Value>) -> Change {
        Change {
            key: key.to_owned(),
            value,
        }
    }
}

impl From<ConfigError> for CmdError {
    fn from(e: ConfigError) -> Self {
        match e {
            ConfigError::Write { .. } | ConfigError::NoPath => CmdError::new_io(e.to_string()),
            _ => CmdError::invalid_input(e.to_string()),
        }
    }
}

#[tauri::command]
pub async fn get_settings(app: AppHandle) -> CmdResult<SettingsView> {
    off_main(app, |state| {
        let loaded = state.config.lock()?.clone();
        match changed_on_disk(&loaded) {
            Some(fresh) => {
                let view = SettingsView::of(&fresh);
                state.apply_config(fresh)?;
                Ok(view)
            }
            None => Ok(SettingsView::of(&loaded)),
        }
    })
    .await
}

/// The file as it is on disk now, when it reads differently from `loaded` (an edit made in an
/// editor while the app runs): the pane showed what was read at start ("not created yet" for
/// a file made since), though a save already merged into the file as it is. Nothing is written.
fn changed_on_disk(loaded: &ConfigFile) -> Option<ConfigFile> {
    let fresh = ConfigFile::load(loaded.path()?);
    let seen = |f: &ConfigFile| serde_json::to_value(SettingsView::of(f)).ok();
    (seen(&fresh) != seen(loaded)).then_some(fresh)
}

/// Applies `changes` to the file as it is on disk now, saves it, and makes the app use it.
#[tauri::command]
pub async fn save_settings(app: AppHandle, changes: Vec<Change>) -> CmdResult<SettingsView> {
    off_main(app, move |state| save(state, &changes)).await
}

pub(super) fn save(state: &AppState, changes: &[Change]) -> CmdResult<SettingsView> {
    let path = state
        .config
        .lock()?
        .path()
        .map(PathBuf::from)
        .ok_or(ConfigError::NoPath)?;
    let mut file = edited(ConfigFile::load(&path), changes)?;
    file.save()?;
    let view = SettingsView::of(&file);
    state.apply_config(file)?;
    Ok(view)
}

/// `file` with `changes` applied, or the first change refused (naming its key).
fn edited(mut file: ConfigFile, changes: &[Change]) -> Result<ConfigFile, ConfigError> {
    for change in changes {
        match &change.value {
            Some(value) => file.set(&change.key, value)?,
            None => file.unset(&change.key)?,
        }
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn change(key: &str, value: serde_json::Value) -> Change {
        Change {
            key: key.into(),
            value: (!value.is_null()).then_some(value),
        }
    }

    const FILE: &str = "# my settings\n[ui]\ntheme = \"light\" # I like it light\n\n[translate]\napi_key = \"sk-old\"\nmystery = 1\n";

    #[test]
    fn changes_keep_comments_and_unknown_keys_and_the_key_stays_out_of_the_view() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, FILE).unwrap();
        let changes = [
            change("ui.theme", json!("dark")),
            change("ui.hidden_dirs", json!(["/tmp/hidden"])),
            change("terminal.app", json!("")),
        ];
        let mut file = edited(ConfigFile::load(&path), &changes).unwrap();
        file.save().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# my settings\n[ui]\ntheme = \"dark\" # I like it light\n"));
        assert!(text.contains("mystery = 1") && text.contains("hidden_dirs = [\"/tmp/hidden\"]"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let view = serde_json::to_string(&SettingsView::of(&ConfigFile::load(&path))).unwrap();
        assert!(!view.contains("sk-old"), "{view}");
        assert!(view.contains("\"api_key_set\":true"), "{view}");
        // Clearing the key removes it; the rest stays.
        let mut file = edited(
            ConfigFile::load(&path),
            &[change("translate.api_key", json!(null))],
        )
        .unwrap();
        file.save().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("sk-old") && text.contains("mystery = 1"),
            "{text}"
        );
        assert!(!ConfigFile::load(&path).settings().translate.api_key_set);
    }

    /// Clearing an agent's roots in the pane sends null (ui `changesOf`): the key goes, so the
    /// agent's own store applies, and no `roots = []` is left in the user's file; every comment
    /// stays, the one written above the key too.
    #[test]
    fn a_cleared_list_removes_its_key_and_keeps_the_comments() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let store = dir.path().join("work-claude");
        std::fs::create_dir(&store).unwrap();
        let text = format!(
            "# my settings\n[providers.claude]\n# the work store, for now\nroots = [{:?}] # work\nenabled = true # on\n# after the keys\n\n[ui]\n# hidden\nhidden_dirs = [\"/tmp\"]\ntheme = \"light\" # I like it light\n",
            store.to_str().unwrap()
        );
        std::fs::write(&path, &text).unwrap();
        assert_eq!(
            ConfigFile::load(&path)
                .settings()
                .provider(agent_sessions_core::ProviderKind::Claude)
                .roots,
            [store]
        );
        let changes = [
            change("providers.claude.roots", json!(null)),
            change("ui.hidden_dirs", json!(null)),
        ];
        let mut file = edited(ConfigFile::load(&path), &changes).unwrap();
        file.save().unwrap();
        let saved = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            saved,
            "# my settings\n[providers.claude]\n# the work store, for now\nenabled = true # on\n# after the keys\n\n[ui]\n# hidden\ntheme = \"light\" # I like it light\n"
        );
        let settings = ConfigFile::load(&path).settings();
        let claude = settings.provider(agent_sessions_core::ProviderKind::Claude);
        assert!(claude.roots.is_empty() && claude.enabled);
        assert!(settings.ui.hidden_dirs.is_empty());
    }

    /// A file edited by hand while the app runs is read again when Settings is opened: the
    /// new values and that it exists now; an unchanged one is not.
    #[test]
    fn an_edit_made_meanwhile_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let loaded = ConfigFile::load(&path);
        assert!(changed_on_disk(&loaded).is_none());
        std::fs::write(&path, "# by hand\n[translate]\nmodel = \"edited\"\n").unwrap();
        let fresh = changed_on_disk(&loaded).expect("the edit is seen");
        let view = SettingsView::of(&fresh);
        assert!(view.exists && view.settings.translate.model == "edited");
        assert!(changed_on_disk(&fresh).is_none());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "# by hand\n[translate]\nmodel = \"edited\"\n"
        );
    }

    /// A root typed in the pane that is not a folder is named as missing (it read nothing,
    /// and nothing said so); one that is there is not.
    #[test]
    fn a_root_that_is_not_there_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let there = dir.path().join("claude-store");
        std::fs::create_dir(&there).unwrap();
        let gone = dir.path().join("no such store");
        let roots = json!([there.to_str().unwrap(), gone.to_str().unwrap()]);
        let mut file = edited(
            ConfigFile::load(&path),
            &[change("providers.claude.roots", roots)],
        )
        .unwrap();
        file.save().unwrap();
        let view = SettingsView::of(&ConfigFile::load(&path));
        let claude = view
            .providers
            .iter()
            .find(|p| p.provider == agent_sessions_core::ProviderKind::Claude)
            .unwrap();
        if claude.env_var.is_none() {
            assert_eq!(claude.roots, [there.clone(), gone.clone()]);
            assert!(
                view.missing_roots.contains(&gone),
                "{:?}",
                view.missing_roots
            );
        }
        assert!(
            !view.missing_roots.contains(&there),
            "{:?}",
            view.missing_roots
        );
    }

    #[test]
    fn a_refused_value_writes_nothing_and_says_which_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, FILE).unwrap();
        for (key, value, says) in [
            ("ui.theme", json!("purple"), "ui.theme"),
            (
                "providers.claude.roots",
                json!(["relative/dir"]),
                "absolute",
            ),
            (
                "terminal.app",
                json!("not-a-terminal"),
                "not a known terminal",
            ),
            ("translate.base_url", json!("ftp://x"), "http"),
            ("no.such.key", json!(true), "not a setting"),
        ] {
            // A valid change first: it must not be written either.
            let changes = [change("ui.theme", json!("dark")), change(key, value)];
            let err = CmdError::from(edited(ConfigFile::load(&path), &changes).err().unwrap());
            assert_eq!(err.code, "invalid_input", "{key}");
            assert!(err.message.contains(says), "{key}: {}", err.message);
            assert_eq!(std::fs::read_to_string(&path).unwrap(), FILE);
        }
    }

    #[test]
    fn a_broken_file_is_shown_with_its_problems_and_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let broken = "[ui]\ntheme = \"light\"\ngroup_by = \"sideways\"\n[providers\n";
        std::fs::write(&path, broken).unwrap();
        let view = SettingsView::of(&ConfigFile::load(&path));
        assert_eq!(view.problems.len(), 1);
        assert_eq!(view.problems[0].line, Some(4));
        let err = edited(
            ConfigFile::load(&path),
            &[change("ui.theme", json!("dark"))],
        )
        .err()
        .unwrap();
        assert!(err
            .to_string()
            .contains("cannot be edited until it is fixed"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
        // A wrong value alone is a problem with its line and key, and the rest still works.
        std::fs::write(&path, "[ui]\ntheme = \"light\"\ngroup_by = \"sideways\"\n").unwrap();
        let view = SettingsView::of(&ConfigFile::load(&path));
        let p = &view.problems[0];
        assert_eq!((p.line, p.key.as_deref()), (Some(3), Some("ui.group_by")));
        assert_eq!(
            view.settings.ui.theme,
            agent_sessions_core::config::Theme::Light
        );
    }
}
