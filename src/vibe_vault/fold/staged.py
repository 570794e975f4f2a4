"""Which files a commit holds, by what the session shows of it: the lines its
own output names (`create mode 100644 a.txt`, `delete mode`, `rename`, a stat
line ` a.txt | 3 ++-`), and what was staged before it, folder by folder: the
paths `git add`/`git rm`/`git mv` named, replaced by the exact list a `git
status` prints under "Changes to be committed:". A commit after `git add -A`
or `git commit -a` holds "everything changed" (`Commit.everything`, with the
count git printed): `vibe_vault.document` links a file to it only when that
count equals the files the session changed there since the last commit.
`git reset <path>` and `git restore --staged <path>` unstage the paths named;
`git commit <path>…` holds those paths (git's count agreeing), the rest staged
left staged; what a command changes of the index in a way not told (`reset
--soft`, a glob) leaves nothing known staged.
"""

from __future__ import annotations

from vibe_vault.fold import files as changed_files
from vibe_vault.fold.context import Context
from vibe_vault.project import folder_after
from vibe_vault.redact import Redacted
from vibe_vault.state import Commit, Pending, Staged
from vibe_vault.text import rx

MAX_STAGED = 200  # paths kept staged in one folder
MAX_FILES = 100  # paths kept of one commit
PATH_CHARS = 1000

# A segment of a command line: `git [-C dir] [--opt] <sub> args`.
_SEGMENTS = r"&&|\|\||[;|\n]"
_CD = r"^\s*(?:cd|pushd)\s+(\"[^\"]*\"|'[^']*'|[^\s;&|()]+)\s*$"
_ADD_ALL = ("-A", "--all", ".", "-u", "--update", ":/", "*", "--", "-p", "--patch",
            "-i", "--interactive")
# What `git commit` prints of the files it holds.
_NAMED = (r"(?m)^ (?:create|delete) mode \d+ (.+)$|^ mode change \d+ => \d+ (.+)$"
          r"|^ (?:rename|copy) (.+) \(\d+%\)$|^ (\S.*?)\s+\|\s+(?:\d+|Bin)\b")
_RENAMED = r"^(.*)\{(.*) => (.*)\}(.*)$"
_COUNT = r"(?m)^ (\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?"
_TO_COMMIT = r"(?m)^Changes to be committed:\n(?:\s*\(.*\)\n)*((?:\t.*\n?)+)"
_STAGED_LINE = r"^\t(?:[a-z ]+:\s+)?(.+?)\s*$"
# A short status's line of a file staged: its first column (the index) says
# modified, added, deleted, renamed, copied or type changed.
_SHORT_STAGED = r"^[MADRCT][ MADRCTU] (\S.*?)\s*$"


def note_command(ctx: Context, call: Pending, command: str) -> None:
    """What a git command stages, as the command line says: the paths it
    names, each resolved against the folder git runs in."""
    here = ctx.entry_cwd
    # A line ended by `\` goes on on the next: one command (review 30 #6:
    # 76810eb8's `git add \` with a path a line, 22 of them).
    joined = command.replace("\\\r\n", " ").replace("\\\n", " ") \
        if "\\\n" in command or "\\\r\n" in command else command
    for segment in rx(_SEGMENTS).split(joined):
        cd = rx(_CD).match(segment)
        if cd:
            here = folder_after(here, cd.group(1))
            continue
        if "git" not in segment:
            continue
        import shlex  # (only for a git command that stages: kept off most hooks' path)

        loose = False
        try:
            words = shlex.split(segment)
        except ValueError:  # a quote the next line closes (`-m "$(cat <<'EOF'`)
            words, loose = segment.split(), True
        from vibe_vault.fold.git import subcommand  # (it imports this module)

        git = subcommand(words, here)
        if git is None or not git[0]:
            continue
        where, sub, args = git
        if loose and sub in ("commit", "reset", "restore"):
            # From the quote the segment leaves open on: a message's words
            # (`-m "Add rewrites` then its lines), no path.
            args = args[:next((k for k, a in enumerate(args) if "'" in a or '"' in a),
                              len(args))]
        folder = ctx.exact(where, PATH_CHARS)
        if sub in ("add", "rm", "mv"):
            call.stage_in = folder
            if sub == "add" and any(a in _ADD_ALL or "*" in a for a in args):
                call.stage_all = True
                call.tracked = any(a in ("-u", "--update") for a in args) and not any(
                    a in ("-A", "--all", ".", ":/", "*") for a in args)
            for a in args:
                if not a.startswith("-") and "*" not in a and a not in _ADD_ALL:
                    call.staged.append(ctx.exact(folder_after(where, a), PATH_CHARS))
        elif sub == "commit":
            call.stage_in = folder
            if any(a == "-a" or a == "--all" or (a.startswith("-") and not a.startswith("--")
                                                 and "a" in a[1:] and "m" in a[1:])
                   for a in args):
                call.stage_all = call.tracked = True
            paths = _commit_paths(args)
            if paths is None:
                call.unknown = True
            elif paths:
                named = [ctx.exact(folder_after(where, a), PATH_CHARS) for a in paths]
                if any(_pathspec(a) for a in paths) or call.stage_all:
                    call.unknown = True
                elif "-i" in args or "--include" in args:
                    call.staged.extend(named)  # staged, then the commit of all staged
                else:  # `--only`, git's default with paths: those alone
                    call.only = named
        elif sub == "status" and not [a for a in args if not a.startswith("-")]:
            if "-z" in args or any(a.startswith("--porcelain=v2") for a in args):
                continue  # (a format not read here: what is staged stays as known)
            call.stage_in, call.status = folder, True
            # `-s`, `--short`, `--porcelain`, `-sb`: one `XY path` line a file
            call.status_short = any(a in ("--short", "--porcelain", "--porcelain=v1") or (
                a.startswith("-") and not a.startswith("--") and "s" in a[1:]) for a in args)
        elif sub in ("reset", "restore"):
            _unstaging(ctx, call, folder, where, sub, args)


# `git reset`'s commit before its paths: HEAD, HEAD~1, @, a sha.
_REV = r"^(?:HEAD|@|ORIG_HEAD)(?:[~^]\d*)*$|^[0-9a-f]{7,40}$"
# `git commit`'s options that take a value (the next word, or the rest of a
# cluster: `-am msg`, `-mmsg`).
_COMMIT_VALUE_SHORT = "mFCct"
_COMMIT_VALUE_LONG = ("--message", "--file", "--author", "--date", "--reuse-message",
                      "--reedit-message", "--fixup", "--squash", "--template", "--cleanup",
                      "--trailer")


def _redirect(word: str) -> bool:
    return bool(rx(r"^\d*(?:<|>|&>)").match(word))


def _operands(args: list[str], value_short: str = "", value_long: tuple[str, ...] = ()
              ) -> list[str] | None:
    """The words of a git command that are not options (nor an option's value,
    nor a redirection); None when they cannot be told (an unclosed quote, a
    command substitution, a pathspec read from a file)."""
    out: list[str] = []
    at, dashes = 0, False
    while at < len(args):
        a = args[at]
        at += 1
        if _redirect(a):
            at += rx(r"^\d*(?:<<?-?|>>?|&>)$").match(a) is not None  # `> file`: its file too
            continue
        if dashes or not a.startswith("-") or a == "-":
            if any(c in a for c in "\"'`$()") or a.startswith("--pathspec"):
                return None
            out.append(a)
        elif a == "--":
            dashes = True
        elif a.startswith("--"):
            if a.startswith("--pathspec-from-file"):
                return None
            at += a in value_long  # `--message msg` (not `--message=msg`)
        else:
            for k, c in enumerate(a[1:], 1):
                if c in value_short:
                    at += k == len(a) - 1  # `-m msg`; `-mmsg` holds it
                    break
    return out


def _commit_paths(args: list[str]) -> list[str] | None:
    """The paths a `git commit` names (`git commit -m x a.py`, `-- a.py`,
    `-o`/`-i`); [] for none, None when not told."""
    return _operands(args, _COMMIT_VALUE_SHORT, _COMMIT_VALUE_LONG)


def _pathspec(word: str) -> bool:
    """A path that is more than one file: `.`, a glob, `:/`, a magic pathspec."""
    return word in (".", "./") or word.startswith(":") or any(c in word for c in "*?[")


def _unstaging(ctx: Context, call: Pending, folder: Redacted, where: str, sub: str,
               args: list[str]) -> None:
    """What a `git reset` or `git restore --staged` unstages: every path
    (`git reset`, `reset --hard`, `reset HEAD`, `restore --staged .`), the
    paths it names, or what is not told (`reset main`, a glob, `--soft`)."""
    if sub == "restore" and not any(
            a in ("--staged", "-S") or (a.startswith("-") and not a.startswith("--")
                                        and "S" in a) for a in args):
        return  # the work tree's files only: the index is left as it was
    words = _operands(args, "s" if sub == "restore" else "", ("--source",))
    call.stage_in = folder
    if words is None or "--soft" in args or any(a.startswith("--source") or (
            sub == "restore" and a.startswith("-s")) for a in args):
        call.unknown = True
        return
    if sub == "reset":
        rev = words[:1] if words and rx(_REV).match(words[0]) and "--" not in args[
            :args.index(words[0])] else []
        words = words[len(rev):]
        if rev and words and rev[0] not in ("HEAD", "@"):
            # (another commit's version of the paths: staged or not is not told)
            call.unknown = True
            return
        if not words:
            call.unstage = True  # the index is the (new) HEAD's: nothing staged
            return
        if "--" not in args and any("/" not in w and "." not in w for w in words):
            call.unknown = True  # `git reset main`: a branch, or a file named so
            return
    if not words or any(_pathspec(w) for w in words):
        if words and all(w in (".", "./", ":/") for w in words):
            call.unstage = True
        else:
            call.unknown = True
        return
    call.unstaged = [ctx.exact(folder_after(where, w), PATH_CHARS) for w in words]


def on_added(ctx: Context, call: Pending, status: str, timestamp: str) -> None:
    """What the command staged, once it ran (before a commit of the same line)."""
    folder = call.stage_in
    if not folder or status != "ok" or not (call.unstage or call.staged or call.stage_all
                                            or call.unstaged or call.unknown):
        return
    if call.unknown and not call.commits:
        # What is staged is not told any more: nothing is known staged (a
        # commit after holds what its own output names).
        ctx.facts.staged[folder] = Staged()
        return
    staged = ctx.facts.staged.setdefault(folder, Staged())
    if call.unstaged:
        _unstage(staged, call.unstaged)
    if call.unstage:
        staged.paths, staged.exact, staged.everything, staged.tracked = [], True, False, False
        staged.listed, staged.named_at, staged.blurred = 0, {}, False
    if call.staged:
        # (adding a path with no change stages nothing: not exact any more)
        staged.paths.extend(p for p in call.staged if p not in staged.paths)
        del staged.paths[MAX_STAGED:]
        staged.named_at.update((p, timestamp) for p in call.staged if p in staged.paths)
        staged.exact = False
    if call.stage_all and not call.commits:
        staged.tracked = call.tracked  # (after `add -A`, `add -u` leaves later files out)
        staged.everything, staged.everything_at = True, timestamp
        staged.blurred = False  # (what was unstaged is staged again)


def _unstage(staged: Staged, paths: list[Redacted]) -> None:
    """`paths` are no longer staged. Whether they were among "every change"
    (`git add -A`) is not told: git's count of a later commit is no longer of
    every change, so that is forgotten."""
    gone = set(paths)
    listed = [p for p in staged.paths[:staged.listed] if p not in gone]
    staged.paths = listed + [p for p in staged.paths[staged.listed:] if p not in gone]
    staged.listed = len(listed)
    for p in gone:
        staged.named_at.pop(p, None)
    if staged.everything:
        staged.everything = staged.tracked = False
        staged.blurred = True


def on_status(ctx: Context, call: Pending, status: str, out: str) -> None:
    """What a `git status` (after any commit of the same line) says is staged."""
    folder = call.stage_in
    if call.status and folder and status == "ok":
        staged = ctx.facts.staged.setdefault(folder, Staged())
        if call.status_short:
            # (review 32 #5: `git add … && git status --short` read as nothing
            # staged, so the commit after it held no file)
            listed = list(map(rx(_SHORT_STAGED).match, out.splitlines()))
        else:
            m = rx(_TO_COMMIT).search(out)
            listed = [rx(_STAGED_LINE).match(ln) for ln in m.group(1).splitlines()] if m else []
        here = str(folder)
        staged.paths = [ctx.exact(folder_after(here, x.group(1).split(" -> ")[-1].strip('"')),
                                  PATH_CHARS) for x in listed if x][:MAX_STAGED]
        staged.exact, staged.everything, staged.tracked = True, False, False
        staged.listed, staged.named_at, staged.blurred = len(staged.paths), {}, False


def held(ctx: Context, call: Pending, commit: Commit, out: str) -> None:
    """What the commit `commit` holds, by its output and what was staged before it
    in its folder (cleared: the commit took it)."""
    folder = call.stage_in
    here = str(folder)
    named: list[Redacted] = []
    for m in rx(_NAMED).finditer(out) if here else ():
        path = next(g for g in m.groups() if g is not None).strip()
        r = rx(_RENAMED).match(path)
        if r:  # `dir/{a => b}` : the new name
            path = r.group(1) + r.group(3) + r.group(4)
        elif " => " in path:
            path = path.split(" => ")[-1]
        named.append(ctx.exact(folder_after(here, path), PATH_CHARS))
        if m.group(0).startswith(" create mode"):
            changed_files.created_by_commit(ctx, ctx.name(folder_after(here, path),
                                                          changed_files.PATH_CHARS))
    count = rx(_COUNT).search(out)
    commit.count = int(count.group(1)) if count else 0
    # git's own count of the lines (of all its files; one not said is 0)
    commit.inserted = int(count.group(2) or 0) if count else 0
    commit.deleted = int(count.group(3) or 0) if count else 0
    files = list(dict.fromkeys(named))
    if call.only or call.unknown:
        # `git commit <path>…`: those paths, when git counts as many files
        # (each had a change); what else was staged stays staged. A commit
        # whose paths are not told holds what its output names.
        if call.unknown and folder:
            ctx.facts.staged[folder] = Staged()
        elif commit.count == len(set(call.only)):
            files += [p for p in call.only if p not in files]
        if call.only and folder in ctx.facts.staged:
            _unstage(ctx.facts.staged[folder], call.only)
        commit.files = files[:MAX_FILES]
        return
    staged = ctx.facts.staged.pop(folder, None) if folder else None
    commit.everything = call.stage_all or (staged is not None and staged.everything)
    if staged is not None:
        # What the last `git status` listed is held: a `git add` since (of a
        # path, or of every change) stages more but unstages none of it;
        # unless git counts fewer files (something the session does not show
        # unstaged or committed some of them: which is not told).
        listed = staged.paths[:staged.listed]
        if not commit.count or len(listed) <= commit.count:
            files += [p for p in listed if p not in files]
        # The paths `git add` named since, when git's count of files is theirs
        # with those listed: not after everything was staged too (then the
        # count is of all the changes, and a path named may have had none to
        # stage).
        if not staged.exact and commit.count and len(staged.paths) == commit.count \
                and not commit.everything and not staged.blurred:
            files += [p for p in staged.paths if p not in files]
        commit.added = [p for p in staged.paths[staged.listed:] if p not in files][:MAX_FILES]
        commit.added_at = [staged.named_at.get(p, commit.ts) for p in commit.added]
        if staged.everything and not call.stage_all:
            commit.staged_at = staged.everything_at
    # (a `git add -A` before a `commit -a` staged the files made by then: those
    # made after it are left out; which is which is not kept, so any made is)
    commit.tracked = (call.stage_all and call.tracked) or (
        staged is not None and staged.everything and staged.tracked)
    commit.files = files[:MAX_FILES]
