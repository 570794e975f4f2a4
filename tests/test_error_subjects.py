"""Issue 29: every failed tool call is named by what it was about.

A failed shell command is told under Errors as the story tells it: Claude's
description of it, then the command (its first real one, past leading
`NAME=value` assignments), then its output; a failed search by its pattern
and folder, a subagent by its type and task, an MCP tool by its server, its
name and its main argument, Claude Code's other tools by the input they
name. The oracle reads each call's input from the JSON, with rules of this
file's own, and looks for a line of the note's Errors section that names it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, examples, frontmatter, json_objects, main_files, session_files
from test_headlines import Transcript, phrase, words

# Claude Code's refusals of a call it did not run: told in the story, not under Errors.
_NOT_RUN = ("doesn't want to", "Permission to ", "has been denied", "rejected")
# Of an MCP tool's input, the argument it is about: the first of these it gives.
_MAIN = ("query", "url", "file_path", "path", "command", "pattern", "name", "title", "id",
         "question", "prompt", "description")
_BY_KEY = {"KillShell": "shell_id", "KillBash": "shell_id", "BashOutput": "bash_id",
           "TaskOutput": "task_id", "TaskStop": "task_id", "WebSearch": "query",
           "Skill": "skill", "AskUserQuestion": "question", "WebFetch": "url",
           "Read": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
           "Write": "file_path", "NotebookEdit": "notebook_path"}
# A leading assignment, its value any run of quoted parts, `$(…)` (one level of
# parentheses inside), backquotes and plain characters: a value that runs
# something is an assignment all the same (review 27 #12).
_ASSIGNMENT = re.compile(r"^(?:export\s+)?[A-Za-z_]\w*=(?:\"[^\"$`]*\"|'[^']*'"
                         r"|\$\((?:[^()]|\([^()]*\))*\)|`[^`]*`|[^\s\"'$`();&|])*"
                         r"(?:\s*(?:;|&&)\s*|\s+|$)")


def _words(said: str) -> str:
    """The opening words of a text (letters, digits and spaces), as any
    escaping for Markdown leaves them."""
    m = re.match(r"[A-Za-z0-9][A-Za-z0-9 ]*", " ".join(said.split()))
    return m.group(0).strip()[:60] if m else ""


def _first_command(command: str) -> str:
    """The program a command line runs first: past comments, a bare `cd`,
    and leading assignments, whatever their value."""
    for line in command.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or re.fullmatch(r"cd\s+\S+", line):
            continue
        while (m := _ASSIGNMENT.match(line)) and m.end():
            line = line[m.end():]
        if line:  # (else a line of assignments only: what runs is on a later one)
            return line.split()[0]
    return ""


def _last_part(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def expected(tool: str, inp: dict[str, Any]) -> tuple[str, list[str]]:
    """The label a failed call's line bears and what else it must say, from
    its input alone."""
    def s(key: str) -> str:
        v = inp.get(key)
        return " ".join(str(v).split()) if isinstance(v, (str, int)) and str(v).strip() else ""
    if tool.startswith("mcp__") and tool.count("__") >= 2:
        parts = tool.split("__")
        main = next((s(k) for k in _MAIN if s(k)), "")
        return f"**{parts[1]}: {parts[-1]}**", [main[:40]] if main else []
    label = f"**{tool}**"
    if tool in ("Bash", "PowerShell"):
        said = _words(s("description"))
        return label, [*([said] if said else []), _first_command(str(inp.get("command") or ""))]
    if tool in ("Task", "Agent"):
        return label, [s("subagent_type") or "general-purpose",
                       *([_words(s("description"))] if _words(s("description")) else [])]
    if tool in ("Grep", "Glob"):
        return label, [s("pattern")[:40], *([_last_part(s("path"))] if s("path") else [])]
    key = _BY_KEY.get(tool)
    if key is None or not s(key):
        return label, []
    value = s(key)
    return label, [_last_part(value) if key.endswith("path") else value[:40]]


def _errors_section(note: str) -> list[str]:
    body = note.split("\n## Errors\n", 1)[1] if "\n## Errors\n" in note else ""
    return [ln for ln in body.split("\n## ", 1)[0].splitlines() if ln.startswith(("- ", "> - "))]


def _failed_calls(paths: list[Path]) -> list[tuple[str, dict[str, Any]]]:
    """(tool, input) of every call that ran and failed, from the JSON."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    out = []
    for p in paths:
        for o in json_objects(p):
            content = (o.get("message") or {}).get("content")
            for b in content if isinstance(content, list) else []:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "tool_use" and isinstance(b.get("input"), dict):
                    calls[str(b.get("id"))] = (str(b.get("name")), b["input"])
                if b.get("type") == "tool_result" and b.get("is_error"):
                    call = calls.get(str(b.get("tool_use_id")))
                    said = json.dumps(b.get("content"))
                    if call and not any(w in said for w in _NOT_RUN) \
                            and not _typed_refusal(o, b.get("content")):
                        out.append(call)
    return out


def _typed_refusal(entry: dict[str, Any], content: object) -> bool:
    """Claude Code 2.0.0-2.0.36 in an IDE writes the words a user typed to
    refuse a call bare, as its error: one line of words, no `name:` label."""
    version = tuple(int(x) for x in re.findall(r"\d+", str(entry.get("version")))[:3])
    return (2, 0, 0) <= version < (2, 0, 37) and isinstance(content, str) \
        and entry.get("toolUseResult") == f"Error: {content}" and "\n" not in content.strip() \
        and not re.match(r"[^\s:]+(?: [^\s:]+){0,4}:(?:\s|$)", content) and not re.search(r"(?i)error|fail|not found|exit code", content)


@pytest.mark.corpus
def test_every_corpus_tool_error_names_its_subject(tmp_path: Path) -> None:
    """Corpus, every session through `vv backfill` (subagents' files too):
    each call that ran and failed is told under Errors on a line of its tool
    that names what its input was about; a shell command by its description
    and its first real command, never only by a leading assignment."""
    env = Env(tmp_path)
    assert env.vv("backfill", str(CORPUS)).returncode == 0
    notes = {frontmatter(n).get("session_id"): n for n in env.all_notes().values()
             if "\ntype: session\n" in n}
    checked, tools, described = 0, set(), 0
    for main in main_files():
        failed = _failed_calls([main, *session_files(main)])
        if not failed:
            continue
        sid = next((o["sessionId"] for o in json_objects(main) if o.get("sessionId")), None)
        lines = _errors_section(notes[sid])
        for tool, inp in failed:
            label, named = expected(tool, inp)
            assert named, (main, tool, inp)  # every failed call's input names something
            assert any(label in ln and all(w in ln for w in named) for ln in lines), \
                (main, tool, named, [ln for ln in lines if label in ln])
            checked += 1
            tools.add(tool)
            described += tool == "Bash" and bool(inp.get("description"))
        for ln in lines:  # a command is never named by an assignment, of any value
            m = re.search(r"\*\*(?:Bash|PowerShell)\*\*[^`]*`([A-Za-z_]\w*)=([^`\s]*)", ln)
            assert m is None, ln
    assert checked >= 50 and described >= 30 and {"Bash", "KillShell", "WebFetch"} <= tools, \
        (checked, described, tools)


# -- generated calls of every kind -------------------------------------------------------

ident = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=2, max_size=10).filter(
    lambda w: not w.startswith("_") and not w.endswith("_") and "__" not in w)
assignment = st.tuples(words, words).map(lambda t: f"{t[0].upper()}=/tmp/{t[1]}")
shell_call = st.tuples(st.lists(assignment, max_size=2), st.sampled_from([" ", "; ", " && "]),
                       words, st.lists(words, max_size=3), st.one_of(st.just(""), phrase)).map(
    lambda t: ("Bash", {"command": t[1].join(t[0]) + (t[1] if t[0] else "") + " ".join(
        [t[2], *t[3]]), **({"description": t[4].capitalize()} if t[4] else {})}))
search_call = st.tuples(st.sampled_from(["Grep", "Glob"]), words, st.one_of(
    st.just(""), st.lists(words, min_size=1, max_size=3).map(lambda p: "/work/app/" + "/".join(p)))).map(
    lambda t: (t[0], {"pattern": t[1] if t[0] == "Grep" else f"**/*{t[1]}.py",
                      **({"path": t[2]} if t[2] else {})}))
agent_call = st.tuples(st.sampled_from(["Task", "Agent"]), phrase,
                       st.sampled_from(["Explore", "general-purpose", "code-reviewer"])).map(
    lambda t: (t[0], {"description": t[1].capitalize(), "subagent_type": t[2],
                      "prompt": "do it"}))
mcp_call = st.tuples(ident, ident, st.sampled_from(_MAIN[:8]), phrase,
                     st.dictionaries(st.sampled_from(["limit", "page", "owner"]), words,
                                     max_size=2)).map(
    lambda t: (f"mcp__{t[0]}__{t[1]}", {**t[4], t[2]: t[3]}))
other_call = st.tuples(st.sampled_from(["KillShell", "TaskStop", "WebSearch", "Skill"]),
                       words).map(lambda t: (t[0], {_BY_KEY.get(t[0], "task_id"): t[1]}))
any_call = st.one_of(shell_call, search_call, agent_call, mcp_call, other_call)


@settings(max_examples=examples(25, 200), deadline=None)
@given(calls=st.lists(st.tuples(any_call, phrase), min_size=1, max_size=8))
def test_a_failed_call_of_any_tool_names_its_subject(
        tmp_path_factory: Any, calls: list[tuple[tuple[str, dict[str, Any]], str]]) -> None:
    """Failed calls of every kind (shell commands with a description or none
    and leading assignments, searches with a folder or none, subagents, MCP
    tools with any main argument among others, Claude Code's other tools),
    past five some told in a line each: each is told under Errors on a line of its tool that names what the
    input was about, beside what the tool said."""
    t = Transcript()
    t.prompt("do the work")
    for (tool, inp), said in calls:
        t.call(tool, inp, f"Error: {said}", f"<tool_use_error>{said}</tool_use_error>",
               error=True)
    t.say("It failed.")
    note = t.note(tmp_path_factory, "test_a_failed_call_of_any_tool_names_its_subject")
    lines = _errors_section(note)
    assert len(lines) == len(calls), note
    for ((tool, inp), said), line in zip(calls, lines, strict=True):
        label, named = expected(tool, inp)
        assert label in line, (line, tool, inp)
        # (a command's output is under its line when it is one of the last five)
        assert said in line or (tool == "Bash" and f"  {said}" in note), (line, tool, inp)
        for w in named:
            assert w in line, (w, line, tool, inp)
        if tool == "Bash":
            program = _first_command(str(inp["command"]))
            assert f"`{program}" in line, line  # the command's first real part leads
            if "description" in inp:
                assert line.index(_words(inp["description"])) < line.index(f"`{program}"), line


blank_command = st.lists(st.sampled_from([" ", "\n", "\t", "\x1b[31m", "\x1b[0m", "\u2028",
                                          "\r\n"]), min_size=1, max_size=6).map("".join)


@settings(max_examples=examples(20, 150), deadline=None)
@given(command=blank_command, said=st.one_of(st.just(""), phrase), times=st.integers(1, 7))
def test_a_command_with_no_words_left_is_named_by_its_description(
        tmp_path_factory: Any, command: str, said: str, times: int) -> None:
    """A failed command whose text is only blanks and terminal escapes (no
    words left once they are stripped): no empty code span anywhere in the
    note; the story and every Errors line name it by its description when
    it has one, and the output's first line is still told."""
    t = Transcript()
    t.prompt("run it")
    inp: dict[str, Any] = {"command": command, **({"description": said} if said else {})}
    for _ in range(times):
        t.call("Bash", inp, "Error: plainerror", "Exit code 1\nplainerror", error=True)
    t.say("It failed.")
    note = t.note(tmp_path_factory, "test_a_command_with_no_words_left_is_named_by_its_description")
    assert "``" not in note.replace("```", ""), note
    lines = _errors_section(note)
    assert len(lines) == times, note
    for line in lines:
        assert "**Bash**" in line, line
        if said:
            assert f"**Bash**: {said} failed" in line, line
    assert "plainerror" in note.split("\n## Errors\n", 1)[1], note
    if said:
        assert any(ln.startswith(f"- {said} — failed") for ln in note.splitlines()), note
