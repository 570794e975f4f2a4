"""A transcript that ends while Claude was still on the last request (review
26 #1 and #17: e4d579fb ends after Claude created a branch and edited a file,
79e9becd while a code-review subagent runs) says so, never "The last request
got no answer", which reads as "Claude ignored me". That is said only when
Claude made no call after the request.

The oracle is the session as drawn: the calls planted after the last request
(how many, the branch each `git checkout -b` made, the file each edit
changed, a subagent started with no result yet).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.figures import RenderOptions, ending, figures, open_thread_words

name = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=4, max_size=8)
call = st.tuples(st.sampled_from(("ls", "branch", "edit", "agent")), name)


def plant(t: Transcript, kind: str, word: str) -> None:
    if kind == "ls":
        t.bash(f"ls {word}", f"{word}.txt\n")
    elif kind == "branch":
        t.bash(f"git checkout -b feat/{word}", "", "")
    elif kind == "edit":
        path = f"/work/app/src/{word}.py"
        t.call("Edit", {"file_path": path, "old_string": "a = 1", "new_string": "a = 2"},
               {"filePath": path, "oldString": "a = 1", "newString": "a = 2",
                "originalFile": "a = 1\n", "structuredPatch": [
                    {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
                     "lines": ["-a = 1", "+a = 2"]}]}, "ok")
    else:  # a subagent started, its result never came: the transcript ends here
        t.lines.append({**t._base("assistant"), "message": {
            "id": f"msg_{len(t.lines)}", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": f"toolu_{len(t.lines):04d}", "name": "Task",
                         "input": {"description": f"Review {word}", "prompt": "review it",
                                   "subagent_type": "code-reviewer"}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}})


@settings(max_examples=examples(40, 150), deadline=None)
@given(request=name, calls=st.lists(call, max_size=5), answered_before=st.booleans())
def test_a_last_request_claude_was_at_work_on_is_not_said_unanswered(
        request: str, calls: list[tuple[str, str]], answered_before: bool) -> None:
    t = Transcript()
    if answered_before:
        t.prompt("look around")
        t.say("All tests pass.")
    t.prompt(f"please fix {request}")
    # (a subagent with no result ends the transcript: nothing comes after it)
    cut = next((i + 1 for i, (k, _) in enumerate(calls) if k == "agent"), len(calls))
    planted = calls[:cut]
    for kind, word in planted:
        plant(t, kind, word)
    state = t.state()
    state.status = "ended"
    summary = figures(state, RenderOptions()).summary
    threads: list[Any] = open_thread_words(state, ending(state))
    if not planted:
        assert "The last request got no answer" in summary, summary
        assert any(s.startswith("The last request got no answer") for s in threads), threads
        return
    n = len(planted)
    said = (f"The transcript ends while Claude was still on the last request "
            f"(after {n} call{'s' if n != 1 else ''}")
    for text in (summary, threads[0]):
        assert said in text, text
        assert "got no answer" not in text, text
    done = [("created branch feat/" if k == "branch" else "edited " if k == "edit" else
             "started a subagent (Review ") + w + (".py" if k == "edit" else "")
            for k, w in planted if k != "ls"]
    told = list(dict.fromkeys(done))[:3]
    for fact in told:
        assert fact in summary, (fact, summary)
        assert fact in threads[0], (fact, threads[0])
    if not done:
        assert f"call{'s' if n != 1 else ''})" in summary, summary
