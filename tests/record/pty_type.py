#!/usr/bin/env python3
"""Drive an agent's TUI in a pseudo-terminal: wait for a text, type a line, wait for another.

Usage: pty_type.py SECONDS READY LINE DONE PROGRAM [ARGS...]

Starts PROGRAM in a 160x50 pseudo-terminal, answers the cursor-position query TUIs send,
waits until READY shows on the screen, types LINE and Enter, waits until DONE shows and the
screen has not changed for 5 s (a spinner stops), then stops PROGRAM's process group (SIGTERM, then SIGKILL) and prints the screen's text. Texts are
compared without escape sequences and whitespace. Exit 0 when DONE was seen, 1 otherwise.
Used where an agent resumes a session only in its TUI (Cline 3: `cline --id <id>`).
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

ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


def flat(data):
    return re.sub(r"\s+", "", ESCAPES.sub(b"", data).decode("utf-8", "replace"))


def main():
    seconds, ready, line, done, argv = float(sys.argv[1]), sys.argv[2], sys.argv[3], \
        sys.argv[4], sys.argv[5:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
    screen, typed, end, last = b"", False, time.time() + seconds, time.time()
    while time.time() < end:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if b"\x1b[6n" in chunk:
                os.write(fd, b"\x1b[1;1R")
            screen, last = screen + chunk, time.time()
        elif typed and done in flat(screen) and time.time() - last > 5:
            break  # the answer is on the screen and nothing moved for 5 s: the turn is over
        text = flat(screen)
        if not typed and ready in text:
            time.sleep(1)
            os.write(fd, line.encode())
            time.sleep(1)  # a TUI takes a fast burst as a paste: Enter comes on its own
            os.write(fd, b"\r")
            typed, screen = True, b""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            pass
        time.sleep(1)
    os.waitpid(pid, 0)
    print(flat(screen)[-2000:])
    sys.exit(0 if typed and done in flat(screen) else 1)


if __name__ == "__main__":
    main()
