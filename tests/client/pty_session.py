"""Drive the interactive Claude Code client in a pseudo-terminal: type lines,
wait between them, and let the client exit. Run inside the network namespace,
with the fake API already listening.

    python pty_session.py CLAUDE PROJECT LINE [LINE ...]

Each LINE is typed and sent with Enter; after a prompt the screen is read until
the fake API's answer shows, after a /command for a few seconds. A LINE
`<enter>` or `<esc>` presses that key alone once the screen has been still a
moment (to answer a dialog: Enter takes its first choice, Esc declines).
CLAUDE may carry arguments (`claude --permission-mode plan`). The screen's
bytes go to stdout.
"""

from __future__ import annotations

import os
import pty
import select
import sys
import time


def pump(fd: int, seconds: float, screen: bytearray) -> bool:
    """Read the screen for `seconds`; False once the client has gone."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return False
            if not chunk:
                return False
            screen += chunk
    return True


KEYS = {"<enter>": b"\r", "<esc>": b"\x1b"}
ANSWER = b"fake"  # in every answer of the fake API ("hello from the fake API")


def wait_for(fd: int, screen: bytearray, needle: bytes, seconds: float,
             times: int = 1) -> bool:
    """Read the screen until `needle` is on it `times` times, or `seconds` pass."""
    end = time.monotonic() + seconds
    while screen.count(needle) < times and time.monotonic() < end:
        if not pump(fd, 0.2, screen):
            return False
    return screen.count(needle) >= times


def typed(fd: int, screen: bytearray, line: str) -> None:
    """Type `line` until the input box shows it: keys sent while the client is
    still starting are lost, so what is not echoed is typed again."""
    word = line.split()[0].encode()
    for _ in range(10):
        before = screen.count(word)
        os.write(fd, line.encode())
        if wait_for(fd, screen, word, 3, before + 1):
            pump(fd, 0.5, screen)
            return
        os.write(fd, b"\x15")  # Ctrl-U: clear whatever part did arrive
        pump(fd, 0.5, screen)


def main() -> int:
    claude, project, *lines = sys.argv[1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(project)
        argv = claude.split()
        os.execv(argv[0], argv)
    screen = bytearray()
    # The input box is drawn before it takes keys: give it a moment more.
    wait_for(fd, screen, b"shortcuts", 30)
    pump(fd, 3, screen)
    for line in lines:
        if line in KEYS:
            pump(fd, 3, screen)
            os.write(fd, KEYS[line])
            if not pump(fd, 5, screen):
                break
            continue
        answers = screen.count(ANSWER)
        typed(fd, screen, line)
        os.write(fd, b"\r")
        if line.startswith("/"):
            alive = pump(fd, 3, screen)
        else:  # a prompt: until the fake API's answer is on the screen
            wait_for(fd, screen, ANSWER, 30, answers + 1)
            alive = pump(fd, 1, screen)
        if not alive:
            break
    deadline = time.monotonic() + 20
    status = None
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        pump(fd, 0.2, screen)
    else:
        os.kill(pid, 9)
    sys.stdout.buffer.write(bytes(screen))
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
