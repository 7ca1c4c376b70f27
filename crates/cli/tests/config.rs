//! `config path|show|check`, and the config's roots reaching every command.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

use common::json_of;

fn store() -> PathBuf {
    common::testdata("claude/2.1.332/dot-claude")
}

/// A home of its own: the config file, the cache and the config dir all live in a temp dir;
/// no agent variable is set, so the config's roots are not overridden unless a test says so.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        Home {
            dir: tempfile::Builder::new()
                .prefix("agent-sessions-cli-config-")
                .tempdir()
                .unwrap(),
        }
    }

    fn config(&self) -> PathBuf {
        self.dir.path().join("config.toml")
    }

    fn write(&self, text: &[u8]) -> PathBuf {
        std::fs::write(self.config(), text).unwrap();
        self.config()
    }

    fn cli(&self, args: &[&str]) -> Command {
        let root = self.dir.path();
        // Never the real user's stores or settings: nothing exists under this home.
        let mut cmd = common::cli(&root.join("cache"), args);
        cmd.env("AGENT_SESSIONS_CONFIG", self.config())
            .env("XDG_CONFIG_HOME", root.join("xdg-config"));
        common::no_agent_variables(&mut cmd);
        cmd
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cli(args).output().unwrap()
    }
}

fn setting<'a>(v: &'a Value, key: &str) -> &'a Value {
    v["data"]["settings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["key"] == key)
        .unwrap_or_else(|| panic!("no {key}"))
}

#[test]
fn path_is_the_variable_or_the_config_dir() {
    let home = Home::new();
    let out = home.run(&["config", "path"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{}\n", home.config().display())
    );
    let v = json_of(&home.run(&["config", "path", "--json"]));
    assert_eq!(v["ok"], true);
    assert_eq!(v["data"]["source"], "env");
    assert_eq!(v["data"]["exists"], false);

    #[cfg(all(unix, not(target_os = "macos")))]
    {
        let out = home
            .cli(&["config", "path", "--json"])
            .env_remove("AGENT_SESSIONS_CONFIG")
            .output()
            .unwrap();
        let v = json_of(&out);
        let expected = home
            .dir
            .path()
            .join("xdg-config/agent-sessions/config.toml");
        assert_eq!(v["data"]["path"], expected.to_str().unwrap());
        assert_eq!(v["data"]["source"], "default");
    }
}

/// `path` (`/a/b`) as an absolute path of this system, which a root must be: on Windows one
/// starting with `/` is relative to the current drive, so it gains one.
fn abs(path: &str) -> String {
    if cfg!(windows) {
        format!("C:{path}")
    } else {
        path.to_owned()
    }
}

#[test]
fn show_names_where_each_value_came_from_and_masks_the_key() {
    let home = Home::new();
    let flag_root = home.dir.path().join("opencode-flag");
    std::fs::create_dir(&flag_root).unwrap();
    let (a, b) = (abs("/from/config/codex-a"), abs("/from/config/codex-b"));
    let config = format!(
        r#"
[providers.claude]
roots = ["{}"]
[providers.codex]
roots = ["{a}", "{b}"]
enabled = false
[ui]
theme = "dark"
[translate]
api_key = "sk-VERY-SECRET-KEY"
"#,
        abs("/from/config/claude")
    );
    home.write(config.as_bytes());
    let run = |json: bool| {
        let mut args = vec![
            "config",
            "show",
            "--opencode-root",
            flag_root.to_str().unwrap(),
        ];
        if json {
            args.push("--json");
        }
        home.cli(&args)
            .env("CLAUDE_CONFIG_DIR", abs("/from/env/claude"))
            .output()
            .unwrap()
    };
    let out = run(true);
    assert!(out.status.success());
    let v = json_of(&out);
    let claude = setting(&v, "providers.claude.roots");
    assert_eq!(
        claude["value"],
        serde_json::json!([abs("/from/env/claude")])
    );
    assert_eq!(
        (&claude["source"], &claude["env"]),
        (&"env".into(), &"CLAUDE_CONFIG_DIR".into())
    );
    let codex = setting(&v, "providers.codex.roots");
    assert_eq!(codex["value"], serde_json::json!([a, b]));
    assert_eq!(codex["source"], "config");
    assert_eq!(setting(&v, "providers.codex.enabled")["value"], false);
    assert_eq!(setting(&v, "providers.codex.enabled")["source"], "config");
    let opencode = setting(&v, "providers.opencode.roots");
    assert_eq!(opencode["source"], "flag");
    assert_eq!(opencode["value"][0], flag_root.to_str().unwrap());
    assert_eq!(setting(&v, "ui.theme")["value"], "dark");
    assert_eq!(setting(&v, "ui.theme")["source"], "config");
    assert_eq!(setting(&v, "ui.group_by")["source"], "default");
    assert_eq!(setting(&v, "translate.api_key")["value"], "********");
    assert_eq!(setting(&v, "translate.language")["value"], "Vietnamese");
    let text = run(false);
    assert!(text.status.success());
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(stdout.contains("env CLAUDE_CONFIG_DIR"), "{stdout}");
    for out in [&out, &text] {
        for stream in [&out.stdout, &out.stderr] {
            assert!(!String::from_utf8_lossy(stream).contains("SECRET"));
        }
    }
}

#[test]
fn check_passes_a_good_file_and_fails_a_broken_one_leaving_it_untouched() {
    let home = Home::new();
    let missing = home.run(&["config", "check"]);
    assert!(missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stdout).contains("no such file"));

    home.write(b"# mine\n[ui]\ntheme = \"light\"\n");
    let good = home.run(&["config", "check", "--json"]);
    assert!(good.status.success());
    let v = json_of(&good);
    assert_eq!(
        (&v["ok"], &v["data"]["valid"]),
        (&true.into(), &true.into())
    );

    let broken: &[(&str, &[u8], usize, Option<&str>)] = &[
        ("bad TOML", b"[ui]\ntheme = \"light\"\n[terminal\n", 3, None),
        ("wrong type", b"[ui]\n\ntheme = true\n", 3, Some("ui.theme")),
        (
            "unknown terminal",
            b"[terminal]\napp = \"sh -c evil\"\n",
            2,
            Some("terminal.app"),
        ),
        (
            "unknown key",
            b"[providers.claude]\nenabeld = false\n",
            2,
            Some("providers.claude.enabeld"),
        ),
    ];
    for (name, bytes, line, key) in broken {
        let path = home.write(bytes);
        let out = home.run(&["config", "check", "--json"]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let v = json_of(&out);
        assert_eq!(v["ok"], false, "{name}");
        assert_eq!(v["error"]["code"], "config_invalid", "{name}");
        let problem = &v["data"]["problems"][0];
        assert_eq!(problem["line"], *line, "{name}");
        assert_eq!(problem["key"].as_str(), *key, "{name}");
        let warning = v["warnings"][0].as_str().unwrap();
        assert!(
            warning.starts_with(&format!("{}:{line}: ", path.display())),
            "{name}: {warning}"
        );
        // Text: the problems on stderr, each naming the file and line; exit 2.
        let text = home.run(&["config", "check"]);
        assert_eq!(text.status.code(), Some(2), "{name}");
        let stderr = String::from_utf8_lossy(&text.stderr);
        assert!(
            stderr.contains(&format!("warning: {}:{line}: ", path.display())),
            "{name}: {stderr}"
        );
        assert_eq!(
            std::fs::read(&path).unwrap(),
            *bytes,
            "{name}: file touched"
        );
    }
}

fn session_count(out: &Output) -> usize {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_of(out)["data"]["sessions"].as_array().unwrap().len()
}

#[test]
fn scan_reads_roots_and_enabled_from_the_config() {
    let home = Home::new();
    let store = store();
    let roots = format!(
        "[providers.claude]\nroots = [{:?}]\n",
        store.to_str().unwrap()
    );
    home.write(roots.as_bytes());
    assert_eq!(
        session_count(&home.run(&["scan", "--json", "--no-cache"])),
        8
    );
    // The agent's variable beats the config.
    let out = home
        .cli(&["scan", "--json", "--no-cache"])
        .env("CLAUDE_CONFIG_DIR", "/nonexistent/env-claude")
        .output()
        .unwrap();
    assert_eq!(session_count(&out), 0);
    // Disabled in the config: nothing is read from it.
    home.write(format!("{roots}enabled = false\n").as_bytes());
    assert_eq!(
        session_count(&home.run(&["scan", "--json", "--no-cache"])),
        0
    );
    // A root flag reads it anyway.
    let flagged = home.run(&[
        "scan",
        "--json",
        "--no-cache",
        "--claude-root",
        store.to_str().unwrap(),
    ]);
    assert_eq!(session_count(&flagged), 8);
}

#[test]
fn a_broken_config_never_stops_a_command() {
    let home = Home::new();
    let bytes = b"[ui]\ntheme = \"dark\"\n[providers.claude\nroots = [\"/x\"]\n";
    let path = home.write(bytes);
    let store = store();
    let out = home.run(&["scan", "--json", "--claude-root", store.to_str().unwrap()]);
    assert_eq!(session_count(&out), 8);
    let v = json_of(&out);
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let prefix = format!("{}:3: not valid TOML", path.display());
    assert!(
        warnings.iter().any(|w| w.starts_with(&prefix)),
        "{warnings:?}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    // A failing command still says what is wrong with the config.
    let failed = home.run(&["show", "no-such-session", "--json"]);
    assert_eq!(failed.status.code(), Some(1));
    let v = json_of(&failed);
    assert_eq!(v["ok"], false);
    assert!(v["warnings"][0].as_str().unwrap().starts_with(&prefix));
}

/// A config.toml that holds the translation key and that other users can read (or change) is
/// still valid, but `config check` says so and how to fix it, without the key; a private one
/// (as Settings saves it), or one without a key, gets no such warning.
#[cfg(unix)]
#[test]
fn check_warns_when_others_can_read_the_key() {
    use std::os::unix::fs::PermissionsExt;
    let home = Home::new();
    let with_key = b"[translate]\nbase_url = \"https://api.example.com/v1\"\napi_key = \"sk-SECRET-0123456789\"\nmodel = \"m\"\n";
    let warnings = |bytes: &[u8], mode: u32| -> Vec<String> {
        let path = home.write(bytes);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        let out = home.run(&["config", "check", "--json"]);
        assert!(out.status.success(), "{mode:o}: still valid");
        let v = json_of(&out);
        assert_eq!(v["data"]["valid"], true);
        let text = home.run(&["config", "check"]);
        assert!(text.status.success());
        for stream in [&out.stdout, &out.stderr, &text.stdout, &text.stderr] {
            assert!(!String::from_utf8_lossy(stream).contains("SECRET"));
        }
        let stderr = String::from_utf8_lossy(&text.stderr).into_owned();
        let listed: Vec<String> = v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_owned())
            .collect();
        for w in &listed {
            assert!(stderr.contains(w.as_str()), "{stderr}");
        }
        listed
    };
    for mode in [0o644, 0o640, 0o604, 0o660] {
        let got = warnings(with_key, mode);
        assert_eq!(got.len(), 1, "{mode:o}: {got:?}");
        let path = home.config().display().to_string();
        assert!(
            got[0].contains(&path) && got[0].contains("api_key"),
            "{got:?}"
        );
        assert!(got[0].contains(&format!("chmod 600 {path}")), "{got:?}");
    }
    assert_eq!(warnings(with_key, 0o600), Vec::<String>::new());
    assert_eq!(warnings(with_key, 0o400), Vec::<String>::new());
    let no_key = b"[translate]\nbase_url = \"https://api.example.com/v1\"\nmodel = \"m\"\n";
    assert_eq!(warnings(no_key, 0o644), Vec::<String>::new());
}
