"""Review 32 #23: a team lead's headline quoted a stale message. 39d5e4d9:
"Claude: All 5 agents spawned and running in parallel." (15:23) though the
transcript goes on to 15:43: the teammates report, Claude verifies, deletes
the team and starts a commit that has no result; 7e7f49b0: "Waiting for
agents to complete their work..." though its last words are "All work is
complete — 18 files changed, lint clean, build passes." Its teammates'
messages were taken for a background task's news, after which Claude's words
are not its answer to the request.

Generated: a lead session (its lines name the team) that spawns teammates,
says they are running, gets 1-3 of their messages (words or idle notices),
may reply to each, writes to a teammate, then gives its account, and maybe
messages its team after it (shutdown requests) or starts a commit the
transcript holds no result of. Oracle: the lines written: the headline quotes the account, the
last words Claude wrote, never the stale message; where a commit was under
way at the end it says the transcript ends while Claude was on the request.
Each message the lead sends is told with its recipient and words (#26).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter
from test_headlines import Transcript, phrase

member = st.sampled_from(["frontend-quality", "infra-cleanup", "verify", "mobile-polish"])


@settings(max_examples=examples(30, 150), deadline=None)
@given(members=st.lists(member, min_size=1, max_size=3, unique=True),
       messages=st.lists(st.tuples(member, st.booleans(), phrase, st.booleans()), min_size=1,
                         max_size=3),
       account=phrase, after=st.sampled_from(["none", "shutdown", "commit"]),
       summarised=st.booleans())
def test_a_team_leads_headline_quotes_its_last_account(
        tmp_path_factory: Any, members: list[str], messages: list[tuple[str, bool, str, bool]],
        account: str, after: str, summarised: bool) -> None:
    t = Transcript(sid="7ea77ea7-0000-4000-8000-00000000a7e3")
    t.prompt("close every remaining gap with an agent team")
    t.call("TeamCreate", {"team_name": "gap-closure"}, {"team_name": "gap-closure"}, "ok")
    for m in members:
        t.call("Task", {"description": f"{m} work", "prompt": "do your part", "name": m,
                        "team_name": "gap-closure", "subagent_type": "general-purpose"},
               {"status": "teammate_spawned", "name": m}, f"Spawned successfully: {m}")
    stale = f"All {len(members)} agents spawned and running in parallel."
    t.say(stale)
    for who, idle, said, reply in messages:
        body = json.dumps({"type": "idle_notification", "from": who, "summary": said}) \
            if idle else said
        t.prompt(f'<teammate-message teammate_id="{who}">\n{body}\n</teammate-message>')
        if reply:
            t.say(f"Waiting for the others to finish {said}.")
    # The lead writes to a teammate (review 32 #26: "Used SendMessage", no
    # recipient, no words): told with both.
    asked = f"please also check {account}"
    t.call("SendMessage", {"type": "message", "recipient": members[0], "content": asked + "\n",
                           "summary": asked if summarised else ""},
           {"success": True}, "sent")
    last = f"All work is complete {account}."
    t.say(last)
    if after == "shutdown":
        for m in members:
            t.call("SendMessage", {"type": "shutdown_request", "recipient": m,
                                   "content": "All done, shutting down."},
                   {"success": True}, "sent")
    elif after == "commit":
        t.lines.append({**t._base("assistant"), "message": {
            "id": "msg_commit", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": "toolu_commit", "name": "Bash",
                         "input": {"command": 'git commit -m "close the gaps"'}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}})
    for line in t.lines[1:]:
        line["teamName"] = "gap-closure"  # (a lead's lines name its team, not itself)
    note = t.note(tmp_path_factory, "test_a_team_leads_headline_quotes_its_last_account")
    summary = str(frontmatter(note)["summary"])
    assert stale not in summary, summary
    assert "Waiting for the others" not in summary, summary
    if after == "commit":
        # (still at work, or the transcript ended there: the session's state says which)
        assert ("The transcript ends while Claude was still on the last request" in summary
                or "Claude is still at work on the last request" in summary), summary
        assert f"Claude, before it: {last}" in summary, summary
    else:
        assert f"Claude: {last}" in summary, summary
    assert "**Agent team** *gap-closure* (this session leads it)" in note, note
    assert f"Used SendMessage: to {members[0]}: “{asked}”" in note, note
    if after == "shutdown":
        for m in members:
            assert f"Used SendMessage: asked {m} to shut down" in note, note
