"""Whether a subject git printed is the one a commit was made with: asked
by the fold (fold.git) and by the figures (work), which name a commit made
without git's line from a later output. Its own module: the figures of a
session with such commits then need not load fold.git (~70 kB of code)."""

from __future__ import annotations


def same_subject(printed: str, made: str) -> bool:
    """Whether a subject a later output printed is the one a commit was made
    with."""
    return printed == made


def merge_of(printed: str, merged: str) -> bool:
    """Whether a subject a later output printed is git's own for a merge of
    branch `merged`: "Merge branch 'x'", "Merge remote-tracking branch
    'origin/x' into y", "Merge branch 'x' of <url>"."""
    return bool(merged) and printed.startswith("Merge ") and f"'{merged}'" in printed
