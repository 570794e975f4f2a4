"""Every escape a note needs, one function per place a string lands: a YAML
value of the frontmatter, inline code, a table cell, a blockquote, a fenced
block, a wikilink.

Pure and small: the note's sections, the index notes and the search document
all write Markdown through these, and nothing else here knows of a session.
"""


import re

from vibe_vault.redact import Redacted

_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+/@-]*\Z")
_YAML_WORDS = frozenset(
    {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf", ".nan", ".inf"}
)
_NUMBERISH = re.compile(r"^[-+]?(\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+)\Z")


_YAML_NAMED = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t"}


def _yaml_char(ch: str) -> str:
    """One character inside a double-quoted YAML scalar: escaped when YAML
    must have it so (controls, quote, backslash, line and paragraph separators,
    BOM), replaced when YAML cannot hold it (lone surrogates, non-characters)."""
    named = _YAML_NAMED.get(ch)
    if named is not None:
        return named
    o = ord(ch)
    if o < 0x20 or 0x7F <= o <= 0x9F or o in (0x2028, 0x2029, 0xFEFF):
        return f"\\u{o:04x}"
    if 0xD800 <= o < 0xE000 or o in (0xFFFE, 0xFFFF):
        return "\\ufffd"
    return ch


def _yaml_quoted(s: str) -> str:
    # A character loop, not a regex: the character class a regex would need
    # (surrogates and all) costs half a millisecond to compile in every hook.
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return '"' + s + '"'
    return '"' + "".join(map(_yaml_char, s)) + '"'


def yaml_list(items: list[str] | list[Redacted]) -> str:
    """A YAML list on one line, every item double-quoted (a flow list ends
    plain scalars at a comma or bracket)."""
    return "[" + ", ".join(_yaml_quoted(s) for s in items) + "]"


def yaml_str(s: str) -> str:
    """A YAML scalar for `s`: plain when unambiguous, else double-quoted."""
    if _PLAIN.match(s) and s.lower() not in _YAML_WORDS and not _NUMBERISH.match(s):
        return s
    return _yaml_quoted(s)


def code(s: str) -> str:
    """Inline code that survives backticks inside."""
    if not s:
        return "``"
    if "`" not in s:
        return f"`{s}`"
    runs = [len(m) for m in re.findall(r"`+", s)]
    fence = "`" * (max(runs) + 1 if runs else 1)
    pad = " " if s.startswith("`") or s.endswith("`") or fence != "`" else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def cell(s: str) -> str:
    """Text for a table cell: a `|` cannot end the cell, a newline the row.
    (A table escapes `|` even inside code spans and wikilinks, and nothing
    else: doubling backslashes would show them doubled in code.)"""
    return s.replace("|", "\\|").replace("\n", " ")


FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def _inert(line: str) -> str:
    """A line of quoted text whose HTML tags (`<script>`, `<img onerror=…>`)
    and `[[links]]` show as text instead of being rendered or linked, except
    inside inline code."""
    parts = re.split(r"(`+)", line)
    in_code = False
    for i, part in enumerate(parts):
        if part.startswith("`"):
            in_code = not in_code
        elif not in_code:
            part = re.sub(r"<(?=[A-Za-z/!?])", "&lt;", part)
            parts[i] = part.replace("[[", "\\[\\[")
    return "".join(parts)


def quote(s: str) -> str:
    """A blockquote of text from the transcript. Its lines cannot form headings
    of their own (Obsidian's outline lists headings inside quotes), and a code
    fence left open where the text was cut is closed, so it cannot swallow the
    rest of the note."""
    out: list[str] = []
    open_fence = ""
    for line in s.splitlines() or [""]:
        m = FENCE.match(line)
        if m:
            mark = m.group(1)
            if not open_fence:
                open_fence = mark
            elif mark[0] == open_fence[0] and len(mark) >= len(open_fence) \
                    and not line.strip()[len(mark):]:
                open_fence = ""
        elif not open_fence:
            if line.startswith("#"):
                line = "\\" + line
            if "<" in line or "[[" in line:
                line = _inert(line)
        out.append("> " + line if line else ">")
    if open_fence:
        out.append("> " + open_fence)
    return "\n".join(out)


def labelled_quote(label: str, text: str) -> str:
    """A quote whose first line starts with its label (on a line of its own
    when the text opens with a code fence, which must start its line)."""
    quoted = quote(text)
    if quoted.startswith("> ") and not FENCE.match(quoted[2:]):
        return f"> {label} {quoted[2:]}"
    return f"{label}\n{quoted}"


def fenced(text: str) -> list[str]:
    """A fenced code block holding `text`: its fence longer than any run of
    backticks inside, so no text can close it early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *text.split("\n"), fence]


def wikilink(note: str, label: str = "") -> str:
    """An Obsidian wikilink to a note path relative to the vault; the label is
    kept from closing the link or splitting it."""
    target = note[:-3] if note.endswith(".md") else note
    label = label.replace("|", "-").replace("]", ")").replace("[", "(")
    return f"[[{target}|{label}]]" if label else f"[[{target}]]"


def tag(name: str) -> str:
    """An Obsidian tag made of a name (a tag of digits alone is no tag)."""
    made = re.sub(r"[^\w/-]+", "-", name).strip("-") or "project"
    return made if not made.isdigit() else f"project-{made}"
