"""Patterns compiled from the programs `patterns` keeps are the patterns
`re.compile` makes (the oracle: `re` itself), whatever the file holds; a
user's own pattern (it may be a literal secret) never reaches the file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples
from vibe_vault import patterns

SRC = Path(patterns.__file__).resolve().parent.parent


@pytest.fixture
def kept_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """`patterns` keeping its programs in a file of this test, and starting
    as a new process does (nothing read yet, nothing new)."""
    path = tmp_path / "patterns.bin"
    monkeypatch.setattr(patterns, "PATH", str(path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    fresh()
    yield path
    fresh()


def fresh() -> None:
    patterns._kept.clear()
    patterns._new.clear()
    patterns._read[0] = False


# Regular expressions from a small grammar: literals, classes, groups (named,
# back-referenced), alternation, repeats, anchors, look-arounds, inline flags.
atoms = st.sampled_from(["a", "b", "ab", r"\d", r"\w", r"\s", ".", "[a-c]", "[^b]", r"\.",
                         "é", "ß", "[à-ÿ]", r"\bx", "^", "$", r"\Z", "(?=a)", "(?<!b)", r"\1"])
repeats = st.sampled_from(["", "*", "+", "?", "{2}", "{1,3}", "*?", "+?"])


@st.composite
def regexes(draw: st.DrawFn) -> str:
    parts = []
    for i in range(draw(st.integers(1, 6))):
        atom = draw(atoms)
        if atom == r"\1" and i == 0:
            atom = "a"
        group = draw(st.sampled_from(["", "({})", "(?:{})", "(?P<g{i}>{})"]))
        parts.append(group.format(atom, i=i).replace("{i}", str(i)) + draw(repeats))
    body = "".join(parts)
    if draw(st.booleans()):
        body = body + "|" + draw(atoms)
    if r"\1" in body and not body.startswith("("):
        body = "(a)" + body
    return draw(st.sampled_from(["", "(?i)", "(?m)", "(?s)", "(?x)"])) + body


texts = st.text(alphabet="abcxdé ß.\n0123", max_size=30)
flag_sets = st.sampled_from([0, re.IGNORECASE, re.MULTILINE | re.DOTALL, re.ASCII])


def same(made: re.Pattern[str], oracle: re.Pattern[str], sample: list[str]) -> None:
    """`made` is `oracle`: equal (flags, pattern and program), the same groups,
    and the same matches on every text."""
    assert made == oracle
    assert made.flags == oracle.flags and made.groups == oracle.groups
    assert made.groupindex == oracle.groupindex
    for text in sample:
        assert [m.span() for m in made.finditer(text)] == [m.span() for m in oracle.finditer(text)]
        assert made.sub("-", text) == oracle.sub("-", text)


@settings(max_examples=examples(50, 150), deadline=None)
@given(st.data())
def test_a_kept_program_makes_the_pattern_re_compiles(data: st.DataObject) -> None:
    """Compiled once (and kept), then in a new process from the file, with `re`'s
    compiler out of reach: the same pattern as `re.compile`'s, both times."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as mp:
        mp.setattr(patterns, "PATH", os.path.join(folder, "patterns.bin"))
        mp.setattr(sys, "dont_write_bytecode", False)
        fresh()
        try:
            pattern = data.draw(regexes())
            flags = data.draw(flag_sets)
            try:
                oracle = re.compile(pattern, flags)
            except re.error:
                return  # (the grammar can make a look-behind of no fixed width)
            sample = data.draw(st.lists(texts, min_size=1, max_size=5))
            same(patterns.compile(pattern, flags), oracle, sample)
            patterns.save()
            assert os.path.exists(patterns.PATH)
            fresh()

            def not_again(*args: object) -> None:
                raise AssertionError("compiled again, not read from the kept program")

            mp.setattr(patterns.re, "compile", not_again)
            made = patterns.compile(pattern, flags)
            mp.undo()
            same(made, oracle, sample)
            # bytes patterns have programs of their own
            raw = pattern.encode()
            fresh()
            if flags & re.ASCII or not pattern.isascii():
                return
            same_bytes = patterns.compile(raw, flags)
            assert same_bytes == re.compile(raw, flags)
        finally:
            fresh()


def test_a_file_of_another_python_or_broken_is_not_used(kept_in: Path) -> None:
    """Garbage, another Python's stamp, or an entry of another pattern under
    the key: each pattern is compiled anew, right."""
    pattern, text = r"(?P<word>[a-z]+)\d", "ab1 c2 3"
    oracle = re.compile(pattern)
    patterns.compile(pattern)
    patterns.save()
    good = kept_in.read_bytes()
    import marshal

    from vibe_vault.kept_modules import read_kept, write_kept

    stamp, key = patterns._STAMP, patterns._key(pattern, 0)
    entries = read_kept(str(kept_in), stamp)
    other = marshal.dumps((pattern.replace("a-z", "a-c"), 0, marshal.loads(entries[key])[2]))
    # (garbage; the file cut short, by half or by its last byte; then whole
    # files of another Python, of a damaged entry, of another pattern's)
    contents = [b"not marshal at all", good[: len(good) // 2], good[:-1]]
    for kept_stamp, kept in [(("3.0.0", 1), entries), (stamp, {key: b"\x00garbage"}),
                             (stamp, {key: other})]:
        write_kept(str(kept_in), kept_stamp, kept)
        contents.append(kept_in.read_bytes())
    for content in contents:
        kept_in.write_bytes(content)
        fresh()
        same(patterns.compile(pattern), oracle, [text, "zz9"])


def test_nothing_is_written_when_python_writes_no_bytecode(kept_in: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    patterns.compile(r"x+y")
    patterns.save()
    assert not kept_in.exists()


LITERAL = "zq" + "Kx7PmT4vRw9N2bLs"  # a user's pattern that is a literal secret


def test_a_users_pattern_is_never_kept(tmp_path: Path) -> None:
    """`vv hook` as a process, writing its kept programs (bytecode allowed) to
    a file of this test, with a `redact_patterns` entry that is a literal: the
    secret is out of the note, and out of the file."""
    env = Env(tmp_path)
    env.env.pop("PYTHONDONTWRITEBYTECODE")
    kept = tmp_path / "patterns.bin"
    env.configure(f'[redact_patterns]\nmine = "{LITERAL}"\n')
    sid = "5e7a0c1d-0000-4000-8000-00000000b001"
    base = {"sessionId": sid, "cwd": "/work/app", "version": "2.1.50"}
    lines = [
        {**base, "type": "user", "uuid": "u1", "timestamp": "2026-03-01T10:00:00.000Z",
         "message": {"role": "user", "content": f"keep {LITERAL} out, see https://x.org/a"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1",
         "timestamp": "2026-03-01T10:00:01.000Z",
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": f"Done: `{LITERAL}` ~~gone~~."}],
                     "usage": {"input_tokens": 3, "output_tokens": 5}}},
    ]
    transcript = env.transcript(sid, [json.dumps(x).encode() for x in lines])
    script = ("import sys; sys.argv = ['vv', 'hook'];"
              "from vibe_vault import patterns; patterns.PATH = sys.argv_path;"
              "from vibe_vault.cli import entry; entry()")
    event = {"hook_event_name": "Stop", "session_id": sid,
             "transcript_path": str(transcript), "cwd": "/work/app"}
    r = subprocess.run([sys.executable, "-c", script.replace(
        "sys.argv_path", repr(str(kept)))], input=json.dumps(event).encode(),
        capture_output=True, env={**env.env, "PYTHONPATH": str(SRC)}, check=False)
    assert r.returncode == 0 and not r.stdout, r.stderr
    notes = env.notes()
    assert notes and all(LITERAL not in note for note in notes.values())
    assert kept.exists()  # (the package's own patterns were kept)
    data = kept.read_bytes()
    assert LITERAL.encode() not in data and LITERAL.encode("utf-16-le") not in data


@settings(max_examples=60, deadline=None)
@given(inputs=st.dictionaries(st.text(alphabet="abc-_:", min_size=1, max_size=5),
                              st.sets(st.integers(0, 40), max_size=4), max_size=12),
       changed=st.sampled_from(["nothing", "inputs", "code"]))
def test_a_kept_table_is_what_its_code_makes_of_its_inputs(inputs: dict[str, set[int]],
                                                          changed: str) -> None:
    """`kept`: made once and kept; in a new process read from the file when
    the inputs and the code are the same (make is not run), made anew when
    either differs. The oracle: the function itself, run on the inputs."""
    import tempfile

    from vibe_vault.redact import _word_tree, _word_tree_pairwise

    def other_tree(words: dict[str, set[int]]) -> list[Any]:
        return sorted(words)

    code = (_word_tree.__code__, _word_tree_pairwise.__code__)
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as mp:
        mp.setattr(patterns, "PATH", os.path.join(folder, "patterns.bin"))
        mp.setattr(sys, "dont_write_bytecode", False)
        fresh()
        try:
            made = patterns.kept("tree", inputs, code, lambda: _word_tree(inputs))
            assert made == _word_tree(inputs)
            patterns.save()
            fresh()
            now = {**inputs, "zz": {1}} if changed == "inputs" else dict(inputs)
            make = other_tree if changed == "code" else _word_tree
            runs: list[int] = []

            def counted() -> list[Any]:
                runs.append(1)
                return make(now)

            again = patterns.kept("tree", now, (make.__code__,) if changed == "code" else code,
                                  counted)
            assert again == make(now)
            assert runs == ([] if changed == "nothing" else [1])
        finally:
            fresh()


def test_the_redactors_kept_word_tree_is_the_one_it_makes(kept_in: Path) -> None:
    """A process that reads the rule table from the file holds the word tree
    `_word_tree` makes of the rules, and redacts alike."""
    from vibe_vault import redact
    from vibe_vault.secret_rules import RULES, WORD

    made = redact.rule_table()
    assert ("kept", "redact-rules") in patterns._new
    patterns.save()
    fresh()
    read = redact.rule_table()
    assert ("kept", "redact-rules") in patterns._kept and not patterns._new
    assert read == made
    words: dict[str, set[int]] = {}
    for i, rule in enumerate(RULES):
        for t in rule.triggers:
            if rule.how == WORD:
                words.setdefault(t, set()).add(i)
    assert read[3] == redact._word_tree(words)
    text = "export DB_PASSWORD=hunter2hunter2 and ghp_" + "a1B2" * 9
    out = redact.Redactor().redact(text)
    assert "hunter2" not in out[0] and "a1B2" not in out[0] and out[1] == 2


def test_the_kept_near_words_table_is_what_with_prefixes_makes() -> None:
    """The redactor's table of the words near a long run (kept beside the
    compiled patterns, read back by the next process) is the one
    `with_prefixes` makes of the rules' triggers, whether this process made
    or read it."""
    from vibe_vault.redact import Redactor, with_prefixes

    redactor = Redactor()
    redactor.redact("sk-ant-" + "a1B2c3D4" * 8)  # (a long run: the near words are looked up)
    assert redactor._near_of == with_prefixes(redactor._near_rules)
