"""A call is "failed" only on the client's word, or on the check's own.

Claude Code marks a tool result that failed (`is_error`: a shell command's
nonzero exit, which it prints as `Exit code N`; a refused or broken call). A
result it marks no error is "failed" in a note only when the command's exit
status was not its own (a check piped on, `cargo clippy 2>&1 | tail -5`: the
status is the last command's) and the check printed its own failure verdict.
Error words in an output that the client marked fine (PowerShell printing an
error record and carrying on) are no failure.

The oracle reads every corpus session's JSON: each tool result's `is_error`,
its command and what it printed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import CORPUS, has_assistant, main_files
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.locations import tool_key
from vibe_vault.state import Fold

pytestmark = pytest.mark.corpus

SHELLS = ("Bash", "PowerShell")
# A pipe after the command (not `||`): the line's exit status is its last command's.
PIPED = re.compile(r"[^|]\|[^|]")
# What a test runner, compiler or task runner prints when the check failed:
# go's `FAIL` / `--- FAIL:`, rustc's and clippy's `error:` / `error[E0425]:`,
# pytest's `N failed`, a task runner's `ERROR task failed`.
OWN_VERDICT = re.compile(r"(?m)^(?:\s*--- FAIL:|FAIL\b|error(?:\[E\d+\])?: |\[\w[\w:-]*\] ERROR "
                         r"|=+ .*\b\d+ failed\b)|\b\d+ failed\b")

SESSIONS = [p for p in main_files() if has_assistant(p)]


def _printed(obj: dict[str, Any], block: dict[str, Any]) -> str:
    r = obj.get("toolUseResult")
    if isinstance(r, dict) and isinstance(r.get("stdout"), str) and r["stdout"]:
        return str(r["stdout"])
    c = block.get("content")
    if isinstance(c, str):
        return c
    return "\n".join(str(x.get("text", "")) for x in c or [] if isinstance(x, dict))


def shell_results(lines: list[bytes]) -> dict[str, tuple[bool, bool]]:
    """Each shell call's result, by the key vv keeps of its id: (the client
    marked it an error, its exit status was masked by a pipe and it printed a
    check's own failure verdict)."""
    commands: dict[str, str] = {}
    out: dict[str, tuple[bool, bool]] = {}
    for x in lines:
        try:
            obj = json.loads(x)
        except ValueError:
            continue
        content = (obj.get("message") or {}).get("content") if isinstance(obj, dict) else None
        for b in content if isinstance(content, list) else []:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use" and b.get("name") in SHELLS:
                commands[str(b.get("id"))] = str((b.get("input") or {}).get("command") or "")
            elif b.get("type") == "tool_result" and str(b.get("tool_use_id")) in commands:
                command = commands[str(b.get("tool_use_id"))]
                own = bool(PIPED.search(command)) and bool(OWN_VERDICT.search(_printed(obj, b)))
                out[tool_key(str(b.get("tool_use_id")))] = (b.get("is_error") is True, own)
    return out


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_a_failed_command_failed_by_the_clients_word_or_its_checks_own(main: Path) -> None:
    lines = [x for x in main.read_bytes().split(b"\n") if x.strip()]
    results = shell_results(lines)
    facts = fold(Fold(), (decode_line(x) for x in lines))
    for row in facts.commands:
        if row.status == "failed":
            marked, own = results[row.tool_id]
            assert marked or own, (str(row.command), row.tool_id)
        elif row.tool_id in results and results[row.tool_id][0]:
            assert row.status != "ok", str(row.command)  # (an error is never "ok")


def test_the_corpus_has_failures_of_each_kind() -> None:
    """The check above means something only if the corpus holds both kinds of
    failure, and a result marked fine whose output holds error words."""
    marked = own = worded = 0
    for main in SESSIONS:
        lines = [x for x in main.read_bytes().split(b"\n") if x.strip()]
        for is_error, by_check in shell_results(lines).values():
            marked += is_error
            own += by_check and not is_error
        worded += b"InvalidOperation: " in main.read_bytes()
    assert marked >= 10 and own >= 3 and worded >= 1
