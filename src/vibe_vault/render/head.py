"""The top and bottom of a session's note: the frontmatter (a table of fields),
the title with its summary and facts, and the heading of the user's section."""


from collections.abc import Callable
from datetime import date

from vibe_vault.figures import (
    Figures,
    agents_unrecorded,
    claude_worked,
    recap_title,
    short_tokens,
    span_words,
    started_agents,
    usage_bound,
)
from vibe_vault.fold.titles import TOPICLESS_COMMANDS
from vibe_vault.markdown import (
    Md,
    cell,
    code,
    emphasis,
    join,
    label,
    link_words,
    md,
    quote,
    tag,
    text,
    wikilink,
    yaml_list,
    yaml_str,
    yaml_time,
)
from vibe_vault.pricing import Price, price_for, table, unpriced_names
from vibe_vault.redact import Redacted
from vibe_vault.render.page import Page
from vibe_vault.resume import resume_command
from vibe_vault.state import DETACHED, Fold, Tokens
from vibe_vault.times import day, hhmm, local_iso, started_line
from vibe_vault.vault import REWRITE_NOTICE, USER_HEADING, USER_HINT, project_note_path

BARE_NULL = md("null")


MODELS_SHOWN = 4  # in the header's facts; the frontmatter lists them all


def _branches(fold: Fold) -> list[Redacted]:
    return [b for b in fold.branches if b != DETACHED and b not in fold.branches_gone]


def _or_null(value: str) -> Md:
    return yaml_str(value) if value else BARE_NULL


def _when(timestamp: str) -> Md:
    # In the note's zone, with its offset.
    return yaml_time(local_iso(timestamp)) if timestamp else BARE_NULL


def _count(count: int) -> Md:
    return md("{}", count)


def _unless_zero(count: int) -> Md | None:
    # Counts of what most sessions have none of are left out at zero (a
    # missing property reads as none in Obsidian and Dataview).
    return md("{}", count) if count else None


def _aliases(p: Page) -> list[str]:
    """The note's names: its title, and the first sentence of Claude Code's
    latest recap of the session (what the work came to, in its words)."""
    recap = recap_title(p.state.fold)
    return [p.fig.title, recap] if recap and recap != p.fig.title else [p.fig.title]


def _link(target: str) -> Md | None:
    return yaml_str(wikilink(target)) if target else None


# The frontmatter's fields in order, each with its value as YAML; a field whose
# value is None is left out.
FIELDS: tuple[tuple[str, Callable[[Page], Md | None]], ...] = (
    ("type", lambda p: md("session")),
    ("session_id", lambda p: yaml_str(p.state.session_id)),
    ("title", lambda p: yaml_str(p.fig.title)),
    ("aliases", lambda p: yaml_list(_aliases(p))),
    ("summary", lambda p: yaml_str(link_words(p.fig.summary))),  # (as the body shows it)
    ("project", lambda p: yaml_str(p.state.project)),
    ("started", lambda p: _when(p.state.fold.first_ts)),
    ("ended", lambda p: _when(p.state.fold.last_ts)),
    ("status", lambda p: yaml_str(p.state.status)),
    ("end_reason", lambda p: _or_null(p.fig.end_reason)),
    ("duration_minutes", lambda p: _count(p.fig.wall_minutes)),
    ("active_minutes", lambda p: _count(p.fig.active_minutes)),
    ("cwd", lambda p: _or_null(p.state.fold.cwd)),
    # The branch the session ended on; `branches` every one it was on.
    # A detached HEAD is no branch: a session ending on one names none.
    ("branch", lambda p: _or_null("" if p.state.fold.branch == DETACHED
                                  else p.state.fold.branch)),
    # (not one it made and deleted again: review 31 F7)
    ("branches", lambda p: yaml_list(_branches(p.state.fold))
     if _branches(p.state.fold) not in ([], [p.state.fold.branch]) else None),
    ("models", lambda p: yaml_list(p.fig.models)),
    ("claude_code_version", lambda p: _or_null(p.state.fold.version)),
    ("input_tokens", lambda p: _count(p.fig.total.input)),
    ("output_tokens", lambda p: _count(p.fig.total.output)),
    ("cache_read_tokens", lambda p: _count(p.fig.total.cache_read)),
    ("cache_creation_tokens", lambda p: _count(p.fig.total.cache_creation)),
    # A session none of whose models has a known price has no cost: 0.0000
    # would read as free in a Dataview sum (review 29 #3); `unpriced_models`
    # names what a cost leaves out.
    ("cost_usd", lambda p: None if not_priced(p.fig) else md("{:.4f}", p.fig.cost)),
    ("unpriced_models", lambda p: yaml_list(p.fig.unpriced) if p.fig.unpriced else None),
    ("tool_calls", lambda p: _count(p.fig.tool_calls)),
    ("files_changed", lambda p: _count(p.fig.changed_file_count)),
    # Files the session only committed, which `files_changed` does not count
    # (the summary's "3 files committed"; review 27 #6).
    ("files_committed", lambda p: _unless_zero(len(p.fig.committed))),
    ("prompts", lambda p: _count(p.state.fold.prompts)),
    ("commands", lambda p: _count(p.fig.work.commands_run)),
    ("errors", lambda p: _unless_zero(len(p.fig.work.errors) + p.fig.work.errors_dropped)),
    ("commits", lambda p: _unless_zero(len(p.fig.work.commits))),
    ("compactions", lambda p: _unless_zero(p.state.fold.compactions)),
    ("subagents", lambda p: _unless_zero(started_agents(p.state.fold))),
    ("redactions", lambda p: _unless_zero(p.state.fold.redactions)),
    ("previous", lambda p: _link(p.state.previous)),
    ("next", lambda p: _link(p.state.next)),
    ("continues", lambda p: _link(p.state.continues)),
    ("continued_by", lambda p: yaml_list([wikilink(t) for t in p.state.continued_by])
     if p.state.continued_by else None),
    ("tags", lambda p: md("[session, {}, {}]", yaml_str(tag(p.state.project)),
                          yaml_str(p.fig.activity))),
)


def frontmatter(page: Page) -> list[Md]:
    lines = [md("---")]
    for key, value_of in FIELDS:
        value = value_of(page)
        if value is not None:
            lines.append(md(key + ": {}", value))
    lines.append(md("---"))
    return lines


def not_priced(fig: Figures) -> bool:
    """No model of the session has a known price: it has no cost to state."""
    return bool(fig.unpriced) and not fig.costs


def unrecorded(total: Tokens, extra: float) -> str:
    """What a client that wrote replies' usage before they ended left out, in
    a user's words (review 26 #5: "Output under-recorded … 56 replies' usage"
    was jargon, and in the note's first line)."""
    replies = "1 reply" if total.short == 1 else f"{total.short:,} replies"
    cost = f" (about ${extra:.2f})" if extra >= 0.005 else ""
    return (f"Tokens and cost are a little low: Claude Code saved the token counts of "
            f"{replies} before they were finished, about {short_tokens(total.unrecorded)} "
            f"output tokens{cost} short")


def unrecorded_cost(fig: Figures, prices: dict[str, Price]) -> float:
    """What the output tokens Claude Code left out would cost, by each model's price."""
    extra = 0.0
    for model, t in fig.tokens.items():
        price = price_for(str(model), prices) if t.unrecorded else None
        if price is not None:
            extra += t.unrecorded * price.output / 1_000_000
    return extra


# The share of the cost the output left out must add for the header to give
# the cost with it: less is said below, in "Tokens and cost".
UNRECORDED_SHARE = 0.1


def prompt_span(first: str, last: str) -> str:
    """`18:47–19:27`; a span that ends on another local day says which
    (`23:51–12:32 the next day`, `23:51–2025-10-06 12:32`), or it reads backwards."""
    a, b = day(first), day(last)
    if a == b:
        return f"{hhmm(first)}–{hhmm(last)}"
    days = (date.fromisoformat(b) - date.fromisoformat(a)).days
    if days == 1:
        return f"{hhmm(first)}–{hhmm(last)} the next day"
    return f"{hhmm(first)}–{b} {hhmm(last)}"


def heading(page: Page) -> list[Md]:
    """The notice, the title, the summary and one paragraph of facts: project,
    time, tokens, cost, the resume command and the links to its neighbours."""
    state, fig = page.state, page.fig
    f = state.fold
    out = [md(REWRITE_NOTICE), md("# {}", text(fig.title)), quote(fig.summary), md("")]
    project_note = project_note_path(state.project)
    facts = [md("**Project** {}", wikilink(project_note, label(state.project)))]
    if f.teammate:
        # (review 32 #22: which teammate of which team the session is)
        facts.append(md("**Teammate** {} of the agent team {}", emphasis(f.teammate),
                        emphasis(f.team_name)) if f.team_name else
                     md("**Teammate** {} of an agent team", emphasis(f.teammate)))
    elif f.team_name:
        facts.append(md("**Agent team** {} (this session leads it)", emphasis(f.team_name)))
    started = started_line(f.first_ts) if f.first_ts else ""
    if started:
        facts.append(md("**Started** {}", text(started)))
    if fig.wall_minutes:
        # "Active" said as what it is: the time Claude worked on the prompts
        # (the user's reading and typing between them is not in it), and when
        # the prompts came, for the conversation's own span.
        asks = [t.ts for t in f.turns if t.ts and (
            t.kind == "prompt" or (t.kind == "command"
                                   and t.text.split(" ", 1)[0] not in TOPICLESS_COMMANDS))]
        span = f"; prompts {prompt_span(asks[0], asks[-1])}" if len(asks) > 1 and (
            hhmm(asks[0]), day(asks[0])) != (hhmm(asks[-1]), day(asks[-1])) else ""
        facts.append(md("**Duration** {} (Claude worked {}{})", text(span_words(fig.wall_minutes)),
                        text(claude_worked(fig.active_minutes, fig.active_ms)), text(span)))
    elif f.first_ts:
        facts.append(md("**Duration** under a minute"))
    if len(fig.models) == 1:
        facts.append(md("**Model** {}", cell(text(fig.models[0]))))
    elif fig.models:
        # Every model, the main conversation's first; one only subagents used
        # says so (a reader looks here for what the session ran on).
        own = set(f.models)
        facts.append(md("**Models** {}", cell(text(", ".join(
            m if m in own or not own else f"{m} (subagents)" for m in fig.models[:MODELS_SHOWN])
            + (f" and {len(fig.models) - MODELS_SHOWN} more"
               if len(fig.models) > MODELS_SHOWN else "")))))
    # "≥" where a subagent's calls before its answer are not in the transcript:
    # the figures count only what was recorded (review 17, finding 14).
    bound = "≥" if usage_bound(fig) else ""
    facts.append(md("**Tokens** {}", text(bound + short_tokens(fig.total.total))))
    extra = unrecorded_cost(fig, table(page.opts.pricing)) if fig.total.short else 0.0
    # (only when the output Claude Code left out changes it much: then with it)
    more = f" (about ${fig.cost + extra:.2f} with the output Claude Code left uncounted)" \
        if extra >= 0.01 and extra >= UNRECORDED_SHARE * fig.cost else ""
    if not_priced(fig):
        facts.append(md("**Cost** not priced ({})",
                        text(", ".join(unpriced_names(fig.unpriced)))))
    else:
        facts.append(md("**Cost** {}${:.2f}" + (" + unpriced" if fig.unpriced else "") + "{}",
                        text(bound), fig.cost, text(more)))
    if usage_bound(fig):
        facts.append(md("**Subagent usage unrecorded** {}", text(agents_unrecorded(fig))))
    if state.status == "active":
        facts.append(md("**Status** active"))
    # One paragraph, its lines kept apart by hard breaks (a backslash at the end).
    head = [join(" · ", facts),
            md("**Resume** {}", code(resume_command(f.cwd, state.session_id)))]
    nav = []
    if state.previous:
        nav.append(md("← {}", wikilink(state.previous, label("previous session"))))
    if state.continues:
        nav.append(md("continues {}", wikilink(state.continues, label("an earlier session"))))
    nav.extend(md("continued in {}", wikilink(t, label("a later session")))
               for t in state.continued_by)
    if state.next:
        nav.append(md("{} →", wikilink(state.next, label("next session"))))
    if nav:
        head.append(join(" · ", nav))
    out.append(join("\\\n", head))
    out.append(md(""))
    return out


def user_heading(page: Page) -> list[Md]:
    """The heading below which the note is the user's (note.py keeps that part)."""
    return [md(USER_HEADING), md(USER_HINT)]
