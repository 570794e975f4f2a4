"""Every script found as the user types it: the index and the query fold text
the same way, and text without spaces is found from any two characters in it.

Texts are generated in each script; what must be found is the word (or the
run of characters) the generator put in the text, typed as a person would:
without its accents, in another case, in half- or full-width letters, with a
ligature spelt out, or any 2+ characters of a Japanese, Chinese or Korean
sentence. The index is the real one (vaultdb), end to end through `vv` too.
"""

from __future__ import annotations

import json
import unicodedata
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples
from vibe_vault import vaultdb
from vibe_vault.document import Document
from vibe_vault.search_query import MAX_BYTES, MAX_TERMS, BadQuery, parse


def letters(chars: str, low: int = 3, high: int = 9) -> st.SearchStrategy[str]:
    return st.text(alphabet=chars, min_size=low, max_size=high)


LATIN = "abcdefghijklmnopqrstuvwxyz"
ACCENTED = "éèêëàâäáçîïíôöóùûüúñåøÿ"
GREEK = "αβγδεζηθικλμνξοπρστυφχψωάέήίόύώϊϋ"
CYRILLIC = "абвгдежзийклмнопрстуфхцчшщъыьэюяё"
HIRAGANA = "".join(chr(c) for c in range(0x3041, 0x3097))
KATAKANA = "".join(chr(c) for c in range(0x30A1, 0x30FB)) + "ー"
HAN = "".join(chr(c) for c in range(0x4E00, 0x4E00 + 2000))
HANGUL = "".join(chr(c) for c in range(0xAC00, 0xAC00 + 3000))


def strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def full_width(word: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in word)


@st.composite
def latin_word(draw: st.DrawFn) -> tuple[str, str]:
    """(as written, as typed): accents dropped or kept, any case."""
    word = draw(letters(LATIN + ACCENTED, 4, 10).filter(lambda w: any(c in ACCENTED for c in w)))
    typed = draw(st.sampled_from([word, strip_accents(word), word.upper(),
                                  strip_accents(word).upper(), word.title()]))
    return word, typed


@st.composite
def german_word(draw: st.DrawFn) -> tuple[str, str]:
    head = draw(letters(LATIN + "äöü", 2, 6))
    tail = draw(letters(LATIN, 1, 5))
    word = head + "ß" + tail
    typed = draw(st.sampled_from([word, word.replace("ß", "ss"), word.upper(),
                                  strip_accents(word).replace("ß", "ss")]))
    return word, typed


@st.composite
def greek_word(draw: st.DrawFn) -> tuple[str, str]:
    word = draw(letters(GREEK, 3, 9))
    # a final sigma where Greek writes it
    word = word[:-1] + ("ς" if word[-1] == "σ" else word[-1])
    typed = draw(st.sampled_from([word, strip_accents(word), word.upper(),
                                  strip_accents(word).upper()]))
    return word, typed


@st.composite
def cyrillic_word(draw: st.DrawFn) -> tuple[str, str]:
    word = draw(letters(CYRILLIC, 3, 10))
    typed = draw(st.sampled_from([word, word.upper(), word.capitalize()]))
    return word, typed


@st.composite
def full_width_word(draw: st.DrawFn) -> tuple[str, str]:
    """Full-width text typed in ASCII, or ASCII text typed in full width."""
    word = draw(letters(LATIN + "0123456789", 3, 10))
    written, typed = draw(st.sampled_from([(full_width(word), word),
                                           (word, full_width(word)),
                                           (full_width(word.upper()), word)]))
    return written, typed


@st.composite
def ligature_word(draw: st.DrawFn) -> tuple[str, str]:
    head = draw(letters(LATIN, 1, 5))
    tail = draw(letters(LATIN, 1, 5))
    lig, spelt = draw(st.sampled_from([("ﬁ", "fi"), ("ﬂ", "fl"), ("ﬀ", "ff"), ("ﬃ", "ffi")]))
    return head + lig + tail, draw(st.sampled_from([head + spelt + tail, head + lig + tail]))


def spaceless(chars: str) -> st.SearchStrategy[tuple[str, str]]:
    """A sentence without spaces, and any 2+ characters in a row of it."""

    @st.composite
    def make(draw: st.DrawFn) -> tuple[str, str]:
        sentence = draw(letters(chars, 6, 30))
        start = draw(st.integers(0, len(sentence) - 2))
        end = draw(st.integers(start + 2, min(len(sentence), start + 8)))
        return sentence, sentence[start:end]

    return make()


@st.composite
def korean(draw: st.DrawFn) -> tuple[str, str]:
    """Korean words (a particle glued on) and 2+ syllables of one of them."""
    word = draw(letters(HANGUL, 2, 6))
    particle = draw(st.sampled_from(["를", "은", "는", "이", "가", "에서", ""]))
    start = draw(st.integers(0, len(word) - 2))
    return word + particle, word[start:]


JAPANESE = HIRAGANA + KATAKANA + HAN[:300]
SCRIPTS: dict[str, st.SearchStrategy[tuple[str, str]]] = {
    "latin": latin_word(), "german": german_word(), "greek": greek_word(),
    "cyrillic": cyrillic_word(), "full-width": full_width_word(), "ligature": ligature_word(),
    "japanese": spaceless(JAPANESE), "chinese": spaceless(HAN), "korean": korean(),
}


def doc(n: int, text: str) -> Document:
    sid = str(uuid.UUID(int=n + 1, version=4))
    return Document(session_id=sid, project="p", cwd="/w", started=1_700_000_000 + n,
                    ended=1_700_000_000 + n, note=f"{sid}.md", status="ended",
                    texts={"answers": text})


def index_totals(conn: Any) -> list[int]:
    """What FTS5 counts in its averages record (`search_data`, id 1): the
    rows, then the tokens of each column; read as the file format holds them
    (SQLite varints), not through vibe-vault."""
    block = conn.execute("SELECT block FROM search_data WHERE id = 1").fetchone()[0]
    out, i = [], 0
    while i < len(block):
        value = 0
        for n in range(9):
            byte = block[i]
            i += 1
            if n == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def found(state: Path, texts: list[str], typed: str) -> list[str]:
    """The sessions (by their text's place) a query finds in an index of `texts`."""
    conn = vaultdb.connect(str(state))
    try:
        vaultdb.reset_search(conn)
        with vaultdb.transaction(conn):
            for i, text in enumerate(texts):
                vaultdb.put(conn, doc(i, text))
        # as `vv search` asks: each word also in its other forms the index holds
        q = parse(typed).widened(lambda word: vaultdb.forms_of(conn, word))
        ids = {doc(i, "").session_id: i for i in range(len(texts))}
        return [texts[ids[h.session_id]] for h in vaultdb.search(conn, q.fts, phrase=q.together,
                                                                  tiers=q.tiers, left_out=q.left_out,
                                                                  limit=50)]
    finally:
        conn.close()


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_word_in_any_script_is_found_as_typed(script: str,
                                                tmp_path_factory: pytest.TempPathFactory) -> None:
    state = tmp_path_factory.mktemp(script)
    strategy = SCRIPTS[script]

    @settings(max_examples=examples(8, 60), deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy, st.lists(strategy, min_size=1, max_size=3), st.sampled_from([" ", "", ", "]))
    def check(pair: tuple[str, str], others: list[tuple[str, str]], glue: str) -> None:
        written, typed = pair
        if script not in ("japanese", "chinese"):
            glue = " "  # (words of these scripts are written apart)
        text = glue.join(["start", *[w for w, _ in others], written, "end"])
        other = " ".join(["nothing", "here"] + [w for w, _ in others if typed not in w])
        hits = found(state, [other, text], typed)
        assert text in hits, (written, typed, hits)
        # a whole word: as a quoted phrase with the word before it, too
        before = others[-1][0]
        if script not in ("japanese", "chinese", "korean"):
            hits = found(state, [other, text], f'"{before} {typed}"')
            assert text in hits, (before, written, typed, hits)

    check()


def test_a_word_not_in_the_text_is_not_found(tmp_path: Path) -> None:
    assert found(tmp_path, ["東京都に住んでいます", "Straße café"], "京大") == []
    assert found(tmp_path, ["東京都に住んでいます", "Straße café"], "strase") == []
    # kana keep their voicing marks: カ is not ガ
    assert found(tmp_path, ["ガラス"], "カラ") == []
    assert found(tmp_path, ["ガラス"], "ガラ") == ["ガラス"]


@settings(max_examples=50, deadline=None)
@given(st.integers(MAX_TERMS + 1, 400), st.integers(1, 5))
def test_a_query_of_too_many_words_is_refused_in_one_line(n: int, size: int) -> None:
    words = " ".join(["word" * size] * n)
    with pytest.raises(BadQuery) as err:
        parse(words)
    assert "\n" not in str(err.value) and "too long" in str(err.value)
    with pytest.raises(BadQuery):
        parse("x" * (MAX_BYTES + 1))
    parse(" ".join(["w"] * MAX_TERMS))  # the most that is taken


# -- end to end -------------------------------------------------------------------------

SENTENCES = {
    "latin": ("Le café crème était délicieux à Montréal", ["cafe", "CRÈME", "montreal"]),
    "german": ("Die Straße zur Fußgängerzone ist gesperrt", ["strasse", "FUSSGANGERZONE",
                                                         "Straße"]),
    "greek": ("Η ελληνική γλώσσα είναι όμορφη", ["ελληνικη", "ΓΛΩΣΣΑ", "ομορφη"]),
    "cyrillic": ("Москва столица России и большой город", ["москва", "СТОЛИЦА", "россии"]),
    "japanese": ("新しいアップデートを東京のサーバーに配布しました", ["アップデート", "東京",
                                                                 "サーバー", "配布", "しいア"]),
    "chinese": ("我们今天修复了数据库连接的问题", ["数据库", "修复", "连接的问题", "今天"]),
    "korean": ("한국어를 배우는 것은 재미있습니다", ["한국어", "배우는", "재미"]),
    "full-width": ("ｆｕｌｌｗｉｄｔｈ ｔｅｘｔ ｈｅｒｅ", ["fullwidth", "TEXT"]),
    "ligature": ("the ﬁle was ﬂagged as ﬁnished", ["file", "flagged", "finished"]),
}


def transcript(sid: str, prompt: str, answer: str) -> str:
    def entry(i: int, **fields: Any) -> dict[str, Any]:
        return {"uuid": f"{sid}-{i}", "parentUuid": None, "sessionId": sid,
                "timestamp": f"2026-03-01T10:00:{i:02d}Z", "cwd": "/home/u/words",
                "version": "2.1.99", **fields}

    lines = [
        entry(0, type="user", message={"role": "user", "content": prompt}),
        entry(1, type="assistant", message={
            "id": "msg_1", "model": "claude-opus-4-5", "role": "assistant",
            "content": [{"type": "text", "text": answer}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}),
    ]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def test_every_script_is_found_through_vv(env: Env) -> None:
    slug = env.claude / "projects" / "-home-u-words"
    slug.mkdir(parents=True)
    sids = {}
    for n, (script, (sentence, _)) in enumerate(sorted(SENTENCES.items())):
        sid = sids[script] = str(uuid.UUID(int=(n + 100) << 100, version=4))
        (slug / f"{sid}.jsonl").write_text(
            transcript(sid, f"Please look at this: {sentence}", "Done, I looked at it."),
            encoding="utf-8")
    assert env.vv("backfill").returncode == 0
    for script, (_, typed) in SENTENCES.items():
        for query in typed:
            r = env.vv_here("search", "--json", query)
            assert r.returncode == 0, (query, r.stderr)
            hits = json.loads(r.stdout)
            assert hits and hits[0]["session_id"] == sids[script], (script, query, hits)
            assert "**" in hits[0]["snippet"], (query, hits[0])
    r = env.vv_here("search", "nowhereatall")
    assert r.returncode == 0 and b"no session matches" in r.stdout
    r = env.vv_here("search", "--json", "nowhereatall")
    assert r.returncode == 0 and json.loads(r.stdout) == []
    r = env.vv_here("search", " ".join(["word"] * (MAX_TERMS + 1)))
    assert r.returncode == 2 and r.stderr.count(b"\n") == 1 and b"too long" in r.stderr


@pytest.mark.parametrize("first", ["search", "backfill", "SessionEnd"])
def test_an_index_of_the_old_schema_is_built_again_from_the_states(env: Env,
                                                                   first: str) -> None:
    """An index made before the folding changed (another tokenizer, no
    version) is dropped and built again by whatever opens the database first
    (a search, a backfill, a SessionEnd hook); the registry stays. (That
    first one is `vv` as a process, the rest `vv` in this process.)"""
    import sqlite3

    slug = env.claude / "projects" / "-home-u-words"
    slug.mkdir(parents=True)
    sid = str(uuid.UUID(int=7 << 100, version=4))
    (slug / f"{sid}.jsonl").write_text(transcript(sid, SENTENCES["german"][0], "Gut."),
                                       encoding="utf-8")
    assert env.vv_here("backfill").returncode == 0
    db = env.state / "vault.db"
    with sqlite3.connect(db) as conn:
        records = conn.execute("SELECT session_id, body FROM records").fetchall()
        conn.execute("DROP TABLE search")
        conn.execute("CREATE VIRTUAL TABLE search USING fts5(title, prompts, commits, files, "
                     "actions, commands, errors, todos, answers, content='', "
                     "tokenize='unicode61 remove_diacritics 2')")
        conn.execute("DELETE FROM meta WHERE key = 'search_version'")
    if first == "backfill":
        r = env.vv("backfill", "--force")
        assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    elif first == "SessionEnd":
        r = env.hook({"hook_event_name": "SessionEnd", "session_id": sid, "reason": "other",
                      "transcript_path": str(slug / f"{sid}.jsonl"), "cwd": "/tmp"})
        assert r.returncode == 0 and not r.stdout
    r = (env.vv if first == "search" else env.vv_here)("search", "--json", "strasse")
    assert [h["session_id"] for h in json.loads(r.stdout)] == [sid], r.stderr
    with sqlite3.connect(db) as conn:
        now = conn.execute("SELECT session_id, body FROM records").fetchall()
        # (the hook ends the session: its record says so)
        assert now == records if first != "SessionEnd" else [r[0] for r in now] == [sid]
        sql = conn.execute("SELECT sql FROM sqlite_schema WHERE name = 'search'").fetchone()[0]
        assert "remove_diacritics 0" in sql


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=LATIN + ACCENTED + GREEK + HIRAGANA[:20] + HAN[:20] + HANGUL[:20]
               + " .,-_ß\u00a0ﬁ１", max_size=40))
def test_the_tokens_of_a_text_are_its_words_and_pairs(text: str) -> None:
    """`tokens` (words first, pairs only where a paired script is) gives what
    the definition gives: every letter-and-digit run of the folded text, runs
    of Chinese, Japanese and Korean characters as overlapping pairs."""
    import re

    from vibe_vault.search_query import index_form, tokens

    cjk = "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff" \
          "\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff"
    expected: list[str] = []
    for m in re.finditer(f"([{cjk}]+)|((?:(?![{cjk}])[^\\W_])+)", index_form(text)):
        run = m.group(1)
        if run:
            expected.extend([run[i:i + 2] for i in range(len(run) - 1)] or [run])
        else:
            expected.append(m.group(2))
    assert tokens(index_form(text)) == expected


def test_the_sessions_summary_line_is_found(env: Env) -> None:
    """Claude Code's own summary of a session (a `summary` line naming one of
    its messages) is searched with the title, also when the title is another."""
    slug = env.claude / "projects" / "-home-u-words"
    slug.mkdir(parents=True)
    sid = str(uuid.UUID(int=9 << 100, version=4))
    body = transcript(sid, "Please help with the thing", "Done.")
    summary = {"type": "summary", "summary": "Zqvortex calibration of the flux array",
               "leafUuid": f"{sid}-1"}
    # (a title of its own, so the summary is not the title)
    title = {"type": "ai-title", "aiTitle": "Helping with a thing", "sessionId": sid}
    (slug / f"{sid}.jsonl").write_text(
        body + json.dumps(summary) + "\n" + json.dumps(title) + "\n", encoding="utf-8")
    assert env.vv("backfill").returncode == 0
    r = env.vv("search", "--json", "zqvortex", "calibration")
    hits = json.loads(r.stdout)
    assert [h["session_id"] for h in hits] == [sid], r.stderr
    assert hits[0]["matched"] == "title" and "**Zqvortex**" in hits[0]["snippet"]


# How much a match weighs by where it is (the README: a title over a prompt
# over an answer), as whole numbers so the oracle's sums are exact.
WEIGHT = {"title": 10, "prompts": 5, "answers": 1}


@settings(max_examples=examples(15, 60), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 4),
                          st.integers(0, 40), st.integers(0, 3)), min_size=1, max_size=8),
       st.sampled_from(["zq", "alpha", "東京"]))
def test_a_word_ranks_sessions_by_where_and_how_often_it_is_said(
        sessions: list[tuple[int, int, int, int, int]], word: str) -> None:
    """One word looked for in sessions of any size, tiny ones too (an index
    with no long session in it): a session holding it with more weight (each
    match in the title counts as two in prompts, and ten in answers) comes
    before one no shorter (its words said: the title, prompts and answers),
    the newest first among equals, and every score is a finite positive
    number. The oracle counts the word and the words in the texts as built."""
    import math
    import tempfile

    filler = ["lorem", "ipsum", "dolor", "sit", "amet"]
    with tempfile.TemporaryDirectory() as state:
        conn = vaultdb.connect(state)
        try:
            weight: dict[str, int] = {}
            said: dict[str, int] = {}
            with vaultdb.transaction(conn):
                for n, (title, prompts, answers, padding, started) in enumerate(sessions):
                    d = doc(n, "")
                    d.started = 1_700_000_000 + started * 60
                    counts = {"title": title, "prompts": prompts, "answers": answers}
                    d.texts = {column: " ".join([word] * count + [filler[(n + i) % 5]
                                                                   for i in range(padding)])
                               for column, count in counts.items()}
                    vaultdb.put(conn, d)
                    if any(counts.values()):
                        weight[d.session_id] = sum(WEIGHT[c] * k for c, k in counts.items())
                        said[d.session_id] = sum(counts.values()) + len(counts) * padding
            started = dict(conn.execute("SELECT session_id, started FROM sessions").fetchall())
            q = parse(word)
            hits = vaultdb.search(conn, q.fts, phrase=q.phrase, limit=50)
            # (sessions of the same weight started in the same second: in a fixed order)
            assert sorted(h.session_id for h in hits) == sorted(weight)
            got = [(weight[h.session_id], said[h.session_id], started[h.session_id])
                   for h in hits]

            def before(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
                """Whether `a` must come before `b`."""
                return (a[0] > b[0] and a[1] <= b[1]) or (a[:2] == b[:2] and a[2] > b[2])

            assert not any(before(later, got[i]) for i in range(len(got))
                           for later in got[i + 1:]), got
            assert all(math.isfinite(h.score) and h.score > 0 for h in hits)
        finally:
            conn.close()


WORDS = ["alpha", "beta", "gamma", "straße", "café", "東京", "ｆｕｌｌ", "ﬁle", "Ωmega", "x1f"]


@settings(max_examples=examples(12, 40), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(0, 3),
                          st.dictionaries(st.sampled_from(["answers", "prompts", "title"]),
                                          st.lists(st.sampled_from(WORDS), max_size=6).map(
                                              lambda ws: " ".join(ws)),
                                          max_size=3),
                          st.sampled_from([" ", "\x1f", "\x1e", "\n"])),
                min_size=1, max_size=12))
def test_a_session_indexed_again_leaves_no_word_of_before(
        updates: list[tuple[int, dict[str, str], str]]) -> None:
    """Sessions indexed again and again (every Stop and SessionEnd, a link
    that changed): the index finds each word in exactly the sessions whose
    latest text holds it, holds one row a session, and counts no dead rows.
    The oracle is the texts as written, split at their separators."""
    import tempfile

    with tempfile.TemporaryDirectory() as state:
        conn = vaultdb.connect(state)
        try:
            latest: dict[int, dict[str, str]] = {}
            for n, texts, sep in updates:
                texts = {c: t.replace(" ", sep) for c, t in texts.items()}
                with vaultdb.transaction(conn):
                    d = doc(n, "")
                    d.texts = texts
                    vaultdb.put(conn, d)
                latest[n] = texts
            docs = dict(conn.execute("SELECT session_id, doc FROM sessions").fetchall())
            assert len(docs) == len(latest)
            assert index_totals(conn)[0] == len(latest)  # rows the index counts
            assert vaultdb.meta(conn, "dead", "0") == "0"
            for word in WORDS:
                q = parse(word)
                want = {docs[doc(n, "").session_id] for n, texts in latest.items()
                        if any(word in t.replace("\x1f", " ").replace("\x1e", " ").split()
                               for t in texts.values())}
                got = {r[0] for r in conn.execute(
                    "SELECT rowid FROM search WHERE search MATCH ?", (q.fts,))}
                assert got == want, (word, got, want)
        finally:
            conn.close()
