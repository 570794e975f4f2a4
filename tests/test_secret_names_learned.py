"""A name is never learned as a secret; a random value in its place is.

Review 31 (235cf379, an earnings-call extractor): `cat
/tmp/extract_pass_guidance_primary_BURL_2023-03-02T08.30.json` reads a file
whose name says `pass`, so the fold learned what it printed; `ls` had printed
the file's path first, and that path and its piece `BURL_2023-03-02T08.30`
(a ticker and a date: the call's source id) were blanked as
`[REDACTED:learned]` through the whole note, the headline too. The gate left
that name alone; the learner judged it by a test of its own. Both now ask
redact.a_name.

Generated, through the whole pipeline (a session folded, its note rendered):
names of words, tickers, dates and times, globs and paths, printed where the
fold learns (after `ls` of a `*_pass_*` file read by `cat`, in `env`'s dump,
by a command naming a token, by `cat` of a password file) and said again in
a prompt, an answer and a command. Oracle: the drawn text appears in the note
as typed, nothing is redacted or learned. The other way, a random value drawn
as a token is (a letter and a digit, varied characters) in the same places:
no run of six of it in the note or the state.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_headlines import Transcript
from test_secret_forms_small_leaks import shannon_bits, token
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.render import render
from vibe_vault.state import Fold, SessionState, encode_state

WORDS = ["extract", "guidance", "primary", "enrichment", "report", "call", "summary", "run",
         "batch", "result", "output", "quarter", "earnings", "check", "backup", "source"]
TICKERS = ["BURL", "AAPL", "MSFT", "TSLA", "NVDA", "KO", "GOOGL"]


@st.composite
def day_and_time(draw: st.DrawFn) -> str:
    y, m, d = draw(st.integers(1990, 2029)), draw(st.integers(1, 12)), draw(st.integers(1, 28))
    sep = draw(st.sampled_from(["-", ""]))
    day = f"{y}{sep}{m:02d}{sep}{d:02d}"
    if draw(st.booleans()):
        h, mi, s = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
        day += f"T{h:02d}" + draw(st.sampled_from(
            [f".{mi:02d}", f"{mi:02d}", "", f"{mi:02d}{s:02d}", f"-{mi:02d}",
             f".{mi:02d}.{s:02d}Z", f"{mi:02d}{s:02d}.123Z"]))
    return day


@st.composite
def name(draw: st.DrawFn) -> str:
    """Words, a ticker, a date (maybe with its time), a glob, joined by `_`
    or `-`; maybe a short number after (a part, a run: `_02`)."""
    sep = draw(st.sampled_from(["_", "-"]))
    parts = draw(st.lists(st.sampled_from([*WORDS, "*"]), min_size=0, max_size=3))
    parts.insert(draw(st.integers(0, len(parts))), draw(st.sampled_from(TICKERS)))
    parts.insert(draw(st.integers(0, len(parts))), draw(day_and_time()))
    if draw(st.booleans()):
        parts.append(str(draw(st.integers(1, 9999))))
    return sep.join(parts)


@st.composite
def a_name(draw: st.DrawFn) -> str:
    """A name alone, or a file's path of such names and words."""
    n = draw(name())
    shape = draw(st.sampled_from(["{n}", "/tmp/{n}.json", "/tmp/extract_pass_{n}.json",
                                  "reports/{w}/{n}.csv", "~/data/{w}/{n}", "./{w}_{n}.txt"]))
    return shape.format(n=n, w=draw(st.sampled_from(WORDS)))


# Where the fold learns from what a command printed: after `ls` of the file a
# `cat` reads (its name says `pass`), in an environment's dump, from a command
# naming a token, and the secret file's own line.
PRINTERS = [
    ("ls /tmp/extract_pass_*.json && cat /tmp/extract_pass_guidance_primary.json",
     '{v}\n{{"items": 3, "status": "ok"}}\n'),
    ("env", "HOME=/home/dev\nRUN_ID={v}\nSHELL=/bin/bash\n"),
    ("jq -r .token_source config.json", "{v}\n"),
    ("cat /run/secrets/db_password", "{v}\n"),
]


def _session(command: str, output: str, value: str) -> tuple[str, SessionState]:
    t = Transcript()
    t.prompt(f"run the extract for {value}")
    t.bash(command, output, "Read the pass result")
    t.say(f"Source: `{value}` (3 guidance items).")
    t.bash(f"rm -f {value} && ls /tmp", "", "Clean up")
    t.prompt(f"was it {value} ?")
    t.say(f"Yes, {value} is the one.")
    state = SessionState(session_id="s", project="app",
                         fold=fold(Fold(), (decode_line(x) for x in t.encoded())))
    return render(state), state


@settings(max_examples=examples(150, 600), deadline=None)
@given(value=a_name(), printer=st.sampled_from(PRINTERS))
def test_a_name_is_shown_as_typed_and_never_learned(value: str,
                                                    printer: tuple[str, str]) -> None:
    command, output = printer
    note, state = _session(command, output.format(v=value), value)
    assert "[REDACTED" not in note, (value, command, [ln for ln in note.splitlines()
                                                      if "REDACTED" in ln])
    assert state.fold.learned == [], (value, command)
    # (as typed: in the prompt's quote, the answer, the command; a `*` of a glob
    # may be escaped where the note's prose would read it as emphasis)
    assert note.count(value) + note.count(value.replace("*", "\\*")) >= 2, (value, note)


_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_OTHER = "Zx9Kq2Wm7Pv4Rt8NhB3cJ6dL5fY1gT0s" * 2


@settings(max_examples=examples(100, 400), deadline=None)
@given(value=token(20, 40).filter(lambda v: shannon_bits(v) >= 3.5),
       printer=st.sampled_from(PRINTERS),
       shape=st.sampled_from(["{v}", "/tmp/{v}.json", "./{v}"]))
def test_a_random_value_in_its_place_is_learned(value: str, printer: tuple[str, str],
                                                shape: str) -> None:
    command, output = printer
    said = shape.format(v=value)
    note, state = _session(command, output.format(v=value), said)
    kept = encode_state(state).decode("utf-8", "replace")
    other = _OTHER[:len(value)]
    control_note, control_state = _session(command, output.format(v=other),
                                           shape.format(v=other))
    control = control_note + encode_state(control_state).decode("utf-8", "replace")
    found = [value[i:i + 6] for i in range(len(value) - 5)
             if (value[i:i + 6] in note or value[i:i + 6] in kept)
             and value[i:i + 6] not in control]
    assert not found, (command, value, found)


def test_the_session_review_31_found() -> None:
    path = "/tmp/extract_pass_guidance_primary_BURL_2023-03-02T08.30.json"
    note, state = _session(f"ls {path} 2>/dev/null && cat {path}",
                           f'{path}\n{{"source_id": "BURL_2023-03-02T08.30"}}\n', path)
    assert "[REDACTED" not in note and state.fold.learned == []
    assert "BURL_2023-03-02T08.30" in note
