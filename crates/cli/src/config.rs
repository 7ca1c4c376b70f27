//! `config path|show|check`: the settings file as this command sees it.

use agent_sessions_core::config::{describe, ConfigFile, ConfigWarning, Shown, CONFIG_ENV};
use agent_sessions_core::paths::Resolved;
use clap::Subcommand;
use serde_json::json;

use crate::envelope::Envelope;

#[derive(Subcommand)]
pub enum ConfigAction {
    /// Print where the config file is (it need not exist).
    Path,
    /// Print every setting in effect and where it came from: flag, env, config or default.
    Show,
    /// Check the file; exit 2 and list its problems when something in it is broken.
    Check,
}

/// What `config <action>` prints; `env` is the process environment (for where the path came from).
pub fn run(
    action: &ConfigAction,
    file: &ConfigFile,
    resolved: &Resolved,
    env: &dyn Fn(&str) -> Option<String>,
) -> Envelope {
    let Some(path) = file.path() else {
        return Envelope::ok(json!(null), String::new()).fail_with(
            "config_no_path",
            format!("there is no config directory on this system; set {CONFIG_ENV} to a file path"),
        );
    };
    let exists = file.exists();
    let status = if exists {
        ""
    } else {
        " (no such file: every setting has its default)"
    };
    match action {
        ConfigAction::Path => {
            let from = if env(CONFIG_ENV).is_some_and(|v| !v.is_empty()) {
                "env"
            } else {
                "default"
            };
            Envelope::ok(
                json!({ "path": path, "exists": exists, "source": from }),
                format!("{}\n", path.display()),
            )
        }
        ConfigAction::Show => {
            let settings = describe(file, resolved);
            let text = format!("# {}{status}\n{}", path.display(), table(&settings));
            Envelope::ok(
                json!({ "path": path, "exists": exists, "settings": settings, "problems": file.warnings() }),
                text,
            )
        }
        ConfigAction::Check => check(file, exists),
    }
}

/// The file's problems (exit 2 when there are any), and a warning when others can read the key
/// it holds: the file is still valid, but the key is not the user's alone.
fn check(file: &ConfigFile, exists: bool) -> Envelope {
    let mut envelope = check_problems(file, exists);
    envelope.warn(file.key_exposure().as_slice());
    envelope
}

fn check_problems(file: &ConfigFile, exists: bool) -> Envelope {
    let path = file.path().unwrap_or_else(|| std::path::Path::new(""));
    let problems: &[ConfigWarning] = file.warnings();
    let data = json!({ "path": path, "exists": exists, "valid": problems.is_empty(), "problems": problems });
    if problems.is_empty() {
        let text = if exists {
            format!("{}: ok\n", path.display())
        } else {
            format!(
                "{}: no such file; every setting has its default\n",
                path.display()
            )
        };
        return Envelope::ok(data, text);
    }
    let n = problems.len();
    Envelope::ok(data, String::new()).fail_with(
        "config_invalid",
        format!(
            "{n} problem{} in {}: those settings have their defaults; the file was left as it is",
            if n == 1 { "" } else { "s" },
            path.display()
        ),
    )
}

/// `key  value  source`, aligned; secrets are already masked by `describe`.
fn table(settings: &[Shown]) -> String {
    let rows: Vec<(String, String, String)> = settings
        .iter()
        .map(|s| {
            let source = match s.env {
                Some(var) => format!("env {var}"),
                None => s.source.as_str().to_owned(),
            };
            (s.key.to_owned(), s.value.to_string(), source)
        })
        .collect();
    let key_w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let value_w = rows
        .iter()
        .map(|r| r.1.chars().count())
        .max()
        .unwrap_or(0)
        .min(60);
    rows.iter()
        .map(|(k, v, s)| format!("{k:key_w$}  {v:value_w$}  {s}\n"))
        .collect()
}
