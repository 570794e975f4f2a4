"""Review 15, finding 2: a session's title is what it was asked to do.

Generated sessions mix typed prompts, remarks typed when refusing a plan or a
tool call, plugin commands and fillers; the expected title is worked out here
from the generated lines (which of them is the first request), and the cut
title is checked against that request's own words: a prefix of them, cut at a
word, not ending on a word that announces the cut-off part. The corpus test
reads every session's JSON for the remarks typed at refusals and the plugin
command that opened it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import blocks, examples, json_objects, main_files
from function_words import DANGLING, FUNCTION
from test_headlines import Transcript, phrase, words
from vibe_vault import text as tx
from vibe_vault.entries import decode_line
from vibe_vault.figures import title_of
from vibe_vault.fold import fold
from vibe_vault.state import Fold, SessionState

SAID = "To tell you how to proceed, the user said:\n"
OLD_SAID = "The user provided the following reason for the rejection:  "
REFUSED = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
           "(eg. if it was a file edit, the new_string was NOT written to the file). ")


def refuse(t: Transcript, tool: str, remark: str, old: bool) -> None:
    inp: dict[str, Any] = {"plan": "# Plan\n- step"} if tool == "ExitPlanMode" else {
        "command": "rm -rf build"}
    t.call(tool, inp, "Error: rejected", REFUSED + (OLD_SAID if old else SAID) + remark,
           error=True)


def plugin(t: Transcript, name: str) -> None:
    t.prompt(f"<command-message>{name}</command-message>\n<command-name>/{name}</command-name>")


def flat(text: str) -> str:
    return " ".join(text.split()).lower()


# Ways into a request that a title leaves out, opening on the request's verb
# ("Can you please update …" → "Update …", review 26).
WAYS_IN = ("can you please", "could you please", "would you please", "will you please",
           "can you", "could you", "would you", "will you", "please", "i'd like to",
           "i would like to", "is it possible to", "is it feasible to")
WAYS_IN += tuple(f"do you think {it} {able} to" for it in ("it would be", "it is", "it's",
                                                             "it will be")
                 for able in ("possible", "feasible", "doable"))


def without_way_in(request: str) -> str:
    """The request without the way into it it opens on ("" when none), its
    first letter made a capital."""
    line = " ".join(request.split())
    way = next((w for w in sorted(WAYS_IN, key=len, reverse=True)
                if line.lower().startswith(w + " ")), "")
    rest = line[len(way) + 1:] if way else ""
    return rest[:1].upper() + rest[1:]


def holds_asked(title: str, asked: str) -> bool:
    """The title holds the words asked, or them past the way into them it opens on."""
    rest = without_way_in(asked)
    return flat(asked) in flat(title) or (bool(rest) and flat(rest) in flat(title))


def is_cut_of(title: str, request: str) -> bool:
    """The title is the request's first line whole, its first sentences, or
    its first words followed by `…` (the oracle of a good cut); of the
    request past a way into it ("Can you please"), when it opens on one."""
    first = request.splitlines()[0] if request.strip() else ""
    rest = without_way_in(first)
    if rest and len(rest.split()) >= 3 and _is_cut_of(title, rest):
        return True
    return _is_cut_of(title, request)


def _is_cut_of(title: str, request: str) -> bool:
    line = " ".join(request.splitlines()[0].split()) if request.strip() else ""
    if title in (line, line.rstrip(",;:-– ")):  # (whole, without a mark left hanging)
        return True
    body = title.removesuffix("…")
    if not line.startswith(body):
        return False
    if title.endswith("…"):
        kept = body.rstrip(",;:-– ").split(" ")
        return (line[len(body):][:1] in (" ", ",", ";", "")
                and kept[-1].lower() not in DANGLING)
    # its first sentences, whole
    return title[-1:] in ("?", "!", ".") or bool(re.match(r"[.?!]", line[len(body):]))


# Words that open a phrase of English (prepositions, conjunctions): a title
# cut before one ends a whole thought ("…millis delay| before my prompt").
PHRASE_OPENS = {"before", "after", "with", "to", "for", "of", "in", "on", "at", "by", "from",
                "into", "through", "and", "or", "but", "so", "because", "while", "when",
                "where", "which", "that", "if", "until", "since", "than", "as", "about",
                "across", "over", "under", "between", "during", "without", "within", "via",
                "onto", "upon", "whereas", "although", "though", "unless", "toward", "towards",
                "against", "along", "around", "behind", "beyond", "below", "above", "despite"}


def ends_a_clause(title: str, request: str) -> bool:
    """A title past 80 characters takes at most a half more, and only to end
    where the request's own words end a clause: at a mark (`,` `;` `:` `.`
    `?` `!`, a dash, an opening bracket) or the end of its line; or, cut
    ("…"), where a phrase ends, before a preposition or conjunction
    (review 26)."""
    body = title.removesuffix("…").rstrip(".?!")
    line = " ".join(request.splitlines()[0].split()) if request.strip() else ""
    at = line.lower().find(body.lower())
    after = line[at + len(body):] if at >= 0 else "?"
    phrase = title.endswith("…") and after[:1] == " " and (
        after.split()[0].lower() in PHRASE_OPENS)
    return len(title) <= 120 and (after == "" or phrase or re.match(
        r"[,;:.?!]|\s[-–—(\[]", after) is not None)


# A plugin's name that reads as a secret's name (`pw:aaaa`, `token:x`) is
# hidden as `name: value` anywhere; the titles are checked on the others.
SECRET_NAMES = {"pw", "pwd", "pass", "passwd", "password", "secret", "token", "key", "apikey",
                "auth", "credential", "credentials", "pin", "cookie", "session"}
plugin_name = st.tuples(words.filter(lambda w: w not in SECRET_NAMES), words).map(":".join)
step = st.one_of(
    st.tuples(st.just("prompt"), phrase),
    st.tuples(st.just("filler"), st.sampled_from(["ok", "go ahead", "continue", "yes"])),
    st.tuples(st.just("refuse"), phrase),
    st.tuples(st.just("refuse-plan"), phrase),
    st.tuples(st.just("plugin"), plugin_name),
)


@settings(max_examples=examples(40, 120), deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=6), old=st.booleans(),
       long_prompt=st.lists(words, min_size=12, max_size=30).map(" ".join))
def test_the_title_is_the_first_request_never_a_refusal_remark(
        steps: list[tuple[str, str]], old: bool, long_prompt: str) -> None:
    t = Transcript()
    expected = ""
    asked = False  # a request (a counted prompt) seen before
    opened_by = ""
    for n, (kind, value) in enumerate(steps):
        value = long_prompt if kind == "prompt" and n == len(steps) - 1 else value
        if kind in ("prompt", "filler"):
            t.prompt(value)
            if kind == "prompt" and not expected:
                expected = value
            elif kind == "prompt" and opened_by and expected == opened_by and not asked:
                expected = f"{opened_by}: {value}"
            asked = True
        elif kind.startswith("refuse"):
            refuse(t, "ExitPlanMode" if kind == "refuse-plan" else "Bash", value, old)
            asked = True
        elif kind == "plugin":
            if n == 0:
                # (named without the plugin's name before it: review 26)
                expected = opened_by = value.rsplit(":", 1)[-1]
            plugin(t, value)
        t.say("Noted.")
    state = t.state()
    title = title_of(state)
    remarks = [v for k, v in steps if k.startswith("refuse")]
    requests = {v for k, v in steps if k == "prompt"} | {long_prompt}
    if expected:
        # (a command named by an empty word, `/she`, leads in like "so:" and is
        # left out as the title's lead-in: the request after it, capitalised)
        rest = expected.removeprefix(f"{opened_by}: ") if opened_by else expected
        bare = rest[:1].upper() + rest[1:]
        assert is_cut_of(title, expected) or (
            rest != expected and opened_by.lower() in FUNCTION and is_cut_of(title, bare)), (
            title, expected)
        assert len(title) <= 80 or ends_a_clause(title, expected), title
    for remark in remarks:
        if tx.title_line(remark, 80) not in {tx.title_line(r, 80) for r in requests}:
            assert title != tx.title_line(remark, 80), title


@settings(max_examples=examples(200, 600), deadline=None)
@given(text=st.lists(st.one_of(words, st.sampled_from(
    ["the", "of", "a", "to", "and", "x.", "why?", "now,", "-", "e.g.,", "v1.2",
     *sorted(DANGLING)])),
    min_size=1, max_size=40).map(" ".join),
       greeting=st.sampled_from(["", "Hey Claude, ", "hi! ", "Hello claude: "]))
# (found at 6,000 examples: the cut stopped dropping function words at its
# third word, "aa the of…"; a run of markers was left after the third)
@example(text="aa the of a to and with for in on at by my your the a an of the a to and with "
              "for in on at by", greeting="")
@example(text="now, now, now, aa", greeting="Hey Claude, ")
@example(text=" ".join(["the", "of", "a", "to", "and"] * 6), greeting="")
# (drawn on main 286a540: a whole request ending on a comma; a later question
# asking why of the sentence before)
@example(text="aa aa aa aa aa aa aaaaaaaa aaaaaaaaa aaaaaaaaa aaaaaaaaa aaaaaaaaa aaaaaaaaa now,",
         greeting="")
@example(text="aa aa aa aa aa aa aa aa aa aaa aaaaa aaaaaaaa aaaaaaaaa aaaaaaaaa x. aaaaaaa why?",
         greeting="")
def test_a_cut_title_reads_as_the_start_of_the_request(text: str, greeting: str) -> None:
    """The title is a cut of the request's words from their start, after a
    greeting and discourse markers ("now,", "ok. now,"); or, when that cut reads as no
    words (not most of it prose), from the start of a later sentence of it."""
    title = tx.title_line(greeting + text, 80)
    assert len(title) <= 80 or ends_a_clause(title, greeting + text), title
    # (one marker or a run of them: "now, so, fix it" asks to fix it)
    marker = re.match(r"(?i)(?:(?:now|so|ok|okay|well|right|alright)\s*[,!.]\s*)+(?=\S)", text)
    request = text[marker.end():] if marker else text
    request = request[0].upper() + request[1:] if greeting or marker else request
    if is_cut_of(title, request):
        return
    body = title.removesuffix("…")
    if title.endswith("…") and request.startswith(body) and all(
            w.lower().strip(",;:-–.?!") in FUNCTION or not w.strip(",;:-–.?!")
            for w in body.split()):
        return  # (only function words up to the cut: none could end it)
    tokens = title.split()
    prose = [w for w in tokens if re.fullmatch(r"[^\W\d_][\w'-]*[,.;:!?…)]*", w)]
    assert len(prose) * 2 > len(tokens), (title, request)
    later = [request[m.end():] for m in re.finditer(r"[.?!]+\s+(?=\S)", request)]
    if any(is_cut_of(title, s) or is_cut_of(title, s[:1].upper() + s[1:]) for s in later):
        return
    # Or, when words of it ask for something ("…, let's move it", "…, what
    # is it?", "…, set the flag") and the title from its start would not hold
    # them (issue 29; test_request_titles checks which): a cut of the request
    # from the start of one of its words.
    ask = [request[m.start():] for m in re.finditer(r"(?<=\s)\S", request)]
    if any(is_cut_of(title, s[:1].upper() + s[1:]) for s in ask):
        return
    # Or a later request that asks about the sentence before it ("… x. why?"):
    # said first, then a colon and that sentence's words (test_title_context).
    asked, _, about = title.partition(": ")
    assert about and any(is_cut_of(asked, s[:1].upper() + s[1:]) for s in later) and (
        flat(about.removesuffix("…")).rstrip(".") in flat(request)), (title, request)


def test_a_plugin_command_names_the_session_it_opened() -> None:
    """`/claude-md-management:claude-md-improver`, then plans refused with
    remarks, then an instruction: the plugin's command is the title."""
    t = Transcript()
    plugin(t, "claude-md-management:claude-md-improver")
    t.say("Starting the audit.")
    refuse(t, "ExitPlanMode", "agents.md is just a symlink", old=False)
    t.say("Revised.")
    t.prompt("go")
    t.prompt("can we rename the check-status jobs?")
    t.say("Renamed.")
    assert title_of(t.state()) == "claude-md-improver"  # (not its plugin's name: review 26)


def _remark(content: object) -> str:
    text = content if isinstance(content, str) else " ".join(
        b.get("text", "") for b in content if isinstance(b, dict)) if isinstance(
        content, list) else ""
    for said in (SAID, OLD_SAID):
        if said in text:
            return text.split(said, 1)[1].strip()
    return ""


@pytest.mark.corpus
def test_no_corpus_session_is_titled_by_a_refusal_remark_and_plugins_title_theirs() -> None:
    """From each corpus session's JSON: the remarks typed at a refusal, and a
    plugin command as the first thing the user sent. No title is a remark's
    first line; a session opened by a plugin command and given no title by
    Claude Code is titled by that command, and what its skill's text right
    after it says it does (else its first commit's subject)."""
    checked = opened = committed = described = 0
    for path in main_files():
        objs = json_objects(path)
        if not any(o.get("type") == "assistant" for o in objs):
            continue
        remarks: list[str] = []
        first_user: str | None = None
        named = any(o.get("type") in ("custom-title", "ai-title") for o in objs)
        uuids = {o.get("uuid") for o in objs}
        named = named or any(o.get("type") == "summary" and o.get("leafUuid") in uuids
                             for o in objs)
        for o in objs:
            if o.get("type") != "user" or o.get("isMeta") or o.get("isSidechain"):
                continue
            content = (o.get("message") or {}).get("content")
            if first_user is None and isinstance(content, str) and content.strip():
                first_user = content
            for b in blocks(o):
                if b.get("type") == "tool_result" and b.get("is_error"):
                    remark = _remark(b.get("content"))
                    if remark:
                        remarks.append(" ".join(remark.splitlines()[0].split()))
        state = SessionState(session_id="x", project="p",
                             fold=fold(Fold(), (decode_line(json.dumps(o).encode())
                                                for o in objs)))
        title = title_of(state)
        for remark in remarks:
            assert title != tx.title_line(remark, 80), (path, title)
            checked += 1
        m = re.search(r"<command-name>/([\w-]+:[\w:-]+)</command-name>", first_user or "")
        if m and not named and "<command-args>" not in (first_user or ""):
            # (by the command's own name, not the plugin's before it: review 26)
            command = m.group(1).rsplit(":", 1)[-1]
            assert title.startswith(command) and not title.startswith(
                m.group(1).split(":", 1)[0] + ":"), (path, title)
            opened += 1
            # With a commit, what came of it follows: its first subject as git
            # printed it (`[branch sha] subject`) in the session (review 19 #3).
            printed = [g.group(1) for o in objs for b in blocks(o)
                       if b.get("type") == "tool_result"
                       for g in [re.search(r"^\[[^\]\s]+(?: \([^)]*\))? [0-9a-f]{7,40}\] (.+)$",
                                           json.dumps(b.get("content"))[1:-1]
                                           .replace("\\n", "\n"), re.M)] if g]
            # Its skill's text, right after it, says what was asked: the
            # skill's first line of prose under its heading (review 27 #4).
            at = next(k for k, o in enumerate(objs) if o.get("type") == "user"
                      and m.group(0) in json.dumps((o.get("message") or {}).get("content")))
            skill = next((o for o in objs[at + 1:at + 3] if o.get("isMeta") and "Base directory"
                          " for this skill:" in str((o.get("message") or {}).get("content"))),
                         None)
            recapped = any(o.get("type") in ("away_summary", "task-summary")
                           or o.get("subtype") == "away_summary" for o in objs)
            if skill is not None and not recapped:
                content = (skill.get("message") or {}).get("content")
                text = content if isinstance(content, str) else " ".join(
                    b.get("text", "") for b in content if isinstance(b, dict))
                prose = next(ln.strip() for ln in text.splitlines()[1:]
                             if ln.strip() and not ln.lstrip().startswith("#"))
                assert title.lower().startswith(f"{command}: {prose[:20]}".lower()), (
                    path, title)
                described += 1
            elif printed and not recapped:
                assert title.startswith(f"{command}: {printed[0][:20]}"), (path, title)
                committed += 1
    assert checked and opened and described  # the corpus holds each kind


@settings(max_examples=examples(30, 120), deadline=None)
@given(name=st.sampled_from(["claude-md-management:claude-md-improver", "superpowers:review",
                             "acme:tidy-up"]),
       subjects=st.lists(st.lists(st.text(alphabet="abcdefghij", min_size=2, max_size=8),
                                  min_size=2, max_size=8).map(" ".join),
                         max_size=3),
       follow=st.sampled_from(["", "go", "continue"]))
def test_a_bare_plugin_command_is_titled_with_what_came_of_it(
        name: str, subjects: list[str], follow: str) -> None:
    """Review 19 #3 (b74fb8cb): a session opened by a plugin's command with no
    words after it, then only fillers, is titled by the command and the
    subject of its first commit (the oracle: the commit lines written here),
    cut as a title is; with no commit, by the command alone."""
    t = Transcript()
    plugin(t, name)
    t.say("Starting.")
    if follow:
        t.prompt(follow)
    for k, subject in enumerate(subjects):
        t.bash(f'git commit -m "{subject}"', f"[main {k:07x}] {subject}\n 1 file changed\n")
    t.say("Done.")
    title = title_of(t.state())
    name = name.rsplit(":", 1)[-1]  # (the command's own name, not its plugin's: review 26)
    if not subjects:
        assert title == name, title
        return
    assert title.startswith(f"{name}: "), title
    assert is_cut_of(title.removeprefix(f"{name}: "), subjects[0]) or \
        is_cut_of(title, f"{name}: {subjects[0]}"), (title, subjects)


def skill_text(t: Transcript, heading: str, about: str, folder: str = "/p/skills/x") -> None:
    """The text of a skill as Claude Code writes it after the command that runs it."""
    t.raw({"type": "user", "isMeta": True, "message": {"role": "user", "content": [
        {"type": "text", "text": f"Base directory for this skill: {folder}\n\n# {heading}\n\n"
                                 f"{about}\n\n## Steps\n\n1. Do it."}]}})


@settings(max_examples=examples(30, 120), deadline=None)
@given(name=st.sampled_from(["claude-md-management:claude-md-improver", "superpowers:review",
                             "acme:tidy-up"]),
       about=st.lists(st.text(alphabet="abcdefghij", min_size=2, max_size=8), min_size=2,
                      max_size=14).map(lambda w: " ".join(w).capitalize() + "."),
       subject=st.lists(st.text(alphabet="klmnop", min_size=2, max_size=8), min_size=2,
                        max_size=5).map(" ".join),
       follow=st.sampled_from(["", "go", "continue"]), later=st.booleans())
def test_a_bare_plugin_command_is_titled_with_what_its_skill_says_it_does(
        name: str, about: str, subject: str, follow: str, later: bool) -> None:
    """Review 27 #4 (b74fb8cb): a session opened by a plugin's command with no
    words after it is titled by the command and its skill's first line of
    prose, in the skill author's words, not by Claude's commit subject. A
    skill's text that comes later (a skill Claude ran itself) says nothing of
    what the user asked: the commit's subject then, as before. The oracle:
    the generated words."""
    t = Transcript()
    plugin(t, name)
    if not later:
        skill_text(t, "Some Skill", about)
    t.say("Starting.")
    if follow:
        t.prompt(follow)
    if later:
        t.call("Skill", {"skill": "other"}, None, "Launching skill: other")
        skill_text(t, "Other Skill", about)
    t.bash(f'git commit -m "{subject}"', f"[main 1a2b3c4] {subject}\n 1 file changed\n")
    t.say("Done.")
    title = title_of(t.state())
    command = name.rsplit(":", 1)[-1]
    said = subject if later else about[:1].lower() + about[1:]
    assert title.startswith(f"{command}: "), title
    assert is_cut_of(title, f"{command}: {said}"), (title, said)
