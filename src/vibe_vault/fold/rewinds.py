"""A conversation rewound: a prompt sent from an earlier point of the session.

When the user rewinds (Esc Esc, `/rewind`, or edits a prompt already sent),
Claude Code appends the new prompt to the same file, its `parentUuid` naming
the last line of the turn it goes on from; the turns after that one stay in
the file but leave the conversation Claude continues (no line says so; only
the parent tells). Read in file order they would tell one straight thread.

So each turn keeps the uuid of its latest line of the main chain (`Turn.end`).
A prompt whose parent is the end of a turn before the latest one, with turns
of the conversation after it, is a rewind: it says to which turn
(`rewound_to`, that turn's time) and how many it left (`rewound`), and those
turns say they were left (`left`: the rewinding prompt's time). A parent that
is the end of no kept turn (a line mid-turn, a compaction, another file, the
answer written before its prompt of 2.1.197) changes nothing.
"""

from __future__ import annotations

from vibe_vault.entries import Entry
from vibe_vault.fold.context import Context
from vibe_vault.state import USER_SHELL

# The turns a rewind can leave: what the user said or ran, and what followed.
LEFT_KINDS = frozenset({"prompt", "command", USER_SHELL})


def chained(ctx: Context, entry: Entry) -> bool:
    """Before a main-transcript line is folded: whether it goes on from the
    latest lines (then, once folded, it is the latest of its turn). An answer
    written before its prompt (2.1.197) does not: its parent comes later, and
    the turn it lands in for now keeps its own end."""
    if not entry.uuid or entry.isSidechain:
        return False
    parent = entry.parentUuid
    return not parent or ctx.uuid(parent) in ctx.recent_uuids()


def saw(ctx: Context, uuid: str) -> None:
    """A line of the main chain was folded: the latest of its turn so far."""
    t = ctx.turn()
    if t is not None:
        t.end = ctx.uuid(uuid)


def rewound(ctx: Context, entry: Entry, timestamp: str) -> tuple[int, str]:
    """Before a prompt opens its turn: (how many turns it leaves, the time of
    the turn it goes on from), or (0, "") when it follows the latest turn."""
    parent = entry.parentUuid
    turns = ctx.facts.turns
    if not parent or entry.isSidechain or len(turns) < 2:
        return 0, ""
    key = ctx.uuid(parent)
    if turns[-1].end == key:
        return 0, ""
    for k in range(len(turns) - 2, -1, -1):
        if turns[k].end == key and not turns[k].left:
            later = [t for t in turns[k + 1:] if t.end and not t.left and t.kind in LEFT_KINDS]
            for t in later:
                t.left = timestamp or "-"
            return len(later), turns[k].ts if later else ""
    return 0, ""
