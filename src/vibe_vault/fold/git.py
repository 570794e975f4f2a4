"""Commits, pushes and pull requests, from git's commands and output and from
Claude Code's `pr-link` rows. Feeds the note's Commits and PRs section."""

from __future__ import annotations

import re

from vibe_vault.entries import Entry
from vibe_vault.fold import git_counts, reverts, staged
from vibe_vault.fold.context import Context
from vibe_vault.fold.subjects import merge_of, same_subject
from vibe_vault.project import TEMP_FOLDER, folder_after, other_repository
from vibe_vault.redact import Redacted
from vibe_vault.state import (
    AMENDED,
    BY_SUBAGENT,
    DETACHED,
    PUSHED,
    REBASED,
    Commit,
    Forced,
    Fork,
    Pending,
    PullRequest,
    Push,
    Rewrite,
)
from vibe_vault.text import rx

MAX_COMMITS = 100
PRINTED_KEPT = 100
MAX_REWRITES = 40  # rebases and resets
MAX_PUSHED = 50  # branches (of any repository) whose latest push is kept
SUBJECT_CHARS = 120
BRANCH_CHARS = 60

# `[main 1a2b3c4] subject`; `[detached HEAD 1a2b3c4] subject` on no branch.
_COMMIT_LINE = (r"(?m)^\[(detached HEAD|[^\]\s]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\]"
                r" (.+)$")
_NO_BRANCH = "detached HEAD"
_DELETED_BRANCH = r"(?m)^Deleted branch (\S+) \(was [0-9a-f]{7,40}\)\."
_SQUASHED = r"^(.+) \(#(\d+)\)$"
_PR_URL = r"https://github\.com/([\w.\-]+/[\w.\-]+)/pull/(\d+)"
# The commands that make or merge a PR: only their output names a PR of the
# session. A PR URL in `gh pr view`/`gh pr list` output, help text or a file
# read was looked up, not made here (`owner/repo#123` in a README never is one).
_PR_CREATE = r"(?:^|[\s;&|(])gh\s+pr\s+create\b"
_PR_MERGE = r"(?:^|[\s;&|(])gh\s+pr\s+merge\b"
_PR_CLOSE = r"(?:^|[\s;&|(])gh\s+pr\s+(?:close|reopen)\b"
# What `gh pr close` and `gh pr reopen` print: "✓ Closed pull request
# owner/repo#12 (…)" ("#12" alone from older gh), "✓ Reopened pull request …".
_CLOSED_PR = r"\b(Closed|Reopened) pull request (?:([\w.\-]+/[\w.\-]+))?#(\d+)"
# What `gh pr merge` prints: "✓ Merged pull request #12 (…)", "✓ Squashed and
# merged pull request owner/repo#12 (…)".
_MERGED_PR = r"(?i)\bmerged pull request (?:([\w.\-]+/[\w.\-]+))?#(\d+)"
# `git push` in any form: `git -C ../lib push` (review 26: a sibling's push was
# missed, and its commits read "not pushed").
_PUSH_CMD = r"(?:^|[\s;&|(])git(?:\s+-[Cc]\s+\S+|\s+--[\w-]+(?:=\S+)?)*\s+push\b"
# A ref `git push` reports (on stderr, which Claude Code records with the
# output): its flag (" " fast-forward, "+" forced, "*" new, "=" up to date,
# "!" rejected), the commits (old..new: new is the branch's tip) or a word in
# brackets, then `src -> dst`.
_PUSHED_REF = (r"(?m)^ ([ +*=!]) (?:[0-9a-f]{4,40}\.\.\.?([0-9a-f]{4,40})|\[[a-z ]{3,20}\])"
               r"[ \t]+(\S+) -> \S+")
_ANY_GIT = r"(?:^|[\s;&|(])git(?:\s|$)"
GIT_PUSH = "git push"  # Pending.git of a line that pushes
# The lines git prints when a push failed, any of which is left when a pipe
# cuts the output (`git push 2>&1 | tail -3` hides git's status too: review
# 32 #20): a ref it did not update (` ! [rejected]`, ` ! [remote rejected]`,
# ` ! [remote failure]`), "error: failed to push some refs", a refspec that
# names nothing, a server's refusal (`remote: error: GH006: Protected branch
# update failed`, GitLab's "not allowed to push"), a remote not reached or
# refused (no upstream, no access), and each line of git's advice after a
# rejection (builtin/push.c, old and new wordings).
_REJECTION_ADVICE = (
    "Updates were rejected because", "its remote counterpart. If you want to integrate",
    "its remote counterpart. Integrate the remote changes", "before pushing again",
    "See the 'Note about fast-forwards'", "counterpart. If you want to integrate the remote",
    "counterpart. Check out this branch and integrate", "have locally. This is usually caused",
    "not have locally. This is usually caused", "the same ref. If you want to integrate",
    "to the same ref. You may want to first integrate",
    "You cannot update a remote ref that points at a non-commit object",
    "or update a remote ref to make it point at a non-commit object",
    "without using the '--force' option", "been updated since the last checkout.",
    "remote changes, use 'git pull' before", "Disable this message with \"git config "
    "set advice.push", "Disable this message with \"git config advice.push")
_PUSH_FAILED = (
    r"(?m)^(?: ! \[|error: failed to push |error: src refspec |remote: error: "
    r"|remote: GitLab: You are not allowed|(?:remote: |ERROR: )Permission to \S+ denied"
    r"|fatal: (?:The current branch \S+ has no upstream|unable to access|Could not read from"
    r" remote|Authentication failed|repository '[^'\n]*' not found|'[^'\n]*' does not appear)"
    r"|Please make sure you have the correct access rights|and the repository exists\."
    r"|To push the current branch and set the remote as upstream|[ \t]+git push --set-upstream "
    r"|To have this happen automatically for branches without a tracking"
    r"|upstream, see 'push\.autoSetupRemote'"
    r"|hint:[^\n]*?(?:" + "|".join(re.escape(a) for a in _REJECTION_ADVICE) + r"))")


def push_failed(out: str) -> bool:
    """Whether a push's output (or what a pipe left of it) says git did not
    push: a line only a failed push prints (_PUSH_FAILED)."""
    return bool(rx(_PUSH_FAILED).search(out))

# `git commit` in any form: `git -C dir commit`, `git -c k=v commit --amend`, after `&&`.
_COMMIT_CMD = r"(?:^|[\s;&|(])git(?:\s+-[Cc]\s+\S+|\s+--[\w-]+(?:=\S+)?)*\s+commit\b"
_AMEND = r"\scommit\b[^;&|\n]*\s--amend\b"
# `git rebase …` (`--continue` too), `git pull --rebase` / `-r`: they rewrite commits.
_REBASE_CMD = (r"(?:^|[\s;&|(])git(?:\s+-[Cc]\s+\S+|\s+--[\w-]+(?:=\S+)?)*\s+"
               r"(?:rebase\b|pull\b[^;&|\n]*\s(?:--rebase\b(?!=false)|-r\b))")
# What git prints when a rebase is done: "Successfully rebased and updated refs/heads/x."
_REBASED = r"(?m)Successfully rebased and updated refs/heads/(\S+?)\.?\s*$"
_MERGE_CMD = r"(?:^|[\s;&|(])git(?:\s+-[Cc]\s+\S+|\s+--[\w-]+(?:=\S+)?)*\s+merge(?![\w-])"
# What git prints when a merge made a commit (not a fast-forward): "Merge made
# by the 'ort' strategy." (recursive, octopus, ...).
_MERGE_MADE = "Merge made by "
# The branches a `git merge` names, for the subject git gives a merge without -m.
_MERGED = r"\smerge((?:\s+(?!-)[^\s;&|]+)+)"
# `git merge --squash <branch>` (one branch; options around it): the branch.
_SQUASH_MERGE = r"\smerge(?:\s+-\S+)*\s+--squash(?:\s+-\S+)*\s+([\w./-]+)\s*(?:$|[;&|\n])"
# What git prints when it staged a squash: "Squash commit -- not updating HEAD".
_SQUASHED_MERGE = "Squash commit -- not updating HEAD"
# (`-m` alone or last of short flags run together: `-am`, `-aqm`, review 30 #1)
_COMMIT_MESSAGE = (r"""\s(?:-[aqvsnuep]*m|--message(?:=|\s))\s*"""
                   r"""(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))""")
# What the shell replaces in a message not in single quotes: `$NAME`, `${…}`,
# `$(…)`, backquotes.
_EXPANDS = r"\$[A-Za-z_{(]|`"
# `-F path` (`-F -`: stdin), `--file=path`: the message is read from there.
_FROM_FILE = r"""\s(?:-[aqvsnuep]*F\s*|--file(?:=|\s+))("[^"\n]*"|'[^'\n]*'|[^\s;&|()]+)"""
# What writes a here-document to a file: `> path`, `>> path`, `tee [-a] path`.
_WRITES_TO = (r""">>?[ \t]*("[^"\n]*"|'[^'\n]*'|[^\s;&|()<>]+)"""
              r"""|\btee(?:[ \t]+-a)?[ \t]+([^\s;&|()<>]+)""")
# `-C <commit>` / `-c <commit>` (and the long forms): the message of another commit.
_REUSED = r"""\s(?:-[aqvsnuep]*[Cc]\s*|--re(?:use|edit)-message(?:=|\s+))([0-9a-f]{7,40})\b"""
# A line `git log --oneline` (or any later output) shows a commit on: sha, subject.
_SHA_HINT = r"\b[0-9a-f]{7,40}\b"
# What `git log --oneline`, `git log`/`git show` and `git rev-parse` print.
# `--graph` puts the graph before the sha: `*   1b6c52f`, `| * 5ea305f`, `*---. | 1b6c52f`.
_ONELINE = r"(?m)^(?:[|/\\_ ]*\*[-.|/\\_ *]*)?\s*([0-9a-f]{7,40}) (?:\([^)]*\) )?(.+)$"
_LONG_LOG = r"(?m)^commit ([0-9a-f]{40})\b.*\n(?:(?!\n).*\n)*?\n    (.+)$"
_REV_PARSE = r"^\s*([0-9a-f]{40})\s*$"
# What `git checkout`, `git switch --detach` and `git reset --hard` print of
# the commit they moved to: "HEAD is now at cbd8986 <subject>".
_HEAD_AT = r"(?m)^HEAD is now at ([0-9a-f]{7,40}) (.+)$"
MAX_BRANCHES_MADE = 20
MAX_PUSHES_A_LINE = 20  # pushes of one command line whose branches are read
# `git log` of the branch checked out (`--oneline -8`), not of others (`--all`,
# a range, a branch named): its lines above a commit the session made are
# commits made after it, there.
_LOG_OF_HEAD = (r"(?:^|[\s;&|(])git(?:\s+-[Cc]\s+\S+)*\s+log"
                r"(?:[ \t]+(?:--oneline|--no-decorate|--decorate|-n[ \t]*\d+|-\d+"
                r"|--max-count[= ]\d+|--format=\S+|--pretty=\S+))*[ \t]*(?:$|[;&|\n])")
# A command that creates a branch: `git checkout -b|-B x`, `git switch -c|-C|--create x`,
# `git worktree add -b x dir` (options may stand before the flag: `git checkout
# --no-track -b x`), or `git branch x` with no option that lists, deletes,
# renames or copies (`git branch -d x`, `git branch --list`, `git branch -m a b`
# make none).
_BRANCH_NAME = r"([^\s;&|()'\"`<>\-][^\s;&|()'\"`<>]*)"
_NEW_BRANCH = (r"(?:^|[\s;&|(])git(?:\s+-[Cc]\s+\S+)*\s+(?:"
               r"(?:checkout|switch|worktree\s+add)(?:\s+--?[\w-]+(?<!\s-[bBcC])(?<!--create))*"
               r"\s+(?:-[bBcC]|--create)(?:\s+|=)" + _BRANCH_NAME +
               r"|branch(?:\s+(?:-f|--force|-t|--track|--no-track|-q|--quiet))*\s+"
               + _BRANCH_NAME + ")")
# What follows a new branch's name: the commit it starts at, when named
# (`git checkout -b x origin/main`), else HEAD.
_START = r"[ \t]+([^\s;&|()'\"`<>\-][^\s;&|()'\"`<>]*)"
MAX_FORKS = MAX_BRANCHES_MADE
# What `git checkout`/`git switch` print of the branch they moved to.
_SWITCHED = r"(?m)^(?:Switched to (a new )?branch '([^'\n]+)'|Already on '([^'\n]+)')$"
MAX_FORK_CHAIN = 8  # branches made from branches made from …: how far back a push looks


# `git -c ` (after git's options) just before a quote: the quote holds a setting.
_GIT_SETTING = r"git(?:[ \t]+-[Cc][ \t]+[^\s;&|]+)*[ \t]+-c[ \t]+"


def unquoted(command: str) -> str:
    """`command` with what its quotes hold blanked (as long as it was): a
    `git commit` in a grep pattern or an echo is no commit (review 29 #10:
    `grep -rln "MakeCommits\\|git commit"` made a phantom one). What
    `bash -c`, `sh -c` or `eval` runs is a command all the same."""
    if "'" not in command and '"' not in command:
        return command
    out = list(command)
    if "<<" in command:
        # Here-documents first: a message's quote (`don't`) opens none.
        from vibe_vault.fold.commands import heredoc_bodies  # (it imports this module)

        for start, end in heredoc_bodies(command):
            for k in range(start, end):
                if out[k] != "\n":
                    out[k] = " "
        command = "".join(out)
    i, n = 0, len(command)
    while i < n:
        q = command[i]
        if q == "\\":
            i += 2
            continue
        if q not in "'\"":
            i += 1
            continue
        end = i + 1
        while end < n and command[end] != q:
            end += 2 if q == '"' and command[end] == "\\" else 1
        run = rx(r"(?:^|[\s;&|(])(?:-c|eval)\s+$").search(command, max(0, i - 12), i)
        if run is not None:
            # git's own -c, a setting (`git -c "user.name=A B" commit`), not a
            # shell's: read from the last `git` before it (one match a quote)
            g = command.rfind("git", max(0, i - 300), i)
            if g >= 0 and (g == 0 or command[g - 1] in " \t\n;&|(") \
                    and rx(_GIT_SETTING).fullmatch(command, g, i):
                run = None
        if run is None and not command.startswith("$(", i + 1):
            # (blanked to a word, not spaces: `git -C "/work/lib" commit` is
            # still a commit in a folder the quotes name)
            for k in range(i + 1, min(end, n)):
                if out[k] != "\n":
                    out[k] = "x"
        i = end + 1
    return "".join(out)


def subcommand(words: list[str], here: str) -> tuple[str, str, list[str]] | None:
    """`git [-C dir] [--option]... <sub> args...` as the shell splits it: the
    folder git runs in (`here`, moved by each `-C`), the subcommand and its
    words; None when the words are not git's or name no subcommand. (For
    fold.reverts and fold.staged, which split a segment into words each its
    own way.)"""
    if not words or words[0] != "git":
        return None
    at, where = 1, here
    while at < len(words) and words[at].startswith("-"):
        if words[at] == "-C" and at + 1 < len(words):
            where = folder_after(where, words[at + 1])
            at += 1
        at += 1
    if at >= len(words):
        return None
    return where, words[at], words[at + 1:]


def note_command(ctx: Context, call: Pending, command: str) -> None:
    """What a command's output may tell: only git commands print commits or
    pushes, and only `gh pr create`/`gh pr merge` a PR of the session."""
    if "gh" in command and "pr" in command:
        if rx(_PR_CREATE).search(command):
            call.pr = "create"
        elif rx(_PR_MERGE).search(command):
            call.pr = "merge"
            m = rx(_PR_URL).search(command)
            if m:  # `gh pr merge https://github.com/o/r/pull/12`
                call.pr_url = ctx.name(m.group(0), 300)
        elif rx(_PR_CLOSE).search(command):
            call.pr = "close"
    if "git" not in command:
        return
    git_counts.note_command(call, command)
    reverts.note_command(ctx, call, command)
    said = unquoted(command)  # (same length: its matches are the command's)
    pushes = list(rx(_PUSH_CMD).finditer(said)) if "push" in command else []  # `in`: 20x cheaper
    pushed = pushes[0] if pushes else None
    call.git = GIT_PUSH if pushed else "git log" if "log" in command and rx(
        _LOG_OF_HEAD).search(said) else "git"
    made = rx(_COMMIT_CMD).search(said) if "commit" in command else None
    if "cd" in command or "-C" in command:
        from vibe_vault.fold.commands import without_messages  # (it imports this module)

        # (a commit message's words are no `cd`: `-m "aa pushd aa"`)
        # (a commit's branch is the session's unless git moved before it:
        # `git commit -q … && git -C $S/wt checkout x` commits here)
        bare = without_messages(command[:made.end()] if made else command)
        call.elsewhere = bool(rx(r"(?:^|[\s;&|(])(?:git\s+-C\s|cd\s|pushd\s)").search(
            bare)) and not _stays(ctx, bare)
    if "checkout" in command or "switch" in command or "branch" in command or " -b" in command:
        from vibe_vault.fold.commands import without_messages  # (it imports this module)

        # (a commit message's words make no branch: `-m "git branch x"`)
        bare = without_messages(command)
        made_here = list(rx(_NEW_BRANCH).finditer(bare))[:MAX_BRANCHES_MADE]
        call.new_branches = [ctx.line(next(g for g in m.groups() if g), BRANCH_CHARS)
                             for m in made_here]
        starts = [rx(_START).match(bare, m.end()) for m in made_here]
        call.branch_starts = [ctx.line(s.group(1), BRANCH_CHARS) if s else Redacted("")
                              for s in starts]
        call.deletes = [ctx.line(b, BRANCH_CHARS) for b in _deleted_by(unquoted(bare))]
    # (any git command's: what a `git log` in another repository prints
    # names that repository's commits, not the session's)
    git = made or pushed or rx(_ANY_GIT).search(said)
    # (`git push && git commit`: no push after the commit sends it)
    call.push_first = bool(made and pushes and pushes[-1].start() < made.start())
    if git is not None:
        call.folder = _other_folder(ctx, command, git)
    if pushes:
        call.push_refs = [ctx.line(r, BRANCH_CHARS) for r in _push_refs(ctx, call, command, said,
                                                                         pushes)]
    if ("rebase" in command or "pull" in command) and rx(_REBASE_CMD).search(said):
        call.rebase = True
        call.autosquash = "--autosquash" in command and "--no-autosquash" not in command
    if made or any(w in command for w in (" add", " rm", " mv", " status", " reset",
                                                 " restore")):
        staged.note_command(ctx, call, command)
    if ("init" in command or "clone" in command) and rx(_MAKES_REPO).search(said):
        _scratch_made(ctx, command, said)
    if "reset" in command and rx(_RESET_CMD).search(said):
        _resets(ctx, call, command, said, made.start() if made else len(command))
    if made:
        call.commits = True
        call.amend = "--amend" in command and bool(rx(_AMEND).search(command))
        ends = [c.end() for c in rx(_COMMIT_CMD).finditer(said)][:MAX_COMMITS_A_LINE]
        # (each commit's message is in its own words)
        subjects = [ctx.line(commit_subject(command, e), SUBJECT_CHARS)
                    or _reused_subject(ctx, reused_message(command, e)) for e in ends]
        if subjects[0]:
            call.commit_subject = subjects[0]
        call.more_subjects = subjects[1:]
        _in_scratch(ctx, call, scratch_folder(ctx, command, made.start()))
    elif "merge" in command and (merge := rx(_MERGE_CMD).search(said)) is not None:
        call.merge = True
        squash = rx(_SQUASH_MERGE).search(command) if "--squash" in command else None
        if squash:
            call.squash = ctx.line(squash.group(1), BRANCH_CHARS)
        # (git's own subject for a merge with none given is not guessed:
        # "Merge branch 'x'", "Merge remote-tracking branch 'origin/x' into
        # y", "… of <url>" depend on what x is; review 30 #2)
        subject = commit_subject(command, merge.end())
        if subject:
            call.commit_subject = ctx.line(subject, SUBJECT_CHARS)
        merging = _merge_branch(command)
        if merging:
            call.merging = ctx.line(merging, BRANCH_CHARS)
        _in_scratch(ctx, call, scratch_folder(ctx, command, merge.start()))
    elif pushed is not None:  # (a push from a throwaway repository makes its commits work)
        _in_scratch(ctx, call, scratch_folder(ctx, command, pushed.start()))


# `cd dir`, `pushd dir`, `git -C dir`: the folders a line's git may run in.
_MOVES = (r"""(?:^|[\s;&|(])(?:(?:cd|pushd)[ \t]+("[^"\n]*"|'[^'\n]*'|[^\s;&|()]+)"""
          r"""|git(?:[ \t]+-c[ \t]+\S+)*[ \t]+-C[ \t]+("[^"\n]*"|'[^'\n]*'|[^\s;&|()]+))""")
_CD_HOME = r"(?:^|[\s;&|(])(?:cd|pushd)[ \t]*(?:$|[;&|)\n])"


def _stays(ctx: Context, bare: str) -> bool:
    """Whether every `cd`, `pushd` and `git -C` of a line (its messages
    left out) leads to the folder it ran in or one inside it that is no
    worktree: git there is on the branch Claude Code stamps the line with
    (review 31 F14: `cd ~/Projects/app && git commit -q` in a session of
    ~/Projects/app told no branch, so any push sent its commits)."""
    here = ctx.entry_cwd.rstrip("/\\")
    if not here or rx(_CD_HOME).search(bare):
        return False
    # (the session's own folder too: Claude Code may record a line's cwd in
    # a folder of it a `cd` moved to, and a `cd` back is no move away)
    roots = {here, str(ctx.facts.cwd).rstrip("/\\")} - {""}
    for m in rx(_MOVES).finditer(bare):
        to = folder_after(here, m.group(1) or m.group(2)).rstrip("/\\")
        if m.group(1):
            here = to
        if not any(to.startswith(own) and (to == own or to[len(own)] in "/\\")
                   and "worktrees" not in to[len(own):] for own in roots):
            return False
    return True


# `git push`'s options that take the next word.
_PUSH_VALUED = {"-o", "--push-option", "--repo", "--receive-pack", "--exec"}
# Its options that push every branch (a ref "": any), or none.
_PUSH_EVERY = {"--all", "--mirror", "--branches"}
_PUSH_NONE = {"-d", "--delete", "-n", "--dry-run"}


def _push_refs(ctx: Context, call: Pending, command: str, said: str,
               pushes: list[re.Match[str]]) -> list[str]:
    """The branches a line's pushes send, by the command's words, for when
    git's output names none (`-q`, "Everything up-to-date"): each refspec's
    source (`+a:b` is `a`), the branch checked out for none or `HEAD` ("" when
    not known: any); "" for `--all`; none for a deletion or a dry run."""
    current = "" if call.folder or call.elsewhere or rx(
        r"\b(?:checkout|switch)\b").search(said, 0, pushes[0].start()) else str(
            ctx.facts.branch or ctx.branch)
    if current == DETACHED:
        current = ""
    refs: list[str] = []
    # (a line of thousands of `git push` words is no script anyone runs, and
    # each push's words run to the line's next separator: past the first few
    # pushes, reading them all grew as the square, the hook's deadline away)
    for m in pushes[:MAX_PUSHES_A_LINE]:
        end = rx(r"[;&|\n)]").search(said, m.end())
        words = command[m.end():end.start() if end else len(command)].split()
        plain: list[str] = []
        skip = every = none = tags = False
        for w in words:
            if skip:
                skip = False
            elif w in _PUSH_VALUED:
                skip = True
            elif w.startswith((">", "<", "2>", "1>")):
                break
            elif w.startswith("-"):
                every = every or w in _PUSH_EVERY
                none = none or w in _PUSH_NONE
                tags = tags or w == "--tags"
            else:
                plain.append(w)
        if none or (tags and len(plain) < 2):  # (`--tags` alone sends tags, no branch)
            continue
        if every:
            refs.append("")
        elif len(plain) < 2:
            refs.append(current)
        else:
            for spec in plain[1:]:
                source = spec.lstrip("+").split(":", 1)[0].removeprefix("refs/heads/")
                if source in ("HEAD", "@"):
                    refs.append(current)
                elif source:  # (`:b` deletes b)
                    refs.append(source)
    return refs


# `git reset` (git's options before it): it may move a branch back.
_RESET_CMD = r"(?:^|[\s;&|(])git(?:\s+-[Cc]\s+\S+|\s+--[\w-]+(?:=\S+)?)*\s+reset\b"
_RESET_MODES = ("--soft", "--hard", "--mixed", "--keep", "--merge")
# What a reset with no mode names that is a commit, not a path: HEAD and
# its ancestors (`HEAD~2`, `@^`), a sha, a remote's branch (`origin/main`).
_COMMITISH = r"(?:HEAD|@)(?:[~^]\d*)*|[0-9a-f]{7,40}|(?:origin|upstream)/[\w./-]+"
MAX_RESETS_A_LINE = 8


def _resets(ctx: Context, call: Pending, command: str, said: str, first_commit: int) -> None:
    """The commits the line's `git reset`s move their branch to (review 31
    F4: a branch re-cut by `git reset -q --soft main`, then committed again):
    a `--soft`/`--hard`/`--mixed`/`--keep`/`--merge` reset's commit, or, with
    no mode, a word that names a commit, not a path (`git reset HEAD~1`, not
    `git reset src/a.py`); none for HEAD itself (it moves nothing)."""
    blank = _without_bodies(command)
    for m in list(rx(_RESET_CMD).finditer(said))[:MAX_RESETS_A_LINE]:
        words = command[m.end():_segment_end(command, blank, m.end())].split()
        mode = any(w in _RESET_MODES for w in words)
        plain: list[str] = []
        for w in words:
            if w == "--":
                break
            if not w.startswith("-") and not w.startswith(("2>", ">", "<")):
                plain.append(w.strip("'\""))
        if not plain or (not mode and (len(plain) > 1 or not (
                rx(_COMMITISH).fullmatch(plain[0]) or plain[0] in ("main", "master")))):
            continue
        to = plain[0].removeprefix("refs/heads/").removeprefix("refs/remotes/")
        if to in ("HEAD", "@"):
            continue
        call.resets.append(ctx.line(to, BRANCH_CHARS))
        call.resets_after += m.start() > first_commit


_OWN = Redacted("")  # a commit of the session's own repository
# `cd dir`, `pushd dir` (at a command's start), `git -C dir`: where git runs.
_CD_TO = r"(?:^|[;&|(]\s*)(?:cd|pushd)\s+(\"[^\"]*\"|'[^']*'|[^\s;&|()]+)"
_GIT_DIR = r"\bgit\s+(?:-c\s+\S+\s+)*-C\s+(\"[^\"]*\"|'[^']*'|[^\s;&|()]+)"


def _other_folder(ctx: Context, command: str, git: re.Match[str]) -> Redacted:
    """The folder the git command `git` matched ran in, when it is in another
    repository than the session's (a sibling repository the session `cd`s
    into, `git -C ../other`): where it ran as Claude Code recorded (the line's
    cwd), then each `cd` before it and its `-C`; "" when it is the session's
    own or cannot be told."""
    here = ctx.entry_cwd
    for m in rx(_CD_TO).finditer(command, 0, git.start() + 1):
        here = folder_after(here, m.group(1))
    given = rx(_GIT_DIR).match(command, git.start() + (command[git.start()] != "g"))
    if given:
        here = folder_after(here, given.group(1))
    if not here or not other_repository(here, str(ctx.facts.cwd) or ctx.entry_cwd):
        return Redacted("")
    return ctx.exact(here, 1000)


def _merge_branch(command: str) -> str:
    """The one branch a `git merge` names (`git merge origin/main
    --no-edit`); "" for none or more."""
    m = rx(_MERGED).search(command)
    names = [w for w in m.group(1).split() if not w.startswith("-")] if m else []
    if len(names) != 1 or not rx(r"^[\w./-]+$").match(names[0]):
        return ""
    return names[0]


# A throwaway repository (review 30 #3, #18): one a `git init` or `git clone`
# made in a temporary folder outside the project (`cd "$(mktemp -d)" && git
# init`, `git clone --local . $S` with S in Claude's scratchpad) to try
# something. Its commits are probes. A worktree there (`git worktree add
# /tmp/x`) is the project's own repository: its commits are the session's.
MAX_SCRATCH_REPOS = 20
MAX_COMMITS_A_LINE = 20
_MAKES_REPO = (r"(?:^|[\s;&|(])git(?:\s+-[Cc]\s+\S+|\s+--[\w-]+(?:=\S+)?)*"
               r"\s+(init|clone)\b([^;&|\n]*)")
# Options of `git init`/`git clone` that take the next word.
_WITH_VALUE = {"-b", "--branch", "--initial-branch", "--template", "--separate-git-dir",
               "--object-format", "--ref-format", "--depth", "-o", "--origin", "-c", "--config",
               "--reference", "--reference-if-able", "-u", "--upload-pack", "-j", "--jobs",
               "--shallow-since", "--shallow-exclude", "--server-option", "--bundle-uri"}
# `NAME=value` and `cd dir`/`pushd dir` at a command's start (after a line's
# start, `;`, `&&`, `||`, `|`, `(`): the folder a later git runs in.
_ASSIGN = (r"""(?:^|(?<=[\n;&|(]))[ \t]*([A-Za-z_]\w*)="""
           r"""("[^"\n]*"|'[^'\n]*'|\$\([^()\n]*\)|[^\s;&|()]*)""")
_GO_TO = r"""(?:^|(?<=[\n;&|(]))[ \t]*(?:cd|pushd)[ \t]+("[^"\n]*"|'[^'\n]*'|[^\s;&|()]+)"""
_GIT_IN = r"""\bgit(?:\s+-c\s+\S+)*\s+-C\s+("[^"\n]*"|'[^'\n]*'|[^\s;&|()]+)"""
_MKTEMP = r"\bmktemp\b([^)\n]{0,300})"
_VARIABLE = r"^\$(?:\{(\w+)\}|(\w+))"


def _word(value: str, names: dict[str, str]) -> str:
    """A shell word as a folder: quotes off, a leading `$NAME` (`${NAME}`)
    given the value it was set to in the line, `$(mktemp -d [template])`
    read as the temporary folder it makes (its template, or /tmp/tmp.X);
    "" when not known."""
    value = value.strip().strip("'\"")
    made = rx(_MKTEMP).search(value) if "mktemp" in value else None
    if made is not None:
        template = next((w for w in made.group(1).split() if not w.startswith("-")), "")
        if template.startswith("$"):
            template = _word(template, names)
        return template if template.startswith("/") else "/tmp/" + (template or "tmp.X")
    if value.startswith("$TMPDIR") or value.startswith("${TMPDIR}"):
        return "/tmp" + value.split("}", 1)[-1].removeprefix("$TMPDIR")
    var = rx(_VARIABLE).match(value) if value.startswith("$") else None
    if var is not None:
        known = names.get(var.group(1) or var.group(2), "")
        return known + value[var.end():] if known else ""
    return "" if value.startswith(("$", "`", "~")) else value


def _folder_at(ctx: Context, command: str, at: int) -> str:
    """The folder a git command at `at` in `command` runs in, from where
    Claude Code says the line ran, each `cd` before it and its `-C`, with the
    line's own variables (`S=/tmp/x; cd $S`); "" when not known."""
    names: dict[str, str] = {}
    here = ctx.entry_cwd
    steps = [(m.start(), "=", m) for m in rx(_ASSIGN).finditer(command, 0, at)] if "=" in command \
        else []
    steps += [(m.start(), "cd", m) for m in rx(_GO_TO).finditer(command, 0, at)]
    for _, kind, m in sorted(steps, key=lambda x: x[0]):
        if kind == "=":
            names[m.group(1)] = _word(m.group(2), names)
        else:
            here = folder_after(here, _word(m.group(1), names)) if here or \
                _word(m.group(1), names).startswith("/") else ""
    given = rx(_GIT_IN).match(command, at + (command[at] != "g")) if at < len(command) else None
    if given:
        to = _word(given.group(1), names)
        here = folder_after(here, to) if to else ""
    return here


def _temporary(ctx: Context, folder: str) -> bool:
    """`folder` is in a temporary folder, outside the session's own."""
    low = folder.replace("\\", "/").lower()
    if not TEMP_FOLDER.search(low + "/"):
        return False
    own = (str(ctx.facts.cwd) or ctx.entry_cwd).replace("\\", "/").lower().rstrip("/")
    return not own or not (low == own or low.startswith(own + "/") or own.startswith(low + "/"))


def _scratch_made(ctx: Context, command: str, said: str) -> None:
    """Keep the folders a `git init`/`git clone` of the line made a
    repository in, when they are temporary ones outside the project."""
    for k, m in enumerate(rx(_MAKES_REPO).finditer(said)):
        if k >= MAX_SCRATCH_REPOS:  # (each looks back over the line: a few, not thousands)
            break
        words = command[m.start(2):m.end(2)].split()
        plain: list[str] = []
        skip = False
        for w in words:
            if skip:
                skip = False
            elif w.startswith("-"):
                skip = w in _WITH_VALUE
            elif w.startswith((">", "2>", "<")) or w in ("2>&1",):
                break
            else:
                plain.append(w)
        if m.group(1) == "init":
            to = plain[0] if plain else "."
        elif len(plain) >= 2:
            to = plain[1]
        elif plain:  # (`git clone url`: a folder named as the repository)
            to = plain[0].rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git")
        else:
            continue
        here = _folder_at(ctx, command, m.start() + (command[m.start()] != "g"))
        word = _word(to, _names_before(command, m.start()))
        folder = folder_after(here, word) if word and (here or word.startswith("/")) else ""
        if folder and _temporary(ctx, folder):
            mine = ctx.exact(folder.rstrip("/"), 1000)
            repos = ctx.facts.scratch_repos
            if mine not in repos:
                repos.append(mine)
                del repos[:-MAX_SCRATCH_REPOS]


def _names_before(command: str, at: int) -> dict[str, str]:
    names: dict[str, str] = {}
    if "=" in command:
        for m in rx(_ASSIGN).finditer(command, 0, at):
            names[m.group(1)] = _word(m.group(2), names)
    return names


def scratch_folder(ctx: Context, command: str, at: int) -> str:
    """The throwaway repository the git command at `at` runs in, "" when
    none: a temporary folder (outside the project) a `mktemp` made, or one a
    `git init`/`git clone` of the session made a repository in."""
    folder = _folder_at(ctx, command, at)
    if not folder or not _temporary(ctx, folder):
        return ""
    low = folder.replace("\\", "/").rstrip("/")
    if "mktemp" in command[:at] and rx(_MKTEMP).search(command, 0, at):
        return low
    return next((str(r) for r in ctx.facts.scratch_repos
                 if low == r or low.startswith(str(r) + "/")), "")


def _in_scratch(ctx: Context, call: Pending, folder: str) -> None:
    """A git command in throwaway repository `folder`: its commits are
    probes, told by that folder (a push from it makes them work)."""
    if folder:
        call.scratch = True
        call.folder = ctx.exact(folder, 1000)


def commit_subject(command: str, at: int = -1) -> str:
    """The first line of the message of the `git commit` (or `git merge`)
    whose name ends at `at` in `command` (-1: the first), as its own options
    give it: `-m "subject"`, `-m "$(cat <<'EOF'` then the subject on the next
    line, `-F -` fed by a heredoc, or `-F file` where the same command wrote
    that file from a heredoc; "" when the command does not say (an editor,
    a file it did not write, `-C <commit>`: see reused_message). Only the
    command's own words count: an option inside a here-document's body
    (`-manifest` in a message read from stdin, review 31 F5) or after the
    command's end (`git commit -q && grep -m 1 x`) is none of its."""
    blank = _without_bodies(command)
    if at < 0:
        said = unquoted(command)
        first = rx(_COMMIT_CMD).search(said) or rx(_MERGE_CMD).search(said)
        at = first.end() if first else 0
    end = _segment_end(command, blank, at)
    m = rx(_COMMIT_MESSAGE).search(blank, at, end)
    if m:
        words = next(g for g in m.groups() if g is not None).replace('\\"', '"')
        if not words.lstrip().startswith("$("):
            line = _first_line(words)
            # (the shell's value of `$MSG` is not the text: not known; a
            # `\$` is a dollar, and the body's words are not the subject)
            if m.group(2) is None and rx(_EXPANDS).search(line.replace("\\$", "").replace(
                    "\\`", "")):
                return ""
            return line.replace("\\$", "$").replace("\\`", "`") if m.group(1) is not None \
                else line
        return _heredoc_first_line(command, m.start(), end)
    f = rx(_FROM_FILE).search(blank, at, end)
    if f is None:
        return ""
    path = (f.group(1) or "").strip("'\"")
    if path == "-":
        return _heredoc_first_line(command, f.start(), end)
    return _written_message(command, path, at) if path else ""


def _heredoc_first_line(command: str, start: int, end: int) -> str:
    """The first line of the here-document opened between `start` and `end`."""
    for opener, word, body, stop in _heredocs(command):
        if start <= opener < end:
            return _first_line(_body(command, word, body, stop))
    return ""


def _body(command: str, word: str, body: int, stop: int) -> str:
    """A here-document's text without its end line."""
    text = command[body:stop]  # (its last line is the end line)
    return text[:text.rfind("\n")] if "\n" in text else ""


def _written_message(command: str, path: str, before: int) -> str:
    """The first line of the here-document written to `path` (`cat > path
    <<'EOF'`, `cat <<EOF > path`, `tee path <<EOF`) before `before` in the
    command: `git commit -F path` reads it."""
    found = ""
    for opener, word, body, stop in _heredocs(command):
        if opener >= before:
            break
        line = command[command.rfind("\n", 0, opener) + 1:body]
        for w in rx(_WRITES_TO).finditer(line):
            if (w.group(1) or w.group(2)).strip("'\"") == path:
                found = _first_line(_body(command, word, body, stop))
    return found


def _heredocs(command: str) -> list[tuple[int, str, int, int]]:
    if "<<" not in command:
        return []
    from vibe_vault.fold.commands import heredocs  # (it imports this module)

    return heredocs(command)


def _without_bodies(command: str) -> str:
    """`command` with each here-document's body blanked (newlines kept):
    the same length, its places the command's."""
    out = None
    for _, _, body, stop in _heredocs(command):
        out = out if out is not None else list(command)
        for k in range(body, stop):
            if out[k] != "\n":
                out[k] = " "
    return "".join(out) if out is not None else command


def _segment_end(command: str, blank: str, at: int) -> int:
    """Where the simple command going on at `at` ends: the first `;`, `&`,
    `|`, newline or closing `)` outside quotes, `$(…)` and here-document
    bodies (`blank` has those bodies blanked; a quote inside one opens none)."""
    n = len(blank)
    i = at
    depth = 0
    quote = ""
    while i < n:
        ch = blank[i]
        if ch == "\\":
            i += 2
            continue
        if quote == "'":
            if ch == "'":
                quote = ""
        elif ch == "$" and blank.startswith("$(", i):
            depth += 1
            i += 1
        elif quote == '"':
            if ch == '"' and not depth:
                quote = ""
            elif ch == ")" and depth:
                depth -= 1
        elif ch in "'\"":
            quote = ch
        elif ch == ")" and depth:
            depth -= 1
        elif not depth and ch in ";&|\n)":
            return i
        i += 1
    return n


def _reused_subject(ctx: Context, sha: str) -> Redacted:
    """The subject of the commit a `git commit -C <sha>` takes its message
    from, as the session knows it (a commit it made, or one an output
    printed beside its subject); "" when not known."""
    if not sha:
        return Redacted("")
    short = sha[:7]
    for c in (*reversed(ctx.facts.commits), *reversed(ctx.facts.printed)):
        if c.sha and c.subject and c.how != PUSHED and c.sha[:7] == short:
            return c.subject
    return Redacted("")


def reused_message(command: str, at: int) -> str:
    """The commit whose message the `git commit` ending at `at` takes (`-C
    <commit>`, `-c`, `--reuse-message=`, `--reedit-message=`), "" for none."""
    blank = _without_bodies(command)
    m = rx(_REUSED).search(blank, at, _segment_end(command, blank, at))
    return m.group(1) if m else ""


def _first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def _stages_nothing(ctx: Context, call: Pending) -> bool:
    """Whether a commit's line adds nothing the session shows staged to it:
    no `-a`, no paths, no `git add` (of this line or before it) and no
    `git status` listing staged changes in its folder since the last commit."""
    if call.stage_all or call.only or call.unknown or call.staged:
        return False
    s = ctx.facts.staged.get(call.stage_in) if call.stage_in else None
    return s is None or not (s.paths or s.everything)


def on_output(ctx: Context, call: Pending, status: str, out: str, timestamp: str,
              refused: bool = False) -> None:
    """A command's output: git's own `[branch sha] subject` line is a commit even
    when a later command of the same line failed; a successful `git commit`
    that printed none (`-q`, `-F -`, a script) is a commit all the same.
    `status` is the line's; `refused`: its push failed though the line did
    not (push_failed), and is no push."""
    facts = ctx.facts
    found = False
    lines: list[str] = []  # the subjects of git's commit lines
    replayed: list[Commit] = []
    staged.on_added(ctx, call, status, timestamp)
    reword = call.amend and bool(call.commit_subject) and _stages_nothing(ctx, call)
    for m in rx(_COMMIT_LINE).finditer(out) if call.git and "] " in out else ():
        if call.rebase and m.group(1) == _NO_BRANCH:
            # A commit a rebase replays (`rebase --continue` after a conflict):
            # the new sha of one it rewrites, not a commit of its own.
            replayed.append(Commit(sha=Redacted(m.group(2)[:7]),
                                   subject=ctx.line(m.group(3), SUBJECT_CHARS), ts=timestamp))
            continue
        found = True
        on = Redacted("") if m.group(1) == _NO_BRANCH else ctx.line(m.group(1), BRANCH_CHARS)
        made = commit(ctx, m.group(2), ctx.line(m.group(3), SUBJECT_CHARS), on, timestamp,
                      amend=call.amend, folder=call.folder, scratch=call.scratch)
        lines.append(str(made.subject) if made is not None else m.group(3))
        if on and not call.folder and not call.elsewhere:
            facts.head = on  # (where the session's folder is)
        if made is not None:
            made.reworded = reword
            staged.held(ctx, call, made, out[m.end():])
    # Where git printed no line, the branch is the session's, unless git ran
    # in another folder (a worktree's branch is not known then).
    here = Redacted("") if call.elsewhere else facts.branch or ctx.branch
    if here == DETACHED:
        here = Redacted("")  # a detached HEAD: on no branch
    if call.commits and (status == "ok" or "\n" in out.strip()):
        quiet = _unprinted([call.commit_subject, *call.more_subjects], lines)
        if status != "ok":
            # A line judged failed by what it printed (a build error after
            # its commits: review 31 F4) made those of its quiet commits
            # its own output shows beside a sha the session did not know.
            known = {c.sha for c in facts.commits} | {c.sha for c in facts.printed}
            shown = {str(subject) for sha, subject in printed_commits(ctx, out)
                     if sha not in known}
            quiet = [s for s in quiet if s and str(s) in shown]
        for subject in quiet:
            made = commit(ctx, "", subject, here, timestamp, amend=call.amend,
                          folder=call.folder, scratch=call.scratch)
            if made is not None:
                made.reworded = reword
                staged.held(ctx, call, made, out)
        if quiet and status != "ok":  # (named below only when the line succeeded)
            name_commits(ctx, out, printed_commits(ctx, out), call.folder)
    if call.resets and (status == "ok" or found or any(c.ts == timestamp for c in facts.commits)):
        # (a line judged failed that made its commits ran its resets before them)
        before = len(call.resets) - call.resets_after
        for k, to in enumerate(call.resets):
            facts.rewrites.append(Rewrite(ts=timestamp, branch=here, to=to, folder=call.folder,
                                          after=k >= before))
        del facts.rewrites[:-MAX_REWRITES]
    staged.on_status(ctx, call, status, out)
    git_counts.on_output(ctx, call, out, timestamp)
    if call.revert or call.moves:
        reverts.on_output(ctx, call, status, out, timestamp)
    if status == "ok" and call.squash and _SQUASHED_MERGE in out:
        facts.squashing = call.squash  # the next commit takes the branch's work
    if status == "ok" and call.merge and not found and _MERGE_MADE in out:
        # A merge commit: git prints no sha for it; a later `git log` may.
        made = commit(ctx, "", call.commit_subject, here, timestamp, scratch=call.scratch,
                      folder=call.folder if call.scratch else _OWN)
        if made is not None and not made.subject:
            made.merged = call.merging
    if call.rebase and "Successfully rebased" in out:
        for m in rx(_REBASED).finditer(out):
            facts.rewrites.append(Rewrite(ts=timestamp, branch=ctx.line(m.group(1), BRANCH_CHARS),
                                          made=replayed, autosquash=call.autosquash))
        del facts.rewrites[:-MAX_REWRITES]
    if call.new_branches:
        _branches_made(ctx, call, status, out, timestamp)
    if call.git:
        _switched(ctx, call, out)
    if call.git and ("Deleted branch " in out or (call.deletes and status == "ok")):
        # (also from a line that failed later: `git branch -d x && git push
        # --delete …`; a quiet one, `-q`, by its words when the line succeeded)
        said = [ctx.line(m.group(1), BRANCH_CHARS) for m in rx(_DELETED_BRANCH).finditer(out)]
        for gone in dict.fromkeys([*said, *(call.deletes if status == "ok" else [])]):
            if gone in facts.branches_made and not (call.folder or call.elsewhere):
                facts.branches_made.remove(gone)
                facts.branches_gone.append(gone)
                del facts.branches_gone[:-MAX_BRANCHES_MADE]
            for c in facts.commits:
                if c.branch == gone:
                    c.branch_deleted = True
    if call.git == GIT_PUSH:
        _pushed(ctx, call, "failed" if refused else status, out, timestamp)
    if status != "ok" or not out:
        return
    # Any later output that shows a commit made without git's line beside its
    # subject names it (`git log --oneline` after `git commit -q -F -`).
    if call.git and rx(_SHA_HINT).search(out):
        pairs = printed_commits(ctx, out)
        if any(not c.sha for c in facts.commits):
            name_commits(ctx, out, pairs, call.folder)
        if facts.prs:
            squashed(ctx, pairs)
        if call.git == "git log" and facts.subagents:
            logged(ctx, call, out, timestamp)
        if facts.subagents:
            reported(ctx, call, pairs, timestamp)
        # (a tip a push reported is no subject's: a log's line of it still is)
        known = {c.sha for c in facts.commits} | {c.sha for c in facts.printed if c.how != PUSHED}
        facts.printed.extend(Commit(sha=sha, subject=subject, ts=timestamp)
                             for sha, subject in pairs if sha not in known)
        del facts.printed[:-PRINTED_KEPT]
    if call.pr == "create":
        for m in rx(_PR_URL).finditer(out) if "/pull/" in out else ():
            pull_request(ctx, ctx.name(m.group(0), 300), int(m.group(2)), ctx.name(m.group(1)))
    elif call.pr == "merge":
        merged = rx(_MERGED_PR).search(out)
        url = rx(_PR_URL).match(call.pr_url) if call.pr_url else None
        if url is not None:
            pull_request(ctx, call.pr_url, int(url.group(2)), ctx.name(url.group(1)), merged=True)
        elif merged is not None:
            pull_request(ctx, Redacted(""), int(merged.group(2)),
                         ctx.name(merged.group(1) or ""), merged=True)
    elif call.pr == "close" and "pull request" in out:
        for m in rx(_CLOSED_PR).finditer(out):
            pull_request(ctx, Redacted(""), int(m.group(3)), ctx.name(m.group(2) or ""),
                         closed=m.group(1) == "Closed")
    if call.git == GIT_PUSH and not refused:
        facts.pushes += 1
        if sent_nothing(out):
            facts.pushes_idle += 1
        if call.folder:  # to another repository's remote
            facts.pushed_elsewhere[call.folder] = facts.pushed_elsewhere.get(call.folder, 0) + 1


def sent_nothing(out: str) -> bool:
    """Whether a push's output says it sent nothing: git's "Everything
    up-to-date", or refs all reported `=` (up to date) or `!` (rejected),
    and none it moved (" ", "+", "*")."""
    if " -> " in out:
        flags = {m.group(1) for m in rx(_PUSHED_REF).finditer(out)}
        if flags & {" ", "+", "*"}:
            return False
        if flags:
            return True
    return "Everything up-to-date" in out


def _pushed(ctx: Context, call: Pending, status: str, out: str, timestamp: str) -> None:
    """The branches a `git push` sent, each kept with its latest push: those
    its output reports sent (not rejected), even when a later command of the
    line failed; a push that succeeded reporting none (`Everything
    up-to-date`, `-q`) or a ref not a branch's name (`HEAD`) sent any branch."""
    refs: list[str] = []
    tips: list[str] = []
    told = False
    for m in rx(_PUSHED_REF).finditer(out) if " -> " in out else ():
        told = True
        if m.group(1) != "!":  # ("! [rejected]", "! [remote rejected]": nothing sent)
            ref = m.group(3).removeprefix("refs/heads/")
            if ref == DETACHED:  # (`git push origin HEAD:x`: the branch checked out, if known)
                ref = "" if call.folder or call.elsewhere else ctx.facts.head
            refs.append(ref)
            if m.group(2):
                tips.append(m.group(2)[:7])
                if ref and ref != DETACHED:
                    # The branch's tip as sent: the sha of its latest commit
                    # (vibe_vault.work names a rebased or quiet commit by it).
                    # A sha is hex digits matched in git's output: nothing to hide.
                    ctx.facts.printed.append(Commit(
                        sha=Redacted(m.group(2)[:7]), how=PUSHED,
                        branch=ctx.line(ref, BRANCH_CHARS), ts=timestamp, folder=call.folder))
                    del ctx.facts.printed[:-PRINTED_KEPT]
    if " + " in out:
        _forced(ctx, call, out, timestamp)
    if not told and status == "ok":
        # Git named no ref: those the command names (review 31 F14: `git
        # push -q origin x` sent x, not every branch)
        refs.extend(str(r) for r in call.push_refs)
    if refs and call.scratch:
        # Sent to a remote: what was made there to try something is work
        # that left the machine, the session's own.
        for c in ctx.facts.commits:
            if c.scratch and c.folder == call.folder:
                c.scratch = False
    pushed = ctx.facts.pushed
    for ref in dict.fromkeys(refs):
        name = ctx.line(ref, BRANCH_CHARS)
        pushed[:] = [p for p in pushed if (p.folder, p.ref) != (call.folder, name)]
        pushed.append(Push(ts=timestamp, folder=call.folder, ref=name, first=call.push_first))
        if name:
            _sent_on(ctx, call.folder, name, timestamp)
    del pushed[:-MAX_PUSHED]
    for tip in tips:
        _sent_up_to(ctx, call.folder, tip)


# A ref a push replaced (` + d42eb64...d282c83 x -> x (forced update)`): the
# sha it replaced, the one it put there, the remote's branch.
_FORCED_REF = r"(?m)^ \+ ([0-9a-f]{4,40})\.\.\.([0-9a-f]{4,40})[ \t]+\S+ -> (\S+)"
MAX_FORCED = 20


def _forced(ctx: Context, call: Pending, out: str, timestamp: str) -> None:
    """Keep each ref the push replaced on the remote (a forced update), with
    the subject of the commit it replaced when the session showed it."""
    facts = ctx.facts
    for m in rx(_FORCED_REF).finditer(out):
        old = m.group(1)[:7]
        known = next((c.subject for c in (*facts.commits, *facts.printed)
                      if c.sha == old and c.subject), Redacted(""))
        # Shas are hex digits matched in git's output: nothing to hide.
        facts.forced.append(Forced(
            ts=timestamp, ref=ctx.line(m.group(3).removeprefix("refs/heads/"), BRANCH_CHARS),
            old=Redacted(old), new=Redacted(m.group(2)[:7]), subject=known, folder=call.folder))
    del facts.forced[:-MAX_FORCED]


def _sent_on(ctx: Context, folder: Redacted, name: Redacted, timestamp: str) -> None:
    """A push of branch `name` also sends the commits it holds that are not
    its own: those of the branch it was made from, made before it was made
    (and so on back): review 29 #4, a release commit on a protected `main`
    pushed as `git branch release/x && git push origin release/x`."""
    forks = {(f.folder, f.name): f for f in ctx.facts.forks}
    until = timestamp
    for _ in range(MAX_FORK_CHAIN):
        fork = forks.get((folder, name))
        if fork is None or not fork.base or fork.base == name:
            return
        until = min(until, fork.ts)
        for c in ctx.facts.commits:
            if c.folder == folder and c.branch == fork.base and c.ts <= until:
                c.sent = True
        name = fork.base


def _sent_up_to(ctx: Context, folder: Redacted, tip: str) -> None:
    """A push whose range ends at a commit of the session (`a1..b2  x -> y`)
    sent it, and its branch's commits before it, whatever the branch's name."""
    commits = ctx.facts.commits
    at = next((i for i, c in enumerate(commits) if c.sha == tip and c.folder == folder), -1)
    if at < 0:
        return
    for c in commits[:at + 1]:
        if c.folder == folder and (c.branch == commits[at].branch or c is commits[at]):
            c.sent = True


# `git branch` and its words, to the line's next command.
_BRANCH_CMD = r"(?:^|[\s;&|(])git(?:[ \t]+-C[ \t]+\S+)*[ \t]+branch((?:[ \t]+[^\s;&|()]+)*)"


def _deleted_by(said: str) -> list[str]:
    """The local branches a line's `git branch -d|-D|--delete` name."""
    out: list[str] = []
    for m in rx(_BRANCH_CMD).finditer(said) if "branch" in said else ():
        words = m.group(1).split()
        flags = [w for w in words if w.startswith("-")]
        if not any(f in ("--delete", "-d", "-D") or (f[1:2] != "-" and f[1:].strip("fq") in "dD"
                                                    and f[1:].strip("fq")) for f in flags) \
                or any(f in ("-r", "--remotes", "-a", "--all") for f in flags):
            continue
        out.extend(w for w in words if not w.startswith(("-", ">", "<", "2>")))
    return out[:MAX_BRANCHES_MADE]


def _branches_made(ctx: Context, call: Pending, status: str, out: str, ts: str) -> None:
    """The branches a command created: all it named when it succeeded; when
    it failed, those git said it switched to ("Switched to a new branch 'x'",
    before a later command of the line failed)."""
    facts = ctx.facts
    starts = call.branch_starts or [Redacted("")] * len(call.new_branches)
    for name, start in zip(call.new_branches, starts, strict=False):
        made = status == "ok" or f"Switched to a new branch '{name}'" in out
        if made and name not in facts.branches_made and len(
                facts.branches_made) < MAX_BRANCHES_MADE:
            facts.branches_made.append(name)
            if name in facts.branches_gone:  # (made again)
                facts.branches_gone.remove(name)
        if made:
            base = start or _head_before(ctx, call, out, name)
            facts.forks.append(Fork(name=name, base=base, ts=ts, folder=call.folder))
            del facts.forks[:-MAX_FORKS]


def _head_before(ctx: Context, call: Pending, out: str, name: Redacted) -> Redacted:
    """The branch checked out where a command made branch `name` from HEAD:
    in the session's folder, the one git last said it was on before it
    switched to `name` (Claude Code's `gitBranch` may already name the new
    one, or an old one); in another folder, the branch of the latest commit
    made there."""
    if call.elsewhere or call.folder:
        last = next((c for c in reversed(ctx.facts.commits) if c.folder == call.folder), None)
        return last.branch if last is not None and last.branch != name else Redacted("")
    facts = ctx.facts
    # (before git said where it was: the branch Claude Code stamped the lines with)
    head = facts.head or (facts.branch or ctx.branch if (facts.branch or ctx.branch) != DETACHED
                          else Redacted(""))
    for m in rx(_SWITCHED).finditer(out) if "Switched to " in out or "Already on '" in out \
            else ():
        if m.group(1) and m.group(2) == name:
            break
        head = ctx.line(m.group(2) or m.group(3), BRANCH_CHARS)
    return head if head != name else Redacted("")


def _switched(ctx: Context, call: Pending, out: str) -> None:
    """Where git says the session's folder is now: "Switched to branch 'x'",
    "Switched to a new branch 'x'", "Already on 'x'", the last of them."""
    if call.elsewhere or call.folder:
        return
    if "'detached HEAD' state" in out:  # (`git checkout <sha>`: on no branch)
        ctx.facts.head = Redacted("")
    if "Switched to " not in out and "Already on '" not in out:
        return
    moves = list(rx(_SWITCHED).finditer(out))
    if moves:
        last = moves[-1]
        ctx.facts.head = ctx.line(last.group(2) or last.group(3), BRANCH_CHARS)


def _unprinted(subjects: list[Redacted], lines: list[str]) -> list[Redacted]:
    """The commits of a successful line git printed no `[branch sha]` line
    of (`-q`): as many as its `git commit`s are more than git's lines; those
    whose subject no line has first ("" for a message not told)."""
    missing = len(subjects) - len(lines)
    if missing <= 0:
        return []
    left = list(lines)
    out: list[Redacted] = []
    for s in subjects:
        if s and str(s) in left:
            left.remove(str(s))
        else:
            out.append(s)
    return out[:missing] if len(out) >= missing else out + [Redacted("")] * (missing - len(out))


def commit(ctx: Context, sha: str, subject: Redacted, branch: Redacted, timestamp: str,
           amend: bool = False, folder: Redacted = _OWN, scratch: bool = False) -> Commit | None:
    """A commit made. An amend (`--amend`) replaces the branch's last commit,
    which any agent of the session may have made: it is told as AMENDED and
    replaces that one where the agents' work is put together (vibe_vault.work),
    when their order is known."""
    facts = ctx.facts
    if sha and any(c.sha == sha for c in facts.commits):
        return None
    # A sha is hex digits matched in git's output: nothing to hide.
    made = Commit(sha=Redacted(sha), subject=subject, branch=branch, ts=timestamp, folder=folder,
                  how=AMENDED if amend else "", scratch=scratch)
    if facts.squashing and not amend:
        # The commit after `git merge --squash b`: b's commits of the session
        # are in it (under its sha, when git printed one).
        for c in facts.commits:
            if c.branch == facts.squashing and not c.landed and sha and c.folder == folder:
                c.landed = Redacted(sha[:7])
        facts.squashing = Redacted("")
    facts.commits.append(made)
    del facts.commits[:-MAX_COMMITS]
    return made


def printed_commits(ctx: Context, out: str) -> list[tuple[Redacted, Redacted]]:
    """The (sha, subject) pairs `git log` (one line or long), `git show` or
    a move of HEAD ("HEAD is now at …") printed, as a note holds them (7 hex
    digits, a subject through the gate)."""
    pairs = [(m.group(1), m.group(2)) for m in rx(_LONG_LOG).finditer(out)]
    pairs += [(m.group(1), m.group(2)) for m in rx(_ONELINE).finditer(out)]
    if "HEAD is now at " in out:
        pairs += [(m.group(1), m.group(2)) for m in rx(_HEAD_AT).finditer(out)]
    # A sha is hex digits matched in git's output: nothing to hide.
    return [(Redacted(sha[:7]), ctx.line(subject, SUBJECT_CHARS)) for sha, subject in pairs]


def logged(ctx: Context, call: Pending, out: str, timestamp: str) -> None:
    """Commits a subagent made (review 29 #9: 544fe3a7's five, "and 1 more"):
    those a `git log` of the branch shows above the latest commit the session
    made there, when a subagent started after that commit. Told as made by a
    subagent; where its own file holds them too, they are its (vibe_vault.work)."""
    facts = ctx.facts
    lines = [(m.group(1)[:7], m.group(2)) for m in rx(_ONELINE).finditer(out)]
    mine = {str(c.sha): c for c in facts.commits if c.sha and c.folder == call.folder}
    at = next((i for i, (sha, _) in enumerate(lines) if sha in mine), -1)
    if at <= 0:
        return
    base = mine[lines[at][0]]
    if not any(s.ts and s.ts > base.ts for s in facts.subagents):
        return
    known = {c.sha for c in facts.commits}
    for sha, subject in reversed(lines[:at]):
        if sha not in known and len(facts.commits) < MAX_COMMITS:
            # A sha is hex digits matched in git's output: nothing to hide.
            facts.commits.append(Commit(sha=Redacted(sha), subject=ctx.line(subject, SUBJECT_CHARS),
                                        branch=base.branch, ts=timestamp, folder=call.folder,
                                        how=BY_SUBAGENT))


def reported(ctx: Context, call: Pending, pairs: list[tuple[Redacted, Redacted]],
             timestamp: str) -> None:
    """Commits a subagent's report named (its words) that a later output
    shows beside a subject: commits, made by a subagent, though no output of
    the session made them (its file missing, or kept elsewhere). Where its
    file holds them too, they are its (vibe_vault.work)."""
    facts = ctx.facts
    named = {sha: s.ts for s in facts.subagents for sha in s.reported}
    if not named:
        return
    known = {c.sha for c in facts.commits}
    # (one an output showed before the subagent started was made before it)
    seen = {c.sha: c.ts for c in reversed(facts.printed)}
    for sha, subject in pairs:
        if sha in named and sha not in known and not seen.get(sha, "~") < named[sha] \
                and len(facts.commits) < MAX_COMMITS:
            known.add(sha)
            facts.commits.append(Commit(sha=sha, subject=subject, ts=timestamp,
                                        folder=call.folder, how=BY_SUBAGENT))


def name_commits(ctx: Context, out: str, pairs: list[tuple[Redacted, Redacted]],
                 folder: Redacted = _OWN) -> None:
    """Give commits made without git's line their sha, from what `git log`,
    `git show` or `git rev-parse` printed later in their repository (`folder`):
    by subject, the latest commit with it not yet named (review 31 F3, F4: a
    branch re-cut from scratch makes commits of the same subjects again;
    what a log prints now is the newest), or, for a bare sha, the latest
    commit when it is the one without one."""
    facts = ctx.facts
    # (not one a `git reset` took off its branch: review 31 F4)
    resets = [r for r in facts.rewrites if r.to]
    gone = taken_off(facts.commits, resets, facts.forks, facts.printed) if resets else set()
    unnamed = [c for k, c in reversed(list(enumerate(facts.commits)))
               if not c.sha and c.folder == folder and k not in gone]
    known = {c.sha for c in facts.commits if c.sha}
    for sha, subject in pairs:
        for c in unnamed:
            if c.sha or sha in known:
                continue
            if c.subject and same_subject(subject, c.subject):
                c.sha = sha
                known.add(c.sha)
            elif not c.subject and c.merged and merge_of(subject, c.merged):
                c.sha, c.subject = sha, subject  # (git's own subject, as printed)
                known.add(c.sha)
    last = facts.commits[-1]
    m = rx(_REV_PARSE).match(out)
    if m and not last.sha:
        last.sha = Redacted(m.group(1)[:7])  # hex digits


# What a `git reset` names that is HEAD's ancestor: `HEAD~2`, `@^`, `HEAD^^`.
_BACK = r"(?:HEAD|@)((?:[~^]\d*)*)"
_STEP = r"([~^])(\d*)"
_SHA = r"[0-9a-f]{7,40}"
_BRANCH = r"[\w.-]+(?:/[\w.-]+)*"


def taken_off(commits: list[Commit], resets: list[Rewrite], forks: list[Fork],
              printed: list[Commit]) -> set[int]:
    """The places in `commits` (in time order) of those the `git reset`s
    `resets` took off their branch. A reset takes the commits of the session
    made on its branch before it that are above the commit it names: the
    last N for `HEAD~N`; those after it for a sha of one of them (or one an
    output printed beside the subject of one of them: a rebased copy); all
    of them for another commit the session knows or another branch
    (`main`); none for a remote's copy of the branch itself or a sha not
    known (what those hold is not told). One that a branch made from its
    branch after it still holds stays."""
    gone: set[int] = set()
    # (a sha as an output printed it beside its subject)
    said = {str(p.sha)[:7]: p.subject for p in printed if p.subject}
    known = {str(c.sha)[:7] for c in commits if c.sha} | said.keys()
    for r in sorted(resets, key=lambda r: r.ts):
        on = [k for k, c in enumerate(commits) if k not in gone and c.ts
              and c.branch == r.branch and c.folder == r.folder
              and (c.ts < r.ts or (c.ts == r.ts and r.after))]
        for k in _above(commits, on, r, said, known):
            c = commits[k]
            # (a rebased copy is not what a branch made before the rebase holds)
            if c.how == REBASED or not any(
                    f.base == c.branch and f.folder == c.folder and c.ts <= f.ts <= r.ts
                    for f in forks):
                gone.add(k)
    return gone


def _above(commits: list[Commit], on: list[int], r: Rewrite, said: dict[str, Redacted],
           known: set[str]) -> list[int]:
    """Of `on` (places in `commits`, in time order), those reset `r` takes off."""
    to = str(r.to)
    back = rx(_BACK).fullmatch(to)
    if back is not None:
        n = sum(int(m.group(2) or 1) if m.group(1) == "~" else 1
                for m in rx(_STEP).finditer(back.group(1)))
        return on[len(on) - n:] if n else []
    if rx(_SHA).fullmatch(to):
        short = to[:7]
        at = next((i for i in range(len(on) - 1, -1, -1)
                   if short in (str(commits[on[i]].sha)[:7], str(commits[on[i]].was)[:7])), -1)
        if at < 0 and short in said:
            at = next((i for i in range(len(on) - 1, -1, -1)
                       if commits[on[i]].subject == said[short]), -1)
        return on[at + 1:] if at >= 0 else on if short in known else []
    name = to.split("/", 1)[1] if to.startswith(("origin/", "upstream/")) else to
    if name == r.branch or not rx(_BRANCH).fullmatch(name) or name.endswith("_HEAD"):
        return []  # (`ORIG_HEAD`, `@{u}`, `main~2`, `$BASE`: not told)
    return on


def squashed(ctx: Context, pairs: list[tuple[Redacted, Redacted]]) -> None:
    """A commit whose pull request (one the session opened or named) was
    squash-merged: a log shows `<subject> (#N)` under another sha, as GitHub
    titles a squash merge."""
    numbers = {p.number for p in ctx.facts.prs if p.number}
    for sha, subject in pairs:
        m = rx(_SQUASHED).match(subject) if subject.endswith(")") else None
        if m is None or int(m.group(2)) not in numbers:
            continue
        for c in ctx.facts.commits:
            if c.sha and c.sha != sha and not c.landed and same_subject(m.group(1), c.subject):
                c.landed, c.landed_pr = sha, int(m.group(2))


def pull_request(ctx: Context, url: Redacted, number: int | None, repo: Redacted,
                 merged: bool = False, closed: bool | None = None) -> None:
    """A PR the session made (or merged, closed, reopened): one entry a PR,
    known by its URL, or by its number where git printed no URL (`gh pr
    merge` in the repo's folder). `closed`: closed unmerged (True) or opened
    again (False) by the session; None: neither."""
    facts = ctx.facts
    for p in facts.prs:
        if (url and p.url == url) or (number is not None and p.number == number and (
                not repo or not p.repo or repo == p.repo)):
            p.merged = p.merged or merged
            p.url, p.repo = p.url or url, p.repo or repo
            if closed is not None:
                p.closed = closed
            return
    facts.prs.append(PullRequest(url=url, number=number, repo=repo, merged=merged,
                                 closed=bool(closed)))


def on_git_operation(ctx: Context, op: object) -> None:
    """What Claude Code itself says a command did (`gitOperation`, 2.1.3xx):
    a PR it created or merged."""
    pr = op.get("pr") if isinstance(op, dict) else None
    if not isinstance(pr, dict) or pr.get("action") not in ("created", "merged"):
        return
    number = pr.get("number")
    url = pr.get("url")
    m = rx(_PR_URL).match(url) if isinstance(url, str) else None
    if not isinstance(number, int) or isinstance(number, bool):
        return
    pull_request(ctx, ctx.name(m.group(0), 300) if m else Redacted(""), number,
                 ctx.name(m.group(1)) if m else Redacted(""), merged=pr.get("action") == "merged")


def on_pr_link(ctx: Context, entry: Entry) -> None:
    if entry.prUrl:
        pull_request(ctx, ctx.name(entry.prUrl, 300), entry.prNumber,
                     ctx.name(entry.prRepository or ""))
