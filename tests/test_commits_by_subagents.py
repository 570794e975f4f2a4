"""Review 29 #9: commits a subagent made are the session's (544fe3a7: a
subagent split the work into five commits; the main agent's `git log
--oneline -8` printed them above its own two; the note said "and 1 more").

Generated sessions: the main agent commits, may start a subagent (which
commits through tools the transcript does not hold), then runs `git log` of
its branch, which prints the subagent's commits above the session's own and
older commits below. The oracle is the log the test printed: the commits
above the session's latest commit are the subagent's when a subagent started
after that commit; none else is added.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_agent_tokens import write_with_agents
from test_headlines import Transcript, phrase


@settings(max_examples=examples(40, 200), deadline=None)
@given(own=st.integers(1, 3), theirs=st.lists(phrase, max_size=5, unique=True),
       older=st.integers(0, 3), agent=st.booleans(), oneline=st.sampled_from(
           ["git log --oneline -{n}", "git log --oneline --no-decorate -n {n}",
            "git log -{n} --oneline"]))
def test_commits_a_subagent_made_are_listed_as_its(
        tmp_path_factory: Any, own: int, theirs: list[str], older: int, agent: bool,
        oneline: str) -> None:
    t = Transcript()
    t.prompt("commit this, then have an agent split the rest into commits")
    mine = [(f"{k + 1:07x}", f"own change {k}") for k in range(own)]
    for sha, subject in mine:
        t.bash(f'git commit -m "{subject}"', f"[main {sha}] {subject}\n 1 file changed, "
               "1 insertion(+)\n")
    if agent:
        t.call("Task", {"description": "Split the rest", "prompt": "split it",
                        "subagent_type": "general-purpose"},
               {"status": "completed", "content": [{"type": "text", "text": "Done."}]},
               "Done.")
    subs = [(f"{0xa00000 + k:07x}", f"sub {s}") for k, s in enumerate(theirs)]
    old = [(f"{0xb00000 + k:07x}", f"old change {k}") for k in range(older)]
    log = list(reversed(subs)) + list(reversed(mine)) + old
    t.bash(oneline.format(n=len(log)), "".join(f"{sha} {subject}\n" for sha, subject in log))
    t.say("All in.")
    note = t.note(tmp_path_factory, "test_commits_a_subagent_made_are_listed_as_its")
    section = note.split("## Commits", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"(?m)^- `([0-9a-f]{7})`( \(made by a subagent\))?", section)
    want = [(sha, "") for sha, _ in mine] + (
        [(sha, " (made by a subagent)") for sha, _ in subs] if agent else [])
    assert sorted(listed) == sorted(want), (listed, want)
    head = note.split("\n> ", 1)[1].split("\n", 1)[0]
    more = len(want) - 1
    assert (f" and {more} more" in head) == (more > 0), head
    for sha, _ in old:
        assert sha not in section, section


# -- commits a subagent's report names ------------------------------------------------

REPORT_LINES = [
    "Committed `{sha}` {subject}",
    "**Commit SHA:** `{full}` (short: `{sha}`)",
    "**Commit {k}** — `{sha}` `{subject}`",
    "- commit {full}: {subject}",
]


@settings(max_examples=examples(30, 150), deadline=None)
@given(subjects=st.lists(phrase, min_size=1, max_size=4, unique=True),
       forms=st.lists(st.integers(0, len(REPORT_LINES) - 1), min_size=4, max_size=4),
       own_file=st.booleans(), logged=st.booleans(), own_commit=st.booleans(),
       fulls=st.lists(st.text("0123456789abcdef", min_size=33, max_size=33), min_size=5,
                      max_size=5))
def test_a_commit_named_only_in_a_report_is_not_a_commit(
        tmp_path_factory: Any, subjects: list[str], forms: list[int], own_file: bool,
        logged: bool, own_commit: bool, fulls: list[str]) -> None:
    """Review 29: a subagent commits, and its transcript file may be missing
    (older layouts, a sidechain not kept): its report's "Committed `abc1234`
    …" is its words. The oracle: a sha is a commit of the note iff an output
    of the session printed it (the subagent's own `git commit`, in its file,
    or a later `git log` of the main agent); else the note does not tell it.
    A sha Claude names in its own words is never a commit."""
    # Shas with a letter and a digit, distinct in their first 7 (as git shows them).
    made = [(f"a{k}{fulls[k][:5]}{fulls[k]}", s) for k, s in enumerate(subjects)]
    t = Transcript()
    t.prompt("have an agent implement it and commit each part")
    if own_commit:
        t.bash('git commit -m "start"', "[main 1f00000] start\n 1 file changed\n")
    agent = "a0c0ffee"
    report = "Done.\n\n" + "\n".join(
        REPORT_LINES[forms[k]].format(sha=full[:7], full=full, subject=s, k=k)
        for k, (full, s) in enumerate(made)) + "\n\nAll tests pass."
    t.call("Task", {"description": "Implement it", "prompt": "implement it",
                    "subagent_type": "general-purpose"},
           {"status": "completed", "agentId": agent, "totalToolUseCount": 2 * len(made),
            "content": [{"type": "text", "text": report}]}, report)
    if logged:
        log = [*reversed(made), *([("1f00000", "start")] if own_commit else [])]
        t.bash(f"git log --oneline -{len(log)}",
               "".join(f"{full[:7]} {s}\n" for full, s in log))
    claims = f"ce{fulls[4][:5]}"  # a sha only Claude names
    t.say(f"The agent committed everything; see commit {claims}.")
    files: dict[str, list[dict[str, Any]]] = {}
    if own_file:
        lines: list[dict[str, Any]] = []
        for k, (full, s) in enumerate(made):
            tid = f"toolu_sub{k:04d}"
            base = {"sessionId": t.sid, "agentId": agent, "isSidechain": True, "cwd": t.cwd,
                    "timestamp": f"2026-03-01T10:00:{30 + k:02d}.000Z"}
            lines.append({**base, "type": "assistant", "uuid": f"{agent}-c{k}", "message": {
                "id": f"msg_{agent}_{k}", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": tid, "name": "Bash",
                             "input": {"command": f'git commit -am "{s}"'}}],
                "usage": {"input_tokens": 1, "output_tokens": 1}}})
            out = f"[main {full[:7]}] {s}\n 1 file changed, 1 insertion(+)\n"
            lines.append({**base, "type": "user", "uuid": f"{agent}-r{k}", "message": {
                "role": "user", "content": [{"type": "tool_result", "tool_use_id": tid,
                                             "content": out}]},
                "toolUseResult": {"stdout": out, "stderr": "", "interrupted": False}})
        files[agent] = lines
    env = Env(tmp_path_factory.mktemp("reported"))
    env.here = in_process("test_a_commit_named_only_in_a_report_is_not_a_commit")
    write_with_agents(env, t, files)
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    section = note.split("## Commits", 1)[1].split("\n## ", 1)[0] if "## Commits" in note else ""
    listed = set(re.findall(r"(?m)^- `([0-9a-f]{7})`", section))
    shown = own_file or logged  # an output of the session printed them
    want = {full[:7] for full, _ in made} if shown else set()
    assert listed == want | ({"1f00000"} if own_commit else set()), note
    assert claims not in section
    row = next(x for x in note.split("## Subagents", 1)[1].splitlines() if "Implement it" in x)
    # A sha only its report names is not told (review 32 #19: that no output
    # of the session shows it cannot be known, and 3 of 3 such claims were
    # false): the row neither repeats it nor accuses the subagent.
    for full, _ in made:
        assert full[:7] not in row, row
    assert "no output" not in row, row
    if shown:
        assert f"{len(made)} commit" in row, row
