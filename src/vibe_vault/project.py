"""A session's project name: the git remote's repository name, else the directory name."""

from __future__ import annotations

import os
import re

from vibe_vault.paths import is_windows_path, safe_name, split_path
from vibe_vault.regular import read_regular
from vibe_vault.text import lazy

_REMOTE = lazy(r'^\s*\[remote\s+"([^"]+)"\]\s*$')
_URL = lazy(r"^\s*url\s*=\s*(\S+)\s*$")


def remote_repo_name(git_config: str) -> str | None:
    """Repository name of `origin` (else the first remote) in a .git/config text."""
    urls: dict[str, str] = {}
    current = None
    for line in git_config.splitlines():
        m = _REMOTE.match(line)
        if m:
            current = m.group(1)
            continue
        if line.lstrip().startswith("["):
            current = None
            continue
        u = _URL.match(line)
        if u and current and current not in urls:
            urls[current] = u.group(1)
    url = urls.get("origin") or next(iter(urls.values()), None)
    if not url:
        return None
    tail = re.split(r"[/:\\]", url.rstrip("/"))[-1]
    if tail.endswith(".git"):
        tail = tail[:-4]
    return tail or None


_NAMES: dict[str, str] = {}  # by cwd, for this process: a backfill's sessions share a few


def project_name(cwd: str) -> str:
    """Safe file name for the project of a session that ran in `cwd`."""
    name = _NAMES.get(cwd)
    if name is None:
        if len(_NAMES) > 4096:
            _NAMES.clear()
        name = _NAMES[cwd] = _project_name(cwd)
    return name


def _project_name(cwd: str) -> str:
    if not cwd:
        return "unknown"
    name = None
    if not is_windows_path(cwd) or os.name == "nt":
        try:
            data = read_regular(f"{cwd.rstrip('/')}/.git/config", 65536)
            name = remote_repo_name(data.decode("utf-8", "replace"))
        except (OSError, ValueError):
            name = None
    if not name:
        parts = split_path(cwd)
        # A git worktree (`repo/.worktrees/x`, `repo/.claude/worktrees/x`) belongs to its repo.
        for marker in (".worktrees", "worktrees"):
            if marker in parts[:-1]:
                i = parts.index(marker)
                repo = parts[: i - 1] if i > 0 and parts[i - 1] == ".claude" else parts[:i]
                if repo:
                    parts = repo
                    break
        name = parts[-1] if parts else "unknown"
        if re.fullmatch(r"[A-Za-z]:", name):
            name = "root"
    return safe_name(name, 60)
