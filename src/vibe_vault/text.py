"""Cleaning transcript text for a note: wrapper tags, base64, length limits."""

from __future__ import annotations

import re
from functools import cache

from vibe_vault import patterns

# Patterns are compiled on first use (`rx`): a hook that meets no wrapper tag
# or base64 never pays for compiling them.
# Tags Claude Code wraps around context it injects into a user message.
_WRAPPERS = (
    r"<(system-reminder|ide_opened_file|ide_selection|ide_diagnostics|user-memory-input"
    r"|local-command-stdout|local-command-stderr|local-command-caveat|command-message"
    r"|bash-stdout|bash-stderr|task-notification|new-diagnostics|context)\b[^>]*>"
    r"[\s\S]*?(?:</\1>|\Z)"
)
_ANY_TAG = r"</?[a-z][a-z0-9_-]*(?:\s[^<>]*)?>"
_COMMAND_NAME = r"<command-name>\s*([^<]*?)\s*</command-name>"
_COMMAND_ARGS = r"<command-args>([\s\S]*?)</command-args>"
_DATA_URI = r"data:[\w/+.\-]+;base64,[A-Za-z0-9+/=\s]{16,}"
_BASE64_RUN = r"[A-Za-z0-9+/]{200,}={0,2}"
# Control characters (C0, C1, and line separators a note must not hold) become
# spaces; bidi overrides, which can make text read other than it is, go.
_BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_CONTROL: dict[int, str | None] = {
    **{c: " " for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), 0x2028,
                        0x2029]},
    **dict.fromkeys(_BIDI),
}
_ANY_CONTROL = (r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f"
                r"\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """Text for a terminal or a log line: no control characters, no bidi."""
    return text.translate(_CONTROL)


@cache
def rx(pattern: str) -> re.Pattern[str]:
    """One of the package's own patterns, compiled the first time it is asked
    for (from the program `patterns` kept of it, when there is one)."""
    return patterns.compile(pattern)


@cache
def users_rx(pattern: str) -> re.Pattern[str]:
    """A pattern of the user's (`redact_patterns`), compiled the first time it
    is asked for; not through `patterns`, which would keep it in a file (it
    may be a literal secret)."""
    return re.compile(pattern)


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern for a module's top level, compiled the first time one of its
    methods is used: a Stop meets few of the patterns its modules hold, and
    compiling the rest cost it ~4 ms."""
    return _Lazy(pattern, flags)  # type: ignore[return-value]


class _Lazy:
    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> object:
        compiled = patterns.compile(*self._args)
        # From then on the compiled pattern's own methods, with no lookup between.
        for method in ("search", "match", "fullmatch", "sub", "subn", "finditer", "findall",
                       "split", "pattern", "flags", "groups", "groupindex"):
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)


# Prompts that carry no topic: never a title.
FILLER = frozenset(
    {
        "continue",
        "go",
        "go on",
        "go ahead",
        "keep going",
        "yes",
        "y",
        "yep",
        "yeah",
        "no",
        "n",
        "ok",
        "okay",
        "k",
        "sure",
        "thanks",
        "thank you",
        "proceed",
        "do it",
        "done",
        "next",
        "please continue",
        "lgtm",
        "retry",
        "try again",
    }
)


def strip_base64(text: str) -> str:
    if "base64," in text:
        text = rx(_DATA_URI).sub("[base64 data]", text)
    if _may_hold_run(text) and rx(_BASE64_RUN).search(text):
        text = rx(_BASE64_RUN).sub("[base64 data]", text)
    return text


def _may_hold_run(text: str) -> bool:
    """False when the text cannot hold 200 characters without a space or newline.

    Such a run contains a whole aligned 100-character window without either, so
    looking at a few windows spares ordinary text the regex (4 us on 450 chars).
    """
    if len(text) < 200:
        return False
    return any(" " not in text[i : i + 100] and "\n" not in text[i : i + 100]
               for i in range(0, len(text) - 99, 100))


# `<private>`, with attributes or not (`<private reason="x">`), in any case.
_PRIVATE = r"(?is)<private(?:\s[^>]*)?>(.*?)(?:</private\s*>|\Z)"
PRIVATE_MARK = "[private]"


def hide_private(text: str) -> tuple[str, list[str]]:
    """`<private>…</private>` spans replaced by `[private]`; and the spans, so
    their words can be kept out of everything else too. An unclosed tag hides
    the rest of the text."""
    if "<private" not in text.lower():
        return text, []
    spans: list[str] = []

    def hide(match: re.Match[str]) -> str:
        spans.append(match.group(1))
        return PRIVATE_MARK

    return rx(_PRIVATE).sub(hide, text), spans


# Terminal escape sequences (ECMA-48), whole: CSI with its parameters
# (`ESC[1;31m`, `ESC[?25l`, 8-bit `\x9b`), OSC to its terminator (a title, a
# hyperlink), a charset choice (`ESC(B`) and the other two-byte escapes.
# Removing only the ESC byte would leave `[31m` in the note.
_ESCAPES = (r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
            r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
            r"|\x1b[ -/]+[0-~]|\x1b[0-~]?")
# What is left of a colour sequence whose ESC byte was lost on the way (a
# tool's output stripped of control bytes): `[31m`, `[1;32m`, `[0m`; its
# digits and the `m` tell it from words in brackets (`[10m]`, a bracketed
# time, stays), as `?25l`/`?25h` tell a cursor's hiding and showing.
_ESCAPE_RESIDUE = r"\[(?:\d{1,3}(?:;\d{1,3})*m|\?25[hl])(?!\])"


def strip_ansi(text: str) -> str:
    """`text` without terminal escape sequences, nor their residues."""
    if "\x1b" in text or "\x9b" in text or "\x9d" in text:
        text = rx(_ESCAPES).sub("", text)
    if "[" in text:
        text = rx(_ESCAPE_RESIDUE).sub("", text)
    return text


def clean(text: str) -> str:
    """Text safe to show: no base64 blobs, no terminal escapes, no control
    characters."""
    text = strip_ansi(strip_base64(text))
    if (not text.isprintable()
            and not text.replace("\n", "").replace("\t", "").isprintable()
            and rx(_ANY_CONTROL).search(text)):
        text = text.translate(_CONTROL)
    return text


def slash_command(text: str) -> str | None:
    """`/name args` when the text is a slash-command wrapper, else None."""
    if "<command-name>" not in text:
        return None
    m = rx(_COMMAND_NAME).search(text)
    if not m:
        return None
    name = m.group(1).strip()
    if not name.startswith("/"):
        name = "/" + name
    a = rx(_COMMAND_ARGS).search(text)
    args = a.group(1).strip() if a else ""
    return f"{name} {args}".strip()


def strip_wrappers(text: str) -> str:
    """The words a person typed, without the context blocks around them."""
    if "<" not in text:
        return text.strip()
    text = rx(_WRAPPERS).sub("", text)
    text = rx(_ANY_TAG).sub("", text)
    return text.strip()


def one_line(text: str, limit: int) -> str:
    """First non-empty line, collapsed and cut to `limit` characters."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return trim(line, limit)
    return ""


# A greeting before a request says nothing of it ("Hey Claude, can you …").
_GREETING = r"(?i)^(?:hey|hi|hello|hiya)(?:\s+there)?(?:\s+claude)?\s*[,!.:]+\s+(?=\S)"
# A sentence's end: `.`, `?` or `!` before a space (not `e.g.,`, not `v1.2`).
_SENTENCE_END = r"[.?!]+(?=\s)"
# Words a cut title must not end on: they announce words that were cut (the
# function words of English: articles, prepositions, conjunctions, auxiliaries,
# subject pronouns and determiners; "…with the release.yml through…" ends on
# one). An object ("examine them…") or a particle ("set up…") ends a phrase.
_DANGLING = frozenset({
    "a", "an", "the", "of", "to", "for", "with", "and", "or", "but", "nor", "yet", "in",
    "on", "at", "by", "from", "into", "onto", "upon", "as", "that", "which", "who", "whom",
    "whose", "what", "where", "when", "while", "whether", "how", "why", "is", "are", "was",
    "were", "be", "been", "being", "am", "do", "does", "did", "have", "has", "had", "can",
    "could", "will", "would", "shall", "should", "may", "might", "must", "not", "no",
    "my", "your", "our", "their", "his", "her", "this", "these", "those", "its", "it",
    "i", "we", "you", "they", "he", "she", "so", "if", "than", "then",
    "via", "about", "like", "through", "throughout", "across", "over", "under", "between",
    "among", "after", "before", "during", "until", "till", "since", "because", "although",
    "though", "unless", "without", "within", "toward", "towards", "against", "along",
    "around", "behind", "beyond", "below", "above", "beside", "besides", "despite", "per",
    "some", "any", "each", "every", "all", "both", "either",
    "neither", "such", "e.g.", "i.e.", "i'm", "i've", "i'd", "i'll", "it's", "let's",
    "there's", "that's", "we're", "you're", "they're", "don't", "doesn't", "didn't"})


# Words before a request that say nothing of it: a discourse marker ("Ok,
# so", "Alright,") or a sentence announcing that a request follows ("before
# tackling the next task, i'd like to ask one extra request.", "I have a
# question:"). Left out of a title when the request follows them.
_MARKER = (r"(?i)^(?:(?:ok(?:ay)?|alright|well|right|now|so)\s*[,!.]\s*(?:so\b,?\s*)?"
           r"|(?:ok(?:ay)?|alright)\s+so\b,?\s*)(?=\S)")
_ANNOUNCED = (
    r"(?:request|question|ask|favou?r|thing|task|change|tweak|idea|issue|problem)s?")
_PREAMBLE = (
    r"(?i)^(?:(?:before|after|now|so|ok(?:ay)?|also|and|but)\b[^.?!:]{0,60}?,\s*)?"
    r"(?:(?:i'?d (?:like|love)(?: to)?|i (?:want|need)(?: to)?|i (?:have|got)|i've got"
    r"|can i|could i|may i|let me|here'?s|there'?s|just)\s+)?"
    r"(?:(?:ask|make|add|have|raise)\s+(?:you\s+)?)?"
    r"(?:(?:one|a|an|another|some|two|a few|few|one more|more|quick|small|little|extra"
    r"|last|final|new|couple of|further|follow-up)\s+)*" + _ANNOUNCED +
    r"(?:\s+(?:for you|first|before that|too))?\s*[.:!]+(?:\s+|$)")
# A word of prose (not a path, a file mention, a flag or a number).
_PROSE_WORD = r"^[^\W\d_][\w'’-]*[,.;:!?…)]*$"


def reads_as_words(title: str) -> bool:
    """Whether a title reads as words about the work: more than half of it
    words of prose (not `@public/a.css, @public/b.html…`; a short one, "Fix
    login", does)."""
    tokens = title.split()
    prose = sum(1 for t in tokens if rx(_PROSE_WORD).match(t.lstrip("(\"'“")))
    return prose * 2 > len(tokens)


def _openings(text: str) -> list[str]:
    """Where a title may start, best first: the request's first line without
    what says nothing of it (a greeting, a discourse marker, a preamble); then
    each later sentence of it, then its later lines (a title that is a file
    list gives way to the first that reads as words)."""
    lines = [" ".join(ln.split()) for ln in text.splitlines() if ln.strip()][:8]
    out: list[str] = []
    for k, line in enumerate(lines):
        for _ in range(3):  # "Hey Claude, ok so I have a question: …"
            m = (rx(_GREETING).match(line) or rx(_MARKER).match(line)
                 or rx(_PREAMBLE).match(line))
            if m is None or m.end() >= len(line):
                break
            rest = line[m.end():]
            line = rest[0].upper() + rest[1:]
        if k == 0 and len(lines) > 1 and rx(_PREAMBLE).fullmatch(line + " "):
            continue  # a first line that only announces the request below it
        if k and not out:
            line = line[0].upper() + line[1:]
        out.append(line)
        out.extend(line[m.end():] for m in rx(_SENTENCE_END + r"\s+(?=\S)").finditer(line))
    return out or [one_line(text, 1 << 30)]


def title_line(text: str, limit: int) -> str:
    """A title from a request: its first line, without a greeting, a
    discourse marker or a preamble before the request ("I have a question:");
    whole when it fits; else its first sentences that fit (a complete
    thought, unmarked); else cut at a word, with no dangling word (`of`,
    `the`, a comma) before the `…`. One that does not read as words (a list
    of files) gives way to the request's first later sentence that does."""
    openings = _openings(text)
    for line in openings[:12]:
        title = _fitted(line, limit)
        if reads_as_words(title):
            return title
    return _fitted(openings[0], limit)


def _fitted(line: str, limit: int) -> str:
    """One line of a request as a title of at most `limit` characters."""
    if len(line) <= limit:
        return line
    ends = [m.end() for m in rx(_SENTENCE_END).finditer(line, 0, limit + 1)
            if m.end() <= limit]
    if ends and ends[-1] >= limit * 0.4:
        return line[:ends[-1]].rstrip(".")
    head = line[:limit - 1]
    clause = max(head.rfind(", "), head.rfind("; "), head.rfind(" - "), head.rfind(" – "))
    space = head.rfind(" ")
    kept = (head[:clause] if clause >= limit * 0.75
            else head[:space] if space >= limit * 0.4 else head)
    words = kept.split(" ")
    while len(words) > 3 and (words[-1].lower().strip(",;:-–—(") in _DANGLING
                              or not words[-1].strip(",;:-–—(")):
        words.pop()
    return " ".join(words).rstrip(",;:-–—( ") + "…"


# An answer's closing lines that ask the user to choose or say: options below
# a line asking ("should I:", "Which do you prefer?"), or a last question.
_OPTION = r"^(?:\d{1,2}[.)]|[-*•]|\(?[a-hA-H][.)])\s+\S"
_ASKING = (r"(?i)\b(?:should|shall|can|may) (?:I|we)\b|\bwould you\b|\bdo you\b"
           r"|\bwant me\b|\bprefer\b|\bwhich (?:one|option|approach|way|do|would|should)\b"
           r"|\blet me know (?:which|if|whether)\b")
_MARKUP = r"(?m)\*{1,2}|`|^#{1,6}\s+|^>\s*"


def closing_question(text: str) -> str:
    """The question an answer ends on, "" when it ends otherwise: a last line
    ending in `?` (its last sentence), or options listed below a line that
    asks ("should I:", "Which do you prefer?"), told with them. What asks for
    nothing ("let me know if you see errors!", a summary's list) is none."""
    lines = [" ".join(rx(_MARKUP).sub("", ln).split()) for ln in text.strip().splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines or text.rstrip().endswith("```"):
        return ""
    k = len(lines)
    while k > 0 and rx(_OPTION).match(lines[k - 1]):
        k -= 1
    if k < len(lines) and k > 0:
        intro = lines[k - 1]
        if intro.endswith("?") or (intro.endswith(":") and rx(_ASKING).search(intro)):
            return " ".join([intro, *lines[k:]])
        return ""
    last = lines[-1]
    if not last.endswith("?"):
        return ""
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z])", last)
    return sentences[-1]


_LAST_STAGE = r"\s(?:\|\||\|)\s[^|;&]*$"


def one_line_command(command: str, limit: int) -> str:
    """A command's first line cut to `limit` characters; a cut falls before its
    last stage (`… | tail -40`, `… || true`), which stays: it decides what
    the exit status says."""
    line = one_line(command, 1 << 30)
    if len(line) <= limit:
        return line
    m = rx(_LAST_STAGE).search(line)
    if m is None or len(line) - m.start() > limit // 2:
        return trim(line, limit)
    tail = line[m.start():]
    return trim(line[:m.start()], limit - len(tail)).rstrip("…") + "…" + tail


LONGEST_WORD = 8192  # a run without whitespace longer than any secret's form


def cut(text: str, n: int) -> str:
    """About `n` characters, cut at whitespace so no token is split: before
    the redaction gate a token cut in two would pass it in part. A run with no
    whitespace across `n` is kept whole (up to LONGEST_WORD past it)."""
    if len(text) <= n:
        return text
    at = max(text.rfind(" ", 0, n), text.rfind("\n", 0, n), text.rfind("\t", 0, n))
    if at > n // 2:
        return text[:at]
    after = rx(r"\s").search(text, n, n + LONGEST_WORD)
    if after is not None:
        return text[: after.start()]
    return text[:at] if at > 0 else text[: n + LONGEST_WORD]


def trim(text: str, limit: int) -> str:
    """Cut to `limit` characters at a word boundary, marking the cut."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip() + "…"


def is_filler(text: str) -> bool:
    return text.strip().strip(".!?").lower() in FILLER
