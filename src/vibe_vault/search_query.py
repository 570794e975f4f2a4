"""`vv search`'s query syntax, made into an SQLite FTS5 expression, and the one
text folding both the index and a query go through.

Words, `"phrases"`, `prefix*` and `-word` (also `-"a phrase"`); every part not
negated must match. A word is split the way the index splits text (letters and
digits; `auth.py` is the phrase "auth py"), and every token is quoted, so no
input is read as FTS5 syntax of its own. A word typed plainly matches its other
forms too (`Query.widened`, with those of its stem some session holds:
stem.py), a quoted one or a prefix as typed.

Folding (`index_form`): NFKC (full-width letters, ligatures), case folding (ß is
ss), then the Latin, Greek and Cyrillic diacritics dropped (é is e); kana keep
their voicing marks (ガ is not カ). The index is given folded tokens (`index_text`)
and the query is folded the same way (`tokens`), so the two never disagree.
Scripts written without spaces (Chinese, Japanese) and Korean, whose words
carry particles, are indexed as overlapping pairs of characters (東京都 is
東京 京都): any two or more characters in a row find the text they are in.
"""

from __future__ import annotations

import re
from functools import cache

TYPE_CHECKING = False  # (typing costs a search milliseconds to import)
if TYPE_CHECKING:
    from collections.abc import Callable

# The index's text columns, in the order the database declares them, with how
# much a match in each weighs when hits are ranked (bm25 weights). A hit's
# snippet names the first column, in this order, whose line holds the most of
# the words: a command is also an action (its line in the story), a file
# written too, so the parts that say more come before `actions`.
COLUMNS: dict[str, float] = {
    "title": 10.0,
    "prompts": 5.0,
    "commits": 4.0,
    "files": 3.0,
    "commands": 2.0,
    "errors": 2.0,
    "todos": 2.0,
    "recaps": 2.0,  # Claude Code's own recaps of the session: before its answers
    "actions": 2.0,
    "subagents": 1.0,  # their instructions, descriptions, reports and own conversation
    "answers": 1.0,
    # A long prompt's middle (document.py: a paste, mostly: a log, a page's
    # HTML), not what the user asked in it
    "pasted": 1.0,
    "compactions": 1.0,  # Claude Code's summary of the conversation when it compacted it
    "models": 1.0,
}
# Where the words of a hit are, in the order hits are ranked by (tiers): a
# session holding every word in its title or the user's prompts first; then
# one holding every word in what the user or Claude said (its answers,
# commits, errors, todos, recaps); then the rest, holding some only in a path,
# a command, an action, a subagent's work, a compaction summary (which
# retells the conversation) or the middle of a long prompt (a paste: the words
# a 40 kB log happens to hold were not asked), so `vv search github actions`
# finds the session titled "add a Github Action" before one that wrote
# `.github/actions/` or whose subagent listed "Quick actions". Every word
# typed plainly counts in any of its forms in each.
ASKED = ("title", "prompts")
SAID = ("title", "prompts", "commits", "errors", "todos", "recaps", "answers")
# What a hit's snippet says it matched in, by column.
PARTS = {"title": "title", "prompts": "prompt", "commits": "commit", "files": "file",
         "commands": "command", "errors": "error", "todos": "todo", "recaps": "recap",
         "actions": "action", "subagents": "subagent", "answers": "answer",
         "pasted": "prompt", "compactions": "compaction", "models": "model"}

# A query longer than this is refused, not run: its cost grows with its terms
# (a 2,000-word query took 17 s) and no one types so much to find a session.
MAX_TERMS = 64
MAX_BYTES = 4096

_PART = re.compile(r'(-?)"([^"]*)"?|(-?)(\S+)')
TOKEN = re.compile(r"[^\W_]+")
# Han, kana, Hangul (syllables and jamo), CJK compatibility: indexed as pairs.
_CJK_CHARS = ("\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
              "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\U00020000-\U0003ffff")
# The combining marks dropped: diacritics of Latin, Greek and Cyrillic letters
# (kana voicing marks and the vowel signs of Indic scripts are letters' parts).
_DIACRITICS = "[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"


# Compiled when first needed, not at import: the script ranges cost ~7 ms to
# compile, a third of what a query may cost, and plain ASCII never needs them.
def paired(word: str) -> bool:
    """Whether a word holds a character of the paired scripts (none is below
    U+1100: most words need no pattern to tell)."""
    return not word.isascii() and max(word) >= "\u1100" and cjk().search(word) is not None


@cache
def cjk() -> re.Pattern[str]:
    """A run of characters of the paired scripts."""
    return re.compile(f"[{_CJK_CHARS}]+")


@cache
def piece() -> re.Pattern[str]:
    """A run of a paired script (group 1), or a word of any other (group 2)."""
    return re.compile(f"([{_CJK_CHARS}]+)|((?:(?![{_CJK_CHARS}])[^\\W_])+)")


@cache
def _diacritics() -> re.Pattern[str]:
    return re.compile(_DIACRITICS)


class Query:
    __slots__ = ("as_typed", "bare", "choices", "exact", "fts", "groups", "ignored", "parts",
                 "phrase", "roots", "slots", "stemmed", "terms", "together", "unwanted", "wanted")

    def __init__(self, wanted: list[str], terms: list[tuple[str, bool]], phrase: str = "",
                 unwanted: tuple[str, ...] = (), groups: list[int] | None = None,
                 stemmed: dict[int, str] | None = None,
                 roots: list[str] | None = None,
                 slots: list[list[str]] | None = None,
                 choices: list[list[str]] | None = None) -> None:
        self.wanted = wanted  # each wanted part, an FTS5 expression
        # ... and as the FTS5 phrases it is any one of (its forms; a Korean
        # run with a space put in or not): what NEAR is asked of
        self.choices = choices if choices is not None else [[part] for part in wanted]
        self.unwanted = unwanted  # the parts left out
        self.terms = terms  # (folded token, is a prefix) of the wanted parts
        # the wanted part each term is of (what it weighs), and the word it
        # stands for (itself, or the word typed that it is a form of): a
        # snippet counts the words it shows, a word's forms as one
        self.groups = groups if groups is not None else [0] * len(terms)
        self.roots = roots if roots is not None else [t for t, _ in terms]
        # The wanted parts that are one word typed plainly (no quotes, no *),
        # by part: what `widened` lets match in its other forms.
        self.stemmed = stemmed or {}
        # The wanted parts that are a Korean word with a particle glued on
        # (파일을), by part: the word without it (파일), which `widened` lets
        # match below the word as typed.
        self.bare: dict[int, str] = {}
        # The wanted words as one phrase, when there are several: sessions
        # where they stand together as typed are ranked first.
        self.phrase = phrase
        # The phrase's words, each with its other forms (`widened`), and the
        # FTS5 expression of the sessions holding them together, in any of
        # their forms (up to MAX_TOGETHER phrases), in what was said (SAID):
        # those rank first.
        self.slots = slots if slots is not None else []
        self.together = _together(self.slots) if phrase else ""
        # ... and as typed, in what was said: those first among them
        self.as_typed = "{" + " ".join(SAID) + "} : " + phrase if phrase else ""
        self.fts = ""  # the FTS5 MATCH expression
        # Each wanted part as an FTS5 expression of its own (no two alike):
        # what the closest matches are counted by.
        self.parts: tuple[str, ...] = ()
        # The stop words typed plainly, not asked of the sessions (parse)
        self.ignored: tuple[str, ...] = ()
        # The query without the related words (widened), when it has some
        self.exact: Query | None = None
        self._build()

    def _build(self) -> None:
        expr = " AND ".join(self.wanted)
        for phrase in self.unwanted:
            expr = f"({expr}) NOT {phrase}"
        self.fts = expr
        self.parts = tuple(dict.fromkeys(self.wanted))

    @property
    def tiers(self) -> list[str]:
        """FTS5 expressions of the sessions holding every wanted part where
        the hits rank first, then next (ASKED, SAID), then anywhere; each
        matches the sessions the one before it matches, and more. Without
        the unwanted parts (`left_out`): FTS5 (3.40) gives bm25 another value
        for a row of a column filter under a NOT when it ranks a whole query
        than when asked of that row alone, so the order would depend on a
        -word that no session holds."""
        every = " AND ".join(self.wanted)
        return [*("{" + " ".join(columns) + "} : (" + every + ")" for columns in (ASKED, SAID)),
                every]

    @property
    def near(self) -> list[str]:
        """For each of `tiers`, an FTS5 expression of the sessions holding
        every wanted part within NEAR_TOKENS tokens of each other in one
        column of the tier's, each part in any of its forms (its commonest,
        past MAX_NEAR choices). Empty for a query of one part."""
        distinct = [list(c) for c in dict(zip(self.wanted, self.choices, strict=True)).values()]
        if len(distinct) < 2:
            return ["" for _ in self.tiers]
        import itertools
        import math

        # Past MAX_NEAR groups, the rarest forms go (a word's forms come the
        # word as typed first, then -s, -es, -ed, -ing, ...: stem.forms),
        # from the word with the most, until the groups are few enough.
        while math.prod(len(c) for c in distinct) > MAX_NEAR:
            max(distinct, key=len).pop()
        groups = " OR ".join(f"NEAR({' '.join(pick)}, {NEAR_TOKENS})"
                             for pick in itertools.product(*distinct))
        return [*("{" + " ".join(columns) + "} : (" + groups + ")" for columns in (ASKED, SAID)),
                groups]

    @property
    def left_out(self) -> str:
        """An FTS5 expression of the sessions to leave out ("" for none)."""
        return " OR ".join(self.unwanted)

    def widened(self, forms_of: Callable[[str], list[str]],
                related_of: Callable[[str, list[str]], list[str]] | None = None) -> Query:
        """The query with each word typed plainly matching its other forms,
        as the index holds them (`forms_of(word)`: the indexed words of the
        same stem, stem.py): `improve` is `("improve" OR "improvements" OR
        "improver" OR ...)`. Quoted words and prefixes match as typed.

        Given `related_of(word, its forms)` (the indexed words it also finds:
        related.py, each a word or a phrase), those too, after its forms;
        the query without them is then its `exact`, whose sessions
        vaultdb.search puts first in each of its stages."""
        # (each list twice: with the related words, and without: `exact`)
        wanted = [list(self.wanted), list(self.wanted)]
        slots = [[list(slot) for slot in self.slots], [list(slot) for slot in self.slots]]
        choices = [[list(c) for c in self.choices], [list(c) for c in self.choices]]
        terms = list(self.terms)
        groups = list(self.groups)
        roots = list(self.roots)
        some = False
        for part, word in self.stemmed.items():
            forms = [f for f in forms_of(word) if f != word]
            more = [r for r in related_of(word, [word, *forms])
                    if r != word and r not in forms] if related_of is not None else []
            some = some or bool(more)
            for k, added in enumerate((forms + more, forms)):
                if not added:
                    continue
                for slot in slots[k]:
                    if slot == [word]:
                        slot.extend(added)
                choices[k][part] = [f'"{f}"' for f in [word, *added]]
                wanted[k][part] = "(" + " OR ".join(choices[k][part]) + ")"
            # (a phrase's words each marked in a snippet, as the word typed)
            added_words = [t for f in forms + more for t in f.split()]
            terms.extend((t, False) for t in added_words)
            groups.extend([part] * len(added_words))
            roots.extend([word] * len(added_words))
        for part, bare in self.bare.items():
            # (like a related word: the sessions holding the word as typed first)
            alternative = '"' + " ".join(tokens(bare)) + '"'
            if alternative in choices[0][part]:
                continue
            some = True
            choices[0][part] = [*choices[0][part], alternative]
            wanted[0][part] = "(" + " OR ".join(choices[0][part]) + ")"
            pieces = [p.group() for p in piece().finditer(bare)]
            terms.extend((t, False) for t in pieces)
            groups.extend([part] * len(pieces))
            roots.extend([bare] * len(pieces))
        out = Query(wanted[0], terms, self.phrase, self.unwanted, groups, {}, roots, slots[0],
                    choices[0])
        out.ignored = self.ignored
        if some:
            out.exact = Query(wanted[1], terms, self.phrase, self.unwanted, groups, {}, roots,
                              slots[1], choices[1])
        return out


# The most phrases `together` asks for (each a choice of one form of each
# word): past this, the words only as typed (each phrase is a walk of its
# words' position lists).
MAX_TOGETHER = 16
# The most NEAR groups `near` asks for (each a choice of one form of each word).
MAX_NEAR = 32
# The words of a query count as said together when at most this many tokens
# stand between the first and the last (FTS5's NEAR, its default): a
# sentence's, not a page's.
NEAR_TOKENS = 10


def _together(slots: list[list[str]]) -> str:
    """An FTS5 expression of the sessions holding the words of `slots` next
    to each other in this order, each in any of its forms, in what was said."""
    import itertools

    count = 1
    for slot in slots:
        count *= len(slot)
    choices = (itertools.product(*slots) if count <= MAX_TOGETHER
               else [tuple(slot[0] for slot in slots)])
    phrases = ['"' + " ".join(words) + '"' for words in choices]
    return "{" + " ".join(SAID) + "} : (" + " OR ".join(phrases) + ")"


class BadQuery(ValueError):
    pass


def index_form(text: str) -> str:
    """The text as the index compares it: NFKC, case-folded, without the
    diacritics of Latin, Greek and Cyrillic letters."""
    if text.isascii():
        return text.lower()
    import unicodedata  # (a C module of its own: ~3 ms to load, ASCII needs none)

    text = unicodedata.normalize("NFKC", text).casefold()
    decomposed = unicodedata.normalize("NFD", text)
    stripped = _diacritics().sub("", decomposed)
    return unicodedata.normalize("NFC", stripped) if stripped != decomposed else text


def _pairs(run: str) -> list[str]:
    return [run[i:i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run]


def tokens(folded: str) -> list[str]:
    """The index's tokens of a folded text: its words, and pairs of
    characters in a row of the scripts indexed so."""
    words = TOKEN.findall(folded)
    if folded.isascii():
        return words
    out: list[str] = []
    for word in words:
        if not paired(word):
            out.append(word)
            continue
        # (piece() only where a paired script is: it tests every character)
        for m in piece().finditer(word):
            if m.group(1):
                out.extend(_pairs(m.group(1)))
            else:
                out.append(m.group(2))
    return out


def index_text(text: str) -> str:
    """A text as the index is given it: folded, its tokens split by spaces
    (plain ASCII text as it is, lower case: the index's own tokenizer splits it
    the same way)."""
    folded = index_form(text)
    if folded.isascii():
        return folded
    return " ".join(tokens(folded))


def parse(text: str) -> Query:
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise BadQuery(f"the query is too long: at most {MAX_BYTES:,} bytes")
    wanted: list[str] = []
    unwanted: list[str] = []
    terms: list[tuple[str, bool]] = []
    groups: list[int] = []
    stemmed: dict[int, str] = {}
    choices: list[list[str]] = []  # each wanted part's phrases
    bares: dict[int, str] = {}  # Korean words' without their particle, by part
    plain: list[str] = []  # the wanted words not quoted, in order
    count = 0
    typed: list[tuple[bool, bool, bool, str, list[str]]] = []
    for m in _PART.finditer(text):
        if m.group(2) is not None:
            negated, body, prefix, quoted = m.group(1) == "-", m.group(2), False, True
        else:
            negated, body, quoted = m.group(3) == "-", m.group(4), False
            prefix = body.endswith("*")
        folded = index_form(body)
        parts = tokens(folded)
        if not parts:
            continue
        count += len(parts)
        if count > MAX_TERMS:
            raise BadQuery(f"the query is too long: at most {MAX_TERMS} words")
        typed.append((negated, prefix, quoted, folded, parts))
    # A stop word typed plainly is not asked of the sessions (it tells none
    # apart: stopwords.py) when the query wants anything else; it still
    # stands in the phrase of the words as typed (`together`), so a session
    # saying them all in a row comes first.
    from vibe_vault.stopwords import is_stop

    stop = [not negated and not prefix and not quoted and len(parts) == 1 and is_stop(parts[0])
            for negated, prefix, quoted, _, parts in typed]
    if all(s for s, (negated, *_) in zip(stop, typed, strict=True) if not negated):
        stop = [False] * len(typed)
    ignored: list[str] = []
    for (negated, prefix, quoted, folded, parts), left in zip(typed, stop, strict=True):
        if left:
            plain.extend(parts)
            ignored.extend(parts)
            continue
        # A lone character of a paired script is the start of a pair.
        lone = (len(parts) == 1 and len(parts[0]) == 1 and not parts[0].isascii()
                and cjk().match(parts[0]) is not None)
        phrase = '"' + " ".join(parts) + '"' + ("*" if prefix or lone else "")
        alternatives = [phrase]
        halves: list[str] = []
        if not quoted and not prefix and not folded.isascii():
            # Korean is written with spaces people often leave out (기본방침
            # for 기본 방침): a run of Hangul matches with a space anywhere in it.
            spaced = _spaced(folded)
            if spaced:
                alternatives += ['"' + " ".join(tokens(alt)) + '"' for alt, _ in spaced]
                phrase = "(" + " OR ".join(alternatives) + ")"
                halves = [h for _, pair in spaced for h in pair if len(h) > 1]
        (unwanted if negated else wanted).append(phrase)
        if negated:
            continue
        choices.append(alternatives)
        part = len(wanted) - 1
        pieces = (TOKEN.findall(folded) if folded.isascii()  # (the same, sooner)
                  else [p.group() for p in piece().finditer(folded)])
        pieces += list(dict.fromkeys(h for h in halves if h not in pieces))
        terms.extend((t, prefix and i == len(pieces) - 1) for i, t in enumerate(pieces))
        groups.extend([part] * len(pieces))
        if not quoted and not prefix:
            plain.extend(parts)
            if len(parts) == 1 and stems(parts[0]):
                stemmed[part] = parts[0]
            bare = without_particle(folded) if not folded.isascii() else ""
            if bare:
                bares[part] = bare
    if not wanted and unwanted:
        raise BadQuery("give at least one word to look for (a -word only leaves things out)")
    if not wanted:
        # (emoji, punctuation: the index holds words of letters and digits only)
        raise BadQuery("nothing to look for: words are letters and digits (emoji and "
                       "punctuation alone are not indexed)")
    together = ('"' + " ".join(plain) + '"'
                if len(wanted) + len(ignored) > 1 and len(plain) > 1 else "")
    query = Query(wanted, terms, together, tuple(unwanted), groups, stemmed,
                  slots=[[word] for word in plain], choices=choices)
    query.ignored = tuple(dict.fromkeys(ignored))
    query.bare = bares
    return query


# Korean particles (josa) glued to the word before them, longest first: a
# word typed with one (파일을, 테스트가, 검색에서) also finds the word alone.
# Not 나 and the like, which end too many words that carry none.
_PARTICLES = ("에서부터", "으로부터", "에서는", "에서도", "에게서", "에게는", "으로는",
              "으로도", "으로서", "으로써", "이라고", "이라는", "까지는", "부터는",
              "에서", "에게", "한테", "께서", "부터", "까지", "처럼", "보다", "으로",
              "이랑", "하고", "라고", "라는", "이나", "마다", "조차", "밖에", "에는",
              "에도", "와는", "과는", "로는", "로도", "로서", "로써",
              "은", "는", "이", "가", "을", "를", "에", "의", "도", "와", "과", "로", "만")


def without_particle(folded: str) -> str:
    """A folded word that ends with a Korean particle, without it, when what
    is left is a word a search can find by itself: two or more Hangul
    syllables (the index holds them as pairs; one alone is no word of its
    own there), or two or more other letters or digits (README를, PR을);
    "" else."""
    if folded.isascii() or not "\uac00" <= folded[-1] <= "\ud7a3":
        return ""
    for particle in _PARTICLES:
        if folded.endswith(particle) and len(folded) > len(particle):
            rest = folded[:-len(particle)]
            pieces = [p.group() for p in piece().finditer(rest)]
            return rest if pieces and len(pieces[-1]) >= 2 and TOKEN.fullmatch(rest) else ""
    return ""


_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7ff]{2,}")


def _spaced(folded: str) -> list[tuple[str, tuple[str, str]]]:
    """A folded word with a space put in each place inside a run of Hangul
    (at most 16 runs' places: a sentence typed without spaces is found as
    typed), with the run's two halves."""
    out = []
    for m in _HANGUL.finditer(folded):
        run = m.group()
        for k in range(1, len(run)):
            at = m.start() + k
            out.append((folded[:at] + " " + folded[at:], (run[:k], run[k:])))
    return out[:16]


def stems(word: str) -> bool:
    """Whether a word typed alone may match other forms of it: a word of
    three or more characters, not only digits, of letters the English
    endings are put on (ASCII, once folded: `résumés` is `resumes`; Greek,
    Cyrillic, Korean, a pair of Chinese characters are found as typed)."""
    return len(word) >= 3 and word.isascii() and not word.isdigit()


def matches(token: str, terms: list[tuple[str, bool]]) -> bool:
    """A token of a text (as written) is one of the terms: the same word, a
    word starting with a prefix, or a run of a paired script holding it."""
    folded = index_form(token)
    for t, prefix in terms:
        if not t.isascii() and cjk().match(t) is not None:
            if t in folded:
                return True
        elif folded.startswith(t) if prefix else folded == t:
            return True
    return False
