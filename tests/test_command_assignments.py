"""A command is shown by its first real command, past every statement that
only sets variables, whatever their shape (review 27 #12: d8103a9b's 20-line
script opening `_UPD=$(…)` was shown as `_UPD=$(…) …`; issue 29: "a command
shown by its description or its first real command after leading
assignments").

Oracle: the script is built here from parts the test chose (assignments of
every shape, comments, blank lines, then `PROGRAM ARG`, maybe more lines), so
the command to show is known without reading vv's parsing: `PROGRAM ARG`, with
" …" when lines follow it. The first case runs `vv backfill` as a process and
reads the note's story (Transcript.note).
"""

from __future__ import annotations

import time
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.fold.commands import shorten

name = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True).filter(
    lambda s: s not in ("export", "local", "readonly", "declare", "typeset"))
plain = st.from_regex(r"[a-z0-9/~._-]{0,12}", fullmatch=True)
word = st.sampled_from(["alpha", "x.py", "-v", "./bin/run", "2>/dev/null", "main"])
# What a value can be: every quoting and substitution the shell has, some over lines.
value = st.one_of(
    plain,
    plain.map(lambda v: f'"{v} and more"'),
    plain.map(lambda v: f"'{v} ; && it'"),
    st.tuples(word, word).map(lambda p: f"$({p[0]} {p[1]} 2>/dev/null || true)"),
    st.tuples(word, word).map(lambda p: f'$({p[0]} "$({p[1]})" | tail -1)'),
    word.map(lambda w: f"$([ -f ~/{w} ] && echo \"yes\" || echo \"no\")"),
    word.map(lambda w: f"`{w} --version`"),
    plain.map(lambda v: "${HOME}/" + v),
    st.tuples(word, word).map(lambda p: f"$({p[0]}\n  {p[1]})"),  # (over two lines)
    plain.map(lambda v: f'"first line\n{v}"'),
    st.lists(word, max_size=3).map(lambda ws: "(" + " ".join(ws) + ")"),  # an array
    word.map(lambda w: f"$(( {len(w)} + 1 ))"),
)
declarer = st.sampled_from(["", "", "export ", "local ", "readonly ", "declare -x ",
                            "typeset -r "])


@st.composite
def statement(draw: st.DrawFn) -> str:
    """A statement that only sets variables: one or more assignments after an
    optional declarer, or a declarer with a bare name; maybe a fallback."""
    how = draw(declarer)
    sets = draw(st.lists(st.tuples(name, value), min_size=1, max_size=3))
    body = " ".join(f"{k}={v}" for k, v in sets)
    if how and draw(st.booleans()):
        body += " " + draw(name)  # (`local a=1 b`: b declared, no value)
    if not how and draw(st.booleans()):
        body += draw(st.sampled_from([" || true", " || echo none"]))
    return how + body


glue = st.sampled_from(["\n", "; ", " && ", ";\n", "\n\n", "\n# set up the paths\n"])
program = st.sampled_from(["make", "pytest", "grep", "ls", "npm", "git", "echo", "[", "mkdir"])


@st.composite
def script(draw: st.DrawFn) -> tuple[str, str]:
    """A script and the command it is to be shown by."""
    parts = draw(st.lists(statement(), min_size=1, max_size=4))
    lead = "# a preamble\n" if draw(st.booleans()) else ""
    text = lead
    for p in parts:
        text += p + draw(glue)
    env = draw(st.sampled_from(["", "FOO=1 ", "LANG=C TZ=UTC "]))  # its own environment
    real = f"{draw(program)} {draw(word)}"
    more = draw(st.sampled_from(["", "\necho done", "\n[ -n \"$X\" ] && echo \"$X\" || true"]))
    return text + env + real + more, real + (" …" if more else "")


@settings(max_examples=examples(60, 300), deadline=None)
@given(case=script())
def test_a_command_is_shown_by_its_first_real_command(case: tuple[str, str]) -> None:
    command, want = case
    assert shorten(command, "/work/app") == want, command


@settings(max_examples=examples(10, 40), deadline=None)
@given(case=script(), described=st.booleans())
def test_the_story_shows_the_first_real_command(tmp_path_factory: Any, case: tuple[str, str],
                                               described: bool) -> None:
    """As the user reads it: the story's line for the command, with its
    description when the tool gave one."""
    command, want = case
    t = Transcript()
    t.prompt("set it up")
    t.bash(command, "ok\n", description="Run the setup check" if described else "")
    t.say("Done.")
    note = t.note(tmp_path_factory, "command_assignments")
    story = note.split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in story.splitlines() if ln.startswith("- ")]
    assert any(f"`{want}`" in ln and (not described or "Run the setup check" in ln)
               for ln in lines), (lines, want)


def test_a_long_run_of_assignments_is_read_in_linear_time() -> None:
    """A hook must never hang on a repeated input: 4,000 and 16,000 statements
    (and an unclosed substitution as long) take time in proportion."""
    def took(k: int) -> float:
        text = "A=$(x \"y\" `z`) && " * k + "make\n" + "B=$(" * k
        start = time.perf_counter()
        assert shorten(text, "") == "make …"
        return time.perf_counter() - start

    took(100)
    small, large = took(4000), took(16000)
    assert large < max(small, 0.002) * 12, (small, large)
