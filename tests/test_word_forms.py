"""Issue 29, review 19 #8: `vv search` finds a word in its other forms
(improve finds improver, improvements, improving), counts them among the
words a session holds, ranks a session saying the words before one holding
them only in a path, and shows the line holding the rarest of them.

The forms are generated as English makes them: a stem of two syllables, then
-s, -ed, -ing, -er, -ers, -ings, -ment, -ments (an -e stem drops it before
-ed and -ing: improve, improved, improving). The oracle is the generator's
own family of forms, not vv's stemmer; the stemmer itself is held to
SQLite's, the `porter` tokenizer of FTS5 (the words it maps to one stem are
the words a query of one of them finds).
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_headlines import Transcript
from vibe_vault.stem import forms, stem

CONSONANTS = "bdgkmnprtv"
VOWELS = "aeiou"
ENDINGS = ["nd", "rk", "mp", "rt", "ft", "lt"]  # a stem ending in two consonants
SUFFIXES = ["", "s", "ed", "ing", "er", "ers", "ings", "ment", "ments"]
FILLER = ["we", "looked", "at", "the", "module", "and", "then", "checked", "it", "again"]


@st.composite
def family(draw: st.DrawFn) -> list[str]:
    """The forms of one made-up English word: `zq` (so no other word holds
    it) and two syllables, as `tamond` or `tamove`, with each suffix."""
    c, v = st.sampled_from(CONSONANTS), st.sampled_from(VOWELS)
    base = "zq" + draw(v) + draw(c) + draw(v)
    if draw(st.booleans()):
        base += draw(st.sampled_from(ENDINGS))
        return [base + s for s in SUFFIXES]
    base += draw(c) + "e"  # improve: improves, improved, improving, improver, improvement
    return [base if not s else base[:-1] + s if s[0] in "ei" else base + s for s in SUFFIXES]


def sqlite_stems(words: list[str]) -> list[str]:
    """Each word's stem as SQLite's FTS5 `porter` tokenizer makes it (read
    back from an fts5vocab table of the token at each place)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(a, tokenize='porter unicode61 "
                     "remove_diacritics 0')")
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        conn.execute("INSERT INTO t(rowid, a) VALUES (1, ?)", (" ".join(words),))
        at = {offset: term for term, offset in conn.execute("SELECT term, offset FROM v")}
    finally:
        conn.close()
    return [at[i] for i in range(len(words))]


LETTERS = "abcdefghijklmnopqrstuvwxyz"
word = st.text(alphabet=st.sampled_from(LETTERS + "aeiouyyss"), min_size=1, max_size=16)
other_word = st.text(alphabet=st.sampled_from(LETTERS + "éøαβабеß" + "ingedsly"), min_size=1,
                     max_size=12)


@settings(max_examples=examples(300, 3000), deadline=None)
@given(st.lists(st.one_of(word, other_word), min_size=1, max_size=40))
def test_a_stem_is_the_one_sqlite_gives(words: list[str]) -> None:
    from vibe_vault.search_query import index_form, tokens

    folded = [t for w in words for t in tokens(index_form(w))]
    if folded:
        assert [stem(w) for w in folded] == sqlite_stems(folded)


@settings(max_examples=examples(100, 1000), deadline=None)
@given(word)
def test_the_forms_looked_for_are_words_of_the_same_stem_to_sqlite(text: str) -> None:
    """What a word is widened to (vaultdb.forms_of asks the index which of
    them some session holds): the word first, then only words the porter
    tokenizer takes to the word's own stem."""
    made = forms(text)
    assert made[0] == text and len(set(made)) == len(made)
    assert set(sqlite_stems(made)) == set(sqlite_stems([text]))
    assert all(len(form) >= 3 for form in made[1:])


def test_the_families_are_one_stem_each_to_sqlite() -> None:
    """The generator makes what the porter stemmer takes as one word (else
    the end-to-end test below would test the generator), and a form's forms
    looked for hold its whole family."""
    import itertools

    combos = itertools.product(VOWELS, CONSONANTS, VOWELS, [*ENDINGS, "e"])
    families = []
    for v1, c, v2, end in combos:
        base = f"zq{v1}{c}{v2}" + (end if end != "e" else c + "e")
        families.append([base + s for s in SUFFIXES] if end != "e" else
                        [base if not s else base[:-1] + s if s[0] in "ei" else base + s
                         for s in SUFFIXES])
    stems = iter(sqlite_stems([f for kin in families for f in kin]))
    for i, kin in enumerate(families):
        assert len({next(stems) for _ in kin}) == 1, kin
        # (each form typed in turn, as the families go: every one, all told)
        for typed in (kin[0], kin[i % len(kin)]):
            assert set(kin) <= set(forms(typed)), (typed, kin)


def transcript(sid: str, prompt: str, answer: str, hour: int) -> Transcript:
    t = Transcript(sid=sid, cwd="/home/u/forms", hour=hour)
    t.prompt(prompt)
    t.say(answer)
    return t


def search(env: Env, here: bool, *query: str) -> list[dict[str, Any]]:
    r = (env.vv_here if here else env.vv)("search", "--json", "--", *query)
    assert r.returncode == 0, r.stderr
    return list(json.loads(r.stdout))


def sid_of(n: int) -> str:
    return str(uuid.UUID(int=(n + 1) << 64, version=4))


@settings(max_examples=examples(5, 25), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(first=family(), second=family(), third=family(), data=st.data())
def test_a_word_is_found_by_its_other_forms(tmp_path_factory: pytest.TempPathFactory,
                                            first: list[str], second: list[str],
                                            third: list[str], data: st.DataObject) -> None:
    """A session holding one form of a word is found first by a query of
    another form, the form it holds marked in the line shown; with two
    words, it holds both; with a third word no session holds, it is the
    closest, holding 2 of the 3 words."""
    if len({first[0][:5], second[0][:5], third[0][:5]}) < 3:
        return  # (two families alike)
    written = data.draw(st.sampled_from(first))
    typed = data.draw(st.sampled_from([f for f in first if f != written]))
    written2, typed2 = data.draw(st.sampled_from(second)), data.draw(st.sampled_from(second))
    typed3 = data.draw(st.sampled_from(third))
    env = Env(Path(str(tmp_path_factory.mktemp("forms"))))
    slug = env.claude / "projects" / "-home-u-forms"
    sessions = [
        transcript(sid_of(0), f"please {written} the module", f"I did {written2} it.", 10),
        transcript(sid_of(1), " ".join(FILLER), "Done, checked it again.", 11),
        transcript(sid_of(2), f"and {written2} here", "Looked at it.", 12),
    ]
    for t in sessions:
        t.write(slug / f"{t.sid}.jsonl")
    here = in_process("test_a_word_is_found_by_its_other_forms")
    assert (env.vv_here if here else env.vv)("backfill").returncode == 0

    hits = search(env, here, typed)
    assert [h["session_id"] for h in hits] == [sid_of(0)], (written, typed, hits)
    # (the title drops "please" and capitalises the word: "**Zqababe** the module")
    assert f"**{written}**" in hits[0]["snippet"].lower(), hits[0]
    assert hits[0]["words"] == {"held": 1, "of": 1}

    hits = search(env, here, typed, typed2)
    assert [h["session_id"] for h in hits][:1] == [sid_of(0)], hits
    assert hits[0]["words"] == {"held": 2, "of": 2}

    hits = search(env, here, typed, typed2, typed3)
    assert hits and hits[0]["session_id"] == sid_of(0), hits
    assert hits[0]["words"] == {"held": 2, "of": 3}, hits[0]
    # quoted, a word matches as written only
    quoted = search(env, here, f'"{typed}"')
    assert quoted == []


def test_a_session_saying_the_words_ranks_before_one_with_them_in_a_path(env: Env) -> None:
    """`improve CLAUDE.md`: the session whose title says the words comes
    before one that only wrote, read and staged a file of that path, though
    that one names them more often (a path said again and again outweighed a
    title, by the columns' weights alone)."""
    slug = env.claude / "projects" / "-home-u-forms"
    said = transcript(sid_of(0), "zqarmond the zqbelt notes", "Done.", 13)
    path = Transcript(sid=sid_of(1), cwd="/home/u/forms", hour=11)
    path.prompt("tidy the docs")
    for n in range(6):
        path.write_file("/home/u/forms/zqarmond/zqbelt.md", f"text {n}")
        path.bash("cat /home/u/forms/zqarmond/zqbelt.md", f"text {n}")
        path.bash("git add zqarmond/zqbelt.md")
    path.say("Done.")
    other = transcript(sid_of(2), " ".join(FILLER), "Nothing here.", 12)
    for t in (said, path, other):
        t.write(slug / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    hits = search(env, False, "zqarmond", "zqbelt")
    assert [h["session_id"] for h in hits] == [sid_of(0), sid_of(1)], hits
    assert hits[1]["matched"] in ("file", "command", "action"), hits[1]


@settings(max_examples=examples(4, 15), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(rare=family(), common=st.lists(st.sampled_from(["use", "instead", "of", "with", "the"]),
                                      min_size=3, max_size=5, unique=True))
def test_the_line_shown_holds_the_rarest_words(tmp_path_factory: pytest.TempPathFactory,
                                               rare: list[str], common: list[str]) -> None:
    """`use pnpm instead of npm`: the line shown is the prompt holding the
    rare word, not a longer line holding more of the common ones."""
    env = Env(Path(str(tmp_path_factory.mktemp("rare"))))
    slug = env.claude / "projects" / "-home-u-forms"
    found = Transcript(sid=sid_of(0), cwd="/home/u/forms", hour=10)
    found.prompt("a start")  # (the title)
    found.say("Yes.")
    found.prompt(f"{common[0]} {rare[0]}")
    found.say("Sure. " + " ".join(f"{w} x{n}" for n, w in enumerate(common)))
    found.say("Done.")
    others = [transcript(sid_of(n), " and ".join(common), " ".join(reversed(common)), 10 + n)
              for n in range(1, 5)]
    for t in (found, *others):
        t.write(slug / f"{t.sid}.jsonl")
    here = in_process("test_the_line_shown_holds_the_rarest_words")
    assert (env.vv_here if here else env.vv)("backfill").returncode == 0
    hits = search(env, here, *common, rare[0])
    assert hits[0]["session_id"] == sid_of(0), hits
    assert f"**{rare[0]}**" in hits[0]["snippet"] and hits[0]["matched"] == "prompt", hits[0]


# Words English spells two ways (American, British), as a dictionary gives
# them, each with forms of its own (the test's list, not vv's table).
TWO_WAYS = [
    (["color", "colors", "colored", "coloring"], ["colour", "colours", "coloured", "colouring"]),
    (["behavior", "behaviors"], ["behaviour", "behaviours"]),
    (["favorite", "favorites"], ["favourite", "favourites"]),
    (["center", "centers", "centered"], ["centre", "centres", "centred"]),
    (["license", "licenses", "licensed"], ["licence", "licences"]),
    (["catalog", "catalogs"], ["catalogue", "catalogues"]),
    (["gray", "grayed"], ["grey", "greyed"]),
    (["organize", "organized", "organizing", "organization", "organizations"],
     ["organise", "organised", "organising", "organisation", "organisations"]),
    (["analyze", "analyzed", "analyzing"], ["analyse", "analysed", "analysing"]),
]


@st.composite
def ise_family(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A made-up -ize verb and its -ise spelling, each with what English makes
    of it (zqtamorize: zqtamorizes, zqtamorized, zqtamorizing, zqtamorization)."""
    c, v = st.sampled_from(CONSONANTS), st.sampled_from(VOWELS)
    base = "zq" + draw(v) + draw(c) + draw(v) + draw(c) + "i"
    ends = ["e", "es", "ed", "ing", "ation", "ations"]
    return [base + "z" + e for e in ends], [base + "s" + e for e in ends]


@settings(max_examples=examples(60, 400), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(pair=st.one_of(st.sampled_from(TWO_WAYS), ise_family()), data=st.data())
def test_a_word_is_found_in_its_other_spelling(tmp_path_factory: pytest.TempPathFactory,
                                               pair: tuple[list[str], list[str]],
                                               data: st.DataObject) -> None:
    """A session holding a word in one spelling, in any of its forms, is found
    by a query of the other spelling in any of its forms (`color mismatch`
    finds "the colour mismatch"), first, beside one holding neither; the
    word is still found as written, and a quoted word only as written."""
    from test_search_scripts import found

    american, british = pair
    written_in, typed_in = (american, british) if data.draw(st.booleans()) else (british,
                                                                                 american)
    written, typed = data.draw(st.sampled_from(written_in)), data.draw(st.sampled_from(typed_in))
    texts = [f"the {written} mismatch here", "the mismatch in another module"]
    state = tmp_path_factory.mktemp("spelled")
    assert found(state, texts, f"{typed} mismatch") == texts[:1], (written, typed)
    assert found(state, texts, typed) == texts[:1], (written, typed)
    assert found(state, texts, written) == texts[:1], (written, typed)
    assert found(state, texts, f'"{typed}"') == [], (written, typed)


@pytest.mark.parametrize("typed, written", [("for", "four"), ("check", "cheque"),
                                            ("programs", "programmer"), ("age", "ageing"),
                                            ("tire", "tyre"), ("our", "or")])
def test_another_word_is_not_an_other_spelling(tmp_path: Path, typed: str, written: str) -> None:
    """Words that look like the two spellings of one word but are two words
    (or a form of another) do not find each other."""
    from test_search_scripts import found

    assert found(tmp_path, [f"a {written} here", "nothing"], typed) == []


def test_color_finds_the_colour_session_end_to_end(env: Env) -> None:
    """Through `vv search` (a process): the US spelling finds the session
    saying the British one, the word it holds marked in the line shown."""
    slug = env.claude / "projects" / "-home-u-forms"
    sessions = [transcript(sid_of(0), "the colour of the group header is off", "Fixed the "
                           "colour mismatch.", 10),
                transcript(sid_of(1), "a mismatch of the Color enum", "Done.", 11)]
    for t in sessions:
        t.write(slug / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    r = env.vv("search", "color", "mismatch")
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    assert "**colour** **mismatch**" in out, out
    hits = search(env, False, "color", "mismatch")
    assert [h["session_id"] for h in hits] == [sid_of(0), sid_of(1)], hits
    assert hits[0]["words"] == {"held": 2, "of": 2} and hits[1]["words"] == hits[0]["words"]
