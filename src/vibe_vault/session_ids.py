"""Session ids as people type them: whole, or the first characters (the
8-character short id in note names is enough)."""

from __future__ import annotations

from collections.abc import Iterable

from vibe_vault import patterns

SHORT = 8  # the short id in note names

# What a session id can be: Claude Code's are UUIDs; a transcript's file stem
# otherwise. Never a path (`..`), a pattern (`%`, `*`), a control character or empty.
_SESSION_ID = patterns.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,255}\Z")


def plausible_id(given: str) -> bool:
    """`given` can be a session id (or the start of one)."""
    return bool(_SESSION_ID.match(given)) and ".." not in given


def refusal(given: str) -> str:
    """The one line that refuses what cannot be a session id."""
    from vibe_vault.text import terminal_safe

    return (f"vv: not a session id: {terminal_safe(given)!r} (letters, digits, '-', '_' "
            "and '.', as in the note's name)")


class SessionNotFound(LookupError):
    pass


class AmbiguousSession(SessionNotFound):
    """The id given is the start of more than one session."""


def pick(given: str, known: Iterable[str], shortest: int = 4, typed: str = "") -> str:
    """The one known session `given` names: itself, or the only one it starts
    (with at least `shortest` characters). Raises SessionNotFound, with a
    message for the user that quotes `typed` (default: `given`), when it
    names none, AmbiguousSession when more than one."""
    given = given.strip()
    known = list(known)
    matches = sorted({sid for sid in known if sid == given
                      or (len(given) >= shortest and sid.startswith(given))})
    if not matches and len(given) >= shortest:
        # The short id in the note's name of an id that is not a UUID: a
        # digest of it (`ses_stage0_small`'s note ends in `-a33b5c10.md`).
        from vibe_vault.vault import short_id

        low = given.lower()
        matches = sorted({sid for sid in known if short_id(sid, len(low)) == low != sid[:len(low)]})
    if given in matches:
        return given
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise SessionNotFound(f"no session {typed or given!r} is known (vv search finds sessions)")
    shown = ", ".join(matches[:5]) + (", …" if len(matches) > 5 else "")
    raise AmbiguousSession(f"{given} is the start of {len(matches)} sessions ({shown}); "
                          "give more of the id")
