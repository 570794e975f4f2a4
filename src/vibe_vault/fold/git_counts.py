"""git's own count of a file's lines, as a command's output printed it: a stat
line (` a.py | 5 +++--`, from `git commit --stat`, `git show --stat`, `git
diff --stat`, a merge's or a fast-forward's diffstat) and what `git commit`
says it made or removed (`create mode 100644 a.py`, `delete mode …`). The
note shows them where the session's own figures are not known (a file deleted
unread, one only committed), saying they are git's (vibe_vault.work).

A stat line gives the lines changed; which are insertions is told exactly
when its bar is not scaled (as many marks as lines), when git made or
removed the file, or for the one file of its block left when the others are
known and git printed the block's totals. `git log --stat` is not read: it
prints commits made before the session.
"""

from __future__ import annotations

from vibe_vault.fold.context import Context
from vibe_vault.project import folder_after
from vibe_vault.state import GitLines, Pending
from vibe_vault.text import rx

MAX_FILES = 1000
PATH_CHARS = 300  # (as fold.files names a file: the same key)

# The git commands whose stat and modes are of the session's work: a commit,
# a merge or pull (its diffstat), a diff or show of the working tree or HEAD.
_READS = (r"(?:^|[\s;&|(])git(?:\s+-[Cc]\s+\S+|\s+--[\w-]+(?:=\S+)?)*\s+"
          r"(?:commit|merge|pull|diff|show|stash\s+show)\b")
# A stat line's count and bar, after its last " | " (the path before it: split
# off in code, no pattern scanning back over it).
# Of them, those that count what a commit holds: the commit's own output, or
# the staged changes the next commit takes (`git diff --cached --stat`).
_OF_A_COMMIT = (r"(?:^|[\s;&|(])git(?:\s+-[Cc]\s+\S+|\s+--[\w-]+(?:=\S+)?)*\s+"
                r"(?:commit\b|diff\b[^;&|\n]*\s--(?:cached|staged)\b)")
MAX_TOLD = 20
_BAR = r"^(\d+) ?(\+*)(-*)$"
_TOTAL = (r"^ (\d+) files? changed(?:, (\d+) insertions?\(\+\))?"
          r"(?:, (\d+) deletions?\(-\))?\s*$")
_MODE = r"^ (create|delete) mode \d+ (.+)$"


def note_command(call: Pending, command: str) -> None:
    """Whether the command's output may hold git's count of the session's files."""
    if "git" in command and rx(_READS).search(command):
        call.git_counts = True
        call.counts_commit = bool(rx(_OF_A_COMMIT).search(command))


def on_output(ctx: Context, call: Pending, out: str, timestamp: str) -> None:
    """The counts git printed of each file, kept by the file's path (placed
    where git ran, as fold.staged places a commit's files)."""
    if not call.git_counts or (" | " not in out and " mode " not in out):
        return
    here = str(call.stage_in) or ctx.entry_cwd
    block: list[tuple[str, int, int, int]] = []  # path, lines, + marks, − marks
    told: dict[str, tuple[int, int]] = {}
    lines = out.splitlines()
    # (what a commit made or removed: printed after its stat's block)
    modes = {_new_name(m.group(2)): m.group(1) for m in map(rx(_MODE).match, lines) if m}
    for line in lines:
        name, bar, rest = line.rpartition(" | ")
        m = rx(_BAR).match(rest.strip()) if bar and line.startswith(" ") and name.strip() \
            else None
        if m:
            block.append((_new_name(name), int(m.group(1)), len(m.group(2)), len(m.group(3))))
            continue
        total = rx(_TOTAL).match(line)
        if total:
            if block:
                told.update(_split(block, int(total.group(2) or 0), int(total.group(3) or 0),
                                   modes))
            block = []
        elif block and line.strip():
            block = []  # (not a stat's block: its lines are together)
    facts = ctx.facts
    for path in dict.fromkeys([*told, *modes]):
        if path.startswith("..."):
            continue  # (a long path git shortened: which file, not told)
        key = ctx.name(folder_after(here, path), PATH_CHARS)
        rec = facts.git_lines.get(key)
        if rec is None:
            if len(facts.git_lines) >= MAX_FILES:
                continue
            rec = facts.git_lines[key] = GitLines(ts=timestamp)
        rec.ts = timestamp
        if path in told:
            rec.added, rec.removed = told[path]
            if call.counts_commit:
                rec.told.append((timestamp, *told[path]))
                del rec.told[:-MAX_TOLD]
        if path in modes:
            rec.mode = modes[path]


def _new_name(path: str) -> str:
    """A renamed file's new path (`dir/{a => b}.py`, `a => b`)."""
    path = path.strip()
    i = path.find("{")
    j = path.find(" => ", i) if i >= 0 else -1
    k = path.find("}", j) if j >= 0 else -1
    if k >= 0:
        return (path[:i] + path[j + 4:k] + path[k + 1:]).replace("//", "/")
    return path.rpartition(" => ")[2]


def _split(block: list[tuple[str, int, int, int]], inserted: int, deleted: int,
           modes: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Each file's (insertions, deletions) of a stat block, where told."""
    known: dict[str, tuple[int, int]] = {}
    left: list[tuple[str, int]] = []
    for path, lines, plus, minus in block:
        if plus + minus == lines:
            known[path] = (plus, minus)
        elif modes.get(path) == "create":
            known[path] = (lines, 0)
        elif modes.get(path) == "delete":
            known[path] = (0, lines)
        else:
            left.append((path, lines))
    if len(left) == 1:
        path, lines = left[0]
        plus = inserted - sum(a for a, _ in known.values())
        minus = deleted - sum(r for _, r in known.values())
        if plus >= 0 and minus >= 0 and plus + minus == lines:
            known[path] = (plus, minus)
    return known
