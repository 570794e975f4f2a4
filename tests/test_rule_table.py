"""The redaction rules' table a Redactor reads (`redact.rule_table`) is kept
beside the compiled patterns, so a hook does not import the rule modules: the
table read back is the one the rules make, a redactor of it hides what one
made from the rules hides, text for text, and a change to any file it is made
from makes it anew. The oracles: `secret_rules.RULES` itself, and a redactor
built from a table the test works out of the rules."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from vibe_vault import patterns, redact
from vibe_vault.secret_rules import RULES, RUN, SHAPED, WORD, B, expand

SRC = Path(redact.__file__).resolve().parent.parent

# The names the table is unpacked into, in its order (redact's module end).
TABLE_NAMES = ("_RULE_PATTERNS", "_GLUED", "_FOLDED", "_WORD_TREE", "_NEAR_RULES", "_BOUNDED",
               "_LINES", "SHAPED_RULES", "RUN_RULES", "_RUN_ONLY", "_POSITIONAL_KINDS",
               "LINE_OR_UPPER")


def fresh() -> None:
    patterns._kept.clear()
    patterns._new.clear()
    patterns._read[0] = False


@pytest.fixture
def kept_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """`patterns` keeping what it keeps in a file of this test, starting as a
    new process does."""
    path = tmp_path / "patterns.bin"
    monkeypatch.setattr(patterns, "PATH", str(path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    fresh()
    yield path
    fresh()


def table_of_the_rules() -> tuple[Any, ...]:
    """The table worked out here from RULES, field by field as the Redactor
    used them when it read RULES itself."""
    from vibe_vault import secret_positional
    from vibe_vault.secret_rules import LINE_OR_UPPER

    words: dict[str, set[int]] = {}
    near: dict[str, set[int]] = {}
    for i, rule in enumerate(RULES):
        for t in rule.triggers:
            (words if rule.how == WORD else near).setdefault(t, set()).add(i)
    bounded = frozenset(i for i, r in enumerate(RULES) if r.pattern[:len(B)] == B)
    glued = {i: tuple(t for t in RULES[i].triggers if redact.glue_proof(t)) for i in bounded}
    run = frozenset(i for i, r in enumerate(RULES) if r.how == RUN)
    return (
        tuple((r.id, r.pattern[len(B):] if i in bounded else r.pattern)
              for i, r in enumerate(RULES)),
        {i: g for i, g in glued.items() if g},
        frozenset(i for i, r in enumerate(RULES) if r.pattern[:4] == "(?i)"),
        redact._word_tree(words),
        near,
        bounded,
        {i: r.line for i, r in enumerate(RULES) if r.line},
        frozenset(i for i, r in enumerate(RULES) if r.how == SHAPED),
        run,
        sorted(i for i in run if not RULES[i].triggers),
        tuple(secret_positional.KINDS),
        LINE_OR_UPPER,
    )


def read_back() -> tuple[Any, ...]:
    """The table as a new process reads it: made and saved, then read from
    the file (and not made again)."""
    made = redact.rule_table()
    patterns.save()
    fresh()
    read = redact.rule_table()
    assert ("kept", "redact-rules") in patterns._kept and not patterns._new
    assert read == made
    return read


def test_the_kept_table_is_the_one_the_rules_make(kept_in: Path) -> None:
    assert read_back() == table_of_the_rules()


def test_the_rule_modules_use_no_module_the_table_is_not_stamped_by() -> None:
    """Every module of the package that the rule modules import is one whose
    file stamps the kept table (`_rule_sources`): else an edit of it would
    leave an old table in use. A new rule module named secret_*.py is
    stamped by its name."""
    code = ("import sys, vibe_vault.secret_rules, vibe_vault.secret_tables;"
            "print('\\n'.join(m.__file__ for n, m in sys.modules.items()"
            " if n.startswith('vibe_vault.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}, check=True)
    files = {Path(f).name for f in out.stdout.split()}
    assert "secret_rules.py" in files
    stamped = {name for name, _, _ in redact._rule_sources() or ()}
    assert files <= stamped, files - stamped
    assert {n for n in files if n.startswith("secret_")} <= stamped


@settings(max_examples=examples(30, 150), deadline=None)
@given(at=st.integers(0, 100), change=st.sampled_from(["size", "time", "added", "gone"]))
def test_a_change_to_any_file_it_is_made_from_makes_it_anew(at: int, change: str) -> None:
    """The table is read back while every stamped file is as it was; any
    file changed (its size or time), added or gone: made anew, from the rules."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as mp:
        mp.setattr(patterns, "PATH", os.path.join(folder, "patterns.bin"))
        mp.setattr(sys, "dont_write_bytecode", False)
        fresh()
        try:
            sources = redact._rule_sources()
            assert sources is not None
            mp.setattr(redact, "_rule_sources", lambda: sources)
            redact.rule_table()
            patterns.save()
            fresh()
            stamps = list(sources)
            i = at % len(stamps)
            name, size, time = stamps[i]
            if change == "size":
                stamps[i] = (name, size + 1, time)
            elif change == "time":
                stamps[i] = (name, size, time + 1)
            elif change == "added":
                stamps.insert(i, ("secret_more.py", 10, 1))
            else:
                del stamps[i]
            mp.setattr(redact, "_rule_sources", lambda: tuple(stamps))
            made: list[int] = []
            real = redact.make_rule_table

            def counted() -> tuple[Any, ...]:
                made.append(1)
                return real()

            mp.setattr(redact, "make_rule_table", counted)
            assert redact.rule_table() == table_of_the_rules()
            assert made == [1]
            mp.setattr(redact, "_rule_sources", lambda: sources)
            fresh()
            assert redact.rule_table() == table_of_the_rules()
            assert made == [1]  # (the unchanged files' table: read, not made)
        finally:
            fresh()


def redact_with(table: tuple[Any, ...], texts: list[str]) -> list[tuple[str, int, list[str]]]:
    """What a Redactor reading `table` makes of each text, and what it found."""
    out = []
    with pytest.MonkeyPatch.context() as mp:
        for name, value in zip(TABLE_NAMES, table, strict=True):
            mp.setattr(redact, name, value)
        redact._near_gate.cache_clear()
        try:
            redactor = redact.Redactor()
            for text in texts:
                found: list[str] = []
                hidden, n = redactor.redact(text, found)
                out.append((hidden, n, found))
        finally:
            redact._near_gate.cache_clear()
    return out


# Pieces of texts: every rule's samples and look-alike (drawn afresh from a
# seed), its triggers, and what joins them.
_JOINS = (" ", "\n", "=", ": ", "_", "", "\t", " is ", "'", "x", "Q9", " say ")


@st.composite
def rule_texts(draw: st.DrawFn) -> str:
    rng = random.Random(draw(st.integers(0, 2**32)))
    pieces = []
    for _ in range(draw(st.integers(1, 4))):
        rule = RULES[draw(st.integers(0, len(RULES) - 1))]
        kind = draw(st.sampled_from(["sample", "look-alike", "trigger", "trigger+run"]))
        if kind == "sample" and rule.samples:
            pieces.append(expand(rng.choice(rule.samples), rng).text)
        elif kind == "look-alike" and rule.look_alike:
            pieces.append(rule.look_alike)
        elif rule.triggers:
            word = rng.choice(rule.triggers)
            if kind == "trigger+run":
                word += "".join(rng.choice("abcdefXYZ0123456789") for _ in range(rng.randint(8, 40)))
            pieces.append(word)
    joined = ""
    for piece in pieces:
        case = draw(st.sampled_from([str, str.lower, str.upper]))
        joined += draw(st.sampled_from(_JOINS)) + case(piece)
    return joined


@settings(max_examples=examples(60, 400), deadline=None)
@given(texts=st.lists(rule_texts(), min_size=1, max_size=8))
def test_a_redactor_of_the_kept_table_redacts_as_one_of_the_rules(
        texts: list[str]) -> None:
    """Text for text, the same output, count and secrets found, whether the
    table was read back from the file or worked out from the rules here."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as mp:
        mp.setattr(patterns, "PATH", os.path.join(folder, "patterns.bin"))
        mp.setattr(sys, "dont_write_bytecode", False)
        fresh()
        try:
            read = read_back()
        finally:
            fresh()
    assert redact_with(read, texts) == redact_with(table_of_the_rules(), texts)


# How a form is written around a text: alone, glued after a letter or a
# digit, after a word on its line, on the line after; as written, lower and
# upper case (what a rule's bounds, line and case tests tell apart).
_BEFORE = ("", "x", "Q9", "foo ", "foo: ", "say\n")


def test_every_form_of_the_table_is_redacted_alike_through_the_kept_table(
        kept_in: Path) -> None:
    """Every sample and look-alike of every rule (and any rule added: the
    table is walked whole), each written every way of _BEFORE in three
    cases: a redactor of the table read back hides what one of the table
    worked out from the rules hides, and every sample's secret is hidden."""
    from vibe_vault.secret_rules import samples

    texts: list[str] = []
    plain: list[tuple[int, str]] = []
    for r in RULES:
        drawn = samples(r)
        for s in drawn:
            plain.append((len(texts), s.secret))
            texts.append(s.text)
        for form in [*(s.text for s in drawn), *r.look_alike.split("\n")]:
            texts += [b + f for b in _BEFORE for f in (form, form.lower(), form.upper())]
    read = redact_with(read_back(), texts)
    assert read == redact_with(table_of_the_rules(), texts)
    missed = [texts[i] for i, secret in plain if secret in read[i][0]]
    assert not missed
