"""Fact-check every note of the corpus against its transcript.

`vv backfill` writes a note for every corpus session; each fact below is then
derived here, straight from the JSON of the session's files (main transcript,
subagent files in every layout, inline sidechains, progress lines), written
independently of vv's code, and compared with what the note says.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from conftest import CORPUS, Env, frontmatter, has_assistant, main_files, session_files
from conftest import json_objects as objects
from test_corpus import expected_sid

pytestmark = pytest.mark.corpus  # every test here reads the shared corpus

EDIT_TOOLS = {"Edit", "MultiEdit", "Write", "NotebookEdit"}
COMMIT_CMD = re.compile(r"(^|[\s;&|(])git(\s+-[Cc]\s+\S+)*\s+commit\b")
COMMIT_LINE = re.compile(r"(?m)^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] ")
DENIED = ("The user doesn't want to", "Permission to use")


def blocks(obj: dict[str, Any]) -> list[dict[str, Any]]:
    msg = obj.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def result_text(obj: dict[str, Any], block: dict[str, Any]) -> str:
    r = obj.get("toolUseResult")
    if isinstance(r, dict) and r.get("stdout"):
        return str(r["stdout"])
    c = block.get("content")
    if isinstance(c, str):
        return c
    return "\n".join(str(x.get("text", "")) for x in c or [] if isinstance(x, dict))


class Facts:
    """What a session's files say, file by file, in the order written."""

    def __init__(self, main: Path, with_agents: bool = True) -> None:
        self.files: set[str] = set()
        self.commits = 0
        self.tool_ids: set[str] = set()
        self.bash_calls = 0
        self.models: set[str] = set()
        agents = session_files(main) if with_agents else []
        agent_ids = {o["agentId"] for a in agents for o in objects(a)
                     if isinstance(o.get("agentId"), str)}
        for path in [main, *agents]:
            self._read(path, main_file=path == main, agent_ids=agent_ids)

    def _read(self, path: Path, main_file: bool, agent_ids: set[str]) -> None:
        calls: dict[str, dict[str, Any]] = {}
        shas: set[str] = set()
        for o in objects(path):
            data = o.get("data")
            if (main_file and o.get("type") == "progress" and isinstance(data, dict)
                    and data.get("type") == "agent_progress"
                    and data.get("agentId") not in agent_ids):
                outer = data.get("message") or {}
                inner = outer.get("message") if isinstance(outer, dict) else None
                if isinstance(inner, dict) and inner.get("usage") and inner.get("model"):
                    self.models.add(inner["model"])
            if o.get("type") == "assistant":
                msg = o.get("message") or {}
                if msg.get("usage") and msg.get("model") not in (None, "<synthetic>"):
                    self.models.add(msg["model"])
            for b in blocks(o):
                if b.get("type") == "tool_use" and b.get("id") and b["id"] not in self.tool_ids:
                    self.tool_ids.add(b["id"])
                    calls[b["id"]] = b
                    self.bash_calls += b.get("name") == "Bash"
                elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                    call = calls.pop(b["tool_use_id"])
                    inp = call.get("input") if isinstance(call.get("input"), dict) else {}
                    failed = bool(b.get("is_error"))
                    if call.get("name") in EDIT_TOOLS and not failed:
                        path_ = inp.get("file_path") or inp.get("notebook_path")
                        if path_:
                            self.files.add(str(path_))
                    if call.get("name") == "Bash" and "git" in str(inp.get("command")):
                        found = COMMIT_LINE.findall(result_text(o, b))
                        new = [s for s in found if s not in shas]
                        shas.update(new)
                        self.commits += len(new)
                        if not found and not failed and COMMIT_CMD.search(
                                str(inp.get("command"))):
                            self.commits += 1


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = Env(tmp_path_factory.mktemp("facts"))
    r = env.vv("backfill", str(CORPUS))
    assert r.returncode == 0, r.stderr.decode()
    return {str(frontmatter(text)["session_id"]): text for text in env.notes().values()}


SESSIONS = [p for p in main_files() if has_assistant(p)]


@pytest.mark.parametrize("main", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_note_states_the_sessions_facts(notes: dict[str, str], main: Path) -> None:
    note = notes[str(expected_sid(main))]
    fm = frontmatter(note)
    facts = Facts(main)
    assert fm["files_changed"] == len(facts.files)
    assert fm.get("commits", 0) == facts.commits  # left out at zero
    assert fm["tool_calls"] == len(facts.tool_ids)
    assert fm["commands"] == facts.bash_calls
    assert set(fm["models"] or []) == facts.models
    body = note.split("\n## Files changed\n", 1)
    for path in facts.files:
        name = path.replace("\\", "/").rsplit("/", 1)[-1]
        assert len(body) == 2 and name in body[1], (path, "not in the Files section")


def test_the_corpus_has_each_kind_of_fact() -> None:
    """The checks above mean something only if the corpus exercises them."""
    with_agents = [m for m in SESSIONS if session_files(m)]
    assert len(with_agents) >= 3
    assert any(Facts(m).commits for m in SESSIONS)
    # Sessions where subagents changed files the main agent did not touch.
    assert any(Facts(m).files - Facts(m, with_agents=False).files for m in with_agents)
    assert any(Facts(m).commits > Facts(m, with_agents=False).commits for m in with_agents)
