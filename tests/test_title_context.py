"""Review 25 (N11, L6, R23-3): a title says the request, with what it asks
about, and not the words that only lead in to it.

"I've noticed … there's a few hundred millis delay before my shell prompt
returns. I'd like to add a flame graph or tracing or something to find out
why." was titled by its request alone, ending on "why"; "There's isn't much
to see here, mostly one idea about how to organize …" by its lead-in.
Generated prompts put a request that asks about the sentence before it
("… find out why", "can you fix it?") after a generated statement, and
generated topics after a lead-in clause; the oracle is the generated words:
the request's verb and object, the statement's words, each run of the title
the prompt's words in order, and no title ending on a function word. Over
the corpus, every session Claude Code gave no title of its own is checked
against its first request read from the JSON.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, json_objects, main_files
from test_headlines import Transcript, words
from test_request_titles import ASKING, FUNCTION_WORDS, flat, in_order, said
from test_ticket_titles import ticket_titles
from vibe_vault.entries import decode_line
from vibe_vault.figures import title_of
from vibe_vault.fold import fold
from vibe_vault.state import Fold, SessionState

plain = words.filter(lambda w: w not in ASKING and w not in FUNCTION_WORDS)
# Requests that ask about the sentence before them: (form, verb, tail) where
# the tail ends the request on the words that point back.
ASKS = [("I'd like to", "add", "to find out why"), ("Can you", "explain", "and tell me why"),
        ("Please", "trace", "to see how"), ("We should", "fix", "before we ship it"),
        ("Could you", "find", "and fix it")]
STATES = ["I've noticed {}", "There's {}", "It seems {}", "We have {}", "The {}"]
LEAD_INS = ["There isn't much to see here", "I think there's some progress",
            "Ok, so there's isn't much to see here", "Not much to see yet"]
HEDGES = ["", "mostly ", "basically "]


def last_word(title: str) -> str:
    return title.removesuffix("…").rstrip(" .?!").split()[-1].strip(",;:()\"'`").lower()


@settings(max_examples=examples(60, 300), deadline=None)
@given(state=st.sampled_from(STATES), what=st.lists(plain, min_size=3, max_size=12),
       ask=st.sampled_from(ASKS), obj=st.lists(plain, min_size=1, max_size=5),
       mark=st.sampled_from([".", "?", ""]))
def test_a_request_asking_about_the_sentence_before_it_is_told_with_it(
        state: str, what: list[str], ask: tuple[str, str, str], obj: list[str],
        mark: str) -> None:
    """The title holds the request's verb and the first word of its object;
    when it would end on a word that asks about the sentence before ("why",
    "it"), that sentence's words follow it, as room allows; every run of
    the title (around the ": " that joins them) is the prompt's words in
    order; it never ends on a function word; it is at most 100 characters."""
    form, verb, tail = ask
    statement = state.format(" ".join(what))
    prompt = f"{statement}. {form} {verb} the {' '.join(obj)} {tail}{mark}"
    t = Transcript()
    t.prompt(prompt)
    t.say("On it.")
    title = title_of(t.state())
    assert len(title) <= 120, title  # (a thought run on to its end: review 26)
    assert f"{verb} the {obj[0]}" in flat(title), (title, prompt)
    assert all(in_order(piece, prompt) for piece in title.split(": ")), (title, prompt)
    asked = f"{verb} the {' '.join(obj)} {tail}"
    if flat(title).rstrip(".?!") != flat(prompt).rstrip(".?!") and len(asked) + 14 <= 100:
        # (a whole prompt may end as its user ended it, and a request too long
        # to leave a dozen characters for the words it asks about is said
        # alone; a title made of them otherwise may not)
        assert last_word(title) not in FUNCTION_WORDS | {"why", "how"}, (title, prompt)


@settings(max_examples=examples(60, 300), deadline=None)
@given(lead=st.sampled_from(LEAD_INS), join=st.sampled_from([", ", ": ", " - "]),
       hedge=st.sampled_from(HEDGES), topic=st.lists(plain, min_size=4, max_size=20))
def test_a_lead_in_clause_is_not_the_title(lead: str, join: str, hedge: str,
                                           topic: list[str]) -> None:
    """A first clause that says nothing of the work ("There isn't much to
    see here", "I think there's some progress") is left out: the title
    opens on the words after it (and a hedge, "mostly", before them)."""
    prompt = f"{lead}{join}{hedge}{' '.join(topic)}."
    t = Transcript()
    t.prompt(prompt)
    t.say("Sure.")
    title = title_of(t.state())
    assert flat(title).startswith(topic[0].lower()), (title, prompt)
    assert in_order(title, prompt) and len(title) <= 120, (title, prompt)


def own_titled(objs: list[dict[str, object]]) -> bool:
    return any(o.get("type") in ("custom-title", "ai-title", "summary", "away_summary")
               or o.get("subtype") in ("away_summary", "task_summary") for o in objs)


@pytest.mark.corpus
def test_corpus_titles_say_the_first_request_in_its_words() -> None:
    """Every corpus session without a title of its own: each run of its title
    is words of a prompt the user typed, in order; a title cut from a longer
    line ends on no function word nor on "why"; and it is not a lead-in
    clause alone (the first request's words after it are in the title)."""
    checked = lead_ins = 0
    for path in main_files():
        objs = json_objects(path)
        if not any(o.get("type") == "assistant" for o in objs) or own_titled(objs):
            continue
        typed = [s for s in (said(o) for o in objs if o.get("type") == "user"
                             and not o.get("isMeta") and not o.get("isSidechain")) if s]
        commands = [" ".join(re.sub(r"<[^>]*>", " ", m).split()).lstrip("/")
                    for o in objs if o.get("type") == "user"
                    for m in re.findall(r"<command-name>[^<]*</command-name>[\s\S]*?"
                                        r"(?:<command-args>[^<]*</command-args>|$)",
                                        str((o.get("message") or {}).get("content")))]
        typed += [c.replace(":", " ") for c in commands]
        state = SessionState(session_id="x", project="p", fold=fold(
            Fold(), (decode_line(json.dumps(o).encode()) for o in objs)))
        title = title_of(state)
        plugin = bool(commands) and ":" in commands[0].split(" ")[0]
        if (title.startswith("Session ") or not typed or " (after `" in title
                or ":" in title.split(": ")[0] or plugin):
            continue  # (a plugin's command opening the session: test_titles' rule)
        checked += 1
        pieces = [p for p in title.split(": ") if p.strip(" …")]
        # (a ticket the first request names by id only is said with its title
        # as a tool of the session returned it: test_ticket_titles)
        tickets = ticket_titles(objs, typed[0])
        assert all(any(in_order(p, s) or in_order(p, re.sub(r" \([^()]*\)", "", s))
                       for s in [*typed, *tickets]) or ":" in p for p in pieces), (path, title)
        line = " ".join(typed[0].splitlines()[0].split())
        if flat(title.removesuffix("…")).rstrip(".?!") != flat(line).rstrip(".?!"):
            assert last_word(title) not in FUNCTION_WORDS | {"why"}, (path, title)
        lead = re.match(r"(?i)(?:ok,? so )?(?:there(?:'s| is) isn't|there isn't|i think there's"
                        r" some progress)[^,:]*[,:]\s+", line)
        if lead is not None:
            lead_ins += 1
            assert not flat(title).startswith(flat(lead.group())[:12]), (path, title)
    assert checked >= 20 and lead_ins >= 1, (checked, lead_ins)  # 03eb5929


# Chinese and Japanese words without a request's form among them.
han = st.text(alphabet="代码模块命名规则文档测试服务器日志数据库配置问题现在没有统一方式看起来很乱新同事经常",
              min_size=2, max_size=8)


@settings(max_examples=examples(60, 300), deadline=None)
@given(statements=st.lists(han, min_size=8, max_size=16), what=han,
       form=st.sampled_from([("请", "。"), ("帮我", "。"), ("", "を整理してください。"),
                             ("", "を直してください。")]),
       comma=st.sampled_from(["，", "、"]))
def test_a_request_after_statements_in_chinese_or_japanese_titles_the_session(
        statements: list[str], what: str, form: tuple[str, str], comma: str) -> None:
    """A sentence ends at `。` `？` `！` with no space after it: a request after
    statements too long for a title is its title (a sentence picker keyed to
    `. ? !` before a space kept the statements and cut the request off)."""
    opening, closing = form
    statement = comma.join(statements) + "。"
    request = f"{opening}{what}{closing}"
    prompt = statement + request
    t = Transcript()
    t.prompt(prompt)
    t.say("好的。")
    title = title_of(t.state())
    assert request.rstrip("。") in title, (title, prompt)
    assert title.removesuffix("…") in prompt or title.rstrip("。") in prompt, (title, prompt)
