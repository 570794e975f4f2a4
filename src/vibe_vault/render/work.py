"""The sections of a note about the session's work: files changed, commits
and PRs, the commands' digest, errors, open threads, subagents, tokens and cost."""


from collections.abc import Callable

import msgspec
from msgspec import Struct, field

from vibe_vault import text as tx
from vibe_vault.figures import (
    OPEN_AFTER,
    OPEN_BEFORE,
    agents_unrecorded,
    duration,
    n,
    plural,
    question_words,
    short_tokens,
    side_ms,
    todo_list,
    tokens_by_task,
    unanswered_words,
    unnamed_words,
    unsent_words,
    usage_bound,
)
from vibe_vault.fold.files import change_words, lines_mark, no_net_change
from vibe_vault.fold.subagents import LAUNCHED, NOT_STARTED, SPAWNED
from vibe_vault.fold.todos import CLOSED_STATES, TEAM_DELETED
from vibe_vault.linked_files import changed_by_another_name, linked_words
from vibe_vault.markdown import (
    Md,
    cell,
    code,
    emphasis,
    fenced,
    indented,
    join,
    link,
    md,
    strong,
    text,
    text_before_colon,
)
from vibe_vault.paths import readable, runnable, shown_path
from vibe_vault.pricing import table
from vibe_vault.project import folder_name, repo_folder
from vibe_vault.redact import Redacted
from vibe_vault.render.head import not_priced, unrecorded, unrecorded_cost
from vibe_vault.render.page import Page, doer, part, parts, status_word
from vibe_vault.state import (
    BY_SUBAGENT,
    READ_KEY,
    URL_KEY,
    Command,
    Commit,
    ErrorRec,
    FileChange,
    Subagent,
    agent_kind,
)
from vibe_vault.times import hhmm
from vibe_vault.work import MAIN

SECTION_ROWS = 200
COMMAND_ROWS = 100
ERROR_ROWS = 50
ERRORS_IN_FULL = 5  # the last errors, shown with their output; the earlier collapsed
BLANK = md("")


def files(page: Page) -> list[Md]:
    state, work = page.state, page.fig.work
    if not work.files and not work.unnamed and not page.fig.committed:
        return []
    f = state.fold
    helped = any(fw.by != [MAIN] for fw in work.files.values())
    out = [md("## Files changed"),
           md("| File | Change | + | − |" + (" By |" if helped else "")),
           md("|---|---|--:|--:|" + ("---|" if helped else ""))]
    # Files are the repository's: shown from the session's folder in it.
    base = repo_folder(f.cwd)
    # Scratch (temporary files outside the project) after the project's files.
    items = sorted(((shown_path(path, base), path, fw) for path, fw in
                    [*work.files.items(), *page.fig.committed.items()]),
                   key=lambda x: (x[1] in work.scratch, x[0]))
    # One file by two names (an edit through a link, CLAUDE.md -> AGENTS.md):
    # one row, the name the session changed it by, saying the other as `vv
    # files` tells it, by git's count (the other name is not in fig.committed).
    linked = changed_by_another_name(work.files, work.committed,
                                     [c for _, c in work.commits], f.cwd or state.cwd_hint)
    for rel, path, fw in items[:SECTION_ROWS]:
        # (its line fingerprints are no part of the row)
        c = msgspec.structs.replace(fw.change, base=b"", now=b"")
        link = linked.get(path)
        out.extend(part(page, _file_row, rel, base, c, fw.worktrees,
                        fw.by if helped else None,
                        linked_words(change_words(c), link[1], path in work.files)
                        if link is not None else "", work.scratch.get(path, "")))
    more = len(items) - SECTION_ROWS + work.files_dropped
    if more > 0:
        out.append(md("| … and {} more | | | |" + (" |" if helped else ""), text(n(more))))
    # Files a command changed without naming them: a row each, lines not known.
    for label, u in work.unnamed:
        head, tool, tail = unnamed_words(u, base)
        by = md(" {} |", cell(doer(label))) if helped else BLANK
        space = " " if tail.startswith(" ") else ""  # (text() takes the ends' spaces off)
        out.append(md("| *{} {}" + space + "{}* | | ? | ? |{}", cell(text(head)), cell(code(tool)),
                      cell(text(tail)), by))
    out.append(BLANK)
    return out


def _file_row(rel: str, base: str, change: FileChange, worktrees: list[str],
              by: list[str] | None, words: str = "", scratch: str = "") -> list[Md]:
    """A file's row (`by`: who changed it, when the table says; `words`: what
    happened to it, when not its change's own; `scratch`: what it is, when
    not the project's: scratch, Claude Code's own file; not counted)."""
    mark = lines_mark(change)
    # Changed back to what it was: listed (it was worked on), not counted.
    moved_from = shown_path(change.moved_from, base) if change.moved_from else ""
    ops = text((words or change_words(change, moved_from)) + _in_worktrees(worktrees)
               + (f"; {scratch}, not counted" if scratch else ""))
    helpers = md(" {} |", cell(join(", ", (doer(b) for b in by)))) if by is not None else BLANK
    if mark == "?":  # written by a command that does not say its lines
        return [md("| {} | {} | ? | ? |{}", cell(code(rel)), cell(ops), helpers)]
    return [md("| {} | {} | " + mark + "{} | " + mark + "{} |{}",
               cell(code(rel)), cell(ops), change.added, change.removed, helpers)]


def _in_worktrees(names: list[str]) -> str:
    """Where a file of the repository was changed, when in its worktrees."""
    if not names:
        return ""
    return f" (worktree{'s' if len(names) > 1 else ''} {', '.join(names)})"


class _Runs(Struct):
    """One distinct command of the digest: how often it ran, by whom, how it
    ended last, and how long all its runs took."""

    command: str
    kind: str
    runs: int = 0
    last: str = ""
    ms: int = 0
    timed: bool = False
    untimed: bool = False  # a run of it has no time: the sum would say less than all ran
    by: list[str] = field(default_factory=list)
    unseen: bool = False  # a run of it is not in the story (a subagent's, a turn not shown)


def commands(page: Page) -> list[Md]:
    """A digest of the commands run (the story has each run in its place):
    tests and builds with their runs and last outcome, the rest collapsed."""
    state, work = page.state, page.fig.work
    if not work.commands:
        return []
    in_story = {a.tool_id for t in state.fold.turns for a in t.actions
                if a.kind == "bash" and a.tool_id}
    # All the digest is made of, beside the commands: what the tool hooks
    # timed, and which runs the story shows.
    timed = [state.durations.get(c.tool_id) if c.tool_id else None for _, c in work.commands]
    told = [label == MAIN and bool(c.tool_id) and c.tool_id in in_story
            for label, c in work.commands]
    return parts(page, _digest, work.commands, timed, told, state.fold.cwd,
                 work.commands_dropped)


def _digest(row: Callable[..., list[Md]], commands: list[tuple[str, Command]],
            timed: list[int | None], told: list[bool], cwd: str, hidden: int) -> list[Md]:
    """The digest of `commands` (label, command), each with the time the hooks
    took of it and whether the story shows it; `hidden` earlier ones not kept."""
    distinct: dict[str, _Runs] = {}
    in_the_story: dict[str, int] = {}  # runs the story shows, by command
    for (label, c), hooked, storied in zip(commands, timed, told, strict=True):
        shown = runnable(c.command, cwd)
        runs = distinct.get(shown)
        if runs is None:
            runs = distinct[shown] = _Runs(command=shown, kind=c.kind)
        runs.runs += 1
        runs.kind = c.kind if c.kind != "command" else runs.kind
        runs.last = status_word(c.status, c.code, c.kind) if c.status else "no result yet"
        ms = c.ms if hooked is None else hooked
        if ms is not None:
            runs.ms += ms
            runs.timed = True
        elif c.status and c.status != "background":
            runs.untimed = True
        if label not in runs.by:
            runs.by.append(label)
        if not storied:
            runs.unseen = True
        else:
            in_the_story[shown] = in_the_story.get(shown, 0) + 1
    checks = [r for r in distinct.values() if r.kind in ("test", "build")]
    others = [r for r in distinct.values() if r.kind not in ("test", "build")]
    out = [md("## Shell commands")]
    if hidden:
        out.append(md("- … {} not kept", text(plural(hidden, "earlier command"))))
    for r in checks:
        out.extend(row(_runs_row, "- {}", r, True))
    if checks and others:
        out.append(BLANK)
    if others:
        total = sum(r.runs for r in others)
        word = "other shell commands" if checks else "shell commands"
        word = word if total != 1 else word[:-1]
        # Listed here only when the story does not show them: no command twice.
        unseen = [r for r in others if r.unseen]
        if not unseen:
            out.append(md("*{} {}, each in the story above.*", text(n(total)), text(word)))
        else:
            # (runs, as the total counts them: a command run twice in the story is two)
            shown_runs = sum(in_the_story.get(r.command, 0) for r in others)
            seen = md(", {} of them in the story above", text(n(shown_runs))) \
                if shown_runs else BLANK
            out.append(md("> [!note]- {} {}{}", text(n(total)), text(word), seen))
            out.extend(_by_whom(row, unseen[-COMMAND_ROWS:]))
            if len(unseen) > COMMAND_ROWS:
                out.append(md("> - … and {} more before these",
                              text(n(len(unseen) - COMMAND_ROWS))))
    out.append(BLANK)
    return out


def _by_whom(row: Callable[..., list[Md]], rows: list[_Runs]) -> list[Md]:
    """The collapsed list's lines: a run of two or more commands by the same
    subagent(s) under one line naming them, not each line saying it again."""
    out: list[Md] = []
    i = 0
    while i < len(rows):
        j = i
        while j < len(rows) and rows[j].by == rows[i].by:
            j += 1
        if j - i > 1 and any(rows[i].by):
            out.append(md("> - By {}:", join(", ", (doer(b) for b in rows[i].by))))
            for r in rows[i:j]:
                out.extend(row(_runs_row, ">   - {}", r, False))
        else:
            for r in rows[i:j]:
                out.extend(row(_runs_row, "> - {}", r, True))
        i = j
    return out


def _runs_row(form: str, runs: _Runs, said_by: bool) -> list[Md]:
    """A command's line of the digest, as `form` places it."""
    return [md(form, _runs_line(runs, said_by))]


def _runs_line(runs: _Runs, said_by: bool = True) -> Md:
    what = f"{n(runs.runs)} runs, last {runs.last}" if runs.runs > 1 else runs.last
    took = f", {duration(runs.ms)}" if runs.timed and not runs.untimed and runs.ms >= 1000 else ""
    helpers = [b for b in runs.by if b]
    by = md(" (by {})", join(", ", (doer(b) for b in runs.by))) if helpers and said_by else BLANK
    # (a command with no words left to show, terminal escapes alone: no empty code span)
    named = code(runs.command) if runs.command.strip() else text("a command")
    return md("{} — {}{}", named, text(what + took), by)


def commits(page: Page) -> list[Md]:
    state, work = page.state, page.fig.work
    f = state.fold
    if not (work.commits or f.prs or work.pushes or work.scratch_commits or work.undone
            or work.forced):
        return []
    out = [md("## Commits and PRs")]
    for label, c in work.commits:
        out.extend(part(page, _commit_line, label, c))
    if work.undone:  # (review 31 F4: not the session's commits at the end)
        out.append(md("- {} undone by {} (the branch moved back past {}; not counted)",
                      text(plural(work.undone, "commit")), code("git reset"),
                      text("it" if work.undone == 1 else "them")))
    if work.scratch_commits:  # (probes: not the session's commits)
        out.append(md("- {} in a scratch repository (a temporary one the session made to "
                      "try something; not counted)", text(plural(work.scratch_commits, "commit"))))
    if work.pushes:
        elsewhere = [md("{} in {}", text("all" if times == work.pushes else n(times)),
                        code(folder_name(folder)))
                     for folder, times in sorted(work.pushed_elsewhere.items())]
        # A push that sent nothing (`Everything up-to-date`) is no push of
        # work: said apart (review 31 F8: "Pushed 5 times" for 3 that did).
        idle = work.pushes_idle
        moved = work.pushes - idle
        said = md(" ({})", join(", ", elsewhere)) if elsewhere else BLANK
        if not moved:
            out.append(md("- Pushed nothing new ({}: everything was up to date){}",
                          text(plural(idle, "push", "pushes")), said))
        else:
            out.append(md("- Pushed {}{}{}", text(plural(moved, "time")), said,
                          md(", and {} more with nothing new to send",
                             text(n(idle))) if idle else BLANK))
    for forced in work.forced:
        # A push that replaced what the remote's branch held is told as such,
        # with what it replaced (review 32 #11: a `--force` that dropped the
        # PR branch's commit read "Pushed 2 times").
        was = md(" ({})", text(forced.subject)) if forced.subject else BLANK
        where = md(" in {}", code(folder_name(forced.folder))) if forced.folder else BLANK
        out.append(md("- Force-pushed {}{}, replacing {}{} with {}", code(forced.ref), where,
                      code(forced.old), was, code(forced.new)))
    for p in f.prs:
        name = f"{p.repo}#{p.number}" if p.repo and p.number else p.url or f"#{p.number}"
        # (closed unmerged by the session: not work that went in, review 32 #9)
        merged = md(" (merged)") if p.merged else md(" (closed)") if p.closed else BLANK
        out.append(md("- PR {}{}", link(p.url, text(name)) if p.url else text(name), merged))
    out.append(BLANK)
    return out


def _commit_line(label: str, commit: Commit) -> list[Md]:
    """A commit's line (`label`: the subagent that made it, "" for the main agent)."""
    branch = md(" on {}", code(commit.branch)) if commit.branch else BLANK
    sha = code(commit.sha) if commit.sha else md("*(git printed no sha)*")
    if commit.stale:  # rebased: its old sha names no commit now
        sha = md("{} ({}; its new sha was not printed)", sha, text(commit.how))
    elif commit.was and commit.was != commit.sha:
        sha = md("{} → {} ({})", code(commit.was), sha, text(commit.how))
    elif commit.how:  # amended a commit made before the session
        sha = md("{} ({})", sha, text("message reworded" if commit.reworded else commit.how))
    # (a merge whose subject git made and no output printed: what it merged,
    # said as such, not as a subject: review 30 #2)
    subject = md(" {}", text(commit.subject)) if commit.subject else md(
        " (a merge of {})", code(commit.merged)) if commit.merged else BLANK
    by = md(" (by subagent {})", emphasis(label)) if label else BLANK
    fate = [md("squash-merged as {} (PR #{})", code(commit.landed), text(str(commit.landed_pr)))
            if commit.landed_pr else md("squash-merged as {}", code(commit.landed))
            ] if commit.landed else []
    if commit.recut:  # (review 31 F4: a branch cut again after `git reset`)
        fate.append(md("re-cut {} by {}: the earlier {} replaced by this one",
                       text("once" if commit.recut == 1 else f"{n(commit.recut)} times"),
                       code("git reset"),
                       text("commit" if commit.recut == 1 else "commits")))
    if commit.folded:
        fate.append(md("{} folded into it by {}", text(plural(commit.folded, "commit")),
                       code("--autosquash")))
    if commit.branch_deleted:
        fate.append(md("branch deleted"))
    after = md(" — {}", join("; ", fate)) if fate else BLANK
    where = md(" in {}", code(folder_name(commit.folder))) if commit.folder else BLANK
    return [md("- {}{}{}{}{}{}", sha, subject, branch, where, by, after)]


COMMAND_KEY = "cmd:"  # an error's key when a shell command failed (fold.commands)
ERROR_COMMAND_CHARS = 120


def errors(page: Page) -> list[Md]:
    state, work = page.state, page.fig.work
    if not work.errors:
        return []
    out = [md("## Errors")]
    if work.errors_dropped:
        out.append(md("- … {} earlier errors not shown", text(n(work.errors_dropped))))
    shown = work.errors[-ERROR_ROWS:]
    # The last few in full; the earlier ones a line each, collapsed: most were
    # fixed along the way, and the story says where.
    earlier, recent = shown[:-ERRORS_IN_FULL], shown[-ERRORS_IN_FULL:]
    cwd = state.fold.cwd
    if earlier:
        out.append(md("> [!failure]- {}", text(plural(len(earlier), "earlier error"))))
        for label, e in earlier:
            out.extend(part(page, _earlier_error, e, hhmm(e.ts), label, cwd))
        out.append(BLANK)
    for label, e in recent:
        out.extend(part(page, _recent_error, e, hhmm(e.ts), label, cwd))
    out.append(BLANK)
    return out


def _earlier_error(error: ErrorRec, when: str, label: str, cwd: str) -> list[Md]:
    """An earlier error's line, collapsed (`when`: its time as shown)."""
    first = error_headline(readable(error.text, cwd))[0]
    return [md("> {}", _error_head(error, first, label, cwd, when))]


def error_headline(said: str) -> tuple[str, str]:
    """An error's first line and the rest, where it is told in one line; a
    first line that ends on a colon only announces the next (`error: the
    following files have local modifications:`), and alone says nothing: the
    next is told on it. (Joined
    here, from lines each redacted as they were printed, not before redaction:
    a rule that reads a line from its start must see it so.)"""
    first, _, rest = said.partition("\n")
    if first.endswith(":") and rest:
        detail, _, rest = rest.partition("\n")
        first = f"{first} {detail}"
    return first, rest


def _recent_error(error: ErrorRec, when: str, label: str, cwd: str) -> list[Md]:
    """One of the last errors, with what it printed (`when`: its time as shown)."""
    said = readable(error.text, cwd)
    first, _, rest = said.partition("\n")  # (a colon's detail follows, in the block)
    command = _failed_command(error, cwd)
    named = bool(command) or (error.key.startswith(COMMAND_KEY) and bool(error.said.strip()))
    out = [_error_head(error, first, label, cwd, when, whole=True)]
    if named and said:
        rest = said  # under the command, all it printed
    if rest:
        out.extend(line for block in fenced(rest) for line in indented(block, "  "))
    return out


def _failed_command(error: ErrorRec, cwd: str) -> str:
    """The shell command that failed, as the story shows it ("" for another
    tool's error): its output's first line is not the error's name."""
    if not error.key.startswith(COMMAND_KEY):
        return ""
    if error.subject:  # (as the story shows it: its first real command, after assignments)
        return tx.one_line_command(runnable(error.subject, cwd), ERROR_COMMAND_CHARS)
    command = runnable(error.key[len(COMMAND_KEY):], cwd)
    heredoc = _HEREDOC.search(command)  # (the key's lines are joined: its text would follow)
    if heredoc is not None:
        command = command[:heredoc.end()] + " …"
    return tx.one_line_command(command, ERROR_COMMAND_CHARS)


_HEREDOC = tx.lazy(r"<<-?\s*(['\"]?)[A-Za-z_]\w*\1")


def _error_head(error: ErrorRec, first: str, label: str, cwd: str, when: str,
                whole: bool = False) -> Md:
    """An error's line: when (as shown), which tool, who, what failed (Claude's
    words for it, the command, the file, what it looked for, else the error's
    first line; a command's output follows it, in full when `whole`, else its
    first line beside it), and its fate."""
    fate = (md(" — later fixed by {}", code(tx.one_line_command(runnable(
        str(error.fixed_by), cwd), ERROR_COMMAND_CHARS))) if error.fixed_by
        else md(" — later succeeded") if error.later_ok else BLANK)
    if error.expected:  # (a red phase: Claude said it ran them to see them fail)
        fate = md(" — as Claude meant: it ran them to see them fail{}",
                  text(", and they later passed" if error.later_ok else ""))
    elif error.error_case:  # (Claude said it tried the error case: this was it)
        fate = md(" — as Claude meant: it tried the error case")
    by = md(" (subagent {})", emphasis(label)) if label else BLANK
    at = md("{} ", text(when)) if when else BLANK
    tool = strong(_tool_name(error.tool))
    # Claude's words for the call (a command's description, a subagent's
    # type and task), as the story tells them
    words = tx.one_line(error.said, 120).rstrip(".")
    said = md("{}: ", text_before_colon(words)) if words else BLANK
    command = _failed_command(error, cwd)
    told = md(" → {}", code(first)) if first and not whole else BLANK
    if command:
        return md("- {}{}{}: {}{} failed{}{}", at, tool, by, said, code(command), told, fate)
    if words and error.key.startswith(COMMAND_KEY):
        # a command with no words left to show (terminal escapes, blank
        # lines): named by its description alone, as the story names it
        return md("- {}{}{}: {} failed{}{}", at, tool, by, text(words), told, fate)
    subject = _error_subject(error, cwd)
    where = md(" in {}", code(shown_path(error.place, cwd))) if error.place else BLANK
    if subject:
        return md("- {}{}{}: {}{}{} → {}{}", at, tool, by, said, code(subject), where,
                  code(first), fate)
    if words:  # (a subagent: its type and task, as the story names it)
        return md("- {}{}{}: {}{} → {}{}", at, tool, by, emphasis(words), where, code(first),
                  fate)
    return md("- {}{}{}: {}{}", at, tool, by, code(first), fate)


def _tool_name(tool: str) -> str:
    """A tool as the story names it: `mcp__server__tool` as "server: tool"."""
    parts = tool.split("__")
    return f"{parts[1]}: {parts[-1]}" if tool.startswith("mcp__") and len(parts) >= 3 else tool


_SUBJECT_KEYS = ("file:", READ_KEY, URL_KEY)


def _error_subject(error: ErrorRec, cwd: str) -> str:
    """What another tool's error was about, when its call named it: the file
    an edit or a read was of (as the story shows paths), the page fetched,
    the pattern searched for, an MCP tool's main argument.
    "" for none: the error's words alone then say what failed."""
    kind = next((k for k in _SUBJECT_KEYS if error.key.startswith(k)), "")
    if not kind:
        return tx.one_line(readable(error.subject, cwd), ERROR_COMMAND_CHARS) \
            if error.subject else ""
    what = error.key[len(kind):]
    return what if kind == URL_KEY else shown_path(what, cwd)


def open_threads(page: Page) -> list[Md]:
    """What was left to do at the end (todos pending or in progress), and,
    collapsed, what was done."""
    todos = todo_list(page.state)
    end = page.fig.ending
    unsent = unsent_words(page.state, 1 << 30)
    if not todos and not end.unanswered and not end.question and not unsent:
        return []
    left = [t for t in todos if t.status not in CLOSED_STATES]
    done = [t for t in todos if t.status == "completed"]
    # (gone with their team's task list: not open, not said done either)
    with_team = [t for t in todos if t.status == TEAM_DELETED]
    out = [md("## Open threads")]
    # The transcript ends after a tool call (or with the request itself):
    # whatever was asked last was never answered, or is being worked on. Or
    # it ends on Claude asking the user (options, "should I …?"): nobody
    # answered it here, so what it asks is still to decide.
    out.extend(md("- [ ] {}", text(w)) for w in (unanswered_words(end), question_words(end)) if w)
    out.extend(md("- [ ] {}", text(w)) for w in unsent)
    for t in left:
        # Said as the records say it (figures.OPEN_BEFORE/OPEN_AFTER): one
        # source of these words; a command left running shown as code.
        status = str(t.status)
        after = OPEN_AFTER.get(status, "")
        words = code(t.text) if status == "command" else text(t.text)
        before = OPEN_BEFORE.get(status, "")
        out.append(md("- [ ] {}{}{}", md("{} ", text(before)) if before else BLANK, words,
                      md(" *({})*", text(after)) if after else BLANK))
    if not left and not end.unanswered and not end.question and not unsent:
        out.append(md("Nothing left open."))
    out.append(BLANK)
    if done:
        out.append(md("> [!done]- {} done", len(done)))
        out.extend(md("> - [x] {}", text(t.text)) for t in done)
        out.append(BLANK)
    if with_team:
        out.append(md("> [!note]- {} closed with the team (TeamDelete removed its task list)",
                      text(plural(len(with_team), "task"))))
        out.extend(md("> - {}", text(t.text)) for t in with_team)
        out.append(BLANK)
    return out


def subagents(page: Page) -> list[Md]:
    state = page.state
    f = state.fold
    if not f.subagents:
        return []
    out = [md("## Subagents")]
    told: set[int] = set()  # agents whose user's words are told (a resumed one: once)
    agents = page.fig.work.agents
    used_by_task = tokens_by_task(state, agents)
    shown = {c.sha: c for _, c in page.fig.work.commits if c.sha}
    shown.update((c.was, c) for _, c in page.fig.work.commits if c.was)
    for s, af, used in zip(f.subagents, agents, used_by_task, strict=True):
        # (an inline subagent's, where neither its file nor its result says)
        calls = af.tool_calls if af is not None and af.tool_calls else \
            s.tool_calls or s.side_calls
        # One still in the background, with no file of its own: how many calls
        # it made is not known (its notification would say), not none.
        at_work = s.status == LAUNCHED
        if s.status in (NOT_STARTED, SPAWNED):
            # No agent here did anything: a launch that failed, or a teammate
            # working in its own session (its words come as messages).
            out.extend(part(page, _subagent_line, agent_kind(s.type, s.name), s.description,
                            "did not start: its launch failed" if s.status == NOT_STARTED
                            else "a teammate, working in a session of its own"))
            continue
        bits = [] if at_work and not calls else [plural(calls, "tool call")]
        if af is not None:
            did = af.work
            changed = sum(1 for c in did.files.values() if not no_net_change(c))
            if changed or did.files_dropped:
                bits.append(f"{plural(changed + did.files_dropped, 'file')} changed")
            if did.commands_run:
                bits.append(plural(did.commands_run, "shell command"))
            made = page.fig.work.commits_by.get(id(did), 0)  # those that exist at the end
            if made:
                bits.append(plural(made, "commit"))
            # What it spent, from its own messages: not its final context size.
            if used:
                bits.append(f"{short_tokens(used)} tokens used")
        elif used:  # only its final answer is known: all it spent if it made no call
            bits.append(f"{'≥' if calls else ''}{short_tokens(used)} tokens used")
        if s.reported:
            bits.extend(_reported(s, af is None, shown))
        ms = s.ms or side_ms(s)
        if ms:
            bits.append(duration(ms))
        if s.status == "denied" and calls:  # the user stopped it at work, not before it began
            bits.append("stopped by the user")
        elif at_work:
            bits.append("running in the background" if state.status == "active" else
                        "still running in the background when the transcript ends")
        elif s.status and s.status != "completed":
            bits.append(status_word(s.status, None) if s.status.startswith("denied")
                        else s.status)
        if not s.status:  # no result came: not a subagent that did nothing
            bits.append("still at work" if state.status == "active" else
                        "unfinished: no result")
        out.extend(part(page, _subagent_line, agent_kind(s.type, s.name), s.description,
                        ", ".join(bits)))
        if af is not None and af.work.refusal_words and id(af) not in told:
            told.add(id(af))
            out.extend(md("  - You said, refusing its call: “{}”", text(tx.one_line(w, 300)))
                       for w in af.work.refusal_words)
    if f.subagents_dropped:
        out.append(md("- … and {} more", text(n(f.subagents_dropped))))
    if f.sidechain is not None:  # inline subagents (one file, not told apart)
        out.extend(md("- You said, refusing a subagent's call: “{}”", text(tx.one_line(w, 300)))
                   for w in f.sidechain.refusal_words)
    out.append(BLANK)
    return out


def _reported(s: Subagent, fileless: bool, shown: dict[Redacted, Commit]) -> list[str]:
    """The commits a subagent's report names that a later output showed as
    made by a subagent: counted here when its own file is not there to count
    them (they are in Commits). A sha its report names that is no commit of
    the note is not told at all: that no output shows it cannot be known (its
    own outputs may be in no file kept, a log printed it before it started, a
    push range holds it, or it is an example inside a longer id: review 32
    #12, #13, #19), and a sha a report mentions is not a commit it claims."""
    seen = [sha for sha in s.reported if sha in shown and shown[sha].how == BY_SUBAGENT]
    return [plural(len(seen), "commit")] if fileless and seen else []


def _subagent_line(kind: str, description: str, bits: str) -> list[Md]:
    """A subagent call's line: its type, what it was asked, what it did."""
    desc = md(": {}", text(description)) if description else BLANK
    return [md("- {}{} ({})", emphasis(kind), desc, text(bits))]


def tokens(page: Page) -> list[Md]:
    fig = page.fig
    if not fig.tokens:
        return []
    short = [md("*{}.*", text(unrecorded(fig.total, unrecorded_cost(
        fig, table(page.opts.pricing)))))] if fig.total.short else []
    if len(fig.tokens) == 1 and not fig.unpriced:
        # one model: the header has tokens and cost, the frontmatter the split
        return [md("## Tokens and cost"), *short, BLANK] if short else []
    out = [md("## Tokens and cost"),
           md("| Model | Input | Output | Cache read | Cache write | Cost |"),
           md("|---|--:|--:|--:|--:|--:|")]
    for model, t in fig.tokens.items():
        c = md("${:.2f}", fig.costs[model]) if model in fig.costs else md("unpriced")
        out.append(md("| {} | {:,} | {:,} | {:,} | {:,} | {} |", cell(text(model)),
                      t.input, t.output, t.cache_read, t.cache_creation, c))
    t = fig.total
    total = md("not priced") if not_priced(fig) else md("**${:.2f}**", fig.cost)
    out.append(md("| **Total** | {:,} | {:,} | {:,} | {:,} | {} |",
                  t.input, t.output, t.cache_read, t.cache_creation, total))
    if fig.unpriced:
        out.append(BLANK)
        out.append(md("*No price known for {}; not included in the cost.*",
                      text(", ".join(fig.unpriced))))
    if usage_bound(fig):
        out.append(BLANK)
        out.append(md("*{}.*", text(agents_unrecorded(fig))))
    if short:
        out.extend([BLANK, *short])
    out.append(BLANK)
    return out
