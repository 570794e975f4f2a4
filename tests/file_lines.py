"""Lines a file change adds and takes, counted as `git diff` counts them: the
oracle of the Files changed figures that test_counts (generated contents) and
test_facts (the corpus's JSON) share. Written from git's rules, not from the
code under test."""

from __future__ import annotations

from typing import Any


def git_lines(text: str) -> list[str]:
    """Lines as git diffs them: each with its newline, the last maybe without
    (so a last line without a newline is another line than the same with one)."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def net_lines(old: str, new: str) -> tuple[int, int]:
    """Lines `new` adds to `old` and takes from it: those outside a longest
    common subsequence of their lines (dynamic programming, after the common
    start and end)."""
    a, b = git_lines(old), git_lines(new)
    while a and b and a[0] == b[0]:
        a, b = a[1:], b[1:]
    while a and b and a[-1] == b[-1]:
        a, b = a[:-1], b[:-1]
    row = [0] * (len(b) + 1)
    for x in a:
        diag, row = 0, row[:]
        for j, y in enumerate(b, 1):
            up = row[j]
            row[j] = diag + 1 if x == y else max(row[j], row[j - 1])
            diag = up
    return len(b) - row[-1], len(a) - row[-1]


def edited(before: str, inp: dict[str, Any]) -> str | None:
    """The content an Edit or MultiEdit input leaves of `before` (its strings
    put in place of the old ones, in order); None where one is not found there,
    as the client then refuses the edit."""
    edits = inp.get("edits") if isinstance(inp.get("edits"), list) else [inp]
    for e in edits:
        old, new = e.get("old_string"), e.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or not old or old not in before:
            return None
        before = before.replace(old, new) if e.get("replace_all") else before.replace(old, new, 1)
    return before
