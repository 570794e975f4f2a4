"""Issue 29, second review: headline facts checked against the transcript's JSON.

Each test generates a transcript (branches, turns with and without Claude
Code's `turn_duration`, PowerShell output, interrupted turns, git history
rewritten later in the session), and the expected fact is computed here from
the generated JSON alone: the entries' `gitBranch`, their timestamps, the
PowerShell error records in the output, what `git log` printed at the end.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, main_files
from test_headlines import Transcript, phrase
from vibe_vault.entries import decode_line
from vibe_vault.fold import active, fold
from vibe_vault.locations import tool_key
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState

hexsha = st.text(alphabet="0123456789abcdef", min_size=7, max_size=7)


def frontmatter_of(note: str) -> str:
    return note.split("\n---\n", 1)[0] + "\n"


# -- the branch ------------------------------------------------------------------------

branch_value = st.sampled_from(["main", "feature/x", "HEAD", "worktree-agent-a4ca7529"])


@settings(max_examples=80, deadline=None)
@given(branches=st.lists(branch_value, min_size=1, max_size=8))
def test_the_branch_is_where_the_session_ended_and_a_detached_head_is_none(
        branches: list[str]) -> None:
    """`branch:` is the gitBranch of the session's last entry naming one that
    is not a subagent's worktree (the first worktree one if no other is
    named); `HEAD` (a detached HEAD) is no branch: said as nothing, never
    listed among the branches."""
    t = Transcript()
    t.on_branches(branches)
    named = [line["gitBranch"] for line in t.lines if line.get("gitBranch")]
    own = [b for b in named if not b.startswith("worktree-agent-")]
    last = own[-1] if own else named[0]
    head = frontmatter_of(render(t.state()))
    expected = "null" if last == "HEAD" else last
    assert f"\nbranch: {expected}\n" in head, head
    assert "HEAD" not in head.split("\nbranch:", 1)[1].split("\nmodels:", 1)[0], head


@settings(max_examples=30, deadline=None)
@given(subject=phrase, sha=hexsha, quiet=st.booleans())
def test_a_commit_on_a_detached_head_is_on_no_branch(subject: str, sha: str,
                                                      quiet: bool) -> None:
    t = Transcript()
    t.prompt("commit it")
    t.lines[-1]["gitBranch"] = "HEAD"
    if quiet:
        t.bash(f'git commit -q -m "{subject}"')
        t.bash("git log --oneline -1", f"{sha} {subject}\n")
    else:
        t.bash(f'git commit -m "{subject}"',
               f"[detached HEAD {sha}] {subject}\n 1 file changed, 1 insertion(+)\n")
    for line in t.lines:
        line["gitBranch"] = "HEAD"
    state = t.state()
    assert [(c.sha, c.subject, c.branch) for c in state.fold.commits] == [(sha, subject, "")]
    note = render(state)
    assert "HEAD`" not in note and "\nbranch: null\n" in note




# -- active time -----------------------------------------------------------------------

IDLE_S = 300  # the README's rule: a pause of 5 minutes or more within a turn is not work
QUICK_S = 10  # an edit's result later than this waited for the user's permission
T0 = 1_770_000_000_000  # ms


class Timed:
    """A main transcript written entry by entry at chosen times (ms)."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.at = T0
        self.n = 0

    def add(self, after_ms: int, obj: dict[str, Any]) -> None:
        self.at += after_ms
        self.n += 1
        iso = datetime.fromtimestamp(self.at / 1000, UTC).isoformat(
            timespec="milliseconds").replace("+00:00", "Z")
        self.lines.append({"uuid": f"00000000-0000-4000-8000-{self.n:012d}",
                           "sessionId": SID, "cwd": "/work/app", "version": "2.1.50",
                           "timestamp": iso, **obj})

    def user(self, after_ms: int, content: Any) -> None:
        self.add(after_ms, {"type": "user", "message": {"role": "user", "content": content}})

    def assistant(self, after_ms: int, block: dict[str, Any]) -> None:
        self.add(after_ms, {"type": "assistant", "message": {
            "id": f"msg_{self.n}", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [block], "usage": {"input_tokens": 1, "output_tokens": 1}}})


SID = "0b1c2d3e-0000-4000-8000-00000000aaaa"
# A pause: mostly seconds, some just under or over the idle threshold, some long.
pause_ms = st.one_of(st.integers(0, 20_000), st.integers(IDLE_S * 1000 - 2000, IDLE_S * 1000 + 2000),
                     st.integers(60_000, 900_000))
opening = st.sampled_from(["prompt", "image", "slash", "bang", "notification"])
step = st.tuples(st.sampled_from(["text", "tool", "refused", "ask", "progress", "queued",
                                  "untimed", "edit"]),
                 pause_ms, pause_ms)
turn_plan = st.tuples(opening, pause_ms, st.lists(step, min_size=0, max_size=6),
                      st.one_of(st.none(), st.integers(0, 3_600_000)))


def write_turns(turns: list[tuple[str, int, list[tuple[str, int, int]], int | None]],
                leftover: int | None = None, local: int | None = None) -> tuple[Timed, int]:
    """The transcript, and its active time in ms worked out from the times written:
    a turn's turn_duration where one is written, else the sum of the pauses
    between its entries (from its opening on) under the threshold, but for the
    pause before the user's answer (a refused tool, a question)."""
    t = Timed()
    expected = 0
    tool = 0
    spans: list[int] = []  # the pauses within the turn being written that are work
    span = waits = 0  # all its pauses from its opening on, and those that were the user's

    def work(ms: int) -> None:
        nonlocal span
        span += ms
        if ms < IDLE_S * 1000:
            spans.append(ms)

    def wait(ms: int) -> None:
        nonlocal span, waits
        span += ms
        waits += ms

    if leftover is not None:  # the end of a turn that began before the file: none of it here
        t.add(0, {"type": "system", "subtype": "turn_duration", "durationMs": leftover,
                  "isMeta": False})
        t.add(leftover // 2, {"type": "system", "subtype": "stop_hook_summary",
                              "hookCount": 1, "isMeta": False})
    for n, (kind, before, steps, duration) in enumerate(turns):
        spans.clear()
        span = waits = 0
        if kind == "prompt":
            t.user(before, f"please do step {n}")
        elif kind == "image":  # a pasted image alone is a prompt too
            t.user(before, [{"type": "image", "source": {"type": "base64",
                                                         "media_type": "image/png",
                                                         "data": "iVBORw0KGgo="}}])
        elif kind == "slash":
            t.user(before, f"<command-name>/review</command-name>\n<command-message>review"
                           f"</command-message>\n<command-args>part {n}</command-args>")
        elif kind == "bang":
            t.user(before, f"<bash-input>ls dir{n}</bash-input>")
            t.user(40, "<bash-stdout>a\nb</bash-stdout><bash-stderr></bash-stderr>")
            work(40)
        else:
            t.user(before, "<task-notification>\n<task-id>b1</task-id>\n<status>completed"
                           "</status>\n</task-notification>")
        for what, first, second in steps:
            tool += 1
            tid = f"toolu_{tool:04d}"
            if what == "text":
                t.assistant(first, {"type": "text", "text": f"Working on {n}."})
                work(first)
            elif what == "progress":
                t.add(first, {"type": "progress", "data": {"type": "hook_progress"}})
                work(first)
            elif what == "untimed":  # a line with no time: no pause before it
                t.lines.append({"type": "file-history-snapshot", "messageId": f"m{tool}",
                                "snapshot": {"trackedFileBackups": {}}})
            elif what == "queued":
                t.add(first, {"type": "attachment", "attachment": {
                    "type": "queued_command", "prompt": f"also check {tool}"}})
                work(first)
            elif what == "edit":  # runs at once: a longer result is a wait for permission
                t.assistant(first, {"type": "tool_use", "id": tid, "name": "Edit", "input": {
                    "file_path": "/work/app/a.py", "old_string": "a", "new_string": "b"}})
                work(first)
                t.user(second, [{"type": "tool_result", "tool_use_id": tid,
                                 "content": "The file /work/app/a.py has been updated."}])
                (wait if second > QUICK_S * 1000 else work)(second)
            else:
                name = "AskUserQuestion" if what == "ask" else "Bash"
                t.assistant(first, {"type": "tool_use", "id": tid, "name": name,
                                    "input": {"command": "make"} if name == "Bash" else {}})
                work(first)
                block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid,
                                         "content": "done"}
                if what == "refused":
                    block.update(is_error=True, content=(
                        "The user doesn't want to proceed with this tool use. The tool use "
                        "was rejected (eg. if it was a file edit, the new_string was NOT "
                        "written to the file). STOP what you are doing and wait for the user "
                        "to tell you how to proceed."))
                elif what == "ask":
                    block["content"] = "User has answered your questions: \"Which?\"=\"A\"."
                t.user(second, [block])
                (work if what == "tool" else wait)(second)
                if what == "refused":
                    t.user(30, [{"type": "text",
                                 "text": "[Request interrupted by user for tool use]"}])
                    work(30)
        if duration is not None:
            t.add(5, {"type": "system", "subtype": "turn_duration", "durationMs": duration,
                      "isMeta": False})
            span += 5
            expected += min(duration, span - waits)  # at most its time in the file
        else:
            expected += sum(spans)
    if local is not None:  # a local command after a pause: the pause was the user's
        t.user(local, "Caveat: The messages below were generated by the user while running "
                      "local commands. DO NOT respond to these messages or otherwise consider "
                      "them in your response unless the user explicitly asks you to.")
        t.lines[-1]["isMeta"] = True
        t.user(0, "<command-name>/model</command-name>\n<command-message>model"
                  "</command-message>\n<command-args></command-args>")
        t.user(0, "<local-command-stdout>Kept model as opus</local-command-stdout>")
    return t, expected


@settings(max_examples=examples(40, 150), deadline=None)
@given(turns=st.lists(turn_plan, min_size=1, max_size=6), cut=st.integers(0, 60),
       leftover=st.one_of(st.none(), st.integers(0, 3_600_000)),
       local=st.one_of(st.none(), pause_ms))
def test_active_time_is_each_turns_own_time_with_or_without_turn_duration(
        turns: list[tuple[str, int, list[tuple[str, int, int]], int | None]], cut: int,
        leftover: int | None, local: int | None) -> None:
    """Turns with and without Claude Code's turn_duration (2.1.x writes it for
    most turns, not for one cut off by the session's end; 1.0.x never): the
    active minutes are the timed turns' durations, each at most its time in
    the file less the user's waits in it, plus, for the others, the time from
    their opening to their last entry without pauses of 5 minutes or more and
    without the user's own time to answer (a refused call, a question, an
    edit's permission); time between turns never counts, nor the turn a file
    opens with the end of (a leftover turn_duration), nor the pause before a
    local command. Read whole or in two pieces (a hook's reads), the same."""
    t, expected = write_turns(turns, leftover, local)
    lines = [json.dumps(x).encode() for x in t.lines]
    whole = fold(Fold(), (decode_line(x) for x in lines))
    assert active.active_ms(whole) == expected
    at = min(cut, len(lines))
    pieces = fold(fold(Fold(), (decode_line(x) for x in lines[:at])),
                  (decode_line(x) for x in lines[at:]))
    assert active.active_ms(pieces) == expected
    head = frontmatter_of(render(SessionState(session_id=SID, project="app", fold=whole)))
    assert f"\nactive_minutes: {(expected + 30_000) // 60_000}\n" in head, head


@pytest.mark.corpus
def test_every_corpus_sessions_active_time_is_its_turns_time() -> None:
    """Every corpus transcript (1.0.x to 2.1.x; with, without and with some
    turn_durations): the fold's active time equals the time worked out here
    from the JSON by the README's rule."""
    checked = 0
    for path in main_files():
        lines = [x for x in path.read_bytes().split(b"\n") if x.strip()]
        facts = fold(Fold(), (decode_line(x) for x in lines))
        want = active_time_of(lines)
        assert abs(active.active_ms(facts) - want) <= 2, path
        checked += 1
    assert checked > 20


_LOCAL_CAVEAT = "Caveat: The messages below were generated by the user while running local"
_NOT_A_PROMPT = ("[Request interrupted", "<local-command-stdout>", "<local-command-stderr>",
                 "Caveat:", "<bash-stdout>", "<bash-stderr>")


def _stamp(obj: dict[str, Any]) -> float | None:
    ts = obj.get("timestamp")
    if not isinstance(ts, str):
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def active_time_of(lines: list[bytes]) -> int:
    """Active ms from a transcript's JSON: turns open at a prompt (typed words,
    an image, a slash or `!` command, a task notification, the caveat Claude
    Code writes before a local command) or, in a file whose first timed line is
    Claude's, at that line; they end at a turn_duration (their time,
    at most the time from their first line in the file to it less the user's
    waits in it) or at the next prompt (their time is then the pauses under 5
    minutes between their entries). A pause that ends at the answer to a
    refused call or a question, at an edit's result over 10 s later than its
    call (unless edits were accepted or permissions bypassed), or at a
    command's result over 3.5 s after its call without a progress line where
    the client writes them (and permissions were not bypassed), is the user's;
    so is the time from a command's call to when its first progress line says
    it began (its time less its elapsed seconds), when that is over a second.
    A turn_duration shorter than the time Claude waited on its subagents (each
    from its call to its result, once where they overlap) left that out: the
    turn's time is then the two together, at most its span less the waits.
    Queue lines (`queue-operation`) are the turn's entries only when Claude
    works on after them: the pauses up to those that stamp the next prompt
    (2.0.x writes an enqueue and a dequeue before every prompt) were the
    user's (review 19, finding 1)."""
    total, spans, in_turn, last = 0, [], False, None
    start, waits = None, 0
    asks: dict[str, bool] = {}
    calls: dict[str, tuple[str, float | None]] = {}  # tool id: its name, when it was called
    progressed: set[str] = set()
    mode, writes_progress = "", False
    opened = False  # a timed line seen
    agents, agents_until = 0, 0.0  # the turn's time waiting on subagents (ms), till when
    queued = 0  # the pauses up to queue lines since the turn's last other entry (ms)
    ide = any(b"<ide_opened_file>" in raw or b"<ide_selection>" in raw for raw in lines)
    for raw in lines:
        try:
            e = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(e, dict):
            continue
        if isinstance(e.get("permissionMode"), str) and e["permissionMode"]:
            mode = e["permissionMode"]
        stamp, gap = _stamp(e), 0.0
        if stamp is not None:
            if last is not None and stamp >= last:
                gap = stamp - last
            if last is None or stamp >= last:
                last = stamp
        starts = waited = False
        held = 0.0  # the seconds of this pause before a command began (the user's)
        msg = e.get("message") if isinstance(e.get("message"), dict) else {}
        content = msg.get("content")
        data = e.get("data") if isinstance(e.get("data"), dict) else {}
        if e.get("type") == "progress" and data.get("type") == "bash_progress" and \
                e.get("parentToolUseID"):
            writes_progress = True
            tid = str(e["parentToolUseID"])
            elapsed = data.get("elapsedTimeSeconds")
            called = calls.get(tid, ("", None))[1]
            if (tid not in progressed and stamp is not None and called is not None
                    and isinstance(elapsed, (int, float)) and mode != "bypassPermissions"
                    and stamp - elapsed - called > 1.0):
                # It began over a second after its call: a permission prompt
                # held it till then. The part of this pause, and of those
                # before it since its call (in this turn), are the user's.
                began = stamp - elapsed
                held = min(gap, max(0.0, began - (stamp - gap)))
                earlier = min(stamp - gap, began) - max(called, start or called)
                if queued:  # (Claude works on past queue lines: their pauses are the turn's)
                    spans.append(queued)
                    queued = 0
                if 0 < earlier < IDLE_S:
                    ms = round(earlier * 1000)
                    spans.append(-min(sum(spans), ms))
                    waits += ms
            progressed.add(tid)
        if (e.get("type") == "user" and not e.get("isSidechain") and e.get("isMeta")
                and isinstance(content, str) and content.startswith(_LOCAL_CAVEAT)):
            starts = True
        elif (e.get("type") == "user" and not e.get("isSidechain") and not e.get("isMeta")
                and not e.get("isCompactSummary")):
            parts = [b for b in content if isinstance(b, dict)] if isinstance(content, list) \
                else []
            results = [b for b in parts if b.get("type") == "tool_result"]
            for b in results:
                tid = str(b.get("tool_use_id"))
                text = b.get("content") if isinstance(b.get("content"), str) else \
                    json.dumps(b.get("content"))
                if (b.get("is_error") and "The user doesn't want to" in text[:200]) or \
                        asks.get(tid):
                    waited = True
                if (b.get("is_error") and ide and re.match(r"2\.0\.([0-9]|[12][0-9]|3[0-6])$",
                                                           str(e.get("version")))
                        and e.get("toolUseResult") == f"Error: {text}" and "\n" not in text
                        and text[:1].isalpha()):
                    waited = True  # words typed when refusing it (see test_host_refusals)
                name, called = calls.get(tid, ("", None))
                if name in ("Task", "Agent") and stamp is not None and called is not None \
                        and not e.get("isSidechain") and stamp > called:
                    # Claude waited on a subagent from its call to its result:
                    # its time counted once where subagents ran at once.
                    since = max(called, agents_until, start or called)
                    agents += max(0, round((stamp - since) * 1000)) if stamp > since else 0
                    agents_until = max(agents_until, stamp)
                took = (stamp - called) * 1000 if stamp is not None and called else None
                if took is not None and took >= 0 and mode != "bypassPermissions":
                    if name in ("Edit", "MultiEdit", "Write", "NotebookEdit"):
                        waited = waited or (mode != "acceptEdits" and took > 10_000)
                    elif name in ("Bash", "PowerShell") and writes_progress and \
                            tid not in progressed:
                        waited = waited or took > 3_500
            words = content if isinstance(content, str) else "\n".join(
                str(b.get("text", "")) for b in parts if b.get("type") == "text")
            image = any(b.get("type") == "image" for b in parts)
            starts = not results and (image or bool(words.strip())) and \
                not words.lstrip().startswith(_NOT_A_PROMPT)
        if e.get("type") == "assistant" and isinstance(content, list):
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    asks[str(b.get("id"))] = b.get("name") in ("AskUserQuestion", "ExitPlanMode")
                    calls.setdefault(str(b.get("id")), (str(b.get("name")), stamp))
        if not opened and stamp is not None and not starts:
            # A file whose first timed line is Claude's (an answer, a subagent's
            # line) opens in a turn begun before it.
            in_turn = in_turn or e.get("type") == "assistant" or (
                bool(e.get("isSidechain")) and e.get("type") == "user")
        opened = opened or stamp is not None
        if e.get("type") == "system" and e.get("subtype") == "turn_duration" and \
                isinstance(e.get("durationMs"), (int, float)):
            held = int(e["durationMs"])
            if stamp is not None:
                if held < agents:  # a client's time that left its subagents' out
                    held += agents
                held = min(held, max(0, round((stamp - (start or stamp)) * 1000) - waits))
            total += held
            spans, in_turn, start, waits = [], False, None, 0
            agents, agents_until, queued = 0, 0.0, 0
        elif starts:
            total += sum(spans)
            spans, in_turn, start, waits = [], True, stamp, 0
            agents, agents_until, queued = 0, 0.0, 0
        elif waited and gap > 0:
            waits += round(gap * 1000)
        else:
            waits += round(held * 1000)
            if in_turn and 0 < gap < IDLE_S:
                if e.get("type") == "queue-operation":
                    queued += round((gap - held) * 1000)
                else:
                    spans.append(round((gap - held) * 1000))
        if queued and e.get("type") != "queue-operation" and not starts:
            spans.append(queued)  # Claude worked on past the queue lines
            queued = 0
        if start is None:
            start = stamp
    return total + sum(spans)


# -- an interrupted turn ---------------------------------------------------------------

turn_step = st.sampled_from(["say", "run"])


@settings(max_examples=80, deadline=None)
@given(turns=st.lists(st.tuples(st.lists(turn_step, max_size=4), st.booleans(),
                                st.sampled_from(["", " for tool use"])),
                      min_size=1, max_size=4),
       topic=phrase)
def test_an_interrupted_turn_says_so_and_what_was_last_done(
        turns: list[tuple[list[str], bool, str]], topic: str) -> None:
    """Each turn: Claude's words and commands in a generated order, then the
    user's interrupt (or not). From the JSON: a turn interrupted after a
    command says it was interrupted after that command and quotes none of
    Claude's earlier words; one interrupted while Claude wrote quotes those
    words as interrupted; a turn not interrupted quotes its last words."""
    t = Transcript()
    cases = []
    for n, (steps, stopped, how) in enumerate(turns):
        t.prompt(f"task number {n}")
        written: list[str] = []
        last = ""
        for k, s in enumerate(steps):
            if s == "say":
                last = f"Claude words {n} {k} on {topic}."
                written.append(last)
                t.say(last)
            else:
                last = f"make target{n}x{k}"
                t.bash(last, "built\n")
        if stopped:
            t.prompt(f"[Request interrupted by user{how}]")
        cases.append((stopped, written, last))
    note = render(t.state())
    story = note.split("## Story\n", 1)[1].split("\n## ", 1)[0]
    sections = story.split("### ")[1:]
    assert len(sections) == len(turns)
    for (stopped, written, last), section in zip(cases, sections, strict=True):
        if not stopped:
            assert "nterrupted" not in section
            if last in written:
                assert last in section
            continue
        assert re.search(r"nterrupted(\*\*)? by the user", section), section
        earlier = [w for w in written if w != last]
        assert not any(w in section for w in earlier), section
        if last.startswith("make "):
            assert "**Interrupted** by the user after:" in section and last in \
                section.split("after:", 1)[1], section
        elif last:
            assert f"**Claude** (interrupted by the user): {last}" in section, section
        else:
            assert "before Claude did anything" in section, section


# -- PowerShell ------------------------------------------------------------------------

plain_line = st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789 .:=", min_size=1,
                              max_size=30), min_size=0, max_size=4)
message = st.lists(st.sampled_from(
    ["cannot", "find", "path", "the", "value", "is", "not", "valid", "access", "denied",
     "because", "it", "does", "exist"]), min_size=2, max_size=8).map(" ".join)


@st.composite
def error_record(draw: st.DrawFn) -> tuple[str, str, bool]:
    """A record as PowerShell prints one: (its text, its first line, whether it
    is the command's error; a native program's stderr that Windows PowerShell
    wrapped as a record is not)."""
    words = draw(message)
    shape = draw(st.sampled_from(["category", "cmdlet", "exception", "normal", "native",
                                  "coloured"]))
    if shape == "category":
        category = draw(st.sampled_from(["InvalidOperation", "ObjectNotFound", "ParserError",
                                         "PermissionDenied", "InvalidArgument", "NotSpecified"]))
        first = f"{category}: {words}"
        return first, first, True
    if shape == "coloured":
        first = f"\x1b[31;1mInvalidOperation: \x1b[31;1m{words}\x1b[0m"
        return first, f"InvalidOperation: {words}", True
    if shape == "cmdlet":
        verb = draw(st.sampled_from(["Get", "Set", "Remove", "Invoke", "Write", "Test"]))
        noun = draw(st.sampled_from(["Item", "Content", "ChildItem", "RestMethod", "Error"]))
        first = f"{verb}-{noun}: {words}"
        return f"{first}\nLine |\n   3 |  {verb}-{noun} x\n     |  ~~~~\n     | {words}", first, True
    if shape == "exception":
        kind = draw(st.sampled_from(["MethodInvocationException", "RuntimeException",
                                     "Exception"]))
        first = f"{kind}: {words}"
        return first, first, True
    if shape == "normal":
        first = f"Get-Item : {words}"
        return (f"{first}\nAt line:1 char:1\n+ Get-Item x\n+ ~~~~~~~~~~\n"
                f"    + CategoryInfo          : ObjectNotFound: (x:String) [Get-Item], "
                f"ItemNotFoundException\n    + FullyQualifiedErrorId : PathNotFound,"
                f"Microsoft.PowerShell.Commands.GetItemCommand"), first, True
    first = f"git : {words}"
    return (f"{first}\nAt line:1 char:1\n+ git fetch 2>&1\n+ ~~~~~~~~~~~~~~\n"
            f"    + CategoryInfo          : NotSpecified: ({words}:String) [], "
            f"RemoteException\n    + FullyQualifiedErrorId : NativeCommandError"), first, False


@settings(max_examples=examples(30, 100), deadline=None)
@given(calls=st.lists(st.tuples(st.sampled_from(["PowerShell", "Bash"]), plain_line,
                                st.one_of(st.none(), error_record()), plain_line),
                      min_size=1, max_size=4))
def test_powershell_output_with_an_error_record_is_told_not_failed(
        calls: list[tuple[str, list[str], tuple[str, str, bool] | None, list[str]]]) -> None:
    """PowerShell calls (and Bash ones) whose output is plain lines with,
    maybe, an error record among them, each result marked no error by the
    client: a PowerShell call that printed a record of its own ran but printed
    an error (neither "ok" nor "failed": PowerShell carried on, and nothing
    shows the command failed); none is an error of the session; both tools'
    calls count as shell commands."""
    t = Transcript()
    t.prompt("check the script")
    expected = []
    for n, (tool, before, record, after) in enumerate(calls):
        out = "\r\n".join([*before, *([record[0]] if record else []), *after, "parse OK"])
        t.call(tool, {"command": f"Test-Script step{n}.ps1", "description": f"Check step {n}"},
               {"stdout": out, "stderr": "", "interrupted": False}, out)
        expected.append((f"step{n}", tool == "PowerShell" and record is not None and record[2]))
    t.say("Checked.")
    state = t.state()
    note = render(state)
    assert f"\ncommands: {len(calls)}\n" in frontmatter_of(note)
    assert "\nerrors:" not in frontmatter_of(note)
    story = note.split("## Story\n", 1)[1].split("\n## ", 1)[0]
    for step, printed in expected:
        line = next(x for x in story.splitlines() if f"{step}.ps1" in x)
        told = r"ran, but printed an error \(the tool marked no failure\)" if printed else "ok"
        assert re.search(rf"— {told}(, \d+s)?$", line), line
    assert state.fold.errors == []


@pytest.mark.corpus
def test_every_corpus_powershell_error_record_is_told_not_failed() -> None:
    """Every PowerShell call in the corpus (Claude Code on Windows): those
    whose result the client marked no error but whose output, by the JSON,
    holds an error record (a line opening with an error category and `: `, or
    `+ CategoryInfo`) ran and printed an error, and are no errors of the
    session; each counts among the shell commands."""
    record = re.compile(r"(?m)^(?:[A-Z][A-Za-z]+(?:-[A-Z][A-Za-z]+)?: \S|\s*\+ CategoryInfo)")
    seen = 0
    for path in main_files():
        raw = path.read_bytes()
        if b'"name":"PowerShell"' not in raw:
            continue
        lines = [x for x in raw.split(b"\n") if x.strip()]
        calls: set[str] = set()
        with_record: set[str] = set()
        failed = 0
        for x in lines:
            e = json.loads(x)
            content = (e.get("message") or {}).get("content")
            for b in content if isinstance(content, list) else []:
                if b.get("type") == "tool_use" and b.get("name") == "PowerShell":
                    calls.add(b["id"])
                elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                    out = b.get("content") if isinstance(b.get("content"), str) else ""
                    if b.get("is_error"):
                        failed += 1
                    elif record.search(out):
                        with_record.add(b["tool_use_id"])
        facts = fold(Fold(), (decode_line(x) for x in lines))
        assert sum(1 for e in facts.errors if e.tool == "PowerShell") <= failed, path
        told = {c.tool_id for c in facts.commands if c.status == "printed error"}
        assert told == {tool_key(t) for t in with_record}, path
        assert facts.commands_run >= len(calls)
        seen += len(with_record)
    assert seen >= 1


# -- commits whose branch went or whose PR was squash-merged ---------------------------


@settings(max_examples=60, deadline=None)
@given(subject=phrase, sha=hexsha, squash=hexsha, number=st.integers(1, 999),
       quiet=st.booleans(), delete=st.sampled_from(["no", "ok", "then-failed"]),
       log=st.sampled_from(["none", "squash", "other-pr", "other-subject"]),
       shown_by=st.sampled_from(["git log --oneline -3", "git checkout origin/main --detach",
                                 "git reset --hard origin/main"]))
def test_a_commit_says_what_later_output_showed_of_it(
        subject: str, sha: str, squash: str, number: int, quiet: bool, delete: str,
        log: str, shown_by: str) -> None:
    """A commit on a branch, pushed, its PR opened; later maybe the branch
    deleted (`Deleted branch b (was sha).`, also in a line that failed after
    it) and maybe a log printing `<other sha> <subject> (#N)` (or a checkout
    or reset moving HEAD there: `HEAD is now at <other sha> <subject> (#N)`,
    review 16 finding 11). The commit stays
    listed (it was made) and says, only where that output proves it, that its
    branch was deleted and that PR #N (the session's) was squash-merged as the
    other sha."""
    if squash == sha:
        squash = "f" + sha[1:] if sha[0] != "f" else "e" + sha[1:]
    t = Transcript()
    t.prompt("commit, open a PR, clean up when merged")
    t.bash("git checkout -b feature-x", "Switched to a new branch 'feature-x'\n")
    on_feature = len(t.lines)  # Claude Code stamps each line with the branch checked out
    if quiet:
        t.bash(f'git commit -q -m "{subject}"')
        t.bash("git log --oneline -1", f"{sha} {subject}\n")
    else:
        t.bash(f'git commit -m "{subject}"', f"[feature-x {sha}] {subject}\n 1 file changed\n")
    t.bash("git push -u origin feature-x", "To github.com:o/r.git\n * [new branch] feature-x\n")
    t.bash(f'gh pr create --title "{subject}"', f"https://github.com/o/r/pull/{number}\n")
    t.bash("git checkout main", "Switched to branch 'main'\n")
    for k, line in enumerate(t.lines):
        line["gitBranch"] = "feature-x" if on_feature <= k < len(t.lines) else "main"
    back = len(t.lines)
    if delete == "ok":
        t.bash("git branch -d feature-x", f"Deleted branch feature-x (was {sha}).\n")
    elif delete == "then-failed":
        out = (f"Exit code 1\nDeleted branch feature-x (was {sha}).\nerror: unable to delete "
               "'feature-x': remote ref does not exist\n")
        t.call("Bash", {"command": "git branch -d feature-x && git push origin --delete "
                                   "feature-x"}, None, out, error=True)
    printed = {"none": "", "squash": f"{squash} {subject} (#{number})\n",
               "other-pr": f"{squash} {subject} (#{number + 1})\n",
               "other-subject": f"{squash} {subject} again (#{number})\n"}[log]
    if printed and shown_by.startswith("git log"):
        t.bash(shown_by, printed + "1234567 an older one\n")
    elif printed:  # a move of HEAD prints the commit it moved to
        t.bash(shown_by, "HEAD is now at " + printed)
    t.say("Done.")
    for line in t.lines[back:]:
        line["gitBranch"] = "main"
    note = render(t.state())
    section = note.split("## Commits and PRs\n", 1)[1].split("\n## ", 1)[0]
    line = next(x for x in section.splitlines() if f"`{sha}`" in x)
    landed = log == "squash"
    assert (f"squash-merged as `{squash}` (PR #{number})" in line) == landed, line
    assert ("branch deleted" in line) == (delete != "no"), line
    assert "squash-merged" in line or not landed
    if not landed and delete == "no":
        assert " — " not in line.split(subject, 1)[1], line


@settings(max_examples=examples(40, 150), deadline=None)
@given(commits=st.lists(st.tuples(phrase, hexsha), min_size=1, max_size=3,
                        unique_by=lambda c: c[1]),
       squash=hexsha, merged=st.sampled_from(["ok", "conflict", "other-branch"]),
       quiet=st.booleans(), deleted=st.booleans())
def test_a_squash_merge_says_where_the_branch_commits_went(
        commits: list[tuple[str, str]], squash: str, merged: str, quiet: bool,
        deleted: bool) -> None:
    """Commits on a branch, then `git merge --squash` of it (git staging the
    squash, or stopping on a conflict, or squashing another branch) and a
    commit: each of the branch's commits says "squash-merged as <sha>" where
    git printed the commit that took the squash (not after a conflict, nor
    when the squash was of another branch, nor when the commit printed no
    sha), as the JSON's outputs show."""
    shas = {sha for _, sha in commits}
    if squash in shas:
        squash = next(f"{k:07x}" for k in range(16**6, 16**7) if f"{k:07x}" not in shas)
    t = Transcript()
    t.prompt("work on a branch, then squash it into main")
    t.bash("git checkout -b feature-y", "Switched to a new branch 'feature-y'\n")
    for subject, sha in commits:
        t.bash(f'git commit -am "{subject}"', f"[feature-y {sha}] {subject}\n 1 file changed\n")
    t.bash("git checkout main", "Switched to branch 'main'\n")
    branch = "feature-z" if merged == "other-branch" else "feature-y"
    if merged == "conflict":
        t.call("Bash", {"command": f"git merge --squash {branch}"}, None,
               "Exit code 1\nAuto-merging a.py\nCONFLICT (content): Merge conflict in a.py\n"
               "Squash commit -- not updating HEAD\nAutomatic merge failed; fix conflicts and "
               "then commit the result.\n", error=True)
    else:
        t.bash(f"git merge --squash {branch}", "Updating 1234567..89abcde\nFast-forward\n"
               "Squash commit -- not updating HEAD\n a.py | 2 +-\n 1 file changed\n")
    if quiet:
        t.bash('git commit -q -m "the feature, squashed"')
    else:
        t.bash('git commit -m "the feature, squashed"',
               f"[main {squash}] the feature, squashed\n 1 file changed\n")
    if deleted:
        t.bash("git branch -D feature-y", f"Deleted branch feature-y (was {commits[-1][1]}).\n")
    t.say("Done.")
    note = render(t.state())
    section = note.split("## Commits and PRs\n", 1)[1].split("\n## ", 1)[0]
    landed = merged == "ok" and not quiet
    for _, sha in commits:
        line = next(x for x in section.splitlines() if f"`{sha}`" in x)
        assert (f"squash-merged as `{squash}`" in line) == landed, (line, merged, quiet)
        assert ("branch deleted" in line) == deleted, line
