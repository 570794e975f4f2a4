"""Attack 26: what a person types between angle brackets is their words.

A prompt that was only an HTML element (`<img src="…">`, `<script …></script>`)
was missing from the note, and `gh pr view <number>` read `gh pr view`: every
tag was taken off a prompt, where only Claude Code's own (its context wrappers,
a slash command's tags) are not the person's. Generated prompts of words,
placeholders and HTML elements, with Claude Code's wrappers around them: the
oracle is the prompt as typed, less the wrappers the test put there. Each of
the person's tags is in the story (escaped: `&lt;`), each prompt counted, and
the wrappers' words are not.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter
from test_headlines import Transcript, words
from vibe_vault.render import render

HTML = ["div", "span", "img", "script", "p", "button", "input", "td", "table", "a", "li"]
placeholder = st.lists(st.sampled_from(["number", "branch", "url", "feature", "name", "id"]),
                       min_size=1, max_size=2).map(lambda w: "<" + "-".join(w) + ">")
element = st.tuples(st.sampled_from(HTML), st.sampled_from(['', ' class="card"', ' src="app.js"']),
                    st.booleans()).map(
    lambda e: f"<{e[0]}{e[1]}>" + (f"</{e[0]}>" if e[2] else ""))
piece = st.one_of(words, placeholder, element)
typed = st.lists(piece, min_size=1, max_size=8).map(" ".join)
WRAPPERS = ["<system-reminder>keep this context hidden</system-reminder>",
            "<ide_opened_file>The user opened src/app.py</ide_opened_file>"]


def story(note: str) -> str:
    return note.split("\n## Story\n", 1)[1].split("\n## My notes", 1)[0]


def escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;")


@settings(max_examples=examples(40, 200), deadline=None)
@given(prompts=st.lists(typed, min_size=1, max_size=4),
       wrapped=st.lists(st.sampled_from(WRAPPERS), max_size=2))
def test_a_persons_tags_are_kept_and_claude_codes_are_not(prompts: list[str],
                                                          wrapped: list[str]) -> None:
    t = Transcript()
    for text in prompts:
        t.prompt("\n".join([*wrapped, text]))
        t.say("Done.")
    note = render(t.state())
    shown = " ".join(story(note).replace("\n> ", " ").split())
    for text in prompts:
        tags = [w for w in text.split() if w.startswith("<")]
        for tag in tags:
            assert escaped(tag) in shown, (tag, shown[:600])
    assert frontmatter(note)["prompts"] == len(prompts)
    assert "keep this context hidden" not in shown and "The user opened" not in shown


def test_a_prompt_of_one_element_makes_a_note_through_vv(tmp_path: Path) -> None:
    t = Transcript()
    t.prompt('<img src="screenshot.png" alt="the login page">')
    t.say("That is the login page.")
    env = Env(tmp_path)
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    assert frontmatter(note)["prompts"] == 1
    assert '&lt;img src="screenshot.png" alt="the login page">' in story(note)
