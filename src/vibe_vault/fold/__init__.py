"""Fold transcript entries into session facts.

`fold(facts, entries)` applies entries one at a time, so for any split
`fold(fold(f, A), B) == fold(f, A + B)`: the facts after a hook's small reads
equal the facts after one read of the whole file. Nothing here touches files.
The facts passed in are updated in place and returned (copying a large state
on every Stop would cost more than the fold itself).

Entries are dispatched here, by type, to one module per kind of fact: `story`
(prompts, answers, compactions), `calls` (tool calls and results, handed on to
`commands`, `files`, `git`, `todos`, `subagents`, `tools`), `errors`, `usage`,
`titles`. Texts are cleaned and redacted as they are folded (`context`), so
neither the saved state nor the note ever holds a secret.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable

from vibe_vault.entries import (
    KNOWN_SYSTEM_SUBTYPES,
    KNOWN_TYPES,
    Block,
    Entry,
    Malformed,
    closes_a_turn_before,
    decode_raw,
    queued_notification,
    streamed_entry,
)
from vibe_vault.fold import (
    active,
    commands,
    files,
    order,
    rewinds,
    story,
    subagents,
    titles,
    todos,
    usage,
)
from vibe_vault.fold.context import (
    ANSWER_CHARS,
    HEAD_TURNS,
    LAST_ANSWER_CHARS,
    TAIL_TURNS,
    Context,
    note_text,
)
from vibe_vault.fold.tools import EXPLORE_LIST, EXPLORE_READ, EXPLORE_SEARCH
from vibe_vault.fold.usage import (
    AGENT_USAGE_WINDOW,
    MAX_STREAMED_AGENTS,
    add_tokens,
    note_entry_usage,
    tokens_of,
)
from vibe_vault.redact import DEFAULT, Redacted, Redactor
from vibe_vault.state import AgentFold, Fold
from vibe_vault.times import epoch  # kept here for callers of fold.epoch

__all__ = [
    "ANSWER_CHARS", "EXPLORE_LIST", "EXPLORE_READ", "EXPLORE_SEARCH", "HEAD_TURNS",
    "LAST_ANSWER_CHARS",
    "TAIL_TURNS", "add_tokens", "epoch", "fold", "fold_agent", "note_text", "tokens_of",
]

OnEntry = Callable[[Context, Entry, str], None]


def _no_time(handler: Callable[[Context, Entry], None]) -> OnEntry:
    return lambda ctx, e, ts: handler(ctx, e)


# What each entry type brings. Types not here but known only bring a time, a
# cwd and a branch (a quarter of all lines: nothing else is read of them).
def _on_user(ctx: Context, entry: Entry, timestamp: str) -> None:
    if entry.permissionMode:
        commands.on_permission_mode(ctx, entry)
    story.on_user(ctx, entry, timestamp)
    content = entry.message.content if entry.message is not None else None
    if isinstance(content, str) and content.lstrip().startswith("<task-notification>"):
        todos.on_notification(ctx, content)  # background work that stopped
    elif isinstance(content, list):
        for block in content:  # (the same, as a text block)
            if isinstance(block, Block) and block.type == "text" and block.text \
                    and block.text.lstrip().startswith("<task-notification>"):
                todos.on_notification(ctx, block.text)


def _on_attachment(ctx: Context, entry: Entry, timestamp: str) -> None:
    story.on_attachment(ctx, entry, timestamp)
    if entry.attachment and b'"hook' in bytes(entry.attachment):
        _hook_ran(ctx, bytes(entry.attachment))
    notice = queued_notification(entry.attachment) if entry.attachment else None
    if notice is not None:
        todos.on_notification(ctx, notice)  # background work that stopped, read mid-turn


def _on_queue_operation(ctx: Context, entry: Entry, timestamp: str) -> None:
    story.on_queue_operation(ctx, entry, timestamp)
    if entry.operation == "enqueue":
        # Background work that stopped, queued for Claude to read (2.1.1x:
        # a notification Claude may never be handed, its agent finished all
        # the same; review 31 F11: 0ccf1a04's two poems).
        content = decode_raw(entry.content)
        if isinstance(content, str) and content.lstrip().startswith("<task-notification>"):
            todos.on_notification(ctx, content)


def _on_assistant(ctx: Context, entry: Entry, timestamp: str) -> None:
    story.on_assistant(ctx, entry, timestamp)
    usage.note_model(ctx, entry, timestamp)


ON_ENTRY: dict[str, OnEntry] = {
    "assistant": _on_assistant,
    "user": _on_user,
    "system": lambda ctx, e, ts: _on_system(ctx, e, ts),  # defined below
    "summary": _no_time(titles.on_summary),
    "ai-title": _no_time(titles.on_ai_title),
    "custom-title": _no_time(titles.on_custom_title),
    "task-summary": titles.on_task_summary,
    "pr-link": lambda ctx, e, ts: _on_pr_link(ctx, e),  # defined below
    "progress": lambda ctx, e, ts: _on_progress(ctx, e),  # defined below
    "permission-mode": _no_time(commands.on_permission_mode),
}
# Only the main transcript has a story of queued prompts.
ON_MAIN_ENTRY: dict[str, OnEntry] = {
    "queue-operation": lambda ctx, e, ts: _on_queue_operation(ctx, e, ts),  # defined below
    "attachment": lambda ctx, e, ts: _on_attachment(ctx, e, ts),  # defined below
    # the client's cost of the whole session, subagents included
    "cost-state": _no_time(usage.on_cost_state),
}


def _on_pr_link(ctx: Context, entry: Entry) -> None:
    # (fold.git, with fold.staged and fold.git_counts, ~100 kB of code, loads
    # at the first git command or pull request a process meets: a Stop of a
    # turn with neither no longer unmarshals it, ~2 M instructions)
    from vibe_vault.fold import git

    git.on_pr_link(ctx, entry)


def _on_progress(ctx: Context, entry: Entry) -> None:
    usage.on_progress(ctx, entry)  # a subagent's streamed usage
    commands.on_progress(ctx, entry)  # a command's running time
    if entry.data and b'"hook' in bytes(entry.data):
        _hook_ran(ctx, bytes(entry.data))
    if not ctx.agent:
        _streamed_work(ctx, entry)


def _hook_ran(ctx: Context, raw: bytes) -> None:
    """A hook's command ran (2.x: its progress line, its attachment): one
    that may write (a formatter after each edit) makes a file's change
    between the session's edits no one's known (fold.files)."""
    from vibe_vault.fold import looks  # (loaded by the first hook's line a process meets)

    if looks.hook_may_write(raw):
        ctx.facts.may_write += 1


def _streamed_work(ctx: Context, entry: Entry) -> None:
    """A subagent's entry streamed into the main file (`agent_progress`): its
    tool calls, commands and edits folded as its own file's would be, so a
    subagent Claude Code wrote no file for (2.0/2.1) is told by what it did.
    Where its file is there too, the note takes the file (figures, work)."""
    got = streamed_entry(entry.data)
    if got is None:
        return
    raw_agent, inner = got
    agent = ctx.name(raw_agent or "?")
    streamed = ctx.facts.progress
    af = streamed.get(agent)
    if af is None:
        if len(streamed) >= MAX_STREAMED_AGENTS:
            return
        af = streamed[agent] = AgentFold(agent_id=agent)
    work = ctx.streamed.get(agent)
    if work is None:
        work = ctx.streamed[agent] = Context(af.work, ctx.redactor, agent=True)
        work.memo = ctx.memo
        files.rekey(af.work)
    apply(work, inner)
    ts = inner.timestamp if isinstance(inner.timestamp, str) and epoch(inner.timestamp) else ""
    if ts:
        af.first_ts = af.first_ts or ts
        af.last_ts = ts
    if inner.type == "assistant" and inner.message is not None and isinstance(
            inner.message.content, list):
        af.tool_calls += sum(1 for b in inner.message.content
                             if isinstance(b, Block) and b.type == "tool_use")
    if raw_agent and entry.parentToolUseID:
        # The Task call it works for: named even when no result came (the
        # session ended while it worked), so the note finds its work.
        tool = ctx.key(entry.parentToolUseID)
        for sub in ctx.facts.subagents:
            if sub.tool_id == tool and not sub.agent_id:
                sub.agent_id = agent


def _on_system(ctx: Context, entry: Entry, timestamp: str) -> None:
    subtype = entry.subtype
    if subtype is None:
        # Pre-subtype system lines: hook progress chatter, and the model switch.
        story.on_plain_system(ctx, entry, timestamp)
        return
    if subtype not in KNOWN_SYSTEM_SUBTYPES:
        _unknown(ctx.facts.unknown, ctx.name(f"system:{subtype}", 60), ctx.facts.version)
        return
    story.on_system(ctx, entry, timestamp)


def apply(ctx: Context, entry: Entry | Malformed) -> None:
    facts = ctx.facts
    if isinstance(entry, Malformed):
        facts.malformed += 1
        return
    facts.entries += 1
    ts = entry.timestamp or ""
    ctx.entry_gap = 0.0  # (an entry without a time follows no pause)
    # Whether a line is a copy is decided before its time is read: a copy's
    # time is the session's it was copied from, not this one's start.
    copy = not ctx.agent and _copied(ctx, entry)
    # Only conversation lines (those with a uuid) tell when the session ran:
    # a `queue-operation`, `mode` or title row may be stamped hours after the
    # conversation lines that follow it (Claude Desktop 2.1.21x files).
    own = (bool(entry.uuid) and not copy and not entry.isMeta
           and not closes_a_turn_before(entry.type, entry.subtype, bool(facts.conversational)))
    ctx.entry_epoch = ctx.clock(ts, own=own) if ts else 0.0
    if not ctx.entry_epoch:
        ts = ""  # not a time: nothing of it is kept
    ctx.entry_ts = ts
    ctx.entry_cwd = entry.cwd or ""
    version = entry.version
    if version and version != ctx.raw_version:
        ctx.raw_version = version
        facts.version = ctx.name(version, 40)
    team = entry.teamName
    if isinstance(team, str) and team and not ctx.agent and not facts.teammate:
        _on_team(ctx, team, entry.agentName)
    if ctx.agent:
        _apply(ctx, entry, ts)
    elif not copy:
        chained = rewinds.chained(ctx, entry)
        order.before(ctx, entry)
        _apply(ctx, entry, ts)
        if chained and entry.uuid:
            rewinds.saw(ctx, entry.uuid)
        order.after(ctx, entry)  # (an answer folded before its prompt moves to it)
        ctx.is_work = entry.type == "assistant" or (
            bool(entry.isSidechain) and entry.type == "user")
        ctx.is_queue = entry.type == "queue-operation"
        active.spent(ctx)  # what the entry was (a prompt?) is known by now
    else:
        order.seen(ctx, entry.uuid)


def _on_team(ctx: Context, team: str, name: object) -> None:
    """The agent team the session's lines name, and its own name in it when
    it is a teammate (a lead's lines name the team only)."""
    facts = ctx.facts
    facts.team_name = facts.team_name or ctx.name(team, 60)
    if isinstance(name, str) and name:
        facts.teammate = ctx.name(name, 60)


def _apply(ctx: Context, entry: Entry, timestamp: str) -> None:
    facts = ctx.facts
    kind = entry.type
    if kind not in KNOWN_TYPES:
        _unknown(facts.unknown, ctx.name(kind or "(none)", 60), facts.version)
        return
    if facts.foreign_summaries and entry.uuid and ctx.uuid(entry.uuid) in facts.foreign_summaries:
        titles.claim_summary(ctx, ctx.uuid(entry.uuid))
    if entry.isSidechain and not ctx.agent and kind in ("assistant", "user"):
        # An inline subagent: its usage is the session's, its work is told apart.
        if kind == "assistant":
            note_entry_usage(ctx, facts.usage, facts.settled, facts.models, entry)
        subagents.on_sidechain(ctx, entry)
        apply(subagents.sidechain(ctx), entry)
        return
    handler = ON_ENTRY.get(kind)
    if handler is None and not ctx.agent:
        handler = ON_MAIN_ENTRY.get(kind)
    if handler is not None:
        handler(ctx, entry, timestamp)
    # Where the session ran, after the entry's own words: a secret they hold is
    # known by then.
    if not facts.cwd and entry.cwd:
        facts.cwd = ctx.exact(entry.cwd)  # as recorded: a resume line must land there
    branch = entry.gitBranch
    if branch and branch != ctx.raw_branch:
        ctx.raw_branch = branch
        ctx.branch = ctx.name(branch)
        # Claude Code stamps the main transcript with the branch of a
        # subagent's worktree while one works (`isolation: worktree`:
        # branch worktree-agent-<id>): not the session's, unless it names no other.
        if not ctx.agent and _agent_worktree(branch):
            if not facts.branch:
                facts.branch, facts.branches = ctx.branch, [ctx.branch]
            return
        if not ctx.agent and _agent_worktree(facts.branch):
            facts.branches = []  # one taken only while no other was named
        facts.branch = ctx.branch
        if ctx.branch not in facts.branches and len(facts.branches) < 20:
            facts.branches.append(ctx.branch)


def _agent_worktree(branch: str) -> bool:
    return branch.startswith("worktree-agent-")


def _copied(ctx: Context, entry: Entry) -> bool:
    """True for a line a fork copied from the session it was forked from.

    Claude Code (`--fork-session`) starts the new file with its own
    `queue-operation` and then copies the earlier conversation, keeping each
    line's uuid, message id and time. A line shows itself a copy: an answer
    whose `requestSessionId` (2.1.332) names another session was that
    session's request; a line chained (`parentUuid`) to a copy is one too, but
    for a prompt whose words are the fork's own first ones (the file's first
    `enqueue`): the fork's first prompt follows its last copy.

    A client that names no asker (2.1.197 to 2.1.33x) leaves only the times:
    a line stamped over COPY_MARGIN seconds before the file's first stamped
    line, when that is a queue row, is a copy, in a file the command line
    wrote. Not in one Claude
    Desktop wrote (`entrypoint` "claude-desktop", 2.1.21x): it opens its
    files with queue and title rows stamped hours after the conversation that
    follows (review 28, finding 10: a session lost its first 8 hours to the
    rule of times alone), so there only what a line holds tells a copy, and a
    Desktop fork by an older client counts its copies again (counted twice,
    not lost). Copies come first: once the session's own answer is met, none
    follows.
    """
    facts = ctx.facts
    if facts.own_begun:
        return False
    stamped = (epoch(entry.timestamp) or 0.0) if entry.timestamp else 0.0
    if stamped and not facts.opened:
        # (a fork's file opens with its queue row; one that opens otherwise,
        # -1, is no fork's by its times)
        facts.opened = stamped if entry.type == "queue-operation" else -1.0
    if entry.type == "queue-operation" and entry.operation == "enqueue" \
            and not facts.opening_prompt:
        facts.opening_prompt = _prompt_mark(decode_raw(entry.content))
    if not entry.uuid:
        return False
    before = (bool(stamped) and facts.opened > 0 and stamped < facts.opened
              and entry.entrypoint != DESKTOP)
    # (within the margin, a chained `claude -p` fork: a copy once one is
    # known, or a prompt other than the one the fork opened with)
    by_time = before and (stamped < facts.opened - COPY_MARGIN or facts.copied > 0
                          or _other_prompt(facts, entry))
    if not by_time and not _is_copy(ctx, facts, entry):
        facts.own_begun = entry.type == "assistant" and not entry.isSidechain
        if facts.own_begun:
            facts.copy_uuids = []  # (no copy follows: nothing to chain to)
        return False
    facts.copied += 1
    facts.copy_uuids.append(ctx.uuid(entry.uuid))
    del facts.copy_uuids[:-COPY_RUN]
    if entry.type == "assistant":
        note_entry_usage(ctx, facts.copied_usage, facts.copied_settled, [], entry)
    return True


COPY_MARGIN = 1.0  # seconds: a fresh file's first prompt is stamped a moment before its queue row
DESKTOP = "claude-desktop"  # Claude Desktop's `entrypoint`: see _copied


# The latest copies' uuids, kept while copies are read: a subagent's progress
# lines all name the Task call's line, however many lines came since.
COPY_RUN = 512


def _other_prompt(facts: Fold, entry: Entry) -> bool:
    """Whether a line is a prompt other than the one the file opened with."""
    if entry.type != "user" or not facts.opening_prompt or entry.message is None:
        return False
    mark = _prompt_mark(story.typed_words(entry.message.content)[0])
    return bool(mark) and mark != facts.opening_prompt


def _is_copy(ctx: Context, facts: Fold, entry: Entry) -> bool:
    """Whether a line shows itself a copy (see _copied)."""
    if entry.type == "assistant":
        asked_by = entry.requestSessionId
        if asked_by and entry.sessionId and asked_by != entry.sessionId:
            return True
    parent = entry.parentUuid
    if not parent or not facts.copy_uuids or ctx.uuid(parent) not in facts.copy_uuids:
        return False
    if entry.type == "user" and entry.message is not None:
        mark = _prompt_mark(story.typed_words(entry.message.content)[0])
        if mark:  # a prompt: a copy unless it is the one the fork opened with
            return bool(facts.opening_prompt) and mark != facts.opening_prompt
    return True


def _prompt_mark(words: object) -> int:
    """A checksum of a prompt's words, to tell one prompt from another without
    keeping the words (0: no prompt)."""
    if not isinstance(words, str) or not words.strip():
        return 0
    return zlib.crc32(words.strip().encode("utf-8", "surrogatepass")) | 1 << 32


def finish(ctx: Context) -> None:
    """Work out what was held for the end of this read."""
    if ctx.sidechain is not None:
        finish(ctx.sidechain)
    for work in ctx.streamed.values():
        finish(work)
    ctx.flush()
    todos.finish(ctx)
    files.finish(ctx)


def fold(facts: Fold, entries: Iterable[Entry | Malformed],
         redactor: Redactor = DEFAULT, keep_thinking: bool = False) -> Fold:
    """Apply entries in order to the main transcript's facts."""
    ctx = Context(facts, redactor, keep_thinking)
    files.rekey(facts)
    for e in entries:
        apply(ctx, e)
    finish(ctx)
    return facts


def fold_agent(state: AgentFold, entries: Iterable[Entry | Malformed],
               redactor: Redactor = DEFAULT) -> AgentFold:
    """Apply entries in order to one subagent file's state: its usage, and its
    work folded as the main transcript's is."""
    work = Context(state.work, redactor, agent=True)
    files.rekey(state.work)
    for e in entries:
        if isinstance(e, Malformed):
            state.malformed += 1
            continue
        apply(work, e)
        state.entries += 1
        if e.type not in KNOWN_TYPES:
            _unknown(state.unknown, work.name(e.type or "(none)", 60), state.work.version)
            continue
        if e.sessionId and not state.session_id:
            state.session_id = work.name(e.sessionId)
        if e.agentId and not state.agent_id:
            state.agent_id = work.name(e.agentId)
        ts = e.timestamp if isinstance(e.timestamp, str) and epoch(e.timestamp) else ""
        if ts:
            if not state.first_ts:
                state.first_ts = ts
            state.last_ts = ts
        if e.type == "assistant" and e.message is not None:
            note_entry_usage(work, state.usage, state.settled, state.models, e,
                             AGENT_USAGE_WINDOW)
            content = e.message.content
            if isinstance(content, list):
                state.tool_calls += sum(
                    1 for b in content if isinstance(b, Block) and b.type == "tool_use")
        _answered(state, e)
    finish(work)
    return state


def _answered(state: AgentFold, e: Entry) -> None:
    """Whether the subagent's file ends in its final answer: a reply of words
    with no tool call, cut by no limit and no API error; anything it is given
    after (a tool's result, a new message: resumed) sets it working again."""
    message = e.message
    if e.type == "user" and message is not None and not e.isMeta:
        state.answered = False
        return
    if e.type != "assistant" or message is None or not isinstance(message.content, list):
        return
    if any(isinstance(b, Block) and b.type == "tool_use" for b in message.content) \
            or message.stop_reason in ("tool_use", "max_tokens", "pause_turn") \
            or e.isApiErrorMessage:
        state.answered = False
    elif any(isinstance(b, Block) and b.type == "text" and b.text and b.text.strip()
             for b in message.content):
        state.answered = True


def _unknown(counts: dict[Redacted, int], what: Redacted, version: str | None) -> None:
    key = Redacted(f"{what}@{version or '?'}")  # both parts passed the gate
    counts[key] = counts.get(key, 0) + 1
