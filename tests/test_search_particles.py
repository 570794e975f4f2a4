"""Korean words carry particles glued on (파일을, 테스트가, 검색에서): a search
for the word finds it with its particle, and a search typed with the particle
finds the word without it, below the sessions holding it as typed (#29).

Generated: a word of 2-5 Hangul syllables none of which a particle is made
of (so the particle glued on is the only one the word ends with), a particle,
and decoy words sharing no syllable with it. The oracle is the generated
word and particle: which texts hold the word.
"""

from __future__ import annotations

import json
import tempfile
import uuid
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples
from test_search_scripts import found, transcript

PARTICLES = ["을", "를", "이", "가", "은", "는", "에서", "으로", "에게", "부터", "까지", "처럼",
             "에서는", "의", "도", "와", "과", "만"]
# Syllables no particle above or in vibe_vault's list is made of.
_IN_PARTICLES = set("".join(PARTICLES) + "에서부터으로부터에게서이라고는까지처럼보다이랑하고라고"
                    "라는이나마다조차밖에로서써께한테")
SYLLABLE = st.integers(0xAC00, 0xD7A3).map(chr).filter(lambda c: c not in _IN_PARTICLES)
word = st.lists(SYLLABLE, min_size=2, max_size=5, unique=True).map("".join)


@settings(max_examples=examples(40, 200), deadline=None)
@given(target=word, particle=st.sampled_from(PARTICLES),
       decoys=st.lists(word, min_size=1, max_size=4), glued=st.booleans())
def test_a_word_is_found_with_or_without_its_particle(target: str, particle: str,
                                                      decoys: list[str], glued: bool) -> None:
    others = [d for d in decoys if not set(d) & set(target)]
    # The word in the text with its particle or bare; typed the other way.
    written = target + particle if glued else target
    typed = target if glued else target + particle
    text = f"이번에 {written} 정리했습니다"
    noise = [f"이번에 {d}{particle} 정리했습니다" for d in others]
    with tempfile.TemporaryDirectory() as state:
        got = found(Path(state), [*noise, text], typed)
    assert got == [text], (written, typed, got)


def test_the_word_as_typed_ranks_first_through_vv(env: Env) -> None:
    """`vv search 파일을`: the session saying 파일을 first, then the one saying
    파일 alone; `vv search 파일` finds both; neither finds a session without it."""
    sessions = {"as typed": "설정 파일을 수정했습니다", "bare": "설정 파일 수정 완료",
                "neither": "설정 변경 완료"}
    sids = {}
    for n, (name, prompt) in enumerate(sessions.items()):
        sid = str(uuid.UUID(int=n + 7, version=4))
        sids[sid] = name
        path = env.claude / "projects" / "-home-u-words" / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(transcript(sid, prompt, "완료했습니다"), encoding="utf-8")
    assert env.vv("backfill").returncode == 0

    def search(*words: str) -> list[Any]:
        r = env.vv("search", "--json", *words)
        assert r.returncode == 0, r.stderr
        return [sids[h["session_id"]] for h in json.loads(r.stdout)]

    assert search("파일을") == ["as typed", "bare"]
    assert sorted(search("파일")) == ["as typed", "bare"]
