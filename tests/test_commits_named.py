"""Every commit git printed names the files it holds (issue 29, review 17
findings 9 and 10).

For each commit output in every corpus session, in the main transcript and
in every subagent file (`[branch sha] subject` with git's summary after it),
the files git's own words say it holds (`create mode` lines, stat lines, and
the paths the same command's `git add` named when git's count of files is
theirs) are derived here from the JSON. Each must be a row of the note's Files
table, and `vv files --json` must give the session's change of it with a
commit that holds it.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from conftest import CORPUS, Env, blocks, frontmatter, has_assistant, main_files, session_files
from conftest import json_objects as objects
from test_corpus import expected_sid
from test_facts import result_text

pytestmark = pytest.mark.corpus

COMMIT = re.compile(r"(?m)^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] .*$")
SESSIONS = [p for p in main_files() if has_assistant(p)]


def _folder(cwd: str, to: str) -> str:
    """Where `git -C to` runs from `cwd` (a path written as the session's
    folder is, `-experiments/x` in a corpus whose full paths were rewritten,
    is a full path)."""
    if to.startswith("/") or (to.startswith("-") and to.split("/")[0] == cwd.split("/")[0]):
        return to
    return posixpath.normpath(posixpath.join(cwd, to))


def _added(command: str, cwd: str) -> list[str] | None:
    """The files the command's `git add`s name, as full paths; None when one
    adds what it does not name (`-A`, `.`, a pattern)."""
    out: list[str] = []
    for m in re.finditer(r"\bgit((?:\s+-C\s+\S+)?)\s+add\b([^;&|\n]*)", command):
        here = _folder(cwd, m.group(1).split()[1]) if m.group(1).strip() else cwd
        try:
            words = shlex.split(m.group(2))
        except ValueError:
            return None
        for w in words:
            if w.startswith("-") or w in (".", ":/") or "*" in w:
                return None
            out.append(posixpath.normpath(posixpath.join(here, w)))
    return out


def commits_holding(main: Path) -> dict[str, set[str]]:
    """file (full path) -> the shas (7 characters) of the commits git's
    output says hold it, in every transcript file of the session."""
    held: dict[str, set[str]] = {}
    for path in [main, *session_files(main)]:
        calls: dict[str, dict[str, Any]] = {}
        for o in objects(path):
            for b in blocks(o):
                if b.get("type") == "tool_use" and b.get("name") == "Bash":
                    calls[str(b.get("id"))] = b
                elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls \
                        and not b.get("is_error"):
                    command = str((calls.pop(str(b["tool_use_id"])).get("input") or {})
                                  .get("command") or "")
                    cwd = str(o.get("cwd") or "")
                    if not cwd.startswith(("/", "-")) or "git" not in command:
                        continue
                    git_c = re.search(r"\bgit\s+-C\s+(\S+)\s+commit\b", command)
                    here = _folder(cwd, git_c.group(1)) if git_c else cwd
                    text = result_text(o, b)
                    found = list(COMMIT.finditer(text))
                    for k, m in enumerate(found):
                        out = text[m.end():found[k + 1].start() if k + 1 < len(found) else None]
                        count = re.search(r"(?m)^ (\d+) files? changed", out)
                        if not count:
                            continue
                        names = re.findall(r"(?m)^ (?:create|delete) mode \d+ (.+)$", out) + \
                            re.findall(r"(?m)^ (\S[^|\n]*?)\s+\|\s+(?:\d+|Bin)\b", out)
                        files = {posixpath.normpath(posixpath.join(here, n.strip()))
                                 for n in names if "=>" not in n and "{" not in n}
                        added = _added(command, cwd)
                        if added and len(set(added) | files) == int(count.group(1)):
                            files |= set(added)
                        for f in files:
                            held.setdefault(f, set()).add(m.group(1)[:7])
    return held


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> tuple[Env, dict[str, str]]:
    env = Env(tmp_path_factory.mktemp("named"))
    env.here = True
    r = env.vv("backfill", str(CORPUS))
    assert r.returncode == 0, r.stderr.decode()
    return env, {str(frontmatter(text)["session_id"]): text for text in env.notes().values()}


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_file_a_commit_holds_is_listed_with_a_commit_that_holds_it(
        vault: tuple[Env, dict[str, str]], main: Path) -> None:
    env, notes = vault
    sid = str(expected_sid(main))
    note = notes[sid]
    table = note.split("\n## Files changed\n", 1)[1].split("\n## ", 1)[0] \
        if "\n## Files changed\n" in note else ""
    rows = re.findall(r"(?m)^\| `(.+?)` \|", table)
    made = {m.group(1)[:7] for p in [main, *session_files(main)] for o in objects(p)
            for b in blocks(o) if b.get("type") == "tool_result"
            for m in COMMIT.finditer(result_text(o, b))}
    for path, shas in commits_holding(main).items():
        assert any(path == r or path.endswith("/" + r) for r in rows), (path, rows)
        r = env.vv("files", "--json", "--limit", "100", "--", path)
        assert r.returncode == 0, (path, r.stderr.decode())
        mine = [x for x in json.loads(r.stdout) if x["session_id"] == sid]
        assert mine, path
        # (or a later commit of the session that git's count says took it
        # with everything changed: test_commit_files)
        assert mine[0]["commit"][:7] in shas | made, (path, mine[0]["commit"], shas)


def test_the_corpus_has_commits_that_name_their_files() -> None:
    """Commits in subagent files among them."""
    held = [commits_holding(m) for m in SESSIONS]
    assert sum(len(h) for h in held) >= 10


# A formatter a task runner printed as it ran it (mise: `[fmt] $ gofmt -s -w .`).
ECHOED_GOFMT = re.compile(r"(?m)^\[[\w:./@-]+\] \$ gofmt((?: -\w+)*) ")


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_a_formatter_a_task_runner_ran_is_told(vault: tuple[Env, dict[str, str]],
                                               main: Path) -> None:
    """Each `gofmt -w` a task runner printed it ran (review 17 #10: `mise run
    fmt`) is a row of the Files table: files reformatted by it."""
    _, notes = vault
    note = notes[str(expected_sid(main))]
    for path in [main, *session_files(main)]:
        for o in objects(path):
            for b in blocks(o):
                if b.get("type") != "tool_result" or b.get("is_error"):
                    continue
                for m in ECHOED_GOFMT.finditer(result_text(o, b)):
                    if "w" in m.group(1):
                        assert "by `gofmt -w`" in note, m.group(0)
