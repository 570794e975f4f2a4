"""A forked session's file opens with copies of the conversation it was forked
from; each session counts only its own API messages, so totals over sessions
(`vv stats`, project and home notes: sums of per-session figures) count each
message once.

Generated: chains of forks over real corpus sessions, laid out as Claude Code
lays a `--fork-session` file out (seen on 2.1.197 and 2.1.332: its own stamped
`queue-operation` first, then the earlier conversation copied with its uuids,
message ids and times, then the fork's own lines). The oracle is the JSON: the
usage of each distinct message id, counted once over all the files (the
snapshot with the most output), against the sum of the sessions' tokens and
table cost. A resume appends to its own file and copies nothing, so a chain of
resumes is the corpus file itself.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import main_files
from vibe_vault import pricing
from vibe_vault.entries import decode_lines
from vibe_vault.figures import tokens_by_model
from vibe_vault.fold import fold
from vibe_vault.fold.usage import tokens_of
from vibe_vault.state import Fold, SessionState, Tokens

pytestmark = pytest.mark.corpus

DAY = timedelta(days=1)


@cache
def sources() -> list[list[dict[str, Any]]]:
    """Corpus sessions with API messages, each a list of its JSON lines."""
    out = []
    for path in main_files():
        lines = []
        for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                o = json.loads(raw)
            except ValueError:
                continue
            if isinstance(o, dict):
                lines.append(o)
        if any(o.get("type") == "assistant" for o in lines):
            out.append(lines)
    return out


def _stamp(o: dict[str, Any]) -> datetime | None:
    ts = o.get("timestamp")
    if not isinstance(ts, str):
        return None
    try:
        t = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def own_lines(source: list[dict[str, Any]], n: int, sid: str,
              base: datetime) -> list[dict[str, Any]]:
    """Session `n`'s own lines: a corpus session's, its ids made its own (so
    no two generated sessions share a message) and its times moved to start
    at `base`."""
    stamps = [t for t in map(_stamp, source) if t is not None]
    start = min(stamps) if stamps else base
    out = []
    for o in source:
        o = json.loads(json.dumps(o))
        for key in ("uuid", "parentUuid", "requestId"):
            if isinstance(o.get(key), str):
                o[key] = f"{o[key]}-s{n}"
        m = o.get("message")
        if isinstance(m, dict) and isinstance(m.get("id"), str):
            m["id"] = f"{m['id']}-s{n}"
        data = o.get("data")
        outer = data.get("message") if isinstance(data, dict) else None
        inner = outer.get("message") if isinstance(outer, dict) else None
        if isinstance(inner, dict) and isinstance(inner.get("id"), str):
            inner["id"] = f"{inner['id']}-s{n}"
        t = _stamp(o)
        if t is not None:
            o["timestamp"] = (base + (t - start)).isoformat().replace("+00:00", "Z")
        if "sessionId" in o:
            o["sessionId"] = sid
        out.append(o)
    return out


def copied(parent: list[dict[str, Any]], sid: str) -> list[dict[str, Any]]:
    """What a fork copies of its parent: the conversation's lines (those with
    a uuid), uuids, ids and times kept, under the fork's session id."""
    out = []
    for o in parent:
        if isinstance(o.get("uuid"), str):
            o = dict(o)
            o["sessionId"] = sid
            out.append(o)
    return out


def usage_once(files: list[list[dict[str, Any]]]) -> dict[str, Tokens]:
    """The oracle: each distinct message id's usage (the snapshot with the
    most output), read from the JSON."""
    best: dict[str, Any] = {}
    # The keys of each streamed agent's messages, by file and agent; a Task
    # result's usage, once by its line (a fork's copy keeps the line's uuid).
    by_agent: dict[tuple[int, str], list[str]] = {}
    results: dict[str, tuple[tuple[int, str], dict[str, Any]]] = {}
    for n_file, lines in enumerate(files):
        for o in lines:
            m = o.get("message")
            key = None
            result = o.get("toolUseResult")
            if o.get("type") == "user" and isinstance(result, dict) \
                    and isinstance(result.get("usage"), dict):
                agent = (n_file, str(result.get("agentId") or ""))
                results.setdefault(str(o.get("uuid")), (agent, result["usage"]))
            if o.get("type") == "progress":
                # a subagent's message streamed into the main file
                data = o.get("data")
                outer = data.get("message") if isinstance(data, dict) else None
                m = outer.get("message") if isinstance(outer, dict) else None
                if isinstance(m, dict) and data.get("type") == "agent_progress" and \
                        outer.get("type") == "assistant":  # type: ignore[union-attr]
                    key = m.get("id") or o.get("uuid")
                    by_agent.setdefault(
                        (n_file, str(data.get("agentId"))), []).append(str(key))  # type: ignore[union-attr]
                else:
                    continue
            elif o.get("type") == "assistant" and isinstance(m, dict):
                key = m.get("id") or o.get("requestId") or o.get("uuid")
            if not isinstance(m, dict):
                continue
            u = m.get("usage")
            if not isinstance(u, dict) or not key or m.get("model") == "<synthetic>":
                continue
            if key not in best or (u.get("output_tokens") or 0) > \
                    (best[key][1].get("output_tokens") or 0):
                best[key] = (m.get("model") or "", u)
    # A Task's result carries its subagent's last message's usage: that is
    # the agent's streamed message with the same prompt counts (its output
    # the larger), else a message of its own, under the agent's model.
    prompt = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    for n, (agent, u) in enumerate(results.values()):
        keys = [k for k in by_agent.get(agent, []) if k in best]
        same = [k for k in keys if all((best[k][1].get(p) or 0) == (u.get(p) or 0)
                                       for p in prompt)]
        if same:
            model, had = best[same[-1]]
            if (u.get("output_tokens") or 0) > (had.get("output_tokens") or 0):
                best[same[-1]] = (model, {**had, "output_tokens": u.get("output_tokens")})
        else:
            model = best[keys[-1]][0] if keys else ""
            best[f"task result {n}"] = (model, u)
    return {k: tokens_of(model, _Usage(u)) for k, (model, u) in best.items()}  # type: ignore[arg-type]


class _Usage:
    """A usage object as the fold's `tokens_of` reads one."""

    def __init__(self, u: dict[str, Any]) -> None:
        self.input_tokens = u.get("input_tokens")
        self.output_tokens = u.get("output_tokens")
        self.cache_read_input_tokens = u.get("cache_read_input_tokens")
        self.cache_creation_input_tokens = u.get("cache_creation_input_tokens")
        cc = u.get("cache_creation")
        self.cache_creation = _Creation(cc) if isinstance(cc, dict) else None
        self.speed = u.get("speed")
        self.inference_geo = u.get("inference_geo")


class _Creation:
    def __init__(self, cc: dict[str, Any]) -> None:
        self.ephemeral_5m_input_tokens = cc.get("ephemeral_5m_input_tokens")
        self.ephemeral_1h_input_tokens = cc.get("ephemeral_1h_input_tokens")


def session_tokens(lines: list[dict[str, Any]], cut: int) -> dict[str, Tokens]:
    """The session's tokens by model, folded in two reads split at `cut`."""
    raw = [json.dumps(o).encode() for o in lines]
    facts = fold(Fold(), decode_lines(raw[:cut]))
    facts = fold(facts, decode_lines(raw[cut:]))
    return tokens_by_model(SessionState(session_id="s", fold=facts))


def _sum(parts: list[Tokens]) -> tuple[int, int, int, int]:
    return (sum(t.input for t in parts), sum(t.output for t in parts),
            sum(t.cache_read for t in parts), sum(t.cache_creation for t in parts))


def _cost(parts: list[Tokens]) -> float:
    prices = pricing.table()
    total = 0.0
    for t in parts:
        price = pricing.price_for(t.model, prices, t.context, t.fast)
        total += pricing.cost(t, price) if price is not None else 0.0
    return total


def first_prompt(lines: list[dict[str, Any]]) -> str | None:
    """The words of a session's first typed prompt (what its opening `enqueue`
    carries in a `claude -p` run)."""
    for o in lines:
        if o.get("type") != "user" or not isinstance(o.get("message"), dict):
            continue
        content = o["message"].get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            texts = [b.get("text") or "" for b in content
                     if isinstance(b, dict) and b.get("type") == "text"]
            if texts:
                return "\n".join(texts)
    return None


def _iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


@st.composite
def chains(draw: st.DrawFn) -> list[list[dict[str, Any]]]:
    """Session files: a corpus session, then forks, each of an earlier one
    (cut at any line, as a fork from an earlier point of it), with lines of
    its own from another corpus session. A fork opens `gap` after the last
    line it copies: a day, or less than the second a script chaining
    `claude -p` runs takes; its `enqueue` carries its own first prompt, and
    its copied answers name the session that asked (`requestSessionId`) as
    2.1.332 writes them, or not, as older clients do."""
    srcs = sources()
    n = draw(st.integers(1, 4))
    base = datetime(2026, 1, 1, tzinfo=UTC)
    files = [own_lines(srcs[draw(st.integers(0, len(srcs) - 1))], 0, "s0", base)]
    for i in range(1, n + 1):
        pick = draw(st.integers(0, len(files) - 1))
        parent = files[pick]
        upto = draw(st.integers(0, len(parent)))
        sid = f"s{i}"
        names_asker = draw(st.booleans())
        gap = draw(st.sampled_from([timedelta(milliseconds=50), timedelta(milliseconds=400),
                                    timedelta(milliseconds=950), DAY]))
        copies = copied(parent[:upto], sid)
        if names_asker:
            for o in copies:
                if o.get("type") == "assistant":
                    o["requestSessionId"] = o.get("requestSessionId") or f"s{pick}"
        stamps = [t for t in map(_stamp, copies) if t is not None]
        # Each session's own lines start after every earlier file's (a corpus
        # session spans far less than 400 days); the opening is `gap` after
        # the last copied line, or a second before its own lines.
        start = base + i * 400 * DAY
        opened = max(stamps) + gap if stamps else start - timedelta(seconds=1)
        if opened >= start:
            start = opened + timedelta(seconds=1)
        own = own_lines(srcs[draw(st.integers(0, len(srcs) - 1))], i, sid, start)
        opening: dict[str, Any] = {"type": "queue-operation", "operation": "enqueue",
                                   "sessionId": sid, "timestamp": _iso(opened)}
        prompt = first_prompt(own)
        if prompt is not None:
            opening["content"] = prompt
        if gap < timedelta(seconds=1) and not names_asker:
            # Within a second, an older client's copies show themselves only by
            # a prompt other than the fork's own: a copied conversation that
            # opens with the very words of the fork's prompt cannot be told
            # from it (and is counted twice rather than lost).
            told = first_prompt(copies)
            assume(prompt is not None and told is not None and told.strip() != prompt.strip()
                   and _starts_with_prompt(copies))
        files.append([opening, *copies, *own])
    return files


def _starts_with_prompt(lines: list[dict[str, Any]]) -> bool:
    """Whether the first conversation line is a user's (a copy that opens with
    an answer or a hook's line carries no prompt to tell it by)."""
    for o in lines:
        if o.get("type") in ("user", "assistant"):
            return o["type"] == "user" and first_prompt([o]) is not None
    return True


@pytest.mark.skipif(not main_files(), reason="needs the shared corpus")
@settings(max_examples=60, print_blob=False, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(files=chains(), cut=st.floats(0, 1))
def test_sessions_sum_to_each_message_once(files: list[list[dict[str, Any]]],
                                           cut: float) -> None:
    per_session = [session_tokens(lines, int(cut * len(lines))) for lines in files]
    ours = [t for by_model in per_session for t in by_model.values()]
    once = list(usage_once(files).values())
    assert _sum(ours) == _sum(once)
    assert abs(_cost(ours) - _cost(once)) < 1e-6


@pytest.mark.parametrize("lines", range(len(sources()) if main_files() else 0))
def test_no_corpus_session_is_taken_for_a_fork(lines: int) -> None:
    """No message id of the corpus is in two of its files: nothing in any of
    them is a copy, and every message counts in its own session."""
    src = sources()[lines]
    raw = [json.dumps(o).encode() for o in src]
    facts = fold(Fold(), decode_lines(raw))
    assert facts.copied == 0
    ours = list(tokens_by_model(SessionState(session_id="s", fold=facts)).values())
    assert _sum(ours) == _sum(list(usage_once([src]).values()))


@pytest.mark.skipif(not main_files(), reason="needs the shared corpus")
@settings(max_examples=30, print_blob=False, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(files=chains(), cut=st.floats(0, 1))
def test_a_file_claude_desktop_wrote_loses_nothing(files: list[list[dict[str, Any]]],
                                                   cut: float) -> None:
    """Claude Desktop (2.1.21x) opens its files with queue rows stamped hours
    after the conversation that follows (review 28, finding 10): there a file
    laid out as a fork is not taken for one by its times, and counts every
    message it holds, once (an older client's Desktop fork counts its copies
    again: twice over the sessions, never a message of its own lost). Only an
    answer naming another session as its asker (2.1.332) is a copy there."""
    for lines in files:
        desktop = [{**o, "entrypoint": "claude-desktop"} if o.get("uuid") else o
                   for o in lines]
        desktop = [{k: v for k, v in o.items() if k != "requestSessionId"} for o in desktop]
        ours = list(session_tokens(desktop, int(cut * len(desktop))).values())
        assert _sum(ours) == _sum(list(usage_once([desktop]).values()))
