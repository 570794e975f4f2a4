"""Notes you can trust: each fact a note states, checked against the JSON.

Unit tests per class of bug, on real corpus lines where the corpus has them
(the test says which) and on minimal hand-written lines where it does not.
Every expectation is derived here from the JSON, never from vv's output.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import CORPUS, blocks, independent_tokens, main_files
from conftest import json_objects as objects
from vibe_vault.entries import decode_line
from vibe_vault.figures import title_of
from vibe_vault.fold import fold
from vibe_vault.render.story import describe
from vibe_vault.state import BY_SUBAGENT, SessionState
from vibe_vault.work import work_of


def folded(lines: list[bytes] | Path) -> SessionState:
    if isinstance(lines, Path):
        lines = lines.read_bytes().split(b"\n")
    state = SessionState(session_id="s")
    fold(state.fold, [decode_line(x) for x in lines if x.strip()])
    return state


def line(**fields: Any) -> bytes:
    return json.dumps(fields).encode()


# -- 1. titles: never another session's summary ------------------------------------------


@pytest.mark.corpus
def test_summaries_of_other_sessions_never_title_a_session() -> None:
    """Corpus: every file with summary lines. A summary is the session's own only
    when its leafUuid is the uuid of an entry in the same file."""
    checked = 0
    for path in main_files():
        objs = objects(path)
        summaries = [o for o in objs if o.get("type") == "summary" and o.get("summary")]
        if not summaries:
            continue
        uuids = {o["uuid"] for o in objs if isinstance(o.get("uuid"), str)}
        own = [o["summary"] for o in summaries if o.get("leafUuid") in uuids]
        foreign = {o["summary"].strip() for o in summaries} - {s.strip() for s in own}
        state = folded(path)
        title = title_of(state)
        for text in foreign:
            assert not text.startswith(title.rstrip("…")), (path, title)
        # (one told of the user in the third person, "User learned about …", gives
        # way to the user's own request, 8e0f3c7)
        if own and not any(o.get("type") in ("custom-title", "ai-title") for o in objs) \
                and not re.match(r"(?:The )?[Uu]ser\b", own[-1].strip()):
            assert own[-1].strip().startswith(title.rstrip("…")), (path, title)
        checked += 1
    assert checked >= 10


def test_title_precedence() -> None:
    """Hand-written lines: custom-title > ai-title > own summary > prompt > recap
    (a recap names a session only where the user asked nothing: review 27)."""
    prompt = line(type="user", uuid="u1", timestamp="2026-01-01T00:00:00Z",
                  message={"role": "user", "content": "fix the login redirect please"})
    answer = line(type="assistant", uuid="a1", parentUuid="u1",
                  timestamp="2026-01-01T00:00:01Z",
                  message={"id": "m1", "model": "claude-x", "role": "assistant",
                           "content": [{"type": "text", "text": "Done."}]})
    recap = line(type="system", subtype="away_summary", uuid="r1",
                 timestamp="2026-01-01T00:00:02Z",
                 content="You fixed the redirect loop. Next: deploy. (disable recaps in /config)")
    own = line(type="summary", summary="Login redirect fix", leafUuid="a1")
    other = line(type="summary", summary="Some other session", leafUuid="elsewhere")
    ai = line(type="ai-title", aiTitle="AI title")
    custom = line(type="custom-title", customTitle="My title")
    assert title_of(folded([other, prompt, answer])) == "fix the login redirect please"
    assert title_of(folded([other, prompt, answer, recap])) == "fix the login redirect please"
    assert title_of(folded([other, answer, recap])) == "You fixed the redirect loop"
    assert title_of(folded([own, other, prompt, answer, recap])) == "Login redirect fix"
    assert title_of(folded([prompt, answer, own, recap])) == "Login redirect fix"
    assert title_of(folded([prompt, answer, own, ai])) == "AI title"
    assert title_of(folded([prompt, answer, custom, own, ai])) == "My title"


def test_a_session_opened_by_a_slash_command_is_titled_by_it() -> None:
    """Hand-written: `/review 123` as the only prompt: a request, in a command's
    words (issue 29)."""
    cmd = line(type="user", uuid="u1", timestamp="2026-01-01T00:00:00Z",
               message={"role": "user", "content":
                        "<command-message>review</command-message>\n"
                        "<command-name>/review</command-name>\n<command-args>123</command-args>"})
    answer = line(type="assistant", uuid="a1", timestamp="2026-01-01T00:00:01Z",
                  message={"id": "m1", "model": "claude-x", "role": "assistant",
                           "content": [{"type": "text", "text": "Reviewed."}]})
    assert title_of(folded([cmd, answer])) == "review: 123"
    clear = cmd.replace(b"/review", b"/clear").replace(b"123", b"")
    assert title_of(folded([clear, answer])).startswith("Session ")


# -- 2. counts: every count shown is the calls made ---------------------------------------


@pytest.mark.corpus
def test_explore_counts_are_the_calls_by_kind() -> None:
    """Corpus: every main file. The reads/searches/listings of each story line add
    up to the Read/Grep/Glob/LS calls of the file (main chain)."""
    from vibe_vault.fold import EXPLORE_LIST, EXPLORE_READ, EXPLORE_SEARCH

    for path in main_files():
        want = {"read": 0, "search": 0, "listing": 0}
        seen: set[str] = set()
        for o in objects(path):
            if o.get("type") != "assistant" or o.get("isSidechain"):
                continue
            for b in (o.get("message") or {}).get("content") or []:
                if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") not in seen:
                    seen.add(b.get("id"))
                    name = b.get("name")
                    kind = ("read" if name in EXPLORE_READ else "search"
                            if name in EXPLORE_SEARCH else "listing"
                            if name in EXPLORE_LIST else None)
                    if kind:
                        want[kind] += 1
        state = folded(path)
        got = {"read": 0, "search": 0, "listing": 0}
        if state.fold.turns_dropped:
            continue  # turns between head and tail are not kept: nothing to add up
        for t in state.fold.turns:
            if t.more_actions:
                break
            for a in t.actions:
                if a.kind == "explore":
                    got["read"] += a.reads
                    got["search"] += a.searches
                    got["listing"] += a.listings
                    text = describe(a, state)
                    assert ("listing" in text) == bool(a.listings), text
        else:
            assert got == want, path


# -- 3. commits: every successful `git commit` ------------------------------------------


def bash_call(n: int, command: str, stdout: str = "", error: str | None = None) -> list[bytes]:
    """A Bash tool call and its result, as Claude Code 2.x writes them (hand-written)."""
    tid = f"toolu_{n}"
    call = line(type="assistant", uuid=f"a{n}", timestamp=f"2026-01-01T00:0{n}:00Z",
                gitBranch="main",
                message={"id": f"m{n}", "model": "claude-x", "role": "assistant",
                         "content": [{"type": "tool_use", "id": tid, "name": "Bash",
                                      "input": {"command": command}}]})
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid,
                             "content": error if error is not None else stdout}
    if error is not None:
        block["is_error"] = True
    result = line(type="user", uuid=f"r{n}", timestamp=f"2026-01-01T00:0{n}:01Z",
                  message={"role": "user", "content": [block]},
                  toolUseResult={"stdout": stdout, "stderr": "", "interrupted": False}
                  if error is None else f"Error: {error}")
    return [call, result]


def test_every_successful_git_commit_is_a_commit() -> None:
    lines = [
        *bash_call(1, 'git add -A && git commit -q -m "Fix the redirect loop"'),
        *bash_call(2, "git log --oneline -3", "1a2b3c4 Fix the redirect loop\n9f8e7d6 Older\n"),
        *bash_call(3, "cd repo && git -C /src/app commit -F - <<'EOF'\nAdd tests\n\nBody\nEOF"),
        *bash_call(4, "git rev-parse HEAD", "0123456789abcdef0123456789abcdef01234567\n"),
        *bash_call(5, 'git commit -m "nothing"', error="Exit code 1\nnothing to commit"),
        *bash_call(6, 'git commit --amend -m "Reworded" && false',
                   error="Exit code 1\n[main 7777777] Reworded\n 1 file changed"),
        *bash_call(7, "./scripts/release.sh"),
    ]
    commits = [c for _, c in work_of(folded(lines)).commits]  # as the note lists them
    assert [(c.sha, c.subject, c.was) for c in commits] == [
        # the amend on main rewrote main's last commit (commit 1, named by the
        # log); the one made in another folder (git -C, no branch printed) is
        # not the one amended
        ("0123456", "Add tests", ""), ("7777777", "Reworded", "1a2b3c4")]
    assert commits[1].branch == "main"


@pytest.mark.corpus
def test_commit_counts_match_the_corpus() -> None:
    """Corpus: every main file. Expected: each distinct sha git printed in a
    `[branch sha] subject` line, plus each successful `git commit` call that
    printed none, plus each successful `git merge` that made a merge commit."""
    import re

    commit_cmd = re.compile(r"(^|[\s;&|(])git(\s+-[Cc]\s+\S+)*\s+commit\b")
    merge_cmd = re.compile(r"(^|[\s;&|(])git(\s+-[Cc]\s+\S+)*\s+merge\b")
    commit_line = re.compile(r"(?m)^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] ")
    for path in main_files():
        calls: dict[str, str] = {}
        expected: list[str] = []
        for o in objects(path):
            if o.get("isSidechain"):
                continue
            for b in blocks(o):
                if b.get("type") == "tool_use" and b.get("name") == "Bash":
                    calls[b["id"]] = str((b.get("input") or {}).get("command") or "")
                elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                    cmd = calls.pop(b["tool_use_id"])
                    if "git" not in cmd:
                        continue
                    r = o.get("toolUseResult")
                    out = r.get("stdout") if isinstance(r, dict) and r.get("stdout") else None
                    if out is None:
                        c = b.get("content")
                        out = c if isinstance(c, str) else "\n".join(
                            x.get("text", "") for x in c or [] if isinstance(x, dict))
                    shas = commit_line.findall(out or "")
                    if shas:
                        expected += [s for s in shas if s not in expected]
                    elif commit_cmd.search(cmd) and not b.get("is_error"):
                        expected.append("")
                    elif (merge_cmd.search(cmd) and not b.get("is_error")
                          and "Merge made by" in (out or "")):
                        expected.append("")  # a merge commit: git prints no sha
        # (the session's own: a subagent's, its report named and a later log
        # printed, are test_commits_by_subagents' to check)
        got = [c for c in folded(path).fold.commits if c.how != BY_SUBAGENT]
        assert len(got) == len(expected), (path, [c.sha for c in got], expected)


# -- 5. usage streamed in progress lines ---------------------------------------------------


@pytest.mark.corpus
def test_usage_in_agent_progress_lines_counts_once_per_message() -> None:
    """Corpus: a mementor checkpoint whose subagents exist only as progress lines."""
    from vibe_vault.figures import tokens_by_model

    path = CORPUS / "fenv-org__mementor/checkpoints/0f/54ff53e6a4/0/full.jsonl"
    best: dict[str, int] = {}
    for o in objects(path):
        data = o.get("data")
        if o.get("type") == "progress" and isinstance(data, dict) \
                and data.get("type") == "agent_progress":
            inner = (data.get("message") or {}).get("message") or {}
            usage = inner.get("usage") if isinstance(inner, dict) else None
            if isinstance(usage, dict) and inner.get("id"):
                best[inner["id"]] = max(best.get(inner["id"], 0),
                                        usage.get("output_tokens") or 0)
    assert best, "the file has streamed subagent messages"
    main_out: dict[str, int] = {}
    for o in objects(path):
        msg = o.get("message") or {}
        if o.get("type") == "assistant" and isinstance(msg.get("usage"), dict):
            key = msg.get("id") or o.get("requestId") or o.get("uuid")
            main_out[key] = max(main_out.get(key, 0), msg["usage"].get("output_tokens") or 0)
    state = folded(path)
    output = sum(t.output for t in tokens_by_model(state).values())
    streamed = sum(main_out.values()) + sum(v for k, v in best.items() if k not in main_out)
    # Each Task result carries its subagent's final message, which the
    # progress lines stop before: counted once more (conftest's oracle).
    assert output == independent_tokens(path, [])["output_tokens"] > streamed


def test_synthetic_is_not_a_model() -> None:
    """Hand-written: a local notice Claude Code writes as a <synthetic> message."""
    notice = line(type="assistant", uuid="a1", timestamp="2026-01-01T00:00:00Z",
                  message={"id": "m1", "model": "<synthetic>", "role": "assistant",
                           "content": [{"type": "text", "text": "No response requested."}],
                           "usage": {"input_tokens": 0, "output_tokens": 0}})
    state = folded([notice])
    assert state.fold.models == []


# -- 6. errors: "later succeeded" only for the same command or file --------------------------


def test_later_succeeded_needs_the_same_command() -> None:
    lines = [
        *bash_call(1, "pytest -q tests/test_a.py", error="Exit code 1\nFAILED test_a\nE  assert 1 == 2"),
        *bash_call(2, "ls"),
        *bash_call(3, "cargo build", error="Exit code 101\nerror[E0425]: cannot find value"),
        *bash_call(4, "pytest  -q   tests/test_a.py"),
    ]
    errors = folded(lines).fold.errors
    # Each headed by its first error line, not `Exit code N` (issue 29).
    assert [(e.text.split("\n")[0], e.later_ok) for e in errors] == [
        ("FAILED test_a", True), ("error[E0425]: cannot find value", False)]
    assert errors[0].text.split("\n")[1:] == ["E assert 1 == 2"]


# -- 7. prompts typed while Claude worked ---------------------------------------------------


@pytest.mark.corpus
def test_a_queued_prompt_is_shown_where_claude_read_it() -> None:
    """Corpus: entireio checkpoint with an enqueued prompt taken by a `remove`."""
    path = CORPUS / "entireio__cli/checkpoints/26/dcd5518fea/0/full.jsonl"
    objs = objects(path)
    queued = [o for o in objs if o.get("type") == "queue-operation"
              and o.get("operation") == "enqueue"]
    text = queued[0]["content"]
    taken = next(o for o in objs if o.get("type") == "queue-operation"
                 and o.get("operation") in ("remove", "dequeue")
                 and o["timestamp"] > queued[0]["timestamp"])
    turns = [t for t in folded(path).fold.turns if t.text == text]
    assert len(turns) == 1 and turns[0].detail == "queued"
    assert turns[0].ts == taken["timestamp"]


# -- 8. open threads: what was left to do -----------------------------------------------------


def todo_call(n: int, todos: list[dict[str, str]], denied: bool = False) -> list[bytes]:
    """A TodoWrite call and its result (hand-written, 2.x shape)."""
    tid = f"toolu_t{n}"
    call = line(type="assistant", uuid=f"ta{n}", timestamp=f"2026-01-01T01:0{n}:00Z",
                message={"id": f"mt{n}", "model": "claude-x", "role": "assistant",
                         "content": [{"type": "tool_use", "id": tid, "name": "TodoWrite",
                                      "input": {"todos": todos}}]})
    content = ("The user doesn't want to proceed with this tool use." if denied
               else "Todos have been modified successfully")
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": content}
    if denied:
        block["is_error"] = True
    return [call, line(type="user", uuid=f"tr{n}", timestamp=f"2026-01-01T01:0{n}:01Z",
                       message={"role": "user", "content": [block]})]


def test_open_threads_are_what_was_left_and_a_denied_list_changes_nothing() -> None:
    from vibe_vault.render import render

    first = [{"content": "write the parser", "status": "completed"},
             {"content": "write the tests", "status": "in_progress"},
             {"content": "update the docs", "status": "pending"}]
    all_done = [{**t, "status": "completed"} for t in first]
    state = folded([*todo_call(1, first), *todo_call(2, all_done, denied=True)])
    assert [(t.text, t.status) for t in state.fold.todos] == [
        (t["content"], t["status"]) for t in first]
    note = render(state)
    threads = note.split("## Open threads\n", 1)[1].split("\n## ", 1)[0]
    assert "- [ ] write the tests *(in progress)*" in threads
    assert "- [ ] update the docs" in threads
    assert "> [!done]- 1 done\n> - [x] write the parser" in threads
    assert "- [x]" not in threads.split("> [!done]")[0]


# -- 10. status -------------------------------------------------------------------------------


@pytest.mark.corpus
def test_reprocess_keeps_how_a_session_ended(tmp_path: Path) -> None:
    from conftest import Env, frontmatter
    from test_hook_contract import place, stop

    env = Env(tmp_path)
    target = place(env)
    end = dict(stop(path=target), hook_event_name="SessionEnd", reason="logout")
    assert env.hook(end).returncode == 0
    assert env.vv("reprocess").returncode == 0
    fm = frontmatter(next(iter(env.notes().values())))
    assert (fm["status"], fm["end_reason"]) == ("ended", "logout")


# -- 11. rendering ---------------------------------------------------------------------------


def test_home_note_table_keeps_its_columns() -> None:
    from vibe_vault.index import ProjectSums, render_home
    from vibe_vault.records import Record

    recs = [Record(session_id=f"s{i}", project=f"proj{i % 2}", has_note=True, title="t",
                   note=f"Projects/proj{i % 2}/sessions/n{i}.md",
                   started="2026-01-01T00:00:00+00:00") for i in range(4)]
    sums = [ProjectSums(f"proj{i}", 2, "2026-01-01T00:00:00+00:00\0s3", 10, 1.5)
            for i in range(2)]
    home = render_home(sums, recs)
    rows = [r for r in home.splitlines() if r.startswith("| ") and "Projects/" in r]
    assert rows
    for row in rows:
        # Pipes that end cells: not the escaped one inside the wikilink.
        assert len(row.replace("\\|", "").split("|")) == 7, row


def test_code_in_a_table_cell_shows_one_backslash() -> None:
    from vibe_vault.markdown import cell, code

    assert cell(code("C:\\Users\\me|x")) == "`C:\\Users\\me\\|x`"


def test_quoted_text_cut_in_a_fence_closes_it_and_forms_no_heading() -> None:
    from vibe_vault.markdown import quote

    quoted = quote("# Plan\nsee:\n```python\n# a comment\nx = 1")
    lines = quoted.split("\n")
    assert lines[0] == "> \\# Plan"
    assert "> # a comment" in lines  # inside the fence: code, left as it is
    assert lines[-1] == "> ```"
    assert not any(x.startswith("#") for x in lines)


def test_long_prompts_are_priced_at_long_context_rates() -> None:
    """Hand-written: two Sonnet 4.5 requests, one with a 250k-token prompt. The
    rates are Anthropic's published ones ($3/$15, and $6/$22.50 per million
    tokens above 200k), written here, not read from vv's price table."""
    from vibe_vault.figures import RenderOptions, figures

    def message(n: int, cache_read: int) -> bytes:
        return line(type="assistant", uuid=f"a{n}", timestamp=f"2026-01-01T00:0{n}:00Z",
                    message={"id": f"m{n}", "model": "claude-sonnet-4-5-20250929",
                             "role": "assistant",
                             "content": [{"type": "text", "text": "ok"}],
                             "usage": {"input_tokens": 1000, "output_tokens": 2000,
                                       "cache_read_input_tokens": cache_read}})

    fig = figures(folded([message(1, 50_000), message(2, 249_000)]), RenderOptions())
    short = (1000 * 3 + 2000 * 15 + 50_000 * 0.3) / 1e6
    long = (1000 * 6 + 2000 * 22.5 + 249_000 * 0.6) / 1e6
    assert abs(fig.cost - round(short + long, 4)) < 1e-9
    assert len(fig.tokens) == 2  # the long prompts are a row of their own


# -- 9. continuations on evidence only ---------------------------------------------------------


def test_a_leading_summary_is_no_evidence_of_continuation() -> None:
    """Hand-made records: B starts with a summary naming A's last message; C's
    first message has A's last message as its parent."""
    from vibe_vault.links import compute_links
    from vibe_vault.records import Record

    def rec(sid: str, started: str, **kw: Any) -> Record:
        return Record(session_id=sid, project="p", has_note=True, note=f"n/{sid}.md",
                      started=started, **kw)

    a = rec("a", "2026-01-01T00:00:00+00:00", tail_uuids=["a-last"])
    b = rec("b", "2026-01-02T00:00:00+00:00", leaf_refs=["a-last"], tail_uuids=["b-last"])
    c = rec("c", "2026-01-03T00:00:00+00:00", first_parent="a-last")
    links = compute_links({r.session_id: r for r in (a, b, c)})
    assert links["b"].continues == ""
    assert links["c"].continues == "n/a.md"
    assert links["a"].continued_by == ["n/c.md"]
