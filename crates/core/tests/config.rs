//! config.toml: precedence, broken files, and edits that keep the user's file as they wrote it.

use std::path::{Path, PathBuf};

use agent_sessions_core::config::{ConfigFile, GroupBy, Source, Theme};
use agent_sessions_core::paths::resolve;
use agent_sessions_core::{ProviderKind, Roots};
use serde_json::json;

fn no_env(_: &str) -> Option<String> {
    None
}

fn file(text: &str) -> ConfigFile {
    ConfigFile::from_text(Path::new("/cfg/config.toml"), &here(text))
}

/// `p`, an absolute Linux path as these tests write them, absolute on this system: on Windows
/// on drive C: (`/a` is relative to the current drive there, and a config refuses it).
fn abs(p: &str) -> String {
    if cfg!(windows) && p.starts_with('/') {
        format!("C:{p}")
    } else {
        p.to_owned()
    }
}

/// A terminal of this system, and one of Linux and macOS only.
const NATIVE_TERMINAL: &str = if cfg!(windows) {
    "windows-terminal"
} else {
    "kgx"
};

/// A config file's text as written on this system: its absolute paths (`"/…"`) made absolute
/// here (see [`abs`]) and the Linux terminal in it (`kitty`) one of this system.
fn here(text: &str) -> String {
    if cfg!(windows) {
        text.replace("\"/", "\"C:/")
            .replace("\"kitty\"", "\"windows-terminal\"")
    } else {
        text.to_owned()
    }
}

/// One row of the precedence table: what each layer says, and what must win.
struct Row {
    name: &'static str,
    flag: bool,
    env: Option<&'static str>,
    config: &'static str,
    roots: &'static [&'static str],
    roots_from: Source,
    enabled: bool,
    enabled_from: Source,
}

/// The VS Code extension's folder of Cline, under the home, on this system.
const CLINE_EXTENSION: &str = if cfg!(target_os = "macos") {
    "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev"
} else if cfg!(windows) {
    "AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev"
} else {
    ".config/Code/User/globalStorage/saoudrizwan.claude-dev"
};
#[test]
fn precedence_is_flags_then_env_then_config_then_defaults() {
    let flag_dir = tempfile::tempdir().unwrap();
    let flag = flag_dir.path().to_str().unwrap().to_owned();
    let home = directories::BaseDirs::new()
        .unwrap()
        .home_dir()
        .to_path_buf();
    let rows = [
        Row {
            name: "nothing set: the per-OS default",
            flag: false,
            env: None,
            config: "",
            roots: &["<home>"],
            roots_from: Source::Default,
            enabled: true,
            enabled_from: Source::Default,
        },
        Row {
            name: "config roots, several",
            flag: false,
            env: None,
            config: r#"roots = ["/c/one", "/c/two"]"#,
            roots: &["/c/one", "/c/two"],
            roots_from: Source::Config,
            enabled: true,
            enabled_from: Source::Default,
        },
        Row {
            name: "an empty roots list is the default",
            flag: false,
            env: None,
            config: "roots = []",
            roots: &["<home>"],
            roots_from: Source::Default,
            enabled: true,
            enabled_from: Source::Default,
        },
        Row {
            name: "env beats config",
            flag: false,
            env: Some("/e"),
            config: r#"roots = ["/c/one"]"#,
            roots: &["/e"],
            roots_from: Source::Env,
            enabled: true,
            enabled_from: Source::Default,
        },
        Row {
            name: "an empty variable is unset",
            flag: false,
            env: Some(""),
            config: r#"roots = ["/c/one"]"#,
            roots: &["/c/one"],
            roots_from: Source::Config,
            enabled: true,
            enabled_from: Source::Default,
        },
        Row {
            name: "flag beats env and config",
            flag: true,
            env: Some("/e"),
            config: r#"roots = ["/c/one"]"#,
            roots: &["<flag>"],
            roots_from: Source::Flag,
            enabled: true,
            enabled_from: Source::Flag,
        },
        Row {
            name: "config disables",
            flag: false,
            env: None,
            config: "enabled = false",
            roots: &["<home>"],
            roots_from: Source::Default,
            enabled: false,
            enabled_from: Source::Config,
        },
        Row {
            name: "the environment moves roots but does not enable",
            flag: false,
            env: Some("/e"),
            config: "enabled = false",
            roots: &["/e"],
            roots_from: Source::Env,
            enabled: false,
            enabled_from: Source::Config,
        },
        Row {
            name: "a root flag enables a provider the config disables",
            flag: true,
            env: None,
            config: "enabled = false",
            roots: &["<flag>"],
            roots_from: Source::Flag,
            enabled: true,
            enabled_from: Source::Flag,
        },
    ];
    for kind in ProviderKind::ALL {
        let var = agent_sessions_core::paths::env_var(kind);
        for row in &rows {
            let text = format!("[providers.{kind}]\n{}\n", row.config);
            let config = file(&text);
            assert!(
                config.warnings().is_empty(),
                "{}: {:?}",
                row.name,
                config.warnings()
            );
            let env = |k: &str| (k == var).then(|| row.env.map(abs)).flatten();
            let mut explicit = Roots::default();
            if row.flag {
                explicit.set(kind, [&flag]);
            }
            let resolved = resolve(&explicit, &env, &config).unwrap();
            let got = resolved.get(kind);
            let expected: Vec<PathBuf> = row
                .roots
                .iter()
                .flat_map(|r| match *r {
                    "<flag>" => vec![PathBuf::from(&flag)],
                    "<home>" => match kind {
                        ProviderKind::Claude => vec![home.join(".claude")],
                        ProviderKind::Codex => vec![home.join(".codex")],
                        ProviderKind::Opencode => vec![home.join(".local/share/opencode")],
                        ProviderKind::Gemini => vec![home.join(".gemini")],
                        ProviderKind::Qwen => vec![home.join(".qwen")],
                        // Its CLI's store, then the VS Code extension's folder.
                        ProviderKind::Cline => {
                            vec![home.join(".cline"), home.join(CLINE_EXTENSION)]
                        }
                        ProviderKind::Copilot => vec![home.join(".copilot")],
                        // No central store: nothing under the home is searched by default.
                        ProviderKind::Aider => vec![],
                    },
                    // XDG_DATA_HOME names the data dir; OpenCode's store is in it.
                    "/e" if kind == ProviderKind::Opencode => {
                        vec![PathBuf::from(abs("/e/opencode"))]
                    }
                    // GEMINI_CLI_HOME names the home folder; Gemini's store is `.gemini` in it.
                    "/e" if kind == ProviderKind::Gemini => vec![PathBuf::from(abs("/e/.gemini"))],
                    other => vec![PathBuf::from(abs(other))],
                })
                .collect();
            let name = format!("{kind}: {}", row.name);
            assert_eq!(got.roots, expected, "{name}");
            assert_eq!(got.roots_from, row.roots_from, "{name}");
            assert_eq!(
                got.env_var,
                (row.roots_from == Source::Env).then_some(var),
                "{name}"
            );
            assert_eq!(got.enabled, row.enabled, "{name}");
            assert_eq!(got.enabled_from, row.enabled_from, "{name}");
            // A disabled provider reads nothing; the others are untouched by its row.
            let roots = resolved.roots();
            let reads = !expected.is_empty() && row.enabled;
            assert_eq!(!roots.for_kind(kind).is_empty(), reads, "{name}");
            for other in ProviderKind::ALL.into_iter().filter(|o| *o != kind) {
                assert_eq!(resolved.get(other).roots_from, Source::Default, "{name}");
            }
        }
    }
}

#[test]
fn a_missing_root_flag_is_still_an_error() {
    let explicit = Roots::default().with(ProviderKind::Codex, ["/nonexistent/codex-root"]);
    let err = resolve(&explicit, &no_env, &file("")).unwrap_err();
    assert_eq!(err.code(), "root_missing");
}

#[test]
fn every_setting_is_read() {
    let config = file(
        r#"
[providers.claude]
enabled = false
roots = ["/a", "~/b"]

[ui]
group_by = "agent-dir"
hidden_dirs = ["/tmp"]
theme = "dark"

[terminal]
app = ""

[translate]
base_url = "https://api.example.com/v1"
api_key = "sk-secret-value"
model = "gpt-x"
language = "French"

[actions]
allow_delete = true
allow_permanent_delete = true
"#,
    );
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let s = config.settings();
    let home = directories::BaseDirs::new()
        .unwrap()
        .home_dir()
        .to_path_buf();
    assert!(!s.provider(ProviderKind::Claude).enabled);
    assert_eq!(
        s.provider(ProviderKind::Claude).roots,
        vec![PathBuf::from(abs("/a")), home.join("b")]
    );
    assert!(
        s.provider(ProviderKind::Codex).enabled && s.provider(ProviderKind::Codex).roots.is_empty()
    );
    assert_eq!(s.ui.group_by, GroupBy::AgentDir);
    assert_eq!(s.ui.hidden_dirs, vec![PathBuf::from(abs("/tmp"))]);
    assert_eq!(s.ui.theme, Theme::Dark);
    assert_eq!(s.translate.model, "gpt-x");
    assert_eq!(s.translate.language, "French");
    assert!(s.translate.is_configured());
    assert!(s.actions.allow_delete && s.actions.allow_permanent_delete);
    // What goes to the webview or a log never holds the key.
    let json = serde_json::to_string(&s).unwrap();
    assert!(
        !json.contains("sk-secret") && json.contains("\"api_key_set\":true"),
        "{json}"
    );
    assert!(!format!("{s:?} {config:?}").contains("sk-secret"));
    // Shown settings mask it as well.
    let resolved = resolve(&Roots::default(), &no_env, &config).unwrap();
    let shown = agent_sessions_core::config::describe(&config, &resolved);
    let key = shown.iter().find(|s| s.key == "translate.api_key").unwrap();
    assert_eq!(key.value, json!("********"));
    assert_eq!(key.source, Source::Config);
    let theme = shown.iter().find(|s| s.key == "ui.theme").unwrap();
    assert_eq!(
        (theme.value.clone(), theme.source),
        (json!("dark"), Source::Config)
    );
    let model = shown
        .iter()
        .find(|s| s.key == "actions.allow_delete")
        .unwrap();
    assert_eq!(model.source, Source::Config);
    let lang = file("").settings().translate.language;
    assert_eq!(lang, "Vietnamese");
}

#[test]
fn bad_toml_names_the_line_and_every_setting_keeps_its_default() {
    let config = file("[ui]\ntheme = \"dark\"\n\n[terminal\napp = \"kitty\"\n");
    let w = config.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].line, Some(4));
    assert_eq!(w[0].key, None);
    let text = w[0].to_string();
    assert!(
        text.starts_with("/cfg/config.toml:4: not valid TOML: "),
        "{text}"
    );
    assert_eq!(
        config.settings(),
        agent_sessions_core::config::Settings::default()
    );
}

#[test]
fn a_wrong_type_costs_that_key_only() {
    let config = file(
        "[ui]\ntheme = 3\ngroup_by = \"flat\"\n\n[providers.codex]\nenabled = \"no\"\nroots = [\"/ok\", 5]\n\n[actions]\nallow_delete = true\n",
    );
    let w: Vec<String> = config.warnings().iter().map(|w| w.to_string()).collect();
    assert_eq!(
        w,
        [
            "/cfg/config.toml:2: ui.theme: expected one of \"system\", \"light\", \"dark\", found an integer; using the default \"system\"".to_owned(),
            "/cfg/config.toml:6: providers.codex.enabled: expected true or false, found a string; using the default true".to_owned(),
            "/cfg/config.toml:7: providers.codex.roots: expected directory paths, found an integer; using the default []".to_owned(),
        ],
        "{w:#?}"
    );
    let s = config.settings();
    assert_eq!(s.ui.theme, Theme::System);
    assert_eq!(s.ui.group_by, GroupBy::Flat);
    assert!(
        s.provider(ProviderKind::Codex).enabled && s.provider(ProviderKind::Codex).roots.is_empty()
    );
    assert!(s.actions.allow_delete);
}

#[test]
fn bad_values_name_their_key() {
    let cases = [
        (
            "[terminal]\napp = \"my-term --exec sh\"",
            "terminal.app",
            "not a known terminal id",
        ),
        (
            "[terminal]\napp = [\"kitty\"]",
            "terminal.app",
            "found an array",
        ),
        ("[ui]\ntheme = \"blue\"", "ui.theme", "found \"blue\""),
        (
            "[ui]\nhidden_dirs = [\"relative\"]",
            "ui.hidden_dirs",
            "not an absolute path",
        ),
        (
            "[translate]\nbase_url = \"ftp://x\"",
            "translate.base_url",
            "http:// or https://",
        ),
        (
            "[translate]\nlanguage = \"\"",
            "translate.language",
            "empty",
        ),
        (
            "[translate]\nmodel = \"a\\u0007b\"",
            "translate.model",
            "control characters",
        ),
        (
            "ui = 5",
            "ui",
            "expected a table of settings, found an integer",
        ),
        ("[ui.theme]\nx = 1", "ui.theme", "found a table"),
        (
            "[providers.claude]\nenabeld = false",
            "providers.claude.enabeld",
            "not a known setting",
        ),
        (
            // No agent is called that (the agents we read are known settings).
            "[providers.vim]\nenabled = true",
            "providers.vim",
            "not a known setting",
        ),
        ("[[ui]]\ntheme = \"dark\"", "ui", "array of tables"),
    ];
    for (text, key, says) in cases {
        let config = file(text);
        let w = config.warnings();
        assert_eq!(w.len(), 1, "{text}: {w:?}");
        assert_eq!(w[0].key.as_deref(), Some(key), "{text}");
        assert!(w[0].line.is_some(), "{text}: {w:?}");
        assert!(w[0].message.contains(says), "{text}: {}", w[0].message);
    }
    assert_eq!(
        file("[terminal]\napp = \"nope\"").settings().terminal.app,
        ""
    );
}

#[cfg(not(target_os = "macos"))]
#[test]
fn a_terminal_of_another_system_is_refused() {
    let config = file("[terminal]\napp = \"iterm2\"");
    assert!(
        config.warnings()[0]
            .message
            .contains("is a terminal of macOS"),
        "{:?}",
        config.warnings()
    );
    assert_eq!(config.settings().terminal.app, "");
    let native = format!("[terminal]\napp = \"{NATIVE_TERMINAL}\"");
    assert!(file(&native).warnings().is_empty());
}

/// The file as a user wrote it: comments everywhere, an odd order, keys we do not know.
const USER_FILE: &str = r#"# My agent-sessions settings.
# (kept in a dotfiles repo)

[terminal]   # the one I use
app = "kitty"

[ui]
theme   =   "light"   # easier on the eyes in the day
# group_by = "flat"
future_option = { nested = 1 }

[providers.claude]
# Work and personal accounts.
roots = [
  "/home/u/.claude",      # personal
  "/home/u/.claude-work", # work
]

[somebody-elses-table]
x = 1
"#;

#[test]
fn set_and_save_keep_comments_order_and_unknown_keys() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, here(USER_FILE)).unwrap();
    let mut config = ConfigFile::load(&path);
    assert_eq!(config.warnings().len(), 2, "{:?}", config.warnings()); // two unknown keys
    config.set("ui.theme", &json!("dark")).unwrap();
    config.set("terminal.app", &json!("")).unwrap();
    config.set("ui.group_by", &json!("agent-dir")).unwrap();
    config
        .set("providers.codex.enabled", &json!(false))
        .unwrap();
    config.set("translate.api_key", &json!("sk-new")).unwrap();
    config.save().unwrap();
    let expected = &here(
        r#"# My agent-sessions settings.
# (kept in a dotfiles repo)

[terminal]   # the one I use
app = ""

[ui]
theme   =   "dark"   # easier on the eyes in the day
# group_by = "flat"
future_option = { nested = 1 }
group_by = "agent-dir"

[providers.claude]
# Work and personal accounts.
roots = [
  "/home/u/.claude",      # personal
  "/home/u/.claude-work", # work
]

[providers.codex]
enabled = false

[somebody-elses-table]
x = 1

[translate]
api_key = "sk-new"
"#,
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), *expected);
    // It reads back as set, and saving what was read changes nothing.
    let mut again = ConfigFile::load(&path);
    let s = again.settings();
    assert_eq!(
        (s.ui.theme, s.ui.group_by),
        (Theme::Dark, GroupBy::AgentDir)
    );
    assert!(!s.provider(ProviderKind::Codex).enabled && s.translate.api_key_set);
    again.save().unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), *expected);
    // Unset gives the default back and leaves the rest.
    again.unset("translate.api_key").unwrap();
    again.save().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.ends_with("[translate]\n") && text.starts_with(&expected[..300]),
        "{text}"
    );
    assert!(!ConfigFile::load(&path).settings().translate.api_key_set);
}

/// Unset (a list cleared in the app's Settings) takes the key out, and the comment lines written
/// above it stay, above the key that followed it.
#[test]
fn unset_keeps_the_comments_above_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let text = "# mine\n[providers.claude]\n# work store\n# (for now)\nroots = [\"/srv/c\"] # gone with it\nenabled = true\n\n[ui]\n# last\nhidden_dirs = [\"/tmp\"]\n";
    std::fs::write(&path, text).unwrap();
    let mut config = ConfigFile::load(&path);
    config.unset("providers.claude.roots").unwrap();
    config.unset("ui.hidden_dirs").unwrap();
    config.save().unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "# mine\n[providers.claude]\n# work store\n# (for now)\nenabled = true\n\n[ui]\n"
    );
    let s = ConfigFile::load(&path).settings();
    assert!(s.provider(ProviderKind::Claude).roots.is_empty() && s.ui.hidden_dirs.is_empty());
}

#[test]
fn save_makes_the_file_and_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent-sessions/config.toml");
    let mut config = ConfigFile::load(&path);
    assert!(!config.exists() && config.warnings().is_empty());
    config
        .set(
            "providers.claude.roots",
            &json!([abs("/x/one"), abs("/x/two")]),
        )
        .unwrap();
    config.save().unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        here("[providers.claude]\nroots = [\"/x/one\", \"/x/two\"]\n")
    );
}

#[cfg(unix)]
#[test]
fn saved_files_are_0600_whatever_they_were() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "[ui]\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut config = ConfigFile::load(&path);
    config.set("translate.api_key", &json!("sk-1")).unwrap();
    config.save().unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let fresh = dir.path().join("new/config.toml");
    let mut config = ConfigFile::load(&fresh);
    config.set("ui.theme", &json!("dark")).unwrap();
    config.save().unwrap();
    let mode = std::fs::metadata(&fresh).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let dir_mode = std::fs::metadata(fresh.parent().unwrap())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(dir_mode & 0o777, 0o700);
}

#[cfg(unix)]
#[test]
fn a_symlinked_config_stays_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("dotfiles/agent-sessions.toml");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, "# mine\n").unwrap();
    let link = dir.path().join("config.toml");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let mut config = ConfigFile::load(&link);
    config.set("ui.theme", &json!("light")).unwrap();
    config.save().unwrap();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read_to_string(&real).unwrap(),
        "# mine\n\n[ui]\ntheme = \"light\"\n"
    );
}

#[test]
fn an_edit_made_meanwhile_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "[ui]\n").unwrap();
    let mut config = ConfigFile::load(&path);
    config.set("ui.theme", &json!("dark")).unwrap();
    std::fs::write(&path, "[ui]\ntheme = \"light\" # typed in an editor\n").unwrap();
    let err = config.save().unwrap_err();
    assert_eq!(err.code(), "config_changed");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "[ui]\ntheme = \"light\" # typed in an editor\n"
    );
}

#[test]
fn bad_values_are_refused_and_the_document_is_unchanged() {
    let mut config = file("[ui]\ntheme = \"dark\"\n");
    let before = config.text();
    let refused = [
        ("ui.theme", json!("blue"), "config_bad_value"),
        ("ui.theme", json!(true), "config_bad_value"),
        (
            "terminal.app",
            json!("bash -c 'rm -rf ~'"),
            "config_bad_value",
        ),
        (
            "providers.claude.roots",
            json!(["relative"]),
            "config_bad_value",
        ),
        (
            "providers.claude.roots",
            json!("/one/string"),
            "config_bad_value",
        ),
        ("providers.claude.enabled", json!("yes"), "config_bad_value"),
        (
            "translate.api_key",
            json!("sk-SECRET\nx"),
            "config_bad_value",
        ),
        ("ui.colour", json!("x"), "config_unknown_key"),
    ];
    for (key, value, code) in refused {
        let err = config.set(key, &value).unwrap_err();
        assert_eq!(err.code(), code, "{key} = {value}");
        assert!(!err.to_string().contains("SECRET"), "{err}");
        assert_eq!(config.text(), before, "{key} = {value}");
    }
    // A key whose table is not a table cannot be set without losing what is there.
    let mut odd = file("ui = 5\n");
    assert_eq!(
        odd.set("ui.theme", &json!("dark")).unwrap_err().code(),
        "config_bad_value"
    );
    assert_eq!(odd.text().unwrap(), "ui = 5\n");
}

#[test]
fn a_broken_file_is_read_with_defaults_and_never_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let broken: [(&str, &[u8]); 4] = [
        ("bad-toml", b"[ui]\ntheme = dark\n"),
        ("wrong-type", b"[ui]\ntheme = 1\n"),
        ("bad-terminal", b"[terminal]\napp = \"xterm -e sh\"\n"),
        ("not-utf8", b"[ui]\n# caf\xe9\ntheme = \"dark\"\n"),
    ];
    for (name, bytes) in broken {
        let path = dir.path().join(format!("{name}.toml"));
        std::fs::write(&path, bytes).unwrap();
        let config = ConfigFile::load(&path);
        let w = config.warnings();
        assert_eq!(w.len(), 1, "{name}: {w:?}");
        assert_eq!(w[0].path, path, "{name}");
        assert!(w[0].line.is_some(), "{name}: {w:?}");
        assert_eq!(config.settings().ui.theme, Theme::System, "{name}");
        assert_eq!(config.settings().terminal.app, "", "{name}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            bytes,
            "{name}: the file was touched"
        );
    }
    // An unparsable file cannot be edited: saving would lose what the user wrote.
    let mut config = ConfigFile::load(&dir.path().join("bad-toml.toml"));
    let err = config.set("ui.theme", &json!("dark")).unwrap_err();
    assert_eq!(err.code(), "config_broken");
    assert!(err.to_string().contains("line 2"), "{err}");
    assert_eq!(config.save().unwrap_err().code(), "config_broken");
    assert_eq!(
        std::fs::read(dir.path().join("bad-toml.toml")).unwrap(),
        b"[ui]\ntheme = dark\n"
    );
}

#[test]
fn a_file_that_cannot_be_a_config_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.toml");
    std::fs::write(&big, "# x\n".repeat(100_000)).unwrap();
    let config = ConfigFile::load(&big);
    assert!(
        config.warnings()[0].message.contains("bigger than"),
        "{:?}",
        config.warnings()
    );
    let not_file = ConfigFile::load(dir.path());
    assert!(not_file.warnings()[0]
        .message
        .contains("not a regular file"));
    assert_eq!(
        not_file.settings(),
        agent_sessions_core::config::Settings::default()
    );
}

#[cfg(unix)]
#[test]
fn a_named_pipe_in_place_of_the_file_does_not_hang() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("config.toml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let config = ConfigFile::load(&fifo);
    assert!(config.warnings()[0].message.contains("not a regular file"));
}

#[test]
fn a_new_table_goes_after_the_comments_that_end_the_file() {
    let mut config = file("[ui]\ntheme = \"dark\"\n\n# [terminal]\n# app = \"kitty\"\n\n");
    config.set("translate.model", &json!("m")).unwrap();
    assert_eq!(
        config.text().unwrap(),
        here("[ui]\ntheme = \"dark\"\n\n# [terminal]\n# app = \"kitty\"\n\n[translate]\nmodel = \"m\"\n")
    );
}

/// The app's machine (`ui.host`): saved and read back; cleared, it is this computer again; a
/// value ssh would not read as one word on a line is refused and the file left as it was.
#[test]
fn the_chosen_host_is_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "[ui]\ntheme = \"dark\"\n").unwrap();
    let mut config = ConfigFile::load(&path);
    assert_eq!(config.settings().ui.host, "");
    config.set("ui.host", &json!("devbox")).unwrap();
    config.save().unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "[ui]\ntheme = \"dark\"\nhost = \"devbox\"\n"
    );
    let mut again = ConfigFile::load(&path);
    assert_eq!(again.settings().ui.host, "devbox");
    let err = again.set("ui.host", &json!("dev\nbox")).unwrap_err();
    assert_eq!(err.code(), "config_bad_value");
    assert_eq!(again.settings().ui.host, "devbox");
    again.set("ui.host", &json!("")).unwrap();
    again.save().unwrap();
    assert_eq!(ConfigFile::load(&path).settings().ui.host, "");
}
