"""Plans put to the user again and again (review 15, findings 1 and 9): a plan
is said to be "unchanged" only when its text is the same as the plan before
it; a changed plan that was not approved shows the lines it changed; the
approved plan is always in the note whole.

Generated: a first plan, then versions made from it by inserting, deleting,
changing or keeping lines, each put to the user (the call's own `plan`, or the
plan the approval's result carries), rejected, the last maybe approved. The
oracle is the generated plans' texts and answers; a corpus test takes them
from every corpus session's ExitPlanMode calls.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, main_files
from conftest import json_objects as objects
from test_headlines import Transcript
from vibe_vault.render import render

word = st.text(alphabet="abcdefghij ", min_size=1, max_size=12).map(str.strip).filter(bool)
plan_line = st.tuples(st.sampled_from(["", "## ", "- ", "1. "]), word).map("".join)
plan_lines = st.lists(plan_line, min_size=1, max_size=8)
edit = st.tuples(st.sampled_from(["insert", "delete", "change", "keep"]),
                 st.integers(0, 20), plan_line)


def _next(lines: list[str], edits: list[tuple[str, int, str]]) -> list[str]:
    out = list(lines)
    for what, at, line in edits:
        i = at % (len(out) + 1)
        if what == "insert":
            out.insert(i, line)
        elif what == "delete" and len(out) > 1 and i < len(out):
            del out[i]
        elif what == "change" and i < len(out):
            out[i] = line
    return out


def _plans_told(note: str) -> list[tuple[str, str]]:
    """Each plan line of the story, with the folded text under it (unquoted)."""
    story = note.split("\n## Story\n", 1)[1].split("\n## ", 1)[0]
    told: list[tuple[str, str]] = []
    lines = story.split("\n")
    for i, ln in enumerate(lines):
        if ln.startswith(("- Plan rejected", "- Plan approved", "- Proposed a plan")):
            body: list[str] = []
            if i + 1 < len(lines) and lines[i + 1].startswith("  > [!abstract]-"):
                for more in lines[i + 2:]:
                    if not more.startswith("  >"):
                        break
                    body.append(re.sub(r"^\\(?=#)", "", more[4:] if more.startswith("  > ")
                                       else ""))
            told.append((ln, "\n".join(body)))
    return told


def _counted(line: str) -> tuple[int, int] | None:
    m = re.search(r"\(\+(\d+) −(\d+) lines? from the plan of", line)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _plain(s: str) -> str:
    """Text as read, whatever Markdown escapes the note put in it."""
    return re.sub(r"\\(?=[!-/:-@[-`{-~])", "", s)


def _same_words(shown: str, plan: str) -> bool:
    """Whether the note shows a plan's words, in order: a link shows as its
    label, with its target or not (the note makes links inert), so the words
    of link targets are left out of both."""
    link = r"\[([^\[\]\n]+)\]\(([^()\s]+)\)"
    targets = {w for m in re.finditer(link, plan) for w in re.findall(r"\w+", m.group(2))}
    return [w for w in re.findall(r"\w+", shown) if w not in targets] == \
        [w for w in re.findall(r"\w+", plan) if w not in targets]


def check_plans(plans: list[tuple[str, str]], told: list[tuple[str, str]],
                exact: bool = True) -> None:
    """`plans`: (text, "approved"/"rejected") as the JSON has them, in order;
    `told`: the note's plan lines with their folded text; `exact`: False for
    plans of any text (the corpus'), whose words are compared where the note
    shows them whole (their links, HTML and such made inert)."""
    assert len(told) == len(plans)
    plans = [(_plain(p), a) for p, a in plans]
    told = [(ln, _plain(b)) for ln, b in told]
    for k, ((plan, answer), (line, body)) in enumerate(zip(plans, told, strict=True)):
        assert line.startswith("- Plan approved" if answer == "approved" else "- Plan rejected")
        before = plans[k - 1][0] if k else None
        unchanged = before is not None and plan == before
        assert ("unchanged)" in line) == unchanged, (line, plan, before)
        if answer == "approved":
            # the plan carried out can be read whole: here, or where it was shown whole
            whole = body if body else next(
                b for (p, _), (ln, b) in zip(plans[:k][::-1], told[:k][::-1], strict=True)
                if b and not re.match(r"`{3,}diff\n", b))
            assert whole == plan or (not exact and _same_words(whole, plan))
            continue
        if before is None:
            assert "from the plan of" not in line
            assert body == plan or (not exact and _same_words(body, plan))
            continue
        if unchanged:
            assert body == ""
            continue
        counts = _counted(line)
        assert counts is not None, line
        fence = re.match(r"(`{3,})diff\n", body)
        assert fence is not None and body.endswith("\n" + fence.group(1)), body
        added = [ln[2:] for ln in body.split("\n")[1:-1] if ln.startswith("+")]
        removed = [ln[2:] for ln in body.split("\n")[1:-1] if ln.startswith("-")]
        old, new = Counter(before.split("\n")), Counter(plan.split("\n"))
        if "[cut at " in body:  # a long change, cut: what is shown is of it
            added, removed = added[:-1], removed[:-1]  # (the last line is cut)
            assert len(added) <= counts[0] and len(removed) <= counts[1]
        else:
            assert counts == (len(added), len(removed))
            # The changed lines take the plan before to this one, line for line.
            assert old - Counter(removed) + Counter(added) == new
        assert not Counter(removed) - old and not Counter(added) - new


@settings(max_examples=examples(30, 80), deadline=None)
@given(first=plan_lines, steps=st.lists(st.lists(edit, max_size=3), min_size=1, max_size=5),
       approved=st.booleans(), in_result=st.booleans())
def test_each_plan_is_told_against_the_one_before(
        first: list[str], steps: list[list[tuple[str, int, str]]], approved: bool,
        in_result: bool) -> None:
    versions = [first]
    for edits in steps:
        versions.append(_next(versions[-1], edits))
    t = Transcript()
    t.prompt("plan the export")
    plans: list[tuple[str, str]] = []
    for k, lines in enumerate(versions):
        plan = "\n".join(lines)
        last = k == len(versions) - 1
        if last and approved:
            inp: dict[str, Any] = {} if in_result else {"plan": plan}
            t.call("ExitPlanMode", inp, {"plan": plan, "isAgent": False},
                   "User has approved your plan.")
            plans.append((plan, "approved"))
        else:
            t.call("ExitPlanMode", {"plan": plan}, "Error: rejected",
                   "The user doesn't want to proceed with this tool use.", error=True)
            plans.append((plan, "rejected"))
    t.say("Done.")
    check_plans(plans, _plans_told(render(t.state())))


@pytest.mark.corpus
def test_every_corpus_plan_is_told_against_the_one_before(tmp_path: Any) -> None:
    """Every corpus session whose ExitPlanMode calls carry their plan: its
    plans and answers from the JSON, against the note."""
    from conftest import Env

    sessions: dict[str, list[tuple[str, str]]] = {}
    files = []
    for main in main_files():
        calls: dict[str, str] = {}
        plans: list[tuple[str, str]] = []
        for o in objects(main):
            msg = o.get("message")
            content = msg.get("content") if isinstance(msg, dict) else None
            if o.get("isSidechain") or not isinstance(content, list):
                continue
            for b in content:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "tool_use" and b.get("name") == "ExitPlanMode":
                    plan = (b.get("input") or {}).get("plan")
                    if isinstance(plan, str) and plan.strip():
                        calls[str(b.get("id"))] = plan.strip()
                elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                    plan = calls.pop(str(b.get("tool_use_id")))
                    result = o.get("toolUseResult")
                    if isinstance(result, dict) and isinstance(result.get("plan"), str) \
                            and result["plan"].strip():
                        plan = result["plan"].strip()
                    plans.append((plan, "rejected" if b.get("is_error") else "approved"))
        if plans and not calls:
            sid = next(str(o["sessionId"]) for o in objects(main) if o.get("sessionId"))
            sessions[sid] = plans
            files.append(main)
    assert sessions, "the corpus has sessions in plan mode"
    env = Env(tmp_path)
    assert env.vv("backfill", *map(str, files)).returncode == 0
    notes = {n.split("session_id: ", 1)[1].split("\n", 1)[0].strip('"'): n
             for n in env.notes().values() if "session_id: " in n}
    checked = 0
    for sid, plans in sessions.items():
        note = notes.get(sid)
        if note is None or "turns in between are not shown" in note:
            continue
        check_plans(plans, _plans_told(note), exact=False)
        checked += 1
    assert checked
