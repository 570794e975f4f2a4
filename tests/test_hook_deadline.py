"""A hook's deadline bounds all its work, not only its reading.

The reader checked the deadline once per 1 MiB chunk: a chunk of the gate's
worst texts (8 prompts of 128 kB, `token: ` repeated) was folded whole after
it, seconds of CPU past a 3 s deadline (attack 26, "Slow inputs"; 20 s of wall
time on a loaded machine). Now no line is handed out that the lines before it
say cannot be used before the deadline: a hook ends within its deadline and
the cost of one line (and its start). What is left is read by the next hook or
backfill, and the note is the one a backfill alone writes.
"""

from __future__ import annotations

import io
import json
import random
import resource
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import Env, Transcript, examples, strip_status
from vibe_vault import reader
from vibe_vault.reader import LineReader

# -- the reader, on a clock the test moves -------------------------------------------


def _lines(pads: list[int]) -> bytes:
    return b"".join(json.dumps({"i": i, "pad": "x" * pad}).encode() + b"\n"
                    for i, pad in enumerate(pads))


@settings(max_examples=300, deadline=None)
@given(costs=st.lists(st.integers(0, 20), min_size=1, max_size=40),
       pads=st.data(), budget=st.integers(0, 60),
       chunk=st.sampled_from([16, 100, 1 << 20]))
def test_the_reader_hands_out_no_line_that_cannot_be_used_before_the_deadline(
        costs: list[int], pads: st.DataObject, budget: int, chunk: int) -> None:
    """Each line costs its caller `costs[i]` on the clock; reads follow one
    another, each with `budget` to go. Every line is handed out once, in
    order; a read started before its deadline hands out one line at least;
    no read's caller works past its deadline by more than one line's cost;
    and where every line costs the same, not past it at all."""
    widths = pads.draw(st.lists(st.integers(0, 40), min_size=len(costs), max_size=len(costs)))
    data = _lines(widths)
    clock = [0.0]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reader, "time", SimpleNamespace(monotonic=lambda: clock[0]))
        patch.setattr(reader, "CHUNK", chunk)
        got = _read_on(data, costs, budget, clock)
    if budget > 0:
        assert got == list(range(len(costs)))
    else:
        assert got == []


def _read_on(data: bytes, costs: list[int], budget: int, clock: list[float]) -> list[int]:
    """Reads one after another until the end (or three with no time), each
    with `budget` to go: the lines handed out, in order."""
    got: list[int] = []
    end = reads = 0
    while end < len(data):
        reads += 1
        assert reads <= len(costs) + 1 or budget == 0
        if budget == 0 and reads > 3:
            break  # (no time: no line is ever read, and none is lost)
        deadline = clock[0] + budget if budget else clock[0] - 1  # (0: passed already)
        r = LineReader(io.BytesIO(data), end, deadline, limit=len(data))
        handed = []
        for line in r:
            i = json.loads(bytes(line))["i"]
            handed.append(i)
            clock[0] += costs[i]
        got += handed
        if budget > 0:
            assert handed, "a read begun before its deadline reads a line"
        if handed:
            assert clock[0] <= deadline + max(costs[i] for i in handed)
            if len(set(costs)) == 1 and budget >= costs[0]:
                assert clock[0] <= deadline
        assert r.stopped_early == (r.end < len(data))
        end = r.end
    return got


# -- `vv hook` on the gate's worst texts -------------------------------------------------

SID = "dead11e0-0000-4000-8000-0000000000a1"
BASE_SID = "ba5e11e0-0000-4000-8000-0000000000b2"
# Texts each rule of the gate reads slowest, repeated (attack 26's slow.py).
UNITS = ["token: ", "secret_", "API_KEY", "a.key.", "https://a:", "curl -b ", "password="]
# What a hook adds to its deadline: one line's fold (a text the gate reads in
# ~0.3 s of CPU here at worst) and its note's render and save, with slack for a
# slower machine. Before, a chunk's lines were folded past it: 1–2 s here.
MARGIN_S = 0.8


def _worst(unit: str, length: int, n: int) -> str:
    if unit == "password=":  # key words among random ones: the worst of attack 26's
        rnd = random.Random(n)
        words = ["password", "token", "key", "secret", "=", ":"]
        out = " ".join(rnd.choice([*words, "".join(rnd.choices("abcdefgh0123", k=8))])
                       for _ in range(length // 6))
    else:
        out = unit * (length // len(unit) + 1)
    return out[: length - 6] + f" {n:05d}"


def _session(sid: str, texts: list[str], place: str) -> list[bytes]:
    start = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    t = Transcript(sid, "2.1.58", "default", cwd="/srv/app")
    tick = iter(range(10_000))

    def at() -> datetime:
        return start + timedelta(seconds=next(tick))

    def answer(n: int, content: list[dict[str, Any]]) -> None:
        t.add("assistant", at(), message={
            "id": f"msg_{n}", "role": "assistant", "model": "claude-opus-4-6",
            "content": content, "usage": {"input_tokens": 1, "output_tokens": 1}})

    if place == "blocks":  # all in one line
        t.add("user", at(), message={"role": "user", "content": [
            {"type": "text", "text": text} for text in texts]})
        answer(0, [{"type": "text", "text": "Done."}])
    for n, text in enumerate(texts if place != "blocks" else []):
        if place == "prompt":
            t.add("user", at(), message={"role": "user", "content": text})
        else:
            t.add("user", at(), message={"role": "user", "content": f"step {n}"})
        if place == "answer":
            answer(n, [{"type": "text", "text": text}])
            continue
        if place == "stdout":
            answer(n, [{"type": "tool_use", "id": f"toolu_{n}", "name": "Bash",
                        "input": {"command": "./gen.sh", "description": "Generate"}}])
            t.add("user", at(), message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": text}]})
        answer(n + 1000, [{"type": "text", "text": f"Done {n}."}])
    return [json.dumps(line).encode() for line in t.lines]


def _cpu_of(env: Env, event: dict[str, object]) -> tuple[Any, float]:
    """`vv hook` as a process, and the CPU seconds it took (its wall time on a
    loaded machine says more of the machine than of the hook)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = env.hook(event, timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


@settings(max_examples=examples(2, 6), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(unit=st.sampled_from(UNITS), length=st.integers(16_000, 64_000),
       count=st.integers(12, 32), place=st.sampled_from(["prompt", "stdout", "answer", "blocks"]),
       budget=st.sampled_from([0.3, 0.5]))
@example(unit="password=", length=32_000, count=40, place="prompt", budget=0.3)
@example(unit="token: ", length=128_000, count=12, place="answer", budget=0.3)
def test_a_stop_on_the_gates_worst_texts_ends_within_its_deadline_and_loses_nothing(
        tmp_path_factory: pytest.TempPathFactory, unit: str, length: int, count: int,
        place: str, budget: float) -> None:
    """Many large texts of the gate's worst shapes (prompts, tool outputs,
    answers; one line each, or all in one line), a Stop with a small deadline:
    it answers 0 and prints nothing, its CPU time is within what a Stop on a
    one-line session takes, its deadline and one line's margin; a backfill
    after it writes the note a backfill alone writes."""
    texts = [_worst(unit, length, n) for n in range(count)]
    blob = _session(SID, texts, place)
    hooked, alone, small = (Env(tmp_path_factory.mktemp(name))
                            for name in ("hooked", "alone", "small"))
    for env in (hooked, alone):
        env.transcript(SID, blob)
    for env in (hooked, small):
        env.configure(f"hook_deadline = {budget}\n")
    path = small.transcript(BASE_SID, _session(BASE_SID, ["hello"], "prompt"))
    event: dict[str, object] = {"hook_event_name": "Stop", "session_id": BASE_SID,
                                "transcript_path": str(path), "cwd": "/srv/app"}
    r, base = _cpu_of(small, event)
    assert r.returncode == 0 and r.stdout == b"", r.stderr
    path = hooked.claude / "projects" / "-srv-app" / f"{SID}.jsonl"
    r, took = _cpu_of(hooked, {**event, "session_id": SID, "transcript_path": str(path)})
    assert r.returncode == 0 and r.stdout == b"" and b"Traceback" not in r.stderr, r.stderr
    assert took <= base + budget + MARGIN_S, (took, base)
    hooked.configure()
    for env in (hooked, alone):
        r = env.vv("backfill", timeout=600)  # (120 s passed at load 23)
        assert r.returncode == 0, r.stderr.decode()
    got, want = hooked.notes(), alone.notes()
    assert len(want) == 1 and got.keys() == want.keys()
    for key, note in want.items():
        assert strip_status(got[key]) == strip_status(note)
