"""`vv doctor`'s format-drift line names fields read from transcripts: each
passes the redaction gate and is made safe for a terminal (issue 27). The
names are generated: a planted token, control characters, escape sequences
and bidi overrides, in the field's name and in the version beside it."""

from __future__ import annotations

import json
import re
import string
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process

ALNUM = string.ascii_letters + string.digits
# Forms the gate knows (the other helper's table grows; these are settled).
# (random-looking: a run like 000… is a placeholder the gate rightly lets be)
TOKENS = st.tuples(st.sampled_from(["ghp_", "npm_", "glpat-"]),
                   st.text(alphabet=ALNUM, min_size=36, max_size=36).filter(
                       lambda t: len(set(t[:20])) >= 12)).map(
    lambda t: t[0] + t[1][: 20 if t[0] == "glpat-" else 36])
NASTY = st.sampled_from(["\x1b[2J", "\x1b]0;owned\x07", "\x1b[31m", "\r", "\n", "\t", "\x00",
                         "\x7f", "\x9b31m", "\u202e", "\u2066", "\u2028", "\b\b\b"])


@st.composite
def hostile_names(draw: st.DrawFn) -> tuple[str, str]:
    """(a field name, the token planted in it or in the version beside it)."""
    token = draw(TOKENS)
    parts = draw(st.lists(st.one_of(NASTY, st.text(alphabet=ALNUM, min_size=1, max_size=6)),
                          max_size=4))
    at = draw(st.integers(0, len(parts)))
    parts.insert(at, draw(st.sampled_from([token, f"token={token}", f"{token} "])))
    # Not glued to letters or digits (`abcghp_…` is the gate's to learn, not this test's).
    seps = draw(st.lists(st.one_of(NASTY, st.sampled_from([" ", ".", "/", "-", ":"])),
                         min_size=len(parts), max_size=len(parts)))
    return "".join(sep + part for sep, part in zip(seps, parts, strict=True)), token


@settings(max_examples=examples(6, 40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # (a shrink runs for minutes)
@given(st.lists(hostile_names(), min_size=1, max_size=3), st.booleans())
def test_unknown_fields_are_gated_and_escaped(names: list[tuple[str, str]],
                                              in_version: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = Env(Path(tmp))
        env.here = in_process("doctor drift")
        folder = env.claude / "projects" / "-srv-app"
        folder.mkdir(parents=True)
        lines = []
        for name, _ in names:
            entry: dict[str, object] = {"type": "user", "uuid": "u1", "sessionId": "s",
                                        "timestamp": "2026-05-01T10:00:00Z",
                                        "message": {"role": "user", "content": "hi"}}
            if in_version:
                entry["version"] = name
                entry["newField" + str(len(lines))] = 1
            else:
                entry["version"] = "2.1.300"
                entry[name] = 1
            lines.append(json.dumps(entry))
        # (the first line of the last megabyte is left out: it may be cut)
        body = "\n".join([lines[0], *lines]) + "\n"
        (folder / "0b16ff5a-d98c-4e56-b656-4a62f03af9e1.jsonl").write_text(body)
        plain = env.vv("doctor")
        as_json = env.vv("doctor", "--json")
        drift = [line for line in plain.stdout.decode().splitlines()
                 if "format drift" in line]
        assert len(drift) == 1 and "field" in drift[0], plain.stdout
        for _, token in names:
            for out in (plain.stdout + plain.stderr, as_json.stdout + as_json.stderr):
                assert token.encode() not in out
        # Nothing a terminal would act on: no control character but line ends.
        assert not re.search(rb"[\x00-\x09\x0b-\x1f\x7f]", plain.stdout), plain.stdout
        text = plain.stdout.decode()
        assert not re.search("[\x80-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]", text)
        checks = json.loads(as_json.stdout)["checks"]
        detail = next(c["detail"] for c in checks if c["name"] == "format drift")
        assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]",
                             detail)
