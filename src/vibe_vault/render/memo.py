"""A note's settled turns as they were last rendered, kept in the session state,
so a Stop renders only what changed instead of a long session's whole story.

A turn's lines are made from the turn and from a few facts beside it: its
heading's time as shown (in the zone notes tell times in, with the date on a
new day), the session's folder (paths are shown relative to it), the
session's status (a subagent call with no result is "still at work" or
"unfinished"), its subagents as they ended, the commands' durations the tool
hooks recorded, and whether thinking is shown. A kept rendering is filed under
a digest of all of these and of the code that renders (the package's files'
sizes and times), and used only under the same digest: whatever differs from
the render it was made by renders again, so a note made with the memo is the
note made without it, byte for byte. The last turn is never kept (its answer is
shown whole, or the Stop hook's provisional one): it renders every time.

The other sections keep their parts the same way (`Memo.part`: a file's row,
a command's, an error, a subagent's line), each filed under a digest of the
function that makes it and of all it is made from, its arguments: a part
whose arguments changed (a file edited again, a command run once more)
renders again, the rest come from the state.
"""


import os
from collections.abc import Callable
from functools import cache
from typing import Any, cast

import msgspec

from vibe_vault.markdown import Md, kept_lines
from vibe_vault.redact import Redacted
from vibe_vault.state import Rendered, SessionState, Turn

try:  # the C module itself: hashlib's import costs a hook ~3 ms more
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - another Python
    from hashlib import blake2b

_encoder = msgspec.msgpack.Encoder()


@cache
def code_stamp() -> bytes:
    """What the code that makes a turn's lines is, as cheaply as it can be
    told: the version, and the size and time of the source file of every
    module the story's lines come from (a new version, an edit, another
    checkout), so a rendering kept by other code is never used. (A module the
    story comes to use must be added to RENDERERS.)"""
    import sys

    import vibe_vault

    parts = [vibe_vault.__version__]
    for name in RENDERERS:
        path = getattr(sys.modules.get(name), "__file__", None) or name
        try:
            st = os.stat(path)
        except OSError:
            parts.append(name)
            continue
        parts.append(f"{name} {st.st_size} {st.st_mtime_ns}")
    return blake2b("\n".join(parts).encode(), digest_size=16).digest()


# The modules a settled turn's lines are made by (render.story and what it
# calls): each is imported by the time a note renders.
# And those of the other sections' parts (render.work and what it calls).
RENDERERS = ("vibe_vault.render.memo", "vibe_vault.render.story", "vibe_vault.render.page",
             "vibe_vault.markdown", "vibe_vault.text", "vibe_vault.paths", "vibe_vault.figures",
             "vibe_vault.times", "vibe_vault.state", "vibe_vault.render.work",
             "vibe_vault.fold.files", "vibe_vault.project", "vibe_vault.work",
             "vibe_vault.linked_files", "vibe_vault.render.head", "vibe_vault.pricing",
             "vibe_vault.fold.subagents", "vibe_vault.fold.todos", "vibe_vault.redact",
             "vibe_vault.fold.story")


class Memo:
    """The renderings a state kept (`old`), and those this render keeps (`new`:
    the state holds these after the write, and nothing else); the same of the
    other sections' parts (`parts`, `new_parts`: see `part`)."""

    def __init__(self, kept: list[Rendered], parts: list[Rendered] | None = None) -> None:
        self.old = {r.key: r.lines for r in kept}
        self.new: list[Rendered] = []
        self.hits = 0
        self.parts = {r.key: r.lines for r in parts or ()}
        # The parts each part made of parts was made of: kept with it, so
        # its rows stay while it comes whole from the memo.
        self._inner = {r.key: r.inner for r in parts or () if r.inner}
        self._made: dict[bytes, list[Redacted]] = {}
        self._named: dict[Callable[..., list[Md]], Any] = {}  # each maker's digest so far
        self._making: list[list[bytes]] = []  # the parts used by each part being made
        self.part_hits = 0
        self.parts_made = 0

    @property
    def new_parts(self) -> list[Rendered]:
        """The parts this render used, each once, in the order first used."""
        return [Rendered(key=k, lines=v, inner=self._inner.get(k, []))
                for k, v in self._made.items()]

    def _use(self, digest: bytes, lines: list[Redacted]) -> None:
        """Keep a part this render used (with the parts it was made of)."""
        if self._making:
            self._making[-1].append(digest)
        for inner in self._inner.get(digest, ()):
            kept = self._made.get(inner)
            if kept is None:
                kept = self.parts.get(inner)
                if kept is not None:
                    self._use(inner, kept)
        self._made[digest] = lines

    def part(self, make: Callable[..., list[Md]], *args: object,
             rows: Callable[..., list[Md]] | None = None) -> list[Md]:
        """`make(*args)`: the lines of a part of a section (a row of a table,
        an entry of a list), kept ones when `make`, of the same code, made
        them of equal arguments. `make` reads nothing but its arguments (and
        the module constants and escapers the code stamp covers), so its
        lines are a function of what the digest is taken of: kept or made,
        the same bytes. Arguments are what msgpack encodes (str, int, bool,
        None, lists, tuples, Structs); a time is passed as shown, not as a
        stamp (the zone would be one more input). `rows`, when given, is
        passed to `make` first, unkept: a part made of parts
        (`render.page.parts`) is handed the function that makes each (whose
        lines are those a call of the function itself makes)."""
        named = self._named.get(make)
        if named is None:
            named = self._named[make] = blake2b(code_stamp(), digest_size=16)
            named.update(f"{make.__module__}.{make.__qualname__}\0".encode())
        key = named.copy()
        key.update(_encoder.encode(args))
        digest = key.digest()
        old = self._made.get(digest)
        if old is None:
            old = self.parts.get(digest)
        if old is not None:
            self.part_hits += 1
            self._use(digest, old)
            return kept_lines(old)
        self.parts_made += 1
        if rows is None:
            made = make(*args)
        else:
            self._making.append([])
            try:
                made = make(rows, *args)
            finally:
                inner = self._making.pop()
            self._inner[digest] = list(dict.fromkeys(inner))
        self._use(digest, cast(list[Redacted], made))
        return made

    def lines(self, turn: Turn, state: SessionState, show_thinking: bool, when: str,
              make: Callable[[Turn], list[Md]]) -> list[Md]:
        """The settled turn `turn`'s lines: kept ones under the same digest, else `make(t)`'s."""
        durations = [state.durations.get(a.tool_id) for a in turn.actions
                     if a.kind == "bash" and a.tool_id]
        # A subagent's line tells how it ended, which a later line may tell
        # (its notification, its own file's last answer: work.settle_by_files).
        agents = {a.tool_id for a in turn.actions if a.kind == "agent" and a.tool_id}
        subs = [s for s in state.fold.subagents if s.tool_id in agents] if agents else []
        key = blake2b(code_stamp(), digest_size=16)
        key.update(_encoder.encode((turn, when, state.fold.cwd, state.status,
                                    show_thinking, durations, subs)))
        digest = key.digest()
        old = self.old.get(digest)
        if old is not None:
            self.hits += 1
            self.new.append(Rendered(key=digest, lines=old))
            return kept_lines(old)
        made = make(turn)
        # (Md and Redacted are both str: lines the escapers made of gated text)
        self.new.append(Rendered(key=digest, lines=cast(list[Redacted], made)))
        return made
