"""Words typed when refusing a call from an IDE on Claude Code 2.0.0-2.0.36
(review 4, finding 1).

There the VS Code extension answers the CLI's permission prompt, and the CLI
writes the host's answer as the call's result: the user's words bare, with
`is_error` and `toolUseResult` "Error: <words>" (9e953218, 2.0.5: "please
add transformer.js too first"). They are a prompt of the story, and the call
was denied by the user, not a failed command. A command that failed has the
same shape on those clients (its stderr and stdout), so the test that no real
error turns into a prompt puts every error any tool wrote in the corpus (all
clients, its "Exit code N" line taken off as 2.0.5 never wrote one) in the
place of the words.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, corpus_files, frontmatter, json_objects
from test_headlines import Transcript
from vibe_vault.render import render

IDE_PROMPT = [{"type": "text", "text": "<ide_opened_file>The user opened the file /work/app/a.py "
               "in the IDE. This may or may not be related to the current task.</ide_opened_file>"},
              {"type": "text", "text": "move the tokenizer into its own repo"}]
# What people type when they stop a call and say what to do instead.
VOCABULARY = ["please", "add", "the", "file", "first", "wait", "a", "sec", "we", "need", "to",
              "copy", "also", "use", "pnpm", "instead", "rename", "it", "keep", "name", "but",
              "would", "this", "work", "in", "standalone", "repo", "should", "redirect", "there",
              "too", "transformer.js", "public/favicons/token.svg", "so", "if", "I", "do",
              "https://www.example.me/tokenizer/index.html", "that", "works", "–", "or", "?"]
said_words = st.tuples(st.sampled_from([w for w in VOCABULARY if w[0].isalpha()]),
                       st.lists(st.sampled_from(VOCABULARY), min_size=2, max_size=30)).map(
    lambda ws: " ".join([ws[0].capitalize(), *ws[1]]))
host_versions = st.tuples(st.just(2), st.just(0), st.integers(0, 36)).map(
    lambda v: ".".join(map(str, v)))


def ide_session(ide: bool = True) -> Transcript:
    t = Transcript()
    t.lines.append({**t._base("user"), "message": {
        "role": "user", "content": IDE_PROMPT if ide else IDE_PROMPT[1]["text"]}})
    return t


def refused(t: Transcript, version: str, said: str, tool: str = "Bash") -> None:
    inp: dict[str, Any] = ({"command": "git commit -m 'Add files'", "description": "Commit"}
                           if tool == "Bash" else
                           {"file_path": "/work/app/a.py", "old_string": "a", "new_string": "b"})
    t.call(tool, inp, f"Error: {said}", said, error=True)
    t.say("Ah yes, doing that first.")
    for line in t.lines:
        line["version"] = version


@settings(max_examples=80, deadline=None)
@given(said=said_words, version=host_versions, tool=st.sampled_from(["Bash", "Edit"]))
def test_words_an_ide_wrote_bare_are_a_prompt(said: str, version: str, tool: str) -> None:
    t = ide_session()
    refused(t, version, said, tool)
    state = t.state()
    f = state.fold
    assert f.prompts == 2
    assert [(tu.kind, tu.text) for tu in f.turns][-1] == ("prompt", said)
    assert f.turns[-1].answer == "Ah yes, doing that first."
    assert f.errors == []
    assert [a.status for tu in f.turns for a in tu.actions] == ["denied"]
    note = render(state)
    assert f"· Prompt (given when refusing a tool call)\n> {said}\n" in note
    assert "— failed" not in note


@settings(max_examples=40, deadline=None)
@given(said=said_words, version=st.sampled_from(["1.0.43", "1.0.98", "2.0.37", "2.0.55",
                                                  "2.1.50", "2.1.332"]), ide=st.booleans())
def test_outside_those_clients_the_error_stays(said: str, version: str, ide: bool) -> None:
    """A terminal session of 2.0.5, or any client that never writes the words
    bare: an error with this shape is what a tool printed."""
    for v, with_ide in ((version, ide), ("2.0.5", False)):
        t = ide_session(with_ide)
        refused(t, v, said)
        f = t.state().fold
        assert f.prompts == 1 and len(f.errors) == 1, (v, with_ide)


def _corpus_errors() -> list[str]:
    """Every tool error in the corpus (any client, any tool), as a 2.0.5 IDE
    session would hold it: without the "Exit code N" line."""
    out = []
    for path in corpus_files():
        if b"<ide_opened_file>" in path.read_bytes() and b'"version":"2.0.5"' in path.read_bytes():
            continue  # the session in question: its bare errors are what is told apart here
        for o in json_objects(path):
            content = (o.get("message") or {}).get("content")
            for b in content if isinstance(content, list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("is_error"):
                    text = b.get("content")
                    if isinstance(text, list):
                        text = "\n".join(str(x.get("text") or "") for x in text
                                         if isinstance(x, dict))
                    if isinstance(text, str) and text.strip():
                        out.append(re.sub(r"^Exit code \d+\n?", "", text))
    return out


@pytest.mark.corpus
def test_no_tool_error_of_the_corpus_becomes_a_prompt() -> None:
    """Each error any tool wrote in the corpus, given as a 2.0.5 IDE session's
    Bash result, stays a failed command (or a refusal the client worded: the
    user's own 'doesn't want to proceed'), never a prompt of words."""
    errors = _corpus_errors()
    assert len(errors) >= 70
    for text in errors:
        t = ide_session()
        refused(t, "2.0.5", text)
        f = t.state().fold
        worded = text.startswith(("The user doesn't want", "Permission to "))
        # (a call the client cancelled unrun when one beside it failed: no error, test_not_run)
        worded = worded or "Sibling tool call errored" in text
        assert f.prompts == 1 + ("the user said:" in text or "for the rejection:" in text), text
        assert len(f.errors) == (0 if worded else 1), text


@pytest.mark.corpus
def test_the_review_session_shows_the_words_as_prompts(env: Env) -> None:
    """Through `vv backfill` on 9e953218 (2.0.5, VS Code): each result whose
    text is the same as the words of its `toolUseResult` after "Error: " and
    was typed (the corpus session's three: found here as the errors no tool
    printed, the ones that are not a tool's `<tool_use_error>`) is a prompt,
    and its command reads "denied by the user", not "failed"."""
    (src,) = [p for p in corpus_files() if p.name.startswith("9e953218")]
    typed = []
    for o in json_objects(src):
        content = (o.get("message") or {}).get("content")
        for b in content if isinstance(content, list) else []:
            if (isinstance(b, dict) and b.get("is_error") and isinstance(b.get("content"), str)
                    and not b["content"].startswith("<tool_use_error>")):
                assert o.get("toolUseResult") == "Error: " + b["content"]
                typed.append(b["content"])
    assert len(typed) == 3
    dst = env.claude / "projects" / "-Users-dain-workspace-danieldemmel-me-next" / src.name
    dst.parent.mkdir(parents=True)
    dst.write_bytes(src.read_bytes())
    assert env.vv("backfill").returncode == 0
    (note,) = env.notes().values()
    for words in typed:
        assert f"· Prompt (given when refusing a tool call)\n> {words}\n" in note
        assert f"**Bash**: `{words}" not in note
    assert note.count("— denied by the user") >= 3
    assert int(frontmatter(note)["errors"]) == len([
        b for o in json_objects(src) for b in ((o.get("message") or {}).get("content") or [])
        if isinstance(b, dict) and b.get("is_error")]) - len(typed)
