"""Figures of a session: the numbers and words its note, its registry record
and its search document say about it, derived from the state alone (tokens and
cost by model, title, summary, kind of activity, minutes, counts), and the
formats they are written in.

Pure: the same state gives the same figures (no clock, no environment). No
Markdown here: `markdown.py` escapes, `render/` lays the note out.
"""


import itertools
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Self

import msgspec
from msgspec import Struct, field

from vibe_vault import pricing, running
from vibe_vault import text as tx
from vibe_vault.fold import active as fold_active
from vibe_vault.fold import add_tokens
from vibe_vault.fold import todos as todos_fold
from vibe_vault.fold.files import GIT_COUNTED, no_net_change, own_lines, unknown_lines
from vibe_vault.fold.story import STRUCTURED_RESULT, TEAM_TALK
from vibe_vault.fold.subagents import LAUNCHED, NOT_STARTED, SPAWNED
from vibe_vault.fold.titles import (
    PLAN_PREAMBLE,
    TITLE_CHARS,
    command_words,
    is_request,
    is_skill_title,
)
from vibe_vault.fold.usage import sum_tokens, with_output
from vibe_vault.linked_files import only_committed
from vibe_vault.paths import is_windows_path, readable
from vibe_vault.project import folder_name, repo_file, repo_folder
from vibe_vault.redact import Redacted
from vibe_vault.state import (
    AMENDED,
    FROM_TEAM,
    NOT_RUN,
    USER_SHELL,
    Action,
    AgentFold,
    Commit,
    Fold,
    Push,
    SessionState,
    Subagent,
    Todo,
    Tokens,
    Turn,
    Unnamed,
)
from vibe_vault.times import epoch, hhmm
from vibe_vault.work import (
    FileWork,
    Work,
    agents_of_tasks,
    streamed_only,
    temp_top,
    work_of,
)


class RenderOptions(Struct):
    pricing: dict[str, Any] = field(default_factory=dict)
    show_thinking: bool = False
    timezone: str = ""  # an IANA name times are told in; "": the system's



def options_for(cfg: Any) -> RenderOptions:
    """The rendering options a config sets."""
    return RenderOptions(pricing=cfg.get("pricing"), show_thinking=cfg.get("show_thinking"),
                         timezone=cfg.get("timezone"))



# -- formats ------------------------------------------------------------------


def n(count: int) -> str:
    return f"{count:,}"


def plural(k: int, word: str, many: str | None = None) -> str:
    """`1 file`, `3 files` (or the given plural)."""
    return f"{k} {word if k == 1 else (many or word + 's')}"


def short_tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1000:
        return f"{count / 1000:.0f}k"
    return str(count)


def whole_minutes(ms: float) -> int:
    """A span in whole minutes, rounded to the nearest (a half minute up):
    3 min 45 s is 4 min, not the 3 a floor says (review 17, finding 13)."""
    return int((ms + 30_000) // 60_000) if ms > 0 else 0


def claude_worked(minutes: int, ms: int = -1) -> str:
    """Claude's working time in words: "<1 min" when it worked, but less than
    a minute; "0 min" when it did not work at all (`ms` 0)."""
    if minutes <= 0:
        return "0 min" if ms == 0 else "<1 min"
    return span_words(minutes)


def span_words(minutes: int) -> str:
    """Whole minutes as people read them: "18 min", and past an hour hours and
    minutes, "23h 40m", not "1420 min" (review 19, finding 7)."""
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60}h {minutes % 60:02d}m"


def side_ms(sub: Subagent) -> int:
    """How long an inline subagent worked, from its first entry to its last
    (0 when its entries are not known)."""
    start, end = epoch(sub.side_from), epoch(sub.side_to)
    return max(0, round((end - start) * 1000)) if start is not None and end is not None else 0


def duration(ms: int) -> str:
    s = ms // 1000
    if s < 60:
        return f"{s}s" if s else f"{ms}ms"
    m = s // 60
    if m < 60:
        return f"{m}m {s % 60:02d}s" if m < 10 else f"{m}m"
    return f"{m // 60}h {m % 60:02d}m"


# -- derived figures -----------------------------------------------------------


def tokens_by_model(state: SessionState) -> dict[str, Tokens]:
    """Usage of every API message of the session (main and subagent files), each
    message counted once, by model."""
    agents = sorted((a for a in state.agents.values() if not a.foreign),
                    key=lambda a: a.fold.agent_id)
    recent = dict(state.fold.usage)
    # Each subagent's messages (by the agent's id): its file's, else its
    # streamed ones; and its models, the last being its final answer's.
    mine: dict[str, list[str]] = {}
    models: dict[str, list[Redacted]] = {}
    for af in agents:
        for key, t in af.fold.usage.items():
            old = recent.get(key)
            if old is None or t.output > old.output:
                recent[key] = t
        if af.fold.agent_id:
            mine.setdefault(af.fold.agent_id, []).extend(af.fold.usage)
            models.setdefault(af.fold.agent_id, []).extend(af.fold.models)
    # Usage streamed into progress lines counts for the agents whose own file
    # is not here: where it is, the file has every message of the agent.
    with_files = {af.fold.agent_id for af in agents if af.fold.agent_id}
    streamed = [(agent, pf) for agent, pf in sorted(state.fold.progress.items())
                if agent not in with_files]
    for agent, pf in streamed:
        for key, t in pf.usage.items():
            old = recent.get(key)
            if old is None or t.output > old.output:
                recent[key] = t
        mine.setdefault(agent, []).extend(pf.usage)
        models.setdefault(agent, []).extend(pf.models)
    _count_results(recent, _task_results(state), mine, models)
    parts = [*recent.values(), *state.fold.settled.values()]
    for af in agents:
        parts.extend(af.fold.settled.values())
    for _, pf in streamed:
        parts.extend(pf.settled.values())
    return dict(sorted(sum_tokens(parts).items()))


def _task_results(state: SessionState) -> list[Subagent]:
    """Every subagent whose Task result carries usage: the main agent's, an
    inline sidechain's and each subagent file's (a subagent's own Task)."""
    f = state.fold
    subs = [*f.subagents, *(f.sidechain.subagents if f.sidechain is not None else ())]
    for af in state.agents.values():
        if not af.foreign:
            subs.extend(af.fold.work.subagents)
    return [s for s in subs if s.usage is not None]


def _count_results(recent: dict[str, Tokens], subs: list[Subagent],
                   mine: dict[str, list[str]], models: dict[str, list[Redacted]]) -> None:
    """Count each Task result's usage once (`_count_result`): among the
    messages of its agent (`mine`), else of the session, the last with its
    prompt. An agent's are looked up in a table of its messages by prompt
    (made when first needed: counting a result changes no message's
    prompt), not scanned for each of its results (a Stop of a session of
    hundreds of subagent calls scanned thousands)."""
    last_of: dict[str, dict[tuple[int, int, int], str]] = {}
    # The agents whose table was made while a key of theirs that a result is
    # counted under (`result:<tool id>`) was not there yet: made again when it
    # comes, as the scan would then find it.
    waiting: dict[str, list[str]] = {}
    for sub in subs:
        if sub.usage is None:
            continue
        if not sub.agent_id:
            keys: list[str] | None = list(recent)
        else:
            table = last_of.get(sub.agent_id)
            if table is None:
                table = last_of[sub.agent_id] = {}
                for key in mine.get(sub.agent_id, ()):
                    t = recent.get(key)
                    if t is not None:
                        table[_prompt(t)] = key
                    elif key.startswith("result:"):
                        waiting.setdefault(key, []).append(sub.agent_id)
            last = table.get(_prompt(sub.usage))
            keys = [last] if last is not None else None
        if _count_result(recent, sub, keys, models.get(sub.agent_id, [])):
            last_of.clear()  # (a message's key taken by a result: made again)
            waiting.clear()
        for agent in waiting.pop(f"result:{sub.tool_id}", ()):
            last_of.pop(agent, None)


def _prompt(tokens: Tokens) -> tuple[int, int, int]:
    """A message's prompt: input, cache reads and cache writes."""
    return tokens.input, tokens.cache_read, tokens.cache_creation


def _count_result(recent: dict[str, Tokens], sub: Subagent, keys: list[str] | None,
                  models: list[Redacted]) -> bool:
    """Count a Task result's usage once. It is the usage of the subagent's
    last API message: where the agent's file or streamed lines hold that
    message (the same prompt: input, cache reads and writes), it is that
    message, whose output the result may count higher (the file was written
    before the answer ended: the larger count is kept, as for any message);
    else it is a message nothing else recorded (the final answer of a
    subagent streamed into progress lines, which stop before it), counted
    under the agent's model (unknown when nothing of the agent says it).
    Whether that replaced a message kept under the result's key."""
    u = sub.usage
    if u is None:
        return False
    prompt = _prompt(u)
    for key in reversed(keys or ()):
        t = recent.get(key)
        if t is not None and _prompt(t) == prompt:
            if u.output > t.output:
                recent[key] = with_output(t, u.output)
            return False
    model = models[-1] if models else Redacted("")
    key = f"result:{sub.tool_id}"
    replaced = key in recent
    recent[key] = msgspec.structs.replace(u, model=model)
    return replaced


def tokens_by_task(state: SessionState,
                   agents: list[AgentFold | None] | None = None) -> list[int]:
    """For each Task call of the session (`fold.subagents`, in order), the
    tokens its agent used: every message of the agent's file or streamed
    lines, and the final answer each of its Tasks' results carries (counted
    as `tokens_by_model` counts it, so that the agents' figures add up to
    their share of the model table). 0 when nothing tells the agent's
    messages. Calls naming one agent (a resumed one) show the same figure.
    A call whose agent nothing else tells has its result's final answer.
    `agents`: the state's `agents_of_tasks`, when the caller has them."""
    subs = state.fold.subagents
    agents = agents_of_tasks(state) if agents is None else agents
    runs: dict[int, list[Subagent]] = {}
    for s, af in zip(subs, agents, strict=True):
        if af is not None:
            runs.setdefault(id(af), []).append(s)
    used: dict[int, int] = {}
    out = []
    for s, af in zip(subs, agents, strict=True):
        if af is None:
            out.append(s.usage.total if s.usage is not None else 0)
            continue
        total = used.get(id(af))
        if total is None:
            recent = dict(af.usage)
            # The agent's last message of each prompt, looked up, not scanned
            # for each of its results (as _count_results does): counting a
            # result changes no message's prompt, and one that replaced a
            # message kept under its key makes the table again.
            last_of: dict[tuple[int, int, int], str] | None = None
            for s in runs[id(af)]:
                if s.usage is None:
                    continue  # (_count_result counts nothing of it)
                if last_of is None:
                    last_of = {}
                    for key in af.usage:
                        t = recent.get(key)
                        if t is not None:
                            last_of[_prompt(t)] = key
                last = last_of.get(_prompt(s.usage))
                if _count_result(recent, s, [last] if last is not None else None, af.models):
                    last_of = None
            total = used[id(af)] = sum(
                t.total for t in [*recent.values(), *af.settled.values()])
        out.append(total)
    return out


def copied_by_model(state: SessionState) -> dict[str, Tokens]:
    """Usage of the messages a fork copied from the session it was forked
    from (not this session's), each message once, by model."""
    f = state.fold
    return sum_tokens([*f.copied_usage.values(), *f.copied_settled.values()])


def title_of(state: SessionState, tagged: bool = True) -> str:
    """The note's title: Claude Code's own name for the session (custom > AI
    title > its summary, in its file or, as the index found, in another's),
    else its recap's or first request's words. `tagged`: with the day that
    tells it from the same title of another session of the project."""
    title = (named_title(state) or tx.one_line(state.told_elsewhere, 80)
             or fallback_title(state))
    return f"{title} ({state.title_tag})" if tagged and state.title_tag else title


def named_title(state: SessionState) -> str:
    """The title Claude Code gave the session in its own file, or "": the
    user's (/rename), else its AI title, else its summary. These are the names
    Claude Code's own session list shows, so the note is found by them; a
    recap written later does not rename the session (review 27, b86cc0a4:
    the AI title stands, the recap's first sentence is among the aliases)."""
    f = state.fold
    if f.custom_title:
        return f.custom_title
    if f.ai_title:
        return f.ai_title
    return tx.one_line(f.own_summary, 80)


def recap_title(f: Fold) -> str:
    """The first sentence of Claude Code's latest recap of the session, as a
    title would say it, or ""."""
    return _first_sentence(f.recaps[-1].text, 80) if f.recaps else ""


def fallback_title(state: SessionState) -> str:
    """The title when Claude Code gave none: the first request (the issue's
    order: what the user asked names the session; a recap Claude Code wrote
    mid-session tells the work so far in its own voice: review 27, e31e5543),
    else the latest recap's first sentence, the opening slash command, the
    first subagent's task, else the short id. A teammate of an agent team
    is asked by its lead: its first task, else the lead's first words."""
    f = state.fold
    first: str = f.first_prompt_title
    if first and is_skill_title(first, f):
        # A plugin's bare command ("claude-md-management:claude-md-improver")
        # says how, not what: its skill's own words say what was asked
        # (review 27 #4: b74fb8cb); else the session's first commit says what
        # came of it (review 19, finding 3).
        subject = next((str(c.subject) for c in f.commits
                        if c.subject.strip() and not c.scratch), "")
        about = str(f.skill_about) or subject
        if about[1:2].islower():  # (a sentence's first word goes on after a colon)
            about = about[:1].lower() + about[1:]
        if about:
            first = tx.title_line(f"{first}: {about}", TITLE_CHARS)
    if first and f.ticket_title and f.ticket in first:
        first = with_ticket(first, str(f.ticket_title))
    first = request_past_a_chore(f) or first
    # (a teammate's session: no prompt; its lead's first task or words for it)
    return (first or f.team_request or recap_title(f) or f.first_command_title
            or _task_title(f) or f"Session {state.session_id[:8]}")


# A git command that records in the repository: what a chore before the
# work asked ("examine them, add and commit", "pull", "push it"); not one
# that only looks (`git log`, `git checkout x && cat …`: 839b35f7 investigated).
_GIT_CHORE = (r"(?:^|&&|;|\|\|)\s*git\s+(?:-C\s+\S+\s+)?(?:commit|push|pull|merge|rebase"
              r"|stash|cherry-pick|tag)\b")
CHORE_SHARE = 10  # a chore's turn changed at most a tenth of the session's lines


def _lines_changed(t: Turn) -> int:
    return sum(a.added + a.removed for a in t.actions
               if a.kind == "edit" and a.status not in ("failed", "denied", "interrupted"))


def request_past_a_chore(f: Fold) -> str:
    """The title of the request that did the session's work, when the first
    request was a chore before it: its turn ran git's housekeeping (add,
    commit, pull, push…) and changed at most a tenth of the lines the
    session changed, and one later request's turn changed more than half of
    them (a7da6a22: "examine them, add and commit", 3 lines, then embedded
    tar support, most of 640). "" when the first request did the work, or no
    later one did most of it."""
    requests = [t for t in f.turns if t.kind == "prompt" and t.text.strip()
                and not tx.is_filler(str(t.text)) and t.text != "[image]"]
    if len(requests) < 2 or not any(a.kind == "bash" and tx.rx(_GIT_CHORE).search(a.text)
                                    for a in requests[0].actions):
        return ""
    lines = [_lines_changed(t) for t in requests]
    total = sum(lines)
    if not total or lines[0] * CHORE_SHARE > total:
        return ""
    most = max(range(1, len(requests)), key=lambda k: lines[k])
    if lines[most] * 2 <= total:
        return ""
    # (last, after the cheap tests: a title costs ~1 ms to work out, and this
    # runs at every Stop of a session Claude Code gave no title)
    if tx.title_line(str(requests[0].text), TITLE_CHARS) != f.first_prompt_title:
        return ""  # (a title not the first prompt's: a command's, a plan's)
    return tx.title_line(str(requests[most].text), TITLE_CHARS)


def with_ticket(request: str, ticket: str) -> str:
    """A request that names its ticket only by id, said by its verb and object
    ("let's debug - ENT-207 in linear" says "Debug ENT-207 in linear"), then
    the ticket's title as the session fetched it, without its asides, within
    the title's flex (review 26: e8106766)."""
    return tx.said_with_ticket(request, ticket, TITLE_CHARS)


def _task_title(f: Fold) -> str:
    """A session with no request of the user's in it (a fragment that opens
    with Claude handing work to a subagent) is about the work it handed over:
    the first subagent's description ("Debug failing test output"), in
    Claude's words as its call gave them (review 23 #2: df749439 read
    "Session df749439")."""
    if f.prompts:
        return ""
    return next((tx.one_line(s.description, TITLE_CHARS) for s in f.subagents
                 if s.description.strip()), "")


REQUEST_WORDS_CHARS = 400  # past any opening the titles share (80 characters), with room


def request_words(state: SessionState) -> str:
    """The first request's words, every line of it (its title keeps the first
    line's first 80 characters): what tells two sessions opened alike apart."""
    f = state.fold
    want = f.first_prompt_title
    if not want:
        return ""
    for t in f.turns:
        if t.kind == "prompt":
            text = str(t.text)
        elif t.kind == "command":
            name, _, args = t.text.partition(" ")
            text = (f"{command_words(name)}: {args.strip()}" if args.strip()
                    else command_words(name))
        else:
            continue
        title = tx.title_line(text, TITLE_CHARS)
        if want == title or want.startswith(f"{title} (after "):  # (a command's output)
            return tx.cut(" ".join(text.split()), REQUEST_WORDS_CHARS)
    return ""


def _first_sentence(text: str, limit: int) -> str:
    """The first sentence of a recap, as a title: what the session does, not
    to whom ("You're exploring how Entire stores session data in git" reads
    "Exploring how …": a recap speaks to the user, a title names the work;
    review 25 N11, b86cc0a4)."""
    if not text:
        return ""
    end = tx.rx(r"[.;!?](?:\s|$)").search(text)
    first = text[: end.start()] if end else text
    to_you = tx.rx(r"(?i)^(?:you(?:['\u2019]re| are)|we(?:['\u2019]re| are))\s+"
                   r"(?=\w+ing\b)").match(first)
    if to_you is not None:
        first = first[to_you.end():][:1].upper() + first[to_you.end() + 1:]
    return tx.one_line(first, limit)


class Figures(Struct):
    title: str
    summary: str
    activity: str
    tokens: dict[str, Tokens]
    costs: dict[str, float]  # USD by model, for the models with a price
    total: Tokens
    cost: float
    unpriced: list[str]
    wall_minutes: int
    active_minutes: int  # Claude's working time (fold.active), to the nearest minute
    changed_file_count: int  # the frontmatter's files_changed (a Record's is the list)
    # Files a commit of the session holds that no tool of it changed, less
    # another name of a file it changed (linked_files.only_committed): the
    # table's "committed …" rows, the summary's and `files_committed`.
    committed: dict[str, FileWork]
    tool_calls: int
    tests: str  # "", passed, failed
    work: Work  # the main agent's and the subagents' work together
    models: list[str]  # every model that produced usage, subagents' included
    end_reason: str  # why it ended, ", mid-turn" when the last request got no answer
    ending: "Ending"  # Claude's last answer, or the request left without one
    active_ms: int = 0  # the same, to the millisecond
    # Subagents whose API calls before their final answer the transcript does
    # not hold (`unrecorded_agents`), and the tool calls they made: the
    # session's tokens and cost are then at least the figures shown.
    agents_unrecorded: int = 0  # (those with a result: its usage is counted)
    agents_unrecorded_calls: int = 0
    agents_unfinished_unrecorded: int = 0  # (no result: none of their usage is known)
    # Background ones whose notification said they ended, with no file of
    # their own here: none of their usage is known, though they finished.
    agents_ended_unrecorded: int = 0


def figures(state: SessionState, opts: RenderOptions) -> Figures:
    f = state.fold
    priced = pricing.session_cost(tokens_by_model(state), pricing.table(opts.pricing),
                                  f.client_cost, copied_by_model(state))
    by_model, costs, unpriced = priced.rows, priced.costs, priced.unpriced
    total = Tokens(model=Redacted("all"))
    for t in by_model.values():
        add_tokens({"all": total}, t, "all")  # (the one sum of every count)
    cost = sum(costs.values())
    a, b = epoch(f.first_ts), epoch(f.last_ts)
    wall = whole_minutes((b - a) * 1000) if a is not None and b is not None else 0
    active = fold_active.active_ms(f)
    # Every tool call of the session: the main agent's, and each subagent's
    # once, from its file, its streamed entries, or the main file's sidechain.
    tool_calls = sum(f.tool_calls.values()) + sum(
        af.fold.tool_calls for af in state.agents.values() if not af.foreign
    ) + sum(pf.tool_calls for _, pf in streamed_only(state)) + (
        sum(f.sidechain.tool_calls.values()) if f.sidechain is not None else 0)
    work = work_of(state)
    tests = work.tests
    unrecorded = unrecorded_agents(state, work.agents)
    title = title_of(state)
    committed = only_committed(work.files, work.committed, [c for _, c in work.commits],
                               f.cwd or state.cwd_hint)
    # Every model that produced usage, in the order met: the main agent's,
    # then the subagents' (from their files, or their streamed messages).
    ordered: list[str] = []
    file_agents = [af for af in state.agents.values() if not af.foreign]
    with_files = {af.fold.agent_id for af in file_agents if af.fold.agent_id}
    for models in [f.models, *(af.fold.models for af in file_agents),
                   *(pf.models for a, pf in sorted(f.progress.items()) if a not in with_files)]:
        ordered.extend(m for m in models if m not in ordered)
    return Figures(
        title=title,
        summary=_summary(state, title, tests, work, committed),
        activity=_activity(state, work),
        tokens=by_model,
        costs=costs,
        total=total,
        cost=round(cost, 4),
        unpriced=unpriced,
        wall_minutes=max(wall, 0),
        active_minutes=whole_minutes(active),
        active_ms=active,
        changed_file_count=len(work.changed) + work.files_dropped,
        committed=committed,
        tool_calls=tool_calls,
        tests=tests,
        work=work,
        models=ordered,
        end_reason=end_reason(state),
        ending=ending(state),
        agents_unrecorded=sum(1 for s in unrecorded if s.usage),
        agents_unrecorded_calls=sum(s.tool_calls for s in unrecorded),
        agents_unfinished_unrecorded=sum(1 for s in unrecorded if s.usage is None
                                         and not ended_in_background(s)),
        agents_ended_unrecorded=sum(1 for s in unrecorded if s.usage is None
                                    and ended_in_background(s)),
    )


def started_agents(f: Fold) -> int:
    """The subagents the session ran: its launches but those that failed
    (review 29 #14: "Agent type 'x' not found" counted as a subagent)."""
    return len(f.subagents) + f.subagents_dropped - sum(
        1 for s in f.subagents if s.status == NOT_STARTED)


def ended_in_background(sub: Subagent) -> bool:
    """A background subagent whose end its notification told."""
    return sub.background and bool(sub.status) and sub.status != LAUNCHED


def usage_bound(fig: Figures) -> bool:
    """Whether the session's tokens and cost are only a lower bound: some
    subagent's API calls are not in the transcript."""
    return bool(fig.agents_unrecorded or fig.agents_unfinished_unrecorded
                or fig.agents_ended_unrecorded)


def agents_unrecorded(fig: Figures) -> str:
    """In words, what the subagents of `unrecorded_agents` left out."""
    parts = []
    if fig.agents_unrecorded:
        k, calls = fig.agents_unrecorded, fig.agents_unrecorded_calls
        made = f" ({plural(calls, 'tool call')} before it)" if calls else ""
        parts.append(f"only the final answer's usage of {plural(k, 'subagent')}{made}")
    if fig.agents_ended_unrecorded:  # (their transcripts are their own files: not here)
        k = fig.agents_ended_unrecorded
        parts.append(f"no usage of {plural(k, 'background subagent')}, whose own "
                     f"transcript{'s are' if k != 1 else ' is'} not in the session's folder")
    if fig.agents_unfinished_unrecorded:
        k = fig.agents_unfinished_unrecorded
        parts.append(f"no usage of {plural(k, 'subagent')} that had not finished")
    return (f"Claude Code recorded {' and '.join(parts)}: the session's tokens and cost "
            "are at least these")


def unrecorded_agents(state: SessionState,
                      agents: list[AgentFold | None] | None = None) -> list[Subagent]:
    """The subagents (Task calls) whose work before their final answer the
    transcript does not hold: no file of their own, no streamed progress
    lines, no entries in the main file (an inline one's), yet their result
    says they made tool calls (each an API message, and its usage, before the
    answer) or carries no usage at all. Only their final answer's usage (the
    result's) is counted (2.1.14 headless: c7d3d95c's Explore, 18 calls).
    `agents`: the state's `agents_of_tasks`, when the caller has them."""
    agents = agents_of_tasks(state) if agents is None else agents
    # (not a launch that failed: no agent ran; nor a teammate: its usage is
    # its own session's, in a transcript of its own)
    return [s for s, af in zip(state.fold.subagents, agents, strict=True)
            if af is None and not s.side_calls and not s.side_from
            and s.status not in (NOT_STARTED, SPAWNED)
            and (s.tool_calls > 0 or s.usage is None)]


def unnamed_words(u: Unnamed, base: str) -> tuple[str, str, str]:
    """Files a command changed without naming them, in words around the
    command's label: ("6 files reformatted by", "ruff format", ", not named");
    ("files copied into src/ by", "cp -r", …); a formatter that says nothing:
    "files reformatted, if any, by"."""
    label = str(u.label)
    said = [c for c in u.counts if c > 0]
    runs = f" ({len(u.counts)} runs)" if len(u.counts) > 1 else ""
    folder = str(u.folder)
    where = readable(folder, base) if folder and folder.rstrip("/") != base.rstrip("/") else ""
    if label in ("cp -r", "rsync", "cp"):
        return f"files copied into {where or '.'} by", label, f"{runs}, not named"
    place = f" in {where}" if where not in ("", ".", "./") else ""
    if "fix" in label:  # (its number is of the fixes, not of the files)
        fixes = f" ({plural(sum(said), 'fix', 'fixes')})" if said and len(said) == len(
            u.counts) else runs
        return "files fixed by", label, f"{place}{fixes}, not named"
    if said and len(said) == len(u.counts):
        head = f"{plural(said[0], 'file')} reformatted by" if len(said) == 1 else \
            f"files reformatted ({', then '.join(str(c) for c in said)}) by"
        return head, label, f"{place}, not named"
    return "files reformatted, if any, by", label, f"{place}{runs}, not named"


def _counted_by_git(work: Work, cwd: str) -> str:
    """Where the lines of files the session changed are not known, git's own
    count of the commits that hold them by name, said as git's and as what it
    covers (review 28: 9e953218's "+559 −596 … git counted +729 −10 in 4
    commits" read as two counts of the same lines): "of them" when those
    commits hold only such files (git's count is theirs, "; git counted +448
    −378 of them in commit `7e2d976`"); else "in all the files of" the
    commits, their repositories named where any is not the session's, and how
    many of the files they hold when not all."""
    unknown = {key for key, fw in work.files.items() if unknown_lines(fw.change)}
    holding = []
    held: set[str] = set()
    only_them = True
    for _, c in work.commits:
        keys = {repo_file(str(p), cwd)[0] for p in c.files}
        if not c.count or c.stale or not keys & unknown:
            continue
        holding.append(c)
        held |= keys & unknown
        # (git counted files it did not name to us, or files whose lines are known)
        only_them = only_them and c.count == len(keys) and keys <= unknown
    if not holding:
        return ""
    named = [f"`{c.sha}`" for c in holding if c.sha]
    where = (("commit " if len(named) == 1 else "commits ") + " and ".join(named)
             if len(named) == len(holding) and len(named) <= 2
             else plural(len(holding), "commit"))
    figure = f"; git counted +{sum(c.inserted for c in holding)} −{sum(c.deleted for c in holding)}"
    some = "" if len(held) == len(unknown) else f"{n(len(held))} of "
    if only_them:
        return f"{figure} of {some}them in {where}"
    others = [folder_name(str(c.folder)) for c in holding if c.folder]
    repos = ""
    if others:
        # (the files listed are of several repositories: which commits are whose)
        by = {name: others.count(name) for name in others}
        repos = f" in {others[0]}" if len(by) == 1 and len(others) == len(holding) else \
            "".join(f", {n(k)} of the commits in {name}" for name, k in by.items())
    return f"{figure} in all the files of {where}" + (
        f" holding {some}them" if some else "") + repos


def _git_count(work: Work, own: int) -> str:
    """Git's count of the session's commits (those it printed a stat for),
    when they hold more files than the session's own `own` changed ones
    (the most one commit holds, or all they name when each names all its
    files: two commits of the same files are not more): "160 files changed
    (+466 −1273, git's count of its commit"; of several, their changes
    summed and said so ("14 file changes in 2 commits (…"); "" when not
    larger."""
    told = [c for _, c in work.commits if c.count and not c.stale]
    if not told:
        return ""
    held = max(c.count for c in told)
    if all(len(set(c.files)) == c.count for c in told):
        held = len({str(p) for c in told for p in c.files})
    if held <= own:
        return ""
    lines = f"+{sum(c.inserted for c in told)} −{sum(c.deleted for c in told)}"
    if len(told) == 1:
        return f"{plural(told[0].count, 'file')} changed ({lines}, git's count of its commit"
    changes = sum(c.count for c in told)
    return (f"{plural(changes, 'file change')} in {len(told)} commits ({lines}, "
            "git's count of its commits")


def _summary(state: SessionState, title: str, tests: str, work: Work,
             committed: dict[str, FileWork]) -> str:
    """What the facts say was done (files changed where, tests and their last
    result, commits, PRs), then Claude's own words, labelled as Claude's and
    left out when the facts contradict them."""
    f = state.fold
    facts: list[str] = []
    # The project's files: scratch (temporary files outside it, Claude's
    # scratchpad) is listed in the table, never counted as its changes
    # (nor one made and deleted again: no file's lines).
    mine = [work.files[key] for key in work.changed]
    k = len(work.changed) + work.files_dropped
    main = _main_commit(work)
    # Git's count of the session's commits larger than its own edits show
    # (review 28 #13: subagents' edits, "160 files changed" in the commit
    # beside "2 files changed"): the commit that leads says git's count; the
    # session's own edits are said as such. With no commit to lead, git's
    # count leads, said as git's.
    by_git = _git_count(work, k)
    own = " by the session's own edits" if by_git else ""
    if by_git and main is None:
        facts.append(by_git + (f"; the session's own edits show {plural(k, 'file')}"
                               f"{_where(work, f.cwd)})" if k else
                               "; none by the session's own edits)"))
    elif work.changed or work.files_dropped:
        # The session's own edits: lines changed outside it between them (the
        # user's editor) are in the table's figures, said so there, not here.
        owns = [own_lines(fw.change) for fw in mine]
        added = sum(a for a, _ in owns)
        removed = sum(r for _, r in owns)
        also = sum(1 for fw in mine if fw.change.outside_added or fw.change.outside_removed)
        outside = "" if not also else "; the file also changed outside the session" \
            if len(mine) == 1 else f"; {n(also)} of them also changed outside the session"
        # Lines not known of a file (written by `echo … > f`, deleted unseen):
        # said apart, not summed in as +0 −0, nor making the others' figures ≈.
        unknown = sum(1 for fw in mine if unknown_lines(fw.change))
        # Estimated where a file's first or last content is not known, as in the table.
        est = "≈" if any(fw.change.estimated and not unknown_lines(fw.change)
                         for fw in mine) else ""
        counted = _counted_by_git(work, f.cwd)
        lines = (f" ({counted[2:]})" if counted else "") if unknown == len(mine) else \
            f" (+{est}{added} −{est}{removed}{outside}" + (
                f"; lines of {n(unknown)} not known{counted})" if unknown else ")")
        most = "" if main is not None else _most_changed(work, f.cwd)
        facts.append(f"{most} of {plural(k, 'file')} changed{lines}{_where(work, f.cwd)}"
                     if most else f"{plural(k, 'file')} changed{lines}{own}{_where(work, f.cwd)}")
    if committed and not (by_git and main is None) and not (
            main is not None and len(work.commits) == 1 and main.count == len(committed)
            and not (work.changed or work.files_dropped)):
        # (one commit of only these files says them, and its lines, with its subject)
        # Files only committed (changed before the session, or by a program):
        # git's count of them where it printed one for each. Said beside the
        # files changed too, so that the summary counts what the table lists
        # and the frontmatter's `files_committed` (review 27 #6: 10764452
        # read "3 files committed" beside `files_changed: 0` and nothing else).
        told = [fw.change for fw in committed.values() if GIT_COUNTED in fw.change.ops]
        other = "other file" if work.changed or work.files_dropped else "file"
        facts.append(plural(len(committed), other) + " committed" + (
            f" (+{sum(c.added for c in told)} −{sum(c.removed for c in told)}, git's count)"
            if len(told) == len(committed) else ""))
    # Files a formatter said it rewrote without naming them: said apart (they
    # may be some of the files above).
    for _, u in work.unnamed:
        head, label, tail = unnamed_words(u, repo_folder(f.cwd))
        if head[0].isdigit():
            facts.append(f"{head} {label}{tail}")
    made = _branches_made(work)
    if made:
        # A branch the session created is work done, pushed or not (review 26:
        # e4d579fb made one and ended before pushing it): named, up to two.
        names = [f"`{b}`" for b in made[:2]] + ([plural(len(made) - 2, "other")]
                                                if len(made) > 2 else [])
        facts.append(("branch " if len(made) == 1 else "branches ")
                     + " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1
                                    else names) + " created")
    if tests and work.tests_failing_before > 0:
        # The same tests before and after (review 26 #15: 12a546d1 read only
        # "tests passed at the last run", its 8 failing tests unsaid).
        facts.append(f"tests {work.tests_failing_before} failing → "
                     f"{work.tests_passed} passed at the last run")
    elif tests:
        facts.append("tests passed at the last run" if tests == "passed" else
                     "tests failing at the last run")
    lead = _committed(work)
    if lead:
        facts.insert(0, lead)  # what the session made of its work leads
    elif work.commits:
        facts.append(plural(len(work.commits), "commit") + _unpushed(work))
    if work.forced:
        # What the remote held before is gone from its branch: said, with
        # the sha replaced where one branch was (review 32 #11).
        refs = list(dict.fromkeys(f"`{x.ref}`" for x in work.forced))
        facts.append("force-pushed " + (
            f"{refs[0]} (replacing `{work.forced[-1].old}`)" if len(work.forced) == 1
            else " and ".join(refs) if len(refs) <= 2 else plural(len(refs), "branch", "branches")))
    if f.prs:
        # Named (up to two): what the session's work became, not only a count.
        # Its state where the session changed it: merged, or closed unmerged
        # (review 32 #9: a PR opened and closed read as delivered work).
        named = [(f"PR {p.repo}#{p.number}" if p.repo and p.number else
                  f"PR #{p.number}" if p.number else "")
                 + (" (merged)" if p.merged and p.number else
                    " (closed)" if p.closed and p.number else "") for p in f.prs]
        states = [x for x in (
            f"{sum(1 for p in f.prs if p.merged)} merged",
            f"{sum(1 for p in f.prs if p.closed and not p.merged)} closed") if x[0] != "0"]
        facts.append(", ".join(named) if len(f.prs) <= 2 and all(named)
                     else plural(len(f.prs), "PR") + (f" ({', '.join(states)})" if states else ""))
    ran = started_agents(f)
    at_work = len(todos_fold.running_in_background(f))
    if ran:
        unfinished = sum(1 for s in f.subagents if not s.status)
        said = [f"{unfinished} unfinished"] if unfinished else []
        said += [f"{at_work} running in the background"] if at_work else []
        facts.append(plural(ran, "subagent") + (f" ({', '.join(said)})" if said else ""))
    # Tasks are the todo list's (TodoWrite, TaskCreate); what the session left
    # running is said as what it is (review 31 F15: 5632e712's five tasks all
    # completed read "1 open task", a command still running in the background).
    listed = open_tasks(f)
    if listed:
        facts.append(plural(listed, "open task"))
    facts.extend(_left_words(todo_list(state), at_work))
    if f.api_errors and not f.has_assistant:
        facts.append("no answer: " + plural(f.api_errors, "API error"))
    if not work.changed and not work.files_dropped:
        # No edit tool changed a file; a commit says files changed all the
        # same (written by a command: `cat > f <<EOF`, `tee`, a redirection).
        if not (work.commits or work.unnamed):
            # Files changed outside it (a test's temporary folder, Claude's
            # scratchpad) are not the project's, but not nothing either: said
            # so beside the calls that made them (review 31 F12: 1656b075 read
            # "No files changed" and "it had edited edit_basic.txt, …").
            scratch = sum(1 for path in work.scratch
                          if path in work.files and not no_net_change(work.files[path].change))
            facts.insert(0, f"{plural(scratch, 'file')} edited outside the project "
                            "(not counted)" if scratch else "no files changed")
        # What was done leads; how much was asked and run follows it (79e9becd
        # read "4 prompts, 21 shell commands, no files changed, tests passed…").
        # (No prompt to count in a file that opens in a turn begun before it.)
        facts.extend([*([plural(f.prompts, "prompt")] if f.prompts else []),
                      *([plural(work.commands_run, "shell command")]
                        if work.commands_run else [])])
    text = ", ".join(facts)
    text = text[:1].upper() + text[1:] + "."
    words = _in_words(state, work)
    question = ending(state).question
    if question:
        # How it ended: on a question to the user nobody answered in the session.
        asked = _whole_question(question)
        words = f"{words} It ended with Claude asking: “{asked}”".strip() if asked else \
            f"{words} It ended on a question from Claude.".strip()
    return f"{text} {words}" if words else text


SUBJECT_CHARS = 72  # a commit's subject as a headline quotes it (git's own advice: 50-72)
# How many times the lines of the first commit another must have to be the
# one named instead: the first commit is what the first request made (review
# 25 M1: 063071b3's conventions, then two "simplify" commits), unless it was a
# small step before the change (a .gitignore line before the feature).
MAIN_COMMIT_TIMES = 3


def _main_commit(work: Work) -> Commit | None:
    """The commit a headline names: the session's first one with a subject,
    or a later one git counted more than MAIN_COMMIT_TIMES its lines; None
    when no commit of the session printed a subject."""
    told = [c for _, c in work.commits if str(c.subject).strip()]
    if not told:
        return None
    first = told[0]
    size = first.inserted + first.deleted
    bigger = [c for c in told[1:] if first.count and c.count
              and c.inserted + c.deleted > MAIN_COMMIT_TIMES * size]
    return max(bigger, key=lambda c: c.inserted + c.deleted) if bigger else first


def _committed(work: Work) -> str:
    """The session's commits by what they say (issue 29: lead with what was
    done): 'Committed “<subject>” (+N −M in K files) and 2 more (not
    pushed)', the subject of `_main_commit` as git printed it, its lines as
    git counted them when it did; "" when no commit printed a subject."""
    main = _main_commit(work)
    if main is None:
        return ""
    subject = tx.one_line(str(main.subject), SUBJECT_CHARS)
    counted = ("" if not main.count else plural(main.count, "file")
               if not (main.inserted or main.deleted)  # ("1 file changed" alone)
               else f"+{main.inserted} −{main.deleted} in {plural(main.count, 'file')}")
    more = len(work.commits) - 1
    unpushed = _unpushed(work).strip()[1:-1]  # (" (not pushed)", " (2 not pushed)")
    done = f"committed “{subject}”"
    if main.how == AMENDED and not main.was:
        # An amend of a commit made before the session (review 31 F9:
        # 8b89dece reworded one and read "Committed “test” (+2 −0 in 1
        # file)"): git's count is of the whole commit, not the session's lines.
        if main.reworded:
            done = f"reworded the last commit's message: “{subject}”"
            counted = f"now `{main.sha}`" if main.sha else ""
        else:
            done = f"amended the last commit, “{subject}”"
            counted = f"git's count of the whole commit: {counted}" if counted else ""
    if not more:
        told = ", ".join(x for x in (counted, unpushed) if x)
        return done + (f" ({told})" if told else "")
    return (done + (f" ({counted})" if counted else "")
            + f" and {n(more)} more" + (f" ({unpushed})" if unpushed else ""))


def _most_lines_in(work: Work) -> str:
    """The path of `_most_changed`'s file, or ""."""
    sized = [(fw.change.added + fw.change.removed, path) for path, fw in work.files.items()
             if path in work.changed and not unknown_lines(fw.change)]
    if len(work.changed) + work.files_dropped < 2 or not sized:
        return ""
    sized.sort(key=lambda x: -x[0])
    if sized[0][0] * 2 <= sum(size for size, _ in sized):
        return ""
    return sized[0][1]


# File stems too common to tell a sentence is about that file ("the main
# change", "an index of …").
_COMMON_STEMS = frozenset({"main", "index", "init", "__init__", "mod", "lib", "app", "util",
                           "utils", "test", "tests", "readme", "setup", "config", "types",
                           "common", "core", "base", "data", "file", "files", "page"})


_TEST_FILE = tx.lazy(r"(?i)(?:^|/)(?:tests?|spec|__tests__)/|(?:^|/)test_[^/]*$"
                    r"|[_.-](?:test|spec)s?\.[^/.]+$")


def _file_words(work: Work) -> tuple[str, ...]:
    """The words that name the file a headline leads with when no commit
    does (`_most_changed`): its name, and its stem when that is a word of its
    own ("telemetry" of telemetry.go); () when it leads with none."""
    if _main_commit(work) is not None:
        return ()
    path = _most_lines_in(work)
    if not path or _TEST_FILE.search(path.replace("\\", "/")):
        # (a test file holding most lines is how the fix was checked: Claude's
        # words of the fix say more, e8106766)
        return ()
    name = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name[1:] else ""
    keep = len(stem) >= 4 and stem.lower() not in _COMMON_STEMS
    return (name, stem) if keep else (name,)


def _most_changed(work: Work, cwd: str) -> str:
    """The file of the session that changed most of its lines (more than
    half of those known), where it is: "most lines changed in `telemetry.go`
    (cmd/entire/cli/telemetry/, +26 −2)"; "" when fewer than two files
    changed or no file holds most of the lines (a CLAUDE.md a third of them
    is not what a migration did: 7acd37a8)."""
    path = _most_lines_in(work)
    if not path:
        return ""
    change = work.files[path].change
    shown = readable(path, repo_folder(cwd)).replace("\\", "/")
    folder, _, name = shown.rstrip("/").rpartition("/")
    est = "≈" if change.estimated else ""
    where = f"{folder}/, " if folder and folder not in (".", "~") else ""
    return f"most lines changed in `{name}` ({where}+{est}{change.added} −{est}{change.removed})"


def _unpushed(work: Work) -> str:
    """How many of the session's commits no push of it sent: none of their
    repository's branch came after them (review 26 #10: 063071b3's three
    commits on a branch, never pushed, read as done; review 28: a commit made
    after the last push read as pushed). " (not pushed)" for all of them,
    " (2 not pushed)" for some; "" when every one was pushed (or went in by
    its pull request)."""
    left = sum(1 for _, c in work.commits if not c.landed and not c.sent and not any(
        pushed_after(p, c) for p in work.pushed))
    if not left:
        return ""
    return " (not pushed)" if left == len(work.commits) else f" ({n(left)} not pushed)"


def pushed_after(p: Push, c: Commit) -> bool:
    """Whether push `p` sent commit `c`: from its repository, of its branch
    (either not known: any), after it (at the same moment: the same command,
    unless it pushed before it committed)."""
    return p.folder == c.folder and (not p.ref or not c.branch or p.ref == c.branch) and (
        p.ts > c.ts or (p.ts == c.ts and not p.first))


QUESTION_CHARS = 160


def _whole_question(question: str) -> str:
    """The question Claude ended on as a headline quotes it: whole, else its
    last sentence (the one asking), whole; "" when neither fits QUESTION_CHARS
    (never cut mid-thought: review 26 #3, 839b35f7's "should I: 1. Delete the…")."""
    words = tx.one_line(question, 1 << 30)
    if len(words) <= QUESTION_CHARS:
        return words
    last = [x for x in tx.rx(r"(?<=[.!?:])\s+").split(words) if x][-1:]
    return last[0] if last and last[0].endswith("?") and len(last[0]) <= QUESTION_CHARS \
        and len(last[0].split()) >= 3 else ""


def _branches_made(work: Work) -> list[str]:
    """The branches the session's agents created, each once, in the order of
    the agents (the main one first)."""
    out: list[str] = []
    gone = {str(b) for d in work.doers for b in d.fold.branches_gone}
    for d in work.doers:
        out.extend(str(b) for b in d.fold.branches_made if str(b) not in out and str(b) not in gone)
    return out


def _where(work: Work, cwd: str) -> str:
    """Where the changed files are: the places holding the most of them, up
    to three (`place`)."""
    counts: dict[str, int] = {}
    base = repo_folder(cwd)  # (the files are the repository's)
    for path in work.changed:
        top = place(path, base)
        if top:
            counts[top] = counts.get(top, 0) + 1
    if not counts:
        return ""
    tops = sorted(counts, key=lambda k: (-counts[k], k))
    shown_tops, rest = tops[:3], len(tops) - 3
    # "in src/ and tests/"; files of the folder's top level by name: ": README.md"
    lead = " in " if any(t.endswith("/") for t in shown_tops) else ": "
    if rest > 0:
        return f"{lead}{', '.join(shown_tops)} and {plural(rest, 'other place')}"
    if len(shown_tops) == 1:
        return f"{lead}{shown_tops[0]}"
    return f"{lead}{', '.join(shown_tops[:-1])} and {shown_tops[-1]}"


@lru_cache(maxsize=64)  # (a backfill's sessions have a few folders each)
def _folders_of(base: str) -> tuple[str, ...]:
    """The folders of the session's folder `base`, worked out once for all
    the paths `place` is asked of (a note's hundred files split it again
    for each)."""
    return tuple(p for p in base.replace("\\", "/").split("/") if p)


def place(path: str, base: str) -> str:
    """The place a changed file is in: under the session's folder, its
    top-level folder (`src/`) or, at the top, the file itself; outside it,
    the folder beside the session's that holds it (the top folder below the
    one they share: `other-repo/` for `../other-repo/assets/x.svg`, however
    deep), or the shared folder itself for a file right in it. Files in
    folders of their own under one such folder (generated assets, a deep
    layout) are one place with the rest of it."""
    shown = readable(path, base).replace("\\", "/")
    parts = [p for p in shown.split("/") if p not in ("", ".")]
    if not parts:
        return ""
    outside = shown.startswith(("/", "~")) or parts[0] == ".." or is_windows_path(shown)
    if not outside:
        return parts[0] + "/" if len(parts) > 1 else parts[0]
    mine = _folders_of(base)
    if parts[0] == "..":
        # (relative to the session's folder: the folders gone up are shared)
        rest = list(itertools.dropwhile(lambda p: p == "..", parts))
        ups = len(parts) - len(rest)
        shared = list(mine[:len(mine) - ups]) if ups <= len(mine) else []
    else:
        n, most = 0, min(len(parts) - 1, len(mine))
        if is_windows_path(base):  # (Windows: a folder's name in any case)
            while n < most and parts[n].lower() == mine[n].lower():
                n += 1
        else:
            while n < most and parts[n] == mine[n]:
                n += 1
        shared, rest = parts[:n], parts[n:]
        if not shared and rest[0] == "~":  # (a home not written as the session's)
            shared, rest = rest[:1], rest[1:]
        if not shared:  # (a clone in /tmp: its folder there, not "tmp/")
            top = temp_top(shown)
            if top:
                return top
    if len(rest) > 1:
        return rest[0] + "/"
    return (shared[-1] + "/") if shared and shared[-1] != "~" else (rest[0] if rest else "")


SUMMARY_WORDS = 240
# Sentences that say nothing of the work: "Perfect!", "Done.", "Great, all set!"
_FILLER = tx.lazy(r"(?i)^(?:perfect|great|excellent|done|awesome|good|ok(?:ay)?|all set|"
                  r"sure|got it|nice|alright|understood)\b[\w ,]{0,20}[.!]?$")


class Ending(Struct):
    """How the session's last request ended: Claude's final answer to it, or
    none (the transcript ends after a tool call, or with the request itself)."""

    answer: str = ""  # the last real answer: text that ended a turn
    unanswered: bool = False  # the last request got no answer
    request: str = ""  # that request, one line ("" when the transcript does not hold it)
    at_work: bool = False  # unanswered, and the session is still running: not abandoned
    # Unanswered, and the transcript holds no request for it: it opens in a
    # turn begun before it (a continued session's file, an excerpt).
    no_request: bool = False
    question: str = ""  # the question the last answer ended on, with no reply after it
    # Unanswered, yet Claude made calls after the request: the transcript ends
    # mid-turn while it was still on it (e4d579fb, 79e9becd), not ignored.
    calls: int = 0  # the calls made after the last request
    did: str = ""  # what they had done: "created branch x and edited y.ps1"


MAX_DID = 3  # things told of what Claude had done on a last request still under way
_BRANCH_MADE = tx.lazy(r"(?:^|[\s;&|(])git(?:\s+-[Cc]\s+\S+)*\s+(?:checkout\s+-[bB]|switch\s+"
                       r"(?:-[cC]|--create|--force-create)|branch)\s+([^\s;&|)-][^\s;&|)]*)")


def _calls_of(a: Action) -> int:
    """The tool calls one condensed line stands for."""
    return max(a.times, a.reads + a.searches + a.listings, 1)


def _done_on(turns: list[Turn], made: list[str], commits: list[Commit],
             not_started: set[str]) -> str:
    """What the calls of these turns had done, as past participles after "it
    had": commits made (the fold's, since the request), then branches created
    (those the fold saw made) and files edited in the order done, and the
    subagents run, as one item (review 29 #11: "it had ran a subagent (A),
    ran a subagent (B) and ran a subagent (C)" named nothing else)."""
    out: list[str] = []
    if len(commits) == 1:
        subject = tx.one_line(str(commits[0].subject), 60)
        out.append(f"made the commit “{subject}”" if subject else "made a commit")
    elif commits:
        out.append(f"made {len(commits)} commits")
    agents: list[str] = []
    started = 0
    for t in turns:
        for a in t.actions:
            if a.kind == "bash" and a.status == "ok" and "git" in str(a.text):
                out.extend(f"created branch {m.group(1)}"
                           for m in _BRANCH_MADE.finditer(str(a.text)) if m.group(1) in made)
            elif a.kind == "edit" and a.status in ("ok", ""):
                name = str(a.text).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
                out.append(f"edited {name}")
            elif a.kind == "agent" and a.tool_id not in not_started:
                if not agents:
                    out.append("")  # (the subagents' place, filled in below)
                agents.append(tx.one_line(str(a.detail or a.text), 60))
                started += not a.status
    if agents:
        named = [n for n in dict.fromkeys(agents) if n]
        what = (f" ({'; '.join(named)})" if named and len(named) <= MAX_DID else "")
        verb = "started" if started == len(agents) else "run"
        out[out.index("")] = (f"{verb} a subagent{what}" if len(agents) == 1
                              else f"{verb} {len(agents)} subagents{what}")
    told = list(dict.fromkeys(out))[:MAX_DID]
    return _and(told)


def _and(items: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _only_team_talk(turn: Turn) -> bool:
    """A teammate's turn its team's messages woke in which Claude only
    answered them by message (a shutdown approved): no work, and its words
    are the team's, so the turn before it holds its last account."""
    return (turn.kind == FROM_TEAM and not turn.answer and not turn.more_actions
            and all(a.kind == "teammate" or (a.kind == "tool" and a.text in TEAM_TALK)
                    for a in turn.actions))


def ending(state: SessionState) -> Ending:
    """The last turn Claude worked in (a slash command that only printed, or a
    compaction with nothing after it, is no turn of work; a slash command
    given words to work on, `/plan add a CSV export`, is a request) decides: its kept
    text, if that ended the turn, is the session's last answer; if Claude's
    last word there was a tool call, or nothing came at all, the request that
    turn belongs to got no answer (unless the user interrupted it, or the
    Stop hook already told the answer the transcript has yet to bring)."""
    f = state.fold
    turns = f.turns
    k = len(turns) - 1
    while k >= 0 and ((turns[k].kind in ("command", "compact", "continued", USER_SHELL) and not (
            turns[k].answer or turns[k].actions or turns[k].more_actions
            or (turns[k].kind == "command" and is_request(turns[k].text))))
            or _only_team_talk(turns[k])):
        k -= 1
    if k < 0:
        return Ending()
    last = turns[k]
    if last.asked_answer:
        # (its later words answered a background task's news, not the request)
        return Ending(answer=str(last.asked_answer))
    if last.answer and not last.working:
        question = str(f.closing_question) if last.answer == f.last_answer else ""
        return Ending(answer=str(last.answer), question=question)
    if state.provisional:
        return Ending(answer=str(state.provisional))
    final = last.actions[-1] if last.actions else None
    if final is not None and (final.kind == "interrupt" or final.status == "denied"):
        return Ending()  # the user stopped it: the story says so
    if final is not None and final.kind in ("question", "plan") and not final.status:
        return Ending()  # Claude waits on the user, who has the question or the plan before them
    if f.api_errors and not f.has_assistant:
        return Ending()  # told as "no answer: N API errors"
    # (a teammate's turn: its team's messages asked, no one text of them)
    at = next((i for i in range(k, -1, -1) if turns[i].kind in ("prompt", "command", FROM_TEAM)),
              -1)
    asked = turns[at] if at >= 0 else None
    request = tx.one_line(asked.text, 120) if asked is not None and asked.kind != FROM_TEAM \
        else ""
    since = turns[at:k + 1] if asked is not None else []
    calls = sum(_calls_of(a) for t in since for a in t.actions) + sum(t.more_actions for t in since)
    return Ending(unanswered=True, request=request, at_work=state.status == "active",
                  no_request=asked is None, calls=calls,
                  did=_done_on(since, [str(b) for b in f.branches_made],
                               [c for c in f.commits if asked is not None and c.ts
                                and c.ts >= asked.ts and not c.scratch],
                               {s.tool_id for s in f.subagents if s.status == NOT_STARTED})
                  if calls else "")


def end_reason(state: SessionState) -> str:
    """Why the session ended, as the note and its record say it: an ended
    session whose last request got no answer does not read as a clean end."""
    reason = str(state.end_reason)
    if state.status != "active" and ending(state).unanswered:
        return f"{reason}, mid-turn" if reason else "mid-turn"
    return reason


def _in_words(state: SessionState, work: Work) -> str:
    """What came of the session in words, labelled as whose they are: Claude
    Code's own latest recap when it is newer than the last prompt, else the
    sentence of Claude's last answer that tells the outcome (else its first
    real sentence); "" when there is none, or when it claims what the facts
    say did not happen. A last request with no answer is said as such."""
    f = state.fold
    last_ask = next((t.ts for t in reversed(f.turns) if t.kind == "prompt"
                     or (t.kind == "command" and is_request(t.text))), "")
    end = ending(state)
    said = ""
    if end.unanswered:
        said = (unanswered_words(end) + "." if end.no_request else
                "Claude is still at work on the last request." if end.at_work else
                f"{still_on_words(end)}{_left_undone(end.request, state, work)}." if end.calls else
                f"The last request got no answer{_left_undone(end.request, state, work)}.")
    recap = f.recaps[-1] if f.recaps else None
    if recap is not None and not (recap.ts and last_ask and recap.ts < last_ask):
        text = str(recap.text)
        if _contradicted(text, state, work):
            return said
        words = _at_boundary(tx.one_line(text, 1 << 30), SUMMARY_WORDS)
        words = words if words.endswith(("…", ".", "!", "?")) else words + "."
        return f"{said} Claude Code's recap: {words}".strip()
    review = _review_words(state, work, str(f.last_answer_whole or end.answer))
    # (a headless review that ends with its structured output says that result:
    # fold.story.structured_answer)
    if review and not end.unanswered and not str(end.answer).startswith(STRUCTURED_RESULT):
        return review
    answer, label = end.answer, "Claude:"
    main = _main_change_reply(state, work, str(end.answer)) if answer else ""
    if answer and answer == f.last_answer and f.last_answer_whole:
        answer = str(f.last_answer_whole)  # (the turn keeps its first 700 characters)
    if not answer and end.unanswered:
        # What Claude last said it had done, before the request left without
        # an answer (79e9becd: "All tests pass."), labelled as from before it.
        answer = next((str(t.answer) for t in reversed(f.turns) if t.answer), "")
        label = "Claude, before it:"
    if not answer:
        return said

    def allowed(unit: str) -> bool:
        return not _contradicted(unit, state, work)

    # (what Claude said of the file the facts lead with comes first: cde341db)
    about = _file_words(work)
    final = Headline(answer, about=about)
    words = final.quote(allowed)
    # One of Claude's answers is quoted, whole (review 26 #3, #10: an earlier
    # and a last answer, each cut to a few words, told nothing).
    if main and main != end.answer and Headline(main, about=about).names_a_change(allowed) \
            and not (_only_words(f.turns, end.answer) and final.names_a_change(allowed)):
        # The last answer tells a later, smaller step ("Added `retry: 1`",
        # "Committed `6706f449`."): the reply that reported the session's main
        # change is quoted, labelled as said earlier (review 24: 488c5296's
        # timeout 20m → 45m, acdd84ab).
        return f"{said} Claude, earlier: {Headline(main, about=about).quote(allowed)}".strip()
    if label == "Claude:" and final.says_only_how_it_went(allowed):
        # The last answer tells only a status or housekeeping ("Right pane
        # closed, branch cleaned up…", "The task is complete."): what Claude
        # last said it changed is quoted, labelled as said earlier (review 22
        # #5: 2beb2d34, c64cc478).
        earlier = _earlier_change(f.turns, answer, allowed, SUMMARY_WORDS)
        if earlier:
            return f"{said} Claude, earlier: {earlier}".strip()
    return f"{said} {label} {words}".strip() if words else said


# A request for a review: a slash command named so (`/review`, `/security-review`,
# `/code-review`, `/pr-review`…), or a prompt that opens by asking for one.
_REVIEW_COMMAND = tx.lazy(r"(?i)^/[\w:-]*review[\w-]*(?:\s|$)")
_REVIEW_PROMPT = tx.lazy(r"(?i)^(?:please\s+|can you\s+|could you\s+)?(?:do\s+a\s+|give me\s+a\s+)?"
                         r"(?:code\s+|security\s+)?review\b")
# The part of a review that gives its verdict: a heading or a bold label
# ("## Recommendation", "**Verdict:** …", "Overall assessment:").
_VERDICT_HEAD = tx.lazy(
    r"(?im)^[ \t]*(?:#{1,6}[ \t]*|\*\*)?(?:final[ \t]+|overall[ \t]+)?"
    r"(?:recommendation|verdict|conclusion|bottom[ \t]+line|assessment|overall)s?\b"
    r"[^\n]{0,40}?(?::\**|\**:)?[ \t]*(?:\*\*)?[ \t]*([^\n]*)$")


def _review_words(state: SessionState, work: Work, answer: str) -> str:
    """A session that was asked for a review and changed nothing (review 30
    #11: 39e938fb's `/review` headline quoted its review's overview, "Adds a
    new semantic provider contract…", as if this session had done it): said
    as a review, with the verdict Claude gave, in its words; "" for any
    other session."""
    f = state.fold
    asks = [str(t.text).lstrip() for t in f.turns if t.kind in ("prompt", "command")]
    if not asks or work.changed or work.commits or work.files_dropped or f.prs:
        return ""
    if not all(_REVIEW_COMMAND.match(a) or _REVIEW_PROMPT.match(a) for a in asks):
        return ""
    verdict = ""
    for head in _VERDICT_HEAD.finditer(answer):
        rest = head.group(1).strip() or answer[head.end():].lstrip().split("\n", 1)[0]
        first = tx.rx(r"(?<=[.!?])\s+").split(rest.replace("**", "").strip(" \t,;:—-"),
                                               maxsplit=1)[0]
        if first and not first.startswith(("#", "|", "```")):
            verdict = first
    if not verdict:
        return "Claude reviewed the work; it changed nothing."
    words = _at_boundary(tx.one_line(verdict, 1 << 30), SUMMARY_WORDS)
    return f"Claude reviewed the work; its verdict: {words}"


# What a request may ask of git, and the words that say none of it was done.
_ASKS_TO_COMMIT = tx.lazy(r"(?i)\bcommit(?:s|ted)?\b")
_ASKS_TO_PUSH = tx.lazy(r"(?i)\bpush(?:es|ed)?\b(?!\s+notification)")
_ASKS_FOR_PR = tx.lazy(r"(?i)\b(?:PR|pull request)s?\b")


def _left_undone(request: str, state: SessionState, work: Work) -> str:
    """What a last request with no answer asked of git that the session never
    did at all (review 25 L3: e4d579fb asked to make a branch, add a comment
    "and then push it", and ended before any push): ", and nothing was
    pushed"; "" when it asked none of it, or all it asked was done."""
    f = state.fold
    undone = [word for word, asked, done in (
        ("committed", _ASKS_TO_COMMIT, work.commits), ("pushed", _ASKS_TO_PUSH, f.pushes))
        if asked.search(request) and not done]
    said = f", and nothing was {' or '.join(undone)}" if undone else ""
    if _ASKS_FOR_PR.search(request) and not f.prs:
        said += ", and no PR was opened" if not said else " nor a PR opened"
    return said


EARLIER_ANSWERS = 20  # how many answers back a headline looks for the change made


def turn_weights(state: SessionState, work: Work) -> list[float]:
    """How much of the session's change each turn made: the lines of its
    edits, and of each file changed otherwise within its time (by a command,
    a subagent) that file's lines per change (at least 1)."""
    turns = state.fold.turns
    weights: list[float] = []
    for k, turn in enumerate(turns):
        edited = {str(a.text) for a in turn.actions if a.kind == "edit"}
        weight = float(sum(a.added + a.removed for a in turn.actions if a.kind == "edit"))
        start = str(turn.ts)
        end = next((str(t.ts) for t in turns[k + 1:] if t.ts), "")
        if start:
            for path, fw in work.files.items():
                if path in edited or not fw.change.times:
                    continue
                each = max(1.0, (fw.change.added + fw.change.removed) / len(fw.change.times))
                weight += each * sum(1 for ts in fw.change.times
                                     if ts >= start and (not end or ts < end))
        weights.append(weight)
    return weights


def _only_words(turns: list[Turn], answer: str) -> bool:
    """Whether the turn that ended on `answer` did nothing but answer: its
    words look back on the work before it ("Excellent work, thank you!" →
    a7da6a22's summary of the session's four commits)."""
    turn = next((t for t in reversed(turns) if str(t.asked_answer or t.answer) == answer), None)
    return turn is not None and not turn.actions and not turn.more_actions


def _main_change_reply(state: SessionState, work: Work, last: str = "") -> str:
    """The reply that reported the session's main change: Claude's first
    answer that ended a turn (or that a Stop hook held back) at or after the
    turn that changed the most (the latest of equals); "" when no turn
    changed anything or no answer came after it. When that is the `last`
    answer, the reply to the session's first request instead, if what it
    reported changed at least EARLIER_SHARE of what the last one reported:
    what the title asks was done, the last answer telling only a later step
    (review 25 M1: 063071b3's conventions commit 3cfbd9b, then the
    "simplify" commits)."""
    weights = turn_weights(state, work)
    if not weights or max(weights) <= 0:
        return ""
    turns = state.fold.turns
    top = max(weights)
    main = max(k for k, w in enumerate(weights) if w == top)
    reply = next((r for r in map(_reply, turns[main:]) if r), "")
    if not reply or reply != last:
        return reply
    first = next((k for k, t in enumerate(turns) if t.kind == "prompt"
                  or (t.kind == "command" and is_request(t.text))), None)
    reports: list[tuple[str, float, int]] = []  # each reply, the lines it reported, its turn
    pending = 0.0
    for k, (turn, weight) in enumerate(zip(turns, weights, strict=True)):
        pending += weight
        said = _reply(turn)
        if said:
            reports.append((said, pending, k))
            pending = 0.0
    asked = next(((r, w) for r, w, k in reports if first is not None and k >= first), None)
    told = sum(w for r, w, _ in reports if r == last)
    if asked is None or asked[0] == last or asked[1] <= 0 or asked[1] < told * EARLIER_SHARE:
        return reply
    return asked[0]


# How much of what the last answer reported the first request's change set
# must be to be quoted before it (a third: not a one-line fix before a rewrite).
EARLIER_SHARE = 1 / 3


def _reply(turn: Turn) -> str:
    """Claude's words that closed a turn: its answer (to the request, not to a
    background task's news after it), or one a Stop hook held back."""
    if turn.asked_answer:
        return str(turn.asked_answer)
    if turn.answer and not turn.working:
        return str(turn.answer)
    return str(turn.held) if turn.held else ""


def _earlier_change(turns: list[Turn], final: str, allowed: Callable[[str], bool],
                    limit: int) -> str:
    """The words of Claude's latest answer before `final` that says what was
    changed (an answer that ended a turn, or one a Stop hook held back), as
    the headline quotes them within `limit`; "" when none of the last
    EARLIER_ANSWERS says a change."""
    said: list[str] = []
    for turn in reversed(turns):
        answer = turn.asked_answer or turn.answer
        if answer and (turn.asked_answer or not turn.working) and str(answer) != final:
            said.append(str(answer))
        if turn.held and str(turn.held) != final:
            said.append(str(turn.held))
        if len(said) >= EARLIER_ANSWERS:
            break
    for text in said[:EARLIER_ANSWERS]:
        earlier = Headline(text, limit)
        if earlier.quoted_kind(allowed) == "change":
            return earlier.quote(allowed)
    return ""


def _quoted(unit: str, limit: int) -> str:
    """A unit's words as the headline quotes them: whole, ending on a full
    stop; "" when they do not fit in `limit`, or were cut before they came
    (review 26 #3, #10: "…" after three words of each of five items told
    nothing). A list too long to quote whole is quoted by its items' names
    or its first items whole (`_list_quoted`)."""
    if isinstance(unit, Listed):
        return _list_quoted(list(unit.items), limit, unit.open)
    if isinstance(unit, Said) and unit.below:
        # The sentence that announces its list, and the list's items whole, as
        # many as fit ("Created the repository with: All the files (…); and 2 more.")
        lead = tx.one_line(unit.lead, 1 << 30)
        items = _list_quoted(list(unit.below), limit - len(lead) - 1)
        return f"{lead} {items}" if items and not lead.endswith("…") else ""
    words = tx.one_line(unit, 1 << 30)
    if len(words) + 1 > limit or words.endswith("…") or " … " in words:
        return ""
    return words if words.endswith((".", "!", "?")) else words + "."


class Said(str):
    """A sentence of Claude's answer (a unit of `_units`), and whether a
    summary's heading or lead-in ("## Changes", "**Files modified:**",
    "Here's a summary of the changes:") announced the block it is in."""

    announced: int = 0  # SUMMARY_LEAD, CHANGES_LEAD
    # A sentence quoted with the list it announces: the sentence alone, which
    # says what kind of words these are (its items may tell of anything).
    lead: str = ""
    below: tuple[str, ...] = ()  # the items of that list

    def __new__(cls, words: str, announced: int = 0, lead: str = "",
                below: tuple[str, ...] = ()) -> Self:
        said = super().__new__(cls, words)
        said.announced = announced
        said.lead = lead
        said.below = below
        return said


class Listed(Said):
    """A list's items from one on, joined by "; " (a unit of `_units`), with
    the items themselves: a list too long to quote whole is quoted shortened
    item by item (`_list_quoted`), not cut after its first items."""

    items: tuple[str, ...]
    open: bool  # the answer was cut in it (fold.context): more items may follow

    def __new__(cls, items: list[str], open_: bool = False, announced: int = 0) -> "Listed":
        listed = super().__new__(cls, "; ".join(items), announced)
        listed.items = tuple(items)
        listed.open = open_
        return listed


# Where a list item's words name it: before " - ", " – ", " — " or ": " ("**Tar
# support** (`70f2781`) - Added support for …").
_ITEM_LEAD = tx.lazy(r"\s[-\u2013\u2014]\s|:\s")


def _item_lead(item: str) -> str:
    """The words that name a list item, before its description; "" when none."""
    for m in _ITEM_LEAD.finditer(item):
        lead = item[:m.start()].rstrip()
        if item.count("`", 0, m.start()) % 2 == 0:
            # (words opening on what was done are a sentence, not a name: "Fixed
            # the exit by setting: …" is not named "Fixed the exit by setting")
            # nor are words that tell what happened ("Sidechain messages
            # weren't getting the CSS class - Fixed by …", review 24 N7)
            named = 2 <= len(lead.split()) <= 8 and len(lead) < len(item) \
                and not _DOES.match(lead) and not _CLAUSE.search(lead)
            return lead if named else ""
    return ""


def _list_quoted(items: list[str], limit: int, open_: bool = False) -> str:
    """A list, every item whole: all of it when it fits; else, when every
    item names itself before its description ("Tar support (`70f2781`) -
    Added …"), the names, in order (review 20 N3: a7da6a22's real work was
    its items 3-4); else its first items whole, as many as fit, and how
    many more there are ("…; and 5 more"; "; and more" when the answer was
    cut in the list). "" when not even the first item fits whole."""
    items = [" ".join(x.split()).rstrip(".;: ") for x in items]
    tail = "; and more" if open_ else ""
    names = [_item_lead(x) for x in items]
    items = list(itertools.takewhile(lambda x: x and not x.endswith("…"), items))
    if not items:
        return ""
    whole = "; ".join(items) + tail
    if len(whole) + 1 <= limit and (len(items) == len(names) or open_):
        return whole + "."
    if len(names) > 1 and all(names) and len("; ".join(names) + tail) + 1 <= limit:
        return "; ".join(names) + tail + "."
    kept: list[str] = []
    for k, item in enumerate(items):
        more = "; and more" if open_ else f"; and {len(names) - k - 1} more" \
            if k + 1 < len(names) else ""
        if len("; ".join([*kept, item]) + more) + 1 > limit:
            break
        kept.append(item)
    if not kept:
        return ""
    more = "; and more" if open_ else f"; and {len(names) - len(kept)} more" \
        if len(kept) < len(names) else ""
    return "; ".join(kept) + more + "."


# Where Claude's words may be cut: after a list item ("; " joins them in a
# unit) or a sentence, outside a code span.
_BOUNDARY = tx.lazy(r"; |(?<=[.!?])\s+(?=\S)")


def _at_boundary(words: str, limit: int) -> str:
    """`words` whole when they fit; else cut after their last list item or
    sentence that fits, with " …" saying more followed (not mid-item: issue
    29, F21); else at a word, marked "…"."""
    if len(words) <= limit:
        return words
    ends = [m.start() for m in _BOUNDARY.finditer(words, 0, limit - 1)
            if words.count("`", 0, m.start()) % 2 == 0]
    if ends and ends[-1] >= limit // 4:
        return words[:ends[-1]].rstrip(" ;") + " …"
    return tx.trim(words, limit)


# Claims of an action, in Claude's words, that the facts can contradict.
_CLAIMS_FILES = tx.lazy(
    r"(?i)\b(?:created|wrote|written|added|updated|edited|modified|fixed|implemented"
    r"|refactored|renamed|deleted|removed|saved)\b")
_CLAIMS_COMMIT = tx.lazy(r"(?i)\bcommitted\b|\b(?:made|created) (?:a |the )?commit\b")
_CLAIMS_PUSH = tx.lazy(r"(?i)\bpushed\b")
_CLAIMS_AGENT = tx.lazy(
    r"(?i)\b(?:sub)?agents?\b[^.]*\b(?:successfully|installed|validated|verified|completed"
    r"|finished|found|confirmed|fixed|created)\b")


def _contradicted(text: str, state: SessionState, work: Work) -> bool:
    """Whether words claim what did not happen: files written when none
    changed and an edit was refused or failed (or no command could have done
    it), a commit or push that did not land, a subagent's work when one
    made no tool call or never finished."""
    f = state.fold
    if not work.files and _CLAIMS_FILES.search(text):
        refused = any(a.kind == "edit" and (a.status in ("failed", NOT_RUN)
                                            or a.status.startswith("denied"))
                      for t in f.turns for a in t.actions)
        if refused or not work.commands_run:
            return True
    if not work.commits and _CLAIMS_COMMIT.search(text):
        return True
    if not work.pushes and _CLAIMS_PUSH.search(text):
        return True
    if _CLAIMS_AGENT.search(text):
        idle = [s for s, af in zip(f.subagents, work.agents, strict=True)
                if not s.status or not (s.tool_calls or (af is not None and af.tool_calls))]
        if idle:
            return True
    return False


# A sentence that tells how the work came out, in Claude's words: the
# headline prefers it to one that does not ("Committed `6706f449`." over "The
# remaining unstaged changes are unrelated formatting fixes from earlier.").
OUTCOME = tx.lazy(
    r"(?i)\b(?:committed|pushed|merged|deployed|released|published|landed)\b"
    r"|\b(?:created|opened|submitted|updated) (?:a |the |draft )?(?:PR|pull request)\b"
    r"|\b(?:PR|pull request)\b[^.;]{0,60}\b(?:created|opened|merged|is up|ready)\b"
    r"|\btests?\b[^.;]{0,40}\b(?:pass|passes|passed|passing|green|fail|fails|failed"
    r"|failing)\b"
    r"|\b(?:pass|passes|passed|passing)\b[^.;]{0,20}\btests?\b"
    r"|\b(?:build|builds|lint\w*|checks?|compil\w+|type[- ]?checks?)\b[^.;]{0,40}"
    r"\b(?:succeed\w*|pass\w*|clean|green)\b"
    r"|\b(?:is|are|now|has been|have been)\s+(?:now\s+)?(?:complete|completed|done"
    r"|finished|fixed|resolved|working|in place)\b"
    r"|\bsuccessfully\b|\b(?:I've|I have|we've|we have)\s+(?:now\s+)?\w+ed\b"
    r"|^(?:fixed|implemented|resolved|completed|finished|created|added|removed|deleted"
    r"|renamed|migrated|refactored|updated)\b")


# Words that say something was changed or made ("Added `retry: 1`", "Fixed
# the colour mismatch", "The index page now shows the totals"): the sentence
# that names the work, which a headline quotes before a status.
_VERB = (r"(?:add(?:ed|s)|updated?s?|fix(?:ed|es)|creat(?:ed|es)|remov(?:ed|es)|delet(?:ed|es)"
         r"|renamed|moved|replac(?:ed|es)|changed|implement(?:ed|s)|refactored|extracted"
         r"|introduced|rewr(?:ote|itten)|wrote|written|convert(?:ed|s)|migrated|modified|edited"
         r"|inserted|switched|hid|hidden|dropped|wired|ported|reworked|simplified|restored"
         r"|documented|exposed|guarded|wrapped|marked|increased|decreased|raised|lowered"
         r"|reduced|extended|bumped|enabled|disabled)\b")
_ADVERB = r"(?:(?:also|then|now|successfully|\w+ly)\s+)?"
_CLAUSE = tx.lazy(r"(?i)\b(?:is|are|was|were|do|does|did|has|have|had|can|could|would|should"
                  r"|will)(?:n't|n\u2019t)?\b|\b(?:isn|aren|wasn|weren|don|doesn|didn|hasn|haven"
                  r"|hadn|can|couldn|wouldn|shouldn|won)['\u2019]t\b")
_DOES = tx.lazy(rf"(?i)\W*{_ADVERB}{_VERB}")  # words that open on what was done
# The verb saying so leads the sentence or item ("Added `retry: 1`", "`x.go`
# - Fixed …"), follows who did it ("I've updated …") or is said of what
# changed ("has been ported", "now hides"); a verb elsewhere in a sentence
# ("… is in what gets restored") tells of no change made.
_CHANGED = tx.lazy(
    rf"(?i)(?:^|\s[-\u2013\u2014]\s|:\s)\W*{_ADVERB}{_VERB}"
    rf"|\b(?:I|we|it|this(?: PR| change| commit| fix)?)(?:'ve|\u2019ve| have)?\s+{_ADVERB}"
    rf"(?:{_VERB}|chang(?:es|ed)\b)"
    rf"|\b(?:is|are|was|were|been)\s+(?:now\s+)?{_ADVERB}{_VERB}"
    r"|\bnow\s+(?!(?:passe|work|succeed|compile|run|build|look|fail)s\b)[a-z]+s\b")
# Where the answer names code: a code span, a file with its extension, a
# call (`name()`), an identifier in camelCase, PascalCase or snake_case.
_NAMES_CODE = tx.lazy(
    r"`[^`\n]+`|\b[\w./-]+\.[A-Za-z]{1,5}\b(?![\w(])|\b\w+\(\)"
    r"|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b|\b[a-z]+_[a-z_]+\b")
# Tending the work place, not the work: git's and the terminal's state
# ("Right pane closed, branch cleaned up, on latest main", "The `.gitignore`
# was already committed", "The working tree is now clean").
_HOUSEKEEPING = tx.lazy(
    r"(?i)\b(?:panes?|tmux|worktrees?|working (?:tree|directory|copy)|stash(?:ed)?"
    r"|cleaned up|clean ?up|already committed|nothing to commit|rebased|checked out"
    r"|on (?:the )?(?:latest |up-to-date )?(?:main|master)\b|(?:local |remote )?branch"
    r"(?:es)? (?:deleted|removed|cleaned|pruned)|(?:deleted|removed|pruned) (?:the )?"
    r"(?:local |remote )?branch)")
# What a status is about when it says nothing of the change: tests, checks, the build.
_CHECKS = tx.lazy(r"(?i)\b(?:tests?|specs?|builds?|lint\w*|checks?|ci|type[- ]?check\w*"
                  r"|compil\w+|coverage|committed|pushed|merged|deployed|released|published"
                  r"|landed|PR|pull request)\b")
# A heading, label or lead-in that announces what was done: the changes
# ("**Files modified:**", "Here's a summary of the changes:", "## Changes
# Made"), or only a summary ("## Summary", "PR #89 Summary:"), whose items
# need to name code to count as changes ("✅ Changes are focused and clean").
_ANNOUNCES_CHANGES = tx.lazy(
    r"(?i)\b(?:changes|changed|changelog|modified|fixes|fixed|implemented|accomplished"
    r"|what (?:I|we) (?:did|changed|built|added)|updates|updated|added|created)\b")
_ANNOUNCES = tx.lazy(r"(?i)\b(?:summary|summari[sz]ed?|files|recap)\b")
SUMMARY_LEAD, CHANGES_LEAD = 1, 2  # how strongly a unit is announced as what was done


def _announces(line: str) -> int:
    return (CHANGES_LEAD if _ANNOUNCES_CHANGES.search(line) else
            SUMMARY_LEAD if _ANNOUNCES.search(line) else 0)


class Headline:
    """Which of Claude's words a headline quotes from its final answer, and
    how. The sentence or list that says what was changed or made (by a change
    verb, or code named under a summary's heading or lead-in) comes first;
    then one that tells an outcome (committed, tests pass, is complete); then
    the others; housekeeping (panes, branches cleaned up, the working tree)
    last. A status said beside a change follows it where room allows
    ("Added X to Y. All tests pass."). Every word is Claude's, in its order
    within each sentence; a unit is cut only at a word, marked "…"."""

    def __init__(self, answer: str, limit: int = SUMMARY_WORDS,
                 about: tuple[str, ...] = ()) -> None:
        self.limit = limit
        self.units = _units(answer)
        # `about`: the words naming the file the headline's facts lead with.
        # A unit naming it goes first among those of its kind, and a list's
        # items naming it first in the list (each item whole, as written).
        self.about = tx.rx("(?i)(?<![\\w-])(?:" + "|".join(re.escape(w) for w in about)
                           + ")(?![\\w-])") if about else None
        if self.about is not None:
            self.units = [self._led(u) if isinstance(u, Listed) else u for u in self.units]

    def _names(self, words: str) -> bool:
        return self.about is not None and self.about.search(words) is not None

    def _led(self, unit: "Listed") -> "Listed":
        items = list(unit.items)
        first = [x for x in items if self._names(x)]
        if not first or first[0] is items[0]:
            return unit
        return Listed(first + [x for x in items if not self._names(x)], unit.open,
                      unit.announced)

    @staticmethod
    def kind(unit: str) -> str:
        """"change", "status", "other" or "housekeeping". A question ("Delete
        the file?") is no change made; a status that names the work's object
        ("The AudioWorklet migration is complete.") says what was done, one
        about tests or the build ("All tests pass.") does not."""
        first = unit.items[0] if isinstance(unit, Listed) else \
            (unit.lead or unit) if isinstance(unit, Said) else unit
        if _HOUSEKEEPING.search(first):
            return "housekeeping"
        if first.rstrip().endswith("?"):
            return "other"
        if _CHANGED.search(first):
            return "change"
        outcome = OUTCOME.search(first)
        if outcome and (_CHECKS.search(first) or not _NAMES_CODE.search(first)):
            return "status"
        announced = unit.announced if isinstance(unit, Said) else 0
        if outcome or announced == CHANGES_LEAD or (announced and _NAMES_CODE.search(first)):
            return "change"
        if isinstance(unit, Listed) and any(
                _CHANGED.search(x) or (announced and _NAMES_CODE.search(x) and not (
                    OUTCOME.search(x) and _CHECKS.search(x))) for x in unit.items[1:]):
            return "change"  # (a list of commits or items, some of them said as changes)
        return "status" if OUTCOME.search(unit) else "other"

    def ranked(self) -> list[str]:
        """The units best first, each rank in the order written."""
        order = ("change", "status", "other", "housekeeping")
        return sorted(self.units, key=lambda u: (order.index(self.kind(u)), not self._names(u)))

    def names_a_change(self, allowed: Callable[[str], bool]) -> bool:
        """Whether the unit quoted first says in so many words that something
        was changed or made ("Increased the timeout…", "`60e969f` — update
        CLAUDE.md…"), not only that something works now."""
        best = next((u for u in self.ranked() if allowed(u) and _quoted(u, self.limit)), None)
        if best is None or self.kind(best) != "change":
            return False
        said = best.items if isinstance(best, Listed) else \
            [best.lead or best] if isinstance(best, Said) else [best]
        return any(_CHANGED.search(x) for x in said)

    def says_only_how_it_went(self, allowed: Callable[[str], bool]) -> bool:
        """Whether every unit that may be quoted is a status or housekeeping
        (or there is none): the answer says how the work went, not what it was."""
        return all(self.kind(u) in ("status", "housekeeping") for u in self.units
                   if allowed(u) and _quoted(u, self.limit))

    def quote(self, allowed: Callable[[str], bool] = lambda unit: True) -> str:
        """The words quoted ("" when no unit is `allowed` and fits whole):
        the best unit that fits whole, and after a change the first status
        the answer says, when both fit."""
        units = [u for u in self.ranked() if allowed(u)]
        at = next((k for k, u in enumerate(units) if _quoted(u, self.limit)), None)
        if at is None:
            return ""
        best = units[at]
        words = _quoted(best, self.limit)
        if self.kind(best) == "change" and not isinstance(best, Listed):
            # (one Claude wrote after the change: its words are never reordered,
            # review 24 N8)
            after = self.units[self.units.index(best) + 1:]
            status = next((u for u in units if self.kind(u) == "status"
                           and not isinstance(u, Listed) and u not in words
                           and any(u is x for x in after)), None)
            if status is not None:
                told = _quoted(status, self.limit)
                if told and len(words) + 1 + len(told) <= self.limit:
                    words = f"{words} {told}"
        return words

    def quoted_kind(self, allowed: Callable[[str], bool] = lambda unit: True) -> str:
        """The kind of the unit `quote` quotes; "" when it quotes none."""
        return next((self.kind(u) for u in self.ranked()
                     if allowed(u) and _quoted(u, self.limit)), "")


def headline_sentences(answer: str) -> list[str]:
    """The sentences of an answer a headline may quote, best first (`Headline`):
    past headings, tables, code and fillers like "Perfect!". A list's items
    are read as items: an item and the ones after it joined by "; ", never
    run together into one sentence."""
    return Headline(answer).ranked()


def _label(line: str) -> bool:
    """A line that names what follows it, not a sentence: a few words ending
    in a colon, bold or not (`**Implemented:**`, `Summary:`), never a list item."""
    words = line.replace("**", "").strip()
    return (words.endswith(":") and len(words.split()) <= 5
            and _ITEM.match(line) is None)


# A line that is only a bold name, maybe with a note in brackets ("**SQL** (74
# files, nearly every goose migration)", "**Next steps**"): a sub-heading of
# the answer, not a sentence of what was done (review 30 #20: b999d973's
# headline quoted it).
SUBHEAD = "\x00subheading"  # (a gap's mark: no line of an answer is this)
_SUBHEADING = tx.lazy(r"^\*\*[^*\n]{1,80}\*\*(?:\s*\([^()\n]{0,160}\))?\s*$")


def subheading(line: str) -> bool:
    """Whether a line of an answer is a sub-heading in bold (`_SUBHEADING`)."""
    # (one ending in ":" is a label announcing what follows, `**Files modified:**`,
    # `**PR #89 Summary:**`: what it announces is the account, see `_label`)
    return _SUBHEADING.match(line) is not None \
        and not line.rstrip("* ").endswith((".", "!", ":"))


# Where the note's copy of an answer was cut (fold.context), with the "…"
# and a list's bare mark before it.
_ANSWER_CUT = tx.lazy(r"\s*(?:[-*+•]|\d+[.)])?\s*…?\s*\[cut at [\d,]+ characters\]\s*$")


def _units(answer: str) -> list[str]:
    """The answer's sentences of prose and its list items (each with the rest
    of its list), in order, fillers and two-word fragments left out (unless
    they tell an outcome: "Committed `6706f449`.")."""
    blocks: list[tuple[str, list[str]]] = []  # ("prose" | "list" | "gap", lines)
    indent = 0  # of the current list's items: deeper ones are nested
    in_code = False
    joining = False  # nested items are going on the item above them, which ended in ":"
    cut = _ANSWER_CUT.search(answer)
    answer = answer[:cut.start()] if cut else answer
    for line in answer.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_code = not in_code
        if subheading(stripped) and not in_code:
            # (what it heads is a part of the answer, not a summary of it)
            blocks.append(("gap", [SUBHEAD]))
            continue
        if (in_code or not stripped or stripped.startswith(("```", "~~~", "#", "|", ">"))
                or set(stripped) <= set("-*_= ") or _label(stripped)):
            # (a rule `---`, or a label like `**Implemented:**` heading a list:
            # neither is a sentence of what was done; a heading or a label is
            # kept with the gap, for what it announces)
            if not blocks or blocks[-1][0] != "gap":
                blocks.append(("gap", []))
            if not in_code and (stripped.startswith("#") or _label(stripped)):
                blocks[-1][1].append(stripped)
            continue
        item = _ITEM.match(stripped)
        words = (stripped[item.end():] if item else stripped).replace("**", "").strip()
        depth = len(line) - len(line.lstrip())
        last = blocks[-1][0] if blocks else ""
        if item:
            # A list goes on past a blank line between its items (a loose list).
            in_list = last == "list" or (last == "gap" and len(blocks) > 1
                                         and blocks[-2][0] == "list")
            if in_list and depth > indent:
                # A nested item: the item above it says what it is part of,
                # unless it ends in ":" ("Fixed the exit delay by setting:"):
                # then its items are what it did, and go on it (review 24 N1:
                # cde341db quoted "…by setting." without the settings).
                owner = blocks[-1] if last == "list" else blocks[-2]
                if joining or owner[1][-1].endswith(":"):
                    owner[1][-1] += (", " if joining else " ") + words
                    joining = True
                continue
            joining = False
            if in_list:
                if last == "gap":
                    blocks.pop()
                blocks[-1][1].append(words)
            else:
                blocks.append(("list", [words]))
                indent = depth
        elif last == "list" and depth > indent:
            blocks[-1][1][-1] += " " + words  # the item's text goes on
        elif last == "prose":
            blocks[-1][1].append(words)
        else:
            blocks.append(("prose", [words]))
    units: list[str] = []
    # (the block the answer was cut in: the last, when nothing closed it)
    final = len(blocks) - 1 if blocks and blocks[-1][0] != "gap" else -1
    announced = 0  # the block below a heading, label or lead-in of a summary
    walk = False  # the block below a heading or label of a walkthrough ("How it works:")
    for b, (kind, lines) in enumerate(blocks):
        if kind == "gap" and SUBHEAD in lines and units:
            # The answer's sections under sub-headings in bold detail what its
            # words before them said (b999d973: "Done. Both repos now stream
            # … with zero parse errors." then "**SQL** (74 files)" over a list
            # of fixes): those words are what a headline quotes.
            break
        if kind == "gap":
            announced = max([announced, *map(_announces, lines)])
            walk = walk or any(_WALKTHROUGH.search(x) for x in lines)
            continue
        under, announced = announced, 0
        walked, walk = walk, False
        if kind == "list" and walked:
            # (its steps say how the thing works, not what was done: "User visits
            # `/tokenizer`…; HTML loads…" says nothing alone; review 25 N6)
            continue
        if kind == "prose":
            sentences = [x.strip() for x in tx.rx(r"(?<=[.!?])\s+").split(" ".join(lines))]
            below = _list_below(blocks, b)
            for k, sentence in enumerate(sentences):
                if sentence.endswith(":"):
                    # "Here's a summary of what we accomplished:" announces the
                    # list or code below it, which says it (review 19, finding 4).
                    if k == len(sentences) - 1 and below and _CHANGED.search(sentence):
                        # "I've created a document at x.md that documents:" is
                        # quoted with its list's items, never cut at its colon
                        # nor left out for the list alone (review 24 N1).
                        units.append(Said(f"{sentence} " + "; ".join(below), under,
                                          sentence, tuple(below)))
                    announced = under = _announces(sentence)
                    continue
                sentence = sentence.strip()
                if k and _BACK.match(sentence) and not sentences[k - 1].endswith(":"):
                    # "It changes …" says what "it" is in the sentence before:
                    # quoted with it ("The PR is ready to merge. It changes …",
                    # review 24 N8: 79e9becd's "It" is another's PR).
                    sentence = f"{sentences[k - 1].strip()} {sentence}"
                if (len(sentence.split()) < 3 and k + 1 < len(sentences)
                        and OUTCOME.search(sentence) and not sentences[k + 1].endswith(":")):
                    # "Pushed." says more with the sentence after it (not with
                    # one announcing a list: its words alone are a cut).
                    sentence = f"{sentence} {sentences[k + 1].strip()}"
                if _worth_quoting(sentence):
                    units.append(Said(sentence, under))
        elif kind == "list":
            # Each item by its first sentence: the items read as a list.
            items = [tx.rx(r"(?<=[.!?])\s+").split(x.strip())[0] for x in lines if x.strip()]
            for k, first in enumerate(items):
                # "Fixed it by:" says what it did in the items under it, not here.
                if not first.endswith(":") and _worth_quoting(first):
                    units.append(Listed([_item_words(x) for x in items[k:]],
                                        cut is not None and b == final, under))
    return units


# A heading or label over the steps of how something works or is used.
_WALKTHROUGH = tx.lazy(r"(?i)^[#*_\s]*(?:how (?:it|this|that) (?:all )?(?:works|flows|fits"
                       r" together)|(?:the |request |data )?flow|what happens|how to (?:use|test"
                       r"|try) it|usage|steps to (?:test|reproduce|try)|walkthrough)\W*$")


# A sentence opening on a word that points back at the one before it.
_BACK = tx.lazy(r"(?:It|This|That|They|These|Those)\s")


def _list_below(blocks: list[tuple[str, list[str]]], b: int) -> list[str]:
    """The items of the list right below block `b` (past a blank line, not
    past a heading or label), each by its first sentence; [] when none."""
    after = blocks[b + 1:b + 3]
    if after and after[0][0] == "gap" and not after[0][1]:
        after = after[1:]
    if not after or after[0][0] != "list":
        return []
    return [_item_words(tx.rx(r"(?<=[.!?])\s+").split(x.strip())[0])
            for x in after[0][1] if x.strip()]


def _item_words(item: str) -> str:
    """A list item as a quote of its list holds it: without the mark that
    ends it; one ending in ":" with nothing under it is cut where its words
    stop, and said so ("Fixed it by …"), never made a whole sentence."""
    item = item.strip()
    if item.endswith(":"):
        return item.rstrip(":").rstrip() + " …"
    return item.rstrip(".;:").strip()


def _worth_quoting(sentence: str) -> bool:
    if not sentence or _FILLER.match(sentence):
        return False
    return len(sentence.split()) >= 3 or bool(OUTCOME.search(sentence))


_ITEM = tx.lazy(r"^(?:[-*+•]|\d+[.)])\s+")


def _activity(state: SessionState, work: Work) -> str:
    # The calls of every agent of the session: a subagent's reads are the
    # session's research (a read-only overview through an Explore subagent,
    # its `ls` and `find` included, is research, not operations).
    calls: dict[str, int] = {}
    for d in work.doers:
        for name, k in d.fold.tool_calls.items():
            calls[str(name)] = calls.get(str(name), 0) + k
    if work.files:
        return "debugging" if _debugging(state, work) else "implementation"
    if calls.get("ExitPlanMode") or calls.get("EnterPlanMode"):
        return "planning"
    if work.commits or work.pushes or state.fold.prs:
        # Committed, pushed or opened a PR without editing a file here: git
        # work, whatever it read on the way (review 17 #16: 10764452).
        return "operations"
    explore = sum(calls.get(k, 0) for k in ("Read", "Grep", "Glob", "WebFetch", "WebSearch"))
    if explore:
        return "research"
    if work.commands_run:
        return "operations"
    return "conversation"


# Words of a request that tells of something failing now ("the browser tests
# are failing", "let's debug", a pasted `Error:`), not of behaviour to build
# ("if we fail to open it, return an error").
_TROUBLE = tx.lazy(
    r"(?i)\b(?:bugs?|buggy|broken|crash(?:es|ed|ing)?|traceback|stack ?trace|failing|failed"
    r"|failures?|regressions?|debug(?:ging)?|panick(?:ed|ing)|segfaults?|(?:ra|ru)n into"
    r"|(?:does ?n[o']t|doesn't|isn't|is not|not|stopped) work(?:ing)?)\b"
    r"|\b(?:error|exception)\b:")


def _debugging(state: SessionState, work: Work) -> bool:
    """Whether a session that changed files was debugging, by its facts (issue
    29 review, F16): its first request names a failure ("the login fails with
    a traceback"), or a test or build run failed before its first file change
    and a later run passed (found failing, then mended). A test that fails
    after the code under it was written (test first, then the code) is
    implementation."""
    first = next((t for t in state.fold.turns if t.kind == "prompt"
                  or (t.kind == "command" and is_request(t.text))), None)
    if (first is not None and not first.text.startswith(PLAN_PREAMBLE)
            and _TROUBLE.search(str(first.text))):
        return True
    changed = [fw.change.times[0] for fw in work.files.values() if fw.change.times]
    if not changed:
        return False
    first_change = min(changed)
    checks = [c for _, c in work.commands if c.kind in ("test", "build") and c.ts]
    return any(c.status == "failed" and c.ts < first_change for c in checks) and any(
        c.status in ("ok", "passed") and c.ts > first_change for c in checks)


def todo_list(state: SessionState) -> list[Any]:
    """The session's todo list (or tasks), then the work it left running in the
    background (the newest models have no todo list: that is what stays open):
    subagents, then commands (status "command") and scheduled prompts
    ("scheduled") the transcript never saw stop."""
    f = state.fold
    listed = list(f.todos) or [f.tasks[k] for k in sorted(f.tasks, key=_natural)]
    left = [_left_running(j) for j in todos_fold.still_running(f)]
    return listed + [Todo(text=s.description or s.type, status="background")
                     for s in todos_fold.running_in_background(f)] + left + _listed_running(state)


def open_tasks(f: Fold) -> int:
    """The session's todo list's (or tasks') items not done."""
    listed = list(f.todos) or list(f.tasks.values())
    return sum(1 for t in listed if t.status not in todos_fold.CLOSED_STATES)


# What a session left running, by kind, as the headline counts it.
_LEFT_NOUNS = {"command": ("shell command", "left running"),
               "monitor": ("monitor", "left running"),
               "wakeup": ("prompt", "scheduled"), "scheduled": ("prompt", "scheduled"),
               "background": ("background task", "running")}


def _left_words(threads: list[Any], agents: int) -> list[str]:
    """The work left running beside the todo list (todo_list's items after
    it), but the `agents` subagents said with the subagents: "1 shell command
    left running"."""
    counts: dict[str, int] = {}
    for t in threads:
        if t.status in _LEFT_NOUNS:
            counts[t.status] = counts.get(t.status, 0) + 1
    counts["background"] = counts.get("background", 0) - agents  # (said with the subagents)
    by_words: dict[tuple[str, str], int] = {}
    for status, k in counts.items():
        if k > 0:
            words = _LEFT_NOUNS[status]
            by_words[words] = by_words.get(words, 0) + k
    return [f"{plural(k, noun)} {tail}" for (noun, tail), k in by_words.items()]


# How an open thread of each kind is said after (or before) its words: the
# note's Open threads section and the records (project notes, the next
# session's start) say the same.
OPEN_AFTER = {
    "command": "left running in the background",
    "monitor": "left running in the background",
    "wakeup": "scheduled, not yet fired",
    "scheduled": "still scheduled when the session ended",
    "in_progress": "in progress",
    "background": "running in the background",
}
OPEN_BEFORE = {"monitor": "Monitor: ", "wakeup": "Wake-up: ", "scheduled": "Scheduled: "}


def unanswered_words(end: Ending) -> str:
    """The open thread of a last request with no answer, "" when there is none."""
    if not end.unanswered:
        return ""
    if end.no_request:  # (no request to speak of: the file holds none)
        return ("Claude is still at work on the turn this transcript opens in" if end.at_work
                else "The transcript ends mid-turn with no answer (its request is not in it)")
    said = ("Claude is still at work on the last request" if end.at_work else
            still_on_words(end) if end.calls else "The last request got no answer")
    return f"{said}: {end.request}" if end.request else said


def still_on_words(end: Ending) -> str:
    """A last request Claude made calls on before the transcript ended: it
    was at work on it, not ignoring it."""
    after = plural(end.calls, "call") + (f": it had {end.did}" if end.did else "")
    return f"The transcript ends while Claude was still on the last request (after {after})"


def question_words(end: Ending, chars: int = 400) -> str:
    """The open thread of a last answer's question nobody replied to, or ""."""
    if not end.question:
        return ""
    asked = tx.one_line(end.question, chars)
    return f"Claude asked, and the session ended with no reply: “{asked}”"


def open_thread_words(state: SessionState, end: Ending, chars: int = 200) -> list[str]:
    """What the session left open, one plain line each, as its note's Open
    threads section lists it: the unanswered request, the question, then the
    todos not completed and the work left running."""
    out = [w for w in (unanswered_words(end), question_words(end, chars)) if w]
    out += unsent_words(state, chars)
    for t in todo_list(state):
        if t.status in todos_fold.CLOSED_STATES:
            continue
        after = OPEN_AFTER.get(str(t.status), "")
        words = OPEN_BEFORE.get(str(t.status), "") + tx.one_line(str(t.text), chars)
        out.append(f"{words} ({after})" if after else words)
    return out


def unsent_words(state: SessionState, chars: int = 200) -> list[str]:
    """What the user typed while Claude worked that never reached it: still
    queued when the transcript ends, or taken back to the input box and not
    sent since (a slash command: never run; "not yet" while the session is
    active)."""
    f = state.fold
    when = "not yet" if state.status == "active" else "never"  # (it may still be sent)
    return [f"{tx.one_line(str(q.text), chars)} (typed while Claude worked; {when} "
            + ("run)" if q.command else "sent)") for q in [*f.taken_back, *f.queued]]


def _left_running(job: Any) -> Todo:
    """A job the transcript left running as an open thread: a command
    ("command"), a monitor ("monitor"), a scheduled prompt ("scheduled"), a
    wakeup ("wakeup", with its time in the user's zone)."""
    if job.kind == "shell":
        return Todo(text=job.text, status="command")
    if job.kind == "wakeup":
        at = hhmm(job.until)
        return Todo(text=Redacted(f"{job.text} (at {at})" if at else job.text), status="wakeup")
    return Todo(text=job.text, status="monitor" if job.kind == "monitor" else "scheduled")


def _listed_running(state: SessionState) -> list[Todo]:
    """What the client listed running at its last Stop that the transcript
    does not tell: commands ("command"), monitors ("monitor"), other tasks
    ("background"), scheduled prompts ("scheduled", with their schedule)."""
    out = []
    for r in running.told_by_hook_alone(state):
        if r.kind == running.CRON:
            when = f"once: {r.said}" if r.once and r.said else "once" if r.once else r.said
            out.append(Todo(text=Redacted(f"{r.text} ({when})" if when else r.text),
                            status="scheduled"))
        elif r.kind == "shell" and r.text:
            out.append(Todo(text=r.text, status="command"))
        elif r.kind == "monitor":
            out.append(Todo(text=r.said or r.text, status="monitor"))
        else:
            out.append(Todo(text=r.said or r.text or r.kind, status="background"))
    if state.running_more:
        out.append(Todo(text=Redacted(f"{state.running_more} more background tasks or "
                                      "scheduled prompts"), status="background"))
    return out


def _natural(k: str) -> tuple[int, str]:
    return (int(k), "") if k.isdigit() else (1 << 30, k)
