"""What a note says of branches, replies to refusals, runs of edits, tests a
hook ran and code in a compaction's summary (review 4, findings 8 to 12).

Inputs are generated; each oracle is what was put in.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Env, frontmatter, json_objects, main_files
from test_headlines import Transcript
from vibe_vault.fold.commands import kind_of
from vibe_vault.markdown import quote
from vibe_vault.render import render

word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9)
phrase = st.lists(word, min_size=2, max_size=8).map(" ".join)
branch = st.sampled_from(["main", "hide-progress-messages", "feat/x", "HEAD"])


@settings(max_examples=60, deadline=None)
@given(on=st.lists(branch, min_size=1, max_size=6))
def test_branches_name_every_branch_the_session_was_on(on: list[str]) -> None:
    """Finding 9: `branch` is the last one (null on a detached HEAD) and
    `branches` lists those it was on whenever `branch` alone does not say
    them all (2beb2d34: 183 entries on hide-progress-messages, ended on HEAD,
    said `branch: null` and nothing else)."""
    t = Transcript()
    t.on_branches(on)
    head = render(t.state()).split("\n---\n", 1)[0]
    fm = frontmatter(head + "\n---\n")
    last = None if on[-1] == "HEAD" else on[-1]
    assert fm["branch"] == last
    were = list(dict.fromkeys(b for b in on if b != "HEAD"))
    assert fm.get("branches") == (were if were not in ([], [last]) else None), head


@settings(max_examples=40, deadline=None)
@given(said=phrase, reply=phrase, last=phrase)
def test_claudes_reply_to_words_given_when_refusing_is_told(said: str, reply: str,
                                                           last: str) -> None:
    """Finding 9: "is it effective to tackle this as an agent team?" given when
    rejecting a plan, Claude's "No — too small …", then the plan again: the
    reply is under the prompt, the turn's last words at its end."""
    t = Transcript()
    t.prompt("plan the change")
    message = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
               "(eg. if it was a file edit, the new_string was NOT written to the file). To tell "
               f"you how to proceed, the user said:\n{said}")
    t.call("ExitPlanMode", {"plan": "1. do it"}, f"Error: {message}", message, error=True)
    t.say(f"No, {reply}.")
    t.call("ExitPlanMode", {"plan": "1. do it"}, None, "User has approved your plan.")
    t.say(f"Done: {last}.")
    note = render(t.state())
    at = note.index(f"> {said}\n")
    assert note.index(f"> **Claude:** No, {reply}.", at) < note.index("Plan approved", at) \
        < note.index(f"> **Claude:** Done: {last}.", at)


@settings(max_examples=40, deadline=None)
@given(edits=st.lists(st.tuples(st.integers(1, 4), st.integers(1, 4)), min_size=1, max_size=5))
def test_a_run_of_edits_says_its_figures_are_their_sum(edits: list[tuple[int, int]]) -> None:
    """Finding 8: several edits of one file in a row are one story line whose
    figures are the edits' sum, and it says so ("(3 changes, +7 −2 in all)"),
    not "(+7 −2) ×3", read as each edit's."""
    t = Transcript()
    t.prompt("tidy the workflow")
    body = [f"line {k}" for k in range(40)]
    path = "/work/app/ci.yml"
    t.call("Read", {"file_path": path}, {"type": "text", "file": {
        "filePath": path, "content": "\n".join(body) + "\n"}}, "\n".join(body))
    for n, (removed, added) in enumerate(edits):
        old = "\n".join(body[:removed])
        new = "\n".join(f"new {n} {k}" for k in range(added))
        t.call("Edit", {"file_path": path, "old_string": old, "new_string": new},
               {"filePath": path, "oldString": old, "newString": new}, "updated")
        body = new.split("\n") + body[removed:]
    note = render(t.state())
    plus, minus = sum(a for _, a in edits), sum(r for r, _ in edits)
    if len(edits) == 1:
        assert f"Edited `ci.yml` (+{plus} −{minus})" in note
    else:
        assert f"Edited `ci.yml` ({len(edits)} changes, +{plus} −{minus} in all)" in note
    assert " ×" not in note


def test_act_running_a_test_job_is_a_test_run() -> None:
    """Finding 10: `act -j test` runs a workflow's test job (fe869ecb)."""
    assert kind_of("act --container-architecture linux/amd64 -j test") == "test"
    assert kind_of("act -j lint") == "command" and kind_of("act -l") == "command"


HOOK = "\x1b[1mStop\x1b[22m [{command}] completed successfully: {output}"


@settings(max_examples=30, deadline=None)
@given(passed=st.integers(1, 500), failed=st.integers(0, 3), secs=st.floats(0.1, 99),
       runner=st.sampled_from(["uv run pytest 2>&1", "pytest -q", "npm test"]))
def test_tests_a_stop_hook_ran_are_told(passed: int, failed: int, secs: float,
                                        runner: str) -> None:
    """Finding 10: Claude Code 1.0.x writes a Stop hook's run as a system line,
    its output after it (0d3a8e6f: "uv run pytest … 138 passed in 43.89s"):
    the story tells it, and the summary's tests are its result."""
    t = Transcript()
    t.prompt("fix the filter")
    t.say("Fixed.")
    summary = f"{failed} failed, {passed} passed" if failed else f"{passed} passed"
    output = f"collected {passed + failed} items\n\n==== {summary} in {secs:.2f}s ===="
    t.raw({"type": "system", "content": HOOK.format(command=runner, output=output),
           "isMeta": False, "level": "info"})
    note = render(t.state())
    word = "failed" if failed else "passed"
    assert f"- Stop hook: `{runner}` — {word}" in note
    assert f"tests {'failing' if failed else 'passed'} at the last run" in note


@pytest.mark.corpus
def test_corpus_stop_hook_test_runs_are_told(env: Env) -> None:
    """Through `vv backfill`, every corpus session with a 1.0.x Stop hook that
    ran tests: the note tells each such run."""
    seen = 0
    for main in main_files():
        runs = []
        for o in json_objects(main):
            c = o.get("content")
            m = re.match(r"^\x1b\[1mStop\x1b\[22m \[(.+?)\] completed successfully", c) \
                if o.get("type") == "system" and isinstance(c, str) else None
            if m and kind_of(m.group(1)) == "test":
                runs.append(m.group(1))
        if not runs:
            continue
        dst = env.claude / "projects" / f"-p{seen}" / main.name
        dst.parent.mkdir(parents=True)
        dst.write_bytes(main.read_bytes())
        seen += 1
    assert seen >= 1
    assert env.vv("backfill").returncode == 0
    notes = "\n".join(env.notes().values())
    assert notes.count("- Stop hook: `") >= seen


code_line = st.sampled_from(["const AgentTrailerKey = \"Entire-Agent\"", "x := [a](b)",
                             "<b>not html</b>", "# not a heading", "if a < b && c {"])


@settings(max_examples=60, deadline=None)
@given(lead=st.integers(0, 3), extra=st.integers(0, 3), lines=st.lists(code_line, min_size=1,
                                                                         max_size=4),
       fence=st.sampled_from(["```", "~~~", "````"]), lang=st.sampled_from(["", "go"]),
       after=st.sampled_from(["[link](javascript:alert(1))", "<script>x</script>", "plain"]))
def test_a_code_block_in_a_list_item_stays_code(lead: int, extra: int, lines: list[str],
                                                fence: str, lang: str, after: str) -> None:
    """Finding 12: a compaction's summary holds code blocks inside list items
    (`   - **paths.go** - Added …` then `     ```go`): quoted, they stay code
    blocks (the fence is not escaped to "\\`\\`\\`go"), their lines as written,
    and the text after the item is escaped as any other."""
    bullet = " " * lead + "- **`paths.go`** - Added a constant"
    inner = " " * (lead + 2 + extra)
    text = "\n".join([bullet, inner + fence + lang, *(inner + ln for ln in lines),
                      inner + fence, "", after])
    out = quote(text)
    assert f"> {inner}{fence}{lang}\n" in out + "\n"
    for ln in lines:
        assert f"> {inner}{ln}\n" in out + "\n"
    if after != "plain":
        assert after not in out  # escaped after the item: the code block closed with it
    assert "\\`\\`\\`" not in out and "\\~\\~\\~" not in out


def test_a_fence_in_an_item_closes_when_the_item_ends() -> None:
    """A fence in a list item whose item ends (a line indented less) before a
    closing fence: Markdown ends the code block with the item, so what
    follows is escaped, never taken as code."""
    out = quote("- item\n  ```\n  code\n[x](javascript:alert(1))\n<b>y</b>")
    assert "](javascript:" not in out and "<b>" not in out


@pytest.mark.corpus
def test_compaction_summaries_keep_their_code_blocks() -> None:
    """Every corpus compaction summary: no code fence of it is escaped in the
    note (each of its fence lines, as the JSON holds it, is a line of the
    quote)."""
    from test_trust import folded
    checked = 0
    for main in main_files():
        fences = []
        for o in json_objects(main):
            content = (o.get("message") or {}).get("content")
            if o.get("isCompactSummary") and isinstance(content, str):
                fences += [ln for ln in content.splitlines()
                           if re.match(r"^\s*(```|~~~)", ln)]
        if not fences:
            continue
        note = render(folded(main))
        assert "\\`\\`\\`" not in note
        checked += 1
    assert checked >= 1

