"""Add or remove vibe-vault's hook entries in a Claude Code settings file.

Merge, never replace: other keys, other hooks and the file's key order survive;
a backup is written first; installing twice changes nothing; uninstall removes
only our entries. A file that does not parse is refused, never overwritten.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from vibe_vault.config import claude_dir
from vibe_vault.regular import read_text

# Event -> handler options. Stop-like events get an explicit timeout (on
# SessionEnd it lifts Claude Code's 1.5 s budget); tool events run async.
EVENTS: dict[str, dict[str, Any]] = {
    "SessionStart": {"timeout": 10},
    "Stop": {"timeout": 10},
    "SubagentStop": {"timeout": 10},
    "PreCompact": {"timeout": 10},
    "SessionEnd": {"timeout": 10},
    "PreToolUse": {"timeout": 5, "async": True, "matcher": "*"},
    "PostToolUse": {"timeout": 5, "async": True, "matcher": "*"},
    # A failed tool call (its duration) and a turn ended by an API error.
    "PostToolUseFailure": {"timeout": 5, "async": True, "matcher": "*"},
    "StopFailure": {"timeout": 10},
}
# The first Claude Code release that knows an event, for the events not every
# release knows: older plugin validators reject a settings file naming one.
SINCE: dict[str, tuple[int, ...]] = {"PostToolUseFailure": (2, 1), "StopFailure": (2, 1)}
# The release from which an event is no longer needed: PostToolUse and
# PostToolUseFailure carry the tool's duration (`duration_ms`) since 2.1.119, so
# PreToolUse (one more process on every tool call) is registered only for older
# clients, and not when the version is unknown (those clients lose only timings).
UNTIL: dict[str, tuple[int, ...]] = {"PreToolUse": (2, 1, 119)}


def client_version(claude_projects: str | None = None) -> tuple[int, ...] | None:
    """Claude Code's version: `claude --version`, else the newest `version` in
    the user's transcripts; None when neither tells."""
    import re
    import shutil
    import subprocess

    exe = shutil.which("claude")
    if exe:
        try:
            out = subprocess.run([exe, "--version"], capture_output=True, text=True,
                                 timeout=10, check=False).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        m = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
        if m:
            return tuple(int(x) for x in m.groups())
    return _newest_transcript_version(claude_projects or str(Path(claude_dir()) / "projects"))


def _newest_transcript_version(root: str) -> tuple[int, ...] | None:
    import re

    try:
        newest = max(Path(root).glob("*/*.jsonl"), key=lambda p: p.stat().st_mtime)
        from vibe_vault.regular import open_regular, read_fd

        fd, st = open_regular(newest)
        try:
            tail = read_fd(fd, min(st.st_size, 1 << 20), max(0, st.st_size - (1 << 20)))
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None
    found = re.findall(rb'"version"\s*:\s*"(\d+)\.(\d+)\.(\d+)"', tail)
    return tuple(int(x) for x in found[-1]) if found else None


def events_for(version: tuple[int, ...] | None) -> list[str]:
    """The events to register for a client of `version` (when unknown, all it
    may know and none it does not need)."""
    return [e for e in EVENTS
            if (version is None or version >= SINCE.get(e, (0,)))
            and not (e in UNTIL and (version is None or version >= UNTIL[e]))]


def unknown_to(version: tuple[int, ...]) -> list[str]:
    """The events vibe-vault uses that a client of `version` does not know."""
    return [e for e in EVENTS if version < SINCE.get(e, (0,))]


class SettingsError(Exception):
    """The settings file cannot be read, parsed or written."""


def settings_path(scope: str, project_dir: Path) -> Path:
    if scope == "user":
        return Path(claude_dir()) / "settings.json"
    if scope == "project":
        return project_dir / ".claude" / "settings.json"
    if scope == "local":
        return project_dir / ".claude" / "settings.local.json"
    raise ValueError(scope)


# Claude's recall skill, as `vv hook install` places it beside the settings
# (the plugin carries its own copy, skills/recall/SKILL.md, under the name
# "recall" in its namespace).
SKILL_NAME = "vibe-vault-recall"


def skill_path(scope: str, project_dir: Path) -> Path:
    return settings_path(scope, project_dir).parent / "skills" / SKILL_NAME / "SKILL.md"


def skill_text() -> str:
    from importlib.resources import files

    text = (files("vibe_vault") / "data" / "skills" / "recall" / "SKILL.md").read_text(
        encoding="utf-8")
    return text.replace("\nname: recall\n", f"\nname: {SKILL_NAME}\n", 1)


def is_our_skill(path: Path) -> bool:
    try:
        return f"\nname: {SKILL_NAME}\n" in read_text(path, 200)
    except (OSError, UnicodeDecodeError):
        return False


def place_skill(path: Path) -> bool:
    """Write the skill (again, when it is ours and out of date); whether it changed."""
    text = skill_text()
    if path.exists() and (not is_our_skill(path) or read_text(path) == text):
        return False
    from vibe_vault.atomic import write_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(str(path), text.encode("utf-8"))
    return True


def remove_skill(path: Path) -> bool:
    if not is_our_skill(path):
        return False
    path.unlink()
    with contextlib.suppress(OSError):  # a folder holding more than ours stays
        path.parent.rmdir()
    return True


def vv_command() -> str:
    """The absolute command that runs this installation's `vv hook`."""
    bindir = Path(sys.executable).parent
    for name in ("vv", "vv.exe"):
        candidate = bindir / name
        if candidate.exists():
            return f"{shlex.quote(str(candidate))} hook"
    return f"{shlex.quote(sys.executable)} -m vibe_vault hook"


def is_ours(handler: Any) -> bool:
    if not isinstance(handler, dict):
        return False
    cmd = handler.get("command")
    if not isinstance(cmd, str):
        return False
    words = cmd.split()
    if not words:
        return False
    exe = os.path.basename(words[0].strip("'\""))
    return (words[-1] == "hook" and exe in ("vv", "vv.exe")) or (
        words[-3:] == ["-m", "vibe_vault", "hook"])


def load(path: Path) -> dict[str, Any]:
    try:
        text = read_text(path, 64 << 20)  # (a FIFO there is refused, never waited on)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise SettingsError(f"cannot read {path}: {exc.strerror}") from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SettingsError(f"{path} is not valid JSON ({exc}); fix it first, nothing was "
                            "changed") from exc
    if not isinstance(data, dict):
        raise SettingsError(f"{path} does not hold a JSON object; nothing was changed")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise SettingsError(f"{path}: \"hooks\" is not an object; nothing was changed")
    obj: dict[str, Any] = data
    return obj


def _copy(data: dict[str, Any]) -> dict[str, Any]:
    """A deep copy that keeps key order."""
    out: dict[str, Any] = json.loads(json.dumps(data))
    return out


def with_hooks(data: dict[str, Any], command: str,
               events: list[str] | None = None) -> dict[str, Any]:
    """`data` with our handler on every event (of `events`), where it is not
    already, and on no other event of ours (an earlier install's PreToolUse,
    which a newer client does not need)."""
    out = _copy(data)
    if events is not None:
        unwanted = [e for e in EVENTS if e not in events]
        out = without_hooks(out, unwanted)
    hooks = out.setdefault("hooks", {})
    for event, opts in EVENTS.items():
        if events is not None and event not in events:
            continue
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise SettingsError(f"\"hooks.{event}\" is not a list; nothing was changed")
        present = any(
            is_ours(h) for g in groups if isinstance(g, dict)
            for h in (g.get("hooks") or []) if isinstance(g.get("hooks"), list)
        )
        if present:
            continue
        handler: dict[str, Any] = {"type": "command", "command": command,
                                   "timeout": opts["timeout"]}
        if opts.get("async"):
            handler["async"] = True
        group: dict[str, Any] = {}
        if "matcher" in opts:
            group["matcher"] = opts["matcher"]
        group["hooks"] = [handler]
        groups.append(group)
    return out


def without_hooks(data: dict[str, Any], events: list[str] | None = None) -> dict[str, Any]:
    """`data` without any of our handlers (on `events`, when given), and without
    groups they leave empty."""
    out = _copy(data)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        if events is not None and event not in events:
            continue
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for g in groups:
            if isinstance(g, dict) and isinstance(g.get("hooks"), list):
                before = len(g["hooks"])
                g["hooks"] = [h for h in g["hooks"] if not is_ours(h)]
                if not g["hooks"] and before:
                    continue
            kept.append(g)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del out["hooks"]
    return out


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write(path: Path, old_text: str | None, data: dict[str, Any]) -> Path | None:
    """Write the settings atomically, after a backup of the old file; the backup path."""
    from vibe_vault.atomic import path_stamp, replace_seen, write_atomic

    backup = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = None
        try:
            mode = os.stat(path).st_mode & 0o777
            # The owner's write bit, not os.access: as root that always says yes, and
            # a file made read-only was made so on purpose.
            if not mode & 0o200 or not os.access(path, os.W_OK):
                raise SettingsError(f"{path} is read-only; nothing was changed")
        except FileNotFoundError:
            pass
        # Never over a version not seen: the settings are read again, and put
        # in place only while the path still holds that very file.
        seen = path_stamp(path)
        now = None if seen is None else read_text(path, 64 << 20)
        if now != old_text:
            raise SettingsError(f"{path} changed while vv was reading it; nothing was "
                                "changed: run the command again")
        if old_text is not None:
            backup = path.with_name(path.name + ".vv-backup")
            write_atomic(backup, old_text.encode("utf-8"), mode=0o600)
        replaced, displaced = replace_seen(path, dumps(data).encode("utf-8"), seen, mode=mode,
                                           exchange=True)
        if not replaced:
            raise SettingsError(f"{path} changed while vv was writing it; nothing was "
                                "changed: run the command again")
        if displaced is not None:
            kept = path.with_name(path.name + ".vv-conflict")
            os.replace(displaced, kept)
            raise SettingsError(f"{path} was saved by something else while vv wrote it: "
                                f"that version is kept as {kept}; compare and merge by hand")
    except OSError as exc:
        raise SettingsError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return backup


def diff(path: Path, old: str, new: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                        fromfile=str(path), tofile=str(path)))


def registrations(data: dict[str, Any]) -> dict[str, list[str]]:
    """Our commands by event in a settings object."""
    found: dict[str, list[str]] = {}
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for g in groups:
            if isinstance(g, dict) and isinstance(g.get("hooks"), list):
                for h in g["hooks"]:
                    if is_ours(h):
                        found.setdefault(event, []).append(h["command"])
    return found
