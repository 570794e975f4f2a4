"""Subagents: the Task calls that start them, how they ended, and the work of
inline ones (older layout: `isSidechain` entries in the main file). Feeds the
note's Subagents section; their files, commands and commits join the session's
(see `work.py`)."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from vibe_vault import text as tx
from vibe_vault.entries import Entry, ToolInput, ToolResult, result_usage
from vibe_vault.fold import active
from vibe_vault.fold.context import CallEnd, Context
from vibe_vault.fold.usage import tokens_of
from vibe_vault.redact import Redacted
from vibe_vault.state import Action, Fold, Pending, Subagent, agent_kind

AGENT_TOOLS = frozenset({"Task", "Agent"})
MAX_SUBAGENTS = 200
REPORT_CHARS = 1200  # of a subagent's report: room for its gist under a heading
# Calls of an inline subagent that change files, or may (a shell command).
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit", "Bash", "PowerShell"})
# What Claude Code appends to a subagent's result (2.1.x): its id, for
# resuming it, and its usage. Claude Code's words, not the subagent's.
_TRAILER = tx.lazy(r"(?m)^agentId: [0-9a-zA-Z_-]+ \(for resuming[^\n]*\)[ \t]*$"
                   r"|<usage>.*?</usage>", re.S)


# The shas on a report's line that speaks of a commit (7 to 40 hex digits, a
# letter and a digit among them: not a number, not a word): "Committed
# `abc1234` feat: …", "**Commit SHA:** `5ea305f…` (short: `5ea305f`)".
_SHA = tx.lazy(r"(?<![0-9A-Za-z_])(?=[0-9a-f]{0,39}[a-f])(?=[0-9a-f]{0,39}[0-9])"
               r"([0-9a-f]{7,40})(?![0-9A-Za-z_])")
MAX_REPORTED = 20
LINE_CHARS = 700  # of a report's line, looked at for shas


def reported_commits(ctx: Context, said: str) -> list[Redacted]:
    """The commits a subagent's report names, as 7 hex digits: its words, to
    be told as its (a later output may show them: fold.git.reported)."""
    if "ommit" not in said and "OMMIT" not in said:
        return []
    lines = [tx.cut(line, LINE_CHARS) for line in said.splitlines() if "commit" in line.lower()]
    # Through the gate, at once (a hex secret on a line is no sha to show);
    # its secrets are counted where the report is (on_result).
    gated = ctx.cleaned("\n".join(lines), None, memo=False)[0] if lines else ""
    out: list[Redacted] = []
    for s in _SHA.findall(gated):
        sha = Redacted(s[:7])  # hex digits the gate passed
        if sha not in out:
            out.append(sha)
            if len(out) == MAX_REPORTED:
                break
    return out


def own_words(report: str) -> str:
    """A subagent's report without the trailer Claude Code appends to it."""
    return _TRAILER.sub("", report).strip() if "agentId: " in report or "<usage>" in report \
        else report.strip()


def on_call(ctx: Context, call: Pending, inp: ToolInput,
            timestamp: str) -> tuple[Action | None, bool]:
    facts = ctx.facts
    facts.may_write += 1  # (its changes are its own file's, or none known)
    sub = Subagent(
        tool_id=call.tool_id,
        type=ctx.line(str(inp.subagent_type or "general-purpose"), 60),
        description=ctx.line(str(inp.description or ""), 120),
        ts=timestamp,
        name=ctx.line(inp.name, 60) if isinstance(inp.name, str) else Redacted(""),
    )
    # Its instructions are found by search from the session that gave them,
    # whether or not the subagent's own file is still there (or ever was).
    if isinstance(inp.prompt, str):
        ctx.say("task", inp.prompt)
        sub.prompt_key = ctx.key(inp.prompt)  # (an inline subagent's chain opens with it)
    if len(facts.subagents) < MAX_SUBAGENTS:
        facts.subagents.append(sub)
        call.sub_no = len(facts.subagents) - 1
    else:
        facts.subagents_dropped += 1
    # (its id: the story finds what its agent did, render.work.calls_of_task)
    return Action(kind="agent", text=Redacted(agent_kind(sub.type, sub.name)),
                  detail=sub.description, ts=timestamp, tool_id=call.tool_id), False


def on_result(ctx: Context, call: Pending, action: Action | None, outcome: CallEnd) -> None:
    facts = ctx.facts
    if not 0 <= call.sub_no < len(facts.subagents):
        return
    sub = facts.subagents[call.sub_no]
    result = outcome.result
    # Launched in the background: the result only says it started (its words
    # are the client's, and ask never to be quoted); its end comes later, as
    # a notification (on_notice). Claude did not wait for it.
    launched = acknowledgement(result, outcome.text)
    if not ctx.agent and not launched:
        active.waited_on_agent(ctx, call.called_at)
    sub.status = outcome.status if outcome.status != "ok" else "completed"
    if outcome.status == "failed" and (result is None or not result.agentId):
        # The launch itself failed ("Agent type 'x' not found"): no agent ran,
        # none is to finish, none used tokens (review 29 #14).
        sub.status = NOT_STARTED
        return
    sub.background = sub.background or launched
    if launched:
        facts.unwatched = True  # (at work beside the session: when it changes files is not known)
    said = own_words(outcome.text) if outcome.text and not launched else ""
    if said:
        ctx.say("report", said)  # what it answered, for search
        if outcome.status == "ok":
            sub.report = ctx.text(tx.cut(said, 8 * REPORT_CHARS), REPORT_CHARS)
        sub.reported = reported_commits(ctx, tx.cut(said, 8 * REPORT_CHARS))
    if result is not None:
        sub.agent_id = ctx.name(str(result.agentId or ""))
        sub.tokens = _int(result.totalTokens)
        sub.ms = _int(result.totalDurationMs)
        sub.tool_calls = _int(result.totalToolUseCount)
        if isinstance(result.status, str) and result.status:
            sub.status = ctx.name(result.status, 40)
        u = result_usage(result.usage)
        if u is not None:
            sub.usage = tokens_of(Redacted(""), u)  # (its model: figures.tokens_by_model)
    if launched and sub.status in ("completed", ""):
        sub.status = LAUNCHED  # (said so in words only: it started, and no more)


# A subagent's status while it works in the background, as its launch result says.
LAUNCHED = "async_launched"
# A teammate's (an agent team's member, 2.1.2xx): it works in a session of its
# own, and its words come back as `<teammate-message>`s, not a result.
SPAWNED = "teammate_spawned"
# A launch whose result is an error: no agent ran.
NOT_STARTED = "not started"
# What a launch's result says when it only acknowledges the start: Claude
# Code's words, marked never to be quoted, and never the agent's report
# (review 28: "Async agent launched successfully."; review 29 #7: a
# teammate's "Spawned successfully."). By its status (`async_launched`,
# `teammate_spawned`, and any later `*_launched` / `*_spawned`), else by
# the words.
_ACK_STATUS = tx.lazy(r"^[a-z_]{0,40}_(?:launched|spawned)$")
_ACK_WORDS = tx.lazy(r"(?i)^[\w ]{0,40}\b(?:launched|spawned|started) successfully\b"
                     r"|\(This tool result is internal metadata\b")


def acknowledgement(result: ToolResult | None, text: str) -> bool:
    """Whether a launch's result only says the agent started."""
    status = result.status if result is not None and isinstance(result.status, str) else ""
    return bool(_ACK_STATUS.match(status)) or bool(_ACK_WORDS.search(text[:300]))


class Notice(NamedTuple):
    """One `<task-notification>`: the client telling the model that background
    work (a subagent, a shell command, a monitor) stopped. Its ids: the
    client's task id (a subagent's agentId, a command's backgroundTaskId)
    and the tool call that started it; either may be missing or scrubbed
    (review 28 #3: `REDACTED` by a checkpoint tool), so both are tried."""

    task_id: str
    tool_id: str
    status: str
    result: str | None  # its final words (a subagent's report), when it has any
    tokens: int | None  # what its usage says: tokens, tool calls, milliseconds
    tool_uses: int | None
    ms: int | None


def on_notice(ctx: Context, notice: Notice, agent: Redacted | None = None) -> bool:
    """The end of the subagent `notice` names (by its tool call's id, else by
    its agent id, or `agent`: the id as already gated), as the notification
    says: its status, tool calls, tokens, time and report. A resumed agent
    notifies again: the latest wins. Whether it named one."""
    key = ctx.key(notice.tool_id) if notice.tool_id else ""
    if agent is None:
        agent = ctx.name(notice.task_id) if notice.task_id else Redacted("")
    sub = next((s for s in ctx.facts.subagents if key and s.tool_id == key), None) or next(
        (s for s in ctx.facts.subagents if agent and s.agent_id == agent), None)
    if sub is None:
        return False
    sub.background = True
    sub.by_file = False  # (told by the transcript itself now: work.settle_by_files)
    sub.status = ctx.name(notice.status, 40) or "completed"
    if notice.tool_uses is not None:
        sub.tool_calls = notice.tool_uses
    if notice.tokens is not None:
        sub.tokens = notice.tokens
    if notice.ms is not None:
        sub.ms = notice.ms
    said = own_words(notice.result) if notice.result else ""
    if said:
        ctx.say("report", said)  # what it answered, for search
        sub.report = ctx.text(tx.cut(said, 8 * REPORT_CHARS), REPORT_CHARS)
        sub.reported = reported_commits(ctx, tx.cut(said, 8 * REPORT_CHARS))
    return True


SIDE_CHAIN_WINDOW = 256  # entries remembered: a chain's next names one of its latest


def on_sidechain(ctx: Context, entry: Entry) -> None:
    """Count an inline subagent's entry (older layout: every subagent's
    entries in the main file) against its Task: its chain opens with a user
    entry carrying the Task's prompt, and each later entry names its parent.
    An entry whose chain is not known (its parent not in the file) is the
    one Task's still at work, when only one is."""
    facts = ctx.facts
    subs = facts.subagents
    no = facts.side_chains.get(ctx.key(entry.parentUuid), -1) if entry.parentUuid else -1
    content = entry.message.content if entry.message is not None else None
    if no < 0 and entry.type == "user" and isinstance(content, str):
        key = ctx.key(content)
        no = next((i for i, sub in enumerate(subs) if sub.prompt_key == key and not sub.side_from),
                  -1)
    if no < 0:
        at_work = [i for i, sub in enumerate(subs) if not sub.status]
        no = at_work[0] if len(at_work) == 1 else -1
    if not 0 <= no < len(subs):
        return
    if entry.uuid:
        facts.side_chains[ctx.key(entry.uuid)] = no
        if len(facts.side_chains) > SIDE_CHAIN_WINDOW:
            del facts.side_chains[next(iter(facts.side_chains))]
    sub = subs[no]
    if ctx.entry_ts:
        sub.side_from = sub.side_from or ctx.entry_ts
        sub.side_to = ctx.entry_ts
    if entry.type == "assistant" and isinstance(content, list):
        calls = [block for block in content
                 if not isinstance(block, str) and block.type == "tool_use"]
        sub.side_calls += len(calls)
        sub.side_edits += sum(1 for block in calls if block.name in EDIT_TOOLS)
        # Its own reply ended its turn: it finished, whether or not its Task's
        # result reaches the main chain (review 23 #1: a file cut before it);
        # that reply is its report.
        if entry.message is not None and entry.message.stop_reason == "end_turn":
            if not sub.status:
                sub.status = "completed"
            words = "\n\n".join(block.text for block in content if not isinstance(block, str)
                                 and block.type == "text" and block.text)
            if words.strip() and not sub.report:
                sub.report = ctx.text(tx.cut(words, 8 * REPORT_CHARS), REPORT_CHARS)


def sidechain(ctx: Context) -> Context:
    """The context inline subagents' entries fold through, in this fold call."""
    if ctx.sidechain is None:
        facts = ctx.facts
        if facts.sidechain is None:
            facts.sidechain = Fold()
        ctx.sidechain = Context(facts.sidechain, ctx.redactor, agent=True)
        ctx.sidechain.memo = ctx.memo
    return ctx.sidechain


def _int(v: Any) -> int:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0
