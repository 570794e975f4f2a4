"""A secret in dress (attack 26, class "disguises"): a form the gate knows,
`password: X` or `API_KEY=X`, worn in terminal colours, HTML (a table's
cells, a password field, entities), Markdown (bold, code spans, backslash
escapes), compatibility letters (math bold, full width, an accent),
quoted-printable or %-escaped twice.

Generated: name x form x dress (on the name, the separator, the value or
around all) x value shape x place. The dresses are this test's own (how a
browser, a terminal, a mail client would show them), not the gate's reading.
Oracle: no run of 6 of the drawn value in what the gate returns, nor in the
note and state folded from a session saying it, nor (end to end) in any file,
table or output; the gate hands the whole value to learning. Look-alikes (an
ordinary HTML table, dressed `password: required`, code in Markdown) are left.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import examples, in_process
from test_secret_forms_output import PLACES
from test_secret_forms_small_leaks import _folded_nowhere, _hidden, token
from test_secret_positional import in_no_output
from vibe_vault.redact import DEFAULT

Case = tuple[str, list[str]]

NAMES = ("password", "PASSWORD", "Password", "api_key", "API_KEY", "db_password",
         "client_secret", "auth_token", "SECRET_KEY", "passwd")


def _ansi(s: str, colour: int = 31) -> str:
    return f"\x1b[{colour}m{s}\x1b[0m"


def _entities(s: str) -> str:
    """Each character as a decimal character reference."""
    return "".join(f"&#{ord(c)};" for c in s)


def _math_bold(s: str) -> str:
    """Letters as MATHEMATICAL BOLD ones (U+1D400…), digits as bold digits."""
    out = []
    for c in s:
        if "a" <= c <= "z":
            out.append(chr(0x1D41A + ord(c) - ord("a")))
        elif "A" <= c <= "Z":
            out.append(chr(0x1D400 + ord(c) - ord("A")))
        else:
            out.append(c)
    return "".join(out)


def _full_width(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


def _accented(s: str) -> str:
    """A combining accent after the first letter (`p\u0301assword`)."""
    return s[:1] + "\u0301" + s[1:]


def _md_escaped(s: str) -> str:
    """Markdown's backslash before each punctuation character."""
    return "".join("\\" + c if not c.isalnum() and c.isascii() and c != " " else c for c in s)


# A dress of the whole line: name, separator and value as the test writes
# them (`{n}`, `{s}`, `{v}`).
LINES = (
    "{n}{s}{v}",
    "**{n}{s}** {v}", "**{n}**{s}{v}", "*{n}*{s}`{v}`", "`{n}`{s}`{v}`", "{n}{s}**{v}**",
    "<b>{n}</b>{s}<code>{v}</code>", "<p>{n}{s}{v}</p>",
    _ansi("{n}{s}", 33) + " " + _ansi("{v}"), _ansi("{n}", 32) + "{s}" + _ansi("{v}", 1),
)


@st.composite
def dressed(draw: st.DrawFn) -> Case:
    """A name, a separator and a value, each maybe dressed, in a dressed line."""
    name = draw(st.sampled_from(NAMES))
    v = draw(token(12, 32))
    sep = draw(st.sampled_from(["=", ": ", " = "]))
    name = draw(st.sampled_from([
        lambda n: n, _entities, _math_bold, _full_width, _accented, _md_escaped,
        lambda n: n[:3] + "\x1b[0m" + n[3:]]))(name)
    sep = draw(st.sampled_from([
        lambda s: s, lambda s: s.replace("=", "&#61;").replace(":", "&colon;"),
        lambda s: s.replace("=", "&#x3D;").replace(":", "&#58;"), _md_escaped,
        lambda s: s.replace("=", "%253D").replace(":", "%253A")]))(sep)
    value = draw(st.sampled_from(["{v}", '"{v}"', "&quot;{v}&quot;"]))
    line = draw(st.sampled_from(LINES))
    text = line.replace("{n}", name).replace("{s}", sep).replace("{v}", value.replace("{v}", v))
    return text, [v]


@st.composite
def html(draw: st.DrawFn) -> Case:
    """A value in an HTML table's row or a form's field."""
    name = draw(st.sampled_from([*NAMES, "Token", "API key", "Secret"]))
    v = draw(token(12, 32))
    text = draw(st.sampled_from([
        "<td>{n}</td><td>{v}</td>", "<tr><th>{n}</th><td>{v}</td></tr>",
        "<table>\n<tr><td>{n}</td>\n<td>{v}</td></tr>\n</table>",
        '<input type="password" name="pw" value="{v}">',
        "<input type='password' value='{v}' />", '<input name="{n}" value="{v}">',
    ]))
    return text.replace("{n}", name).replace("{v}", v), [v]


@st.composite
def encoded(draw: st.DrawFn) -> Case:
    """Quoted-printable (`=3D`, a soft break at a line's end), a value cut
    by a colour, a token's name with an accent."""
    v = draw(token(16, 32))
    cut = draw(st.integers(6, len(v) - 6))
    name = draw(st.sampled_from(NAMES))
    text = draw(st.sampled_from([
        f"{name}=3D{v[:cut]}=\n{v[cut:]}", f"{name}=3D{v}",
        f"{name}={v[:cut]}\x1b[0m{v[cut:]}", f"{name}%253D{v}",
    ]))
    return text, [v]


CLASSES = {"dressed": dressed(), "html": html(), "encoded": encoded()}


@settings(max_examples=examples(150, 1500), deadline=None)
@given(st.one_of(*CLASSES.values()))
@example(("\x1b[33mpassword:\x1b[0m \x1b[31mylk1hUSuXJgksyDYO3Hf\x1b[0m",
          ["ylk1hUSuXJgksyDYO3Hf"]))
@example(("𝐩𝐚𝐬𝐬𝐰𝐨𝐫𝐝=DtzRhFCdYkf4yrBSmJ5t", ["DtzRhFCdYkf4yrBSmJ5t"]))
@example(("&#112;&#97;&#115;&#115;&#119;&#111;&#114;&#100;=IY9VbuKTkGCKOgeq5x67",
          ["IY9VbuKTkGCKOgeq5x67"]))
@example(("g\u0301hp_uLyLafcGhCyTJ3OGSZ0YdzXkG56fuCu93FDm",
          ["uLyLafcGhCyTJ3OGSZ0YdzXkG56fuCu93FDm"]))
@example(("set `PASSWORD` to `36aiSnFyoqaqKFc6qEiS`", ["36aiSnFyoqaqKFc6qEiS"]))
@example(("ghp_niN21oAnBoDm\x1b[0mQnjErN5OKwRTNoQionn2401L", ["QnjErN5OKwRTNoQionn2401L"]))
@example(("password=3DtPrEjkiwhu2nGQ=\nDusCbkUbsNhJRRZw", ["tPrEjkiwhu2nGQDusCbkUbsNhJRRZw"]))
def test_the_gate_leaves_no_run_of_six_of_a_dressed_value(case: Case) -> None:
    _hidden(*case)


@settings(max_examples=examples(30, 300), deadline=None)
@given(st.one_of(*CLASSES.values()), PLACES)
def test_folded_a_dressed_value_is_in_no_note_or_state(case: Case, places: list[str]) -> None:
    _folded_nowhere(case, places)


@settings(max_examples=examples(2, 6), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(*CLASSES.values()), min_size=2, max_size=4))
def test_end_to_end_a_dressed_value_is_in_no_file_table_or_output(cases: list[Case]) -> None:
    in_no_output([(text, values[0]) for text, values in cases], in_process("dressed end to end"))


# -- what is left -------------------------------------------------------------------------------


@st.composite
def look_alikes(draw: st.DrawFn) -> str:
    """Dress around what is no secret: a name given no value, an ordinary
    table, Markdown with code, a field with no value."""
    name = draw(st.sampled_from(NAMES))
    given_ = draw(st.sampled_from(["required", "********", "<your-password>", "None",
                                   "os.environ['PW']", "${DB_PASS}", "see below"]))
    line = draw(st.sampled_from(LINES[:8]))
    named = line.replace("{n}", name).replace("{s}", ": ").replace("{v}", given_)
    return draw(st.sampled_from([
        named,
        "<table><tr><th>Name</th><th>Role</th></tr><tr><td>alice</td><td>admin</td></tr></table>",
        '<input type="password" name="pw" value="">', '<input type="text" value="hello">',
        "**Note:** run `make test` before `git push`; see *docs* for more.",
        "The `token_count` is **1234** and the `key` column is `user_id`.",
        "&lt;b&gt;password&lt;/b&gt; &amp; user name",
        "\x1b[32mPASS\x1b[0m tests/test_auth.py::test_password_reset",
        "1. User visits `/tokenizer.html` → redirects to `/tokenizer/`",
        "Café — naïve résumé: `pass` the **key** to `fn()`",
        "contraseña: vacía", "adgangskode: **påkrævet**", "<td>Passwort</td><td>erforderlich</td>",
    ]))


@settings(max_examples=examples(150, 1500), deadline=None)
@given(look_alikes())
def test_look_alikes_are_left(text: str) -> None:
    found: list[str] = []
    assert DEFAULT.redact(text, found) == (text, 0), DEFAULT.redact(text)
    assert not found


# -- in time linear in the text -----------------------------------------------------------------

# Pieces of dress left open or repeated, on lines that name a secret (where
# marks and tags are read), each a worst case of one of the readings.
UNITS = ("**", "`", "<a ", "<td>x</td>", "</td> <td>", "&#", "&#112;", "&quot;", "\x1b[",
         "\x1b[0m", "\x1b]", "\\=", "=3D", "=\n", "p\u0301", "𝐩", "ｐ", "%253D",
         "<input type='password' value='", "password: **a0b1c2d3e4f5**\n", "password ",
         "password: `x`\n", "<b>password</b>: ", "*password*\n")
SHORT, LONG = 2_000, 32_000
GROWTH_LIMIT = 64  # linear is 16 (LONG / SHORT), quadratic 256


def _growth(unit: str) -> float:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import gate_worst

    from vibe_vault.redact import Redactor

    redactor = Redactor()
    texts = {size: ("password " + unit * size)[:size] for size in (SHORT, LONG)}
    short = gate_worst.timed(lambda: redactor.redact(texts[SHORT]), 10.0, 5)
    long = gate_worst.timed(lambda: redactor.redact(texts[LONG]), 10.0, 5)
    return long / max(short, 1e-6)


def test_reading_a_text_undressed_grows_linearly() -> None:
    """The gate's time on a text of each unit repeated grows as its length
    (measured again before it fails: a load's burst is not the reading's)."""
    slow = [(unit, grew) for unit in UNITS if (grew := _growth(unit)) > GROWTH_LIMIT
            and (grew := _growth(unit)) > GROWTH_LIMIT]
    assert not slow, slow
