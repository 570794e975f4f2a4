"""A session opened by a plan carried out in a fresh context is titled by the
plan (review 4, finding 7): Claude Code writes "Implement the following
plan:" before it (7505c804 was titled by those words, the same for every
such session); the plan's own first line, its heading, says what the session
is about. Headings and bodies are generated; the oracle is the heading put in.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, frontmatter, json_objects, main_files
from test_headlines import Transcript

PREAMBLE = "Implement the following plan:"
word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9)
heading = st.lists(word, min_size=2, max_size=8).map(lambda ws: " ".join(ws).capitalize())
body = st.lists(st.sampled_from(["## Context", "", "Currently `logging.Init` makes a file.",
                                 "- step one", "1. do it", "## Files"]), max_size=6)


@settings(max_examples=60, deadline=None)
@given(title=heading, level=st.integers(0, 3), gap=st.sampled_from(["\n", "\n\n", "\n \n"]),
       rest=body)
def test_a_plan_prompt_is_titled_by_the_plan(title: str, level: int, gap: str,
                                             rest: list[str]) -> None:
    t = Transcript()
    head = ("#" * level + " " if level else "") + title
    t.prompt(PREAMBLE + gap + head + "\n\n" + "\n".join(rest))
    t.say("Done.")
    assert t.state().fold.first_prompt_title == title


@pytest.mark.corpus
def test_corpus_plan_sessions_are_titled_by_their_plan() -> None:
    """Every corpus session whose first prompt is a plan carried out: its title
    is the plan's first line, without the heading's #s."""
    from test_trust import folded
    seen = 0
    for main in main_files():
        first = None
        for o in json_objects(main):
            content = (o.get("message") or {}).get("content")
            if o.get("type") == "user" and not o.get("isMeta") and isinstance(content, str) \
                    and content.strip() and not content.lstrip().startswith("<"):
                first = content
                break
        if first is None or not first.startswith(PREAMBLE):
            continue
        want = next(ln.strip().lstrip("#").strip()
                    for ln in first[len(PREAMBLE):].splitlines() if ln.strip())
        assert folded(main).fold.first_prompt_title == want, main
        seen += 1
    assert seen >= 1


def test_a_plan_session_title_end_to_end(env: Env) -> None:
    t = Transcript(sid="0b1c2d3e-0000-4000-8000-0000000000dd")
    t.prompt(f"{PREAMBLE}\n\n# Consolidate logging to one file\n\n## Context\n\nToo many files.")
    t.say("Consolidated.")
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    assert frontmatter(note)["title"] == "Consolidate logging to one file"
