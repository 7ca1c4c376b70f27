#!/usr/bin/env python3
"""How far each agent's knowledge reaches outside its own folder.

For each agent of the registry, lists the non-test, non-generated Rust source files outside
`crates/providers/src/<agent>/` whose code lines (comments and `#[cfg(test)]` modules aside)
name the agent, with the count of such lines. The agent-folder issue's measure: at most three
files per agent (the `ProviderKind` enum, the registry, one more).

    python3 scripts/agent-spread.py [--list] [agent ...]
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = ("/tests/", "crates/test-support/", "crates/bench/", "/examples/")
GENERATED = ("src-tauri/src/bindings.rs",)


def code_lines(text):
    """Code lines with comments removed, stopping at the first #[cfg(test)] item."""
    out, in_block = [], False
    lines = text.splitlines()
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("#[cfg(") and re.search(r"\btest\b", s) and "not(test" not in s:
            break
        if in_block:
            if "*/" in s:
                in_block = False
            continue
        if s.startswith("/*"):
            in_block = "*/" not in s
            continue
        if s.startswith("//") or s.startswith("*"):
            continue
        out.append((i + 1, re.sub(r"\s//.*$", "", line)))
    return out


def test_only(files):
    """Files declared by their parent as `#[cfg(test)] mod name;`."""
    out = set()
    for f in files:
        text = (ROOT / f).read_text()
        for m in re.finditer(r"#\[cfg\([^\]]*\btest\b[^\]]*\]\s*(?:pub(?:\([a-z]+\))? )?mod (\w+);", text):
            base = Path(f).parent if Path(f).name in ("lib.rs", "mod.rs", "main.rs") else Path(f).with_suffix("")
            out.add(str(base / f"{m.group(1)}.rs"))
            out.add(str(base / m.group(1) / "mod.rs"))
    return out


def agents():
    text = (ROOT / "crates/model/src/lib.rs").read_text()
    m = re.search(r"pub const ALL: \[ProviderKind; \d+\] = \[(.*?)\];", text, re.S)
    return [v.strip().split("::")[-1].lower() for v in m.group(1).split(",") if v.strip()]


def main(argv):
    show = "--list" in argv
    wanted = [a for a in argv if not a.startswith("--")] or agents()
    files = subprocess.run(["git", "ls-files", "*.rs"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    files = [f for f in files if not any(d in "/" + f for d in SKIP_DIRS) and f not in GENERATED]
    tests = test_only(files)
    files = [f for f in files if f not in tests]
    worst = 0
    for agent in wanted:
        own = f"crates/providers/src/{agent}/"
        hits = []
        for f in files:
            if f.startswith(own):
                continue
            lines = [(n, l) for n, l in code_lines((ROOT / f).read_text()) if agent in l.lower()]
            if lines:
                hits.append((f, lines))
        worst = max(worst, len(hits))
        print(f"{agent}: {len(hits)} files")
        for f, lines in sorted(hits, key=lambda h: -len(h[1])):
            print(f"  {len(lines):3} {f}")
            if show:
                for n, l in lines:
                    print(f"        {n}: {l.strip()[:110]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
