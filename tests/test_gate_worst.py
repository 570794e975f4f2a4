"""The redaction gate never hurts a hook, whatever the text: its time grows
linearly with a text's length for every rule of the table, on texts built to
be each rule's worst case (`bench/gate_worst.py`: its triggers and samples'
heads repeated, unclosed quotes, runs of a value's alphabet); a huge text is
read in overlapping pieces, in bounded time, and a secret planted anywhere in
it (on a piece's border too) is still hidden; `vv hook` on a transcript
holding such a text exits 0 in its deadline.

The growth check is a ratio, not a time: a rule's time on a text sixteen
times longer, against its time on the shorter one (near 16 linear, near 256
quadratic), the least of five runs each, measured again before it fails.
Speed goals themselves live in bench/gate_worst.py.
"""

from __future__ import annotations

import json
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, Transcript, examples

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import gate_worst  # noqa: E402

from vibe_vault import redact  # noqa: E402
from vibe_vault.redact import PIECE, Redactor  # noqa: E402
from vibe_vault.secret_keys import JWT_START  # noqa: E402
from vibe_vault.secret_rules import RULES, expand  # noqa: E402

# Linear growth from SHORT to LONG is LONG / SHORT (16); quadratic, its square.
SHORT, LONG = 2_000, 32_000
GROWTH_LIMIT = 64  # four times linear, a quarter of quadratic
# Every text is first run once at SHORT and at SCREEN (linear: x8): one that
# grows over SCREEN_GROWTH there, and takes over SCREEN_FLOOR seconds at
# SCREEN, is measured with care (a quadratic rule that cheap there costs under
# 0.1 s at 256 kB; a single run is noisy, so the screen lets many through).
SCREEN, SCREEN_GROWTH, SCREEN_FLOOR = 16_000, 16, 0.001
CAP = 5.0  # seconds a measurement may take (a quadratic rule's, at LONG)


def _growth(redactor: Redactor, i: int, label: str) -> float:
    """Rule `i`'s time on its text `label` at LONG over its time at SHORT,
    the least of five runs each (infinite when stopped at CAP)."""
    texts = {size: dict(gate_worst.adversaries(RULES[i], size))[label] for size in (SHORT, LONG)}
    short = gate_worst.rule_time(redactor, i, texts[SHORT], CAP, 5)
    long = gate_worst.rule_time(redactor, i, texts[LONG], CAP, 5)
    return float("inf") if long >= CAP else long / max(short, 1e-6)


def test_every_rule_grows_linearly_on_its_worst_texts(thorough: bool) -> None:
    """Every rule (the table enumerated: a rule added later is covered), each
    of its adversarial texts (in the default run, a few of its first
    trigger's and its first sample's; all with --slow and in CI)."""
    redactor = Redactor()
    super_linear = []
    measured = 0
    for i, rule in enumerate(RULES):
        short = dict(gate_worst.adversaries(rule, SHORT))
        texts = gate_worst.adversaries(rule, SCREEN)
        if not thorough:  # (a few of each rule's, in a minute)
            word = rule.triggers[0].strip() if rule.triggers else ""
            texts = [(label, text) for label, text in texts
                     if label in (f"trigger {word!r} + {sep!r}" for sep in ("", " ", "=", ": "))
                     or label.startswith("sample 1's head")]
        for label, text in texts:
            measured += 1
            took = gate_worst.rule_time(redactor, i, text, CAP)
            if took < SCREEN_FLOOR or took < SCREEN_GROWTH * gate_worst.rule_time(
                    redactor, i, short[label], CAP):
                continue
            if _growth(redactor, i, label) > GROWTH_LIMIT:
                grew = _growth(redactor, i, label)  # (again: a load's burst is not the rule's)
                if grew > GROWTH_LIMIT:
                    super_linear.append(f"{rule.id} #{i} on {label}: x{grew:.0f}")
    assert measured > len(RULES)
    assert not super_linear, super_linear


def test_the_growth_check_finds_a_quadratic_rule() -> None:
    """The check above can fail: a rule scanning to the line's end from each
    occurrence of its word (as `cookie`'s did) grows as the square."""
    redactor = Redactor()
    i = next(i for i, r in enumerate(RULES) if r.id == "cookie" and "curl" in r.triggers)
    kind, _ = redactor._rules[i]
    quadratic = r"\bcurl\b[^\n]*?(?<![\w\-])(?:-b|--cookie)(?:[ \t]+|=)(?P<v>\S+=\S+)"
    redactor._rules[i] = (kind, quadratic)
    assert _growth(redactor, i, "trigger 'curl' + ' '") > GROWTH_LIMIT


# -- the whole gate: loops over matches, learned values, the undressing… -------

# A token's head repeated, glued or with a dot, a space, `_` or `-` between
# (attack 26: `eyJhbGci` * 40_000 took 2.7 s, 20_000 0.72 s): the whole gate
# read, as a slowness may lie outside any one rule's pattern (a loop over
# matches, the readings after the rules, the overlap's re-run).
_HEADS = ("eyJhbGci", "eyJ", "eyJhbGciOiJIUzI1NiJ9", "ghp_", "github_pat_", "sk-ant-",
          "sk-proj-", "xoxb-", "glpat-", "AKIA", "sk_live_", "AIza", "npm_", "hf_",
          "dp.st.", "lin_api_", "ZXlK", "ey")
_GLUES = ("", ".", " ", "_", "-", "\n.", ".\n")


def _vendor_heads() -> list[str]:
    """Each shaped rule's first sample's secret: its first 4 and 8 characters."""
    heads: dict[str, None] = {}
    for rule in RULES:
        if rule.samples and rule.how == "shaped":
            secret = expand(rule.samples[0], random.Random(rule.id)).secret
            for k in (4, 8):
                if len(secret) > k:
                    heads[secret[:k]] = None
    return list(heads)


def _gate_time(redactor: Redactor, text: str, repeat: int = 1) -> float:
    return gate_worst.timed(lambda: redactor.redact(text), CAP, repeat)


def _gate_growth(redactor: Redactor, unit: str) -> float:
    """The whole gate's time on `unit` repeated to LONG over SHORT (infinite
    when stopped at CAP), the least of five runs each."""
    short = _gate_time(redactor, gate_worst._filled(unit, SHORT), 5)
    long = _gate_time(redactor, gate_worst._filled(unit, LONG), 5)
    return float("inf") if long >= CAP else long / max(short, 1e-6)


def test_the_whole_gate_grows_linearly_on_a_token_head_repeated(thorough: bool) -> None:
    """The gate, not one rule, on each head above (and with --slow and in CI,
    every shaped rule's sample's head) repeated with each glue."""
    redactor = Redactor()
    redactor.redact("warm up: the patterns compiled")
    heads = list(_HEADS) + (_vendor_heads() if thorough else [])
    super_linear = []
    for head in dict.fromkeys(heads):
        for glue in _GLUES:
            unit = head + glue
            took = _gate_time(redactor, gate_worst._filled(unit, SCREEN))
            if took < SCREEN_FLOOR * 5 or took < SCREEN_GROWTH * _gate_time(
                    redactor, gate_worst._filled(unit, SHORT)):
                continue
            if _gate_growth(redactor, unit) > GROWTH_LIMIT:
                grew = _gate_growth(redactor, unit)  # (again: a load's burst is not the gate's)
                if grew > GROWTH_LIMIT:
                    super_linear.append(f"{unit!r}: x{grew:.0f}")
    assert not super_linear, super_linear


def test_the_whole_gate_check_finds_a_quadratic_jwt() -> None:
    """The check above can fail: the cut JWT's rule as it was before attack
    26's finding (each `eyJ` of a run tried to the run's end) grows as the
    square on `eyJhbGci` repeated."""
    redactor = Redactor()
    i = next(i for i, r in enumerate(RULES) if r.id == "jwt" and r.triggers == ("eyj",))
    kind, pattern = redactor._rules[i]
    redactor._rules[i] = (kind, pattern.replace(JWT_START, "", 1))
    assert redactor._rules[i][1] != pattern
    assert _gate_growth(redactor, "eyJhbGci") > GROWTH_LIMIT


# -- huge texts: pieces, and what is not read in time ------------------------------

_FILLERS = {
    "words": "the build ran and the tests passed so we moved on to the next step ",
    "one run": "a1b2c3d4e5f6g7h8",
    "paths": "/usr/local/lib/python3.12/site-packages/pkg/mod.py:12 ",
    "lines": "INFO request handled in 12 ms\n",
}
_FORMS = [(i, t) for i, r in enumerate(RULES) for t in r.samples]


@settings(max_examples=examples(12, 80), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(form=st.sampled_from(_FORMS), seed=st.integers(0, 2**32 - 1),
       filler=st.sampled_from(sorted(_FILLERS)), size=st.integers(140_000, 300_000),
       border=st.booleans(), data=st.data())
def test_a_secret_planted_anywhere_in_a_huge_text_is_hidden(
        form: tuple[int, str], seed: int, filler: str, size: int, border: bool,
        data: st.DataObject) -> None:
    """Each form of the table (its sample, a fresh secret drawn), planted on a
    line of its own in a huge text: anywhere, or across a piece's border (the
    pieces are PIECE characters apart where no line ends near)."""
    sample = expand(form[1], random.Random(seed))
    planted = "\n" + sample.text + "\n"
    if border:
        borders = list(range(PIECE, size, PIECE))
        at = data.draw(st.sampled_from(borders)) - data.draw(
            st.integers(0, len(planted) + 64))
    else:
        at = data.draw(st.integers(0, size))
    unit = _FILLERS[filler]
    before = (unit * (at // len(unit) + 1))[:at]
    after = (unit * ((size - at) // len(unit) + 1))[:size - at]
    text = before + planted + after
    assert len(text) > redact.HUGE_TEXT
    out, n = Redactor().redact(text)
    assert sample.secret not in out, (RULES[form[0]].id, at)
    assert n >= 1
    # Nothing else is hidden: the filler before it is shown whole (a piece's
    # border makes no marker of its own).
    assert out.startswith(before[:max(0, at - 2_000)])


@settings(max_examples=examples(5, 25), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(size=st.integers(redact.HUGE_TEXT + 1, 400_000),
       unit=st.sampled_from(sorted(_FILLERS.values())))
def test_a_huge_text_not_read_by_the_deadline_is_withheld(size: int, unit: str) -> None:
    """A hook's deadline come: nothing of a huge text is shown unread."""
    text = (unit * (size // len(unit) + 1))[:size]
    redactor = Redactor()
    redactor.deadline = time.monotonic() - 1
    out, n = redactor.redact(text)
    assert out == f"[REDACTED:unchecked ({size} characters withheld)]"
    assert n == 1


def test_a_huge_text_is_read_in_bounded_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its time spent, the rest of a huge text is withheld, what was read
    shown as the gate left it: with a budget of 0, a piece at most is read."""
    monkeypatch.setattr(redact, "HUGE_TEXT_BUDGET", 0.0)
    text = ("word " * 100_000)[:400_000]
    pieces = []
    real = Redactor._redact_read

    def counted(self: Redactor, piece: str, found: list[str] | None = None) -> tuple[str, int]:
        pieces.append(len(piece))
        return real(self, piece, found)

    monkeypatch.setattr(Redactor, "_redact_read", counted)
    out, n = Redactor().redact(text)
    assert len(pieces) <= 1
    read = redact.PIECE if pieces else 0
    marker = f"[REDACTED:unchecked ({len(text) - read} characters withheld)]"
    assert out == text[:read] + marker
    assert n == 1


# -- end to end ------------------------------------------------------------------

SID = "9a7e0c1d-0000-4000-8000-00000000a256"


def test_a_hook_on_a_huge_adversarial_text_exits_0_in_its_deadline(env: Env) -> None:
    """`vv hook` (a process) on a Stop whose transcript holds a 256 kB one-line
    text built to be the gate's worst case (`curl -b ` repeated), as a failed
    tool's output and as the user's next prompt (the fold gates up to 64 kB of
    each: before 4ee5c2d that took ~16 s), a token planted in it: it answers
    0, silent, within its deadline and a start's slack, and the token is
    nowhere in the vault or state."""
    token = "ghp_" + "".join(random.Random(7).choice("abcdefghijkmnopqrstuvwxyzAB23456789")
                             for _ in range(36))
    text = ("curl -b " * 40_000)[:30_000] + " " + token + " " + ("curl -b " * 40_000)
    text = text[:256_000]
    assert token in text and "\n" not in text
    start = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    transcript = Transcript(SID, "2.1.58", "default", cwd="/srv/app")
    transcript.add("user", start, message={"role": "user", "content": "fetch the page"})
    transcript.add("assistant", start + timedelta(seconds=2), message={
        "id": "msg_1", "role": "assistant", "model": "claude-opus-4-6",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                     "input": {"command": "cat page.txt", "description": "Show the page"}}],
        "usage": {"input_tokens": 1, "output_tokens": 1}})
    transcript.add("user", start + timedelta(seconds=3), message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": text, "is_error": True}]})
    transcript.add("assistant", start + timedelta(seconds=5), message={
        "id": "msg_2", "role": "assistant", "model": "claude-opus-4-6",
        "content": [{"type": "text", "text": "The command failed."}],
        "usage": {"input_tokens": 1, "output_tokens": 1}})
    transcript.add("user", start + timedelta(seconds=9), message={"role": "user", "content": text})
    path = env.transcript(SID, [json.dumps(line).encode() for line in transcript.lines])
    deadline = 3.0
    env.configure(f"hook_deadline = {deadline}\n")
    began = time.monotonic()
    r = env.hook({"hook_event_name": "Stop", "session_id": SID,
                  "transcript_path": str(path), "cwd": "/srv/app"}, timeout=120)
    took = time.monotonic() - began
    assert r.returncode == 0 and r.stdout == b"" and b"Traceback" not in r.stderr, r.stderr
    assert took < deadline + 10, took  # (a start's slack, on a loaded machine)
    assert not env.traces(token, SID)
    assert env.notes()
