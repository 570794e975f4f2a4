"""Review 29 #6, #7, #11, #14: how a session's last request ended, and what
its subagent launches were.

- #6: a headless run (`claude -p --json-schema`, the SDK's) ends with a
  StructuredOutput call whose accepted input is its answer (a
  `structured_output` attachment, then "Structured output provided
  successfully"): the session finished, with that result; it is not "still on
  the last request", with an open task.
- #7: a launch's result that only acknowledges the start (a background
  agent's "Async agent launched successfully.", a teammate's "Spawned
  successfully.", any `*_launched` / `*_spawned` status, text marked as
  internal metadata) is never the agent's report.
- #14: a launch whose result is an error ("Agent type 'x' not found") started
  no agent: not counted, not "not finished", no reason for a "≥".
- #11: the clause telling what Claude had done on a request still under way
  is grammatical and names commits as well as subagents.

Sessions are generated; the oracle reads the generated JSON. Every case goes
through `vv backfill` (the first as a process, conftest.in_process).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter, in_process
from test_headlines import Transcript

key = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=3, max_size=12).filter(
    lambda k: k.strip("_") == k)
word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9)
value = st.one_of(st.lists(st.fixed_dictionaries({"file": word, "line": st.integers(1, 999)}),
                           max_size=4),
                  st.lists(word, min_size=2, max_size=4),
                  st.lists(st.nothing(), max_size=0),
                  st.integers(0, 99), st.booleans(), word)
structured = st.dictionaries(key, value, min_size=1, max_size=4)


def _backfill(env: Env, t: Transcript) -> str:
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr
    (note,) = env.notes().values()
    return note


def _said(v: Any) -> str:
    """The oracle's reading of one field's value: what a person is told."""
    if isinstance(v, list):
        return "none" if not v else "1 item" if len(v) == 1 else f"{len(v)} items"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, str):
        return f"“{v}”"
    return str(v)


@settings(max_examples=examples(10, 40), deadline=None)
@given(data=structured, retried=st.booleans(), reasoning=st.booleans(),
       entrypoint=st.sampled_from(["sdk-py", "sdk-ts", "sdk-cli", "cli"]))
def test_a_run_that_ends_with_its_structured_output_finished(
        tmp_path_factory: Any, data: dict[str, Any], retried: bool, reasoning: bool,
        entrypoint: str) -> None:
    env = Env(Path(str(tmp_path_factory.mktemp("structured"))))
    env.here = in_process("structured output")
    t = Transcript(sid="5d0c0a11-0000-4000-8000-00000000e1d5")
    t.prompt("Review this change for security vulnerabilities.")
    t.call("Read", {"file_path": "/work/app/x.ts"}, {"type": "text"}, "1\tconst x = 1;")
    if reasoning:
        t.say("The change only touches a test file.")
    if retried:  # the schema refused a first try
        t.call("StructuredOutput", {"findings": {"bad": data}},
               "Error: Output does not match required schema: /findings: must be array",
               "Output does not match required schema: /findings: must be array", error=True)
    t.call("StructuredOutput", data, "Structured output provided successfully",
           "Structured output provided successfully")
    tool = t.lines[-1]["message"]["content"][0]["tool_use_id"]
    t.lines[-1]["toolEndsTurn"] = True
    t.lines.insert(len(t.lines) - 1, {**t.lines[-1], "type": "attachment", "message": None,
                                      "attachment": {"type": "structured_output", "data": data,
                                                     "toolUseID": tool}})
    del t.lines[-2]["message"], t.lines[-2]["toolUseResult"], t.lines[-2]["toolEndsTurn"]
    for line in t.lines:
        line["entrypoint"] = entrypoint
    note = _backfill(env, t)
    fm = frontmatter(note)
    assert "still on the last request" not in note, note
    assert "mid-turn" not in str(fm.get("end_reason")), fm
    assert "\n## Open threads\n" not in note, note
    head = str(fm["summary"])
    assert "Structured result: " in head, head
    shown = head.split("Structured result: ", 1)[1]
    for k, v in list(data.items())[:4]:
        assert f"{k}: {_said(v)}" in shown, (k, v, shown)


ACKS = [
    ("async_launched", "Async agent launched successfully. (This tool result is internal "
     "metadata — never quote or paste any part of it, including the agentId below, into a "
     "user-facing reply.)\nagentId: {agent} (internal ID - do not mention to user.)\nThe agent "
     "is working in the background. You will be notified automatically when it completes."),
    ("teammate_spawned", "Spawned successfully. (This tool result is internal metadata — never "
     "quote or paste any part of it, including the ID below, into a user-facing reply.)\n"
     "agent_id: {agent}@session-5d0c0a11\nname: {agent}\nThe agent is now running and will "
     "receive instructions via mailbox."),
    # a form to come, known by its status alone
    ("remote_launched", "Remote agent {agent} is up; results will arrive as a notification."),
    # one known by its words alone (no structured result)
    (None, "Agent launched successfully. (This tool result is internal metadata — never "
     "quote it.)\nagentId: {agent}"),
]


@settings(max_examples=examples(10, 40), deadline=None)
@given(kinds=st.lists(st.sampled_from(range(len(ACKS) + 1)), min_size=1, max_size=4))
def test_an_acknowledgement_is_never_a_report(tmp_path_factory: Any, kinds: list[int]) -> None:
    env = Env(Path(str(tmp_path_factory.mktemp("acks"))))
    env.here = in_process("acknowledgements")
    t = Transcript(sid="5d0c0a11-0000-4000-8000-00000000ac45")
    t.prompt("Get the agents going")
    reports = []
    for n, kind in enumerate(kinds):
        agent, desc = f"worker{n}", f"Part {n} of the review"
        inp = {"description": desc, "subagent_type": "critic", "prompt": desc, "name": agent}
        if kind == len(ACKS):  # a foreground agent that reported: the control
            report = f"Checked part {n}: {n + 2} issues found in the parser."
            reports.append(report)
            t.call("Agent", inp, {"status": "completed", "agentId": f"a{n:016x}",
                                  "totalToolUseCount": 3, "content": []}, report)
            continue
        status, words = ACKS[kind]
        said = words.format(agent=agent)
        result: Any = {"status": status, "agent_id": agent} if status else said
        t.call("Agent", inp, result, said)
    t.say("All started.")
    note = _backfill(env, t)
    for phrase in ("internal metadata", "launched successfully", "Spawned successfully",
                   "receive instructions via mailbox", "will arrive as a notification"):
        assert phrase not in note, (phrase, note)
    assert note.count("*Its report") == len(reports), note
    for report in reports:
        assert report in note, note


@settings(max_examples=examples(8, 30), deadline=None)
@given(ran=st.integers(0, 3), failed=st.integers(1, 2))
def test_a_launch_that_failed_is_no_subagent(tmp_path_factory: Any, ran: int,
                                             failed: int) -> None:
    env = Env(Path(str(tmp_path_factory.mktemp("no-agent"))))
    env.here = in_process("failed launches")
    t = Transcript(sid="5d0c0a11-0000-4000-8000-0000000000f1")
    t.prompt("Try the new reviewer agent")
    for n in range(failed):
        error = f"Agent type 'reviewer-{n}' not found. Available agents: Explore, Plan"
        t.call("Agent", {"description": f"Try reviewer {n}", "subagent_type": f"reviewer-{n}",
                         "prompt": "review"}, f"Error: {error}", error, error=True)
    for n in range(ran):
        t.call("Agent", {"description": f"Explore part {n}", "subagent_type": "Explore",
                         "prompt": "look"},
               {"status": "completed", "agentId": f"b{n:016x}", "totalToolUseCount": 2,
                "content": [], "usage": {"input_tokens": 5, "output_tokens": 7}},
               f"Part {n} has two modules.")
    t.say("The reviewer agent is not registered in this session.")
    note = _backfill(env, t)
    fm = frontmatter(note)
    assert fm.get("subagents", 0) == ran, fm
    head = str(fm["summary"])
    assert (f"{ran} subagent" in head) == (ran > 0), head
    assert "had not finished" not in note and "unfinished" not in note, note
    section = note.split("\n## Subagents\n", 1)[1].split("\n## ", 1)[0]
    for n in range(failed):
        line = next(ln for ln in section.splitlines() if f"Try reviewer {n}" in ln)
        assert "did not start" in line and "tool calls" not in line, line


@settings(max_examples=examples(8, 30), deadline=None)
@given(agents=st.lists(st.sampled_from(["Map the repo", "Trace the bugs", "Design fixes"]),
                       min_size=0, max_size=3, unique=True),
       subjects=st.lists(st.sampled_from(["fix: the timeout", "feat: add the cache",
                                          "docs: the retro"]), max_size=3, unique=True))
def test_what_claude_had_done_on_the_last_request_is_told_plainly(
        tmp_path_factory: Any, agents: list[str], subjects: list[str]) -> None:
    env = Env(Path(str(tmp_path_factory.mktemp("under-way"))))
    env.here = in_process("under way")
    t = Transcript(sid="5d0c0a11-0000-4000-8000-0000000000d1")
    t.prompt("Resolve all the open issues")
    for n, desc in enumerate(agents):
        t.call("Agent", {"description": desc, "subagent_type": "Explore", "prompt": desc},
               {"status": "completed", "agentId": f"c{n:016x}", "totalToolUseCount": 1,
                "content": []}, f"{desc}: done.")
    for n, subject in enumerate(subjects):
        t.bash(f"git commit -m '{subject}'",
               f"[main {n + 1:07x}] {subject}\n 1 file changed, 1 insertion(+)")
    t.call("Read", {"file_path": "/work/app/next.py"}, {"type": "text"}, "1\tx = 1")
    note = _backfill(env, t)  # (the transcript ends after a call: still on the request)
    fm = frontmatter(note)
    head = str(fm["summary"])
    m = re.search(r"still on the last request \(after \d+ calls?(: it had )?", head)
    assert m is not None, head
    did = head[m.end():m.end() + 400] if m.group(1) else ""
    assert bool(did) == bool(agents or subjects), head
    assert " ran " not in f" {did} " and "had ran" not in did, did
    if len(subjects) == 1:
        assert f"made the commit “{subjects[0]}”" in did, did
    elif subjects:
        assert f"made {len(subjects)} commits" in did, did
    if len(agents) == 1:
        assert f"run a subagent ({agents[0]})" in did, did
    elif agents:
        assert f"run {len(agents)} subagents ({'; '.join(agents)})" in did, did
