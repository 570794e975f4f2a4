"""Todo lists, tasks and plans, and work left running (background commands,
scheduled prompts). Feeds the note's Open threads section and the plans shown
in the story."""

from __future__ import annotations

import re
from typing import Any

from vibe_vault.entries import ToolInput
from vibe_vault.fold import subagents
from vibe_vault.fold.context import CallEnd, Context
from vibe_vault.fold.tools import on_other
from vibe_vault.redact import Redacted
from vibe_vault.state import Action, LeftRunning, Pending, Todo
from vibe_vault.text import lazy

MAX_TASKS = 200
MAX_TODOS = 100
TODO_CHARS = 160
PLAN_CHARS = 3000  # what changed in a plan, as shown
PLAN_FULL_CHARS = 20_000  # a plan shown whole (the longest in the corpus: 6k)
MAX_WAITING_CALLS = 8
TODO_STATES = frozenset({"pending", "in_progress", "completed", "deleted"})
# A task whose team's task list TeamDelete removed ("All team and task
# resources cleaned up"): no longer open, whether or not the lead marked it
# done (teammates complete theirs in their own sessions: review 30 #7).
TEAM_DELETED = "team_deleted"
# States of a task that is not open: done, deleted, or gone with its team.
CLOSED_STATES = frozenset({"completed", "deleted", TEAM_DELETED})


# -- TodoWrite: each call replaces the whole list, once its result says it did --------


def on_todo_write(ctx: Context, call: Pending, inp: ToolInput,
                  timestamp: str) -> tuple[Action | None, bool]:
    if isinstance(inp.todos, list):
        ctx.todo_calls[call.tool_id] = inp.todos
        if len(ctx.todo_calls) > MAX_WAITING_CALLS:
            del ctx.todo_calls[next(iter(ctx.todo_calls))]
    return None, False


def on_todo_result(ctx: Context, call: Pending, action: Action | None,
                   outcome: CallEnd) -> None:
    """A TodoWrite's list takes effect only when the call succeeded (a denied
    one changed nothing)."""
    facts = ctx.facts
    tid = call.tool_id
    ok = outcome.status == "ok"
    raw = ctx.todo_calls.pop(tid, None)
    if ok:
        if raw is not None:
            ctx.todos = raw
        elif tid == facts.todos_waiting_id:
            ctx.todos = None
            set_todos(ctx, facts.todos_waiting, facts.todos_waiting_secrets)
    if ok or tid == facts.todos_waiting_id:
        # An accepted list supersedes any older one still waiting.
        facts.todos_waiting, facts.todos_waiting_secrets, facts.todos_waiting_id = [], 0, ""


def finish(ctx: Context) -> None:
    """At the end of a read: the last accepted list is worked out (once, not
    at every call), and a call still waiting for its result is kept aside."""
    facts = ctx.facts
    if ctx.todo_calls:
        tid, raw = next(reversed(ctx.todo_calls.items()))
        facts.todos_waiting, facts.todos_waiting_secrets = todo_list(ctx, raw)
        facts.todos_waiting_id = tid
        ctx.todo_calls.clear()
    if ctx.todos is not None:
        set_todos(ctx, *todo_list(ctx, ctx.todos))
        ctx.todos = None


def todo_status(raw: Any) -> str:
    """One of Claude Code's todo states; anything else is still to do."""
    return raw if raw in TODO_STATES else "pending"


def todo_list(ctx: Context, raw: list[Any]) -> tuple[list[Todo], int]:
    todos: list[Todo] = []
    secrets = 0
    for item in raw[:MAX_TODOS]:
        if isinstance(item, dict):
            text, n = ctx.cleaned_line(str(item.get("content") or ""), TODO_CHARS)
            todos.append(Todo(text=text, status=todo_status(item.get("status"))))
            secrets += n
    return todos, secrets


def set_todos(ctx: Context, todos: list[Todo], secrets: int) -> None:
    facts = ctx.facts
    # Like a turn's answer, the list counts the secrets it holds now, so the
    # session's count does not depend on how many reads the list was seen in.
    facts.redactions += secrets - facts.todo_redactions
    facts.todos, facts.todo_redactions = todos, secrets


# -- TaskCreate / TaskUpdate (the task list of 2.1) ---------------------------------------


def on_task_create(ctx: Context, call: Pending, inp: ToolInput,
                   timestamp: str) -> tuple[Action | None, bool]:
    call.task_subject = ctx.line(str(inp.subject or inp.description or ""), TODO_CHARS)
    return None, False


def on_task_created(ctx: Context, call: Pending, action: Action | None,
                    outcome: CallEnd) -> None:
    facts = ctx.facts
    result = outcome.result
    task = result.task if result is not None else None
    if isinstance(task, dict) and task.get("id") is not None and len(facts.tasks) < MAX_TASKS:
        facts.tasks[ctx.name(str(task["id"]), 40)] = Todo(
            text=ctx.line(str(task.get("subject") or call.task_subject), TODO_CHARS),
            team=facts.team)


def on_team_created(ctx: Context, call: Pending, action: Action | None,
                    outcome: CallEnd) -> None:
    if outcome.status == "ok":
        ctx.facts.team = True


def on_team_deleted(ctx: Context, call: Pending, action: Action | None,
                    outcome: CallEnd) -> None:
    """TeamDelete removed the team and its task list: the tasks made while
    it existed and still open are closed with it."""
    facts = ctx.facts
    if outcome.status != "ok":
        return
    for task in facts.tasks.values():
        if task.team and task.status not in CLOSED_STATES:
            task.status = TEAM_DELETED
    facts.team = False


def on_task_update(ctx: Context, call: Pending, inp: ToolInput,
                   timestamp: str) -> tuple[Action | None, bool]:
    task = ctx.facts.tasks.get(ctx.name(str(inp.taskId or ""), 40))
    if task is not None and isinstance(inp.status, str) and task.status != TEAM_DELETED:
        task.status = todo_status(inp.status)
    return None, False


# -- plan mode -------------------------------------------------------------------------


def on_exit_plan_mode(ctx: Context, call: Pending, inp: ToolInput,
                      timestamp: str) -> tuple[Action | None, bool]:
    """The plan put to the user: the call's own (older clients), else what
    the plan file held when it was asked (2.1.197-2.1.332 take no plan in the
    call: the model writes it to the plan file first)."""
    plan = inp.plan.strip() if isinstance(inp.plan, str) else ""
    detail = ctx.text(plan, PLAN_FULL_CHARS, stated=True) if plan else ctx.facts.plan_draft
    return Action(kind="plan", ts=timestamp, detail=detail), False


def on_plan_answered(ctx: Context, call: Pending, action: Action | None,
                     outcome: CallEnd) -> None:
    if action is None:
        return
    status = outcome.status
    action.status = ("approved" if status == "ok" else
                     "rejected" if status.startswith("denied") else status)
    # The plan as the client read it from its plan file when approved (the
    # user may have edited it there before approving).
    result = outcome.result
    if result is not None and isinstance(result.plan, str) and result.plan.strip():
        action.detail = ctx.text(result.plan.strip(), PLAN_FULL_CHARS, stated=True)
    against_last_plan(ctx, action)


def against_last_plan(ctx: Context, action: Action) -> None:
    """A plan put to the user after another is told against it: the same text
    again is "unchanged" (it names when that text was put); a changed one
    that was not approved keeps only the lines it changed (`action.detail`
    the changed lines, `action.text` the time of the plan it changed,
    added/removed their counts); an approved plan is kept whole, with the
    same counts, so the plan that was carried out can always be read (a
    whole plan shown earlier is not repeated for it)."""
    plan = action.detail
    if not plan:
        return
    facts = ctx.facts
    last, last_ts = facts.plan_last, facts.plan_last_ts
    if last and plan == last:
        action.text = Redacted(last_ts)
        if action.status != "approved" or facts.plan_last_whole:
            action.detail = Redacted("")
        else:
            facts.plan_last_whole = True  # (shown whole here, still the plan of last_ts)
        return
    facts.plan_last, facts.plan_last_ts = plan, action.ts
    if not last:
        facts.plan_last_whole = True
        return
    from vibe_vault.textdiff import changed_lines  # (only for a plan changed)

    changed, added, removed = changed_lines(last, plan)
    action.text, action.added, action.removed = Redacted(last_ts), added, removed
    if action.status == "approved":
        facts.plan_last_whole = True
        return
    facts.plan_last_whole = False
    action.detail = ctx.text(changed, PLAN_CHARS, stated=True)


def on_enter_plan_mode(ctx: Context, call: Pending, inp: ToolInput,
                       timestamp: str) -> tuple[Action | None, bool]:
    return Action(kind="tool", text=Redacted("Entered plan mode"), ts=timestamp), False


# -- background work (2.1.2xx+: agents run in the background by default) -----------------

NOTICE_CHARS = 200_000  # of one notification read: its result (a report) is cut far below


def _tag(text: str, name: str, start: int = 0) -> str | None:
    """The text between `<name>` and the next `</name>` from `start`, stripped;
    None without both."""
    at = text.find(f"<{name}>", start)
    if at < 0:
        return None
    at += len(name) + 2
    end = text.find(f"</{name}>", at)
    return text[at:end].strip() if end >= 0 else None


def _count(text: str, name: str) -> int | None:
    found = _tag(text, name)
    return int(found) if found is not None and found.isdigit() and len(found) < 16 else None


def notices(text: str) -> list[subagents.Notice]:
    """The notifications of one user entry (one, or several sent together).
    Read by finding tags, not by a pattern: a report may be long, and its
    own words may hold anything."""
    out = []
    for block in text[:NOTICE_CHARS].split("<task-notification>")[1:]:
        block = block.split("</task-notification>", 1)[0]
        # The report comes before the usage, and may itself mention tags:
        # the usage is read after its last `</result>`.
        cut = block.rfind("</result>")
        start = block.find("<result>")
        result = block[start + 8:cut].strip() if 0 <= start < cut else None
        head = block[:start] if start >= 0 else block
        tail = block[cut:] if cut >= 0 else block
        out.append(subagents.Notice(
            task_id=_tag(head, "task-id") or "", tool_id=_tag(head, "tool-use-id") or "",
            status=(_tag(head, "status") or "")[:40], result=result,
            tokens=_count(tail, "subagent_tokens"), tool_uses=_count(tail, "tool_uses"),
            ms=_count(tail, "duration_ms")))
    return out


def on_notification(ctx: Context, text: str) -> None:
    """A `<task-notification>` the client sends the model when background work
    stops: the subagent or command it names (by its tool call's id or its
    task id) is no longer running."""
    for notice in notices(text):
        if subagents.on_notice(ctx, notice):
            continue
        key = ctx.key(notice.tool_id) if notice.tool_id else ""
        task = ctx.name(notice.task_id, 64) if notice.task_id else ""
        for job in ctx.facts.left_running:
            if not job.status and ((key and job.tool_id == key) or (task and job.job == task)):
                job.status = ctx.name(notice.status, 40) or "stopped"


# -- commands left running, scheduled prompts ---------------------------------------------

MAX_LEFT_RUNNING = 100
_BACKGROUND_ID = lazy(r"with ID: ([A-Za-z0-9_-]{1,64})")
_NOT_RUNNING = lazy(r"is not running \(status: ([a-z_]{1,40})\)")
STOP_TOOLS = ("TaskStop", "KillShell", "KillBash")


def _left(ctx: Context, call: Pending, outcome: CallEnd, kind: str, job: Redacted,
          text: Redacted, until: str = "") -> None:
    """Keep the job `call` set going, as its result `outcome` said."""
    if len(ctx.facts.left_running) < MAX_LEFT_RUNNING:
        ctx.facts.left_running.append(LeftRunning(kind=kind, job=job, text=text,
                                                  tool_id=call.tool_id, ts=outcome.ts,
                                                  until=until))


def _task_id(given: object, outcome: CallEnd, said: re.Pattern[str]) -> str:
    """The client's id for a task it started: its result's field, else read
    from the result's text."""
    if isinstance(given, str):
        return given
    found = said.search(outcome.text[:2000])
    return found.group(1) if found else ""


# What asks for a background task's output and status: TaskOutput, and its
# older names (AgentOutputTool for a subagent, 2.0.x; BashOutput for a command).
OUTPUT_TOOLS = ("TaskOutput", "AgentOutputTool", "BashOutput")
TASKS = ("shell", "monitor")  # what TaskStop stops, TaskOutput tells of: background tasks


def _job(ctx: Context, kind: str | tuple[str, ...], job_id: Redacted) -> LeftRunning | None:
    """The running (or scheduled) job of `kind` with the client's id `job_id`."""
    kinds = (kind,) if isinstance(kind, str) else kind
    for job in ctx.facts.left_running:
        if job.kind in kinds and job.job == job_id and not job.status:
            return job
    return None


def started_in_background(ctx: Context, call: Pending, action: Action | None,
                          outcome: CallEnd) -> None:
    """A Bash command whose result came as it started: it runs on until a
    notification, a stop or the end of the session."""
    result = outcome.result
    raw = _task_id(result.backgroundTaskId if result is not None else None, outcome,
                   _BACKGROUND_ID)
    text = action.text if action is not None else Redacted(call.key.removeprefix("cmd:"))
    _left(ctx, call, outcome, "shell", ctx.name(raw, 64), text)


def on_stop(ctx: Context, call: Pending, inp: ToolInput,
            timestamp: str) -> tuple[Action | None, bool]:
    """TaskStop (KillShell, KillBash on older clients): the task it stops."""
    raw = inp.task_id if isinstance(inp.task_id, str) else inp.shell_id
    call.key = ctx.name(raw if isinstance(raw, str) else "", 64)
    return on_other(ctx, call, inp, timestamp)


def on_stopped(ctx: Context, call: Pending, action: Action | None, outcome: CallEnd) -> None:
    job = _job(ctx, TASKS, call.key)
    if job is None:
        return
    if outcome.status == "ok":
        job.status = "stopped"
        return
    found = _NOT_RUNNING.search(outcome.text[:2000])
    if found:  # it had ended already: the client says how
        job.status = found.group(1)


def on_output_call(ctx: Context, call: Pending, inp: ToolInput,
                   timestamp: str) -> tuple[Action | None, bool]:
    """TaskOutput (BashOutput on older clients): the task it asks about."""
    raw = next((v for v in (inp.task_id, inp.bash_id, inp.shell_id, inp.agentId)
                if isinstance(v, str)), "")
    call.key = ctx.name(raw, 64)
    return on_other(ctx, call, inp, timestamp)


def on_output(ctx: Context, call: Pending, action: Action | None, outcome: CallEnd) -> None:
    """Its answer tells the task's status (TaskOutput and AgentOutputTool in
    `task`, BashOutput at the top, else the `<status>` of its text): one no
    longer running has ended so, a background subagent as well as a command."""
    result = outcome.result
    if outcome.status != "ok":
        return
    task = result.task if result is not None else None
    status = task.get("status") if isinstance(task, dict) else \
        result.status if result is not None else None
    if not isinstance(status, str) or not status:
        status = _tag(outcome.text[:2000], "status") or ""
    if status.lower() in ("running", "pending", ""):
        return
    job = _job(ctx, TASKS, call.key)
    if job is not None:
        job.status = ctx.name(status, 40)
        return
    # A background subagent's end, asked for (its id: the launch's agentId).
    given = task.get("task_id") if isinstance(task, dict) else None
    agent = ctx.name(given, 64) if isinstance(given, str) and given else call.key
    if agent:
        subagents.on_notice(ctx, subagents.Notice(
            task_id="", tool_id="", status=status[:40], result=None, tokens=None,
            tool_uses=None, ms=None), agent=Redacted(agent))


_MONITOR_ID = lazy(r"Monitor started \(task ([A-Za-z0-9_-]{1,64})")


def on_monitor(ctx: Context, call: Pending, inp: ToolInput,
               timestamp: str) -> tuple[Action | None, bool]:
    """A Monitor (2.1.3xx): a script whose output lines come as notifications
    until it exits, expires or is stopped: a background task."""
    what = next((v for v in (inp.description, inp.command) if isinstance(v, str) and v.strip()),
                "")
    call.key = ctx.line(what, TODO_CHARS)
    return on_other(ctx, call, inp, timestamp)


def on_monitor_started(ctx: Context, call: Pending, action: Action | None,
                       outcome: CallEnd) -> None:
    if outcome.status != "ok":
        return
    result = outcome.result
    raw = _task_id(result.taskId if result is not None else None, outcome, _MONITOR_ID)
    _left(ctx, call, outcome, "monitor", ctx.name(raw, 64), call.key or Redacted("Monitor"))


WAKEUP_KEY_CHARS = 240  # as vibe_vault.running keeps a listed cron's prompt: the two compare


def on_wakeup(ctx: Context, call: Pending, inp: ToolInput,
              timestamp: str) -> tuple[Action | None, bool]:
    """ScheduleWakeup (/loop paced by the model): its prompt fires once at the
    time the result names; `stop` ends the loop (key and subject left empty:
    a wakeup without a prompt is refused by the client)."""
    if inp.stop is not True:
        prompt = inp.prompt if isinstance(inp.prompt, str) else ""
        call.key = ctx.line(prompt, WAKEUP_KEY_CHARS)
        # The autonomous loop's sentinel (`<<autonomous-loop-dynamic>>`) says
        # nothing to a reader: the reason given for the wait does.
        shown = inp.reason if prompt.startswith("<<") and isinstance(inp.reason, str) else prompt
        call.task_subject = ctx.line(shown, TODO_CHARS) or Redacted("a wake-up")
    return on_other(ctx, call, inp, timestamp)


def on_wakeup_set(ctx: Context, call: Pending, action: Action | None,
                  outcome: CallEnd) -> None:
    if outcome.status != "ok":
        return
    # One loop, one wakeup waiting: a new one (or a stop) replaces it, and
    # only the last is kept (a loop of days sets hundreds).
    facts = ctx.facts
    facts.left_running = [j for j in facts.left_running if j.kind != "wakeup"]
    result = outcome.result
    when = result.scheduledFor if result is not None else None
    if not call.task_subject or not isinstance(when, (int, float)) or isinstance(when, bool) \
            or not 0 < when < 1e14:  # (epoch ms: before the year 5000)
        return
    from vibe_vault.times import utc_iso_of_epoch

    _left(ctx, call, outcome, "wakeup", call.key, call.task_subject,
          until=utc_iso_of_epoch(when / 1000))


def on_cron_create(ctx: Context, call: Pending, inp: ToolInput,
                   timestamp: str) -> tuple[Action | None, bool]:
    none = Redacted("")
    call.key = ctx.line(inp.prompt, TODO_CHARS) if isinstance(inp.prompt, str) else none
    call.task_subject = ctx.line(inp.cron, 60) if isinstance(inp.cron, str) else none
    return on_other(ctx, call, inp, timestamp)


def on_cron_created(ctx: Context, call: Pending, action: Action | None,
                    outcome: CallEnd) -> None:
    result = outcome.result
    if outcome.status != "ok" or result is None or not isinstance(result.id, str):
        return
    # The schedule in the client's words ("Every 5 minutes"), else its cron
    # expression as code (its stars are no emphasis).
    human = result.humanSchedule
    schedule = (ctx.line(human, 60) if isinstance(human, str) and human else
                f"`{call.task_subject}`" if call.task_subject and "`" not in call.task_subject
                else "")
    text = Redacted(f"{call.key} ({schedule})" if schedule else call.key)
    _left(ctx, call, outcome, "cron", ctx.name(result.id, 64), text)


def on_cron_delete(ctx: Context, call: Pending, inp: ToolInput,
                   timestamp: str) -> tuple[Action | None, bool]:
    call.key = ctx.name(inp.id if isinstance(inp.id, str) else "", 64)
    return on_other(ctx, call, inp, timestamp)


def on_cron_deleted(ctx: Context, call: Pending, action: Action | None,
                    outcome: CallEnd) -> None:
    job = _job(ctx, "cron", call.key)
    if job is not None and outcome.status == "ok":
        job.status = "deleted"


def still_running(fold: Any) -> list[LeftRunning]:
    """Commands and monitors left running and prompts left scheduled when the
    transcript ends: a wakeup the session's entries have gone past has fired."""
    from vibe_vault.times import epoch

    return [j for j in fold.left_running if not j.status
            and not (j.until and fold.last_epoch >= (epoch(j.until) or float("inf")))]


def running_in_background(fold: Any) -> list[Any]:
    """The subagents launched in the background that have not reported back:
    work the session is still waiting on."""
    return [s for s in fold.subagents if s.status == subagents.LAUNCHED]
