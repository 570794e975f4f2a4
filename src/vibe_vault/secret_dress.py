"""A text with its dress taken off: what a reader of the rendered text reads.

A secret's name or value can come dressed: in terminal colours
(`\\x1b[33mpassword:\\x1b[0m …`), HTML (`<td>password</td><td>…</td>`,
`password&#61;…`, `<input type="password" value="…">`), Markdown
(`**password:** …`, ``set `PASSWORD` to `…` ``, `API\\_KEY\\=…`),
compatibility letters (`𝐩𝐚𝐬𝐬𝐰𝐨𝐫𝐝`, `g\\u0301hp_…`) or quoted-printable
(`password=3D…`, a line ended by `=`). Each rule of the gate applies to
every dress when the gate also reads the text undressed (`undressed`),
and hides what it finds there where it was written: so no rule is written
per dress.

`undressed` is one left-to-right pass of one regex (linear in the text);
each piece of dress is replaced by what it reads as, and the pieces say
where each part of the text read came from (redact._View's format).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from vibe_vault.text import rx

# Terminal escapes: a CSI sequence (colours, cursor), an OSC one (a title, a
# link) ended by BEL or ST, a character-set choice: they show nothing.
_ANSI = r"\x1b(?:\[[0-?]{0,32}[ -/]{0,4}[@-~]|\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)|[()][0-9A-Za-z])"
# A tag (bounded: no `<` or `>` inside, so each `<` is read once).
_TAG = r"<(?P<close>/?)(?P<name>[A-Za-z][A-Za-z0-9]{0,15})(?P<attrs>(?:[ \t\r\n/][^<>]{0,1000})?)>"
# Between two cells of a row, whatever space (HTML reads a line break as a
# space): the row reads on one line, as a Markdown table's.
_CELL_GAP = (r"</[tT][dDhH][ \t\r\n]{0,8}>[ \t\r\n]{0,200}"
             r"<[tT][dDhH](?:[ \t\r\n/][^<>]{0,1000})?>")
_ENTITY = r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"
# CommonMark's backslash escape: any ASCII punctuation reads as itself.
_MD_ESCAPE = r"\\[!-/:-@\[-`{-~]"
# Emphasis and code spans' marks (`*`, `**`, a backtick or a fence).
_MD_MARKS = r"\*{1,3}|`{1,3}"
# Quoted-printable: an escaped byte, and the soft break ending a line.
_QP = r"=(?:[0-9A-F]{2}|\r?\n)"
_NOT_ASCII = r"[^\x00-\x7f]+"

@cache
def _dress(qp: bool, marks: bool) -> str:
    """The pattern of the pieces of dress looked for: quoted-printable's in
    a text that uses it, marks and tags in one naming a secret somewhere."""
    kinds = [("ansi", _ANSI), ("cells", _CELL_GAP), ("tag", _TAG), ("entity", _ENTITY),
             ("escape", _MD_ESCAPE), ("marks", _MD_MARKS), ("qp", _QP), ("wide", _NOT_ASCII)]
    kinds = [(name, p) for name, p in kinds
             if (qp or name != "qp") and (marks or name not in ("cells", "tag", "marks"))]
    # (the first characters looked for first: most of a text is skipped at the
    # speed of a character class, not tried against each alternative)
    first = "\x1b&\\\\\x80-\U0010ffff" + ("<*`" if marks else "") + ("=" if qp else "")
    return "(?=[" + first + "])(?:" + "|".join(f"(?P<{name}>{p})" for name, p in kinds) + ")"

# A table's cells read as a Markdown table's (the gate reads those); a block
# ends a line; any other tag (inline: <b>, <code>, <span>) shows nothing.
_CELLS = frozenset({"td", "th"})
_BLOCKS = frozenset({"tr", "table", "thead", "tbody", "br", "p", "div", "li", "ul", "ol",
                     "pre", "dt", "dd", "dl", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
                     "section", "article", "header", "footer", "form", "label", "input"})
_ATTRIBUTE = r"([A-Za-z_:][\w:.\-]*)[ \t\r\n]*=[ \t\r\n]*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'=<>`]+))"
# A field's value is named by the field: a password input's by its type,
# any other's by its name (`<input name="api_key" value="…">`,
# `<add key="ApiKey" value="…">`).
_FIELD_NAMES = ("name", "key", "id", "property")


# Emphasis and code marks, and tags, are in most of Claude's answers and
# code: they are taken off only on a line that names a secret, or follows
# one that does by a line or two (a table's cells, an HTML row); since a
# text read again costs the gate twice. These begin most of the gate's
# names; a line with letters beyond ASCII may name one in another script.
_NAMES_MARKED = ("pass", "pw", "secret", "token", "key", "auth", "cred", "login", "pin")
_LINES_NAMED = 2  # lines before a line whose name covers it


def _names_a_secret(lines: str) -> bool:
    low = lines.lower()
    # (a name may be spelt in character references, or cut by a colour)
    return any(name in low for name in _NAMES_MARKED) or "&#" in low or "\x1b" in low or (
        not lines.isascii() and any(not c.isascii() and (c.isalpha() or unicodedata.combining(c))
                                    for c in lines))


class _Named:
    """Whether the line of a text holding a place, or one of the
    _LINES_NAMED before it, names a secret: worked out once a line, the
    places asked for in order (so a long line is searched once)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.start = self.end = -1  # the last line asked for: [start, end)
        self.names = False

    def __call__(self, at: int) -> bool:
        if not self.start <= at < self.end:
            text = self.text
            start = text.rfind("\n", max(0, self.end - 1), at) + 1 if at >= self.end \
                else text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            self.start, self.end = start, len(text) if end < 0 else end + 1
            first = start
            for _ in range(_LINES_NAMED):
                if first == 0:
                    break
                first = text.rfind("\n", 0, first - 1) + 1
            self.names = _names_a_secret(text[first:self.end])
        return self.names


def may_be_dressed(text: str) -> bool:
    """Whether `undressed` could read the text otherwise (cheap: no regex)."""
    return ("\x1b" in text or "<" in text or "&" in text or "\\" in text or "*" in text
            or "`" in text or "=3D" in text or not text.isascii())


def _quoted_printable(text: str) -> bool:
    return "=3D" in text or "quoted-printable" in text.lower()


@cache
def _fold_char(ch: str, in_token: bool) -> str:
    """What a character reads as where it dresses an ASCII one: anywhere, a
    compatibility form (math bold, a ligature, a circled digit: NFKC's
    ASCII), and an accent written apart (`p\u0301assword`, `g\u0301hp_…`:
    it shows nothing, text is written composed); in a token (`in_token`), a
    letter with accents reads as the letter. In a word, a letter's accents
    are its language's (`påkrævet`, `vacía`: the gate's own words)."""
    if ch in _combining():
        return ""
    if not ch.isalnum():
        return ch  # (`…`, a no-break space: punctuation and spaces are `_view`'s)
    folded = unicodedata.normalize("NFKC", ch)
    if folded != ch and folded.isascii() and folded.isprintable():
        return folded
    if in_token:
        folded = "".join(c for c in unicodedata.normalize("NFKD", ch) if c not in _combining())
        if folded and folded.isascii() and folded.isprintable():
            return folded
    return ch


def _in_token(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is in a token's run: a word (up to 64
    characters either side) with a digit or a `_` in it."""
    word = (rx(r"\w*\Z").search(text, max(0, start - 64), start).group()  # type: ignore[union-attr]
            + text[start:end] + rx(r"\w*").match(text, end, end + 64).group())  # type: ignore[union-attr]
    return "_" in word or any(c.isdigit() for c in word)


@cache
def _combining() -> frozenset[str]:
    """Marks that combine with the letter before them (accents)."""
    return frozenset(chr(c) for lo, hi in ((0x300, 0x36F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF),
                                           (0x20D0, 0x20FF), (0xFE20, 0xFE2F))
                     for c in range(lo, hi + 1))


def _tag(m: re.Match[str]) -> list[tuple[str, int, int]]:
    """A tag as it reads: (text read, start as written, length as written)
    parts; a field with a value reads `name="value"`, the value as written."""
    closing, name, attributes = m.group("close"), m.group("name").lower(), m.group("attrs")
    start, end = m.span()
    if attributes and "=" in attributes and not closing:
        attrs: dict[str, tuple[str, int]] = {}
        base = m.start("attrs")
        for a in rx(_ATTRIBUTE).finditer(attributes):
            g = 2 if a.group(2) is not None else 3 if a.group(3) is not None else 4
            attrs.setdefault(a.group(1).lower(), (a.group(g), base + a.start(g)))
        if "value" in attrs:
            kind = attrs.get("type", ("", 0))[0].lower()
            field = "password" if kind == "password" else next(
                (attrs[n][0] for n in _FIELD_NAMES if n in attrs), "")
            value, value_at = attrs["value"]
            if field and value and field.isprintable():
                value_end = value_at + len(value)
                return [(f' {field}="', start, value_at - start),
                        (value, value_at, len(value)),
                        ('" ', value_end, end - value_end)]
    if name in _CELLS:
        read = " " if closing else "| "
    elif name in _BLOCKS:
        read = "\n"
    else:
        read = ""
    return [(read, start, end - start)]


def _entity(raw: str) -> str:
    if raw[1] == "#":
        code = int(raw[3:-1], 16) if raw[2] in "xX" else int(raw[2:-1])
        return chr(code) if 0x20 <= code < 0x110000 and not 0xD800 <= code < 0xE000 else raw
    from html.entities import html5  # (a table of 2,231: only when a text has one)

    return html5.get(raw[1:], raw)


def undressed(text: str) -> tuple[str, list[tuple[int, int, int, int]], bool] | None:
    """The text undressed, its pieces: (start read, start as written, length
    read, length as written), in order; and whether it decoded a character
    (an entity, an escape); None when it reads as written."""
    if not may_be_dressed(text):
        return None
    pattern = _dress(_quoted_printable(text), _names_a_secret(text))
    out: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    at = size = 0  # in the text as written; read
    changed = decoded = False
    named = _Named(text)

    def put(read: str, written: int, written_size: int) -> None:
        nonlocal size
        if read:
            pieces.append((size, written, len(read), written_size))
            out.append(read)
            size += len(read)

    for m in rx(pattern).finditer(text):
        kind, raw = m.lastgroup, m.group(0)
        if kind == "wide":
            parts: list[tuple[str, int, int]] = []
            if unicodedata.is_normalized("NFKD", raw) and not any(
                    c in _combining() for c in raw):
                continue  # (a run of letters in another script: as written)
            in_token = _in_token(text, m.start(), m.end())
            for j, ch in enumerate(raw):
                read = _fold_char(ch, in_token)
                if read != ch:
                    parts.append((read, m.start() + j, 1))
            if not parts:
                continue
        elif kind == "tag":
            if not named(m.start()):
                continue
            parts = _tag(m)
        elif kind == "cells":
            if not named(m.start()):
                continue
            parts = [(" | ", m.start(), len(raw))]
        elif kind == "entity":
            read = _entity(raw)
            if read == raw:
                continue
            parts = [(read, m.start(), len(raw))]
            decoded = True
        elif kind == "escape":
            parts = [(raw[1], m.start(), 2)]
            decoded = True
        elif kind == "qp":
            decoded = True
            parts = [("" if raw[1] in "\r\n" else chr(int(raw[1:], 16)), m.start(), len(raw))]
        elif kind == "marks":
            if not named(m.start()):
                continue
            parts = [("", m.start(), len(raw))]
        else:  # ansi: shows nothing
            parts = [("", m.start(), len(raw))]
        for read, written, written_size in parts:
            if written > at:
                put(text[at:written], at, written - at)
            put(read, written, written_size)
            at = written + written_size
            changed = True
    if not changed:
        return None
    if at < len(text):
        put(text[at:], at, len(text) - at)
    read_text = "".join(out)
    return (read_text, pieces, decoded) if read_text != text else None


# A value worn in emphasis or code: Markdown's marks or tags before or after
# it (`**required**`, `required</p>`: a paragraph's end after a value; a
# rule's value may end before the closing marks, `**os.environ[`).
_TAGS_AROUND = r"\A(?:<[A-Za-z][A-Za-z0-9]{0,15}>)+|(?:</[A-Za-z][A-Za-z0-9]{0,15}>)+\Z"
_MARKS_AROUND = r"\A[*_`]+|[*_`]+\Z"


def unwrapped(value: str) -> str | None:
    """What a value wears inside emphasis or code marks or tags, or None
    when it wears none."""
    if value[:1] not in ("*", "_", "`", "<") and value[-1:] not in ("*", "_", "`", ">"):
        return None
    inner = rx(_TAGS_AROUND).sub("", value) if "<" in value else value
    marked = rx(_MARKS_AROUND).sub("", inner)
    inner = marked or inner  # (`********</p>`: the stars are what it reads)
    return inner if inner != value and inner and inner.strip() == inner else None
