"""Where the words are decides a hit's place, whatever form they are in.

Sessions are generated (through test_search_parts' transcript maker) each
holding every word of a query in one place: one session in its title or a
prompt, decoys in Claude's words (an answer, a commit, an error, a todo, a
recap) and more decoys in a path, a command, an action, a subagent's work or
a compaction summary, often many times over (which bm25 alone weighs up).
Each word stands in the text in a form of its own (plural, past, -ing: one
the stemmer takes back to the same stem as the form typed). `vv search
--json` must put the title/prompt session first, every session of Claude's
words before every session of the rest (the oracle is where the generator
put the words), and show scores that never increase down the list.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
import uuid
from pathlib import Path
from typing import Any

from hypothesis import Phase, assume, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_search_parts import session
from test_search_scripts import found

ASKED_PLACES = ["custom-title", "later prompt", "queued prompt"]
SAID_PLACES = ["answer text", "commit subject", "error output", "todo", "away summary"]
OTHER_PLACES = ["written file", "web search", "command description", "command",
                "user's shell command", "compaction summary", "task prompt",
                "task description", "task report", "subagent's prompt", "subagent's answer"]
# Endings the stemmer takes back to the bare word (a stem of consonants
# after a vowel, so none of them changes it): each is a form of the others.
ENDINGS = ["", "s", "ed", "ing"]


def stem_word(rng: random.Random) -> str:
    """A made-up word whose forms (ENDINGS) SQLite's own Porter stemmer takes
    to one stem, the word (the oracle: FTS5's `porter` tokenizer, not vv's
    stem.py)."""
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter ascii')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')")
    while True:
        word = "zq" + "".join(rng.choice("bcdfglmnprt") + rng.choice("aiou")
                              for _ in range(3)) + rng.choice("bdglmnprt")
        conn.execute("DELETE FROM t")
        conn.executemany("INSERT INTO t(x) VALUES (?)", [(word + e,) for e in ENDINGS])
        # (one stem, the word itself: a word Porter cuts further, `signal`
        # to `sign`, has forms vv does not yet widen to: see the report)
        if [r[0] for r in conn.execute("SELECT term FROM v")] == [word]:
            conn.close()
            return word


def placed(words: list[str], place: str, times: int) -> str:
    """The words as the generator writes them in a place (a path joins them)."""
    return ("-" if place == "written file" else " ").join(words * times)


def write_session(env: Env, i: int, place: str, words: str, rng: random.Random) -> str:
    """Session i of project `proj`, holding `words` in `place` (test_search_parts'
    maker), with its subagent's file and meta: its id."""
    sid = str(uuid.UUID(int=i + 1, version=4))
    main, agent = session(sid, place, words, rng)
    slug = env.claude / "projects" / "-home-u-proj"
    sub = slug / sid / "subagents"
    sub.mkdir(parents=True)
    (slug / f"{sid}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in main))
    (sub / "agent-a1.jsonl").write_text("".join(json.dumps(e) + "\n" for e in agent))
    (sub / "agent-a1.meta.json").write_text(json.dumps(
        {"agentType": "general-purpose", "description": "look around"}))
    return sid


# (no shrinking: a seed is all a case is)
@settings(max_examples=examples(3, 12), deadline=None,
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.data())
def test_title_or_prompt_holding_every_word_ranks_first(tmp_path_factory: Any,
                                                        data: st.DataObject) -> None:
    env = Env(tmp_path_factory.mktemp("rank"))
    env.here = in_process("search rank")
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    # (two words of four forms each: every phrase of their forms is asked,
    # search_query.MAX_TOGETHER)
    stems = list(dict.fromkeys(stem_word(rng) for _ in range(rng.randint(1, 2))))
    typed = [s + rng.choice(ENDINGS) for s in stems]
    target = rng.choice(ASKED_PLACES)
    said = rng.sample(SAID_PLACES, rng.randint(1, 3))
    other = rng.sample(OTHER_PLACES, rng.randint(3, 7))
    where: dict[str, str] = {}  # session: its tier (0 title/prompt, 1 said, 2 other)
    for i, place in enumerate([target, *said, *other]):
        sid = str(uuid.UUID(int=i + 1, version=4))
        tier = 0 if place == target else 1 if place in said else 2
        # the decoys say the words over and over, in forms of their own (as
        # often as a todo's 160 characters hold)
        forms = [s + rng.choice(ENDINGS) for s in stems]
        assert write_session(env, i, place, placed(forms, place, 1 if tier == 0 else
                                                   rng.randint(1, 3)), rng) == sid
        where[sid] = tier
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr.decode()
    r = env.vv("search", "--json", "--limit", "50", *typed)
    assert r.returncode == 0, r.stderr.decode()
    hits = json.loads(r.stdout)
    got = [(where[h["session_id"]], h["score"], h["matched"]) for h in hits]
    assert sorted(h["session_id"] for h in hits) == sorted(where), got
    assert [tier for tier, _, _ in got] == sorted(where.values()), (typed, got)
    assert all(h["words"] == {"held": len(stems), "of": len(stems)} for h in hits), got
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True), (typed, got)
    assert got[0][2] in ("title", "prompt"), got
    # the text output lists them in the same order
    r = env.vv("search", "--limit", "50", *typed)
    shown = [line.split(" · ")[-1] for line in r.stdout.decode().splitlines()
             if line.startswith("  ") and line.count(" · ") == 2]
    assert shown == [h["session_id"][:8] for h in hits]


@settings(max_examples=examples(3, 10), deadline=None,
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.data())
def test_a_closest_match_marks_only_the_words_it_holds(tmp_path_factory: Any,
                                                       data: st.DataObject) -> None:
    """A query part glued by punctuation (`NEAR(use`, `auth.py`) is a phrase:
    a session holding its second word and the query's other word, but not
    the phrase, holds 1 of the 2 words, and its line marks only the word it
    holds, in the text output and in --json."""
    env = Env(tmp_path_factory.mktemp("held"))
    env.here = in_process("search held")
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    glued, inner, other = (stem_word(rng) for _ in range(3))
    joiner = data.draw(st.sampled_from(["(", ".", ":", "/", "-"]), label="joiner")
    place = data.draw(st.sampled_from(["later prompt", "answer text", "todo"]), label="place")
    # the session says the phrase's second word and the other word, not the phrase
    sid = write_session(env, 0, place, f"{inner} {other} {glued}s", rng)
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr.decode()
    query = [f"{glued}{joiner}{inner}", other]
    r = env.vv("search", "--json", *query)
    hits = json.loads(r.stdout)
    assert [h["session_id"] for h in hits] == [sid], hits
    assert hits[0]["words"] == {"held": 1, "of": 2}, hits
    assert set(re.findall(r"\*\*(.+?)\*\*", hits[0]["snippet"])) == {other}, hits
    text = env.vv("search", *query).stdout.decode()
    assert "holds 1 of the 2 words" in text and f"**{other}**" in text, text
    assert f"**{inner}**" not in text, text


_SYLLABLES = st.integers(0xAC00, 0xD7A3).map(chr)


@settings(max_examples=examples(40, 150), deadline=None)
@given(st.lists(st.text(_SYLLABLES, min_size=1, max_size=3), min_size=2, max_size=2),
       st.lists(st.text(_SYLLABLES, min_size=2, max_size=4), min_size=1, max_size=6),
       st.booleans())
def test_korean_typed_without_its_space_finds_the_text(words: list[str], others: list[str],
                                                       spaced: bool) -> None:
    """Two Korean words typed as one (기본방침 for 기본 방침) find the text
    that holds them with the space, and the one without it; a text holding
    neither the run nor its halves side by side is not found."""
    first, second = words
    # (a syllable said twice in the run would make its pairs those of
    # another text: 각각가 is indexed as 각각 각가, the run 각각각가 with a
    # space after 각각)
    assume(len(set(first + second)) == len(first + second))
    # (a second word that is a particle, 을, makes the run the first word
    # with its particle, which finds the first word alone: test_search_particles)
    assume(second not in "은는이가을를에의도와과로만")
    target = f"이것은 {first}{' ' if spaced else ''}{second} 입니다"
    decoys = [f"{o} {second} 그리고 {first}" for o in others if not set(o) & set(first + second)]
    with tempfile.TemporaryDirectory() as state:
        got = found(Path(state), [target, *decoys], first + second)
    assert got == [target], (first, second, got)


def _transcript(sid: str, day: int, prompts: list[str], title: str,
                rng: random.Random) -> list[dict[str, Any]]:
    """A session of `prompts`, each answered in filler words, titled `title`."""
    out: list[dict[str, Any]] = []
    for i, prompt in enumerate(prompts):
        for kind, message in (
                ("user", {"role": "user", "content": prompt}),
                ("assistant", {"id": f"msg_{sid[:8]}_{i}", "model": "claude-sonnet-4-6",
                               "role": "assistant", "usage": {"input_tokens": 1,
                                                              "output_tokens": 1},
                               "content": [{"type": "text", "text": " ".join(
                                   rng.choice(FILLER) for _ in range(12))}]})):
            n = len(out)
            out.append({"type": kind, "uuid": f"{sid[:8]}-u{n}", "parentUuid": None,
                        "sessionId": sid, "cwd": "/home/u/proj", "version": "2.1.99",
                        "timestamp": f"2026-01-{day:02d}T00:{n // 60:02d}:{n % 60:02d}Z",
                        "message": message})
    out.append({"type": "custom-title", "customTitle": title, "sessionId": sid})
    return out


FILLER = ["we", "looked", "at", "module", "changed", "how", "parts", "fit", "together"]


# (no shrinking: a seed is all a case is)
@settings(max_examples=examples(4, 15), deadline=None,
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.data())
def test_words_together_beat_the_same_words_scattered_through_a_paste(
        tmp_path_factory: Any, data: st.DataObject) -> None:
    """One session says the query's words together (next to each other or a
    few words apart, in any order and form) in its title or a short prompt;
    others hold them scattered through a prompt thousands of words long (a
    pasted log or page), each word many times over, far from the others,
    and not in the first or last few hundred words, where people type what
    they ask. The short one ranks first, whatever the pastes hold (they are
    newer: a tie would put one of them first); the pastes are still found."""
    env = Env(tmp_path_factory.mktemp("paste"))
    env.here = in_process("search paste")
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    stems = list(dict.fromkeys(stem_word(rng) for _ in range(rng.randint(1, 3))))
    typed = [s + rng.choice(ENDINGS) for s in stems]

    def filler(count: int) -> list[str]:
        # (words of a paste: many, none a form of a query word)
        return ["w" + "".join(rng.choice("aeiklmnorst") for _ in range(rng.randint(2, 7)))
                for _ in range(count)]

    said = [s + rng.choice(ENDINGS) for s in stems]
    rng.shuffle(said)
    place = rng.choice(["title", "first prompt", "later prompt"])
    group: list[str] = []
    for word in said:  # a few words apart at most (a title is kept to 80 characters)
        group += [word, *filler(rng.randint(0, 1 if place == "title" else 3))]
    around = [] if place == "title" else filler(rng.randint(0, 12))
    short = " ".join(around + group + around[:rng.randint(0, len(around))])
    prompts = [short if place == "first prompt" else " ".join(filler(8)), " ".join(filler(6))]
    if place == "later prompt":
        prompts.append(short)
    slug = env.claude / "projects" / "-home-u-proj"
    slug.mkdir(parents=True)
    close = str(uuid.UUID(int=1, version=4))
    sessions = {close: _transcript(close, 1, prompts, short if place == "title"
                                   else " ".join(filler(4)), rng)}
    for k in range(rng.randint(1, 3)):
        body = filler(rng.randint(2000, 6000))
        # each word in a stretch of its own, stretches far apart
        stretch = (len(body) - 700) // len(stems)
        for i, s in enumerate(stems):
            start = 400 + i * stretch
            for _ in range(rng.randint(1, 12)):
                body[rng.randrange(start, start + stretch - 20)] = s + rng.choice(ENDINGS)
        paste = " ".join(filler(6)) + ":\n" + " ".join(body)
        sid = str(uuid.UUID(int=k + 2, version=4))
        asked = [" ".join(filler(8)), paste] if rng.random() < 0.5 else [paste]
        sessions[sid] = _transcript(sid, 2 + k, asked, " ".join(filler(4)), rng)
    for sid, entries in sessions.items():
        (slug / f"{sid}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr.decode()
    r = env.vv("search", "--json", *typed)
    assert r.returncode == 0, r.stderr.decode()
    hits = json.loads(r.stdout)
    got = [(h["session_id"][-2:], h["score"], h["matched"]) for h in hits]
    assert [h["session_id"] for h in hits][:1] == [close], (place, typed, got)
    assert sorted(h["session_id"] for h in hits) == sorted(sessions), got
    assert hits[0]["matched"] in ("title", "prompt"), got
    # (a paste's line is a prompt's: it is where the user put it)
    assert all(h["matched"] == "prompt" for h in hits[1:]), got
    r = env.vv("search", *typed)
    shown = [line.split(" · ")[-1] for line in r.stdout.decode().splitlines()
             if line.startswith("  ") and line.count(" · ") == 2]
    assert shown == [h["session_id"][:8] for h in hits]


_WORDS = st.text(st.sampled_from("abcdeéfgklmnoprstuzß日本"), min_size=1, max_size=12)
_GLUE = st.sampled_from([" ", " ", " ", "\n", ", ", ". ", "/", "_"])


@st.composite
def _prompt(draw: st.DrawFn) -> str:
    count = draw(st.integers(0, 900))  # (up to ~8,000 characters: many are long)
    words = draw(st.lists(st.tuples(_WORDS, _GLUE), min_size=count, max_size=count))
    return "".join(w + g for w, g in words).strip()


@settings(max_examples=examples(150, 1000), deadline=None)
@given(st.lists(_prompt(), max_size=4))
def test_a_long_prompt_is_cut_between_words_and_nothing_is_lost(prompts: list[str]) -> None:
    """Whatever the prompts, what is searched as them (a long one's head and
    tail) and as pasted (its middle) hold every word of them once, none cut
    in two (the oracle: the words of the prompts, counted); a prompt no
    longer than LONG_PROMPT is searched as it is, and a long one as about
    HEAD + TAIL characters of it, its start first."""
    from collections import Counter

    from vibe_vault.document import HEAD, LONG_PROMPT, TAIL, asked_and_pasted

    asked, pasted = asked_and_pasted(prompts)
    words = Counter(w for p in prompts for w in re.findall(r"[^\W_]+", p))
    assert Counter(w for p in asked + pasted for w in re.findall(r"[^\W_]+", p)) == words
    assert len(asked) == len(prompts)
    for prompt, kept in zip(prompts, asked, strict=True):
        if len(prompt) <= LONG_PROMPT:
            assert kept == prompt
        else:
            # (the tail starts where the word at its cut starts: a word longer)
            assert len(kept) <= HEAD + TAIL + 12 + 1 and prompt.startswith(kept.split("\n")[0])
    assert len(pasted) <= sum(len(p) > LONG_PROMPT for p in prompts)


# (no shrinking: a seed is all a case is)
@settings(max_examples=examples(4, 15), deadline=None,
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.data())
def test_a_short_session_ranks_before_a_long_one_saying_the_words_as_often(
        tmp_path_factory: Any, data: st.DataObject) -> None:
    """Sessions each say the query's words once, as typed, scattered (each
    word in a prompt of its own, far from the others), so the same part of
    each holds them as often: one is short, the others say much more besides (at least
    four times the words, as a session with pasted logs and long answers).
    The short one ranks first, though the long ones are newer (a tie would
    put one of them first); each long one comes after every session less
    than a quarter its length. The oracle is the words the generator wrote."""
    env = Env(tmp_path_factory.mktemp("length"))
    env.here = in_process("search length")
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    stems = list(dict.fromkeys(stem_word(rng) for _ in range(rng.randint(2, 3))))
    typed = [s + rng.choice(ENDINGS) for s in stems]

    def filler(count: int) -> str:
        # (none a form of a query word: FILLER words and made-up ones)
        return " ".join(rng.choice(FILLER) if rng.random() < 0.5 else
                        "w" + "".join(rng.choice("aeiklmnorst") for _ in range(rng.randint(2, 6)))
                        for _ in range(count))

    def prompts(extra: int) -> list[str]:
        # each word in a prompt of its own, between words of no query
        # (in the form typed: bm25 weighs each form by its own rarity, and a
        # form only one session holds would weigh that one up)
        out = [f"{filler(rng.randint(12, 20))} {word} {filler(rng.randint(12, 20))}"
               for word in typed]
        out += [filler(rng.randint(30, 60)) for _ in range(extra)]
        rng.shuffle(out)
        return out

    slug = env.claude / "projects" / "-home-u-proj"
    slug.mkdir(parents=True)
    sessions: dict[str, list[dict[str, Any]]] = {}
    length: dict[str, int] = {}  # the words said: the title, the prompts, the answers
    for k in range(rng.randint(2, 4)):
        sid = str(uuid.UUID(int=k + 1, version=4))
        asked = prompts(rng.randint(0, 2) if k == 0 else rng.randint(20, 60))
        title = filler(4)
        sessions[sid] = _transcript(sid, 1 + k, asked, title, rng)
        length[sid] = len(title.split()) + sum(
            len(str(e["message"]["content"]).split()) if e["type"] == "user" else
            len(e["message"]["content"][0]["text"].split())
            for e in sessions[sid] if e["type"] in ("user", "assistant"))
    short = str(uuid.UUID(int=1, version=4))
    assume(all(n >= 4 * length[short] for sid, n in length.items() if sid != short))
    for sid, entries in sessions.items():
        (slug / f"{sid}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    r = env.vv("backfill")
    assert r.returncode == 0, r.stderr.decode()
    r = env.vv("search", "--json", *typed)
    assert r.returncode == 0, r.stderr.decode()
    hits = json.loads(r.stdout)
    order = [h["session_id"] for h in hits]
    got = [(length[sid], h["score"], h["matched"]) for sid, h in zip(order, hits, strict=True)]
    assert sorted(order) == sorted(sessions), got
    assert order[0] == short, (typed, got)
    for i, sid in enumerate(order):
        assert all(length[before] * 4 > length[sid] for before in order[i + 1:]), (typed, got)
    assert all(h["matched"] == "prompt" for h in hits), got
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True), got
