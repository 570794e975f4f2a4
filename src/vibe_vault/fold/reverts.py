"""Files the session changed that its own later evidence shows back as they
were: a `git checkout -- f` or `git restore f` it ran, or a later `git status`
or `git diff` that no longer lists a file it had modified (the user reverted
it by hand, outside Claude's tools: review 28 #17, 2d14de52's config.ts, +12
−6 counted though `git diff --stat` listed every changed file but it). Such a
file is told as reverted, with no net change, and counts in no total.

git's listing is read as evidence only where it says so plainly: the whole
list (no pipe to cut it, no path to narrow it; a stat's names as many as its
"N files changed"), of the working tree against the index or HEAD (`git diff`,
`git diff HEAD`, `git status`, no option that hides changes), after every
change of the file and with no git command since before its first change that
moves HEAD or the index (a commit, a stash, an add: the file may be absent for
that). A file is taken as reverted only when the same list names another file
of its folder (the folder is one git tracks and the list's paths are placed
right: a file git ignores, `.env`, is never in such a list, changed or not),
and names no file the session did not change (which may be another name of
one it changed: an edit through a symlink).
"""

from __future__ import annotations

from vibe_vault.fold.context import Context
from vibe_vault.fold.files import MADE_OPS, PATH_CHARS
from vibe_vault.project import folder_after
from vibe_vault.redact import Redacted
from vibe_vault.state import FileChange, Pending
from vibe_vault.text import rx

# What the note says of such a file (fold.files.change_words puts "(no net change)" after).
BY_COMMAND = "reverted by a command"
OUTSIDE = "reverted outside the session"
REVERTED = (BY_COMMAND, OUTSIDE)

STATUS, DIFF, RESTORE = "status", "diff", "restore"
MAX_LISTED = 2000  # paths read of one listing; a longer one is not read
_SEGMENTS = r"&&|\|\||[;\n]"
_REDIRECTION = r"^\d*(?:>>?|<|&>)"  # `2>&1`, `2>/dev/null`: not the command's words
_CD = r"^\s*(?:cd|pushd)\s+(\"[^\"]*\"|'[^']*'|[^\s;&|()]+)\s*$"
# git commands that move HEAD, the index or the work tree as a whole: a file
# absent from a later listing may be so for them, not reverted.
_MOVES = frozenset({"commit", "stash", "reset", "checkout", "switch", "merge", "rebase", "pull",
                    "cherry-pick", "revert", "am", "apply", "add", "rm", "mv", "restore",
                    "clean", "worktree", "submodule"})
# A listing's options that show every change as it is (none hides one: `-w`,
# `--diff-filter`, `--ignore-*` are not read).
_DIFF_OPTIONS = frozenset({"--stat", "--name-only", "--name-status", "--numstat", "-p", "-u",
                           "--patch", "--no-color", "--color=never", "--no-ext-diff",
                           "--compact-summary", "HEAD", "@", "--"})
_STATUS_OPTIONS = frozenset({"-s", "--short", "--porcelain", "--porcelain=v1", "-b",
                             "--branch", "--no-ahead-behind", "-uno", "-uall", "-unormal",
                             "--untracked-files=no", "--untracked-files=all",
                             "--untracked-files=normal", "--long"})
_STAT = r"^\s*(\S.*?)\s+\|\s+(?:\d+|Bin\b)"
_TOTAL = r"^\s*(\d+) files? changed"
_SHORT = r"^[ MTADRCU?!]{2} (.+)$"
_LONG = r"^\t(?:(?:new file|modified|deleted|renamed|copied|typechange|both \w+|\w+ by \w+):"\
        r"\s+)?(.+?)\s*$"
_NAME_STATUS = r"^[MTADRCU]\d*\t(.+)$"
_NUMSTAT = r"^(?:\d+|-)\t(?:\d+|-)\t(.+)$"
_PATCH = r"^diff --git a/(.+) b/(.+)$"
_RENAMED = r"^(.*)\{(.*) => (.*)\}(.*)$"


def note_command(ctx: Context, call: Pending, command: str) -> None:
    """Whether the command is a listing of what changed, a restore of
    files, or moves what git compares with (Pending.revert, revert_in,
    revert_paths; Pending.moves)."""
    here = ctx.entry_cwd
    # (a listing is read only as the line's one command: another's output
    # would be read as its)
    segments = [x for x in rx(_SEGMENTS).split(command) if x.strip()]
    alone = sum(1 for x in segments if not rx(_CD).match(x)) == 1
    for segment in segments:
        cd = rx(_CD).match(segment)
        if cd:
            here = folder_after(here, cd.group(1))
            continue
        if "git" not in segment:
            continue
        piped = "|" in segment
        import shlex  # (only for a git command: a Stop of prose must not load it)

        try:
            words = [w for w in shlex.split(segment.split("|", 1)[0])
                     if not rx(_REDIRECTION).match(w)]
        except ValueError:
            call.moves = call.moves or any(f" {m}" in segment for m in _MOVES)
            continue
        wrapped = words[:1] == ["rtk"]  # (a wrapper that shortens git's output: its own shape)
        if wrapped:
            words = words[1:]
        from vibe_vault.fold.git import subcommand  # (it imports this module)

        git = subcommand(words, here)
        if git is None:
            continue
        where, sub, args = git
        if sub in ("checkout", "restore"):
            paths = _restored(sub, args)
            if paths is None:
                call.moves = True
                continue
            if where:
                call.revert, call.revert_in = RESTORE, ctx.name(where, PATH_CHARS)
                call.revert_paths = [ctx.name(folder_after(where, p), PATH_CHARS)
                                     for p in paths][:50]
            continue
        if sub in _MOVES:
            call.moves = True
            continue
        if not where or not alone:
            continue
        if sub == "status" and all(a in _STATUS_OPTIONS for a in args) and not piped \
                and not wrapped:
            call.revert, call.revert_in = STATUS, ctx.name(where, PATH_CHARS)
            call.revert_whole = True
        elif sub == "diff" and all(a in _DIFF_OPTIONS for a in args):
            # (cut by a pipe or told by a wrapper, only a stat whose names are
            # as many as its total is read whole)
            call.revert, call.revert_in = DIFF, ctx.name(where, PATH_CHARS)
            call.revert_whole = not (piped or wrapped)


def _restored(sub: str, args: list[str]) -> list[str] | None:
    """The paths a `git checkout -- p…` or `git restore p…` puts back as
    HEAD (or the index) has them; [] when it restores no path (a branch
    switched: None, it moves HEAD)."""
    if sub == "checkout":
        if "--" not in args:
            return None  # (a branch, or a path; which is not told)
        before, paths = args[:args.index("--")], args[args.index("--") + 1:]
        if [a for a in before if a not in ("HEAD", "@", "-f", "--force", "-q", "--quiet")]:
            return None  # (another commit's version: not the file as it was)
        return paths
    opts = [a for a in args if a.startswith("-") and a != "--"]
    if any(o in ("--staged", "-S") and "--worktree" not in args and "-W" not in args
           for o in opts):
        return []  # (the index only: the work tree as it was)
    if any(o not in ("--worktree", "-W", "--source=HEAD", "-q", "--quiet") for o in opts):
        return None
    return [a for a in args if not a.startswith("-")]


def on_output(ctx: Context, call: Pending, status: str, out: str, timestamp: str) -> None:
    """After the command: what moved, and the files it shows reverted."""
    facts = ctx.facts
    if call.moves:
        facts.git_moved = timestamp
    if not call.revert or status != "ok":
        return
    here = str(call.revert_in)
    if call.revert == RESTORE:
        for path, change in list(facts.files.items()):
            if _eligible(ctx, change, timestamp) and any(
                    path == p or path.startswith(p.rstrip("/\\") + "/")
                    for p in call.revert_paths):
                _revert(ctx, path, change, BY_COMMAND)
        facts.git_moved = timestamp  # (the files it named are HEAD's from now)
        return
    listed = _listed(out, call.revert, call.revert_whole)
    if listed is None:
        return
    names = {ctx.name(folder_after(here, p), PATH_CHARS) for p in listed
             if not p.startswith("...")}
    tails = [p[3:] for p in listed if p.startswith("...")]
    if any(n not in facts.files for n in names) or any(
            not any(k.endswith(t) for k in facts.files) for t in tails):
        # A path the session did not change: the file another name of one it
        # did (an edit through a symlink: b74fb8cb's CLAUDE.md, which git
        # lists as AGENTS.md), or changed by a program or the user. Which
        # of the session's files are as they were is not told.
        return
    folders = {_folder(n) for n in names}
    for path, change in list(facts.files.items()):
        if path in names or any(path.endswith(t) for t in tails) or \
                _folder(path) not in folders or not path.startswith(here.rstrip("/\\") + "/"):
            continue
        if _eligible(ctx, change, timestamp) and "created" not in change.ops:
            _revert(ctx, path, change, OUTSIDE)


def _listed(out: str, kind: str, whole: bool) -> list[str] | None:
    """The paths a listing shows changed; None when it is not told whole."""
    lines = out.splitlines()
    if len(lines) > MAX_LISTED:
        return None
    stat = [m.group(1) for m in map(rx(_STAT).match, lines) if m]
    total = next((m for m in map(rx(_TOTAL).match, lines) if m), None)
    if kind == DIFF and (stat or total):
        if total is None or int(total.group(1)) != len(stat):
            return None
        return [p for name in stat for p in _renamed(name)]
    if not whole:
        return None
    out_paths: list[str] = []
    if kind == STATUS:
        plain = any(x.startswith(("On branch ", "HEAD detached ", "nothing to commit",
                                  "Changes ", "Untracked files:", "Not currently on"))
                    for x in lines)
        for x in lines:
            if not x.strip() or x.startswith("## "):
                continue
            m = rx(_LONG).match(x) if plain else rx(_SHORT).match(x)
            if m:
                out_paths.extend(p.strip('"') for p in m.group(1).split(" -> "))
            elif not plain:
                return None  # (not git's short form: something else printed)
        return out_paths
    for x in lines:
        m = rx(_PATCH).match(x) or rx(_NAME_STATUS).match(x) or rx(_NUMSTAT).match(x)
        if m:
            out_paths.extend(g for g in m.groups() if g)
    if not out_paths and out.strip() and not any(x.startswith("diff --git ") for x in lines):
        # --name-only: one path a line, nothing else
        out_paths = [x.strip() for x in lines if x.strip()]
        if any(" " in p and "\t" in p for p in out_paths):
            return None
    return out_paths


def _renamed(name: str) -> list[str]:
    """A stat's name, both sides of a rename (`a => b`, `src/{a => b}.py`)."""
    m = rx(_RENAMED).match(name)
    if m:
        return [m.group(1) + m.group(2) + m.group(4), m.group(1) + m.group(3) + m.group(4)]
    return name.split(" => ") if " => " in name else [name]


def _folder(path: str) -> str:
    return path[:max(path.rfind("/"), path.rfind("\\"), 0)]


def _eligible(ctx: Context, change: FileChange, timestamp: str) -> bool:
    """A file the session changed and did not make, every change of it known
    in time, all after the last move of HEAD or the index and before `timestamp`,
    with a net change to undo."""
    if not change.times or change.times_cut or change.gone or change.moved_from \
            or (change.ops and change.ops[0] in MADE_OPS) or change.ops[-1:] == [BY_COMMAND] \
            or change.ops[-1:] == [OUTSIDE]:
        return False
    if change.anchored and change.now == change.base and not (
            change.settled_added or change.settled_removed or change.loose_added
            or change.loose_removed):
        return False  # (as it was already: nothing to undo)
    moved = ctx.facts.git_moved
    return (not moved or moved < change.times[0]) and change.times[-1] < timestamp


def _revert(ctx: Context, path: Redacted, change: FileChange, how: str) -> None:
    """The file is as it was before the session's first change of it."""
    if change.anchored:
        change.now = change.base
    else:
        change.anchored, change.base, change.now = True, b"", b""
    change.known, change.guessed, change.new_guess = True, False, False
    change.settled_added = change.settled_removed = 0
    change.loose_added = change.loose_removed = 0
    change.uncounted = False
    if how not in change.ops:
        change.ops.append(how)
    ctx.files_touched.add(path)  # (its net lines: worked out at the read's end)


def on_read(ctx: Context, path: Redacted, lines: bytes) -> None:
    """A whole file read after the session's last change of it that is the
    file as the session first saw it: reverted (by the user, outside)."""
    change = ctx.facts.files.get(path)
    if change is None or not change.anchored or not change.base or lines != change.base \
            or change.now == change.base or not change.times:
        return
    if (change.ops and change.ops[0] in MADE_OPS) or change.gone or change.moved_from \
            or change.times_cut:
        return
    _revert(ctx, path, change, OUTSIDE)
