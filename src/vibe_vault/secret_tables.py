"""Secrets given by the column they stand in rather than by a name beside
them: a CSV or TSV file whose header names a password (`username,password`
then `bob,hunter2`), a Markdown table with a `password`, `secret` or `token`
column, an SQL `INSERT INTO users (name, password) VALUES ('bob', '…')`.

The cells of that column are handed to a judge (`redact._cell_hides`: a
placeholder, a number, a word or a sentence is no secret); what it takes is
replaced by the marker. Pure functions of the text, run by the gate after its
rules (`redact.Redactor._redact`).
"""

from __future__ import annotations

from collections.abc import Callable

from vibe_vault.text import rx

# A column's name that means a secret, whole (lower case, quotes taken off):
# `password`, `Password`, `db_password`, `api key`, `access_token`,
# `client secret`, `credentials`, `password_plain`. Not a plural (`tokens` is a count), not
# `key` alone (a key of a map or a keyboard).
_COLUMN = (r"(?:[a-z0-9]+[ _.\-])*(?:password|passwd|passphrase|pass|pwd|pw|secret|token"
           r"|(?:api|access|secret|private|client|auth|master|account|license)[ _\-]?key|apikey"
           r"|credentials?)(?:[ _.\-](?:plain|plaintext|clear|cleartext|text|raw|value))?")
# The words such a name ends in (`pass` stands for its longer forms too).
_HEADER_WORDS = ("pass", "pwd", "pw", "secret", "token", "key", "credential", "value", "text",
                 "raw", "plain", "clear")
# What follows a header's cell: a quote, spaces, then a delimiter or the line's end.
_CELL_END = r"[\"'`]?[ \t]*(?:[,;|\t]|\r?\n|\Z)"
# A Markdown table's row under its header (`|---|:--:|`), or psql's (`----+----`).
_SEPARATOR_ROW = r"[ \t]*[|+]?(?:[ \t]*:?-{3,}:?[ \t]*[|+])*[ \t]*:?-{3,}:?[ \t]*[|+]?[ \t]*\r?\Z"
MAX_ROWS = 5000
# A column so named holds passwords: any value there is one. (`pass` may be a
# test's verdict, `pw` a power: their values are judged as a token's are.)
_PASSWORDS = ("password", "passwd", "passphrase", "pwd")
# Words of a sentence, not of a column's name: a line of prose with commas
# (`The password, as I said, is fine`) is no header.
_SENTENCE_WORDS = frozenset((
    "the", "a", "an", "my", "your", "our", "their", "his", "her", "its", "this", "that",
    "is", "are", "was", "were", "be", "i", "we", "you", "it", "as", "if", "so", "but",
    "and", "or", "not", "no", "to", "of", "in", "on", "at", "for", "with", "by", "from",
))


def _a_column_name(cell: str) -> bool:
    """A header's cell: a name of up to four words, none a sentence's."""
    words = cell.replace("_", " ").split()
    return len(cell) <= 40 and len(words) <= 4 and _SENTENCE_WORDS.isdisjoint(words)

# (start, end) of the cell's value in the text, and whether the column is a
# password's (any value there is one) rather than a token's or a key's.
Judge = Callable[[str, bool], bool]


def _cells(line: str, at: int, delimiter: str) -> list[tuple[int, int]]:
    """The spans (in the text: `line` begins at `at`) of a row's cells, their
    spaces, quotes and backticks taken off; for `|`, the row's outer pipes
    bound no cells. A CSV cell in double quotes may hold the delimiter."""
    body_end = len(line.rstrip("\r"))
    i = 0
    if delimiter == "|":
        stripped = line[:body_end].rstrip(" \t")
        lead = len(line) - len(line.lstrip(" \t"))
        if line.startswith("|", lead):
            i = lead + 1
        body_end = len(stripped) - 1 if stripped.endswith("|") and len(stripped) > i else \
            len(stripped)
    spans: list[tuple[int, int]] = []
    while True:
        a = i
        while a < body_end and line[a] in " \t":
            a += 1
        if delimiter != "|" and a < body_end and line[a] == '"':
            close = a + 1
            while True:
                close = line.find('"', close)
                if close < 0 or line[close + 1:close + 2] != '"':
                    break
                close += 2
            if close < 0:
                return []
            spans.append((at + a + 1, at + close))
            end = close + 1
            while end < body_end and line[end] in " \t":
                end += 1
            if end >= body_end:
                return spans
            if line[end] != delimiter:
                return []
            i = end + 1
            continue
        end = line.find(delimiter, i, body_end)
        stop = body_end if end < 0 else end
        b = stop
        while b > a and line[b - 1] in " \t":
            b -= 1
        if b - a >= 2 and line[a] == line[b - 1] and line[a] in "`'":
            a, b = a + 1, b - 1
        spans.append((at + a, at + b))
        if end < 0:
            return spans
        i = end + 1


def _lines_from(text: str, start: int) -> list[tuple[int, str]]:
    """The lines of `text` from the one holding `start`: (where each begins, the line)."""
    at = text.rfind("\n", 0, start) + 1
    out: list[tuple[int, str]] = []
    while at <= len(text) and len(out) <= MAX_ROWS:
        end = text.find("\n", at)
        if end < 0:
            out.append((at, text[at:]))
            break
        out.append((at, text[at:end]))
        at = end + 1
    return out


def table_spans(text: str, low: str, judge: Judge) -> list[tuple[int, int]]:
    """The cells to hide of every table in `text` whose header names a secret."""
    spans: list[tuple[int, int]] = []
    done_to = 0
    for at in _header_words(low):
        if at < done_to:
            continue
        line_start = low.rfind("\n", 0, at) + 1
        line_end = low.find("\n", at)
        header = low[line_start:len(low) if line_end < 0 else line_end]
        delimiter = _delimiter(header)
        if delimiter is None:
            continue
        names = [low[a:b] for a, b in _cells(header, line_start, delimiter)]
        if len(names) < 2 or not all(_a_column_name(n) for n in names):
            continue
        columns = [(i, any(w in n for w in _PASSWORDS)) for i, n in enumerate(names)
                   if rx(_COLUMN + r"\Z").match(n)]
        if not columns:
            continue
        rows = _lines_from(text, line_start)[1:]
        done_to = line_start + len(header)
        if delimiter == "|" and not (rows and rx(_SEPARATOR_ROW).match(rows[0][1])):
            # A Markdown or psql header has its rule under it; a row that only
            # holds a secret's name (`| password | required |` in a settings
            # table) heads nothing: the rows under it are not its column's.
            continue
        for k, (at, line) in enumerate(rows):
            if delimiter == "|" and k == 0 and rx(_SEPARATOR_ROW).match(line):
                done_to = at + len(line)
                continue
            cells = _cells(line, at, delimiter)
            if len(cells) != len(names):
                break
            for i, password in columns:
                a, b = cells[i]
                if a < b and judge(text[a:b], password):
                    spans.append((a, b))
            done_to = at + len(line)
    return spans


def _label(low: str, cells: list[tuple[int, int]], at: int) -> int | None:
    """The index of the cell holding `at` when it names a secret."""
    for i, (a, b) in enumerate(cells):
        if a <= at < b:
            name = low[a:b]
            return i if _a_column_name(name) and rx(_COLUMN + r"\Z").match(name) else None
    return None


def row_spans(text: str, low: str, judge: Judge) -> list[tuple[int, int]]:
    """The cells beside a label that names a secret, in a row of a Markdown
    table or an ASCII box (`| password | X |`, `| API key | `X` |`, a
    `| key | value |` table's rows): the label's right-hand cell is its
    value. A header (a `|---|` or `+---+` row under it) is left to
    `table_spans`; the judge leaves a word (`| password | required |`)."""
    spans: list[tuple[int, int]] = []
    done_to = -1  # each line is read once, whatever number of labels it holds
    for at in _header_words(low):
        if at < done_to:
            continue
        line_start = low.rfind("\n", 0, at) + 1
        line_end = low.find("\n", at)
        done_to = len(low) if line_end < 0 else line_end
        line = text[line_start:done_to]
        if "|" not in line:
            continue
        if line_end >= 0:
            after = low.find("\n", line_end + 1)
            below = low[line_end + 1:len(low) if after < 0 else after]
            if rx(_SEPARATOR_ROW).match(below) and not below.lstrip().startswith("+"):
                continue  # a Markdown header row (a box's rows have `+---+` under them too)
        cells = _cells(line, line_start, "|")
        for i in range(len(cells) - 1):
            name = low[slice(*cells[i])]
            if not (_a_column_name(name) and rx(_COLUMN + r"\Z").match(name)):
                continue
            a, b = cells[i + 1]
            if a < b and judge(text[a:b], any(w in name for w in _PASSWORDS)):
                spans.append((a, b))
    return spans


# Cells of a command's table (`kubectl get`, `docker ps`): two spaces or more apart.
_ALIGNED_CELL = r"[^ \t\r\n](?:[ \t]?[^ \t\r\n])*"


def aligned_spans(text: str, low: str, judge: Judge) -> list[tuple[int, int]]:
    """The cells under a header naming a secret's column, in a table whose
    columns are two spaces or more apart (`NAME   TOKEN` then `bob   X`), to
    the first row of another number of cells."""
    spans: list[tuple[int, int]] = []
    done_to = 0
    for at in _header_words(low, _ALIGNED_END):
        if at < done_to:
            continue
        line_start = low.rfind("\n", 0, at) + 1
        line_end = low.find("\n", at)
        if line_end < 0:
            break
        done_to = line_end  # (a line is read as a header once)
        header = low[line_start:line_end]
        if "|" in header or "," in header or "\t" in header:
            continue  # (table_spans' and row_spans')
        names = [(m.start() + line_start, m.end() + line_start)
                 for m in rx(_ALIGNED_CELL).finditer(header)]
        if len(names) < 2 or "  " not in header.strip():
            continue
        # (every cell a name beginning with a letter: a diff's `-    pass`
        # or a log's columns are no header; `pass` or `pw` alone a verdict)
        if not all(rx(_ALIGNED_NAME).match(low, a, b) for a, b in names):
            continue
        columns = [(i, any(w in n for w in _PASSWORDS)) for i, (a, b) in enumerate(names)
                   if (n := low[a:b]) not in ("pass", "pw") and _a_column_name(n)
                   and rx(_COLUMN + r"\Z").match(n)]
        if not columns:
            continue
        row_at = line_end + 1
        while row_at <= len(text):  # (row by row, to the first of another shape)
            end = text.find("\n", row_at)
            end = len(text) if end < 0 else end
            cells = [m.span() for m in rx(_ALIGNED_CELL).finditer(text, row_at, end)]
            if len(cells) != len(names):
                break
            for i, password in columns:
                a, b = cells[i]
                if judge(text[a:b], password):
                    spans.append((a, b))
            done_to = end
            row_at = end + 1
    return spans


_ALIGNED_NAME = r"[^\W\d_][\w .\-]{0,39}\Z"
# A header's cell in an aligned table ends at two spaces or more before the next one.
_ALIGNED_END = r"[ \t]{2,}(?=[^ \t\r\n])|[ \t]*(?:\r?\n|\Z)"


def _header_words(low: str, cell_end_rx: str = _CELL_END) -> list[int]:
    """Where a word a secret's column name ends in ends a cell, in order:
    found by a substring search each (a regex of them all cannot skip ahead)."""
    ends: list[int] = []
    cell_end = rx(cell_end_rx)
    for word in _HEADER_WORDS:
        at = low.find(word)
        while at >= 0:
            end = at + len(word)
            while end < len(low) and low[end].isalpha():
                end += 1  # (`pass` in `password`, `passphrase`; `credential` in `…s`)
            if cell_end.match(low, end):
                ends.append(at)
            at = low.find(word, end)
    return sorted(set(ends))


def _delimiter(header: str) -> str | None:
    """A header row's delimiter: `|` for a Markdown row, else the commonest
    of a tab, `,` and `;` in it."""
    if "|" in header and header.count("|") >= header.count(",") + header.count("\t"):
        return "|"
    best = max(("\t", ",", ";"), key=header.count)
    return best if header.count(best) else None


# `INSERT INTO t (a, password, …) VALUES (…, '…', …), (…)`: the columns, then
# each row's values by position.
_INSERT = (r"insert[ \t]+(?:(?:ignore|or[ \t]+\w+)[ \t]+)?into[ \t]+[\w.\"`\[\]]+[ \t]*"
           r"\((?P<columns>[^()]{1,2000})\)[ \t\r\n]*values[ \t\r\n]*")


def _sql_row(text: str, at: int) -> tuple[list[tuple[int, int]], int] | None:
    """The spans of the values of the row `(…)` at `at`, and where it ends."""
    if at >= len(text) or text[at] != "(":
        return None
    values: list[tuple[int, int]] = []
    depth, start, i = 0, at + 1, at + 1
    while i < len(text):
        c = text[i]
        if c in "'\"":
            close = i + 1
            while True:
                close = text.find(c, close)
                if close < 0:
                    return None
                if text[close + 1:close + 2] == c:  # '' inside: one quote
                    close += 2
                    continue
                break
            i = close + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                values.append((start, i))
                return values, i + 1
            depth -= 1
        elif c == "," and depth == 0:
            values.append((start, i))
            start = i + 1
        i += 1
    return None


def _literals(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of the quoted strings' insides in text[start:end]."""
    out: list[tuple[int, int]] = []
    i = start
    while i < end:
        c = text[i]
        if c in "'\"":
            close = i + 1
            while True:
                close = text.find(c, close)
                if close < 0 or close >= end:
                    return out
                if text[close + 1:close + 2] == c:
                    close += 2
                    continue
                break
            out.append((i + 1, close))
            i = close + 1
            continue
        i += 1
    return out


def sql_spans(text: str, low: str, judge: Judge) -> list[tuple[int, int]]:
    """The literals to hide in the rows of every INSERT that names a secret's column."""
    spans: list[tuple[int, int]] = []
    for m in rx(_INSERT).finditer(low):
        names = [c.strip(" \t\r\n\"'`[]") for c in m.group("columns").split(",")]
        columns = [(i, any(w in n for w in _PASSWORDS)) for i, n in enumerate(names)
                   if rx(_COLUMN + r"\Z").match(n)]
        if not columns:
            continue
        at = m.end()
        for _ in range(MAX_ROWS):
            row = _sql_row(text, at)
            if row is None:
                break
            values, at = row
            if len(values) == len(names):
                for i, password in columns:
                    for a, b in _literals(text, *values[i]):
                        if a < b and judge(text[a:b], password):
                            spans.append((a, b))
            while at < len(text) and text[at] in " \t\r\n":
                at += 1
            if at >= len(text) or text[at] != ",":
                break
            at += 1
            while at < len(text) and text[at] in " \t\r\n":
                at += 1
    return spans
