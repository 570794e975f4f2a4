"""The session's work, the main agent's and its subagents' together.

A subagent's file edits, commands, commits and errors are the session's work:
they count in the note's totals and appear in its sections, marked with the
subagent that did them. Each agent's facts are folded apart (so the hook's
reads of different files can interleave in any order); this module merges them
for the note. Pure: values in, values out.
"""

from __future__ import annotations

import re

import msgspec
from msgspec import Struct, field

from vibe_vault.fold.files import DELETED_BY_COMMAND, GIT_COUNTED, lines_mark, no_net_change
from vibe_vault.fold.subagents import LAUNCHED
from vibe_vault.project import TEMP_FOLDER, repo_file
from vibe_vault.redact import Redacted
from vibe_vault.state import (
    AMENDED,
    BY_SUBAGENT,
    PUSHED,
    REBASED,
    AgentFold,
    Command,
    Commit,
    ErrorRec,
    FileChange,
    Fold,
    Forced,
    Fork,
    GitLines,
    Push,
    Rewrite,
    SessionState,
    Unnamed,
    agent_kind,
)
from vibe_vault.text import lazy

MAIN = ""  # the label of the main agent's own work


class Doer(Struct):
    label: str  # MAIN, or the subagent's type and description ("Explore: Find the loader")
    fold: Fold


class FileWork(Struct):
    change: FileChange
    by: list[str] = field(default_factory=list)  # labels, MAIN first when it took part
    # The git worktrees of the session's repository it was changed in (their
    # names), and the paths it was changed at (itself, or its copies in them).
    worktrees: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)


class Work(Struct):
    # Every file changed at some point, by its path in the session's repository
    # (a file changed in a worktree of it is the repository's file).
    files: dict[str, FileWork]
    changed: list[str]  # of them, those not changed back (fold.files.no_net_change)
    files_dropped: int
    commands: list[tuple[str, Command]]  # (label, command), in the order they ran
    commands_run: int
    commands_dropped: int
    commits: list[tuple[str, Commit]]
    errors: list[tuple[str, ErrorRec]]
    errors_dropped: int
    pushes: int
    pushed_elsewhere: dict[str, int]  # of them, to another repository's remote: by its folder
    pushed: list[Push]  # every agent's latest push of each branch (Fold.pushed)
    tests: str  # "", passed, failed: the last test run's outcome
    by_label: dict[str, Fold]
    # The same tests before: how many failed at the first run of the last
    # run's command (the user's `!` run too), when it failed and the last
    # passed, and how many passed at the last (review 26 #15: 12a546d1's
    # "8 failing → 20 passed"); -1 when not so.
    tests_failing_before: int = -1
    tests_passed: int = -1
    # How many of `commits` each agent made, by id() of its Fold (a subagent's
    # line in the note counts its own commits that exist at the end).
    commits_by: dict[int, int] = field(default_factory=dict)
    # Files commands changed without naming them (a formatter's "6 files
    # reformatted", a folder copied), by the agent that ran them.
    unnamed: list[tuple[str, Unnamed]] = field(default_factory=list)
    # Files a commit of the session holds that no tool of it changed: listed
    # with `files` (and for `vv files`), not counted among the files changed.
    committed: dict[str, FileWork] = field(default_factory=dict)
    # What they were worked out from, kept for the figures and the note: each
    # Task's agent (`agents_of_tasks`), and every agent's work (`doers`). A
    # long session's Stop asked for the one five times and the other twice,
    # each a pass over its hundreds of subagents.
    agents: list[AgentFold | None] = field(default_factory=list)
    doers: list[Doer] = field(default_factory=list)
    # Files of `files` that are not the project's, by what they are (the
    # table's words): scratch (review 28 #4, #6, #14), written in a temporary
    # folder outside the project (Claude's own scratchpad among them), and
    # Claude Code's own files outside it (review 29 #13: its memory under
    # ~/.claude/projects/…/memory/). Listed apart in the table, never in
    # `changed`.
    scratch: dict[str, str] = field(default_factory=dict)
    # Commits made in throwaway repositories (Commit.scratch), not in `commits`.
    scratch_commits: int = 0
    # Commits a `git reset` took off their branch that no later commit of
    # their subject made again (work._reset): not in `commits`.
    undone: int = 0
    # Of `pushes`, those that sent nothing (Fold.pushes_idle).
    pushes_idle: int = 0
    # Every agent's forced updates (Fold.forced), in the order of the agents.
    forced: list[Forced] = field(default_factory=list)


def doers(state: SessionState, agents: list[AgentFold | None] | None = None) -> list[Doer]:
    """The main agent, then each subagent whose work was folded, in the order
    they began (a file two of them changed lists its changes and agents so).
    `agents`: the state's `agents_of_tasks`, when the caller has them."""
    out = [Doer(MAIN, state.fold)]
    subs = state.fold.subagents
    if state.fold.sidechain is not None:
        # Inline subagents' work is one fold: named when one Task started them all.
        out.append(Doer(subagent_label(agent_kind(subs[0].type, subs[0].name), subs[0].description)
                        if len(subs) == 1 else "subagent", state.fold.sidechain))
    names = {str(s.agent_id): subagent_label(agent_kind(s.type, s.name), s.description)
             for s in subs if s.agent_id}
    by_fold = {id(af): subagent_label(agent_kind(s.type, s.name), s.description)
               for s, af in zip(subs, agents_of_tasks(state) if agents is None else agents,
                                strict=True) if af is not None}
    folds = [(af.fold.first_ts, str(key), names.get(af.fold.agent_id)
              or by_fold.get(id(af.fold))
              or subagent_label(af.agent_type, af.description) or "subagent", af.fold.work)
             for key, af in state.agents.items() if not af.foreign]
    folds.extend((pf.first_ts, str(agent), names.get(agent) or "subagent", pf.work)
                 for agent, pf in streamed_only(state))
    for _, _, label, work in sorted(folds, key=lambda x: (x[0] or "~", x[1])):
        out.append(Doer(label, work))
    return out


def agents_of_tasks(state: SessionState) -> list[AgentFold | None]:
    """For each Task call of the session (`fold.subagents`, in order), what its
    agent did: its file's facts, else its streamed entries', else None. A Task
    with no result (the session ended while it worked) names no agent: its
    file is the one of this session no other Task names whose `meta.json`
    gives the same type and description."""
    subs = state.fold.subagents
    files = {af.fold.agent_id: af.fold for af in state.agents.values()
             if af.fold.agent_id and not af.foreign}
    named = {s.agent_id for s in subs if s.agent_id}
    spare = [af for af in state.agents.values()
             if not af.foreign and af.fold.agent_id not in named and af.description]
    out: list[AgentFold | None] = []
    for s in subs:
        found = files.get(s.agent_id) or state.fold.progress.get(s.agent_id) \
            if s.agent_id else None
        if found is None and not s.agent_id:
            match = next((af for af in spare if af.description == s.description
                          and af.agent_type in (s.type, "")), None)
            if match is not None:
                spare.remove(match)
                found = match.fold
        out.append(found)
    return out


def settle_by_files(state: SessionState) -> None:
    """A subagent launched in the background whose own file ends in its final
    answer has finished, though no notification says so (review 31 F11: the
    client queued it, or the transcript ends first): completed. Undone if its
    file goes on (a read that met its reply before its next call)."""
    subs = state.fold.subagents
    if not any(s.background for s in subs):
        return
    for s, af in zip(subs, agents_of_tasks(state), strict=True):
        if s.status == LAUNCHED and af is not None and af.answered:
            s.status, s.by_file = "completed", True
        elif s.by_file and (af is None or not af.answered):
            s.status, s.by_file = LAUNCHED, False


def calls_of_task(state: SessionState, tool_id: str) -> int:
    """How many tool calls the agent of the Task call `tool_id` made (its
    file's, its streamed entries', an inline one's, or its result's count)."""
    subs = state.fold.subagents
    at = next((i for i, s in enumerate(subs) if tool_id and s.tool_id == tool_id), -1)
    if at < 0:
        return 0
    af = agents_of_tasks(state)[at]
    return af.tool_calls if af is not None and af.tool_calls else \
        subs[at].tool_calls or subs[at].side_calls


def streamed_only(state: SessionState) -> list[tuple[str, AgentFold]]:
    """The subagents known only by what the main file streamed of them
    (`progress` lines, Claude Code 2.0/2.1), by agent id: where an agent's own
    file is there, the file tells it (every message of it, once)."""
    with_files = {af.fold.agent_id for af in state.agents.values()
                  if not af.foreign and af.fold.agent_id}
    return [(agent, pf) for agent, pf in sorted(state.fold.progress.items())
            if agent not in with_files]


def subagent_label(kind: str, description: str) -> str:
    """A subagent as the note names it: its type and what it was asked to do
    ("Explore: Find the config loader"), either alone when the other is unknown."""
    if kind and description:
        return f"{kind}: {description}"
    return kind or description


def _named(commits: list[tuple[str, Commit]], printed: list[Commit],
           rewrites: tuple[Rewrite, ...] = (),
           resets: tuple[Rewrite, ...] = ()) -> list[tuple[str, Commit]]:
    """Commits one agent made without git's line, named by the sha another
    agent's later `git log` printed beside their subject, or by the tip a
    later push reported of their branch when they were its latest commit
    (copies: the agents' facts stay each their own)."""
    known = {c.sha for _, c in commits if c.sha}
    out = []
    # The printed commits by subject, in order: a subject that is no merge's
    # default one is the same only as itself (same_subject), so only those
    # printed with it are looked at (a long session printed hundreds; each
    # unnamed commit scanned them all).
    by_subject: dict[str, list[Commit]] | None = None
    by_time: list[Commit] | None = None  # `printed` in time order, sorted once
    mine: list[Commit] | None = None
    for label, c in commits:
        if not c.sha and c.subject:
            from vibe_vault.fold.subjects import same_subject  # (loaded only when needed)

            if by_subject is None:
                by_subject = {}
                for p in printed:
                    by_subject.setdefault(p.subject, []).append(p)
            for p in by_subject.get(c.subject, []):
                if p.sha not in known and p.ts >= c.ts and same_subject(p.subject, c.subject):
                    c = msgspec.structs.replace(c, sha=p.sha)
                    known.add(p.sha)
                    break
        elif not c.sha and c.merged:
            from vibe_vault.fold.subjects import merge_of  # (loaded only when needed)

            # A merge git made its own subject for: the first printed later
            # with it names it, subject and all.
            for p in printed:
                if p.sha not in known and p.ts >= c.ts and merge_of(p.subject, c.merged):
                    c = msgspec.structs.replace(c, sha=p.sha, subject=p.subject)
                    known.add(p.sha)
                    break
        if not c.sha:
            # (until its branch is rebased: a tip pushed after names the new
            # commit, which _rewritten tells as such)
            # (or a reset takes it off: one of its own line before it does not)
            until = min((*(r.ts for r in rewrites if r.branch == c.branch and r.ts >= c.ts),
                         *(r.ts for r in resets if r.branch == c.branch and r.folder == c.folder
                           and (r.ts > c.ts or (r.ts == c.ts and r.after)))), default="~")
            if by_time is None or mine is None:
                by_time = sorted(printed, key=lambda p: p.ts)
                mine = [x for _, x in commits]
            tip = _pushed_tip(c, mine, by_time, c.ts, until)
            if tip and tip not in known:
                c = msgspec.structs.replace(c, sha=tip)
                known.add(tip)
        out.append((label, c))
    return out


def _pushed_tip(c: Commit, commits: list[Commit], printed: list[Commit], since: str,
                until: str) -> Redacted:
    """The sha a `git push` reported as the tip of `c`'s branch (`a..b  main
    -> main`) at or after `since` and before `until`, when `c` was that tip:
    the latest commit made on the branch (in its repository) before the push,
    none after `c` (by any agent). "" when no push tells it. `printed` is
    in time order (sorted once by the caller: a session's hundreds of printed
    commits were sorted again for each commit asked of)."""
    if not c.branch or not c.ts:
        return Redacted("")
    for p in printed:
        if p.how != PUSHED or p.branch != c.branch or p.folder != c.folder \
                or not since <= p.ts < until or p.ts < c.ts:
            continue
        # (commits of one line share its time: their order is the list's)
        after = False
        for o in commits:
            if o is c:
                after = True
            elif o.branch == c.branch and o.folder == c.folder and (
                    c.ts < o.ts <= p.ts or (o.ts == c.ts and after)):
                return Redacted("")  # (a later commit of the branch: the tip is not `c`)
        return p.sha
    return Redacted("")


def work_of(state: SessionState) -> Work:
    files: dict[str, FileWork] = {}
    commands: list[tuple[str, Command]] = []
    commits: list[tuple[str, Commit]] = []
    made_by: list[int] = []  # beside each of `commits`: id() of the Fold it is of
    errors: list[tuple[str, ErrorRec]] = []
    unnamed: list[tuple[str, Unnamed]] = []
    files_dropped = commands_run = commands_dropped = errors_dropped = pushes = idle = 0
    by_label: dict[str, Fold] = {}
    elsewhere: dict[str, int] = {}
    pushed: list[Push] = []
    forced: list[Forced] = []
    cwd = state.fold.cwd
    agents = agents_of_tasks(state)
    everyone = doers(state, agents)
    for d in everyone:
        f = d.fold
        by_label.setdefault(d.label, f)
        for path, change in f.files.items():
            key, worktree = repo_file(path, cwd)
            fw = files.get(key)
            if fw is None:
                fw = files[key] = FileWork(change=FileChange())
            if path not in fw.paths:
                fw.paths.append(path)
            if worktree and worktree not in fw.worktrees:
                fw.worktrees.append(worktree)
            merged = fw.change
            # (made by the first to change it: a file one agent made is made)
            merged.fresh = merged.fresh or (change.fresh and not merged.ops)
            for op in change.ops:
                if op not in merged.ops:
                    merged.ops.append(op)
            merged.added += change.added
            merged.removed += change.removed
            merged.outside_added += change.outside_added
            merged.outside_removed += change.outside_removed
            # Changes made to copies of it in more than one place (worktrees
            # merged later): their sum, not what the merged file holds.
            merged.estimated = merged.estimated or change.estimated or len(fw.paths) > 1
            merged.uncounted = merged.uncounted or change.uncounted
            merged.gone = change.gone  # (as the last agent to change it left it)
            merged.moved_from = merged.moved_from or change.moved_from
            if change.times:  # when any agent changed it, at any of its paths
                merged.times = sorted({*merged.times, *change.times})
            merged.times_cut = merged.times_cut or change.times_cut
            if d.label not in fw.by:
                fw.by.append(d.label)
        files_dropped += f.files_dropped
        unnamed.extend((d.label, u) for u in f.unnamed)
        commands.extend((d.label, c) for c in f.commands)
        commands_run += f.commands_run
        commands_dropped += f.commands_dropped
        commits.extend((d.label, c) for c in f.commits)
        made_by.extend(id(f) for _ in f.commits)
        errors.extend((d.label, e) for e in f.errors)
        errors_dropped += f.errors_dropped
        pushes += f.pushes
        idle += f.pushes_idle
        pushed.extend(f.pushed)
        forced.extend(f.forced)
        for folder, times in f.pushed_elsewhere.items():
            elsewhere[folder] = elsewhere.get(folder, 0) + times
    printed = [c for d in everyone for c in d.fold.printed]
    # A subagent's commit the main agent's log showed is the subagent's own
    # where its file holds it (fold.git.logged).
    theirs = {c.sha for _, c in commits if c.sha and c.how != BY_SUBAGENT}
    keep = [k for k, (_, c) in enumerate(commits) if c.how != BY_SUBAGENT or c.sha not in theirs]
    commits, made_by = [commits[k] for k in keep], [made_by[k] for k in keep]
    rewrites = [r for d in everyone for r in d.fold.rewrites if not r.to]
    resets = [r for d in everyone for r in d.fold.rewrites if r.to]
    commits = _named(commits, printed, tuple(rewrites), tuple(resets))
    # Commits made in a throwaway repository (fold.git.scratch_of) are probes:
    # counted apart, never among the session's (review 30 #3, #18).
    probes = sum(1 for _, c in commits if c.scratch)
    if probes:
        keep = [k for k, (_, c) in enumerate(commits) if not c.scratch]
        commits, made_by = [commits[k] for k in keep], [made_by[k] for k in keep]
    # Stable sorts: each agent's own order is kept among equal stamps.
    commands.sort(key=lambda lc: lc[1].ts)
    order = sorted(range(len(commits)), key=lambda k: commits[k][1].ts)
    commits, made_by = [commits[k] for k in order], [made_by[k] for k in order]
    kept = _rewritten(commits, rewrites, printed)
    undone = 0
    if resets:
        kept, undone = _reset(kept, resets, [f for d in everyone for f in d.fold.forks],
                              printed)
    commits = [(commits[k][0], c) for k, c in kept]
    commits_by: dict[int, int] = {}
    for k, _ in kept:
        commits_by[made_by[k]] = commits_by.get(made_by[k], 0) + 1
    counts = _git_lines(everyone, cwd)
    trees = [(repo_file(str(p), cwd)[0], ts, d.label) for d in everyone
             for p, ts in d.fold.removed_trees.items()]
    committed = _committed_only(files, commits, cwd, trees, counts)
    _git_counted(files, committed, counts, commits, cwd)
    errors.sort(key=lambda le: le[1].ts)
    tests = ""
    runs = sorted([*commands, *((MAIN, c) for c in state.fold.hook_tests),
                   *((MAIN, c) for c in state.fold.user_tests)], key=lambda lc: lc[1].ts)
    last: Command | None = None
    for _, c in runs:
        if c.kind == "test" and c.status in ("ok", "failed", "unknown"):
            # (a run whose result is unknown says nothing of the last run)
            tests = {"ok": "passed", "failed": "failed"}.get(c.status, "")
            last = c
    failing_before = passed = -1
    if tests == "passed" and last is not None and last.passed > 0 and last.failed <= 0:
        same = " ".join(str(last.command).split())
        first = next((c for _, c in runs if c.kind == "test" and c is not last
                      and " ".join(str(c.command).split()) == same), None)
        if first is not None and first.failed > 0:
            failing_before, passed = first.failed, last.passed
    tops = project_tops([cwd, *(str(c.folder) for _, c in commits if c.folder), *elsewhere])
    scratch = {path: why for path in files if (why := scratch_words(path, tops))}
    changed = [path for path, fw in files.items()
               if not no_net_change(fw.change) and path not in scratch]
    return Work(files=files, changed=changed, files_dropped=files_dropped, commands=commands,
                commands_run=commands_run, commands_dropped=commands_dropped, commits=commits,
                errors=errors, errors_dropped=errors_dropped, pushes=pushes,
                pushed_elsewhere=elsewhere, pushed=pushed, tests=tests,
                tests_failing_before=failing_before,
                tests_passed=passed,
                by_label=by_label, commits_by=commits_by, unnamed=unnamed,
                committed=committed, agents=agents, doers=everyone, scratch=scratch,
                scratch_commits=probes, pushes_idle=idle, undone=undone, forced=forced)


_TEMP = TEMP_FOLDER
# Every match of `_TEMP` holds "tmp/", "temp/" or "/var/folders/": a path
# with none of them is in no temporary folder, told without the search (the
# pattern, tried at every place of a path, cost ~3 µs a path; a Stop asks it
# of every root, changed file and shown path, some 300 times).


def _in_temp(low: str) -> re.Match[str] | None:
    """`_TEMP.search(low)`: where `low` (lower-cased, with `/`) is in a
    temporary folder, None when it is in none."""
    if "tmp/" not in low and "temp/" not in low and "/var/folders/" not in low:
        return None
    return _TEMP.search(low)


def temp_top(path: str) -> str:
    """The first folder in a temporary folder that `path` is in, as written
    ("/tmp/bench/" for /tmp/bench/src/a.py); "" when not in one."""
    slashed = path.replace("\\", "/")
    found = _in_temp(slashed.lower())
    if found is None or found.start() != 0:
        return ""
    below = slashed[found.end():].split("/")
    return slashed[:found.end()] + below[0] + "/" if len(below) > 1 and below[0] else ""


def project_tops(roots: list[str]) -> list[str]:
    """The folders a path in a temporary folder or Claude Code's is the
    project's in, each once, as `scratch_words` compares a path with them (lower-cased, with
    `/`): `roots` (the session's folder, the repositories its commits and
    pushes went to), of a root in a temporary folder its first folder there
    (a clone in `/tmp/bench` holds the project's files). Worked out once for
    all of a session's files, not again for each (a Stop of a session with
    100 commits and 128 files ran the pattern 17,000 times)."""
    tops: list[str] = []
    for k, root in enumerate(roots):
        top = root.replace("\\", "/").lower().rstrip("/")
        if not top or (k and _claude_scratch(top + "/")):
            # A repository in Claude's scratchpad (a worktree made there to
            # try a fix: fffff083's `scratchpad/nits`) is scratch, its files
            # too, unless the session itself runs there (`roots[0]`).
            continue
        inside = _in_temp(top + "/")
        if inside is not None:  # (a root in a temporary folder: its first folder there)
            top = (top + "/")[:inside.end()] + (top + "/")[inside.end():].split("/", 1)[0]
            top = top.rstrip("/")
        if top not in tops:
            tops.append(top)
    return tops


# Claude Code's own folder, `~/.claude/` in a home (lower-cased, with `/`; a
# project's own `.claude/` is not it), and what it keeps there by name.
_CLAUDE_HOME = lazy(r"^(?:~|/users/[^/]+|/home/[^/]+|/root|/var/root|[a-z]:/users/[^/]+)"
                    r"/\.claude/")
_CLAUDE_FILES = (("/memory/", "memory"), ("claude.md", "memory"), ("/settings", "settings"),
                 ("/todos/", "todos"), ("/plans/", "plan"), ("/agents/", "agents"),
                 ("/commands/", "commands"), ("/skills/", "skills"))


def _claude_scratch(low: str) -> bool:
    """Whether `low` (lower-cased, with `/`, in a temporary folder) is in
    Claude Code's scratchpad (`/private/tmp/claude-501/<project>/<session>/scratchpad/`)."""
    found = _in_temp(low)
    return found is not None and "/scratchpad/" in low[found.end():] and "/claude" in low


def scratch_words(path: str, tops: list[str]) -> str:
    """What `path` is when it is not the project's, as its row says it: a
    file in a temporary folder (`/tmp/x_test.go`, Claude's own scratchpad
    under `…\\AppData\\Local\\Temp\\claude\\…\\scratchpad`), or in Claude
    Code's own folder (`~/.claude/projects/<project>/memory/MEMORY.md`), that
    is in none of the project's folders (`project_tops`; a session in
    `~/.claude` itself changes its own files). "" for the project's."""
    low = path.replace("\\", "/").lower()
    found = _in_temp(low)
    home = _CLAUDE_HOME.search(low) if found is None and ".claude/" in low else None
    if found is None and home is None:
        return ""
    for top in tops:
        if low == top or low.startswith(top + "/"):
            return ""
    if home is not None:
        rest = low[home.end() - 1:]
        what = next((w for part, w in _CLAUDE_FILES if part in rest), "own file")
        return f"Claude Code's {what}, outside the project"
    if found is not None and _claude_scratch(low):
        return "scratch: Claude's scratchpad, outside the project"
    return "scratch: a temporary file, outside the project"


# What the transcript tells of such a file: no change to it was seen by this
# name. Not that Claude's tools did not change it (an edit through a symlink of
# another name, CLAUDE.md -> AGENTS.md, review 20 N2), nor that no tool call
# named it (`git add AGENTS.md` does, review 21 F3). Said plainly (review 26
# #19, #25): git made it in the commit (`create mode`: it was untracked),
# removed it, or it had changed outside what the session showed.
COMMITTED = "committed; changed outside this session's edits"
COMMITTED_NEW = "committed as it was (untracked before)"
COMMITTED_GONE = "committed as deleted (outside this session's edits)"


def _committed_only(files: dict[str, FileWork], commits: list[tuple[str, Commit]],
                    cwd: str, trees: list[tuple[str, str, str]],
                    counts: dict[str, GitLines]) -> dict[str, FileWork]:
    """Files a commit of the session holds by git's own words (`create mode`,
    a stat line, what `git add` named and git's count agrees with) that no
    tool of the session changed (written by a program it ran, or before
    it): listed too, their lines not known. One under a folder a command of
    the session removed whole before the commit (`rm -rf d/`: `trees`, by
    repository path, when, by whom), that git does not say it made, was
    deleted by that command: it joins `files` as the session's deletion
    (review 30 #12: f5a2606b's four, "committed as deleted (outside this
    session's edits)")."""
    out: dict[str, FileWork] = {}
    for label, c in commits:
        for path in c.files:
            key, worktree = repo_file(path, cwd)
            if key in files or key in out:
                continue
            rec = counts.get(key)
            tree = next((t for t in trees if key.startswith(t[0].rstrip("/") + "/")
                         and (not c.ts or not t[1] or t[1] <= c.ts)), None)
            if tree is not None and (rec is None or rec.mode != "create"):
                files[key] = FileWork(change=FileChange(
                    ops=[DELETED_BY_COMMAND], uncounted=True, estimated=True, guessed=True,
                    gone=True, times=[tree[1]] if tree[1] else []),
                    by=[tree[2]], worktrees=[worktree] if worktree else [], paths=[path])
                continue
            out[key] = FileWork(change=FileChange(ops=[COMMITTED], uncounted=True,
                                                    estimated=True, guessed=True,
                                                    times=[c.ts] if c.ts else []),
                                  by=[label], worktrees=[worktree] if worktree else [],
                                  paths=[path])
    return out


def _git_lines(everyone: list[Doer], cwd: str) -> dict[str, GitLines]:
    """What git's output last said of each file's lines, any agent's, by the
    file's path in the session's repository."""
    out: dict[str, GitLines] = {}
    for d in everyone:
        for path, rec in d.fold.git_lines.items():
            key = repo_file(str(path), cwd)[0]
            was = out.get(key)
            if was is None or rec.ts >= was.ts:
                out[key] = msgspec.structs.replace(
                    rec, mode=rec.mode or (was.mode if was is not None else ""),
                    added=rec.added if rec.added >= 0 or was is None else was.added,
                    removed=rec.removed if rec.added >= 0 or was is None else was.removed)
            elif rec.mode and not was.mode:
                was.mode = rec.mode
    return out


def _git_counted(files: dict[str, FileWork], committed: dict[str, FileWork],
                 counts: dict[str, GitLines], commits: list[tuple[str, Commit]],
                 cwd: str) -> None:
    """Where the session's own figures of a file are not known ("?") or
    estimated ("≈"), or it only committed the file, git's own count is shown
    when git printed one after the file's last change and no more than one
    commit of the session holds the file by then (else the count is of the
    last commit only). A file only committed says what git made of it."""
    if not counts:
        return
    for key, fw in [*files.items(), *committed.items()]:
        rec = counts.get(key)
        if rec is None:
            continue
        change = fw.change
        only = key in committed
        if only and change.ops == [COMMITTED] and rec.mode:
            change.ops = [COMMITTED_NEW if rec.mode == "create" else COMMITTED_GONE]
        if rec.added < 0 or (change.times and rec.ts < change.times[-1] and not only):
            continue
        if not only and not lines_mark(change):
            continue  # (the session's exact figures: its net lines, as the table says)
        held = sorted(c.ts for _, c in commits if c.ts and any(
            repo_file(str(p), cwd)[0] == key for p in c.files))
        if len(held) > 1:
            # Two commits or more hold it: git's count of one is not the
            # file's (review 32 #5: 233712ad's src/style.css showed the
            # last commit's +27 −8 alone); the sum of each one's, where git
            # counted each, or the session's own figures.
            summed = _summed(rec.told, held, [] if change.times_cut else change.times)
            if summed is None or change.times_cut:
                continue
            change.added, change.removed = summed
        else:
            change.added, change.removed = rec.added, rec.removed
        change.estimated = change.guessed = change.uncounted = False
        if GIT_COUNTED not in change.ops:
            change.ops.append(GIT_COUNTED)


def _summed(told: list[tuple[str, int, int]], held: list[str],
            times: list[str]) -> tuple[int, int] | None:
    """A file's lines over the commits that hold it (`held`: when each was
    made, in order): the sum of what git counted of each (its own output, or
    the staged count printed since the commit before it, with no change of
    the file between that count and the commit); None when one commit has
    no such count, or the file changed after the last."""
    added = removed = 0
    since = ""
    for made in held:
        counted = [x for x in told if since < x[0] <= made]
        if not counted:
            return None
        at, plus, minus = counted[-1]
        if any(at < t <= made for t in times):
            return None  # (changed after git counted it: not what was committed)
        added, removed, since = added + plus, removed + minus, made
    if any(t > held[-1] for t in times):
        return None
    return added, removed


_FOLDED = ("fixup! ", "squash! ")


def _autosquashed(out: list[tuple[int, Commit]],
                  rewrite: Rewrite) -> list[tuple[int, Commit]]:
    """The commits after a `git rebase --autosquash` of their branch: each
    `fixup! S` or `squash! S` made on it before goes into the first commit
    there whose subject is S (it exists no more; that one counts it,
    `folded`), as git does."""
    gone: set[int] = set()
    for k, (_, c) in enumerate(out):
        if c.branch != rewrite.branch or not c.ts or c.ts > rewrite.ts:
            continue
        prefix = next((p for p in _FOLDED if c.subject.startswith(p)), "")
        if not prefix:
            continue
        wanted = c.subject[len(prefix):]
        while wanted.startswith(_FOLDED):  # `fixup! fixup! S`: into S's
            wanted = wanted[wanted.index("! ") + 2:]
        into = next((j for j in range(k) if j not in gone
                     and out[j][1].branch == c.branch and out[j][1].folder == c.folder
                     and out[j][1].subject == wanted), -1)
        if into >= 0:
            gone.add(k)
            at, t = out[into]
            out[into] = (at, msgspec.structs.replace(t, folded=t.folded + 1 + c.folded))
    return [x for k, x in enumerate(out) if k not in gone]


def _reset(out: list[tuple[int, Commit]], resets: list[Rewrite], forks: list[Fork],
           printed: list[Commit]) -> tuple[list[tuple[int, Commit]], int]:
    """The commits left after the session's `git reset`s (fold.git.taken_off),
    and how many were undone (review 31 F4: fffff083 re-cut its four commits
    seven times by `git reset -q --soft main` and committing again; its note
    listed 30). Each taken off is counted in the next commit made with its
    subject on its branch (`recut`), else as undone."""
    from vibe_vault.fold.git import taken_off  # (loaded only when needed)

    gone = taken_off([c for _, c in out], resets, forks, printed)
    undone = 0
    for k in sorted(gone):
        c = out[k][1]
        into = next((j for j in range(k + 1, len(out)) if c.subject
                     and out[j][1].subject == c.subject and out[j][1].branch == c.branch
                     and out[j][1].folder == c.folder), -1)
        if into < 0:
            undone += 1
            continue
        at, t = out[into]
        # (a cut git printed no files of holds what the cut it replaced held,
        # as far as the session tells: fffff083's last cut was quiet)
        out[into] = (at, msgspec.structs.replace(
            t, recut=t.recut + 1 + c.recut,
            files=t.files or c.files))
    return [x for k, x in enumerate(out) if k not in gone], undone


def _rewritten(commits: list[tuple[str, Commit]], rewrites: list[Rewrite],
               printed: list[Commit]) -> list[tuple[int, Commit]]:
    """The commits that exist at the end of the session, in time order: a
    `git commit --amend` replaces the latest commit before it on the same
    branch, whichever agent made it (an amend of a commit made before the
    session stays AMENDED with nothing it was); a `git rebase` of a branch
    gives the commits made on it before new shas, named by the commits it
    printed itself or the next output that printed their subject (else they
    are `stale`: rebased, the new sha unknown). Copies: the agents' facts
    stay each their own. Each is given with its place in `commits`."""
    out: list[tuple[int, Commit]] = []
    # (a fold by `--autosquash` comes in its place in time: an amend after it
    # replaces the commit a fixup went into, not the fixup)
    folds = sorted((r for r in rewrites if r.autosquash), key=lambda r: r.ts)
    for at, (_, c) in enumerate(commits):
        while folds and c.ts and folds[0].ts < c.ts:
            out = _autosquashed(out, folds.pop(0))
        if c.how == AMENDED and not c.was:
            k = next((k for k in range(len(out) - 1, -1, -1)
                      if out[k][1].branch == c.branch and out[k][1].folder == c.folder), -1)
            if k >= 0:
                c = msgspec.structs.replace(c, was=out[k][1].was or out[k][1].sha)
                del out[k]
        out.append((at, c))
    for rewrite in folds:
        out = _autosquashed(out, rewrite)
    later = sorted(printed, key=lambda p: p.ts)
    rewrites = sorted(rewrites, key=lambda r: r.ts)
    if rewrites:
        from vibe_vault.fold.subjects import same_subject  # (loaded only when needed)
    for i, rewrite in enumerate(rewrites):
        # What is printed after it, until the branch is rewritten again.
        until = next((r.ts for r in rewrites[i + 1:] if r.branch == rewrite.branch), "~")
        since = next((r.ts for r in reversed(rewrites[:i]) if r.branch == rewrite.branch), "")
        for k, (at, c) in enumerate(out):
            if c.branch != rewrite.branch or not c.ts or c.ts > rewrite.ts:
                continue
            # (or printed while the rebase was at work: a `git log` between
            # its `--continue`s, before it said it was done; review 31 F14)
            new = next((m.sha for m in rewrite.made if same_subject(m.subject, c.subject)), "") \
                or next((p.sha for p in later if rewrite.ts <= p.ts < until
                         and p.sha not in (c.sha, c.was) and c.subject
                         and same_subject(p.subject, c.subject)), "") \
                or next((p.sha for p in later if max(c.ts, since) < p.ts < rewrite.ts
                         and p.how != PUSHED
                         and p.sha not in (c.sha, c.was) and c.subject
                         and same_subject(p.subject, c.subject)), "")
            if not new:
                # The branch's tip a later push reported, when `c` is the
                # latest commit the rebase replayed on it (acc53d32: pull
                # --rebase, then `6c08f5a5..b02b3c07  main -> main`).
                tip = _pushed_tip(c, [x for _, x in out], later, rewrite.ts, until)
                new = tip if tip not in (c.sha, c.was) else ""
            out[k] = (at, msgspec.structs.replace(
                c, was=c.was or c.sha, how=REBASED, sha=new or c.sha, stale=not new))
    return out
