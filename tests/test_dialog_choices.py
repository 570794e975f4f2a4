"""Review 32 #18: the client's text for a choice in the question dialog is
not the user's words. 233712ad, b4204c32, fe3ed705: the user picked "Chat
about this" on an AskUserQuestion; Claude Code refused the call "with the
user's words" being its own instructions to Claude ("The user wants to
clarify these questions. This means they may have additional information…
Questions asked: …"). The notes showed them as a prompt "given when refusing
a tool call", counted among the prompts.

Generated sessions: Claude asks 1 to 3 questions; the user answers some of
them and picks a choice of the dialog (clarify; in plan mode's interview,
finish the plan), or refuses the call with words of their own, or with none;
newer clients append a note for Claude to the words, and 2.1.3xx also keeps
them in a field of their own (`userFeedback`). The oracle is what the test
wrote: the words the user typed are a prompt (counted, quoted), a dialog
choice is said as a choice (with the answer the user gave the first question)
and never quoted, and no sentence of the client's text reaches the note.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, frontmatter
from test_headlines import Transcript, phrase

REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
            "(eg. if it was a file edit, the new_string was NOT written to the file). ")
SAID = "To tell you how to proceed, the user said:\n"
BARE = "STOP what you are doing and wait for the user to tell you how to proceed."
NOTE = ("\n\nNote: The user's next message may contain a correction or preference. Pay close "
        "attention — if they explain what went wrong or how they'd prefer you to work, "
        "consider saving that to memory for future sessions.")
CLARIFY = ("The user wants to clarify these questions.\n"
           "    This means they may have additional information, context or questions for you.\n"
           "    Take their response into account and then reformulate the questions if "
           "appropriate.\n"
           "    Start by asking them what they would like to clarify.\n\n"
           "    Questions asked:\n")
FINISH = ("The user has indicated they have provided enough answers for the plan interview.\n"
          "Stop asking clarifying questions and proceed to finish the plan with the "
          "information you have.\n\n"
          "Questions asked and answers provided:\n")
# Sentences of the client's texts: none is the user's to read as theirs.
CLIENT_WORDS = ("clarify these questions", "additional information, context",
                "reformulate the questions", "Questions asked", "No answer provided",
                "enough answers for the plan interview", "Stop asking clarifying questions",
                "next message may contain a correction", "Pay close attention",
                "saving that to memory")


def asked(questions: list[str], answers: list[str | None]) -> str:
    return "\n".join(f'- "{q}"\n  Answer: {a}' if a else f'- "{q}"\n  (No answer provided)'
                     for q, a in zip(questions, answers, strict=True))


@settings(max_examples=examples(30, 150), deadline=None)
@given(questions=st.lists(phrase.map(lambda p: p + "?"), min_size=1, max_size=3, unique=True),
       answers=st.lists(st.one_of(st.none(), phrase), min_size=3, max_size=3),
       choice=st.sampled_from(["clarify", "finish", "words", "bare"]),
       typed=phrase, note=st.booleans(), field=st.booleans(), later=st.booleans())
def test_a_dialog_choice_is_said_as_a_choice_never_as_the_users_words(
        tmp_path_factory: Any, questions: list[str], answers: list[str | None], choice: str,
        typed: str, note: bool, field: bool, later: bool) -> None:
    given_answers = answers[:len(questions)]
    words = {"clarify": CLARIFY + asked(questions, given_answers),
             "finish": FINISH + asked(questions, given_answers),
             "words": typed, "bare": ""}[choice]
    content = REJECTED + (SAID + words if words else BARE) + (NOTE if note else "")
    t = Transcript()
    t.prompt("pick a tagline for the title screen")
    t.call("AskUserQuestion", {"questions": [
        {"question": q, "header": "Choice", "multiSelect": False,
         "options": [{"label": "One", "description": "the first"},
                     {"label": "Two", "description": "the second"}]} for q in questions]},
        "Error: " + content, content, error=True)
    if field and words:
        t.lines[-1]["userFeedback"] = words + (NOTE if note else "")
        t.lines[-1]["message"]["content"][0]["content"] = REJECTED + BARE
        t.lines[-1]["toolUseResult"] = "Error: " + REJECTED + BARE
    t.say("Sure, what would you like to change?")
    if later:
        t.prompt("make it shorter and less formal")
        t.say("Done.")
    note_text = t.note(tmp_path_factory,
                       "test_a_dialog_choice_is_said_as_a_choice_never_as_the_users_words")
    fm = frontmatter(note_text)
    prompts = 1 + (choice == "words") + later
    assert fm.get("prompts", 0) == prompts, (fm, note_text)
    for client in CLIENT_WORDS:
        assert client not in note_text, (client, note_text)
    refused_prompt = "Prompt (given when refusing a tool call)" in note_text
    assert refused_prompt == (choice == "words"), note_text
    if choice == "words":
        assert f"> {typed}\n" in note_text, note_text
    line = next(x for x in note_text.splitlines() if x.startswith("- Asked: "))
    assert questions[0] in line, line
    assert ("you chose to clarify Claude's questions" in line) == (choice == "clarify"), line
    assert ("finish the plan" in line) == (choice == "finish"), line
    first = given_answers[0]
    if choice in ("clarify", "finish") and first:
        assert f"**{first}**" in line, line
    assert "clarify" not in str(fm.get("title", "")), fm
