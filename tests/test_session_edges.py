"""Where a session starts and ends, and what made Claude go on (review 15,
findings 11 and 13):
- a file that opens with the lines closing an earlier turn (its Stop hooks'
  summary, its duration: a checkpoint cut after them) started with its own
  first prompt, not with those lines;
- a transcript that ends with the user's `/exit` ended then
  (`end_reason: prompt_input_exit`, as Claude Code's SessionEnd says it), not idle;
- a Stop hook that blocked Claude's stop is told in the story;
- the Errors section names the shell command that failed.

Generated inputs through `vv backfill` as a subprocess; the oracle is the
generated JSON (the corpus tests: every corpus file's own lines).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, frontmatter, in_process, last_prompt_kind, main_files
from conftest import json_objects as objects
from test_headlines import Transcript
from test_trust import folded

SID = "5e55e55e-0000-4000-8000-000000000001"


def _one_note(env: Env) -> str:
    notes = list(env.notes().values())
    assert len(notes) == 1
    return notes[0]


def _stamp(ts: str) -> datetime:
    return datetime.fromisoformat(ts[:19] + "+00:00")


def _started(fm: dict[str, Any]) -> datetime:
    v = fm["started"]
    return v if isinstance(v, datetime) else datetime.fromisoformat(str(v))


# -- where a session starts --------------------------------------------------------------


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(closers=st.lists(st.sampled_from(["stop_hook_summary", "turn_duration"]), max_size=3),
       hook_start=st.booleans())
def test_a_file_opening_with_an_earlier_turns_end_starts_at_its_own_first_line(
        tmp_path_factory: Any, closers: list[str], hook_start: bool) -> None:
    t = Transcript(sid=SID)
    for subtype in closers:  # stamped two hours before the prompt
        t.raw({"type": "system", "subtype": subtype, "durationMs": 4000, "content": ""})
    for line in t.lines:
        line["timestamp"] = line["timestamp"].replace("T10:", "T08:")
    if hook_start:  # a SessionStart hook's progress: the session's own first line
        t.raw({"type": "progress", "data": {"type": "hook_progress", "hookEvent": "SessionStart"}})
    t.prompt("why is the build slow")
    t.say("The cache is cold.")
    t.prompt("thanks")
    t.say("Glad to help.")
    own = next(o["timestamp"] for o in t.lines
               if not (o["type"] == "system" and o.get("subtype") in closers))
    env = Env(tmp_path_factory.mktemp("start"))
    env.here = in_process("session_edges start")  # (the first as a process)
    env.transcript(SID, t.encoded())
    assert env.vv("backfill").returncode == 0
    note = _one_note(env)
    assert _started(frontmatter(note)) == _stamp(own)
    name = next(iter(env.notes()))
    assert f"{own[:10]}-{own[11:13]}{own[14:16]}" in str(name), name


@pytest.mark.corpus
def test_no_corpus_session_starts_at_an_earlier_turns_end() -> None:
    """Every corpus file: its start is its first own line's time, lines
    closing a turn before any message left out; the file's quick sniff (which
    names the note in a backfill) says the same."""
    from vibe_vault.discover import sniff_start

    leftovers = checked = 0
    for main in main_files():
        objs = objects(main)
        talked = False
        first = ""
        for o in objs:
            ts = o.get("timestamp")
            closing = (not talked and o.get("type") == "system"
                       and o.get("subtype") in ("stop_hook_summary", "turn_duration"))
            leftovers += closing and bool(ts)
            if isinstance(ts, str) and ts and not o.get("isMeta") and not closing:
                first = ts
                break
            talked = talked or (o.get("type") in ("user", "assistant")
                                and not o.get("isSidechain"))
        if not first or not re.match(r"\d{4}-\d\d-\d\dT", first):
            continue
        assert sniff_start(main).first_ts == first, main
        if leftovers > checked:  # (a fold of every file would take minutes)
            assert folded(main).fold.first_ts == first, main
            checked = leftovers
    assert leftovers, "the corpus has a file opening with an earlier turn's end"


# -- how a session ends ------------------------------------------------------------------


# Claude Code's SessionEnd reason for each command that ends a session
# (/work/shared/docs/hooks.md: `clear`, `resume`, `logout`, `prompt_input_exit`, `other`).
ENDED_BY = {"/exit": "prompt_input_exit", "/quit": "prompt_input_exit", "/clear": "clear",
            "/logout": "logout"}


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(sorted(ENDED_BY)), then=st.sampled_from(["", "prompt"]),
       form=st.sampled_from(["user", "caveat"]))
def test_a_session_ended_by_exit_says_so(tmp_path_factory: Any, command: str, then: str,
                                         form: str) -> None:
    """A transcript whose last turn is `/exit`, `/quit`, `/clear` or `/logout`
    ended there, with the reason Claude Code's SessionEnd gives; one that went
    on after it did not."""
    t = Transcript(sid=SID)
    t.prompt("list the pros and cons")
    t.say("Pros: fast. Cons: none.")
    if form == "caveat":  # (as Claude Code writes it before a local command's lines)
        t.raw({"type": "user", "isMeta": True, "message": {"role": "user", "content":
               "Caveat: The messages below were generated by the user while running "
               "local commands. DO NOT respond to these messages."}})
    t.prompt(f"<command-name>{command}</command-name>\n<command-message>{command[1:]}"
             "</command-message>\n<command-args></command-args>")
    t.prompt("<local-command-stdout>See ya!</local-command-stdout>")
    t.lines.append({**t._base("assistant"), "message": {  # Claude Code's own placeholder
        "id": "msg_x", "role": "assistant", "model": "<synthetic>",
        "content": [{"type": "text", "text": "No response requested."}]}})
    if then:  # came back: not where it ended
        t.prompt("one more thing")
        t.say("Sure.")
    env = Env(tmp_path_factory.mktemp("exit"))
    env.here = in_process("session_edges exit")  # (the first as a process)
    env.transcript(SID, t.encoded())
    assert env.vv("backfill").returncode == 0
    fm = frontmatter(_one_note(env))
    if then:
        assert fm["end_reason"] not in ENDED_BY.values()
    else:
        assert fm["status"] == "ended" and fm["end_reason"] == ENDED_BY[command]


def test_a_new_file_opening_with_clear_is_not_ended_by_it(env: Env) -> None:
    """Claude Code 2.x writes the `/clear` that began a session at the top of
    its new file: a file holding only that (and a prompt left unanswered) did
    not end by it."""
    t = Transcript(sid=SID)
    t.prompt("<command-name>/clear</command-name>\n<command-message>clear</command-message>\n"
             "<command-args></command-args>")
    t.prompt("<local-command-stdout></local-command-stdout>")
    env.transcript(SID, t.encoded())
    assert env.vv("backfill").returncode == 0
    for note in env.notes().values():
        assert frontmatter(note).get("end_reason") != "clear"


@pytest.mark.corpus
def test_every_corpus_session_ending_with_exit_ends_so(tmp_path: Path) -> None:
    """Every corpus file whose last prompt-like line is `/exit`, `/quit`,
    `/clear` or `/logout` (any client's form of it) after some earlier turn:
    the note says it ended so, with SessionEnd's reason for it."""
    ends: dict[Path, str] = {}
    for main in main_files():
        last = last_prompt_kind(main)
        typed = sum(1 for o in objects(main) if o.get("type") == "user" and not o.get("isMeta")
                    and isinstance((o.get("message") or {}).get("content"), str)
                    and "<local-command-stdout>" not in o["message"]["content"])
        if f"/{last}" in ENDED_BY and (last != "clear" or typed > 1):
            ends[main] = ENDED_BY[f"/{last}"]
    assert "prompt_input_exit" in ends.values(), "the corpus has a session ended by /exit"
    assert "clear" in ends.values(), "the corpus has a session ended by /clear"
    env = Env(tmp_path)
    assert env.vv("backfill", *map(str, ends)).returncode == 0
    notes = env.notes().values()
    ids = {json.loads(next(x for x in main.read_bytes().split(b"\n") if b'"sessionId"' in x))[
        "sessionId"]: reason for main, reason in ends.items()}
    seen = 0
    for note in notes:
        fm = frontmatter(note)
        if fm["session_id"] in ids:
            assert str(fm["end_reason"]).startswith(ids[fm["session_id"]]), fm
            seen += 1
    assert seen == len(ids)


# -- what made Claude go on; what failed --------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(said=st.sampled_from(["Cannot exit with unstaged changes.", "Tests are failing."]),
       heading=st.booleans(), script=st.sampled_from(["stop.sh", "check-done.py"]))
def test_a_stop_hook_that_kept_claude_going_is_told(said: str, heading: bool,
                                                    script: str) -> None:
    from vibe_vault.render import render

    t = Transcript()
    t.prompt("add a test")
    t.say("Done.")
    body = ("# Running Quality Checks...\n\n# Uncommitted Changes Detected\n\n" if heading
            else "") + said + "\n\nBefore stopping, please commit."
    t.raw({"type": "user", "isMeta": True, "message": {
        "role": "user", "content": f"Stop hook feedback:\n[${{ROOT}}/hooks/{script}]: {body}"}})
    t.bash("git commit -am 'add a test'", "[main abc1234] add a test")
    t.say("Committed.")
    state = t.state()
    assert state.fold.prompts == 1  # Claude Code's words to Claude, not the user's
    story = render(state).split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    assert f"A Stop hook (`{script}`) kept Claude going: “{said}”" in story


@settings(max_examples=20, deadline=None)
@given(command=st.sampled_from(["git commit -m 'x'", "make check", "npm run build"]),
       out=st.lists(st.sampled_from(["On branch master", "nothing to commit", "Exit code 1",
                                     "error: oops"]), min_size=1, max_size=3))
def test_an_error_of_a_command_names_the_command(command: str, out: list[str]) -> None:
    from vibe_vault.render import render

    t = Transcript()
    t.prompt("commit it")
    t.call("Bash", {"command": command}, "Error: " + "\n".join(out), "\n".join(out), error=True)
    t.say("It failed.")
    errors = render(t.state()).split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    head = errors.strip().split("\n")[0]
    assert head.startswith("- ") and f"**Bash**: `{command}` failed" in head, head
