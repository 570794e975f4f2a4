"""Every escape a note needs, one function per place a string lands: a YAML
value of the frontmatter, inline code, a table cell, a blockquote, a fenced
block, a wikilink.

Pure and small: the note's sections, the index notes and the search document
all write Markdown through these, and nothing else here knows of a session.
"""


import re
from collections.abc import Iterable, Sequence
from typing import NewType, cast

from vibe_vault import patterns
from vibe_vault.text import rx

# -- escaping by destination ---------------------------------------------------
#
# Md is Markdown that one of this module's escapers made. Text from a
# transcript becomes Md only through them: `text` (a heading, a list item, a
# line of prose, bold or italic words), `code` (inline code), `cell` (a table
# cell, over Md), `label` (a wikilink's label), `quote` (a blockquote),
# `fenced` (a code block); the frontmatter's values go through `yaml_str`. The
# note's sections return lines of Md, made with `md` from a template of our own
# and parts that are Md, so mypy refuses a line that interpolates a raw string;
# tests/test_injection.py checks that nothing else calls `Md(` and that every
# template is a constant.
Md = NewType("Md", str)


def kept_lines(lines: Sequence[str]) -> list[Md]:
    """Lines of Markdown this module's escapers made for an earlier render of
    the same note, as its session state kept them (`render.story`'s memo of
    settled turns): vibe-vault's own output, read back from its own state
    file, never a transcript's text."""
    return cast(list[Md], list(lines))


_PLAIN = patterns.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+/@-]*\Z")
_YAML_WORDS = frozenset(
    {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf", ".nan", ".inf"}
)
# What a YAML 1.1 reader (PyYAML, and so Python tools reading the vault) takes
# for a number or a date rather than a string, among plain scalars: digits with
# `_` anywhere after the first (`0x1f___` is 31), hex, octal, binary, and a
# date (`2024-01-02`). Quoting more than needed is harmless; less is not.
_NUMBERISH = patterns.compile(
    r"^[-+]?(\d[\d_]*(\.[\d_]*)?([eE][-+]?\d+)?|0[xX][0-9a-fA-F_]+|0o[0-7_]+|0b[01_]+)\Z"
    r"|^\d{4}-\d\d?-\d\d?\Z")


_YAML_NAMED = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t"}


def _yaml_char(ch: str) -> str:
    """One character inside a double-quoted YAML scalar: escaped when YAML
    must have it so (controls, quote, backslash, line and paragraph separators,
    BOM), replaced when YAML cannot hold it (lone surrogates, non-characters)."""
    named = _YAML_NAMED.get(ch)
    if named is not None:
        return named
    o = ord(ch)
    if o < 0x20 or 0x7F <= o <= 0x9F or o in (0x2028, 0x2029, 0xFEFF) \
            or 0x202A <= o <= 0x202E or 0x2066 <= o <= 0x2069:
        return f"\\u{o:04x}"
    if 0xD800 <= o < 0xE000 or o in (0xFFFE, 0xFFFF):
        return "\\ufffd"
    return ch


def _yaml_quoted(text: str) -> str:
    # A character loop, not a regex: the character class a regex would need
    # (surrogates and all) costs half a millisecond to compile in every hook.
    # Every character YAML needs escaped or replaced is unprintable, a quote
    # or a backslash: most strings have none.
    if text.isprintable() and '"' not in text and "\\" not in text:
        return '"' + text + '"'
    return '"' + "".join(map(_yaml_char, text)) + '"'


def yaml_list(items: Sequence[str]) -> Md:
    """A YAML list on one line, every item double-quoted (a flow list ends
    plain scalars at a comma or bracket)."""
    return Md("[" + ", ".join(_yaml_quoted(s) for s in items) + "]")


def yaml_str(text: str) -> Md:
    """A YAML scalar for `text`: plain when unambiguous, else double-quoted."""
    if _PLAIN.match(text) and text.lower() not in _YAML_WORDS and not _NUMBERISH.match(text):
        return Md(text)
    return Md(_yaml_quoted(text))



# What would turn into markup outside code: a tag or autolink (`<x`), an entity
# (`&lt;`), a wikilink or embed (`[[`), an image (`![`), a footnote (`[^`), a
# link or a reference definition (`](`, `][`, `]:`; a lone `[word]` such as
# `[REDACTED:token]` stays as it is: no definition can exist), a code span
# (a backtick), an Obsidian comment (`%%`), a Dataview inline field (`::`), an
# Obsidian tag or block id at a word's start (`#tag`, `^id`), a script or file
# link's scheme, a backslash escaping what follows (at the end, what our own
# markup puts after the words).
# A `#` that starts no tag (Obsidian's tags need a character that is not a
# digit: `#47` is none) nor a heading (mid-line) reads as itself: left plain,
# so "#47 has been merged" shows no backslash in a viewer that renders nothing.
_NO_TAG = r"[0-9]*(?:[\s.,:!?)\]}'\"]|\Z)"
_INLINE = patterns.compile(
    r"<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]+;)|\[\[|!\[|\[\^|\](?=[(\[:])|`|%%+|::+"
    r"|(?<!\S)(?:\^|#(?!" + _NO_TAG + r"))"
    r"|\\(?=[!-/:-@\[-`{-~]|\Z)"
    r"|(?i:\b(?:javascript|vbscript|file|data)(?=:))")
_DIGITS = "0123456789"


_HASH_WORDS = patterns.compile("#" + _NO_TAG)


def _starts_markup(line: str) -> bool:
    """Whether a line opening with `#` is a heading or a tag: not when the `#`
    is followed by digits alone (`#47 has been merged`)."""
    return _HASH_WORDS.match(line) is None or line[1:2] in ("", " ", "\t")


def _unblocked(line: str) -> str:
    """`line` with its first characters escaped where they would start a block
    of their own: a heading, a quote, a list item, a thematic break, a fence.
    (Plain tests, not a regex: compiling one costs every hook more than these
    cost a note.)"""
    first = line[:1]
    if not first:
        return line
    if first == ">" or (first == "#" and _starts_markup(line)) or line.startswith("~~~") or (
            first in "-+*" and line[1:2] in ("", " ", "\t")) or (
            first in "-*_" and line.count(first) >= 3 and not line.strip(first + " \t")):
        return "\\" + line
    if first in _DIGITS:
        digits = len(line) - len(line.lstrip(_DIGITS))
        if digits <= 9 and line[digits:digits + 1] in (".", ")") \
                and line[digits + 1:digits + 2] in ("", " ", "\t"):
            return line[:digits] + "\\" + line[digits:]
    return line


def _inline_escape(match: re.Match[str]) -> str:
    found = match.group(0)
    if found == "<":
        return "&lt;"
    if found == "&":
        return "&amp;"
    if found[0] in "%:" or found == "[[":
        return "\\" + "\\".join(found)
    if found in ("![", "[^"):
        return found.replace("[", "\\[")
    if found[0].isalpha():  # a scheme: its colon is escaped
        return found + "\\"
    return "\\" + found


# A character every match of _INLINE holds: most labels have none, and one
# search for them costs a tenth of _INLINE's (tried at every character, as it
# begins with a lookbehind or a word boundary).
_INLINE_CHARS = patterns.compile(r"[<&\[\]`%:#^\\]")


def _inline(text: str) -> str:
    if _INLINE_CHARS.search(text) is None:
        return text
    return _INLINE.sub(_inline_escape, text)


# Characters that reorder or hide the words around them (bidi embeddings,
# overrides and isolates: "Trojan Source") or that a terminal or renderer
# acts on (C0 and C1 controls): on a line of the note they are left out or
# made a space; the state keeps them as written.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _visible(text: str) -> str:
    if text.isprintable():
        return text  # most text: nothing to do
    return "".join("" if c in _BIDI else " " if ((c < " " and c != "\t") or "\x7f" <= c <= "\x9f"
                                                 or c in "\u2028\u2029") else c for c in text)


# Emphasis marks in a label: `*` anywhere, `_` where it can open or close
# emphasis (not between two letters or digits: `snake_case` stays as typed),
# and Obsidian's `~~` strike and `==` highlight. A title, a task, a commit
# subject, a table cell is a label: `__init__.py` and `*args` are shown as
# typed. Quoted prompts and answers keep their emphasis (`quote`).
_EMPHASIS = patterns.compile(r"\*|(?<![^\W_])_|_(?![^\W_])|~~+|==+")


def _literal_emphasis(match: re.Match[str]) -> str:
    return "\\" + "\\".join(match.group(0))


def text(words: str) -> Md:
    """Words from a transcript on one line of the note (a heading, a list item,
    a table cell, a label): shown as the words they are, never as markup."""
    words = _visible(words)
    one = " ".join(words.split("\n")) if "\n" in words else words
    # Spaces (any Unicode space) at either end show nothing, and would keep the `*` or `**` of
    # ours around the words from opening or closing (`*name *` is no emphasis).
    one = _inline(one.strip())
    if "*" in one or "_" in one or "~" in one or "=" in one:
        one = _EMPHASIS.sub(_literal_emphasis, one)
    out = _unblocked(one)
    if out.endswith("#"):
        # A heading's closing sequence (`# [Image #` shows "[Image"): the `#`s
        # at the end after a space are dropped by Markdown, so the first is escaped.
        run = len(out) - len(out.rstrip("#"))
        if run < len(out) and out[-run - 1] in " \t":
            out = out[:-run] + "\\" + out[-run:]
    if out.endswith("]") and not out.endswith("\\]"):
        # What our own markup puts next (`(`, `:`) must not make it a link.
        out = out[:-1] + "\\]"

    return Md(out)


def text_before_colon(words: str) -> Md:
    """`text` for words a `:` of ours follows (`{}: {}`): a colon they end
    with is escaped, so the two cannot make a Dataview field (`key:: value`)."""
    out = text(words)
    trailing = len(out) - len(out.rstrip(":"))
    backslashes = len(out[:len(out) - trailing]) - len(out[:len(out) - trailing].rstrip("\\"))
    if trailing == 1 and backslashes % 2 == 0:
        return Md(out[:-1] + "\\:")
    return out


def strong(plain: str) -> Md:
    """Words in bold, escaped as `text` (which takes the spaces off either
    end: `**name **` is no bold). No words: nothing (`****` is no bold)."""
    words = text(plain)
    return md("**{}**", words) if words else md("")


def emphasis(name: str) -> Md:
    """A name in italics, escaped as `text`. A name the transcript left empty
    (or that held only what a note leaves out) is said to be none: `**` alone
    would show as two stars."""
    words = text(name)
    return md("*{}*", words) if words else md("*(no name)*")


def base_in_folder(folder: str) -> Md:
    """An Obsidian Base filter for the notes in a vault folder of ours, as a
    YAML single-quoted scalar holding a double-quoted string: each quote is
    escaped for both, and a line break cannot end the line (or a fence)."""
    one = _visible(folder).replace("\n", " ").replace("\r", " ")
    expr = 'file.inFolder("' + one.replace("\\", "\\\\").replace('"', '\\"') + '")'
    return Md("'" + expr.replace("'", "''") + "'")


def md(template: str, *parts: Md | int | float) -> Md:
    """A line of the note: `template` (a constant of ours, `{}` for each part)
    filled with parts that an escaper made, or numbers."""
    return Md(template.format(*parts))


def join(sep: str, parts: Iterable[Md]) -> Md:
    """Md parts joined by a separator of ours."""
    return Md(sep.join(parts))


def _is_iso_time(ts: str) -> bool:
    """YYYY-MM-DDTHH:MM:SS with an offset (+HH:MM) or Z."""
    if len(ts) == 25:
        digits, marks = ts[:4] + ts[5:7] + ts[8:10] + ts[11:13] + ts[14:16] + ts[17:19] + (
            ts[20:22] + ts[23:25]), ts[4] + ts[7] + ts[10] + ts[13] + ts[16] + ts[22]
        return digits.isascii() and digits.isdigit() and marks == "--T:::" and ts[19] in "+-"
    if len(ts) == 20:
        digits, marks = ts[:4] + ts[5:7] + ts[8:10] + ts[11:13] + ts[14:16] + ts[17:19], (
            ts[4] + ts[7] + ts[10] + ts[13] + ts[16] + ts[19])
        return digits.isascii() and digits.isdigit() and marks == "--T::Z"
    return False


def yaml_time(timestamp: str) -> Md:
    """A YAML timestamp, bare when it is one (ISO 8601 to the second, with its
    offset), else a quoted string."""
    return Md(timestamp) if _is_iso_time(timestamp) else yaml_str(timestamp)


def code(text: str) -> Md:
    """Inline code that survives backticks inside (on one line: a line break
    would end the list item or heading it stands in)."""
    text = _visible(text)
    if not text:
        return Md("``")
    if "`" not in text:
        return Md(f"`{text}`")
    runs = [len(m) for m in _RUN.findall(text)]
    fence = "`" * (max(runs) + 1 if runs else 1)
    pad = " " if text.startswith("`") or text.endswith("`") or fence != "`" else ""
    return Md(f"{fence}{pad}{text}{pad}{fence}")


def cell(text: Md) -> Md:
    """Escaped Markdown as a table cell: a `|` cannot end the cell, a newline
    the row. (A table escapes `|` even inside code spans and wikilinks, and
    nothing else: doubling backslashes would show them doubled in code.)"""
    return Md(text.replace("|", "\\|").replace("\n", " "))


FENCE = patterns.compile(r"^\s{0,3}(`{3,}|~{3,})")
_ANY_FENCE = patterns.compile(r"^\s*(`{3,}|~{3,})")
_ITEM_START = patterns.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?: {1,4}|$)")


def fence_opened(line: str) -> str:
    """The fence `line` opens, or "" (see `_no_fence`)."""
    m = FENCE.match(line)
    return "" if m is None or _no_fence(m, line) else m.group(1)


def _no_fence(match: re.Match[str], line: str) -> bool:
    """Whether the fence `match` matched at the start of `line` opens none. A
    backtick fence's info string cannot hold a backtick (CommonMark):
    "``` <b> `x`" is a paragraph line whose markup must be made inert, not a
    code block that would keep it as is."""
    return match.group(1)[0] == "`" and "`" in line[match.end():]


_RUN = patterns.compile(r"`+")
# A line that would underline the line above it into a heading.


def _underlines(line: str) -> bool:
    """Whether a line would make the line above it a heading (`===`, `---`)."""
    body = line.lstrip(" ")
    if len(line) - len(body) > 3:
        return False
    body = body.rstrip(" \t")
    return bool(body) and body.count(body[0]) == len(body) and body[0] in "=-"


# Every character a match of _INLINE starts with (or, for a scheme, holds).
_TRIGGERS = "<&[]`%:#^\\"


# A Markdown link in quoted text: `[label](target)` (no brackets or
# parentheses inside). Shown as its words, and the target beside them when it
# says more: escaped, it read `[CLAUDE.md\](CLAUDE.md)`; live, a transcript
# could make the note link anywhere.
_LINK = patterns.compile(r"\[([^\[\]\n]+)\]\(([^()\s]+)\)")


# An editor's own address for a place (`cci:1://file:///…:0:0-0:0`,
# `vscode://file/…`, `file:///…`): the path in it is what a reader can use.
# A line and column after a path (`vercel.json:20:8-23:9`) say nothing more.
_EDITOR_URI = patterns.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:(?:\d+:)?//(?:file://|file(?=/))?")
_POSITION = patterns.compile(r"(?::\d+){1,2}(?:-\d+(?::\d+)?)?$")


def _link_words(match: re.Match[str]) -> str:
    label, target = match.group(1), match.group(2)
    if not target.startswith(("http://", "https://")):
        target = _EDITOR_URI.sub("", target) or target
        if "://" not in target:  # (a port is no position: `http://localhost:8080`)
            target = _POSITION.sub("", target) or target
    if target == label or target.rstrip("/").endswith(label.strip("`")):
        return label
    return f"{label} ({target})"


def link_words(text: str) -> str:
    """Markdown links in a text as their words (`_link_words`): for where a
    text is shown raw, as a frontmatter field is by Dataview and Bases."""
    return _LINK.sub(_link_words, text) if "](" in text else text


def _inert(line: str) -> str:
    """A line of quoted text with nothing in it that turns into markup (see
    `_INLINE`), except inside its inline code spans, which stay code. (A
    backslash just before a backtick is escaped with the text before it, so
    the backticks pair in Markdown as they do here.)"""
    if not any(c in line for c in _TRIGGERS):
        return line  # most lines: nothing to escape
    out: list[str] = []
    at = 0
    runs = list(_RUN.finditer(line))
    i = 0
    while i < len(runs):
        opener = runs[i]
        closer = next((r for r in runs[i + 1:] if len(r.group(0)) == len(opener.group(0))), None)
        if closer is None:
            i += 1
            continue
        out.append(_prose(line[at:opener.start()]))
        out.append(line[opener.start():closer.end()])  # a code span: inert as it is
        at = closer.end()
        i = runs.index(closer) + 1
    out.append(_prose(line[at:]))
    return "".join(out)


def _prose(text: str) -> str:
    """Quoted words outside code spans, made inert (links as their words)."""
    return _inline(_LINK.sub(_link_words, text) if "](" in text else text)


def quote(text: str) -> Md:
    """A blockquote of text from the transcript. Its lines cannot form headings
    of their own (Obsidian's outline lists headings inside quotes), and a code
    fence left open where the text was cut is closed, so it cannot swallow the
    rest of the note."""
    out: list[str] = []
    open_fence = ""
    item = 0  # the column a list item's words start at, while one goes on
    fence_item = 0  # that of the item the open fence is in (0: none)
    for line in text.splitlines() or [""]:
        indent = len(line) - len(line.lstrip(" "))
        if open_fence and fence_item and line.strip() and indent < fence_item:
            open_fence, fence_item = "", 0  # the item ended, and its code block with it
        if line.strip() and not open_fence:
            bullet = _ITEM_START.match(line)
            if bullet:
                item = len(bullet.group(0))
            elif indent < item:
                item = 0
        # A fence opens its line, or a list item's words (`   - x` then
        # `     ```go`): a code block in the item, as Markdown reads it.
        m = FENCE.match(line) or (
            _ANY_FENCE.match(line) if item and item <= indent <= item + 3 else None)
        if m and not open_fence and _no_fence(m, line):
            m = None
        if m:
            mark = m.group(1)
            if not open_fence:
                open_fence = mark
                fence_item = item if item and indent >= item else 0
            elif mark[0] == open_fence[0] and len(mark) >= len(open_fence) \
                    and not line.strip()[len(mark):]:
                open_fence, fence_item = "", 0
        elif not open_fence:
            line = _inert(line)
            words = line.lstrip(" ")
            if _underlines(line):
                line = "\\" + line
            elif words.startswith("#") and len(line) - len(words) <= 3 and _starts_markup(words):
                # (up to three spaces before it: still a heading)
                line = line[:len(line) - len(words)] + "\\" + words
        out.append("> " + line if line else ">")
    if open_fence:
        out.append("> " + open_fence)
    return Md("\n".join(out))


def indented(block: Md, prefix: str) -> list[Md]:
    """A block's lines, each after `prefix` (spaces of ours: a block inside a
    list item)."""
    return [Md(prefix + line) for line in block.split("\n")]


def labelled_quote(label: str, text: str) -> Md:
    """A quote whose first line starts with its label (on a quoted line of its
    own when the text opens with a code fence, which must start its line: the
    label stays inside the quote, so an answer's first characters do not
    change the note's blocks)."""
    quoted = quote(text)
    if quoted.startswith("> ") and not fence_opened(quoted[2:].split("\n", 1)[0]):
        return Md(f"> {label} {quoted[2:]}")
    return Md(f"> {label}\n{quoted}")


def fenced(text: str, info: str = "") -> list[Md]:
    """A fenced code block holding `text`: its fence longer than any run of
    backticks inside, so no text can close it early; `info` names its
    language (`diff`)."""
    longest = max((len(run) for run in _RUN.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [Md(fence + info), *(Md(line) for line in text.split("\n")), Md(fence)]


def label(words: str) -> Md:
    """Words as a wikilink's label: they cannot close the link or split it,
    nor turn into markup."""
    return text(words.replace("|", "-").replace("]", ")").replace("[", "("))


def wikilink(note: str, shown: Md | None = None) -> Md:
    """An Obsidian wikilink to a note path of ours, relative to the vault, with
    a label that `label` made."""
    target = note[:-3] if note.endswith(".md") else note
    return Md(f"[[{target}|{shown}]]" if shown else f"[[{target}]]")


# An address linked as it is: https, a host, a path of URL characters that
# cannot end the link's parentheses (a `javascript:` or `file:` one stays text).
# (A pattern re compiles the first time a PR is shown, not in every hook.)
_LINKABLE = r"https://[A-Za-z0-9.-]+(?:/[A-Za-z0-9._~/#%?=&+-]*)?\Z"


def link(url: str, shown: Md) -> Md:
    """A Markdown link to `url` when it is a plain https address, else the
    words alone."""
    return Md(f"[{shown}]({url})") if rx(_LINKABLE).match(url) else shown


def tag(name: str) -> str:
    """An Obsidian tag made of a name (a tag of digits alone is no tag)."""
    made = rx(r"[^\w/-]+").sub("-", name).strip("-") or "project"
    return made if not made.isdigit() else f"project-{made}"


# -- Mermaid -----------------------------------------------------------------
#
# A Mermaid block (`xychart-beta`, `pie`) is code to Markdown, but Mermaid
# reads it: a label is a double-quoted string on one line of the block. What
# would end the string or the line, or that Mermaid reads inside a string, is
# replaced by a look-alike: `"` (ends it), a line break or control character
# (ends the statement; a fence at a new line's start would end the block),
# `%%` (Mermaid applies a `%%{init: …}%%` directive found anywhere in the
# text), `#word;` (an entity code Mermaid decodes), `<` and `>` (labels are
# drawn as HTML), a backtick (a Markdown string in newer diagrams). Bidi and
# zero-width characters are left out: a chart's label is read, not edited.
_MERMAID_SWAP = {'"': "\u201d", "<": "\u2039", ">": "\u203a", "`": "'"}
_MERMAID_DROP = frozenset("\u200b\u200c\u200d\u200e\u200f\u2060\ufeff"
                          "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _mermaid_char(ch: str) -> str:
    swapped = _MERMAID_SWAP.get(ch)
    if swapped is not None:
        return swapped
    if ch in _MERMAID_DROP:
        return ""
    if not ch.isprintable():  # line breaks, tabs, NUL, C1, separators
        return " "
    return ch


def mermaid_label(text: str, max_chars: int = 60) -> Md:
    """Words as a Mermaid label: a double-quoted string on one line, showing
    the words (at most `max_chars` of them, then `…`) with nothing Mermaid or
    Markdown would read as syntax."""
    words = " ".join("".join(map(_mermaid_char, text)).split())
    while "%%" in words:
        words = words.replace("%%", "% %")
    # Mermaid reads `#name;` as an entity (`/#\w+;/`, JavaScript's ASCII \w,
    # underscore included): a # before any run of word characters and `;`
    # (Unicode's, a superset) is shown as a full-width ＃.
    words = rx(r"#(?=\w+;)").sub("\uff03", words)
    if len(words) > max_chars:
        words = words[:max_chars - 1].rstrip() + "\u2026"
    return Md('"' + words + '"')


def mermaid_block(lines: Iterable[Md]) -> list[Md]:
    """A fenced Mermaid block of lines made with `md` from our own words,
    `mermaid_label`s and numbers (the first says the diagram: `md("pie")`)."""
    return [Md("```mermaid"), *lines, Md("```")]


# -- the note read on a terminal ---------------------------------------------------------

_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_ENTITIES = (("&lt;", "<"), ("&amp;", "&"))


def _shown_line(line: str) -> str:
    """One line of prose as a reader of the rendered note sees its characters:
    backslash escapes and the entities the escapers write taken back, code
    spans kept as written (a backslash in one is a backslash)."""
    out: list[str] = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "\\" and i + 1 < n and line[i + 1] in _PUNCTUATION:
            out.append(line[i + 1])
            i += 2
        elif c == "`":
            run = len(line) - len(line[i:].lstrip("`")) - i
            close = line.find("`" * run, i + run)
            while close >= 0 and line[close + run:close + run + 1] == "`":
                close = line.find("`" * run, close + run + 1)
            if close < 0:
                out.append("`" * run)
                i += run
            else:
                out.append(line[i:close + run])
                i = close + run
        elif c == "&":
            entity = next((e for e in _ENTITIES if line.startswith(e[0], i)), None)
            out.append(entity[1] if entity else c)
            i += len(entity[0]) if entity else 1
        else:
            out.append(c)
            i += 1
    shown = "".join(out)
    return shown[:-1] if line.endswith("\\") and not line.endswith("\\\\") else shown


def for_terminal(note: str) -> str:
    """A note as `vv show` prints it on a terminal: the words as they read,
    without the escapes that keep them from being Markdown (`\\#wip` shows
    `#wip`); its frontmatter and fenced blocks as written. The file keeps
    its escapes."""
    lines = note.split("\n")
    out: list[str] = []
    fence = ""
    front = bool(lines) and lines[0] == "---"
    for k, line in enumerate(lines):
        if front:
            out.append(line)
            front = not (k > 0 and line == "---")
            continue
        bare = line.lstrip(" >")
        if fence:
            out.append(line)
            if bare.startswith(fence) and not bare[len(fence):].strip(fence[0] + " "):
                fence = ""
            continue
        opened = fence_opened(bare)
        if opened:
            fence = opened
            out.append(line)
            continue
        out.append(_shown_line(line))
    return "\n".join(out)
