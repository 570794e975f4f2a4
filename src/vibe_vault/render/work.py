"""The sections of a note about the session's work: files changed, commits
and PRs, the commands' digest, errors, open threads, subagents, tokens and cost."""


from msgspec import Struct, field

from vibe_vault.figures import duration, n, plural, short_tokens, todo_list
from vibe_vault.markdown import cell, code, fenced
from vibe_vault.paths import readable, shown_path
from vibe_vault.render.page import Page, doer, status_word
from vibe_vault.state import AgentFold, ErrorRec
from vibe_vault.times import hhmm
from vibe_vault.work import MAIN

SECTION_ROWS = 200
COMMAND_ROWS = 100
ERROR_ROWS = 50
ERRORS_IN_FULL = 5  # the last errors, shown with their output; the earlier collapsed


def files(page: Page) -> list[str]:
    state, work = page.state, page.fig.work
    if not work.files:
        return []
    f = state.fold
    out: list[str] = []
    helped = any(fw.by != [MAIN] for fw in work.files.values())
    out.append("## Files changed")
    out.append("| File | Change | + | − |" + (" By |" if helped else ""))
    out.append("|---|---|--:|--:|" + ("---|" if helped else ""))
    items = sorted(work.files.items(), key=lambda kv: shown_path(kv[0], f.cwd))
    for path, fw in items[:SECTION_ROWS]:
        c = fw.change
        rel = shown_path(path, f.cwd)
        est = "≈" if c.estimated else ""
        ops = ", ".join(c.ops)
        by = f" {cell(', '.join(doer(b) for b in fw.by))} |" if helped else ""
        out.append(f"| {cell(code(rel))} | {ops} | {est}{c.added} | {est}{c.removed} |{by}")
    more = len(items) - SECTION_ROWS + work.files_dropped
    if more > 0:
        out.append(f"| … and {n(more)} more | | | |" + (" |" if helped else ""))
    out.append("")
    return out


class _Runs(Struct):
    """One distinct command of the digest: how often it ran, by whom, how it
    ended last, and how long all its runs took."""

    command: str
    kind: str
    runs: int = 0
    last: str = ""
    ms: int = 0
    timed: bool = False
    by: list[str] = field(default_factory=list)
    unseen: bool = False  # a run of it is not in the story (a subagent's, a turn not shown)


def commands(page: Page) -> list[str]:
    """A digest of the commands run (the story has each run in its place):
    tests and builds with their runs and last outcome, the rest collapsed."""
    state, work = page.state, page.fig.work
    if not work.commands:
        return []
    out: list[str] = []
    in_story = {a.tool_id for t in state.fold.turns for a in t.actions
                if a.kind == "bash" and a.tool_id}
    distinct: dict[str, _Runs] = {}
    for label, c in work.commands:
        shown = readable(c.command, state.fold.cwd)
        runs = distinct.get(shown)
        if runs is None:
            runs = distinct[shown] = _Runs(command=shown, kind=c.kind)
        runs.runs += 1
        runs.kind = c.kind if c.kind != "command" else runs.kind
        runs.last = status_word(c.status, c.code, c.kind) if c.status else "no result yet"
        ms = state.durations.get(c.tool_id) if c.tool_id else None
        ms = c.ms if ms is None else ms
        if ms is not None:
            runs.ms += ms
            runs.timed = True
        if label not in runs.by:
            runs.by.append(label)
        if label != MAIN or not c.tool_id or c.tool_id not in in_story:
            runs.unseen = True
    checks = [r for r in distinct.values() if r.kind in ("test", "build")]
    others = [r for r in distinct.values() if r.kind not in ("test", "build")]
    out.append("## Shell commands")
    hidden = work.commands_dropped
    if hidden:
        out.append(f"- … {plural(hidden, 'earlier command')} not kept")
    for r in checks:
        out.append(f"- {_runs_line(r)}")
    if checks and others:
        out.append("")
    if others:
        total = sum(r.runs for r in others)
        word = "other shell commands" if checks else "shell commands"
        word = word if total != 1 else word[:-1]
        # Listed here only when the story does not show them: no command twice.
        unseen = [r for r in others if r.unseen]
        if not unseen:
            out.append(f"*{n(total)} {word}, each in the story above.*")
        else:
            seen = "" if len(unseen) == len(others) else \
                f", {n(len(others) - len(unseen))} more in the story above"
            out.append(f"> [!note]- {n(total)} {word}{seen}")
            out.extend(f"> - {_runs_line(r)}" for r in unseen[-COMMAND_ROWS:])
            if len(unseen) > COMMAND_ROWS:
                out.append(f"> - … and {n(len(unseen) - COMMAND_ROWS)} more before these")
    out.append("")
    return out


def _runs_line(r: _Runs) -> str:
    what = f"{n(r.runs)} runs, last {r.last}" if r.runs > 1 else r.last
    took = f", {duration(r.ms)}" if r.timed and r.ms >= 1000 else ""
    helpers = [b for b in r.by if b]
    by = f" (by {', '.join(doer(b) for b in r.by)})" if helpers else ""
    return f"{code(r.command)} — {what}{took}{by}"


def commits(page: Page) -> list[str]:
    state, work = page.state, page.fig.work
    f = state.fold
    if not (work.commits or f.prs or work.pushes):
        return []
    out: list[str] = []
    out.append("## Commits and PRs")
    for label, c in work.commits:
        branch = f" on {code(c.branch)}" if c.branch else ""
        sha = code(c.sha) if c.sha else "*(git printed no sha)*"
        subject = f" {c.subject}" if c.subject else ""
        by = f" (by subagent *{label}*)" if label else ""
        out.append(f"- {sha}{subject}{branch}{by}")
    if work.pushes:
        out.append(f"- Pushed {plural(work.pushes, 'time')}")
    for p in f.prs:
        label = f"{p.repo}#{p.number}" if p.repo and p.number else p.url
        out.append(f"- PR [{label}]({p.url})")
    out.append("")
    return out


def errors(page: Page) -> list[str]:
    state, work = page.state, page.fig.work
    if not work.errors:
        return []
    out: list[str] = []
    out.append("## Errors")
    if work.errors_dropped:
        out.append(f"- … {n(work.errors_dropped)} earlier errors not shown")
    shown = work.errors[-ERROR_ROWS:]
    # The last few in full; the earlier ones a line each, collapsed: most were
    # fixed along the way, and the story says where.
    earlier, recent = shown[:-ERRORS_IN_FULL], shown[-ERRORS_IN_FULL:]
    if earlier:
        out.append(f"> [!failure]- {plural(len(earlier), 'earlier error')}")
        for label, e in earlier:
            first = readable(e.text, state.fold.cwd).partition("\n")[0]
            out.append("> " + _error_head(e, first, label))
        out.append("")
    for label, e in recent:
        first, _, rest = readable(e.text, state.fold.cwd).partition("\n")
        out.append(_error_head(e, first, label))
        if rest:
            out.extend("  " + line for line in fenced(rest))
    out.append("")
    return out


def _error_head(e: ErrorRec, first: str, label: str) -> str:
    """An error's line: when, which tool, who, its first line, and its fate."""
    fate = " — later succeeded" if e.later_ok else ""
    by = f" (subagent *{label}*)" if label else ""
    when = hhmm(e.ts)
    return f"- {when + ' ' if when else ''}**{e.tool}**{by}: {code(first)}{fate}"


def open_threads(page: Page) -> list[str]:
    """What was left to do at the end (todos pending or in progress), and,
    collapsed, what was done."""
    todos = todo_list(page.state)
    if not todos:
        return []
    out: list[str] = []
    left = [t for t in todos if t.status != "completed"]
    done = [t for t in todos if t.status == "completed"]
    out.append("## Open threads")
    for t in left:
        suffix = (" *(in progress)*" if t.status == "in_progress" else
                  " *(running in the background)*" if t.status == "background" else "")
        out.append(f"- [ ] {t.text}{suffix}")
    if not left:
        out.append("Nothing left open.")
    out.append("")
    if done:
        out.append(f"> [!done]- {len(done)} done")
        out.extend(f"> - [x] {t.text}" for t in done)
        out.append("")
    return out


def subagents(page: Page) -> list[str]:
    state = page.state
    f = state.fold
    if not f.subagents:
        return []
    out: list[str] = []
    by_agent: dict[str, AgentFold] = {
        af.fold.agent_id: af.fold for af in state.agents.values()
        if af.fold.agent_id and not af.foreign
    }
    out.append("## Subagents")
    for s in f.subagents:
        af = by_agent.get(s.agent_id) or f.progress.get(s.agent_id)
        calls = af.tool_calls if af is not None and af.tool_calls else s.tool_calls
        bits = [f"{calls} tool calls"]
        if af is not None:
            did = af.work
            if did.files:
                bits.append(f"{plural(len(did.files) + did.files_dropped, 'file')} changed")
            if did.commands_run:
                bits.append(plural(did.commands_run, "shell command"))
            if did.commits:
                bits.append(plural(len(did.commits), "commit"))
            # What it spent, from its own messages: not its final context size.
            used = sum(t.total for t in [*af.usage.values(), *af.settled.values()])
            if used:
                bits.append(f"{short_tokens(used)} tokens used")
        if s.ms:
            bits.append(duration(s.ms))
        if s.status and s.status != "completed":
            bits.append(s.status)
        if not s.status:  # no result came: not a subagent that did nothing
            bits.append("still at work" if state.status == "active" else
                        "unfinished: no result")
        desc = f": {s.description}" if s.description else ""
        out.append(f"- *{s.type}*{desc} ({', '.join(bits)})")
    if f.subagents_dropped:
        out.append(f"- … and {n(f.subagents_dropped)} more")
    out.append("")
    return out


def tokens(page: Page) -> list[str]:
    fig = page.fig
    if not fig.tokens:
        return []
    if len(fig.tokens) == 1 and not fig.unpriced:
        return []  # one model: the header has tokens and cost, the frontmatter the split
    out: list[str] = ["## Tokens and cost"]
    out.append("| Model | Input | Output | Cache read | Cache write | Cost |")
    out.append("|---|--:|--:|--:|--:|--:|")
    for model, t in fig.tokens.items():
        c = f"${fig.costs[model]:.2f}" if model in fig.costs else "unpriced"
        out.append(f"| {cell(model)} | {n(t.input)} | {n(t.output)} | {n(t.cache_read)} | "
                   f"{n(t.cache_creation)} | {c} |")
    t = fig.total
    out.append(f"| **Total** | {n(t.input)} | {n(t.output)} | {n(t.cache_read)} | "
               f"{n(t.cache_creation)} | **${fig.cost:.2f}** |")
    if fig.unpriced:
        out.append("")
        out.append(f"*No price known for {', '.join(fig.unpriced)}; not included in the cost.*")
    out.append("")
    return out
