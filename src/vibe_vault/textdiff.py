"""What changed between two versions of a text (a plan put to the user again),
as the lines a reader needs: the removed ones marked `-`, the added ones `+`,
runs of unchanged lines between them shown as one `…`. Pure."""

from __future__ import annotations

GAP = "…"


def changed_lines(old: str, new: str) -> tuple[str, int, int]:
    """The lines `new` differs from `old` by, and how many were added and
    removed (a shortest edit script's, near enough: difflib's)."""
    import difflib  # only when a plan changed: not on every hook's path

    before, after = old.split("\n"), new.split("\n")
    out: list[str] = []
    added = removed = 0
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            if out and i2 - i1:
                out.append(GAP)
            continue
        for line in before[i1:i2]:
            out.append(f"- {line}".rstrip())
            removed += 1
        for line in after[j1:j2]:
            out.append(f"+ {line}".rstrip())
            added += 1
    while out and out[-1] == GAP:
        out.pop()
    return "\n".join(out), added, removed
