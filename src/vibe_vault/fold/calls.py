"""Tool calls and their results, paired once for every tool.

A `tool_use` block becomes a pending call (counted, numbered, timed, told in
the story by the tool's own handler); its `tool_result` closes it: status,
duration, error, then the tool's result handler. Handlers live in one module
per kind of fact, and are found here by tool name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec import Raw

from vibe_vault.entries import Block, Entry, ToolInput, ToolResult, decode_raw
from vibe_vault.fold import commands, errors, files, git, subagents, titles, todos, tools
from vibe_vault.fold.context import EXPLORE, CallEnd, Context
from vibe_vault.redact import Redacted
from vibe_vault.state import CLARIFY, FINISH_PLAN, NOT_RUN, Action, Pending
from vibe_vault.text import rx
from vibe_vault.times import epoch

MAX_RECENT_TOOLS = 64
MAX_PENDING = 256
NO_INPUT = ToolInput()
# How Claude Code words a tool call it did not run, by who refused it (read
# from the clients' own messages, 1.0.43 to 2.1.332): the status says who, and
# only the user's own refusal reads "denied by the user".
_BY_THE_USER = "The user doesn't want to"
# (a subagent's call the user refused: "… Try a different approach or report
# the limitation", or "… The user said:\n<words>")
_SUBAGENT_BY_THE_USER = "Permission for this tool use was denied. The tool use was rejected"
_REFUSALS = (  # (what the message says, status)
    ("by permission rule", "denied:rule"),  # "Agent type 'x' has been denied by permission rule"
    ("don't ask mode", "denied:mode"),
    ("PermissionRequest hook", "denied:hook"),
    ("safety check", "denied:check"),
)
_REFUSED_OPENINGS = ("Permission to ", "Agent type '", "Permission for this command",
                     "Permission denied by PermissionRequest hook")


# What Claude Code answers a call it cancelled unrun when one made beside it
# (in the same message) failed: the call did nothing, and failed at nothing.
_SIBLING_FAILED = (r"^\s*(?:Error: )?(?:<tool_use_error>)?\s*Sibling tool call errored\s*"
                   r"(?:</tool_use_error>)?\s*$")


def refusal(text: str) -> str:
    """The status of a call Claude Code did not run, from its error text
    ("" when it ran and failed): "denied" when the user said no, "denied:rule"
    (a permission rule), ":mode", ":hook", ":check", or "denied:" when the
    transcript says only "Permission to use … has been denied." (a rule, or
    auto mode's judgement: it does not say which)."""
    text = text.lstrip()
    if text.startswith("Error: "):
        text = text[len("Error: "):]
    if text.startswith(_BY_THE_USER) or text.startswith(_SUBAGENT_BY_THE_USER):
        return "denied"
    if not text.startswith(_REFUSED_OPENINGS) or "denied" not in text[:400]:
        return ""
    head = text[:400]
    return next((status for words, status in _REFUSALS if words in head), "denied:")


POWERSHELL = "PowerShell"
SHELLS = commands.SHELLS

OnCall = Callable[[Context, Pending, ToolInput, str], tuple[Action | None, bool]]
OnResult = Callable[[Context, Pending, Action | None, CallEnd], None]

ON_CALL: dict[str, OnCall] = {
    **dict.fromkeys(tools.EXPLORE_READ, tools.on_read),
    **dict.fromkeys(tools.EXPLORE_SEARCH, tools.on_search),
    **dict.fromkeys(tools.EXPLORE_LIST, tools.on_list),
    **dict.fromkeys(files.EDIT_TOOLS, files.on_call),
    **dict.fromkeys(subagents.AGENT_TOOLS, subagents.on_call),
    **dict.fromkeys(SHELLS, commands.on_call),
    "ExitPlanMode": todos.on_exit_plan_mode,
    "EnterPlanMode": todos.on_enter_plan_mode,
    "TodoWrite": todos.on_todo_write,
    "TaskCreate": todos.on_task_create,
    "TaskUpdate": todos.on_task_update,
    **dict.fromkeys(todos.STOP_TOOLS, todos.on_stop),
    "CronCreate": todos.on_cron_create,
    "CronDelete": todos.on_cron_delete,
    **dict.fromkeys(todos.OUTPUT_TOOLS, todos.on_output_call),
    "Monitor": todos.on_monitor,
    "ScheduleWakeup": todos.on_wakeup,
    "AskUserQuestion": tools.on_question,
    "WebFetch": tools.on_fetch,
    "WebSearch": tools.on_web_search,
    "ToolSearch": tools.on_tool_search,
    "Skill": tools.on_skill,
    "SlashCommand": tools.on_skill,
}
ON_RESULT: dict[str, OnResult] = {
    **dict.fromkeys(files.EDIT_TOOLS, files.on_result),
    **dict.fromkeys(subagents.AGENT_TOOLS, subagents.on_result),
    **dict.fromkeys(SHELLS, commands.on_result),
    "ExitPlanMode": todos.on_plan_answered,
    "TodoWrite": todos.on_todo_result,
    "TaskCreate": todos.on_task_created,
    "TeamCreate": todos.on_team_created,
    "TeamDelete": todos.on_team_deleted,
    **dict.fromkeys(todos.STOP_TOOLS, todos.on_stopped),
    "CronCreate": todos.on_cron_created,
    "CronDelete": todos.on_cron_deleted,
    **dict.fromkeys(todos.OUTPUT_TOOLS, todos.on_output),
    "Monitor": todos.on_monitor_started,
    "ScheduleWakeup": todos.on_wakeup_set,
    "AskUserQuestion": tools.on_answer,
    "Read": lambda ctx, call, action, outcome: _on_read_result(ctx, call, action, outcome),
    **dict.fromkeys(("Glob", "Grep"),
                    lambda ctx, call, action, outcome: files.on_listed(ctx, call, outcome)),
}


def _on_read_result(ctx: Context, call: Pending, action: Action | None,
                    outcome: CallEnd) -> None:
    tools.on_read_result(ctx, call, action, outcome)
    files.on_listed(ctx, call, outcome)
    files.on_read(ctx, call, outcome)
# Tools whose result waits for the user's answer.
_ASKS_THE_USER = frozenset({"AskUserQuestion", "ExitPlanMode"})
# Lines that stand for many calls keep no status of one of them.
_UNTIMED = frozenset({EXPLORE, "tool", "fetch"})


def on_tool_use(ctx: Context, block: Block, timestamp: str) -> None:
    facts = ctx.facts
    raw = block.name or "?"
    handler = ON_CALL.get(raw)
    # A tool of ours is named as it is; any other name passes the gate.
    name = Redacted(raw) if handler is not None else ctx.name(raw, 100)  # ours, or gated
    facts.tool_calls[name] = facts.tool_calls.get(name, 0) + 1
    facts.seq += 1
    inp = block.input if isinstance(block.input, ToolInput) else NO_INPUT
    call = Pending(name=name, seq=facts.seq, called_at=ctx.entry_epoch,
                   tool_id=ctx.key(block.id or ""))
    if raw in commands.SHELLS:
        call.beside = [key for key, other in facts.pending.items()
                       if other.name in subagents.AGENT_TOOLS][:8]
    action, merge = (handler or tools.on_other)(ctx, call, inp, timestamp)
    errors.about(ctx, call, inp, action)
    if action is not None:
        call.turn_no = ctx.turn_no()
        call.action_no = ctx.add_action(action, merge)
    facts.pending[call.tool_id] = call
    if len(facts.pending) > MAX_PENDING:
        # Calls whose results never came (interrupted): forget the oldest.
        del facts.pending[next(iter(facts.pending))]


# Where Claude Code puts the words a user typed when refusing a tool call or a
# plan: "… To tell you how to proceed, the user said:\n<words>" (2.1.x), "… The
# user provided the following reason for the rejection:  <words>" (2.0.x), and
# a subagent's call: "Permission for this tool use was denied. … NOT written
# to the file). The user said:\n<words>".
_USER_SAID = ("To tell you how to proceed, the user said:",
              "The user provided the following reason for the rejection:",
              "NOT written to the file). The user said:")
# What Claude Code appends to them, for Claude (2.1.1xx on): its notes, not
# the user's words.
_CLIENT_NOTES = ("\n\nNote: The user's next message may contain a correction",
                 "\n\nNote: If the user's feedback was about a specific file")


def refusal_words(text: str) -> str:
    """The user's own words in a refusal's message ("" when it holds none)."""
    for mark in _USER_SAID:
        at = text.find(mark)
        if at >= 0:
            return without_client_notes(text[at + len(mark):])
    return ""


def without_client_notes(words: str) -> str:
    """Words the user gave when refusing a call, without the notes Claude Code
    appends to them for Claude."""
    for note in _CLIENT_NOTES:
        at = words.find(note)
        if at >= 0:
            words = words[:at]
    return words.strip()


# What Claude Code sends as the "words" of a refusal when the user picks a
# choice of the question dialog (AskUserQuestion) rather than answering it:
# its own instructions to Claude, with the questions and any answers given so
# far. The user typed none of it: a choice, not a prompt (review 32 #18).
_DIALOG_CHOICES = (
    ("The user wants to clarify these questions.", CLARIFY),
    ("The user has indicated they have provided enough answers for the plan interview.",
     FINISH_PLAN),
)
# The questions in that text, each with its answer or "(No answer provided)":
# `- "<question>"\n  Answer: <answer>`.
_ASKED_ITEM = '\n- "'
_ANSWER = "  Answer: "


def dialog_choice(words: str) -> tuple[str, str] | None:
    """The question dialog's choice a refusal's words are the client's text
    of, and the answer given to its first question (""); None when the words
    are the user's."""
    head = words.lstrip()[:120]
    kind = next((k for opening, k in _DIALOG_CHOICES if head.startswith(opening)), "")
    if not kind:
        return None
    at = words.find(_ASKED_ITEM)
    lines = words[at + 1:].split("\n", 2) if at >= 0 else []
    answer = lines[1][len(_ANSWER):].strip() if len(lines) > 1 and \
        lines[1].startswith(_ANSWER) else ""
    return kind, answer


# Claude Code 2.0.0-2.0.36 run from an IDE (the VS Code extension answers the
# CLI's permission prompts, its `can_use_tool`) writes what the host answered
# a refused call with as the result itself: the words the user typed, bare
# ("please add transformer.js too first"), `toolUseResult` "Error: <words>".
# 2.0.37 on, the extension wraps them ("The user provided the following reason
# for the rejection:"); the terminal CLI never writes them bare. A command that
# failed has the same shape on those clients (its stderr and stdout, with no
# "Exit code" line before 2.0.37), so the words are told from a tool's output
# by what output has and typed words have not: they are one line, open with a
# letter, hold no "name: " label (`fatal: …`, `pull request create failed: …`,
# `/a/b.py:3:`) nor an error's word, and are not one of git's own lines.
_HOST_WORDS_FROM, _HOST_WORDS_UNTIL = (2, 0, 0), (2, 0, 37)
_OUTPUT_LIKE = (r"(?i)^(?:[^\s:]+(?:\s+[^\s:]+){0,4}):(?:\s|$)|\b(?:error|fatal|failed|failure|"
                r"denied|exception|traceback|not found|no such|cannot|can't|unable|invalid|"
                r"warning|usage|exit code|aborted|timed? ?out)\b|^(?:on branch|nothing to|"
                r"no changes|everything up|already up|your branch|head is now)")


def _client(version: str | None) -> tuple[int, ...]:
    parts = (version or "").split(".")[:3]
    return tuple(int(p) for p in parts if p.isdigit()) if len(parts) == 3 else ()


def host_refusal_words(ctx: Context, entry: Entry, content: Raw, text: str) -> str:
    """The words a user typed when refusing a call from an IDE on a client
    that writes them bare as the call's error (see above); "" otherwise."""
    if not ctx.facts.ide or bytes(content).lstrip()[:1] != b'"':  # a string, not blocks
        return ""
    if not _HOST_WORDS_FROM <= _client(entry.version) < _HOST_WORDS_UNTIL:
        return ""
    words = text.strip()
    if (entry.toolUseResult != "Error: " + text or not words or "\n" in words
            or not words[0].isalnum() or len(words.split()) < 3
            or rx(_OUTPUT_LIKE).search(words)):
        return ""
    return words


def on_tool_result(ctx: Context, block: Block, entry: Entry,
                   timestamp: str) -> tuple[str, str] | None:
    """Close the call this result answers. When the user refused it with words
    of their own (what to do instead), those words and the call's tool name."""
    facts = ctx.facts
    tid = ctx.key(block.tool_use_id or "")
    call = facts.pending.pop(tid, None)
    facts.expects_failure = False  # (Claude's words before this call were about it)
    facts.tries_error_case = False
    if call is None:
        return None
    facts.recent_tools.append(tid)
    ctx.recent.add(tid)
    if len(facts.recent_tools) > MAX_RECENT_TOOLS:
        ctx.recent.discard(facts.recent_tools.pop(0))
    # Decoded with the line, and only its few fields: a Read's result is a whole file.
    result = entry.toolUseResult if isinstance(entry.toolUseResult, ToolResult) else None
    is_error = bool(block.is_error)
    # The result's text is decoded only when it is read: an error's message,
    # a command's output when the structured result has no stdout, or what a
    # subagent reported.
    text = ""
    # (a subagent's report, for search; a check piped on, for its verdict)
    if (is_error or (call.name in SHELLS and not (result and result.stdout))
            or call.masked or call.name in subagents.AGENT_TOOLS
            # (a push: its output says whether git refused it, whatever the status)
            or call.git == git.GIT_PUSH
            # (a whole file read, where no result tells it: what a later edit changes)
            or (call.whole and result is None and not is_error)
            # (an edit told only in words: "File created successfully at: …")
            or (call.name == "Edit" and result is None and not is_error)
            # (a task's status told only in words: `<status>completed</status>`)
            or (call.name in todos.OUTPUT_TOOLS and result is None)):
        text = _result_text(decode_raw(block.content))
    now = ctx.entry_epoch
    ms = int((now - call.called_at) * 1000) if call.called_at and now >= call.called_at else None
    if call.name in _ASKS_THE_USER:
        ctx.user_waited = True  # the pause before its result was the user's to answer
    printed_error = False
    if not is_error and call.name == POWERSHELL:
        # PowerShell carries on after an error record it prints, and Claude Code
        # then marks no error: the call ran, it did not fail (a syntax check
        # printing `InvalidOperation: …` then `parse OK` proved nothing either
        # way). Not "ok" either: the record is told, not listed under Errors.
        printed = (result.stdout if result is not None and result.stdout else "") or \
            _result_text(decode_raw(block.content))
        printed_error = bool(commands.powershell_error(str(printed)))
    if commands.waited_for_permission(ctx, call, ms):
        ctx.user_waited = True  # not Claude's work (fold.active)
    if call.name in SHELLS:  # not a wait for the user's permission, as far as can be told
        ms = commands.run_ms(ctx, call, ms, text or str(result.stdout or "") if result else text)
    ran = result.durationMs if result is not None else None
    if isinstance(ran, (int, float)) and not isinstance(ran, bool) and 0 <= ran < 1e10:
        ms = int(ran)  # the client's own count of the tool's run: no wait in it
    host_words = ""
    refused = False
    if is_error:
        text = text or "error"
        status = refusal(text) or (NOT_RUN if rx(_SIBLING_FAILED).match(text[:200]) else "")
        if not status:
            host_words = host_refusal_words(ctx, entry, block.content, text)
            status = "denied" if host_words else "failed"
        if status == "denied":
            ctx.user_waited = True  # a permission prompt the user answered no
        if status == NOT_RUN:
            ms = None  # (it never ran: the time is its sibling's)
        if status == "failed":
            errors.error(ctx, call.name, text, timestamp, call.key, call=call)
    else:
        # A check piped on (`go test ./... | tail`): its output says how it ended.
        status = commands.masked_status(call, text) if call.masked else \
            commands.PRINTED_ERROR if printed_error else "ok"
        printed = str(result.stdout or "") if result is not None else ""
        if status == "ok" and call.git == git.GIT_PUSH and git.push_failed(
                text or printed + "\n" + str(result.stderr or "") if result is not None else text):
            # Git refused the push, its status hidden (`git push 2>&1 | tail
            # -3`, `|| true`): a failed push, as git's own status would say
            # (review 32 #20: a rejected push read "ok" and counted as sent).
            status = "failed"
            refused = True
        usage = commands.printed_usage(call, printed or text) if status == "ok" else ""
        if not usage and status == "ok" and call.test:
            # (a test command that ended well by its status, and ran no test)
            usage = commands.no_test_status(printed or text)
        if usage == commands.NO_TESTS:
            status = usage  # (no error: nothing failed)
        elif usage:
            # (its usage text, not what it was asked for: an error, whatever the status)
            status = usage
            errors.error(ctx, call.name, printed or text, timestamp, call.key, call=call)
        elif status == "failed":
            errors.error(ctx, call.name, text or printed, timestamp, call.key, call=call)
    if status == "ok":
        facts.last_ok[call.name] = call.seq
        if facts.failed_keys or facts.failed_purposes:
            errors.mended(ctx, call.key, call.purpose, call.subject)
    if not is_error and not facts.ticket_title and titles.ticket_named(facts):
        # (the title of a ticket the first request names only by its id)
        titles.note_ticket(ctx, text or (str(result.stdout or "") if result is not None else "")
                           or _result_text(decode_raw(block.content)))
    action = ctx.action_at(call)
    if action is not None and action.kind == "edit" and status != "ok" and action.times > 0:
        # An attempt that changed nothing (refused by a hook, failed) is not
        # one of the changes its line counts (review 30 #9: "2 changes" for a
        # file written once, after a refused Write).
        action.times -= 1
    # A line standing for several edits stays "edited" if any of them
    # succeeded; the failures are listed under Errors.
    if (action is not None and action.kind not in _UNTIMED
            and not (action.kind == "edit" and action.status == "ok")):
        action.status = status
    if action is not None and action.kind not in _UNTIMED:
        action.ms = ms
    started = epoch(action.ts) if action is not None and action.ts and now else None
    if action is not None and started is not None:
        since = now - started  # (from its first call, for a line of several)
        if since >= 0:
            action.done_ms = max(action.done_ms or 0, int(since * 1000))
    handler = ON_RESULT.get(call.name)
    if handler is not None:
        handler(ctx, call, action, CallEnd(status=status, text=text, result=result, ms=ms,
                                           ts=timestamp, exit_ok=not is_error,
                                           push_refused=refused))
    if status == "denied":
        said = host_words or refusal_words(text)
        if not said and isinstance(entry.userFeedback, str):  # 2.1.3xx: a field of its own
            said = without_client_notes(entry.userFeedback)
        choice = dialog_choice(said) if said else None
        if choice is not None:
            # A choice of the question dialog: told on the question's line,
            # never as the user's words.
            if action is not None and action.kind == "question":
                action.status = choice[0]
                if choice[1]:
                    action.detail = ctx.line(choice[1], 160)
            return None
        if said:
            return said, call.name
    return None


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [str(c.get("text") or "") for c in content
                 if isinstance(c, dict) and c.get("type") == "text"]
        return "\n".join(parts)
    return ""
