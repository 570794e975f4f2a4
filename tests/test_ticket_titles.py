"""Review 26: a first request that names its ticket only by id says what the
session is about through the ticket's title, as a tool of the session
fetched it. e8106766 was titled "let's debug - ENT-207 in linear", which
tells nothing of the work; Linear's answer in the session gives ENT-207's
title, "Default `Agent` tag being used for checkpoints instead of the actual
Agent (Claude-Code)".

Generated sessions: requests in several forms naming a generated id, then
tool results holding that ticket (title before or after its id, among other
tickets, a Jira "summary"), failed fetches, and results that hold only other
tickets. The oracle is what was planted: the title is the request's words
in order from its verb, then the planted ticket's title, its words in order
(cut at a word with "…" when long), or the request alone when no result of
the session gave that ticket's title. Over the corpus, the tickets are read
from the JSON with json.loads and a walk of its objects.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, json_objects, main_files
from test_headlines import Transcript
from test_request_titles import flat, in_order
from vibe_vault.entries import decode_line
from vibe_vault.figures import title_of
from vibe_vault.fold import fold
from vibe_vault.state import Fold, SessionState

ticket_id = st.from_regex(r"[A-Z]{2,5}-[1-9][0-9]{0,3}", fullmatch=True)
word = st.text(alphabet="bcdfghjklmnprstvwz", min_size=2, max_size=8)
REQUESTS = ["let's debug - {} in linear", "fix {}", "Please look into {}",
            "can you work on {}?", "debug {} please"]
FORMS = ["linear", "linear-first", "list", "jira", "other-only", "failed"]


def walk(x: Any) -> list[dict[str, Any]]:
    """Every JSON object in `x`, nested ones included."""
    if isinstance(x, dict):
        return [x, *(o for v in x.values() for o in walk(v))]
    if isinstance(x, list):
        return [o for v in x for o in walk(v)]
    return []


def titles_in(text: str, wanted: str) -> list[str]:
    """The titles a tool's result gives the ticket `wanted` (an oracle of its
    own: the result parsed as JSON, its objects walked)."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    out = []
    for o in walk(data):
        if wanted in (o.get("identifier"), o.get("key")):
            said = o.get("title") or o.get("summary") or (o.get("fields") or {}).get("summary")
            if isinstance(said, str) and said.strip():
                out.append(said)
    return out


def ticket_titles(objs: list[dict[str, Any]], first: str) -> list[str]:
    """The titles of the tickets the first request names, from the results of
    the session's tool calls that did not fail."""
    ids = re.findall(r"(?<![\w-])[A-Z][A-Z0-9]{1,9}-\d{1,6}(?![\w-])", first)
    out: list[str] = []
    for o in objs:
        content = (o.get("message") or {}).get("content")
        for b in content if isinstance(content, list) else []:
            if not isinstance(b, dict) or b.get("type") != "tool_result" or b.get("is_error"):
                continue
            c = b.get("content")
            texts = [c] if isinstance(c, str) else [x.get("text", "") for x in c or []
                                                    if isinstance(x, dict)]
            out.extend(t for text in texts for i in ids for t in titles_in(str(text), i))
    return out


def result(form: str, tid: str, title: str, other: str) -> tuple[str, bool]:
    """What a tracker's tool returns, in `form`; whether it is an error."""
    if form == "linear":
        return json.dumps({"issues": [{"id": "u1", "identifier": tid, "title": title,
                                       "description": "see the thread"}]}), False
    if form == "linear-first":
        return json.dumps({"title": title, "state": "Todo", "identifier": tid}), False
    if form == "list":
        return json.dumps({"issues": [{"identifier": f"{tid}0", "title": other},
                                      {"identifier": tid, "title": title}]}), False
    if form == "jira":
        return json.dumps({"key": tid, "summary": title, "status": "Open"}), False
    if form == "other-only":
        return json.dumps({"issues": [{"identifier": f"{tid}0", "title": other}]}), False
    return f"Error: issue {tid} not found", True


@settings(max_examples=examples(60, 300), deadline=None)
@given(tid=ticket_id, request=st.sampled_from(REQUESTS), form=st.sampled_from(FORMS),
       title=st.lists(word, min_size=1, max_size=18).map(" ".join),
       other=st.lists(word, min_size=2, max_size=6).map(" ".join))
def test_a_ticket_named_by_id_is_titled_with_its_fetched_title(
        tid: str, request: str, form: str, title: str, other: str) -> None:
    t = Transcript()
    asked = request.format(tid)
    t.prompt(asked)
    text, error = result(form, tid, title, other)
    t.call("mcp__linear-server__get_issue", {"id": tid}, None, text, error=error)
    t.say("Found it.")
    got = title_of(t.state())
    found = form in ("linear", "linear-first", "list", "jira")
    if not found:
        assert ": " not in got and in_order(got, asked), got
        assert flat(other).split()[0] not in flat(got).split(), got
        return
    before, _, after = got.partition(": ")
    # (the request by its verb: its ask form and a dash after the verb left out)
    verb = next(w for w in ("debug", "fix", "look", "work") if w in asked)
    assert flat(before).startswith(verb) and in_order(before, asked), got
    assert tid.lower() in flat(before).split(), got
    assert after.strip(" …"), got
    assert in_order(after, title) and flat(title).startswith(flat(after.removesuffix("…"))), got
    assert after.endswith("…") or flat(after) == flat(title), got
    assert len(got) <= 100, got


def test_e8106766_shape() -> None:
    """The corpus session's shape: Linear's list then its issue."""
    t = Transcript()
    t.prompt("let's debug - ENT-207 in linear")
    issue = {"identifier": "ENT-207", "title": "Default `Agent` tag being used for "
             "checkpoints instead of the actual Agent (Claude-Code)"}
    t.call("mcp__linear-server__list_issues", {"query": "ENT-207"}, None,
           json.dumps({"issues": [issue]}))
    t.say("Looking.")
    assert title_of(t.state()) == ("Debug ENT-207 in linear: Default `Agent` tag being used "
                                   "for checkpoints instead of the actual Agent")


@pytest.mark.corpus
def test_corpus_tickets_named_by_id_title_their_sessions() -> None:
    """Every corpus session without a title of its own whose first request
    names a ticket a tool of it returned: the title holds the request's
    words, then the ticket's title's first words."""
    checked = 0
    for path in main_files():
        objs = json_objects(path)
        if not any(o.get("type") == "assistant" for o in objs) or any(
                o.get("type") in ("custom-title", "ai-title", "summary", "away_summary")
                for o in objs):
            continue
        first = next((str((o.get("message") or {}).get("content")) for o in objs
                      if o.get("type") == "user" and not o.get("isMeta")
                      and isinstance((o.get("message") or {}).get("content"), str)), "")
        tickets = ticket_titles(objs, first)
        if not tickets:
            continue
        state = SessionState(session_id="x", project="p", fold=fold(
            Fold(), (decode_line(json.dumps(o).encode()) for o in objs)))
        title = title_of(state)
        before, _, after = title.partition(": ")
        assert in_order(before, first), (path, title)
        assert flat(tickets[0]).startswith(" ".join(flat(after).split()[:4])), (path, title)
        checked += 1
    assert checked >= 1, checked  # e8106766
