"""A word made by a prefix finds the word it is made from, and that word the
words made from it (`subfolder` and `folder`, `agent` and `subagent`), and
the words developers use for one thing find each other (`folder`,
`directory`, `dir`; `repo`, `repository`): each below the sessions holding
the word as typed (review 26 #20: "checkpoints subfolder" did not find the
session saying "inside a folder" and "from subdirectories").

Sessions are generated with made-up words (no language's) put in with a
prefix or without; the oracle is where the generator put which form, and
the prefixes and same-meaning words written here.
"""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_search import conversation
from vibe_vault.related import made_from, root_of

PREFIXES = ["sub", "multi", "non", "un", "pre", "re", "super", "auto"]
SAME = [["folder", "directory"], ["repo", "repository"]]
# Words that look made by a prefix, of a word of their own, and are not.
NOT_MADE = ["unless", "research", "present", "release", "subscribe", "automatic"]


def made_up(rng: random.Random) -> str:
    """A word of no language, of 7 letters (long enough for any prefix)."""
    return "zq" + "".join(rng.choice("bdfgklmnprt") + rng.choice("aiou") for _ in range(2)) + \
        rng.choice("bdgkmnprt")


@settings(max_examples=examples(100, 500), deadline=None)
@given(st.sampled_from(PREFIXES), st.randoms())
def test_a_prefix_is_taken_off_and_put_on(prefix: str, rng: random.Random) -> None:
    word = made_up(rng)
    assert root_of(prefix + word) == (prefix, word)
    assert prefix + word in made_from(word)
    assert root_of(word) is None  # (zq starts no prefix)


@settings(max_examples=examples(20, 60), deadline=None)
@given(st.sampled_from(NOT_MADE), st.sampled_from(["", "s", "ed", "ing"]))
def test_a_word_that_only_looks_made_by_a_prefix_is_left_alone(word: str, ending: str) -> None:
    assert root_of(word + ending) is None
    assert word not in made_from(word[len(next(p for p in PREFIXES if word.startswith(p))):])


def _search(env: Env, *words: str) -> list[str]:
    r = env.vv("search", "--json", "--limit", "20", *words)
    assert r.returncode == 0, r.stderr.decode()
    hits = json.loads(r.stdout)
    assert isinstance(hits, list)
    # (those holding every word: the closest matches after them hold the
    # query's other word only)
    return [h["session_id"] for h in hits if h["words"]["held"] == h["words"]["of"]]


# (no shrinking: a seed is all a case is)
@settings(max_examples=examples(4, 15), deadline=None,
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.data())
def test_a_word_finds_its_compound_and_its_root_below_itself(
        tmp_path_factory: Any, data: st.DataObject) -> None:
    """Sessions each say, beside a word of the query's own (`topic`), the
    made-up word with a prefix (compound), without (root), with another
    prefix, or a same-meaning word or its compound, or none of them. The
    compound finds the root's sessions and the root the compound's; each
    finds its own form's sessions first; a word with a prefix of its own is
    not found by another prefix; a session holding none is not found."""
    env = Env(tmp_path_factory.mktemp("related"))
    env.here = in_process("search related")
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    prefix, other = rng.sample(PREFIXES, 2)
    root = made_up(rng) if rng.random() < 0.6 else rng.choice(rng.choice(SAME))
    same = next((w for group in SAME if root in group for w in group if w != root), "")
    topic = made_up(rng)
    kinds = {"compound": f"{prefix}{root}", "root": root, "other prefix": f"{other}{root}",
             "none": "zqnothing"}
    if same:
        kinds.update({"same": same, "same compound": f"{prefix}{same}"})
    sessions: dict[str, str] = {}
    slug = env.claude / "projects" / "-home-u-rel"
    slug.mkdir(parents=True)
    order = list(kinds)
    rng.shuffle(order)
    for i, kind in enumerate(order):
        sid = str(uuid.UUID(int=i + 1, version=4))
        sessions[sid] = kind
        prompt = f"please look at the {kinds[kind]} of {topic}"
        (slug / f"{sid}.jsonl").write_text(conversation(sid, [["done"]], [prompt]))
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr.decode()

    def kinds_found(*words: str) -> list[str]:
        return [sessions[sid] for sid in _search(env, *words)]

    got = kinds_found(f"{prefix}{root}", topic)
    assert got[0] == "compound", (root, got)
    # the root and what means the same with the prefix on; not the root with
    # another prefix (only the root is made from it), not what holds none
    assert set(got) == {"compound", "root", *(["same", "same compound"] if same else [])}, got
    got = kinds_found(root, topic)
    assert got[0] == "root", (root, got)
    assert set(got) == {"root", "compound", "other prefix",
                        *(["same", "same compound"] if same else [])}, got
    if same:
        got = kinds_found(same, topic)
        assert got[0] == "same" and "root" in got and "compound" in got, (same, got)
