"""A query typed as a sentence: its common words ("no", "when", "in", "a"; der,
und; le, et; и, в; και; の) tell no session from another, so they are not
asked, not counted among the words a session holds and carry no rank; the
session holding the query's own words comes first, above sessions that say
every common word and fewer of its own (review 26 #20). A query of common
words only still looks for them.

The oracle is the words the generator planted in each session, and a list of
function words written here (not read from vv's own).
"""

from __future__ import annotations

import json
import random
import unicodedata
import uuid
from typing import Any

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_search import conversation
from vibe_vault.search_query import parse

# Function words of the languages the search folds, as a person types them
# (accents, capitals): none a word anyone searches for.
COMMON = ["no", "when", "in", "a", "the", "of", "is", "What", "with", "for",
          "der", "und", "Le", "et", "él", "и", "в", "και", "από", "の", "은"]
# Words of no language: what the query is about.
OWN = ["zqamber", "zqbirch", "zqcedar", "zqdelta", "zqember", "zqfjord", "zqgrove"]


@settings(max_examples=examples(60, 300), deadline=None)
@given(st.lists(st.sampled_from(OWN), min_size=1, max_size=4, unique=True),
       st.lists(st.sampled_from(COMMON), min_size=1, max_size=6), st.randoms())
def test_common_words_are_not_asked_unless_nothing_else_is(
        own: list[str], common: list[str], rng: random.Random) -> None:
    words = own + common
    rng.shuffle(words)
    query = parse(" ".join(words))
    # asked: each own word once, in the order typed, as typed (lower case)
    assert query.parts == tuple(f'"{w}"' for w in words if w in own)
    # ... and the common words as typed stay in the phrase of the words in a row
    assert query.phrase == '"' + " ".join(_folded(w) for w in words) + '"'
    only_common = parse(" ".join(common))
    assert len(only_common.parts) == len({w.lower() for w in common})
    # quoted, a common word is asked
    quoted = parse(" ".join([*own, f'"{common[0]}"']))
    assert len(quoted.parts) == len(own) + 1


def _folded(word: str) -> str:
    """A word lower case and without its accents, as the index keeps it."""
    return unicodedata.normalize("NFC", "".join(
        c for c in unicodedata.normalize("NFD", word.lower()) if not unicodedata.combining(c)))


def _write(env: Env, sessions: dict[str, list[str]]) -> None:
    slug = env.claude / "projects" / "-home-u-conv"
    slug.mkdir(parents=True)
    for sid, words in sessions.items():
        half = len(words) // 2
        prompt = "look " + " ".join(words[:half])
        answer = "done " + " ".join(words[half:])
        (slug / f"{sid}.jsonl").write_text(conversation(sid, [[answer]], [prompt]))
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr.decode()


def _search(env: Env, *words: str) -> list[dict[str, Any]]:
    r = env.vv("search", "--json", "--limit", "20", *words)
    assert r.returncode == 0, r.stderr.decode()
    hits = json.loads(r.stdout)
    assert isinstance(hits, list)
    return hits


# (no shrinking: a seed is all a case is)
@settings(max_examples=examples(4, 15), deadline=None,
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.data())
def test_the_session_holding_the_querys_own_words_beats_those_holding_its_common_ones(
        tmp_path_factory: Any, data: st.DataObject) -> None:
    """The one meant holds the query's own words (all, or all but one, and
    then no session holds every word) and none of its common ones; every
    other session holds every common word and fewer of the own words. It
    comes first; a hit says how many of the own words it holds, of how
    many; a session holding common words only is no hit."""
    env = Env(tmp_path_factory.mktemp("stop"))
    env.here = in_process("search stop words")
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    own = rng.sample(OWN, rng.randint(2, 4))
    common = rng.sample(COMMON, rng.randint(2, 6))
    lacks = rng.random() < 0.5  # the one meant lacks one own word
    meant_words = own[:-1] if lacks else own
    sessions = {str(uuid.UUID(int=1, version=4)): list(meant_words)}
    for k in range(2, rng.randint(3, 7)):
        # (fewer own words than the one meant, and only words it holds too:
        # each word weighs more than nothing, so it holds more weight; one
        # holding none, common words only)
        some = rng.sample(meant_words, rng.randint(0, len(meant_words) - 1))
        sessions[str(uuid.UUID(int=k, version=4))] = [*common, *some, *common]
    for words in sessions.values():
        rng.shuffle(words)
    _write(env, sessions)
    query = own + common
    rng.shuffle(query)
    hits = _search(env, *query)
    meant = str(uuid.UUID(int=1, version=4))
    got = [(h["session_id"][-2:], h["words"]) for h in hits]
    assert hits and hits[0]["session_id"] == meant, (query, got, sessions)
    for h in hits:
        held = len(set(sessions[h["session_id"]]) & set(own))
        assert h["words"] == {"held": held, "of": len(own)}, (query, got)
        assert held >= 1
    found = {h["session_id"] for h in hits}
    for sid, words in sessions.items():
        if not set(words) & set(own):
            assert sid not in found, (query, got)
    if lacks:
        text = env.vv("search", *query).stdout.decode()
        assert f"holds {len(own) - 1} of the {len(own)} words" in text, text
        assert "common words not counted: " in text, text
    # common words only: the sessions saying every one of them, the one meant not
    hits = _search(env, *common)
    assert {h["session_id"] for h in hits} == {
        sid for sid, words in sessions.items()
        if {c.lower() for c in common} <= {w.lower() for w in words}}, (common, sessions)
