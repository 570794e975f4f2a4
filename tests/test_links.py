"""The tags that tell apart sessions of one title (links.group_tags) are what
their definition says, worked out here the plain way as the oracle: each
session's first words after the longest opening its request shares with any
other request of the group, compared without case; none when all its words
are shared or when two tags would read the same (those sessions, and any
with no words, are told by their day, or by their minute when that day is
not theirs alone). Requests are drawn from a few words in a few cases, so
shared openings, repeats and equal tags are common."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from vibe_vault.links import TAG_CHARS, TAG_WORDS, group_tags
from vibe_vault.records import Record
from vibe_vault.text import trim
from vibe_vault.times import day, day_and_time

WORDS = ["fix", "Fix", "FIX", "the", "login", "page", "logout", "now", "please", "tests"]
STARTS = ["2026-01-01T10:00:00Z", "2026-01-01T11:30:00Z", "2026-01-02T09:00:00Z", ""]


def oracle(group: list[Record]) -> dict[str, str]:
    words = {r.session_id: r.request_words.split() for r in group}
    tags: dict[str, str] = {}
    for sid, ws in words.items():
        if not ws:
            continue
        shared = 0
        for other, ows in words.items():
            if other == sid:
                continue
            k = 0
            while k < min(len(ws), len(ows)) and ws[k].casefold() == ows[k].casefold():
                k += 1
            shared = max(shared, k)
        if shared >= len(ws):
            continue
        text = " ".join(ws[shared:shared + TAG_WORDS]) + (
            " …" if shared + TAG_WORDS < len(ws) else "")
        tags[sid] = trim(("… " if shared else "") + text, TAG_CHARS)
    told = [t.casefold() for t in tags.values()]
    tags = {sid: t for sid, t in tags.items() if told.count(t.casefold()) == 1}
    untold = [day(r.started) for r in group if r.session_id not in tags]
    return {r.session_id: tags.get(r.session_id) or (
        day(r.started) if untold.count(day(r.started)) == 1 else day_and_time(r.started))
        for r in group}


@settings(max_examples=examples(50, 1000), deadline=None)
@given(st.data())
def test_tags_are_what_the_words_and_days_of_the_group_make_them(data: Any) -> None:
    size = data.draw(st.integers(2, 40), label="sessions")
    group = [Record(session_id=f"s{i}", started=data.draw(st.sampled_from(STARTS)),
                    request_words=" ".join(data.draw(st.lists(st.sampled_from(WORDS),
                                                              max_size=9))))
             for i in range(size)]
    assert group_tags(group) == oracle(group)
