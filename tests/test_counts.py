"""Lines changed, as a user compares them with `git diff` (issue 29, review 12).

A file's figures in the Files changed table are its net lines: from the content
the session first saw to the content it left. Each test generates contents and
a sequence of Writes, Edits and MultiEdits (with the results Claude Code 2.x
writes: `originalFile` and a `structuredPatch`; or none, as subagent files of
2.1.114 have), and computes the expected figures itself, from the generated
contents alone, by a longest common subsequence of their lines (split as git
splits them: a last line without a newline is another line than the same line
with one).
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import blocks, examples, main_files, session_files
from conftest import json_objects as objects
from file_lines import edited, git_lines, net_lines
from test_headlines import Transcript
from vibe_vault.entries import decode_line
from vibe_vault.figures import RenderOptions, figures
from vibe_vault.fold import fold, fold_agent
from vibe_vault.render import render
from vibe_vault.state import AgentFold, Fold, SessionState
from vibe_vault.work import work_of

PATH = "/work/app/notes.txt"


def patch(old: str, new: str) -> list[dict[str, Any]]:
    """A `structuredPatch` in Claude Code's shape (jsdiff's hunks, 3 lines of
    context, "\\ No newline at end of file" after a line without one)."""
    a, b = git_lines(old), git_lines(new)
    hunks = []
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in sm.get_grouped_opcodes(3):
        lines: list[str] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                chunks = [(" ", x) for x in a[i1:i2]]
            else:
                chunks = [("-", x) for x in a[i1:i2]] + [("+", x) for x in b[j1:j2]]
            for sign, x in chunks:
                lines.append(sign + x.removesuffix("\n"))
                if not x.endswith("\n"):
                    lines.append("\\ No newline at end of file")
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        hunks.append({"oldStart": i1 + 1 if i2 > i1 else i1, "oldLines": i2 - i1,
                      "newStart": j1 + 1 if j2 > j1 else j1, "newLines": j2 - j1,
                      "lines": lines})
    return hunks


def counted(hunks: list[dict[str, Any]]) -> tuple[int, int]:
    lines = [x for h in hunks for x in h["lines"]]
    return sum(x[0] == "+" for x in lines), sum(x[0] == "-" for x in lines)


word = st.sampled_from(["alpha", "beta", "gamma", "delta", "", "  x = 1", "}"])
contents = st.builds(lambda lines, nl: "\n".join(lines) + ("\n" if nl else ""),
                     st.lists(word, min_size=0, max_size=12), st.booleans())


def edit_of(old: str, new: str, data: st.DataObject) -> tuple[str, str]:
    """An Edit's old_string and new_string that turn `old` into `new`: the
    span between their common start and end, widened to whole lines or not."""
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    if data.draw(st.booleans(), label="whole lines"):
        start = old.rfind("\n", 0, start) + 1
    span = old[start:len(old) - end]
    if not span or old.find(span) != start or old.rfind(span) != start:
        return old, new  # an Edit's old_string is found once, there: the whole file is
    return old[start:len(old) - end], new[start:len(new) - end]


@settings(max_examples=examples(40, 150), deadline=None)
@given(data=st.data(), first=contents, created=st.booleans(),
       steps=st.lists(st.tuples(st.sampled_from(["Write", "Edit", "MultiEdit", "revert"]),
                                contents), min_size=1, max_size=6))
def test_a_files_figures_are_its_net_lines_from_first_to_last_content(
        data: st.DataObject, first: str, created: bool,
        steps: list[tuple[str, str]]) -> None:
    t = Transcript()
    t.prompt("change the notes")
    now = "" if created else first
    if created:
        t.write_file(PATH, first, text="File created")
        now = first
    told = []  # each change's own figures, for the story
    for tool, new in steps:
        if tool == "revert":
            tool, new = "Edit", ("" if created else first)
        hunks = patch(now, new)
        if tool == "Write" or not now:  # an Edit needs something to replace
            t.write_file(PATH, new, before=now, text="File updated", patch=hunks)
        else:
            old_s, new_s = edit_of(now, new, data)
            inp: dict[str, Any] = {"file_path": PATH, "old_string": old_s, "new_string": new_s}
            if tool == "MultiEdit":
                inp = {"file_path": PATH, "edits": [{"old_string": old_s, "new_string": new_s}]}
            t.call(tool, inp, {"filePath": PATH, "oldString": old_s, "newString": new_s,
                               "originalFile": now, "structuredPatch": hunks}, "ok")
        told.append(counted(hunks))
        now = new
    state = t.state()
    change = state.fold.files[PATH]  # type: ignore[index]
    # The fold law: read in two parts, the same facts (net lines are worked
    # out at the end of each read).
    lines = [decode_line(x) for x in t.encoded()]
    cut = data.draw(st.integers(0, len(lines)), label="cut")
    assert fold(fold(Fold(), lines[:cut]), lines[cut:]) == fold(Fold(), lines)
    start = "" if created else first
    assert (change.added, change.removed) == net_lines(start, now)
    assert not change.estimated
    edits = [a for turn in state.fold.turns for a in turn.actions if a.kind == "edit"]
    assert sum(a.added for a in edits) == sum(p for p, _ in told) + (
        len(git_lines(first)) if created else 0)
    fig = figures(state, RenderOptions())
    unchanged = now == start and not created
    assert fig.changed_file_count == (0 if unchanged else 1)
    note = render(state)
    assert ("(no net change)" in note) == unchanged
    assert ("no files changed" in fig.summary.lower()) == unchanged


@settings(max_examples=60, deadline=None)
@given(writes=st.lists(contents, min_size=1, max_size=5))
def test_writes_without_results_count_the_last_content_not_every_one(
        writes: list[str]) -> None:
    """A subagent file of 2.1.114 carries no results: a Write over a file the
    session itself wrote counts the lines between the two contents, the first
    counts all its lines (estimated: what was there before is not known)."""
    t = Transcript()
    t.prompt("write the notes")
    for content in writes:
        t.call("Write", {"file_path": PATH, "content": content}, None, "ok")
    change = t.state().fold.files[PATH]  # type: ignore[index]
    assert (change.added, change.removed) == net_lines("", writes[-1])
    assert change.estimated


def _formatted(text: str, how: int) -> str:
    """What a formatter hook or the user's editor might make of a file
    between two of the session's changes: a blank line added after the first
    line, the last newline added or taken away, the first line dropped."""
    if how == 0:
        lines = text.split("\n")
        return "\n".join([*lines[:1], "", *lines[1:]])
    if how == 1:
        return text[:-1] if text.endswith("\n") else text + "\n"
    return text.split("\n", 1)[1] if "\n" in text else ""


shape = st.sampled_from(["2.x", "1.0", "none"])


@settings(max_examples=examples(20, 200), deadline=None)
@given(data=st.data(), first=contents, created=st.booleans(),
       steps=st.lists(st.tuples(st.sampled_from(["Write", "Edit", "MultiEdit"]), contents,
                                shape, st.one_of(st.none(), st.integers(0, 2))),
                      min_size=1, max_size=6))
def test_a_file_changed_between_the_sessions_changes_counts_first_to_last(
        data: st.DataObject, first: str, created: bool,
        steps: list[tuple[str, str, str, int | None]]) -> None:
    """Between two of the session's changes the file may change outside the
    tools (a formatter hook, the user's editor): the next result's
    `originalFile` shows it. The figures are the lines between the first
    content the transcript shows and the last, counted once (the oracle: an
    LCS of the generated contents); where the transcript does not show both
    (results in Claude Code 1.0's shapes: `originalFileContents`, a Write's
    patch without `originalFile`; or no result at all, as in 2.1.114's
    subagent files), the figures are marked estimated, never a wrong exact
    one. (An edit without a result is made in the content the transcript
    last showed: a change outside the tools before it, which the transcript
    never shows, is not seen.)"""
    t = Transcript()
    t.prompt("change the notes")
    now = first
    if created:
        t.write_file(PATH, first, text="File created")
    start = "" if created else first
    shown_first = created
    shown_last = created
    unseen = False  # the file changed outside the tools since the transcript last showed it
    blind = False  # an edit without a result made in such a content: its net lines not told
    for n, (tool, new, form, outside) in enumerate(steps):
        if outside is not None and (n or created):
            now = _formatted(now, outside)  # the file changed outside the tools
            unseen = True
        hunks = patch(now, new)
        result: dict[str, Any] | None
        if tool == "Write" or not now:
            inp: dict[str, Any] = {"file_path": PATH, "content": new}
            result = {"type": "update", "filePath": PATH, "content": new,
                      "structuredPatch": hunks}
            if form == "2.x":
                result["originalFile"] = now
            tool = "Write"
        else:
            old_s, new_s = edit_of(now, new, data)
            inp = {"file_path": PATH, "old_string": old_s, "new_string": new_s}
            result = {"filePath": PATH, "oldString": old_s, "newString": new_s,
                      "originalFile": now, "structuredPatch": hunks}
            if tool == "MultiEdit":
                inp = {"file_path": PATH, "edits": [{"old_string": old_s, "new_string": new_s}]}
                result = {"filePath": PATH, "edits": inp["edits"], "structuredPatch": hunks,
                          ("originalFile" if form == "2.x" else "originalFileContents"): now}
        if form == "none":
            result = None
        t.call(tool, inp, result, "ok")
        blind = blind or (unseen and result is None and tool != "Write")
        unseen = False
        # What the transcript itself shows: the content before the first change
        # (a result's original, or a Write's patch with its content), and the
        # content after the last (a Write's, or an Edit's original with its
        # replacement made).
        if n == 0 and not created:
            shown_first = result is not None
        shown_last = tool == "Write" or result is not None
        now = new
    change = t.state().fold.files[PATH]  # type: ignore[index]
    truth = net_lines(start, now)
    if not change.estimated and not blind:
        assert (change.added, change.removed) == truth
    if shown_first and shown_last:
        assert not change.estimated
    lines = [decode_line(x) for x in t.encoded()]
    cut = data.draw(st.integers(0, len(lines)), label="cut")
    assert fold(fold(Fold(), lines[:cut]), lines[cut:]) == fold(Fold(), lines)


def _content_chain(path_calls: list[tuple[dict[str, Any], dict[str, Any]]]
                   ) -> tuple[str, str] | None:
    """The file's first and last contents, from the JSON of its changes alone
    (each result's `originalFile`, `originalFileContents` in Claude Code
    1.0.x, or none for a file created; then the change's strings applied): a
    content before a change that differs from the one left by the change
    before (a formatter hook, the user's editor) is the file's from then on.
    None when a change does not say."""
    first: str | None = None
    now: str | None = None
    for call, result in path_calls:
        inp = call.get("input") or {}
        original = result.get("originalFile", result.get("originalFileContents"))
        if result.get("type") == "create":
            original = ""
        if not isinstance(original, str):
            if call["name"] != "Write" or now is None:
                return None
            original = now  # a Write's content is all that counts of it
        if first is None:
            first = original
        if call["name"] == "Write":
            now = inp.get("content")
        elif call["name"] in ("Edit", "MultiEdit"):
            now = edited(original, inp)
        else:
            return None
        if not isinstance(now, str):
            return None
    return (first, now) if first is not None and now is not None else None


@pytest.mark.corpus
def test_every_corpus_file_counts_its_net_lines() -> None:
    """For every file a corpus session changed whose every change's result says
    what was there before: the note's figures are the lines between the
    first content and the last, both taken from the JSON (326189cf and
    fe869ecb, of Claude Code 1.0.x, changed between edits by a formatter:
    +2 −1 and +8 −9, as git shows them)."""
    checked = 0
    formatted: set[str] = set()
    for main in main_files():
        calls: dict[str, dict[str, Any]] = {}
        by_path: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
        created: set[str] = set()  # files git's output says a commit created (cwd-relative)
        # Files a formatter's check printed it would rewrite after their last
        # change (`cargo fmt --check`: "Diff in P:"), then formatted: their last
        # content is not the JSON's (checked in test_shell_changes).
        checked_after: set[str] = set()
        for o in objects(main):
            if o.get("isSidechain"):
                continue
            for b in blocks(o):
                if b.get("type") == "tool_result":
                    created.update(re.findall(r"(?m)^ create mode \d+ (.+)$", str(b.get("content"))))
                    checked_after.update(re.findall(r"(?m)^Diff in (/.+?):\d+:",
                                                    str(b.get("content"))))
                if b.get("type") == "tool_use" and b.get("name") in ("Write", "Edit",
                                                                      "MultiEdit"):
                    calls[str(b.get("id"))] = b
                elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                    r = o.get("toolUseResult")
                    call = calls.pop(str(b["tool_use_id"]))
                    if b.get("is_error") or not isinstance(r, dict):
                        by_path.setdefault(str(call["input"].get("file_path")), []).append(
                            (call, {}))
                        continue
                    by_path.setdefault(str(call["input"].get("file_path")), []).append((call, r))
                    checked_after.discard(str(call["input"].get("file_path")))
        expected = {}
        for path, chain in by_path.items():
            ends = _content_chain([c for c in chain if c[1]])
            if ends is None or any(not r for _, r in chain) or path in checked_after:
                continue
            if ends[0] and any(path.endswith("/" + c) for c in created):
                # Made by a command before its first edit (`cargo init`), as git
                # says: its lines are checked with the commands' (test_shell_changes).
                continue
            a, b = git_lines(ends[0]), git_lines(ends[1])
            if len(a) * len(b) > 4_000_000:
                continue
            expected[path] = net_lines(*ends)
        if not expected:
            continue
        f = fold(Fold(), (decode_line(x) for x in main.read_bytes().split(b"\n") if x.strip()))
        for path, want in expected.items():
            change = f.files.get(path)  # type: ignore[call-overload]
            if change is None:
                continue  # a path the redaction gate changed
            assert (change.added, change.removed) == want, (main, path)
            assert not change.estimated, (main, path)
            checked += 1
            if main.name[:8] in ("326189cf", "fe869ecb"):
                formatted.add(main.name[:8])
    assert checked >= 20
    assert formatted == {"326189cf", "fe869ecb"}


# -- commits: amended, merged (review 12, finding 5) ----------------------------------

hexsha = st.text(alphabet="0123456789abcdef", min_size=7, max_size=7)
branch_name = st.sampled_from(["main", "feature", "fix-1"])
git_op = st.one_of(
    st.tuples(st.just("commit"), st.booleans()),  # printed its line, or -q
    st.tuples(st.just("amend"), st.booleans()),
    st.tuples(st.just("merge"), st.booleans()),  # a merge commit, or a fast-forward
    st.tuples(st.just("checkout"), branch_name),
)


def _on(t: Transcript, branch: str) -> None:
    for line in t.lines[-2:]:
        line["gitBranch"] = branch


@settings(max_examples=examples(25, 80), deadline=None)
@given(ops=st.lists(git_op, min_size=1, max_size=10), shas=st.lists(hexsha, min_size=12,
                                                                    max_size=12, unique=True))
def test_the_commits_listed_are_those_that_exist_at_the_end(
        ops: list[tuple[str, Any]], shas: list[str]) -> None:
    """Commits, amends (which replace the branch's last commit), merges (git
    prints no sha for them) and fast-forwards (no commit), then `git log --all
    --oneline --graph`: the commits listed are the session's that still exist,
    each with the sha the log printed beside its subject."""
    t = Transcript()
    t.prompt("commit and merge")
    branch = "main"
    made: list[tuple[str, str, str]] = []  # (sha, subject, branch) of commits that exist
    fresh = iter(shas)
    for n, (kind, arg) in enumerate(ops):
        subject = f"change number {n}"
        if kind == "checkout":
            branch = arg
            t.bash(f"git checkout {arg}", f"Switched to branch '{arg}'\n")
        elif kind in ("commit", "amend"):
            sha = next(fresh)
            flag = " --amend" if kind == "amend" else ""
            if arg:
                t.bash(f'git commit{flag} -m "{subject}"', f"[{branch} {sha}] {subject}\n"
                       " 1 file changed, 1 insertion(+)\n")
            else:
                t.bash(f'git commit -q{flag} -m "{subject}"')
            mine = [i for i, c in enumerate(made) if c[2] == branch]
            if kind == "amend" and mine:
                made[mine[-1]] = (sha, subject, branch)
            else:
                made.append((sha, subject, branch))
        elif arg:
            sha = next(fresh)
            t.bash(f'git merge --no-ff other -m "{subject}"',
                   "Merge made by the 'ort' strategy.\n a.txt | 1 +\n")
            made.append((sha, subject, branch))
        else:
            t.bash("git merge other", "Updating 1111111..2222222\nFast-forward\n")
        _on(t, branch)
    graph = ["*   ", "| * ", "*---.   ", "| | * ", "* "]
    log = "".join(f"{graph[i % len(graph)]}{sha} {subject}\n"
                  for i, (sha, subject, _) in enumerate(reversed(made)))
    t.bash("git log --all --oneline --graph", log + "* 0000000 before the session\n")
    _on(t, branch)
    listed = [(c.sha, c.subject) for _, c in work_of(t.state()).commits]  # as the note lists
    assert sorted(listed) == sorted((sha, subject) for sha, subject, _ in made)


@settings(max_examples=60, deadline=None)
@given(branches=st.lists(st.sampled_from(["main", "feature", "worktree-agent-a4ca7529"]),
                         min_size=1, max_size=8))
def test_the_branch_is_where_the_session_ended_not_a_subagents_worktree(
        branches: list[str]) -> None:
    t = Transcript()
    t.on_branches(branches)
    own = [b for b in branches if not b.startswith("worktree-agent-")] or branches[:1]
    head = render(t.state()).split("\n---\n", 1)[0]
    assert f"\nbranch: {own[-1]}\n" in head
    listed = list(dict.fromkeys(own))
    assert ("\nbranches: " in head) == (len(listed) > 1)
    if len(listed) > 1:
        assert "\nbranches: [" + ", ".join(f'"{b}"' for b in listed) + "]\n" in head


@pytest.mark.corpus
def test_every_corpus_amend_and_merge_is_told_as_it_ended() -> None:
    """From each transcript file's JSON: a `commit --amend` whose output names
    the new commit replaces the commit its branch last printed (the old sha is
    not listed); a `git merge -m S` that made a commit is listed with the sha a
    later output prints beside S."""
    amends = merges = 0
    for main in main_files():
        for path in [main, *session_files(main)]:
            calls: dict[str, str] = {}
            outputs: list[tuple[str, str]] = []
            for o in objects(path):
                for b in blocks(o):
                    if b.get("type") == "tool_use" and b.get("name") == "Bash":
                        calls[str(b.get("id"))] = str((b.get("input") or {}).get("command"))
                    elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls \
                            and not b.get("is_error"):
                        r = o.get("toolUseResult")
                        out = str(r.get("stdout")) if isinstance(r, dict) and r.get("stdout") \
                            else b.get("content") if isinstance(b.get("content"), str) else ""
                        outputs.append((calls.pop(str(b["tool_use_id"])), str(out)))
            gone: set[str] = set()
            kept: set[str] = set()
            last_on: dict[str, str] = {}
            for at, (command, out) in enumerate(outputs):
                lines = re.findall(r"(?m)^\[([^\]\s]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] ",
                                   out)
                if "--amend" in command and lines and lines[0][0] in last_on:
                    gone.add(last_on[lines[0][0]])
                    kept.add(lines[0][1])
                    amends += 1
                for branch, sha in lines:
                    last_on[branch] = sha
                m = re.search(r"""\bgit\s+(?:-C\s+\S+\s+)?merge\b.*\s-m\s+"([^"]+)\"""", command)
                if m and "Merge made by " in out:
                    later = [x.group(1) for _, o2 in outputs[at + 1:] for x in re.finditer(
                        r"(?m)^[*|/\\_ .-]*([0-9a-f]{7,40}) " + re.escape(m.group(1)) + "$", o2)]
                    if later:
                        kept.add(later[0][:7])
                        merges += 1
            if not gone and not kept:
                continue
            entries = (decode_line(x) for x in path.read_bytes().split(b"\n") if x.strip())
            f = fold(Fold(), entries) if path == main else fold_agent(AgentFold(), entries).work
            listed = {c.sha for _, c in work_of(SessionState(fold=f)).commits}  # as the note lists
            assert not gone & listed, (path, gone & listed)
            assert kept <= listed, (path, kept - listed)
    assert amends >= 1 and merges >= 2


@settings(max_examples=40, deadline=None)
@given(subjects=st.lists(st.lists(st.text(alphabet="abcdefghij", min_size=1, max_size=6),
                                  min_size=1, max_size=4).map(lambda w: "merge " + " ".join(w)),
                         min_size=1, max_size=4, unique=True),
       shas=st.lists(hexsha, min_size=4, max_size=4, unique=True),
       merge=st.booleans())
def test_a_subagents_quiet_commit_takes_the_sha_the_main_agents_later_log_prints(
        subjects: list[str], shas: list[str], merge: bool) -> None:
    from vibe_vault.state import AgentFile
    from vibe_vault.work import work_of

    sub = Transcript(hour=10)
    sub.prompt("merge master in")
    for subject in subjects:
        if merge:
            sub.bash(f'git -C .claude/worktrees/agent-x merge master --no-ff -m "{subject}"',
                     "Merge made by the 'ort' strategy.\n")
        else:
            sub.bash(f'git -C .claude/worktrees/agent-x commit -q -m "{subject}"')
    main = Transcript(hour=11)  # later: the main agent's log
    main.prompt("check")
    main.bash("git log --all --oneline --graph",
              "".join(f"| * {sha} {s}\n" for sha, s in zip(shas[:len(subjects)], reversed(subjects), strict=True)))
    state = main.state()
    entries = [decode_line(x) for x in sub.encoded()]
    state.agents["a"] = AgentFile(fold=fold_agent(AgentFold(), entries))
    listed = sorted((c.sha, c.subject) for _, c in work_of(state).commits)
    assert listed == sorted(zip(shas[:len(subjects)], reversed(subjects), strict=True))


@settings(max_examples=examples(150, 400))
@given(st.text(alphabet=st.sampled_from(['a', '\n', '\\', '"', 'n', '\t', 'é', '\r', '\u2028']),
               max_size=30))
def test_lines_counted_from_raw_json_equal_lines_of_the_text(text: str) -> None:
    """A created file's lines are counted from its raw JSON string: the same
    count as the decoded text (escaped backslashes once mistook `\\\\` for empty)."""
    import msgspec

    from vibe_vault.fold.files import count_json_lines as _count_json_lines
    from vibe_vault.fold.files import count_lines as _count_lines

    raw = msgspec.json.decode(json.dumps({"v": text}).encode(),
                              type=dict[str, msgspec.Raw])["v"]
    assert _count_json_lines(raw) == _count_lines(text)
