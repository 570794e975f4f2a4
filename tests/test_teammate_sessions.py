"""Review 32 #21, #22, #27: a teammate's own session (Claude Code 2.1.39-2.1.42,
agent teams). Its lines carry `agentName` (its name in the team) and
`teamName`; what it was asked comes as its lead's `<teammate-message>`s: task
assignments (`{"type": "task_assignment", "taskId": "14", "subject": "MP-1:
…", "assignedBy": "team-lead"}`) and the lead's words. The notes said
"Teammate *team-lead* was assigned a task" (the reverse, and no task named),
headed the first turn "Continued", titled all 6 sessions "Session <id8>", and
never said which teammate of which team the session is.

Generated: teammate sessions whose first message holds 0-3 task assignments
(some the teammate's own claim of a task, sent back to it) and maybe the
lead's words ("You are <name> on the team. Your task is to <request>."); a
later message may assign more. Oracle: the JSON written: each assignment is
told as its sender's, with its task's number and subject; the session is
titled by its first task's subject (else the lead's request), counts no
prompt, heads its turns by who sent them, and names its teammate and team.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter
from test_headlines import Transcript, phrase

name = st.sampled_from(["mobile-polish", "ui-dev", "proxy-fix", "data-layer-dev", "verify"])
lead = st.sampled_from(["team-lead", "lead", "coordinator"])
team = st.sampled_from(["phase6-gap-closure", "multi-profile", "perf-optimization"])
task = st.tuples(st.integers(1, 99), st.sampled_from(["MP", "UI", "DOM", "DL"]),
                 st.integers(1, 9), phrase)


def assignment(sender: str, number: int, subject: str) -> str:
    body = json.dumps({"type": "task_assignment", "taskId": str(number), "subject": subject,
                       "description": "do it well", "assignedBy": sender,
                       "timestamp": "2026-02-11T15:21:17.739Z"})
    return f'<teammate-message teammate_id="{sender}">\n{body}\n</teammate-message>'


@settings(max_examples=examples(30, 150), deadline=None)
@given(me=name, boss=lead, team_name=team,
       tasks=st.lists(task, max_size=3, unique_by=lambda x: x[0]),
       own=st.lists(st.booleans(), min_size=3, max_size=3),
       words=st.booleans(), request=phrase, later=st.lists(task, max_size=2,
                                                          unique_by=lambda x: x[0]))
def test_a_teammates_session_says_who_asked_it_what(
        tmp_path_factory: Any, me: str, boss: str, team_name: str,
        tasks: list[tuple[int, str, int, str]], own: list[bool], words: bool, request: str,
        later: list[tuple[int, str, int, str]]) -> None:
    if not tasks and not words:
        words = True  # (a teammate is woken by something)
    sent: list[tuple[str, int, str]] = []  # (sender, number, subject) as written
    parts = []
    for k, (number, prefix, n, p) in enumerate(tasks):
        sender = me if own[k] and k > 0 else boss  # (its first task is its lead's)
        subject = f"{prefix}-{n}: {p}"
        parts.append(assignment(sender, number, subject))
        sent.append((sender, number, subject))
    if words:
        parts.append(f'<teammate-message teammate_id="{boss}">\nYou are {me} on the '
                     f'{team_name} team. Your task is to {request}.\n</teammate-message>')
    t = Transcript(sid="7ea77ea7-0000-4000-8000-00000000a7e2")
    t.prompt("\n\n".join(parts))
    t.bash("ls", "a\n")
    t.say("Done with the first part.")
    if later:
        more = []
        for number, prefix, n, p in later:
            number += 100  # (another task than the first message's)
            subject = f"{prefix}-{n}: {p}"
            more.append(assignment(boss, number, subject))
            sent.append((boss, number, subject))
        t.prompt("\n\n".join(more))
        t.say("Done with the rest.")
    for line in t.lines:
        line.update(agentName=me, teamName=team_name)
    note = t.note(tmp_path_factory, "test_a_teammates_session_says_who_asked_it_what")
    fm = frontmatter(note)
    assert fm.get("prompts", 0) == 0, fm  # the user typed nothing here
    assert "was assigned a task" not in note, note
    for sender, number, subject in sent:
        told = (f"Took task #{number}: {subject}" if sender == me else
                f"*{sender}* assigned task #{number}: {subject}")
        assert told in note, (told, note)
    story = note.split("## Story", 1)[1]
    headings = re.findall(r"(?m)^### (?:\d\d:\d\d · )?(.+)$", story)
    assert headings and all(h == f"From *{boss}*" for h in headings), headings
    title = str(fm["title"])
    if tasks:
        assert title == tasks[0][1] + f"-{tasks[0][2]}: {tasks[0][3]}", title
    else:
        said = request.lower().split()
        got = re.sub(r"[^a-z ]", "", title.lower()).split()
        assert got and got == said[:len(got)], (title, request)
    assert f"**Teammate** *{me}* of the agent team *{team_name}*" in note, note
