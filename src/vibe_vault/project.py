"""A session's project name: the git remote's repository name, else the directory name."""

from __future__ import annotations

import os
import re
from functools import lru_cache

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
        inside = worktree_parts(parts)
        if inside is not None:
            parts = inside[0]
        name = parts[-1] if parts else "unknown"
        if re.fullmatch(r"[A-Za-z]:", name):
            name = "root"
    return safe_name(name, 60)


# Folders a repository keeps its git worktrees in: Claude Code's own
# (`isolation: worktree` subagents, `--worktree`) and the common `.worktrees`.
# (Not any folder named `worktrees`: `~/worktrees/proj` is a repository of its
# own, and a file under `docs/worktrees/` is no worktree's.)
WORKTREE_FOLDERS = ((".claude", "worktrees"), (".worktrees",))


def worktree_parts(parts: list[str]) -> tuple[list[str], str, list[str]] | None:
    """A path (as `split_path` parts) inside a git worktree kept in such a
    folder: the repository's parts, the worktree's name, and the parts under
    the worktree (`[]` for the worktree itself); None when it is in none.

    The one rule for worktrees: a session's project (`project_name`) and a
    file a subagent changed in its worktree (`repo_file`) are both placed by it."""
    for marker in WORKTREE_FOLDERS:
        k = len(marker)
        for i in range(1, len(parts) - k):  # a repo before it, a name after it
            if tuple(parts[i:i + k]) == marker:
                return parts[:i], parts[i + k], parts[i + k + 1:]
    return None


def repo_file(path: str, cwd: str) -> tuple[str, str]:
    """`path` as the repository the session ran in holds it, and the name of
    the worktree it was changed in ("" when none): a file in a worktree of
    that repository (a subagent's `repo/.claude/worktrees/agent-x/src/a.py`,
    or the session's own folder when it ran in one) is the repository's file
    (`repo/src/a.py`). Any other path is returned as it is."""
    if "worktrees" not in path:  # (in every folder of WORKTREE_FOLDERS)
        return path, ""
    parts = split_path(path)
    inside = worktree_parts(parts)
    if inside is None:
        return path, ""
    repo, name, under = inside
    if not under or tuple(p.lower() for p in repo) != _repo_of(cwd):
        return path, ""
    return join_like(path, repo + under), name


@lru_cache(maxsize=64)
def _repo_of(cwd: str) -> tuple[str, ...]:
    """The repository a session's folder is in (its worktree's, when it is
    one), as lower-cased parts, to compare paths' repositories with."""
    parts = split_path(cwd)
    inside = worktree_parts(parts)
    return tuple(p.lower() for p in (inside[0] if inside is not None else parts))


# Temporary folders, lower-cased with `/`: up to the folder itself (the
# note's scratch files, vibe_vault.work; throwaway repositories, fold.git).
TEMP_FOLDER = lazy(r"^(?:/private)?/(?:var/)?tmp/|^(?:/private)?/var/folders/[^/]+/[^/]+/t/"
                   r"|^[a-z]:/(?:windows/)?temp/|/appdata/local/temp/")


def other_repository(folder: str, cwd: str) -> bool:
    """`folder` (where a git command ran) is in another repository than the
    session's folder `cwd`: neither holds the other (a sibling repository, not
    a subfolder, a parent or a worktree of the session's own)."""
    if not folder or not cwd:
        return False
    a, b = _repo_of(folder), _repo_of(cwd)
    n = min(len(a), len(b))
    return a[:n] != b[:n]


def folder_name(folder: str) -> str:
    """A folder as a note names another repository: its last part."""
    parts = split_path(folder)
    return parts[-1] if parts else folder


def folder_after(here: str, to: str) -> str:
    """The folder `cd to` leads to from `here` ("" when that is not known
    from the text alone: `~`, a variable, a command's output)."""
    to = to.strip("'\"")
    if to.startswith("-") and here.startswith("-") and \
            split_path(to)[:1] == split_path(here)[:1]:
        # Written as the session's own folder is (a transcript whose full
        # paths were rewritten `-experiments/x`): a full path, not an option.
        return to
    if to == "~" or to.startswith(("~/", "~\\")):
        # The user's home, where the folder it leads from tells it
        # (`/Users/u/…`, `/home/u/…`): review 31 F14, `cd ~/Projects/other &&
        # git commit` in a session of ~/Projects/app is a commit of `other`.
        home = home_of(here)
        return folder_after(home, to[2:]) if home and len(to) > 2 else home
    if not to or to.startswith(("~", "$", "`", "-")):
        return ""
    if to.startswith(("/", "\\")) or is_windows_path(to):
        return to
    if not here:
        return ""
    parts = split_path(here)
    for part in split_path(to):
        if part == "..":
            parts = parts[:-1]
        elif part != ".":
            parts.append(part)
    return join_like(here, parts)


_HOME = lazy(r"^(?:/Users/[^/\\]+|/home/[^/\\]+|/root|[A-Za-z]:[\\/]Users[\\/][^/\\]+)"
             r"(?=$|[/\\])")


def home_of(folder: str) -> str:
    """The user's home folder a full path lies in (`/Users/u`, `/home/u`,
    `C:\\Users\\u`), "" when the path does not tell it."""
    m = _HOME.match(folder)
    return m.group(0) if m else ""


def repo_folder(cwd: str) -> str:
    """The session's folder as its repository holds it (`repo/sub` for
    `repo/.worktrees/x/sub`): what the repository's files are shown relative to."""
    parts = split_path(cwd)
    inside = worktree_parts(parts)
    return join_like(cwd, inside[0] + inside[2]) if inside is not None else cwd


def join_like(path: str, parts: list[str]) -> str:
    """`parts` joined as `path` is written: its separator, and its root (`/`,
    a drive, `\\\\server`)."""
    windows = is_windows_path(path) or ("\\" in path and "/" not in path)
    sep = "\\" if windows else "/"
    if path.startswith(("\\\\", "//")):
        return sep * 2 + sep.join(parts)
    if path.startswith(("/", "\\")) and not windows:
        return "/" + sep.join(parts)
    return sep.join(parts)
