#!/usr/bin/env python3
"""Runs a terminal program (an agent's TUI) in a pseudo-terminal until its output shows a text.

Usage: pty_screen.py SECONDS NEEDLE PROGRAM [ARGS...]

Answers the terminal queries a TUI sends at start (cursor position, device attributes,
colours), reads what it draws, and stops it (SIGKILL, its process group) as soon as NEEDLE appears in
the drawn text, or after SECONDS. The text is compared without escape sequences and without
spaces, since a TUI positions words with cursor moves. Prints that text; exits 0 when NEEDLE
was seen, 1 otherwise.
"""

import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

seconds, needle, argv = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


def flat(data):
    return re.sub(r"\s+", "", ESCAPES.sub(b"", data).decode("utf-8", "replace"))


pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm-256color"
    os.execvp(argv[0], argv)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
seen, data = False, b""
end = time.time() + seconds
while time.time() < end and not seen:
    ready, _, _ = select.select([fd], [], [], 0.2)
    if fd not in ready:
        continue
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
    if b"\x1b[6n" in chunk:
        os.write(fd, b"\x1b[1;1R")
    if b"\x1b[c" in chunk or b"\x1b[0c" in chunk:
        os.write(fd, b"\x1b[?62;c")
    if b"\x1b]10;?" in chunk or b"\x1b]11;?" in chunk:
        os.write(fd, b"\x1b]11;rgb:0000/0000/0000\x1b\\")
    seen = re.sub(r"\s+", "", needle) in flat(data)
# The whole process group (pty.fork made the child a session and group leader): a program
# started under a shell that waits for it (the terminal::HOLD wrapper) would outlive its
# parent's SIGKILL.
try:
    os.killpg(pid, signal.SIGKILL)
except ProcessLookupError:
    pass
os.waitpid(pid, 0)
print(flat(data))
sys.exit(0 if seen else 1)
