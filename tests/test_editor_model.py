"""A model of a person editing a session's note while vibe-vault keeps writing it
(issue 28): every line the user ever saved is in the vault afterwards.

A seeded editor appends a line of its own below everything in the note and
saves it, in a mode drawn at random each time: in place (truncate and write),
by a temp file renamed over the note (Emacs, vim's default), truncate then a
pause then the write (a slow disk, a sync client), deleted and written anew,
or renamed to another name (and saved there from then on); at a typing pace
or a fast one. Meanwhile the session goes on: Stops as the transcript grows,
SessionEnds, backfills and reprocesses, in a seeded order. The oracle is the
editor's own record of the lines it saved, checked against the files in the
vault at the end; nothing is derived from vibe-vault's code.

The default run takes seconds; `--slow` runs thousands of saves.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from pathlib import Path

import pytest

from conftest import Env
from test_hook_contract import SESSION, SID, place

pytestmark = pytest.mark.corpus  # every test here reads the shared corpus

MODES = ("in place", "temp and rename", "truncate, pause, write", "delete and write",
         "rename")


class Editor:
    """The user: saves a line at a time into the note, wherever it is now."""

    def __init__(self, note: Path, seed: int) -> None:
        self.note = note
        self.rng = random.Random(seed)
        self.saved: list[str] = []  # lines whose save completed
        self.by_mode = dict.fromkeys(MODES, 0)
        self.stop = threading.Event()
        self.errors: list[str] = []
        self.renames = 0

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.save_one()
            except OSError as exc:  # a read that met the note mid-rename by the editor itself
                self.errors.append(repr(exc))
            fast = self.rng.random() < 0.7
            time.sleep(self.rng.uniform(0.0, 0.02) if fast else self.rng.uniform(0.05, 0.2))

    def save_one(self) -> None:
        text = self.note.read_text(encoding="utf-8")
        line = f"user line {len(self.saved)} {self.rng.getrandbits(32):08x}"
        new = (text if text.endswith("\n") or not text else text + "\n") + line + "\n"
        mode = self.rng.choice(MODES if self.renames < 3 else MODES[:-1])
        path = self.note
        if mode == "in place":
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
        elif mode == "temp and rename":
            tmp = path.with_name(f".{path.name}.swp~")
            tmp.write_text(new, encoding="utf-8")
            os.replace(tmp, path)
        elif mode == "truncate, pause, write":
            with open(path, "w", encoding="utf-8") as f:
                f.flush()
                time.sleep(self.rng.uniform(0.005, 0.05))
                f.write(new[: len(new) // 3])
                f.flush()
                time.sleep(self.rng.uniform(0.0, 0.01))
                f.write(new[len(new) // 3:])
        elif mode == "delete and write":
            path.unlink()
            time.sleep(self.rng.uniform(0.0, 0.01))
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
        else:  # rename, then save under the new name
            self.renames += 1
            moved = path.with_name(f"renamed {self.renames} {path.name}")
            os.rename(path, moved)
            self.note = moved
            with open(moved, "w", encoding="utf-8") as f:
                f.write(new)
        self.saved.append(line)
        self.by_mode[mode] += 1


def _lost(env: Env, saved: list[str], note: Path) -> tuple[list[str], list[str]]:
    """The saved lines not in the note; those in no file of the vault."""
    in_note = note.read_text(encoding="utf-8")
    vault = "".join(p.read_text(encoding="utf-8", errors="replace")
                    for p in env.vault.rglob("*.md"))
    return ([line for line in saved if line + "\n" not in in_note],
            [line for line in saved if line + "\n" not in vault])


def run_trial(env: Env, seed: int, saves: int) -> dict[str, object]:
    rng = random.Random(seed * 7919)
    lines = SESSION.read_bytes().splitlines(keepends=True)
    target = place(env)
    target.write_bytes(b"".join(lines[:5]))
    stop = {"session_id": SID, "hook_event_name": "Stop", "cwd": "/tmp",
            "transcript_path": str(target)}
    assert env.hook(stop).returncode == 0
    notes = sorted(env.vault.glob("Projects/*/sessions/*.md"))
    assert len(notes) == 1
    editor = Editor(notes[0], seed)
    thread = threading.Thread(target=editor.run)
    thread.start()
    events: dict[str, int] = {}
    grown = 5
    try:
        while len(editor.saved) < saves:
            kind = rng.choices(["Stop", "SessionEnd", "backfill", "reprocess"],
                               [70, 10, 10, 10])[0]
            if kind == "Stop":
                grown = min(len(lines), grown + rng.randint(1, max(1, len(lines) // 40)))
                target.write_bytes(b"".join(lines[:grown]))
                r = env.hook(stop)
            elif kind == "SessionEnd":
                r = env.hook({**stop, "hook_event_name": "SessionEnd", "reason": "other"})
            elif kind == "backfill":
                r = env.vv("backfill")
            else:
                r = env.vv("reprocess", SID)
            assert r.returncode == 0, r.stderr
            events[kind] = events.get(kind, 0) + 1
    finally:
        editor.stop.set()
        thread.join()
    time.sleep(0.05)
    assert env.hook(stop).returncode == 0  # a calm event after the last save
    lost_from_note, lost = _lost(env, editor.saved, editor.note)
    return {"seed": seed, "saves": len(editor.saved), "by_mode": editor.by_mode,
            "events": events, "lost_from_note": lost_from_note, "lost": lost,
            "conflict_copies": len(list(env.vault.rglob("* (conflict *).md"))),
            "editor_errors": editor.errors}


def _check(result: dict[str, object]) -> None:
    print(json.dumps({k: v if not isinstance(v, list) else len(v) for k, v in result.items()}))
    assert result["lost"] == [], result  # in no file of the vault: lost
    assert result["lost_from_note"] == [], result  # (in a conflict copy only)


@pytest.mark.parametrize("seed", [1, 2])
def test_every_line_the_user_saved_is_in_the_vault(env: Env, seed: int,
                                                   request: pytest.FixtureRequest) -> None:
    """~120 saves a seed by default (seconds); 1,500 with --slow."""
    saves = 1500 if request.config.getoption("--slow") else 120
    result = run_trial(env, seed, saves=saves)
    assert result["saves"] >= saves
    _check(result)
