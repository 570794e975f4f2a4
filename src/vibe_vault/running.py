"""What a session left running, as Claude Code lists it on Stop and
SubagentStop (client 2.1.145+): `background_tasks` (id, type, status,
description, command) and `session_crons` (id, schedule, recurring, prompt).
A Stop that lists any is a session paused, not finished: the note's Open
threads shows them and backfill does not end it as idle while they run.

The lists are read bounded (a hook stays cheap whatever it is sent) and
tolerantly (an entry of another shape is counted, never fatal); every string
passes the gate before the state holds it. The transcript tells the same
work (fold.todos: background commands, monitors, CronCreate jobs) and wins:
an entry whose id the transcript knows is shown as the transcript tells it,
so once, and not at all once the transcript says it ended.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec import Struct, field

from vibe_vault.redact import Redacted
from vibe_vault.state import Running, SessionState

MAX_LISTED = 50  # entries kept of each list; the rest are counted
RAW_CHARS = 8192  # a string is cut to this before the gate (which bounds its own work)
ID_CHARS = 64
KIND_CHARS = 40
TEXT_CHARS = 240  # as a command is shown
SCHEDULE_CHARS = 60
# A task the client lists in one of these states has ended: not open.
ENDED = frozenset({"completed", "failed", "killed", "stopped", "cancelled", "canceled",
                   "done", "error", "errored", "timed_out", "timeout"})
CRON = "cron"


class Listed(Struct, frozen=True, omit_defaults=True):
    """The lists as the hook sent them, shapes checked, strings not yet gated:
    tasks as (id, type, description, command), crons as (id, schedule,
    prompt, recurring)."""

    tasks: list[tuple[str, str, str, str]] = field(default_factory=list)
    crons: list[tuple[str, str, str, bool]] = field(default_factory=list)
    more: int = 0  # entries beyond MAX_LISTED
    malformed: int = 0  # entries (or lists) of another shape
    tasks_known: bool = False  # background_tasks was a list: what it leaves out does not run
    crons_known: bool = False  # session_crons was one


def _s(item: dict[str, Any], key: str) -> str:
    v = item.get(key)
    return v[:RAW_CHARS] if isinstance(v, str) else ""


def _with_ids(raw: object) -> tuple[list[dict[str, Any]], int, int]:
    """A listed field's first MAX_LISTED entries that are objects with an id,
    the entries beyond them, and those of another shape (the field itself,
    when present and not a list)."""
    if raw is None:
        return [], 0, 0
    if not isinstance(raw, list):
        return [], 0, 1
    kept = raw[:MAX_LISTED]
    items = [item for item in kept
             if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"]]
    return items, max(0, len(raw) - MAX_LISTED), len(kept) - len(items)


def listed(event: dict[str, Any]) -> Listed | None:
    """The event's lists; None when it carries neither (a client before 2.1.145,
    or both not lists: nothing is known, so nothing changes)."""
    raw_tasks, raw_crons = event.get("background_tasks"), event.get("session_crons")
    if raw_tasks is None and raw_crons is None:
        return None
    task_items, tasks_more, tasks_malformed = _with_ids(raw_tasks)
    cron_items, crons_more, crons_malformed = _with_ids(raw_crons)
    tasks = [(_s(item, "id"), _s(item, "type"), _s(item, "description"), _s(item, "command"))
             for item in task_items if _s(item, "status").lower() not in ENDED]
    crons = [(_s(item, "id"), _s(item, "schedule"), _s(item, "prompt"),
              item.get("recurring") is not False) for item in cron_items]
    return Listed(tasks=tasks, crons=crons, more=tasks_more + crons_more,
                  malformed=tasks_malformed + crons_malformed,
                  tasks_known=isinstance(raw_tasks, list), crons_known=isinstance(raw_crons, list))


Gate = Callable[[str, int], Redacted]


def gated(found: Listed, gate: Gate) -> list[Running]:
    """The entries as the state holds them: each string through `gate`
    (a string, its limit -> one line, redacted, cut)."""
    out: list[Running] = []
    for job, kind, description, command in found.tasks:
        said = gate(description, TEXT_CHARS)
        out.append(Running(kind=gate(kind, KIND_CHARS) or Redacted("task"),
                           job=gate(job, ID_CHARS), text=gate(command, TEXT_CHARS) or said,
                           said=said))
    for job, schedule, prompt, recurring in found.crons:
        out.append(Running(kind=Redacted(CRON), job=gate(job, ID_CHARS),
                           text=gate(prompt, TEXT_CHARS), said=gate(schedule, SCHEDULE_CHARS),
                           once=not recurring))
    return out


def _key(running: Running) -> tuple[bool, str]:
    return running.kind == CRON, running.job


def take(state: SessionState, found: Listed, entries: list[Running], whole: bool) -> None:
    """A Stop's lists are what runs now (`whole`): they replace what an
    earlier one said, empty ones clear it. A SubagentStop's add to it (they
    may tell a subagent's own work only: what they leave out may still run)."""
    state.running_malformed += found.malformed
    if whole:
        # A list the event did not carry (or not as a list) tells nothing:
        # what an earlier Stop said of its kind stands.
        kept = [r for r in state.running
                if not (found.crons_known if r.kind == CRON else found.tasks_known)]
        if found.tasks_known or found.crons_known:
            state.running, state.running_more = kept + entries, found.more
        return
    seen = {_key(r) for r in state.running}
    for r in entries:
        if _key(r) not in seen and len(state.running) < 2 * MAX_LISTED:
            state.running.append(r)
            seen.add(_key(r))


def waiting(state: SessionState) -> bool:
    """Whether the client last said something of the session runs on."""
    return bool(state.running or state.running_more)


def told_by_hook_alone(state: SessionState) -> list[Running]:
    """What the client listed that the transcript does not tell: an entry whose
    id names a job of the transcript (a background command, a monitor, a
    CronCreate job) or a subagent is the transcript's to show (still running,
    or ended: the transcript says which), so it is never shown twice."""
    f = state.fold
    jobs = {(j.kind == CRON, j.job) for j in f.left_running}
    agents = {s.agent_id for s in f.subagents if s.agent_id} | {s.tool_id for s in f.subagents}
    # A wakeup (ScheduleWakeup) is listed as a cron that fires once, by its
    # prompt: the transcript has no id for it.
    wakeups = {j.job for j in f.left_running if j.kind == "wakeup"}
    return [r for r in state.running
            if _key(r) not in jobs and (r.kind == CRON or r.job not in agents)
            and not (r.kind == CRON and r.once and r.text in wakeups)]
