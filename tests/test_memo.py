"""The story's memo of settled turns (render.memo) changes no byte of a note.

Oracle: the same state rendered from scratch, with no memo. Sessions are
generated (prompts, answers, commands with and without results, edits,
subagent calls, model changes), read in generated steps as Stops read them,
with what a turn's lines depend on beside the turn changed between steps
(commands' durations, the session's status, the zone, thinking shown); the
memo goes through the state's msgpack as a Stop's does. The fold law holds
as before: the steps fold to what one read of the whole does.
"""


import json
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, strip_status
from vibe_vault.entries import decode_line
from vibe_vault.figures import RenderOptions
from vibe_vault.fold import HEAD_TURNS, TAIL_TURNS, fold
from vibe_vault.render import memo as memo_module
from vibe_vault.render import render
from vibe_vault.render.memo import Memo
from vibe_vault.state import Fold, SessionState, decode_state, encode_state

SID = "5e7a0c1d-0000-4000-8000-00000000a001"
CWD = "/work/app"
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
phrase = st.lists(words, min_size=1, max_size=8).map(" ".join)
# An answer in paragraphs, a heading or a code block now and then: the gist
# of a settled turn's answer is cut from it.
answer = st.lists(st.one_of(phrase, phrase.map(lambda p: "## " + p),
                            phrase.map(lambda p: "```\n" + p + "\n```"),
                            phrase.map(lambda p: p + ":")), min_size=1, max_size=4
                  ).map("\n\n".join)


class Session:
    """Transcript lines of one session, each a second after the last."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.clock = count()
        self.ids = count(1)
        self.model = "claude-sonnet-4-5"

    def _base(self, kind: str) -> dict[str, Any]:
        n = next(self.clock)
        return {"type": kind, "uuid": f"{SID[:8]}-0000-4000-8000-{next(self.ids):012d}",
                "parentUuid": self.lines[-1]["uuid"] if self.lines else None,
                "sessionId": SID, "cwd": CWD, "version": "2.1.50",
                "timestamp": f"2026-03-01T{10 + n // 3600:02d}:{n // 60 % 60:02d}:"
                             f"{n % 60:02d}.000Z"}

    def prompt(self, text: str) -> None:
        self.lines.append({**self._base("user"), "message": {"role": "user", "content": text}})

    def assistant(self, content: list[dict[str, Any]]) -> None:
        self.lines.append({**self._base("assistant"), "message": {
            "id": f"msg_{len(self.lines)}", "role": "assistant", "model": self.model,
            "content": content, "usage": {"input_tokens": 3, "output_tokens": 5}}})

    def call(self, name: str, inp: dict[str, Any], result: Any, text: str,
             error: bool, answered: bool) -> None:
        tid = f"toolu_{len(self.lines):04d}"
        self.assistant([{"type": "tool_use", "id": tid, "name": name, "input": inp}])
        if not answered:
            return  # its result never comes: the action stays unfinished
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": text}
        if error:
            block["is_error"] = True
        line = {**self._base("user"), "message": {"role": "user", "content": [block]}}
        if result is not None:
            line["toolUseResult"] = result
        self.lines.append(line)

    def encoded(self) -> list[bytes]:
        return [json.dumps(x).encode() for x in self.lines]


@st.composite
def sessions(draw: st.DrawFn) -> Session:
    s = Session()
    # Short sessions, and long ones whose middle turns are dropped.
    turns = draw(st.one_of(st.integers(1, 12),
                           st.integers(HEAD_TURNS + TAIL_TURNS - 2, HEAD_TURNS + TAIL_TURNS + 6)))
    for _ in range(turns):
        s.prompt(draw(phrase))
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(["bash", "edit", "agent", "model", "thinking",
                                         "commit", "move"]))
            # A subagent with no result yet is told by the session's status.
            answered = draw(st.booleans()) or (kind != "agent" and draw(st.booleans()))
            error = draw(st.booleans()) and not draw(st.booleans())
            if kind == "bash":
                command = f"cd {CWD}/{draw(words)} && {draw(phrase)}"
                inp = {"command": command}
                if draw(st.booleans()):
                    inp["description"] = draw(phrase)
                s.call("Bash", inp, {"stdout": draw(phrase), "stderr": "",
                                     "interrupted": False}, "out", error, answered)
            elif kind == "commit":
                subject = draw(phrase)
                sha = f"{draw(st.integers(0, 16**7 - 1)):07x}"
                s.call("Bash", {"command": f'git commit -am "{subject}"'},
                       {"stdout": f"[main {sha}] {subject}\n 1 file changed", "stderr": "",
                        "interrupted": False}, f"[main {sha}] {subject}", error, answered)
            elif kind == "move":
                old, new = draw(words), draw(words)
                s.call("Bash", {"command": f"git mv src/{old}.py src/{new}.py"},
                       {"stdout": "", "stderr": "", "interrupted": False}, "", error, answered)
            elif kind == "edit":
                path = f"{CWD}/src/{draw(words)}.py"
                s.call("Write", {"file_path": path, "content": draw(phrase) + "\n"},
                       {"type": "create", "filePath": path}, "written", error, answered)
            elif kind == "agent":
                s.call("Task", {"description": draw(phrase), "prompt": draw(phrase),
                                "subagent_type": "general-purpose"},
                       {"status": "completed", "content": [{"type": "text", "text": "done"}]},
                       "done", False, answered)
            elif kind == "model":
                s.model = draw(st.sampled_from(["claude-sonnet-4-5", "claude-opus-4-1"]))
            else:
                s.assistant([{"type": "thinking", "thinking": draw(phrase), "signature": "x"}])
        if draw(st.booleans()) or draw(st.booleans()):
            s.assistant([{"type": "text", "text": draw(answer)}])
    return s


ZONES = ["", "UTC", "Asia/Kolkata", "America/New_York"]


# (data_too_large: a long session, over HEAD_TURNS + TAIL_TURNS turns, often draws
# more than hypothesis's buffer holds; such a draw is set aside and another made,
# and the health check that counts them failed a run now and then, by its seed.)
@settings(max_examples=examples(12, 40), deadline=None,
          suppress_health_check=[HealthCheck.data_too_large])
@given(session=sessions(), data=st.data())
def test_a_note_made_with_the_memo_is_the_note_made_without(session: Session,
                                                             data: st.DataObject) -> None:
    lines = session.encoded()
    cuts = sorted(data.draw(st.lists(st.integers(0, len(lines)), max_size=6)))
    thinking = data.draw(st.booleans())  # as the fold was asked to keep it
    state = SessionState(session_id=SID, project="app", fold=Fold(keeps_thinking=thinking))
    at = 0
    for cut in [*cuts, len(lines), len(lines)]:  # the last read again: nothing new
        fold(state.fold, (decode_line(x) for x in lines[at:cut]), keep_thinking=thinking)
        at = max(at, cut)
        # What a turn's lines depend on beside the turn, changed between Stops.
        bash = [a for t in state.fold.turns for a in t.actions if a.kind == "bash" and a.tool_id]
        for a in data.draw(st.lists(st.sampled_from(bash), max_size=3)) if bash else []:
            state.durations[a.tool_id] = data.draw(st.integers(0, 200_000))
        state.status = data.draw(st.sampled_from(["active", "ended"]))
        opts = RenderOptions(show_thinking=data.draw(st.booleans()),
                             timezone=data.draw(st.sampled_from(ZONES)))
        # Saved and loaded as a Stop does.
        loaded = decode_state(encode_state(state))
        assert loaded is not None
        state = loaded
        memo = Memo(state.rendered, state.rendered_parts)
        with_memo = render(state, opts, memo=memo)
        assert with_memo == render(state, opts)
        state.rendered = memo.new
        state.rendered_parts = memo.new_parts
        # Rendered again as it is: every settled turn comes from the memo, and
        # every part of the other sections.
        again = Memo(state.rendered, state.rendered_parts)
        assert render(state, opts, memo=again) == with_memo
        assert again.hits == max(0, len(state.fold.turns) - 1)
        assert again.parts_made == 0 and (again.part_hits > 0) == bool(state.rendered_parts)
        assert again.new_parts == state.rendered_parts
    # The fold law: read in steps, the same facts as one read of the whole.
    whole = fold(Fold(keeps_thinking=thinking), (decode_line(x) for x in lines),
                 keep_thinking=thinking)
    assert encode_state(SessionState(fold=state.fold)) == encode_state(SessionState(fold=whole))


def test_a_memo_kept_by_other_code_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rendering kept by another version of the renderer renders again."""
    s = Session()
    for k in range(5):
        s.prompt(f"step {k}")
        s.call("Write", {"file_path": f"{CWD}/src/f{k}.py", "content": "x\n"},
               {"type": "create", "filePath": f"{CWD}/src/f{k}.py"}, "written", False, True)
        s.assistant([{"type": "text", "text": f"did step {k}"}])
    state = SessionState(session_id=SID, fold=fold(Fold(), (decode_line(x) for x in s.encoded())))
    memo = Memo([])
    note = render(state, memo=memo)
    assert len(memo.new) == 4
    assert len(memo.new_parts) == 5  # a row of "Files changed" each
    kept = Memo(memo.new, memo.new_parts)
    assert render(state, memo=kept) == note and kept.part_hits == 5
    monkeypatch.setattr(memo_module, "code_stamp", lambda: b"another renderer")
    other = Memo(memo.new, memo.new_parts)
    assert render(state, memo=other) == note
    assert other.hits == 0 and other.part_hits == 0


def test_a_kept_part_is_used_only_for_equal_arguments() -> None:
    """A part is filed under what it is made of: a part made of other
    arguments, or by another function of the same arguments, is not used."""
    from vibe_vault.markdown import md

    def one(x: str) -> list[Any]:
        return [md("one {}", x)]

    def two(x: str) -> list[Any]:
        return [md("two {}", x)]

    memo = Memo([])
    assert memo.part(one, "a") == ["one a"] and memo.part(one, "b") == ["one b"]
    kept = Memo([], memo.new_parts)
    assert kept.part(two, "a") == ["two a"] and kept.part(one, "c") == ["one c"]
    assert kept.part_hits == 0
    assert kept.part(one, "a") == ["one a"] and kept.part_hits == 1


@pytest.mark.parametrize("seed", range(3))
def test_stops_through_the_hook_write_the_note_a_backfill_does(tmp_path: Path,
                                                                seed: int) -> None:
    """End to end: `vv hook` Stops while the session grows (the memo kept in the
    state between them) write the note one `vv backfill` of the whole writes."""
    import random

    rng = random.Random(seed)
    s = Session()
    for k in range(HEAD_TURNS + TAIL_TURNS + 4):
        s.prompt(f"turn {k} " + " ".join(rng.choice(["fix", "add", "test", "run"])
                                          for _ in range(3)))
        s.call("Bash", {"command": f"cd {CWD} && make t{k}", "description": f"build {k}"},
               {"stdout": "ok", "stderr": "", "interrupted": False}, "ok",
               rng.random() < 0.2, rng.random() < 0.9)
        s.assistant([{"type": "text", "text": f"## Turn {k}\n\nDone with {k}.\n\nMore."}])
    lines = s.encoded()
    here = seed > 0  # (seed 0 runs `vv` as processes, whichever worker takes it)
    hook_env = Env(tmp_path / "hook")
    hook = hook_env.hook_here if here else hook_env.hook
    path = hook_env.claude / "projects" / "-work-app" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    event = {"session_id": SID, "transcript_path": str(path), "cwd": CWD,
             "hook_event_name": "Stop"}
    cuts = [*sorted(rng.sample(range(1, len(lines)), 5)), len(lines)]
    for cut in cuts:
        path.write_bytes(b"".join(x + b"\n" for x in lines[:cut]))
        r = hook(event)
        assert r.returncode == 0 and r.stdout == b"" and b"Traceback" not in r.stderr
    saved = decode_state((hook_env.state / "sessions" / f"{SID}.state").read_bytes())
    assert saved is not None and len(saved.rendered) == HEAD_TURNS + TAIL_TURNS - 1
    r = hook({**event, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
    assert r.returncode == 0 and r.stdout == b""
    one_env = Env(tmp_path / "one")
    one_path = one_env.claude / "projects" / "-work-app" / f"{SID}.jsonl"
    one_path.parent.mkdir(parents=True)
    one_path.write_bytes(path.read_bytes())
    r = (one_env.vv_here if here else one_env.vv)("backfill")
    assert r.returncode == 0, r.stderr
    hook_notes, one_notes = hook_env.notes(), one_env.notes()
    assert hook_notes.keys() == one_notes.keys() and len(hook_notes) == 1
    for key, note in hook_notes.items():
        assert "status: ended" in note
        assert strip_status(note) == strip_status(one_notes[key])


@pytest.mark.parametrize("renderer", ["vibe_vault.render.story", "vibe_vault.render.work"])
def test_the_code_stamp_covers_every_module_the_story_is_made_by(renderer: str) -> None:
    """A module render.story (or render.work, whose parts are kept too) takes
    anything from is one whose edit must make the kept renderings stale:
    RENDERERS names each (vibe_vault.fold gives only HEAD_TURNS, which places
    the dropped-turns line, not a turn's lines)."""
    import ast
    import importlib

    story = importlib.import_module(renderer)
    used = set()
    for node in ast.walk(ast.parse(Path(str(story.__file__)).read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("vibe_vault"):
            if node.module == "vibe_vault":  # `from vibe_vault import text as tx`
                used.update(f"vibe_vault.{a.name}" for a in node.names)
            else:
                used.add(str(node.module))
        elif isinstance(node, ast.Import):
            used.update(a.name for a in node.names if a.name.startswith("vibe_vault"))
    assert "vibe_vault.markdown" in used and "vibe_vault.text" in used
    assert used - {"vibe_vault.fold"} <= set(memo_module.RENDERERS)


def test_a_section_kept_whole_keeps_its_rows() -> None:
    """The commands' digest is kept whole while nothing it is made of changes,
    its rows with it; a new run makes the digest again from the kept rows
    and the one new row (a failed run: its error is a part too)."""
    s = Session()
    for k in range(3):
        s.prompt(f"check {k}")
        s.call("Bash", {"command": f"pytest -k case{k}"},
               {"stdout": "1 passed", "stderr": "", "interrupted": False}, "ok", False, True)
        s.assistant([{"type": "text", "text": f"ran {k}"}])
    lines = s.encoded()
    state = SessionState(session_id=SID, fold=fold(Fold(), (decode_line(x) for x in lines)))
    first = Memo([])
    note = render(state, memo=first)
    assert first.parts_made == 4  # the digest, and a row for each test run
    again = Memo(first.new, first.new_parts)
    assert render(state, memo=again) == note
    assert (again.parts_made, again.part_hits) == (0, 1)
    assert again.new_parts == first.new_parts  # the rows kept with the digest
    s.prompt("check 3")
    s.call("Bash", {"command": "pytest -k case3"},
           {"stdout": "1 failed", "stderr": "", "interrupted": False}, "failed", True, True)
    grown = SessionState(session_id=SID, fold=fold(Fold(), (decode_line(x) for x in s.encoded())))
    later = Memo(again.new, again.new_parts)
    assert render(grown, memo=later) == render(grown)
    # made: the digest, the new run's row, and its entry under Errors
    assert (later.parts_made, later.part_hits) == (3, 3)
