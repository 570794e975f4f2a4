"""A command shown with the session's folder left out of its paths still runs
what ran (review 26 #22, de3b8b19: `chmod +x /tmp/t/hello.sh && /tmp/t/hello.sh`
was shown `chmod +x hello.sh && hello.sh`, whose second `hello.sh` a shell
looks up on PATH). A program run by its path keeps `./`.

The oracle resolves each word of the command drawn and of the command shown
as a shell would, from the session's folder: a word in command position with
no slash is a PATH name, any other relative path is under the folder, and
both must name the same programs and files.
"""

from __future__ import annotations

import posixpath

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from vibe_vault.paths import runnable
from vibe_vault.render import render

CWD = "/work/app"
name = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=2, max_size=6)
# A path under the folder, written absolute or relative, in a subfolder or not.
path = st.tuples(st.sampled_from(("abs", "rel", "dot")), st.booleans(), name)
program = st.one_of(st.sampled_from(("ls", "cat", "echo")), path)
segment = st.tuples(program, st.lists(st.one_of(path, st.just("-v")), max_size=3))
OPS = (" && ", " | ", " ; ", " || ")


def written(p: tuple[str, bool, str] | str) -> str:
    if isinstance(p, str):
        return p
    how, sub, word = p
    rel = f"sub/{word}.sh" if sub else f"{word}.sh"
    return {"abs": f"{CWD}/{rel}", "rel": rel if sub else f"./{rel}", "dot": f"./{rel}"}[how]


def resolved(command: str) -> list[str]:
    """What each word names, read as a shell does, from the session's folder."""
    out: list[str] = []
    for part in command.replace(" && ", "\0").replace(" || ", "\0").replace(
            " | ", "\0").replace(" ; ", "\0").split("\0"):
        for k, w in enumerate(part.split()):
            if w.startswith("-") or (k == 0 and "/" not in w):
                out.append(w)  # (a flag; a program looked up on PATH)
            else:
                out.append(posixpath.normpath(posixpath.join(CWD, w)))
    return out


@settings(max_examples=examples(200, 1000), deadline=None)
@given(segs=st.lists(segment, min_size=1, max_size=4), ops=st.lists(st.sampled_from(OPS),
                                                                       min_size=3, max_size=3))
def test_a_shortened_command_names_what_ran(
        segs: list[tuple[object, list[object]]], ops: list[str]) -> None:
    parts = [" ".join(written(w) for w in (prog, *args)) for prog, args in segs]  # type: ignore[arg-type]
    command = parts[0] + "".join(op + p for op, p in zip(ops, parts[1:], strict=False))
    shown = runnable(command, CWD)
    assert CWD not in shown, shown
    assert resolved(shown) == resolved(command), (command, shown)


@settings(max_examples=examples(5, 20), deadline=None)
@given(word=name)
def test_the_story_shows_a_program_run_by_its_path_with_dot_slash(word: str) -> None:
    t = Transcript(cwd=CWD)
    t.prompt("make the script and run it")
    t.bash(f"chmod +x {CWD}/{word}.sh && {CWD}/{word}.sh", "hi\n")
    t.say("It printed hi.")
    note = render(t.state())
    assert f"chmod +x {word}.sh && ./{word}.sh" in note, note
    assert f"&& {word}.sh" not in note, note
