"""Words a query's word also finds, besides its own forms (stem.py): the
word it is made from by a prefix and the words made from it so (`subfolder`
finds folder, `agent` finds subagent), and the few words developers use for
one thing (`folder`, `directory`, `dir`). Each is found below the word as
typed (vaultdb.search asks for the words as typed first).

Review 26 #20: "no checkpoints when claude started in a subfolder" did not
find the session that says "inside a folder" and "running from
subdirectories"; "subagent messages…" not the one saying "sub messages".

A prefix is taken off only where what is left is a word of its own of at
least 4 letters (5 after `re`), and not from the words that only look made
so (`unless` is not un-less, `research` not re-search, `present` not
pre-sent): those are listed, and find nothing more.
"""

from __future__ import annotations

# The prefixes whose words mean the word with the prefix's sense; not `de`
# (debug, default), `dis` (display), `mis` (missing), `co` (code), `over`
# (override, overview), `under` (understand), `inter` (interface), `post`
# (posthog), `out` (output), `micro` (microsoft): too many of their words
# are no word made so.
PREFIXES = ("sub", "multi", "non", "un", "pre", "re", "super", "auto")
# (what is left after `re` must be longer: rebase, review, report, remove,
# return, rename, recall are no re-base, re-view…)
_SHORTEST = {"re": 5}
# Words that look made by a prefix and are not (each with its forms: a word
# is looked up by its stem's start, as typed, plural or not).
_NOT_MADE = """
unless until union unique unit universe universal unicode unify unified
present presence prevent prepare predict preserve prefer premise pretend press pressure
prettier pretty previous previously presume presumably prestige
research release replace request require resolve resolution represent refactor
resource recover restore reserve reverse reaction retire restrict retreat reflect
record regard regular relate relation relative remain remark reason receipt receive
recent recipe reckon recognize reconcile reduce refer reference reform refresh refuse
regret reject relax relay relief rely remedy remote render repeat reply report
resemble resent reside resign resist respect respond response result resume retail
retain retort reveal revise revolve reward
subject submit subscribe substance subtract subsequent substitute subtle suburb
substantial subsidy succeed success suggest
supervise supervisor superb superior supply support suppose
automatic automatically automation automaton autonomy autonomous autopsy
nonce none nonsense multiple multiply
"""
NOT_MADE = frozenset(_NOT_MADE.split())
# Words developers use for one thing: each finds the others (and what is
# made of them by a prefix: `subfolder` finds subdirectory).
SAME = (
    ("folder", "directory", "dir"),
    ("repo", "repository"),
    ("subagent", "sub"),
)


def _not_made(word: str) -> bool:
    return any(word.startswith(w) and len(word) - len(w) <= 4 for w in NOT_MADE
               if word[:2] == w[:2])


def root_of(word: str) -> tuple[str, str] | None:
    """(prefix, the word it is put on) of a folded word made so, else None."""
    if not word.isascii() or not word.isalpha() or _not_made(word):
        return None
    for prefix in PREFIXES:
        rest = word[len(prefix):]
        if word.startswith(prefix) and len(rest) >= _SHORTEST.get(prefix, 4):
            return prefix, rest
    return None


def same_as(word: str) -> list[str]:
    """The other words for what a folded word names (SAME), none if none."""
    for group in SAME:
        if word in group:
            return [w for w in group if w != word]
    return []


def made_from(word: str) -> list[str]:
    """The words a prefix makes of a folded word (`folder`: subfolder,
    multifolder…), those that only look made so left out; the caller keeps
    those the index holds."""
    if not word.isascii() or not word.isalpha():
        return []
    return [p + word for p in PREFIXES
            if len(word) >= _SHORTEST.get(p, 4) and not _not_made(p + word)]
