"""Issue 29 review F7, review 17 #3 and #4: a note shows every prompt whole
and the last answer whole, as the README says (b86cc0a4's last answer lost
its main point at 700 characters, ef958aa1's prompt its constraints at 500).
Only a paste past 5,000 characters (a log, a man page) is cut, marked "…
[cut at 5,000 characters]", its every word still found by `vv search`; the
answers before the last show their gist.

Generated prompts and answers end with a word of their own: the oracle is
those texts, whole, in the note.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples
from test_headlines import Transcript, words
from vibe_vault.render import render

README = Path(__file__).resolve().parent.parent / "README.md"
sentence = st.lists(words, min_size=6, max_size=14).map(lambda w: " ".join(w).capitalize() + ".")
long_text = st.lists(sentence, min_size=12, max_size=40).map(" ".join)  # 600 to 4,000 characters


def story(note: str) -> str:
    return note.split("\n## Story\n", 1)[1].split("\n## My notes", 1)[0]


@settings(max_examples=examples(20, 60), deadline=None)
@given(prompt=long_text, first=long_text, last=long_text)
def test_prompts_and_the_last_answer_are_shown_whole(prompt: str, first: str,
                                                     last: str) -> None:
    t = Transcript()
    t.prompt(prompt + " lastwordprompt")
    t.say(first + " lastwordfirst")
    t.prompt("and then the rest")
    t.say(last + " lastwordlast")
    shown = " ".join(story(render(t.state())).replace("\n> ", " ").split())
    assert f"{prompt} lastwordprompt" in shown
    assert f"{last} lastwordlast" in shown and "[cut at" not in shown.split("lastwordprompt")[1] \
        .split("and then the rest")[1]
    assert "lastwordfirst" not in shown or len(first) < 700  # before the last: its gist


@settings(max_examples=2, deadline=None)
@given(pasted=st.lists(sentence, min_size=4, max_size=8),
       tail=st.sampled_from(["zyzzyva", "quokkas"]))
def test_a_paste_past_5000_characters_is_cut_marked_and_still_found(
        tmp_path_factory: Any, pasted: list[str], tail: str) -> None:
    paste = " ".join(pasted)
    while len(paste) < 5_200:  # a log's lines, again and again, past 5,000 characters
        paste = f"{paste} {' '.join(pasted)}"
    t = Transcript()
    t.prompt(f"{paste} {tail}paste")
    t.say("Read it.")
    env = Env(Path(str(tmp_path_factory.mktemp("paste"))))
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    assert "[cut at 5,000 characters]" in story(note) and f"{tail}paste" not in note
    r = env.vv("search", f"{tail}paste", "--json")
    assert r.returncode == 0 and t.sid in r.stdout.decode(), r.stdout[:300]


def test_the_readme_says_what_a_note_keeps_whole() -> None:
    said = " ".join(README.read_text(encoding="utf-8").split())
    assert "the prompt whole" in said and "the last answer whole" in said
    assert "5,000 characters" in said
