"""A Stop never hangs on what a session holds: folding and rendering a
transcript grows linearly with the length of any one text in it, wherever the
text sits (a prompt, Claude's answer, a shell command, its output, a written
file, an edit, an error). The gate's rules have their own check
(test_gate_worst.py); this one covers everything after them: the fold's own
readings of commands and outputs (which command is a check, what a script
assigns, which test failed), and rendering.

Texts are units repeated: the gate's adversarial units (bench/gate_worst.py's
separators glued to the words the fold reads, its generic units) and shell
shapes. Attack 25 found a Bash command of `Password=;` repeated over 266 kB
holding a Stop past 60 s (a check-finding pattern ran over every later
assignment from each `;`): these are its neighbours.

As in test_gate_worst, growth is a ratio, not a time: the fold's time on a
text sixteen times longer against its time on the shorter one (16 linear,
256 quadratic), the least of three runs each, measured again before it fails.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import gate_worst  # noqa: E402

SHORT, LONG = 2_000, 32_000
GROWTH_LIMIT = 64  # four times linear, a quarter of quadratic
SCREEN, SCREEN_GROWTH, SCREEN_FLOOR = 16_000, 16, 0.02

# Words the fold reads in commands and outputs (checks, runners, git, test
# reports, assignments, heredocs, redirections) and in prose (asks, errors).
WORDS = ("pytest", "cargo fmt --check", "npm test", "git commit -m", "git push",
         "git checkout -b", "FAILED", "Error:", "error[E0", "Traceback", "PASSED",
         "make", "sudo", "timeout 5", "env", "cat > f <<EOF", "echo x >", "$(", "${",
         "Password=", "export A=", "A=1", "k=v", "x=$(y)", "#", "```", "- [ ]", "1.",
         "Let me", "Now let me test the error case", "?", "http://", "`", "**", "|",
         "t.py::a PASSED", "1 passed", "   0000000..1111111  main -> main",
         " * [new branch]      x -> x", " ! [rejected]        x -> x",
         "hint: its remote counterpart. If you want", "error: src refspec ",
         "remote: Permission to ", "    git push --set-upstream ",
         "Committed `a1b2c3d`",
         "git init", "git clone -q a", 'cd "$(mktemp -d)"', "S=/tmp/a", "git -C $S commit -qm")
JOINS = ("", " ", "\n", ";", "; ", " && ", " | ", "=", ":", ".", "a", "_")
PLACES = ("prompt", "answer", "command", "output", "git output", "push output", "written",
          "error", "user output", "report")


def units(thorough: bool) -> list[str]:
    found = dict.fromkeys(word + join for word in WORDS for join in JOINS)
    found.update(dict.fromkeys(gate_worst.GENERIC))
    chosen = list(found)
    if not thorough:  # (a sample, in about a minute; all with --slow and in CI)
        chosen = [u for n, u in enumerate(chosen) if n % 7 == 0] + [
            "Password=;", "k=v\n", "x=$(y)\n", "a=1;b", "Password=x; "]
    return list(dict.fromkeys(chosen))


def transcript(place: str, text: str) -> list[bytes]:
    t = Transcript()
    t.prompt(text if place == "prompt" else "run the checks")
    if place == "answer":
        t.say(text)
    elif place == "command":
        t.bash(text, "ok", "Run it")
    elif place == "output":
        t.bash("pytest -q", text, "Run the tests")
    elif place == "git output":  # (read for git's stat lines and counts: fold.git_counts)
        t.bash("git commit --stat -m x", " 1 file changed\n a | 3 +++\n" + text, "Commit")
    elif place == "push output":  # (read for the refs a push sent: fold.git)
        t.bash("git push", "To github.com:o/r.git\n" + text, "Push")
    elif place == "user output":  # (a `!` test run's, counted: verdicts.tally)
        t.prompt("<bash-input>pytest -v</bash-input>")
        t.prompt(f"<bash-stdout>{text}</bash-stdout><bash-stderr>Command timed out after 2m"
                 "</bash-stderr>")
    elif place == "report":  # (a subagent's, read for the commits it names: fold.subagents)
        t.call("Task", {"description": "Do it", "prompt": "do it"},
               {"status": "completed", "content": [{"type": "text", "text": text}]}, text)
    elif place == "written":
        t.write_file("/work/app/notes.txt", text)
    else:
        t.call("Bash", {"command": "make build"}, None, text, error=True)
    t.say("Done.")
    return t.encoded()


def folded(lines: list[bytes]) -> Callable[[], object]:
    def work() -> object:
        facts = fold(Fold(), (decode_line(x) for x in lines))
        return render(SessionState(session_id="s", project="app", fold=facts))
    return work


def took(place: str, unit: str, size: int, repeat: int = 1) -> float:
    lines = transcript(place, gate_worst._filled(unit, size))
    return gate_worst.timed(folded(lines), 30.0, repeat)


def growth(place: str, unit: str) -> float:
    short, long = took(place, unit, SHORT, 3), took(place, unit, LONG, 3)
    return float("inf") if long >= 30.0 else long / max(short, 1e-6)


def test_folding_grows_linearly_in_every_place(thorough: bool) -> None:
    super_linear = []
    for unit in units(thorough):
        for place in PLACES:
            at_screen = took(place, unit, SCREEN)
            if at_screen < SCREEN_FLOOR or at_screen < SCREEN_GROWTH * took(place, unit, SHORT):
                continue
            if growth(place, unit) > GROWTH_LIMIT and (grew := growth(place, unit)) > GROWTH_LIMIT:
                super_linear.append(f"{unit!r} as {place}: x{grew:.0f}")
    assert not super_linear, super_linear


def test_the_growth_check_finds_a_quadratic_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: the check-finding pattern as it was before
    attack 25 (assignments read across lines and operators, and back) grows as
    the square on a script of assignments."""
    from vibe_vault.fold import verdicts

    old = (r"(?:^|[;&|(\n]|\$\()\s*(?:[A-Za-z_]\w*=\S*\s+)*"
           r"(?:(?:time|timeout\s+\S+|nice|env|sudo|command|exec|xargs)\s+)*(?:[\w.~\-]*/)*"
           r"(?:pytest|make)(?=[\s;&|)]|$)")
    monkeypatch.setattr(verdicts, "CHECK_TOOLS", old)
    assert growth("command", "k=v\n") > GROWTH_LIMIT


_TOKENS = ["<<EOF", "<<'EOF'", '<<"EOF"', "<<-E", "<< E", "EOF", " EOF ", "E", "\n", " ",
           "\t", "x", "pytest", "<<", "a", "'", "\r"]


@settings(max_examples=examples(300, 2000), deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=24))
def test_heredoc_bodies_are_left_out_as_the_plain_pattern_says(tokens: list[str]) -> None:
    """The one-pass reading of here-documents against the plain pattern it
    replaced (read on short commands, where its rescans cost nothing): an
    opener's whole word, its body to the first line holding only that word."""
    from vibe_vault.fold.commands import without_heredocs

    command = "".join(tokens)
    plain = re.compile(r"(?m)<<-?\s*['\"]?(\w+)(?!\w)['\"]?[^\n]*\n[\s\S]*?^[ \t]*\1[ \t]*\r?$")
    assert without_heredocs(command) == plain.sub("<<\\1", command)


_PIECES = ["- ", "[ ]", "- [ ]", "- [ ] ", "; ", "* ", "1. ", "#", "**", "`", "```\n", ",", ";", ":", ".", "?",
           "!", "…", "—", "(", ")", "\"", "'", " ", "\n", "\t", "the", "of", "and", "why",
           "fix", "add", "please", "before", "through", "However,", "But", "ENT-207",
           "/plan", "。", "？", "密码", "x" * 90]


@settings(max_examples=examples(200, 1500), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8), st.integers(1, 80),
       st.lists(st.sampled_from(_PIECES), max_size=8))
@example(["- [ ] "], 80, [])  # (found by the growth test above)
@example(["- [ ]", ";", " "], 40, [])
def test_any_prompt_of_words_and_marks_folds_and_renders(unit: list[str], times: int,
                                                         tail: list[str]) -> None:
    """Whatever a prompt is made of, the session folds and renders: a title
    cut from a prompt of marks only (`- [ ]` repeated) once raised from the
    fold, and the hook wrote no note at all."""
    t = Transcript()
    t.prompt("".join(unit) * times + "".join(tail))
    t.say("Done.")
    note = folded(t.encoded())()
    assert isinstance(note, str) and note.startswith("---\n")
