//! WSL distributions as remotes (SPEC M8-13), for Windows: each registered distribution is a
//! host, reached through `wsl.exe` rather than ssh. Written as pure functions over data (the
//! argv, the list `wsl.exe -l -v` prints, the registry's entries, the console's launch script)
//! so they are tested on any system; the Windows front end runs them.
//!
//! - The server runs with `wsl.exe -d <distro> --exec sh -c <script>`: `--exec` hands the argv
//!   to the distribution as it is, without the user's login shell joining it into a string.
//!   The script is the ssh transport's own ([`crate::ssh::serve_command`]'s bootstrap).
//! - Resuming a session in a console: WSL appends Windows' PATH (`/mnt/c/...`), where a Windows
//!   copy of the agent may come first; the launch script skips those folders, so the agent
//!   started is the distribution's own.

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};

use crate::command::{Bootstrap, Launcher};

/// The program.
pub const WSL: &str = "wsl.exe";

/// The transport to a distribution: [`crate::command`] over `wsl.exe -d DISTRO --exec sh -c
/// SCRIPT`. Only Windows has `wsl.exe`; elsewhere `program` names a stand-in (the tests use a
/// script that drops `-d DISTRO --exec` and runs the rest).
#[derive(Clone, Debug)]
pub struct Wsl {
    pub distro: String,
    pub program: PathBuf,
    /// A Linux build of the CLI to upload when the distribution lacks the server (the Windows
    /// binary itself cannot run there); none: only a server installed by hand is found.
    pub server_binary: Option<PathBuf>,
    pub notes: Arc<Mutex<Vec<String>>>,
}

impl Wsl {
    pub fn new(distro: &str) -> Wsl {
        Wsl {
            distro: distro.to_owned(),
            program: PathBuf::from(WSL),
            server_binary: None,
            notes: Arc::default(),
        }
    }
}

impl Launcher for Wsl {
    fn command(&self, script: &str) -> Command {
        let mut command = Command::new(&self.program);
        command.args(argv(&self.distro, &["sh", "-c", script]));
        command
    }

    fn host(&self) -> String {
        host_name(&self.distro)
    }

    fn bootstrap(&self) -> Bootstrap<'_> {
        Bootstrap {
            server_binary: self.server_binary.as_deref(),
            notes: &self.notes,
        }
    }
}

/// The distribution a host name of the picker names (`wsl:Ubuntu` → `Ubuntu`); none for an
/// ssh alias. Only Windows selects the WSL transport with it.
pub fn distro_of(host: &str) -> Option<&str> {
    host.strip_prefix("wsl:")
        .filter(|d| !d.is_empty() && !d.starts_with('-') && !d.chars().any(char::is_control))
}

/// `wsl.exe` arguments running `argv` in `distro` without a shell between.
pub fn argv(distro: &str, argv: &[&str]) -> Vec<String> {
    let mut out = vec!["-d".to_owned(), distro.to_owned(), "--exec".to_owned()];
    out.extend(argv.iter().map(|a| (*a).to_owned()));
    out
}

/// The arguments that start the server in folder `dir` of `distro` (installed there, or
/// reporting its platform so it can be installed, as over ssh).
pub fn serve_argv(distro: &str, dir: &str) -> Vec<String> {
    let script = crate::ssh::serve_script(dir);
    argv(distro, &["sh", "-c", &script])
}

/// Runs `program args…` in `dir` of `distro`, found in the distribution's PATH but never in a
/// folder under the Windows drives' mount root (`/mnt/` unless wsl.conf says otherwise). The
/// program and its arguments are argv elements (`$1`, `$@` of a constant script), never text
/// of the script.
pub fn launch_argv(
    distro: &str,
    dir: &str,
    mount_root: &str,
    program: &str,
    args: &[&str],
) -> Vec<String> {
    let mut out = vec![
        "-d".to_owned(),
        distro.to_owned(),
        "--cd".to_owned(),
        dir.to_owned(),
        "--exec".to_owned(),
    ];
    out.extend(launch_script_argv(mount_root, program, args));
    out
}

/// `sh -c SCRIPT sh MOUNT_ROOT PROGRAM ARGS…`: the part of [`launch_argv`] that runs inside
/// the distribution (also what the tests run).
pub fn launch_script_argv(mount_root: &str, program: &str, args: &[&str]) -> Vec<String> {
    let mut out = vec![
        "sh".to_owned(),
        "-c".to_owned(),
        LAUNCH_SCRIPT.to_owned(),
        "sh".to_owned(),
        mount_root.trim_end_matches('/').to_owned(),
        program.to_owned(),
    ];
    out.extend(args.iter().map(|a| (*a).to_owned()));
    out
}

/// `$1`: the mount root; `$2`: the program; the rest: its arguments.
const LAUNCH_SCRIPT: &str = r#"root="$1"; name="$2"; shift 2
found=""
oldifs="$IFS"; IFS=:
for d in $PATH; do
  case "$d" in "$root"/*) continue ;; esac
  if [ -n "$d" ] && [ -f "$d/$name" ] && [ -x "$d/$name" ]; then found="$d/$name"; break; fi
done
IFS="$oldifs"
if [ -z "$found" ]; then
  echo "$name is not installed in this distribution (a Windows copy under $root is not used); install it inside WSL" >&2
  exit 127
fi
exec "$found" "$@""#;

/// A registered distribution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distro {
    pub name: String,
    /// `Running`, `Stopped`, … as wsl.exe says it (empty when read from the registry).
    pub state: String,
    /// WSL 1 or 2 (0 when unknown).
    pub version: u8,
    pub default: bool,
}

/// Docker Desktop's own distributions hold no agent sessions: not offered as hosts.
fn is_internal(name: &str) -> bool {
    name.starts_with("docker-desktop")
}

/// The output of `wsl.exe -l -v`: UTF-16LE (with or without a byte-order mark; UTF-8 when
/// `WSL_UTF8=1`), a header line, then `[*] NAME STATE VERSION` per distribution.
pub fn parse_list(bytes: &[u8]) -> Vec<Distro> {
    let text = decode(bytes);
    text.lines()
        .skip(1)
        .filter_map(parse_row)
        .filter(|d| !is_internal(&d.name))
        .collect()
}

fn parse_row(line: &str) -> Option<Distro> {
    let line = line.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}' || c == '\0');
    let (default, rest) = match line.strip_prefix('*') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, line),
    };
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    let version = words.pop()?.parse().ok()?;
    let state = words.pop()?.to_owned();
    if words.is_empty() {
        return None;
    }
    Some(Distro {
        name: words.join(" "),
        state,
        version,
        default,
    })
}

/// UTF-16LE when the bytes look like it (a BOM, or NULs in odd places), else UTF-8.
fn decode(bytes: &[u8]) -> String {
    let utf16 = bytes.starts_with(&[0xff, 0xfe]) || (bytes.len() > 1 && bytes[1] == 0);
    if !utf16 {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let body = bytes.strip_prefix(&[0xff, 0xfe]).unwrap_or(bytes);
    let units: Vec<u16> = body
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    String::from_utf16_lossy(&units)
}

/// The distributions registered for the current user, from the registry's entries under
/// `HKCU\Software\Microsoft\Windows\CurrentVersion\Lxss\{GUID}`: (`DistributionName`,
/// `BasePath`). Entries without a name, Docker's own and duplicates are left out; sorted by
/// name; `default_name` (the key's `DefaultDistribution`, resolved to its name) is marked.
pub fn from_registry(entries: &[(String, String)], default_name: Option<&str>) -> Vec<Distro> {
    let mut out: Vec<Distro> = entries
        .iter()
        .filter(|(name, path)| !name.trim().is_empty() && !path.trim().is_empty())
        .filter(|(name, _)| !is_internal(name))
        .map(|(name, _)| Distro {
            name: name.trim().to_owned(),
            state: String::new(),
            version: 0,
            default: Some(name.trim()) == default_name,
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out.dedup_by(|a, b| a.name == b.name);
    out
}

/// The distributions registered for this user, as `wsl.exe -l -v` lists them (none when WSL is
/// not installed or the command fails: the picker then shows the ssh hosts only). Started
/// without a console window, so the app's window does not flash one.
#[cfg(windows)]
pub fn registered() -> Vec<Distro> {
    use std::os::windows::process::CommandExt;
    const CREATE_NO_WINDOW: u32 = 0x0800_0000;
    let output = Command::new(WSL)
        .args(["-l", "-v"])
        .creation_flags(CREATE_NO_WINDOW)
        .stdin(std::process::Stdio::null())
        .output();
    match output {
        Ok(o) if o.status.success() => parse_list(&o.stdout),
        _ => Vec::new(),
    }
}

/// A host name for a distribution in the host picker (`wsl:Ubuntu`).
pub fn host_name(distro: &str) -> String {
    format!("wsl:{distro}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(text: &str, bom: bool) -> Vec<u8> {
        let mut out = if bom { vec![0xff, 0xfe] } else { Vec::new() };
        for u in text.encode_utf16() {
            out.extend(u.to_le_bytes());
        }
        out
    }

    const LIST: &str = "  NAME                   STATE           VERSION\r\n* Ubuntu-22.04           Running         2\r\n  Debian                 Stopped         2\r\n  docker-desktop         Stopped         2\r\n  legacy                 Stopped         1\r\n";

    #[test]
    fn the_list_is_read_from_utf16_with_or_without_a_bom_and_from_utf8() {
        let want = vec![
            Distro {
                name: "Ubuntu-22.04".into(),
                state: "Running".into(),
                version: 2,
                default: true,
            },
            Distro {
                name: "Debian".into(),
                state: "Stopped".into(),
                version: 2,
                default: false,
            },
            Distro {
                name: "legacy".into(),
                state: "Stopped".into(),
                version: 1,
                default: false,
            },
        ];
        assert_eq!(parse_list(&utf16(LIST, true)), want);
        assert_eq!(parse_list(&utf16(LIST, false)), want);
        assert_eq!(parse_list(LIST.as_bytes()), want);
    }

    #[test]
    fn a_list_without_distributions_or_garbage_is_empty() {
        let none = "Windows Subsystem for Linux has no installed distributions.\r\n";
        assert!(parse_list(&utf16(none, true)).is_empty());
        assert!(parse_list(&[0xff, 0xfe, 0x00]).is_empty());
        assert!(parse_list(b"").is_empty());
    }

    #[test]
    fn registry_entries_become_sorted_hosts() {
        let entries = [
            ("Ubuntu".to_owned(), "C:\\wsl\\ubuntu".to_owned()),
            ("".to_owned(), "C:\\x".to_owned()),
            ("docker-desktop-data".to_owned(), "C:\\d".to_owned()),
            ("Alpine".to_owned(), "C:\\wsl\\alpine".to_owned()),
            ("Ubuntu".to_owned(), "C:\\wsl\\ubuntu2".to_owned()),
        ];
        let got = from_registry(&entries, Some("Ubuntu"));
        let names: Vec<(&str, bool)> = got.iter().map(|d| (d.name.as_str(), d.default)).collect();
        assert_eq!(names, [("Alpine", false), ("Ubuntu", true)]);
        assert_eq!(host_name("Alpine"), "wsl:Alpine");
        assert_eq!(distro_of("wsl:Alpine"), Some("Alpine"));
        for not in ["devbox", "wsl:", "wsl:-x", "wsl:a\nb"] {
            assert_eq!(distro_of(not), None, "{not:?}");
        }
    }

    #[test]
    fn the_server_runs_without_a_shell_joining_words() {
        let args = serve_argv("Ubuntu", "0.1.0");
        assert_eq!(&args[..5], ["-d", "Ubuntu", "--exec", "sh", "-c"]);
        assert!(args[5].contains("server/0.1.0") && args[5].contains("serve --stdio"));
        assert_eq!(args.len(), 6);
    }

    /// The launch script run by a real sh: a Windows copy earlier on PATH (under the mount
    /// root) is skipped for the distribution's own; hostile arguments stay arguments.
    #[test]
    #[cfg(unix)] // runs the script in sh (scripts/test-windows.sh lists it)
    fn the_launch_script_skips_the_windows_copy() {
        let tmp = tempfile::tempdir().unwrap();
        let mount = tmp.path().join("mnt");
        let windows = mount.join("c/Users/me/AppData/npm");
        let linux = tmp.path().join("usr/bin");
        for (dir, says) in [(&windows, "windows"), (&linux, "linux")] {
            std::fs::create_dir_all(dir).unwrap();
            let agent = dir.join("claude");
            std::fs::write(&agent, format!("#!/bin/sh\necho {says} \"$@\"\n")).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let run = |path: String| {
            let argv = launch_script_argv(
                mount.to_str().unwrap(),
                "claude",
                &["--resume", "$(touch x); id"],
            );
            // `sh` by its path: PATH here is the one under test.
            assert_eq!(argv[0], "sh");
            std::process::Command::new("/bin/sh")
                .args(&argv[1..])
                .env("PATH", path)
                .current_dir(tmp.path())
                .output()
                .unwrap()
        };
        let both = format!("{}:{}", windows.display(), linux.display());
        let out = run(both);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "linux --resume $(touch x); id\n"
        );
        assert!(!tmp.path().join("x").exists());
        let only_windows = run(windows.display().to_string());
        assert_eq!(only_windows.status.code(), Some(127));
        assert!(String::from_utf8_lossy(&only_windows.stderr).contains("install it inside WSL"));
        let launch = launch_argv(
            "Ubuntu",
            "/home/me/p",
            "/mnt/",
            "claude",
            &["--resume", "id"],
        );
        assert_eq!(
            &launch[..5],
            ["-d", "Ubuntu", "--cd", "/home/me/p", "--exec"]
        );
        assert_eq!(launch[9], "/mnt");
    }
}
