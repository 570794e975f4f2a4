"""Cleaning transcript text for a note: wrapper tags, base64, length limits."""

from __future__ import annotations

import re
from functools import cache, lru_cache
from itertools import pairwise

from vibe_vault import patterns

# Patterns are compiled on first use (`rx`): a hook that meets no wrapper tag
# or base64 never pays for compiling them.
# Tags Claude Code wraps around context it injects into a user message.
_WRAPPER_NAMES = ("system-reminder", "ide_opened_file", "ide_selection", "ide_diagnostics",
                  "user-memory-input", "local-command-stdout", "local-command-stderr",
                  "local-command-caveat", "command-message", "bash-stdout", "bash-stderr",
                  "task-notification", "new-diagnostics")
_WRAPPERS = (r"<(" + "|".join(_WRAPPER_NAMES) + r"|context)\b[^>]*>"
             r"[\s\S]*?(?:</\1>|\Z)")
# Claude Code's own tags left once its wrappers are gone: a slash command's
# (`<command-name>`…, told apart by `slash_command`) and a wrapper's end or
# start alone. Any other tag is the person's: a placeholder (`gh pr view
# <number>`, `<feature-name>`), a pasted page's markup, an `<img>` they asked
# about. It is their words, kept as typed (the note escapes it).
_CLIENT_TAG = (r"</?(?:command-name|command-args|bash-input|" + "|".join(_WRAPPER_NAMES)
               + r")\b[^<>]*>")
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

    if len(rx(_PRIVATE_OPEN).findall(text)) > 1:
        return _hide_nested(text)
    return rx(_PRIVATE).sub(hide, text), spans


# A tag that opens or closes a private span.
_PRIVATE_OPEN = r"(?i)<private(?:\s[^>]*)?>"
_PRIVATE_TAG = r"(?i)(<private(?:\s[^>]*)?>)|</private\s*>"


def _hide_nested(text: str) -> tuple[str, list[str]]:
    """`hide_private` of a text with several opening tags: a span nested in
    another (`<private><private>a</private>b</private>`) is hidden whole, to
    the close of the outermost (the first close alone would leave `b`)."""
    out: list[str] = []
    spans: list[str] = []
    depth = last = start = 0
    for m in rx(_PRIVATE_TAG).finditer(text):
        if m.group(1) is not None:  # an opening tag
            if depth == 0:
                out.append(text[last:m.start()])
                start = m.end()
            depth += 1
        elif depth > 0:  # a close (one with nothing open is a word of the text)
            depth -= 1
            if depth == 0:
                spans.append(rx(_PRIVATE_TAG).sub(" ", text[start:m.start()]))
                out.append(PRIVATE_MARK)
                last = m.end()
    if depth > 0:  # unclosed: the rest of the text
        spans.append(rx(_PRIVATE_TAG).sub(" ", text[start:]))
        out.append(PRIVATE_MARK)
        last = len(text)
    return "".join(out) + text[last:], spans


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
    text = rx(_CLIENT_TAG).sub("", text)
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
# A sentence's end: `.`, `?` or `!` before a space (not `e.g.,`, not `v1.2`),
# or a full-width mark, which needs none (`。` `？` `！`: Chinese, Japanese).
_SENTENCE_END = r"(?:[.?!]+(?=\s)|[。？！]+(?=\S|\s|$))"
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
# (Chinese and Japanese run a sentence's words together, `、` `，` between clauses)
_PROSE_WORD = r"^[^\W\d_][\w'’\-、，・]*[,.;:!?…)。？！，、；：]*$"


def reads_as_words(title: str) -> bool:
    """Whether a title reads as words about the work: more than half of it
    words of prose (not `@public/a.css, @public/b.html…`; a short one, "Fix
    login", does)."""
    tokens = title.split()
    prose = sum(1 for t in tokens if rx(_PROSE_WORD).match(t.lstrip("(\"'“")))
    return prose * 2 > len(tokens)


# Words that say nothing of the work: a first clause of only these (beside
# function words) is a lead-in, "There isn't much to see here, mostly one
# idea about …", "I think there's some progress: in the first screenshot …"
# (review 25 N11, L6), and a hedge opening what follows it ("mostly").
_EMPTY_WORDS = frozenset({
    "much", "see", "seen", "here", "progress", "think", "nothing", "anything", "news",
    "quick", "thing", "things", "little", "bit", "good", "better", "fine", "great", "well",
    "okay", "ok", "isn't", "isnt", "aren't", "not", "really", "yet", "still", "again",
    "guess", "suppose", "believe", "looks", "look", "seems", "seem", "hmm", "ah", "oh",
    "there", "there's", "here's", "interesting", "cool", "nice", "right", "sure", "yes",
    "yeah", "update", "made", "make", "some", "lot", "lots", "more", "less", "very"})
_HEDGE = r"(?i)(?:mostly|basically|essentially|actually|really|just)\b,?\s+(?=\S)"
_LEAD_IN = r"^([^,;:.?!()`]{3,60}?)(?:[,;:]|\s[-\u2013\u2014])\s+(?=\S)"


class _Cut:
    """Where a matched lead-in ends (the interface of a regex match that
    `_openings` reads)."""

    def __init__(self, end: int) -> None:
        self._end = end

    def end(self) -> int:
        return self._end


# A polite or hedged way into a request that says nothing of it ("Can you please
# update …", "Do you think it would be possible to move …", "I'd like your help
# with refactoring …"): left out of a title, which then opens on the request's
# own verb (review 26: four of 15 weak titles opened so). ("I'd like your help
# with refactoring …" and "let's …" stay: the words after them are no verb
# that says a request, or need what the prompt said before them.)
_ASK_OPENING = (
    r"(?i)^(?:(?:can|could|would|will) you(?:\s+please)?|please"
    r"|do you think (?:it(?:['\u2019]s| is| would be| will be)|we (?:can|could))"
    r"(?: (?:possible|feasible|doable))?(?: to)?|is it (?:possible|feasible) to"
    r"|i(?:['\u2019]d| would) like to)\s+(?=[^\W\d_])")
MIN_ASKED_WORDS = 3  # after a way into a request: fewer say too little alone


def _ask_opening(line: str) -> _Cut | None:
    """A way into a request ("Can you please") with at least
    MIN_ASKED_WORDS words of the request after it; None when there is none."""
    m = rx(_ASK_OPENING).match(line)
    if m is None or len(line[m.end():].split()) < MIN_ASKED_WORDS:
        return None
    return _Cut(m.end())


# Where the sentence a way into a request opened ends: its marks, then a
# space, a clause's mark or the end of the line.
_ASKED_END = r"[.?!]+(?=[\s,;:]|$)"


def _no_longer_asked(words: str) -> str:
    """The words after a way into a request ("Can you …?") that is left out:
    they no longer ask a question, so the `?` ending their sentence goes
    ("Add a Github Action to run tests and linting?" read as a question the
    user never asked; issue 29). A `.` takes its place when more words
    follow as a sentence of their own. A question asked by other words ("Why
    does X fail?") keeps it."""
    end = rx(_ASKED_END).search(words)
    if end is None or "?" not in end.group():
        return words
    after = words[end.end():]
    goes_on = rx(r"\s*[^\W\d_]").match(after) is not None
    return words[:end.start()] + ("." if goes_on else "") + after


def _only_ask_opening(words: str) -> bool:
    """Whether the words are a way into a request and nothing else."""
    said = words.strip()
    m = rx(_ASK_OPENING).match(said + " x")
    return m is not None and m.end() == len(said) + 1


def _lead_in(line: str) -> _Cut | None:
    """A first clause that only leads in (all its words of meaning empty),
    with a hedge opening the words after it; None when the clause says
    something, or nothing of weight follows it."""
    m = rx(_LEAD_IN).match(line)
    if m is None:
        return None
    words = [w.strip("\"'“”‘’").lower().replace("\u2019", "'") for w in m.group(1).split()]
    if not words or any(w not in _DANGLING and w not in _EMPTY_WORDS for w in words):
        return None
    end = m.end()
    hedge = rx(_HEDGE).match(line, end)
    end = hedge.end() if hedge else end
    return _Cut(end) if len(line[end:].split()) >= 4 else None


def _openings(text: str) -> list[str]:
    """Where a title may start, best first: the request's first line without
    what says nothing of it (a greeting, a discourse marker, a preamble); then
    each later sentence of it, then its later lines (a title that is a file
    list gives way to the first that reads as words)."""
    lines = [" ".join(ln.split()) for ln in text.splitlines() if ln.strip()][:8]
    out: list[str] = []
    for k, line in enumerate(lines):
        while True:  # "Hey Claude, ok so I have a question: …", "now, now, fix it"
            asked = None
            m = (rx(_GREETING).match(line) or rx(_MARKER).match(line)
                 or rx(_PREAMBLE).match(line) or _lead_in(line)
                 or (asked := _ask_opening(line)))
            if m is None or m.end() >= len(line):
                break
            rest = line[m.end():] if asked is None else _no_longer_asked(line[m.end():])
            line = rest[0].upper() + rest[1:]
        if k == 0 and len(lines) > 1 and rx(_PREAMBLE).fullmatch(line + " "):
            continue  # a first line that only announces the request below it
        if k and not out:
            line = line[0].upper() + line[1:]
        out.append(line)
        for m in rx(_SENTENCE_END + r"\s*(?=\S)").finditer(line):
            sentence = line[m.end():]
            asked = _ask_opening(sentence)
            # (one pointing back at what came before it keeps its way in: said
            # alone, its request would go first and its context after it)
            if asked is not None and rx(_REFERS_BACK).search(
                    " ".join(sentence[asked.end():].split()[:6])):
                asked = None
            said = _no_longer_asked(sentence[asked.end():]) if asked else ""
            out.append(said[:1].upper() + said[1:] if asked else sentence)
    return out or [one_line(text, 1 << 30)]


# An aside in brackets inside a sentence ("We've just done a big refactoring
# (Phase 2 from @docs/X.md) and a lot of the browser tests are failing"):
# words after it, not in it, say what the sentence is about (review 22 #2).
_ASIDE = r"(?<=\S) \([^()\[\]]*\)(?=[\s,;:.!?]|$)|(?<=\S) \[[^()\[\]]*\](?=[\s,;:.!?]|$)"


def _without_asides(line: str, limit: int) -> str:
    """A line too long for a title without its asides in brackets, so that a
    cut reaches the words after them; a line that fits, as it is."""
    return line if len(line) <= limit else rx(_ASIDE).sub("", line)


@lru_cache(maxsize=64)
def title_line(text: str, limit: int) -> str:
    """A title from a request: its first line, without a greeting, a
    discourse marker or a preamble before the request ("I have a question:");
    whole when it fits; else its first sentences that fit (a complete
    thought, unmarked); else cut at a word, with no dangling word (`of`,
    `the`, a comma) before the `…`. One that does not read as words (a list
    of files) gives way to the request's first later sentence that does.

    Kept for the last few texts (a function of the text alone): the fold
    titles a session from its first request, and the session's record then
    finds that request among its turns by the same title
    (figures.request_words), in the same process (a Stop, a backfill's
    worker); at ~1 ms a title, that was 5% of a cold backfill."""
    openings = [_without_asides(line, limit) for line in _openings(text)]
    title = next((t for t in (_fitted(line, limit) for line in openings[:12])
                  if reads_as_words(t)), "") or _fitted(openings[0], limit)
    if title == _fitted(openings[0], limit) and _before_a_list(text, openings[0]):
        # "Please perform the following edits:\n\n1. …\n2. …": the line before
        # the list says what is asked, its items are parts of it (review 31
        # F12: 1656b075 was titled by its item 2, the first whose verb the
        # request rules know).
        return title
    title = _holding_the_request(openings, title, limit)
    title = _with_referent(openings[0], title, limit) or _run_on(openings, title, limit)
    return _what_is_wrong(openings, title, limit)


# An item of a list: "1. ", "2) ", "- ", "* ", "• ", "a) ".
_LIST_ITEM = r"(?:\d{1,3}[.)]|[-*•+]|[a-zA-Z]\))\s+\S"


def _before_a_list(text: str, opening: str) -> bool:
    """Whether `opening` is the line (its end, after a greeting or a "please"
    left out) that ends in a colon before the list it introduces."""
    if not opening.endswith(":"):
        return False
    lines = [" ".join(ln.split()) for ln in text.splitlines() if ln.strip()][:9]
    said = opening.lower()
    return any(line.lower().endswith(said) and rx(_LIST_ITEM).match(after)
               for line, after in pairwise(lines))


# A sentence that turns from what works to what does not ("However, …",
# "But …", "Unfortunately, …"), and the words before what it says that only
# point at where to see it ("you can see, on both screenshots, that …").
_TURN = r"(?i)^(?:however|but|unfortunately|sadly|still|yet)\b,?\s+(?=\S)"
_YOU_SEE = (r"(?i)^(?:(?:as\s+)?you\s+(?:can\s+)?(?:see|notice)|I\s+(?:can\s+|still\s+)?"
            r"(?:see|notice))\b[^.?!]{0,80}?\s(?:that|how)\s+(?=\S)")


def _first_sentence_of(opening: str) -> str:
    end = rx(_SENTENCE_END).search(opening)
    return opening[:end.end()] if end else opening


def _what_is_wrong(openings: list[str], title: str, limit: int) -> str:
    """A first request that asks for nothing and reports what works, then
    turns to what does not ("… we see task A and B having a correct number
    of messages … However, you can see … that the sub messages are still
    grouped in one contiguous sequence after Task B."): what does not work
    is what the session is about, and titles it (review 26: 15eaa3ee). A
    request anywhere in it, or no such turn, leaves the title as it is."""
    sentences = openings[1:12]
    if not sentences or any(_request_in(_first_sentence_of(o)) is not None
                            for o in openings[:12]):
        return title
    for sentence in sentences:
        turn = rx(_TURN).match(sentence)
        if turn is None:
            continue
        said = sentence[turn.end():]
        seen = rx(_YOU_SEE).match(said)
        said = said[seen.end():] if seen else said
        end = rx(_SENTENCE_END).search(said)
        said = (said[:end.start()] if end else said).rstrip().rstrip(".")
        if len(said.split()) < 4 or not reads_as_words(said):
            continue
        said = said[:1].upper() + said[1:]
        cut = _fitted(said, limit)
        return (_ran_on(said, len(cut) - 1, limit) or cut) if cut.endswith("…") else cut
    return title


# What marks words as asking for something (issue 29: "This was just so you
# know what there is now, but after more than a decade…" lost "I want to …
# fix the broken APIs"). An imperative opening a clause ("examine them, add
# and commit"), a request form anywhere in it ("can you", "I'd like to",
# "let's", "we should", and their like in German, French and Spanish), a
# sentence ending as a request does in Korean or Japanese or opening as one
# does in Chinese, or a question.
_ASK_VERBS = (
    "add|fix|make|create|update|remove|delete|implement|write|change|move|rename|refactor"
    "|use|run|build|port|examine|check|review|investigate|debug|explain|find|help|show"
    "|tell|list|set|configure|install|commit|push|merge|rebase|test|try|look|read|convert"
    "|replace|support|improve|optimi[sz]e|clean|document|generate|design|plan|propose"
    "|analy[sz]e|research|summari[sz]e|give|start|stop|continue|finish|get|put|keep|drop"
    "|split|extract|bump|upgrade|downgrade|deploy|release|publish|prepare|draft|translate"
    "|migrate|integrate|enable|disable|allow|prevent|handle|verify|validate|ensure"
    "|compare|measure|profile|benchmark|format|lint|sort|filter|hide|expose|wire|revert"
    "|undo|restore|reset|squash|open|close|resolve|address|apply|adjust|tweak|simplify"
    "|rewrite|restructure|reorgani[sz]e|consolidate|fetch|pull|clone|download|upload"
    "|print|display|render|ship|describe|outline|suggest|recommend|identify|search|trace"
    "|diagnose|figure out|go ahead and|see|study|inspect|audit|fill|complete|organi[sz]e"
    "|pick|choose|decide|sketch|draw|turn|switch|bring|send|share|save|store|load"
    "|cache|wrap|mark|label|tag|link|connect|attach|detach|mount|expand|collapse"
    "|hand (?:over|off)|delegate|assign|have(?= (?:each|every|all|both|them|one|someone))")
# Words a clause may open with before its verb ("but then add …").
_CLAUSE_LEAD = (r"(?:(?:but|and|so|also|then|now|just|first|finally|please|ok(?:ay)?|maybe"
                r"|perhaps|next|lastly)\b,?\s+)*")
# An imperative, not a noun opening a statement ("build fails", "test is …").
_IMPERATIVE = (rf"(?i)^{_CLAUSE_LEAD}(?:{_ASK_VERBS})(?=\s)(?!\s+(?:is|are|was|were"
               r"|has|had|fails?|failed|works?|worked|seems?|looks|passe[sd]|does|did|will"
               r"|would|can|could|should|may|might|must|ran|runs)\b)")
_ASK_FORM = (r"(?i)(?<![\w'\u2019])(?:(?:can|could|would|will) you|please"
             r"|i(?:['\u2019]d| would) (?:like|love)(?: you| your help)?(?: to)?"
             r"|i (?:want|need)(?: you)? to|let['\u2019]?s|help me|we (?:should|need to|must"
             r"|have to)|bitte|kannst du|könntest du|können sie|peux-tu|pourrais-tu"
             r"|pouvez-vous|pourriez-vous|s['\u2019]il (?:te|vous) plaît|merci de|puedes"
             r"|podrías|por favor)(?![\w'\u2019])")
_NATIVE_ASK = (r"(?:줘|주세요|주십시오|하자|할\s?것|바랍니다"
               r"|부탁(?:해|해요|합니다|드립니다|드려요)?|ください|下さい|てほしい|てくれ(?:る|ない)?か?)[\s.!?~。！？]*$|^(?:请|麻烦|帮我|帮忙)")
_ASKING_WORD = (r"(?i)^(?:what|why|how|where|when|which|who|whom|whose|is|are|was|were|do"
                r"|does|did|can|could|would|will|should|shall|may|might|any|have|has)\b")
# Where a clause begins: after `,` `;` `:` or a dash, and after a hedge that
# only says the words after it are a thought ("… I think if we fail …").
_CLAUSE_BREAK = (r"(?:[,;:]|\s[-\u2013\u2014])\s+|(?i:\bI (?:think|believe|suppose|guess"
                 r"|feel like)(?: that)?\s+)")
# Words before a clause that make it a tool's output pasted in ("Error: Make sure …").
_OUTPUT_LABEL = r"(?i)\b(?:error|warning|hint|note|fatal|exception|info|debug|tip)\s*:\s+$"
# A request to read something first is its preparation when another follows
# in the sentence ("Can you read docs/x.md, I'd like to modify this approach").
_PREPARING = (r"(?i)^(?:read|look|see|open|check out|have a look|take a look|go through"
              r"|go back|get back|return)\b")
_PROSE_START = r"[\"'“‘(\[]?[^\W\d_]"
_KEY_VALUE = r"\w=[^\s=]"
# Words by which a request points at what the sentence before it named.
# (in lower case: "This was …" in mid-line opens a sentence of its own)
_REFERS_BACK = r"\b(?:them|they|it|this|that|these|those)\b(?!['\u2019])"
# Of them, one that stands for what was said, not a determiner naming its own
# thing: "decide rules for them", "fix this", not "hand over this research"
# (ef958aa1: a long prompt's request that names its object needs no sentence
# before it).
_STANDS_FOR = (r"\b(?:them|they|it)\b(?!['\u2019])|\b(?:this|that|these|those)\b"
               r"(?!['\u2019])(?!\s+(?!(?:is|are|was|were|will|would|can|could|should|may"
               r"|might|must|has|have|had|does|did|do|not|in|on|at|to|for|of|with|and|or"
               r"|but|so|by|from|one|ones)\b)[^\W\d_]{3,})")
_LEADING_JOIN = r"(?i)^(?:but|and|so|or|also|then|now)\b,?\s+(?=\S)"


# A request short enough to point at nothing but what the user has in front
# of them ("please fix these", "why does this fail?"): what it points at is
# the output of a command they had just run, when they had.
_DEICTIC_WORDS = 6


def points_at_output(request: str) -> bool:
    """Whether a request is a few words that point at something they do not
    name ("please fix these", "What does this mean?"), not one that names its
    object ("fix the login test", "fix src/a.py")."""
    line = " ".join(request.split())
    return (0 < len(line.split()) <= _DEICTIC_WORDS and "\n" not in request.strip()
            and rx(r"(?i)" + _REFERS_BACK).search(line) is not None
            and rx(_NAMES_A_THING).search(line) is None)


def _words_after(sentence: str, at: int) -> list[str]:
    """The words of a sentence after `at` that carry meaning (not function words)."""
    words = [w.strip(",;:.!?…()\"'`“”‘’").lower() for w in sentence[at:].split()]
    return [w for w in words if w and w not in _DANGLING and w not in ("please", "me")]


def _request_in(sentence: str) -> tuple[list[int], str] | None:
    """Where the request a sentence holds may begin (the starts of its clause
    and of the clauses before it, then of its form), and its head (the form
    and its next two words of meaning), or None when it asks for nothing."""
    starts = [0] + [m.end() for m in rx(_CLAUSE_BREAK).finditer(sentence)]
    asked: list[tuple[int, int, int]] = []  # (form start, form end, clause start)
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(sentence)
        clause = sentence[start:end]
        if rx(_OUTPUT_LABEL).search(sentence[:start]):
            continue
        lead = rx("(?i)" + _CLAUSE_LEAD).match(clause)  # ("But fix …" opening a line)
        at = start + (lead.end() if lead else 0)
        if rx(_IMPERATIVE).match(clause):
            verb = rx(r"\S+").match(sentence, at)
            asked.append((at, verb.end() if verb else at, start))
        for m in rx(_ASK_FORM).finditer(clause):
            asked.append((start + m.start(), start + m.end(), start))
        if (k == len(starts) - 1 and not asked
                and sentence.rstrip().endswith(("?", "？"))):
            # (a question asks when nothing in it asks otherwise: "… we
            # should bail out, or?" asks that)
            q = next((s for s in starts if rx(_ASKING_WORD).match(sentence[s:])), 0)
            word = rx(_ASKING_WORD).match(sentence[q:])
            asked.append((q, q + (word.end() if word else 0), q))
    native = rx(_NATIVE_ASK).search(sentence.strip())
    if native is not None:
        # (asks for something when words are left beside its request form:
        # "각 가 해줘" does, a bare "부탁해" does not)
        said = sentence.strip()
        if len("".join((said[:native.start()] + said[native.end():]).split())) >= 2:
            asked.append((0, 0, 0))
    asked = sorted((a for a in set(asked) if _words_after(sentence, a[1])
                    or a == (0, 0, 0)), key=lambda a: a[0])
    if not asked:
        return None
    form, form_end, opens = asked[0]
    later = [a for a in asked if a[2] > opens]
    if later and rx(_PREPARING).match(
            rx(_ASK_FORM).sub("", sentence[form:form_end + 24], count=1).lstrip()):
        form, form_end, opens = later[0]
    head_end, meaning = form_end, 0
    for m in rx(r"\S+").finditer(sentence, form_end):
        head_end = m.end()
        bare = m.group().strip(",;:.!?…()\"'`“”‘’").lower()
        if bare not in _DANGLING and bare not in ("please", "me"):  # ("could you please add X")
            meaning += 1
            if meaning == 2:
                break
    head = sentence[form:head_end].rstrip(",;:.!?…(\"'` ")
    return [s for s in starts if s <= opens] + [form], head


def _holds(title: str, head: str) -> bool:
    return " ".join(head.split()).lower() in " ".join(title.removesuffix("…").split()).lower()


def _holding_the_request(openings: list[str], title: str, limit: int) -> str:
    """The title, when it holds the words of the request's first sentence
    that asks for something; else that sentence from the earliest of its
    clauses that leaves the request's head in the title: "After more than a
    decade I want to pick it up again and fix the broken APIs", not the
    statements before it. Words that ask for nothing leave the title as it is."""
    for k, opening in enumerate(openings[:12]):
        end = rx(_SENTENCE_END).search(opening)
        sentence = opening[:end.end()] if end else opening
        if (not rx(_PROSE_START).match(sentence) or rx(_KEY_VALUE).search(sentence)
                or not reads_as_words(sentence)):
            continue  # a tool's output or code pasted in ("⨯ release failed … error=…")
        found = _request_in(sentence)
        if found is None:
            continue
        starts, head = found
        if not head:
            return title
        if _holds(title, head):
            body = title.removesuffix("…")
            line = next((o for o in (opening, openings[0]) if o.startswith(body)), "")
            return _with_object(line, title, head, limit) if line else title
        at = sentence.find(head)
        if (k > 0 and openings[0].endswith(opening) and at >= 0
                and rx(_STANDS_FOR).search(
                    " ".join(sentence[at:].split()[:len(head.split()) + 2]))):
            # (a request of a later sentence that refers back, "We should decide
            # rules for them", needs the sentence before it: review 21 F1)
            return title
        points = at >= 0 and rx(_REFERS_BACK).search(
            " ".join(sentence[at:].split()[:len(head.split()) + 1]))
        for start in starts:
            rest = opening[start:]
            join = rx(_LEADING_JOIN).match(rest)
            rest = rest[join.end():] if join else rest
            rest = rest[:1].upper() + rest[1:]
            fitted = _fitted(rest, limit)
            if (not _holds(fitted, head) and points
                    and rx(_NAMES_A_THING).search(opening[start:starts[-1]])):
                # ("Can you read docs/x.md, I'd like to modify this approach": what
                # "this approach" is comes with it when the two fit together)
                through = _through_object(rest, head, limit)
                if through and reads_as_words(through):
                    return through
            if _holds(fitted, head) and reads_as_words(fitted):
                # (the flex ends the object; it lets no more words in before it)
                return _with_object(rest, fitted, head, limit)
        return title
    return title


def _run_on(openings: list[str], title: str, limit: int) -> str:
    """A title cut inside a clause run on to the clause's end when that is
    within the limit's flex ("…inside a folder while entire is enabled", not
    "…while entire…"; review 25 N11)."""
    if not title.endswith("…"):
        return title
    body = title[:-1]
    line = next((o for o in openings if o.startswith(body)), "")
    if not line:
        return title
    return _ran_on(line, len(body), limit) or title


# How far a cut title may run on to end its thought rather than stop inside
# it: "…through go release and did run into this issue", not "…release.yml…"
# (review 26: 488c5296, cde341db).
def _reach(limit: int) -> int:
    return limit + limit // 2


# Words that open a phrase: where one ends, a cut leaves a whole thought
# ("…a few hundred millis delay| before my shell prompt returns").
_PHRASE_OPENS = frozenset({
    "before", "after", "with", "to", "for", "of", "in", "on", "at", "by", "from", "into",
    "onto", "through", "and", "or", "but", "so", "because", "while", "when", "where", "which",
    "that", "if", "until", "since", "although", "though", "unless", "than", "as", "via",
    "about", "across", "over", "under", "between", "during", "without", "within", "whereas",
    "upon", "toward", "towards", "against", "along", "around", "behind", "beyond", "below",
    "above", "despite"})


def _ran_on(line: str, at: int, limit: int) -> str:
    """`line` cut at `at` (inside a clause) run on to where the clause ends,
    within the reach; else to where its phrase ends ("…" after it); "" when
    neither is within reach."""
    reach = _reach(limit)
    end = _object_end(line, at, reach + 1)
    if at < end <= reach:
        whole = line[:end].rstrip(",;:-\u2013\u2014 ")
        if end >= len(line.rstrip()) or line[end] in ".?!":
            return whole.rstrip(".")
        if len(whole) < reach and _may_end(_last_word(whole)):
            return whole + "…"
    for m in rx(r" (?=([^\s,;:.!?()]+))").finditer(line, at, reach):
        if m.group(1).lower() in _PHRASE_OPENS and m.start() > at and _may_end(
                _last_word(line[:m.start()])):
            return line[:m.start()].rstrip(",;:-\u2013\u2014 ") + "…"
    return ""


# A request's ask form, left out where the title has no room for it: "I'd
# like to add …" says "Add …", "can you help me …" says "Help me …".
_ASK_LEAD = (r"(?i)^(?:(?:ok(?:ay)?|so|and|but|also|then|now)\b,?\s+)*(?:(?:can|could|would"
             r"|will) you(?: please)?|please|i(?:['\u2019]d| would) (?:like|love) to"
             r"|i (?:want|need) to|let['\u2019]?s|we (?:should|need to|must|have to))\s+"
             r"(?:please\s+)?(?=\w)")
# Words that make a request vaguer and no longer ("… or tracing or something").
_VAGUE = r"(?i),?\s+(?:or something(?: like that)?|or so|or whatever|somehow)\b"
# A statement's opening that says only who saw it ("I've noticed …", "I suppose …").
_WITNESS = (r"(?i)^(?:I(?:['\u2019]ve| have)? (?:noticed|seen|found|realised|realized|see"
            r"|notice|think|suppose|guess|believe|feel)(?: that)?|it seems(?: that)?)\s+(?=\S)")
# Words a request may end on that ask about what was said before it ("… to
# find out why", "fix it").
_ASKS_ABOUT = frozenset({"why", "how", "what", "where", "when", "which", "whether", "this",
                         "that", "it", "them", "these", "those"})
MIN_REQUEST_CHARS = 12  # the least of a request said after its context: "Decide rules…"
MIN_CONTEXT_CHARS = 30  # the least of the words a request asks about worth its room


def _as_asked(request: str) -> str:
    """A request by its verb and object: its ask form and vague words left out."""
    m = rx(_ASK_LEAD).match(request)
    said = request[m.end():] if m else request
    said = rx(_VAGUE).sub("", said).rstrip(" ?.!")
    return said[:1].upper() + said[1:] if said else request


def said_with_ticket(request: str, ticket: str, limit: int) -> str:
    """A request naming a ticket by its id, with the ticket's title after a
    colon: the request as asked (its verb first, a dash after the verb left
    out), the title whole when both fit the limit's flex, else cut as a title is."""
    asked = rx(r"^(\w+)\s+[-\u2013\u2014]\s+").sub(r"\1 ", _as_asked(request.removesuffix("…")))
    title = rx(_ASIDE).sub("", " ".join(ticket.split())).rstrip(" .")
    return _fitted(f"{asked}: {title}", _flex(limit))


def _as_context(words: str) -> str:
    """Words before a request that say what it is about, as they lead or
    follow it in a title: without a preparing request, a witness or an aside."""
    words = rx(_ASIDE).sub("", " ".join(words.split())).strip(" ,;:-\u2013\u2014")
    first = rx(r"^[^,;:]*(?:[,;:]|\s[-\u2013\u2014])\s+").match(words)
    if first is not None and rx(_ASK_LEAD).match(first.group()) and rx(_PREPARING).match(
            first.group()[rx(_ASK_LEAD).match(first.group()).end():]):  # type: ignore[union-attr]
        words = words[first.end():]  # ("let's go back to current code, I did …")
    witness = rx(_WITNESS).match(words)
    words = words[witness.end():] if witness else words
    return words[:1].upper() + words[1:] if words else ""


def _with_referent(line: str, title: str, limit: int) -> str:
    """A title whose request needs what the words before it said: one ending
    on a word that asks about them ("… to find out why") or pointing at them
    ("help me understand how this happend", "We should decide rules for
    them"), said with them: the request by its verb and object, then a colon
    and those words as room allows, or those words first when they fit whole
    with the request's first words after them (review 25 N11, R23-3, L6).
    "" when the title needs nothing before it."""
    body = title.removesuffix("…")
    sentences = [line[:m.end()] for m in rx(_SENTENCE_END).finditer(line)] + [line]
    if title.endswith("…") and line.startswith(body) and len(sentences) > 1:
        # (a first statement cut, its request a later sentence pointing back at it)
        first = sentences[0]
        rest = line[len(first):].lstrip()
        found = _request_in(rest[: (rx(_SENTENCE_END).search(rest) or rx(r"$").search(rest)).end()])  # type: ignore[union-attr]
        if found is None or _request_in(first) is not None or not found[1]:
            return ""
        at = rest.find(found[1])
        if at < 0 or not rx(_REFERS_BACK).search(" ".join(rest[at:].split()[:6])):
            return ""
        return _said_with(_as_context(first.rstrip(" .")), _as_asked(rest[at:]), limit,
                          context_first=True)
    at = " ".join(line.split()).lower().find(" ".join(body.split()).lower()) if body else -1
    if at <= 0 or title.endswith("…"):
        return ""
    request = line[at:]
    found = _request_in(body)
    if found is None or not found[1] or body.find(found[1]) < 0:
        return ""
    after_head = body[body.find(found[1]):].split()[:len(found[1].split()) + 2]
    last = body.split()[-1].strip(",;:.!?…()\"'`“”‘’").lower()
    if last not in _ASKS_ABOUT and not rx(_REFERS_BACK).search(" ".join(after_head)):
        return ""
    # (the sentence right before the request: what its words ask about)
    pieces = [p for p in rx(_SENTENCE_END + r"\s*").split(line[:at].rstrip() + " ") if p.strip()]
    if pieces and _only_ask_opening(pieces[-1]):
        pieces.pop()  # ("I'd like to", left out of the title before its request)
    before = pieces[-1] if pieces else ""
    context = _as_context(before)
    if len(context.split()) < 3:
        return ""
    whole = line.rstrip()
    ends = rx(_SENTENCE_END).search(whole + " ")
    if len(pieces) <= 1 and len(whole) <= _flex(limit) and (ends is None
                                                           or ends.end() >= len(whole)):
        # One sentence that fits the flex, its words before the request then
        # the request ("I don't see the … message anymore in this Claude
        # session, is it enabled?"): the user's own order, not "Is it
        # enabled: I don't see …" (review 30 #15: 8897bd54).
        return whole
    # (a request ending on "why" needs its context more than one pointing back)
    least = MIN_REQUEST_CHARS if last in _ASKS_ABOUT else MIN_CONTEXT_CHARS
    return _said_with(context, _as_asked(request), limit, context_first=False, least=least)


def _said_with(context: str, request: str, limit: int, context_first: bool,
               least: int = MIN_CONTEXT_CHARS) -> str:
    """A request and its context in one title within the limit's flex; ""
    when the request leaves less than `least` characters for the context."""
    flex = _flex(limit)
    end = rx(_SENTENCE_END).search(request + " ")
    request = request[:end.start()] if end else request
    if context_first and len(context) + 2 + MIN_REQUEST_CHARS <= flex:
        room = flex - len(context) - 2
        said = _fitted(_lowered(request), room)
        # (a request cut to its verb alone, "…embedded tar.gz: support…", says
        # not what it asks: a7da6a22)
        return f"{context}: {said}" if (len(said) <= room and len(
            said.removesuffix("…").split()) >= 2) else ""
    if len(request) + 2 + least > flex:
        return ""  # (no room left to say what it asks about: the request as it was)
    said = f"{request}: {_lowered(context)}"
    cut = _fitted(said, flex)
    if not cut.endswith("…"):
        return cut
    # (the words it asks about run on to where their thought ends)
    return _ran_on(said, len(cut) - 1, limit) or cut


def _lowered(words: str) -> str:
    """Words as they go on after a colon: a first word of a sentence in lower
    case, "I" and a name in capitals ("API", "Entire's") as they were."""
    first = words.split(" ", 1)[0]
    if rx(r"^I\b").match(first) or not first[1:2].islower():
        return words
    return words[:1].lower() + words[1:]


# How far past the limit a title may run to end its request's object rather
# than cut it ("…bail out and return an error", not "…bail out and return…").
def _flex(limit: int) -> int:
    return limit + limit // 4


# Where a request's object ends: at the break of its clause (`,` `;` `:` a
# dash), an aside in brackets ("add and commit (i.e., …)") or its sentence's
# end, outside brackets, quotes and code spans (`f(a: int, b: int)`).
_OBJECT_BREAK = r"[,;:](?=\s)|\s[-\u2013\u2014](?=\s)|\s[(\[](?=\S)|[.?!]+(?=\s|$)"
_OPENS = "([{`\""
_CLOSES = {"(": ")", "[": "]", "{": "}", "`": "`", '"': '"'}
# A file, a path or code named in words before a request that points at it.
_NAMES_A_THING = r"[\w.-]+/[\w./-]+|\b[\w-]+\.[a-z]{1,5}\b|`[^`]+`"
# A request to work through something, whose work is the verb after "to":
# "Use the Explore task in sub-agents with Haiku model to give me an overview
# of …" asks for the overview.
_MANNER = r"(?i)^(?:use|run|launch|spawn|employ)\b"


def _object_end(line: str, at: int, stop: int) -> int:
    """Where the clause holding a request's head (ending at `at`) ends; `stop`
    when that is past it (a pasted page holds no break for thousands)."""
    want = ""
    for k in range(at, min(len(line), stop)):
        ch = line[k]
        if want:
            want = "" if ch == want else want
            continue
        if ch in _OPENS:
            want = _CLOSES[ch]
            continue
        if rx(_OBJECT_BREAK).match(line, k):
            return k
    return min(len(line), stop)


def _head_end(line: str, head: str) -> int:
    """Where the request's head ends in the line, -1 when it is not there; a
    head across a clause's break ends at it ("I'd like to extend it: a")."""
    head = " ".join(head.split())
    brk = rx(r"[,;:](?=\s)").search(head)
    at = " ".join(line.split()).lower().find(head.lower())
    return -1 if at < 0 else at + (brk.start() if brk else len(head))


def _through_object(line: str, head: str, limit: int) -> str:
    """The line from its start to the end of its request's object, when that
    is no longer than the limit's flex; else ""."""
    at = _head_end(line, head)
    if at < 0:
        return ""
    end = _object_end(line, at, _flex(limit) + 1)
    whole = line[:end].rstrip(",;:-\u2013\u2014 ")
    if not whole.split():
        return ""  # (any word may end it: the prompt's own mark ends the clause there)
    if end >= len(line.rstrip()):
        title = whole
    elif line[end] in ".?!":
        title = line[:end + 1].rstrip(".").rstrip()  # (a sentence whole, as _fitted does)
    else:
        title = whole + "…"
    return title if len(title) <= _flex(limit) else ""


def _with_object(line: str, title: str, head: str, limit: int) -> str:
    """A title cut inside its request's object run on to the object's end,
    when that is within the limit's flex; a request through a tool ("Use X
    to give me an overview of …") too long for it, from the verb of its work."""
    if not title.endswith("…") or not line.startswith(title[:-1]):
        return title
    at = _head_end(line, head)
    if at < 0 or _object_end(line, at, _flex(limit) + 1) <= len(title) - 1:
        return title
    whole = _through_object(line, head, limit)
    if whole:
        return whole
    if rx(_MANNER).match(line):
        goal = rx(rf"(?i)\bto ((?:{_ASK_VERBS})\b)").search(line, at)
        if goal is not None:
            work = line[goal.start(1):]
            work = work[:1].upper() + work[1:]
            found = _request_in(work)
            if found is not None and found[1]:
                return _through_object(work, found[1], limit) or title
    return title


def fitted(line: str, limit: int) -> str:
    """One line of text in at most `limit` characters: whole, else its first
    sentences, else cut at a word with no dangling word before the `…`."""
    return _fitted(line, limit)


def _fitted(line: str, limit: int) -> str:
    """One line of a request as a title of at most `limit` characters."""
    if len(line) <= limit:
        return line
    # (a sentence's final dots are left out of a title: one that fits without them fits)
    ends = [m.end() for m in rx(_SENTENCE_END).finditer(line, 0, limit + 4)
            if len(line[:m.end()].rstrip(".")) <= limit]
    if ends and ends[-1] >= limit * 0.4:
        return line[:ends[-1]].rstrip(".")
    head = line[:limit - 1]
    clause = max(head.rfind(", "), head.rfind("; "), head.rfind(" - "), head.rfind(" – "))
    space = head.rfind(" ")
    kept = (head[:clause] if clause >= limit * 0.75
            else head[:space] if space >= limit * 0.4 else head)
    words = kept.split(" ")
    # (the cut ends on its last word that may end one; words that are all
    # function words, "the of a to…", have none and are kept as cut)
    last = next((k for k in range(len(words) - 1, -1, -1) if _may_end(words[k])), -1)
    return " ".join(words[:last + 1] if last >= 0 else words).rstrip(",;:-–—( ") + "…"


def _last_word(text: str) -> str:
    """The last word of `text`, "" when it has none (a prompt of marks only:
    `- [ ]` repeated had the title's cut crash the fold, and the session
    lost its note)."""
    words = text.split()
    return words[-1] if words else ""


def _may_end(word: str) -> bool:
    """Whether a cut title may end on this word: not on one that announces
    the words cut off (`of`, `the`), nor on a bare mark."""
    bare = word.lower().strip(",;:-–—(")
    return bool(bare) and bare not in _DANGLING


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
