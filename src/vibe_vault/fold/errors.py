"""Errors: failed tool calls and API errors, and whether the same thing later
succeeded. Feeds the note's Errors section."""

from __future__ import annotations

from vibe_vault import text as tx
from vibe_vault.entries import ToolInput
from vibe_vault.fold import verdicts
from vibe_vault.fold.context import Context
from vibe_vault.redact import Redacted
from vibe_vault.state import Action, ErrorRec, Pending, agent_kind
from vibe_vault.text import rx

MAX_ERRORS = 50  # as many as the note shows
ERROR_CHARS = 400
ERROR_LINES = 4  # "Task failed due to the following issue:" says nothing on its own
MAX_FAILED_KEYS = 100
API = Redacted("API")  # the "tool" of an API error
NO_KEY = Redacted("")
HEAD_SCAN = 12  # lines looked through for the error's first line
_EXIT_LINE = r"^Exit code -?\d+$"
_WARNING_LINE = (r"(?i)^(?:npm warn|warn(?:ing)?\b|\[warn|\S+: warning:|deprecat)"
                 r"|(?-i:\bWARN(?:ING)?\b)|level=warn"
                 # (and where it ran, before what it said: git's `On branch main`
                 # ahead of `nothing to commit`, a logger's info line)
                 r"|^(?:On branch \S+$|Your branch is |HEAD detached at )|level=info\b")
_ERROR_LINE = (r"(?i)(?:\berror\b|\bERR!|\bfatal\b|\bfailed\b|\bfailure\b|exception|traceback"
               r"|\bpanic|not found|no such file|cannot |can't |denied|\bFAIL\b)")
# Claude Code wraps a tool's refusal in these: the words inside are the error.
_WRAPPER = r"</?tool_use_error>"
_SHELLS = ("Bash", "PowerShell")


SUBJECT_CHARS = 160
# An MCP tool's input is its own: the first of these it gives is what it was about.
MAIN_ARGUMENTS = ("query", "url", "file_path", "path", "command", "pattern", "name", "title",
                  "id", "question", "prompt", "description")
_SEARCH_TOOLS = frozenset({"Grep", "Glob"})
_AGENT_TOOLS = frozenset({"Task", "Agent"})
# Other tools of Claude Code's whose input names what they were about.
_TOOL_SUBJECT = {"KillShell": "shell_id", "KillBash": "shell_id", "BashOutput": "bash_id",
                 "TaskOutput": "task_id", "AgentOutputTool": "agentId", "TaskStop": "task_id",
                 "WebSearch": "query",
                 "Skill": "skill", "SlashCommand": "command", "ToolSearch": "query",
                 "LSP": "file_path", "NotebookRead": "notebook_path", "LS": "path",
                 "AskUserQuestion": "question"}


def about(ctx: Context, call: Pending, inp: ToolInput, action: Action | None) -> None:
    """What an error of this call is to name, from its input, kept on the call
    till its result: a command's description and the command as the story
    shows it; a subagent's type and description; a search's pattern and
    folder; an MCP tool's (or another's) main argument. (Read, edits and
    WebFetch name their file or URL by their key.) Names through the gate,
    as the story's are, not counted as the note's secrets unless shown."""
    name = str(call.name)
    if name in _SHELLS:
        if action is not None:
            call.said, call.subject = action.said, action.text
    elif name in _AGENT_TOOLS:
        kind = agent_kind(str(inp.subagent_type or "general-purpose"),
                          " ".join(inp.name.split()) if isinstance(inp.name, str) else "")
        desc = inp.description if isinstance(inp.description, str) else ""
        call.said = ctx.name(f"{kind}: {desc}" if desc.strip() else kind, SUBJECT_CHARS)
    elif name in _SEARCH_TOOLS:
        call.subject = _argument(ctx, inp.pattern)
        call.place = _argument(ctx, inp.path)
    elif name.startswith("mcp__"):
        call.subject = next((a for a in (_argument(ctx, getattr(inp, k, None))
                                         for k in MAIN_ARGUMENTS) if a), NO_KEY)
    elif name in _TOOL_SUBJECT:
        call.subject = _argument(ctx, getattr(inp, _TOOL_SUBJECT[name], None))


def _argument(ctx: Context, value: object) -> Redacted:
    """An input's value as one line ("" for none: not a string or a number)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return NO_KEY
    said = " ".join(tx.cut(str(value), SUBJECT_CHARS * 4).split())  # (a prompt may be long)
    return ctx.name(said, SUBJECT_CHARS) if said else NO_KEY


def error(ctx: Context, tool: Redacted, text: str, timestamp: str, key: Redacted = NO_KEY,
          headed: bool = False, call: Pending | None = None) -> None:
    """Record an error; `key` (a command, a file) is what a later success must
    repeat; `headed`: the text's first line is the error's (a PowerShell record);
    `call`: the call that failed, whose input names what it was about."""
    facts = ctx.facts
    # A check's output (tests, a build, a linter) leads with the first line
    # its tool marks as failing: not a banner, a warning, or an assert that passed.
    failing = verdicts.first_failure(text) if tool in _SHELLS and not headed else ""
    shown = error_text(ctx, failing, True) if failing else error_text(ctx, text, headed)
    rec = ErrorRec(tool=tool, text=shown, ts=timestamp, seq=facts.seq, key=key)
    if call is not None:
        rec.said, rec.subject, rec.place = call.said, call.subject, call.place
        rec.purpose = call.purpose
        # A red phase: the tests failed as Claude said it meant them to.
        rec.expected = call.expects_failure and verdicts.failed_as_tests(tx.cut(text, 1 << 16))
        # An error case tried on purpose: its failure is the behaviour tried.
        rec.error_case = call.tries_error_case and not rec.expected
    facts.errors.append(rec)
    if len(facts.errors) > MAX_ERRORS:
        del facts.errors[0]
        facts.errors_dropped += 1
    if key and (key in facts.failed_keys or len(facts.failed_keys) < MAX_FAILED_KEYS):
        facts.failed_keys[key] = facts.seq
    if rec.purpose and (rec.purpose in facts.failed_purposes
                        or len(facts.failed_purposes) < MAX_FAILED_KEYS):
        facts.failed_purposes[rec.purpose] = facts.seq


def error_text(ctx: Context, text: str, headed: bool = False) -> Redacted:
    """An error's first non-empty lines, each collapsed, up to the limits; its
    first error line leads (a warning before it, or a bare `Exit code N`, says
    less than the error two lines below). When no line near the top reads as
    an error, the first that does near the end leads: a test runner's or a
    build's output opens with its banner and ends with what failed."""
    # Its lines taken after the gate, as the text after it is cut: a form of
    # many lines (a key's body, a list of 64 bytes, a JWT cut at its dots) of
    # which only the first few are shown would pass it in part.
    head = _lines(ctx.gated(tx.cut(text, ERROR_CHARS * 4)))
    at = 0 if headed else headline(head)
    if not headed and not _is_error(head[at:at + 1]):
        end = text[-ERROR_CHARS * 4:]
        tail = _lines(ctx.gated(end), cut_first=len(end) < len(text))
        found = next((i for i, line in enumerate(tail) if _is_error([line])), None)
        if found is not None:
            head, at = tail, found
    lines = head[at:][:ERROR_LINES]
    # (the secrets counted are those of the lines shown, as before)
    ctx.facts.redactions += sum(line.count("[REDACTED:") for line in lines)
    # Cut after the gate: a token cut in two first would pass it in part.
    return ctx.text("\n".join(lines), ERROR_CHARS)


def _lines(text: str, cut_first: bool | None = None) -> list[str]:
    """The first HEAD_SCAN non-empty lines of a text, each collapsed; with
    `cut_first` given, the last ones (past the first, when it was cut mid-line)."""
    if "tool_use_error>" in text:
        text = rx(_WRAPPER).sub("", text)
    raw = text.splitlines()
    if cut_first:
        raw = raw[1:]
    lines = [" ".join(r.split()) for r in raw]
    lines = [line for line in lines if line]
    return lines[:HEAD_SCAN] if cut_first is None else lines[-HEAD_SCAN:]


def shows_failure(output: str) -> bool:
    """Whether any line of a command's output reads as an error (not a
    warning), or a check's failure marker is in it."""
    return any(_is_error([line.strip()]) for line in output[-ERROR_CHARS * 8:].splitlines()
               if line.strip()) or verdicts.judge(output) == "failed"


def _is_error(lines: list[str]) -> bool:
    """Whether the (one) line reads as an error and not as a warning."""
    return bool(lines) and not rx(_WARNING_LINE).search(lines[0]) \
        and bool(rx(_ERROR_LINE).search(lines[0]))


def headline(lines: list[str]) -> int:
    """Where an error's message starts: past a leading `Exit code N`, at the
    first line that reads as an error, else the first that is no warning."""
    start = 1 if len(lines) > 1 and rx(_EXIT_LINE).match(lines[0]) else 0
    plain = -1
    for i in range(start, len(lines)):
        if rx(_WARNING_LINE).search(lines[i]):
            continue
        if rx(_ERROR_LINE).search(lines[i]):
            return i
        if plain < 0:
            plain = i
    return plain if plain >= 0 else start


def mended(ctx: Context, key: Redacted, purpose: Redacted = NO_KEY,
           subject: Redacted = NO_KEY) -> None:
    """A success of what failed before (the same command or file, or a
    command of the same purpose: fold.retries): those errors later succeeded.
    A fixing form's (`cargo fmt` after `cargo fmt --check`): those checks
    were later fixed by it (`subject`, the command as the story shows it)."""
    facts = ctx.facts
    if purpose:
        # (a purpose comes of fold.retries, loaded by then: a Stop of a turn
        # with no command does not load it)
        from vibe_vault.fold import retries

        if purpose.startswith(retries.FIX):
            check = Redacted(retries.CHECK + purpose[len(retries.FIX):])
            if check in facts.failed_purposes:
                del facts.failed_purposes[check]
                for err in facts.errors:
                    if err.purpose == check and not err.later_ok:
                        err.later_ok, err.fixed_by = True, subject
    same = bool(key) and key in facts.failed_keys
    alike = bool(purpose) and purpose in facts.failed_purposes
    if not same and not alike:
        return
    if same:
        del facts.failed_keys[key]
    if alike:
        del facts.failed_purposes[purpose]
    for err in facts.errors:
        if (same and err.key == key) or (alike and err.purpose == purpose):
            err.later_ok = True
