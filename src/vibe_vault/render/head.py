"""The top and bottom of a session's note: the frontmatter (a table of fields),
the title with its summary and facts, and the heading of the user's section."""


from collections.abc import Callable

from vibe_vault.figures import short_tokens
from vibe_vault.markdown import cell, code, quote, tag, wikilink, yaml_list, yaml_str
from vibe_vault.render.page import Page
from vibe_vault.resume import resume_command
from vibe_vault.times import local_iso, started_line
from vibe_vault.vault import REWRITE_NOTICE, USER_HEADING, USER_HINT


def _or_null(value: str) -> str:
    return yaml_str(value) if value else "null"


def _when(ts: str) -> str:
    return local_iso(ts) if ts else "null"  # in the note's zone, with its offset


def _unless_zero(count: int) -> str | None:
    # Counts of what most sessions have none of are left out at zero (a
    # missing property reads as none in Obsidian and Dataview).
    return str(count) if count else None


def _link(target: str) -> str | None:
    return yaml_str(wikilink(target)) if target else None


# The frontmatter's fields in order, each with its value as YAML; a field whose
# value is None is left out.
FIELDS: tuple[tuple[str, Callable[[Page], str | None]], ...] = (
    ("type", lambda p: "session"),
    ("session_id", lambda p: yaml_str(p.state.session_id)),
    ("title", lambda p: yaml_str(p.fig.title)),
    ("aliases", lambda p: yaml_list([p.fig.title])),
    ("summary", lambda p: yaml_str(p.fig.summary)),
    ("project", lambda p: yaml_str(p.state.project)),
    ("started", lambda p: _when(p.state.fold.first_ts)),
    ("ended", lambda p: _when(p.state.fold.last_ts)),
    ("status", lambda p: p.state.status),
    ("end_reason", lambda p: _or_null(p.state.end_reason)),
    ("duration_minutes", lambda p: str(p.fig.wall_minutes)),
    ("active_minutes", lambda p: str(p.fig.active_minutes)),
    ("cwd", lambda p: _or_null(p.state.fold.cwd)),
    ("branch", lambda p: _or_null(p.state.fold.branches[-1] if p.state.fold.branches else "")),
    ("branches", lambda p: yaml_list(p.state.fold.branches)
     if len(p.state.fold.branches) > 1 else None),
    ("models", lambda p: yaml_list(p.fig.models)),
    ("claude_code_version", lambda p: _or_null(p.state.fold.version)),
    ("input_tokens", lambda p: str(p.fig.total.input)),
    ("output_tokens", lambda p: str(p.fig.total.output)),
    ("cache_read_tokens", lambda p: str(p.fig.total.cache_read)),
    ("cache_creation_tokens", lambda p: str(p.fig.total.cache_creation)),
    ("cost_usd", lambda p: f"{p.fig.cost:.4f}"),
    ("unpriced_models", lambda p: yaml_list(p.fig.unpriced) if p.fig.unpriced else None),
    ("tool_calls", lambda p: str(p.fig.tool_calls)),
    ("files_changed", lambda p: str(p.fig.files_changed)),
    ("prompts", lambda p: str(p.state.fold.prompts)),
    ("commands", lambda p: str(p.fig.work.commands_run)),
    ("errors", lambda p: _unless_zero(len(p.fig.work.errors) + p.fig.work.errors_dropped)),
    ("commits", lambda p: _unless_zero(len(p.fig.work.commits))),
    ("compactions", lambda p: _unless_zero(p.state.fold.compactions)),
    ("subagents", lambda p: _unless_zero(
        len(p.state.fold.subagents) + p.state.fold.subagents_dropped)),
    ("redactions", lambda p: _unless_zero(p.state.fold.redactions)),
    ("previous", lambda p: _link(p.state.previous)),
    ("next", lambda p: _link(p.state.next)),
    ("continues", lambda p: _link(p.state.continues)),
    ("continued_by", lambda p: yaml_list([wikilink(t) for t in p.state.continued_by])
     if p.state.continued_by else None),
    ("tags", lambda p: f"[session, {yaml_str(tag(p.state.project))}, {p.fig.activity}]"),
)


def frontmatter(page: Page) -> list[str]:
    lines = ["---"]
    for key, value_of in FIELDS:
        value = value_of(page)
        if value is not None:
            lines.append(f"{key}: {value}")
    lines.append("---")
    return lines


def heading(page: Page) -> list[str]:
    """The notice, the title, the summary and one paragraph of facts: project,
    time, tokens, cost, the resume command and the links to its neighbours."""
    state, fig = page.state, page.fig
    f = state.fold
    out = [REWRITE_NOTICE, f"# {fig.title}", quote(fig.summary), ""]
    project_note = f"Projects/{state.project}/{state.project}"
    facts = [f"**Project** {wikilink(project_note, state.project)}"]
    started = started_line(f.first_ts) if f.first_ts else ""
    if started:
        facts.append(f"**Started** {started}")
    if fig.wall_minutes:
        facts.append(f"**Duration** {fig.wall_minutes} min ({fig.active_minutes} active)")
    elif f.first_ts:
        facts.append("**Duration** under a minute")
    if len(fig.models) == 1:
        facts.append(f"**Model** {cell(fig.models[0])}")
    facts.append(f"**Tokens** {short_tokens(fig.total.total)}")
    facts.append(f"**Cost** ${fig.cost:.2f}" + (" + unpriced" if fig.unpriced else ""))
    if state.status == "active":
        facts.append("**Status** active")
    # One paragraph, its lines kept apart by hard breaks (a backslash at the end).
    head = [" · ".join(facts), f"**Resume** {code(resume_command(f.cwd, state.session_id))}"]
    nav = []
    if state.previous:
        nav.append(f"← {wikilink(state.previous, 'previous session')}")
    if state.continues:
        nav.append(f"continues {wikilink(state.continues, 'an earlier session')}")
    nav.extend(f"continued in {wikilink(t, 'a later session')}" for t in state.continued_by)
    if state.next:
        nav.append(f"{wikilink(state.next, 'next session')} →")
    if nav:
        head.append(" · ".join(nav))
    out.append("\\\n".join(head))
    out.append("")
    return out


def user_heading(page: Page) -> list[str]:
    """The heading below which the note is the user's (note.py keeps that part)."""
    return [USER_HEADING, USER_HINT]
