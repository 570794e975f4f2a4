"""Review 17, findings 7 and 8; review 27: Claude Code's own titles and recaps, told truly.

Claude Code titles a session from its first exchange (its `ai-title` row,
written again after every turn: 2.1.235, b86cc0a4) and writes a recap
(`away_summary`, `task-summary`) of the work so far when the user comes back.
The note is titled as Claude Code's session list names the session (custom >
AI title > summary), else by the user's request; a recap never renames it
(review 27: the issue's order) but its latest first sentence is an alias, and
titles a session where the user asked nothing. Every recap is in the story,
where it was written, and in the search index as a part of its own.

The oracles read the JSON lines (the corpus's, or the generated ones): which
title row or recap came last in the file, the recaps' words and times; never
vv's output.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, frontmatter, in_process, main_files, session_files
from conftest import json_objects as objects
from test_backfill import backfill
from test_corpus import expected_sid
from test_headlines import Transcript, phrase, words
from vibe_vault.entries import decode_line
from vibe_vault.fold import HEAD_TURNS, TAIL_TURNS, fold
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState, decode_state, encode_state

HINT = "(disable recaps in /config)"


# -- the oracle: what the JSON says ------------------------------------------------------------


def one_line(text: str) -> str:
    return " ".join(text.split())


def recaps_in(objs: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
    """Claude Code's recaps in file order: (line index, time, words), the
    "(disable recaps in /config)" hint left out, a row written again with the
    same words as the one before counted once."""
    out: list[tuple[int, str, str]] = []
    for i, o in enumerate(objs):
        text = ""
        if o.get("type") == "system" and o.get("subtype") == "away_summary" \
                and isinstance(o.get("content"), str):
            text = o["content"].strip().removesuffix(HINT)
        elif o.get("type") == "task-summary" and isinstance(o.get("summary"), str):
            text = o["summary"]
        text = one_line(text)
        if text and not (out and out[-1][2] == text):
            out.append((i, str(o.get("timestamp") or ""), text))
    return out


def claude_codes_title(objs: list[dict[str, Any]]) -> tuple[str, str]:
    """Claude Code's name for the session in its file, and what it is: the
    user's (`custom`), else the latest AI title (`ai`), else a summary naming
    an entry of the file (`summary`), else, where the user asked nothing, the
    latest recap (`recap`: titles by its first sentence); ("", "") when none
    (a request titles the session: test_titles)."""
    customs = [one_line(o["customTitle"]) for o in objs
               if o.get("type") == "custom-title" and isinstance(o.get("customTitle"), str)
               and o["customTitle"].strip()]
    if customs:
        return "custom", customs[-1]
    ais = [one_line(o["aiTitle"]) for o in objs if o.get("type") == "ai-title"
           and isinstance(o.get("aiTitle"), str) and o["aiTitle"].strip()]
    if ais:
        return "ai", ais[-1]
    uuids = {o["uuid"] for o in objs if isinstance(o.get("uuid"), str)}
    own = [one_line(o["summary"]) for o in objs if o.get("type") == "summary"
           and o.get("leafUuid") in uuids and isinstance(o.get("summary"), str)
           and o["summary"].strip()]
    if own:
        return "summary", own[-1]
    recaps = recaps_in(objs)
    if recaps and not any(asks(o) for o in objs):
        return "recap", recaps[-1][2]
    return "", ""


def asks(o: dict[str, Any]) -> bool:
    """Whether a line is the user's typed words (not a tool's result, not
    Claude Code's own meta or command lines)."""
    if o.get("type") != "user" or o.get("isMeta") or o.get("isSidechain"):
        return False
    content = (o.get("message") or {}).get("content")
    texts = [content] if isinstance(content, str) else [
        b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
    return any(t.strip() and not t.lstrip().startswith("<") for t in texts)


def titled_by(title: str, kind: str, text: str) -> bool:
    """Whether the note's `title` is `text` as a title of its `kind`: a
    recap's first sentence (cut at 80 characters at most), else the words
    whole or cut with "…". A recap speaking to the user ("You're exploring
    how …") titles the session by the work ("Exploring how …")."""
    body = title.removesuffix("…")
    if kind == "recap":
        to_you = re.match(r"(?:You're|You are|We're|We are) (?=\w+ing\b)", text)
        text = text[to_you.end()].upper() + text[to_you.end() + 1:] if to_you else text
    if not text.startswith(body) or not body:
        return False
    if title.endswith("…"):
        return len(title) <= 80
    if kind == "recap":
        rest = text[len(body):]
        return (not rest or bool(re.match(r"[.;!?](\s|$)", rest))) and \
            not re.search(r"[.;!?]\s", body)
    return title == text


def text_first(recap_words: str) -> str:
    """A generated recap's first sentence ("<first>. Next: <then>.")."""
    return recap_words.split(". Next: ")[0]


def hhmm(ts: str) -> str:
    return ts[11:16]


# -- the corpus -----------------------------------------------------------------------------


def _story(note: str) -> str:
    return note.split("\n## Story\n", 1)[1].split("\n## ", 1)[0]


def _told_recaps(note: str) -> list[tuple[str, str]]:
    """The recaps the story tells: (heading time, words)."""
    out = []
    lines = _story(note).split("\n")
    for k, line in enumerate(lines):
        m = re.fullmatch(r"### (?:(?:\d{4}-\d\d-\d\d )?(\d\d:\d\d) · )?Claude Code's recap", line)
        if m:
            quoted = []
            for q in lines[k + 1:]:
                if not q.startswith(">"):
                    break
                quoted.append(q[1:].strip())
            out.append((m.group(1) or "", " ".join(quoted)))
    return out


def _unescaped(text: str) -> str:
    """Markdown's backslash escapes taken off (the note escapes `*`, `_`, `[`…)."""
    return re.sub(r"\\(.)", r"\1", text)


CORPUS_MAINS = [p for p in main_files() if any(
    o.get("type") in ("ai-title", "custom-title", "task-summary")
    or o.get("subtype") == "away_summary" for o in objects(p))]


@pytest.mark.corpus
def test_every_corpus_session_with_titles_or_recaps_is_titled_and_told_by_them(env: Env) -> None:
    """Corpus: every session with an ai-title, custom-title or recap row. The
    title is Claude Code's by the rule above; every recap is in the story, in
    order, at its time, with its words; the AI title a recap outdated is an
    alias; each recap is found by `vv search` as a recap."""
    assert CORPUS_MAINS, "the corpus has sessions titled or recapped by Claude Code"
    for n, main in enumerate(CORPUS_MAINS):
        # (a project folder each: two checkpoints' files are both `0/full.jsonl`)
        slug = env.claude / "projects" / f"{main.parent.name}-{n}"
        slug.mkdir(parents=True)
        shutil.copyfile(main, slug / main.name)
        for a in session_files(main):
            dest = slug / a.relative_to(main.parent)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(a, dest)
    backfill(env)
    by_id = {str(frontmatter(n)["session_id"]): n for n in env.notes().values()}
    kinds = set()
    for main in CORPUS_MAINS:
        objs = objects(main)
        note = by_id[str(expected_sid(main))]
        fm = frontmatter(note)
        kind, text = claude_codes_title(objs)
        kinds.add(kind)
        if kind:
            assert titled_by(str(fm["title"]), kind, text), (main, fm["title"], kind, text)
        recaps = recaps_in(objs)
        if recaps:  # the latest recap's first sentence is a name of the note
            aliases = [str(a) for a in fm["aliases"]]  # type: ignore[union-attr]
            assert any(titled_by(a, "recap", recaps[-1][2]) for a in aliases), \
                (main, aliases)
        told = _told_recaps(note)
        assert [(hhmm(ts), said) for _, ts, said in recaps] == \
            [(when, _unescaped(said)) for when, said in told], main
        for _, _, said in recaps:
            # its last words (not in the title, which is a first sentence)
            tail = re.findall(r"[^\W_]+", said)[-8:]
            r = env.vv("search", "--json", f'"{" ".join(tail)}"')
            hits = json.loads(r.stdout)
            assert hits and hits[0]["session_id"] == expected_sid(main), (main, tail, r.stderr)
            assert hits[0]["matched"] == "recap", (main, tail, hits[0])
    # The rule's branches the corpus reaches (b86cc0a4: an AI title, recaps after it).
    assert {"custom", "ai"} <= kinds, kinds


# -- generated sessions ------------------------------------------------------------------------

sentence = st.lists(words, min_size=2, max_size=6).map(lambda w: " ".join(w).capitalize())
step = st.one_of(
    st.tuples(st.just("turn"), phrase),
    st.tuples(st.just("recap"), st.tuples(sentence, phrase, st.booleans())),
    st.tuples(st.just("recap again"), st.just("")),
    st.tuples(st.just("ai"), sentence),
    st.tuples(st.just("ai again"), st.just("")),
    st.tuples(st.just("custom"), sentence),
)


def generated(steps: list[tuple[str, Any]]) -> Transcript:
    """A session from `steps`, opened by a prompt: turns (a prompt and its
    answer), recaps (an `away_summary` with Claude Code's hint, or a
    `task-summary`), the same recap again, AI titles (rows with no time or
    uuid, as Claude Code writes them), the same AI title again (as Claude
    Code writes it after every turn), custom titles."""
    t = Transcript()
    t.prompt("open the session")
    t.say("Opened.")
    last_recap: dict[str, Any] | None = None
    ai = ""
    for kind, arg in steps:
        if kind == "turn":
            t.prompt(arg)
            t.say(f"Did {arg}.")
        elif kind == "recap":
            first, then, away = arg
            text = f"{first}. Next: {then}."
            # (a task-summary is a session-state row: a time, no uuid)
            last_recap = ({"type": "system", "subtype": "away_summary",
                           "content": f"{text} {HINT}"} if away else
                          {"type": "task-summary", "summary": text, "sessionId": t.sid})
            recap(t, last_recap)
        elif kind == "recap again" and last_recap is not None:
            recap(t, last_recap)
        elif kind == "ai" or (kind == "ai again" and ai):
            ai = arg or ai
            t.lines.append({"type": "ai-title", "aiTitle": ai, "sessionId": t.sid})
        elif kind == "custom":
            t.lines.append({"type": "custom-title", "customTitle": arg, "sessionId": t.sid})
    return t


def recap(t: Transcript, row: dict[str, Any]) -> None:
    if row["type"] == "system":
        t.raw(row)
    else:
        t.raw(row)
        line = t.lines[-1]
        for field in ("uuid", "parentUuid", "cwd", "version"):
            line.pop(field)


def folded_in_parts(t: Transcript, cut: int) -> Fold:
    """The session folded in two parts, saved and loaded between them (as
    between two hook events)."""
    lines = t.encoded()
    a = fold(Fold(), (decode_line(x) for x in lines[:cut]))
    a = decode_state(encode_state(SessionState(fold=a))).fold  # type: ignore[union-attr]
    return fold(a, (decode_line(x) for x in lines[cut:]))


@settings(max_examples=examples(60, 300), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(step, max_size=10), cut=st.floats(0, 1))
def test_a_generated_session_is_titled_and_told_by_its_recaps(
        tmp_path_factory: Any, steps: list[tuple[str, Any]], cut: float) -> None:
    """Recaps and title rows in any order: the title follows the rule (the
    oracle reads the generated lines), every recap is in the story in order,
    after the turn it followed, and folding the lines in two parts gives the
    state one fold of them all does."""
    t = generated(steps)
    objs = t.lines
    note = t.note(tmp_path_factory, "test_a_generated_session_is_titled_and_told_by_its_recaps")
    fm = frontmatter(note)
    kind, text = claude_codes_title(objs)
    title = str(fm["title"])
    if kind:
        assert titled_by(title, kind, text), (title, kind, text)
    else:  # (a generated session opens with a request: a recap never renames it)
        assert title == "open the session"
    recaps = recaps_in(objs)
    if recaps:  # the generated recaps' first sentences fit a title: an alias
        assert text_first(recaps[-1][2]) in fm["aliases"], (fm["aliases"], recaps)  # type: ignore[operator]
    # the story: prompts and recaps in the order written
    story = _story(note)
    headings = [line for line in story.split("\n") if line.startswith("### ")]
    want = []
    for i, o in enumerate(objs):
        if o.get("type") == "user":
            want.append("Prompt")
        elif any(at == i for at, _, _ in recaps):
            want.append("Claude Code's recap")
    assert [h.split(" · ", 1)[1] for h in headings] == want, (headings, want)
    assert [words for _, words in _told_recaps(note)] == [w for _, _, w in recaps]
    # fold(fold(s, A), B) == fold(s, A + B)
    k = round(cut * len(objs))
    assert encode_state(SessionState(fold=folded_in_parts(t, k))) == \
        encode_state(SessionState(fold=t.state().fold))


@settings(max_examples=examples(15, 60), deadline=None)
@given(prompts=st.integers(HEAD_TURNS + TAIL_TURNS - 2, HEAD_TURNS + TAIL_TURNS + 15),
       after=st.lists(st.integers(0, HEAD_TURNS + TAIL_TURNS + 15), min_size=1, max_size=6))
def test_no_recap_is_lost_with_the_turns_a_long_story_leaves_out(
        prompts: int, after: list[int]) -> None:
    """A long session's story leaves out its middle turns; the recaps written
    among them are told after the line saying so, the others after the turn
    they followed. `after`: how many prompts came before each recap."""
    t = Transcript()
    at = sorted(min(k, prompts) for k in after)
    n = 0
    for k in range(prompts + 1):
        while n < len(at) and at[n] == k:
            t.raw({"type": "system", "subtype": "away_summary",
                   "content": f"Recap number {n} of the session. {HINT}"})
            n += 1
        if k < prompts:
            t.prompt(f"task {k}")
            t.say(f"Did task {k}.")
    dropped = max(0, prompts - HEAD_TURNS - TAIL_TURNS)
    want: list[str] = ["recap"] * at.count(0)
    for j in range(prompts):
        if dropped and HEAD_TURNS <= j < HEAD_TURNS + dropped:
            continue
        if dropped and j == HEAD_TURNS + dropped:
            want.append("gap")
            want += ["recap"] * sum(1 for k in at if HEAD_TURNS <= k <= HEAD_TURNS + dropped)
        want.append("prompt")
        if not (dropped and j == HEAD_TURNS - 1):
            want += ["recap"] * at.count(j + 1)
    story = _story(render(t.state()))
    got = ["gap" if line.startswith("*… ") and "turns in between" in line else
           "recap" if line.endswith("· Claude Code's recap") else "prompt"
           for line in story.split("\n")
           if line.startswith("### ") or (line.startswith("*… ") and "turns in between" in line)]
    assert got == want
    assert [w for _, w in _told_recaps(render(t.state()))] == \
        [f"Recap number {n} of the session." for n in range(len(at))]


@settings(max_examples=examples(15, 60), deadline=None)
@given(count=st.integers(1, 130), repeats=st.lists(st.integers(0, 129), max_size=5),
       turns=st.integers(0, 3))
def test_recaps_past_those_the_note_keeps_are_counted(
        count: int, repeats: list[int], turns: int) -> None:
    """A session with more recaps than a note keeps (some written again with
    the same words, which is one recap): the story tells the latest ones, and
    a line before them says how many earlier ones it leaves out, so that
    told + left out is every recap of the JSON."""
    t = Transcript()
    t.prompt("keep going")
    for k in range(count):
        for _ in range(1 + (k in repeats)):  # (a row written again: the same recap)
            t.raw({"type": "system", "subtype": "away_summary",
                   "content": f"Recap number {k} of the session. {HINT}"})
        if k % 40 == 39 and turns:
            turns -= 1
            t.prompt(f"more after recap {k}")
            t.say("Done.")
    t.say("All done.")
    objs = t.lines
    written = len(recaps_in(objs))
    note = render(t.state())
    told = len(_told_recaps(note))
    left = re.findall(r"^\*… (\d+) earlier recaps? by Claude Code not shown "
                      r"\(the note keeps the latest (\d+)\)\.\*$", note, re.M)
    if told == written:
        assert not left, note
    else:
        ((n_left, kept),) = left
        assert told + int(n_left) == written and int(kept) == told, (told, left, written)
        first_told = next(i for i, ln in enumerate(note.splitlines())
                          if ln.startswith("### ") and ln.endswith("Claude Code's recap"))
        said = next(i for i, ln in enumerate(note.splitlines())
                    if ln.startswith(f"*… {n_left} earlier recap"))
        assert said < first_told, note


@settings(max_examples=examples(6, 30), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.tuples(sentence, phrase), min_size=1, max_size=4),
       which=st.integers(0, 3), word=st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=5,
                                              max_size=8))
def test_every_recap_is_found_by_search_as_a_recap(
        tmp_path_factory: Any, texts: list[tuple[str, str]], which: int, word: str) -> None:
    """A word of any one recap (not only the latest) finds the session, the
    hit saying it matched a recap, in --json and in the text `vv search`
    prints."""
    key = f"zq{word}"
    which %= len(texts)
    t = Transcript()
    t.prompt("open the session")
    for n, (first, then) in enumerate(texts):
        t.say(f"Did part {n}.")
        then = f"{then} {key}" if n == which else then
        t.raw({"type": "system", "subtype": "away_summary",
               "content": f"{first}. Next: {then}. {HINT}"})
        t.prompt(f"go on with part {n + 1}")
    t.say("Done.")
    env = Env(Path(str(tmp_path_factory.mktemp("recaps"))))
    env.here = in_process("test_every_recap_is_found_by_search_as_a_recap")
    t.write(env.claude / "projects" / "-work-app" / f"{t.sid}.jsonl")
    assert env.vv("backfill").returncode == 0
    hits = json.loads(env.vv("search", "--json", key).stdout)
    assert [(h["session_id"], h["matched"]) for h in hits] == [(t.sid, "recap")], hits
    assert f"**{key}**" in hits[0]["snippet"]
    shown = env.vv("search", key).stdout.decode()
    assert "\n  recap: " in shown, shown
