"""A project note's open threads are its latest sessions' open threads, in
the words their notes use: a last request left without an answer, a question
nobody replied to, the todos not done, a command left running.

Each session is generated from parts (the request, the todos and their
statuses, a background command, how it ends); the oracle is those parts.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_headlines import Transcript, phrase

STATUSES = ["pending", "in_progress", "completed"]


def section(note: str, heading: str) -> list[str]:
    """The list items under `heading`, without their box and markup."""
    m = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", note, re.S | re.M)
    if not m:
        return []
    items = re.findall(r"^- \[ \] (.*)$", m.group(1), re.M)
    return [re.sub(r"[`*\\]", "", i) for i in items]


@settings(max_examples=examples(6, 30), deadline=None)
@given(ask=phrase,
       todos=st.lists(st.tuples(phrase, st.sampled_from(STATUSES)), max_size=4,
                      unique_by=lambda t: t[0]),
       server=st.one_of(st.none(), phrase),
       end=st.sampled_from(["answered", "unanswered", "question"]))
def test_the_project_note_lists_what_its_sessions_left_open(
        tmp_path_factory: Any, ask: str, todos: list[tuple[str, str]], server: str | None,
        end: str) -> None:
    env = Env(tmp_path_factory.mktemp("threads"))
    env.here = in_process("project threads")
    t = Transcript()
    t.prompt(f"please {ask}")
    if todos:
        t.call("TodoWrite", {"todos": [{"content": c, "status": s, "activeForm": c}
                                       for c, s in todos]}, None, "Todos updated")
    if server:
        t.bash(f"serve {server}", "Command running in background with ID: b1",
               "Start the server", background=True)
    if end == "unanswered":
        t.bash("make check", "ok")
    elif end == "question":
        t.say("It is ready.\n\nShould I also update the changelog?")
    else:
        t.say("It is ready.")
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr

    want = [f"please {ask}"] if end == "unanswered" else []
    want += ["Should I also update the changelog?"] if end == "question" else []
    want += [c for c, s in todos if s != "completed"]
    want += [f"serve {server}"] if server else []
    (note,) = env.notes().values()
    project = (env.vault / "Projects" / "app" / "app.md").read_text(encoding="utf-8")
    in_note = section(note, "Open threads")
    in_project = [re.sub(r" \(\[\[.*\]\]\)$", "", i)
                  for i in section(project, "Open threads (latest sessions)")]
    for items in (in_note, in_project):
        assert len(items) == len(want), (items, want)
        for item, words in zip(items, want, strict=True):
            assert words in item, (item, words)
    # The same words in both places (the project note links each to its session).
    assert in_project == in_note
    done = [c for c, s in todos if s == "completed"]
    assert not any(c in i for c in done for i in in_project)
