"""The stem of a word as the search index keeps it: the Porter stemmer of
SQLite's FTS5 `porter` tokenizer, step for step, so a snippet marks the words
the index matched (`improve` marks `improvements`, `improver`, `improving`).

It works on the token's UTF-8 bytes as SQLite does: a token shorter than 3
or longer than 64 bytes is kept as it is, only ASCII a, e, i, o, u (and y
after a consonant) are vowels, and a letter of another script is a
consonant, so words of other scripts keep their form unless they end in
ASCII letters. tests/test_stems.py holds it to SQLite's own output.
"""

from __future__ import annotations

import re
from functools import lru_cache

TYPE_CHECKING = False  # (typing costs a search milliseconds to import)
if TYPE_CHECKING:
    from collections.abc import Callable

    Buffer = bytes | bytearray
    Rule = tuple[bytes, Callable[[Buffer, int], bool], bytes]

_MAX = 64
_VOWELS = frozenset(b"aeiou")
_Y = ord("y")


def _is_vowel(c: int, y_is_vowel: bool) -> bool:
    return c in _VOWELS or (y_is_vowel and c == _Y)


def _gobble(word: Buffer, start: int, end: int, prev_consonant: bool) -> int:
    """Past one vowel-consonant sequence from `start`: the index after its
    first consonant, or 0 when there is none before `end`."""
    consonant = prev_consonant
    i = start
    while i < end:
        consonant = not _is_vowel(word[i], consonant)
        if not consonant:
            break
        i += 1
    i += 1
    while i < end:
        consonant = not _is_vowel(word[i], consonant)
        if consonant:
            return i + 1
        i += 1
    return 0


def _m_gt0(word: Buffer, n: int) -> bool:
    return _gobble(word, 0, n, False) != 0


def _m_gt1(word: Buffer, n: int) -> bool:
    k = _gobble(word, 0, n, False)
    return bool(k) and _gobble(word, k, n, True) != 0


def _m_eq1(word: Buffer, n: int) -> bool:
    k = _gobble(word, 0, n, False)
    return bool(k) and _gobble(word, k, n, True) == 0


def _o_star(word: Buffer, n: int) -> bool:
    """Ends consonant-vowel-consonant, the last not w, x or y."""
    if word[n - 1] in b"wxy":
        return False
    mask = 0
    consonant = False
    for i in range(n):
        consonant = not _is_vowel(word[i], consonant)
        mask = (mask << 1) + consonant
    return mask & 7 == 5


def _m_gt1_s_or_t(word: Buffer, n: int) -> bool:
    return word[n - 1] in b"st" and _m_gt1(word, n)


def _has_vowel(word: Buffer, n: int) -> bool:
    return any(_is_vowel(word[i], i > 0) for i in range(n))


# Each step: (suffix, condition on the stem before it, replacement), tried in
# order among those whose suffix's next-to-last letter is the word's; the
# first whose suffix the word ends with (and is longer than) is the only one
# tried, applied when its condition holds.
_STEP2: list[Rule] = [
    (b"ational", _m_gt0, b"ate"), (b"tional", _m_gt0, b"tion"), (b"enci", _m_gt0, b"ence"),
    (b"anci", _m_gt0, b"ance"), (b"izer", _m_gt0, b"ize"), (b"logi", _m_gt0, b"log"),
    (b"bli", _m_gt0, b"ble"), (b"alli", _m_gt0, b"al"), (b"entli", _m_gt0, b"ent"),
    (b"eli", _m_gt0, b"e"), (b"ousli", _m_gt0, b"ous"), (b"ization", _m_gt0, b"ize"),
    (b"ation", _m_gt0, b"ate"), (b"ator", _m_gt0, b"ate"), (b"alism", _m_gt0, b"al"),
    (b"iveness", _m_gt0, b"ive"), (b"fulness", _m_gt0, b"ful"), (b"ousness", _m_gt0, b"ous"),
    (b"aliti", _m_gt0, b"al"), (b"iviti", _m_gt0, b"ive"), (b"biliti", _m_gt0, b"ble"),
]
_STEP3: list[Rule] = [
    (b"ical", _m_gt0, b"ic"), (b"ness", _m_gt0, b""), (b"icate", _m_gt0, b"ic"),
    (b"iciti", _m_gt0, b"ic"), (b"ful", _m_gt0, b""), (b"ative", _m_gt0, b""),
    (b"alize", _m_gt0, b"al"),
]
_STEP4: list[Rule] = [
    (b"al", _m_gt1, b""), (b"ance", _m_gt1, b""), (b"ence", _m_gt1, b""), (b"er", _m_gt1, b""),
    (b"ic", _m_gt1, b""), (b"able", _m_gt1, b""), (b"ible", _m_gt1, b""), (b"ant", _m_gt1, b""),
    (b"ement", _m_gt1, b""), (b"ment", _m_gt1, b""), (b"ent", _m_gt1, b""),
    (b"ion", _m_gt1_s_or_t, b""), (b"ou", _m_gt1, b""), (b"ism", _m_gt1, b""),
    (b"ate", _m_gt1, b""), (b"iti", _m_gt1, b""), (b"ous", _m_gt1, b""), (b"ive", _m_gt1, b""),
    (b"ize", _m_gt1, b""),
]


def _by_letter(rules: list[Rule]) -> dict[int, list[Rule]]:
    table: dict[int, list[Rule]] = {}
    for rule in rules:
        table.setdefault(rule[0][-2], []).append(rule)
    return table


_STEPS = [_by_letter(_STEP2), _by_letter(_STEP3), _by_letter(_STEP4)]


def _step(word: bytearray, table: dict[int, list[Rule]]) -> None:
    n = len(word)
    if n < 2:
        return
    for suffix, condition, output in table.get(word[n - 2], ()):
        k = len(suffix)
        if n > k and word.endswith(suffix):
            if condition(word, n - k):
                word[n - k:] = output
            return


def _step1b(word: bytearray) -> bool:
    """-eed, -ed, -ing; True when -ed or -ing was taken off."""
    n = len(word)
    if n < 2:
        return False
    if word[n - 2] == ord("e"):
        if n > 3 and word.endswith(b"eed"):
            if _m_gt0(word, n - 3):
                del word[n - 1]
        elif n > 2 and word.endswith(b"ed") and _has_vowel(word, n - 2):
            del word[n - 2:]
            return True
    elif word[n - 2] == ord("n") and n > 3 and word.endswith(b"ing") and _has_vowel(word, n - 3):
        del word[n - 3:]
        return True
    return False


def _step1b2(word: bytearray) -> bool:
    n = len(word)
    if n > 2 and bytes(word[n - 2:]) in (b"at", b"bl", b"iz"):
        word.append(ord("e"))
        return True
    return False


def stem_bytes(token: bytes) -> bytes:
    """The stem of a lower-case token's UTF-8 bytes, as FTS5's porter gives it."""
    if len(token) > _MAX or len(token) < 3:
        return token
    w = bytearray(token)
    # step 1a: -sses, -ies, -s
    if w[-1] == ord("s"):
        if w[-2] == ord("e"):
            n = len(w)
            if (n > 4 and w[n - 4:n - 2] == b"ss") or (n > 3 and w[n - 3] == ord("i")):
                del w[n - 2:]
            else:
                del w[n - 1]
        elif w[-2] != ord("s"):
            del w[-1]
    if _step1b(w) and not _step1b2(w) and len(w) >= 2:
        c = w[-1]
        if not _is_vowel(c, False) and c not in b"lsz" and c == w[-2]:
            del w[-1]
        elif _m_eq1(w, len(w)) and _o_star(w, len(w)):
            w.append(ord("e"))
    # step 1c: -y after a vowel somewhere before it
    if w and w[-1] == _Y and _has_vowel(w, len(w) - 1):
        w[-1] = ord("i")
    for table in _STEPS:
        _step(w, table)
    # step 5a: -e
    n = len(w)
    if n and w[-1] == ord("e") and (_m_gt1(w, n - 1) or (_m_eq1(w, n - 1)
                                                          and not _o_star(w, n - 1))):
        del w[-1]
    # step 5b: -ll
    n = len(w)
    if n > 1 and w[-1] == w[-2] == ord("l") and _m_gt1(w, n - 1):
        del w[-1]
    return bytes(w)


@lru_cache(maxsize=4096)
def stem(token: str) -> str:
    """The stem of a folded token (str in, str out; bytes SQLite would cut
    inside a character are kept as surrogate escapes, never equal to a letter)."""
    if token.isascii():
        if len(token) < 3:
            return token
        return stem_bytes(token.encode()).decode()
    raw = token.encode("utf-8", "surrogatepass")
    return stem_bytes(raw).decode("utf-8", "surrogateescape")


# The endings English puts on a word, by what the word ends with (the stemmer
# takes them off again): a word's forms looked for are made from its stem with
# them, and kept when the stemmer takes them back to that stem.
AFTER_CONSONANT = ("", "s", "es", "ed", "ing", "ings", "er", "ers", "ment", "ments", "ness",
                   "ion", "ions", "ation", "ations", "ive", "able", "al", "ity", "ize", "ized",
                   "izes", "izing", "ization", "izations")
AFTER_E = ("", "s", "d", "r", "rs", "ment", "ments", "ness")  # improve: improved, improver
AFTER_Y = ("", "s", "ing", "ings")  # try: trying
AFTER_I = ("es", "ed", "er", "ers", "ness", "ly")  # tri: tries, tried; happi: happiness
DOUBLED = ("ed", "ing", "ings", "er", "ers")  # run: running


def forms(word: str) -> list[str]:
    """The forms of a folded word that have its stem, the word first:
    `improve` gives improved, improvement, improvements, improver, improves,
    improving, ... (and forms no one writes, which no session holds). Made
    from the endings English puts on a word, each kept when the stemmer takes
    it back to the same stem, so each is one the porter tokenizer would take
    for the word (tests/test_word_forms.py holds it to SQLite's); none of
    fewer than 3 letters (`us` is not a form of `use`). Made, not read from the
    index's word list: reading the words that start as the stem does reads
    every occurrence of each (at 100,000 sessions, `se` is session, search,
    set, ...)."""
    target = stem(word)
    bases: list[tuple[str, tuple[str, ...]]] = []

    def add(base: str) -> None:
        if not base:
            return
        if base.endswith("e"):
            bases.append((base, AFTER_E))
            bases.append((base[:-1], AFTER_CONSONANT))  # improve: improving, improvement
        elif base.endswith("i"):
            bases.append((base, AFTER_I))
            bases.append((base[:-1] + "y", AFTER_Y))
        else:
            bases.append((base, AFTER_CONSONANT))
            if base.endswith("y"):
                bases.append((base[:-1] + "i", AFTER_I))
            elif base[-1].isalpha() and base[-1] not in "aeiouwx":
                bases.append((base + base[-1], DOUBLED))

    add(word)
    add(target)
    if not target.endswith(("e", "i", "y")):
        add(target + "e")
    wanted = target.encode()
    out = {word: None}
    for base, endings in bases:
        for ending in endings:
            form = base + ending
            if form not in out and len(form) >= 3 and stem_bytes(form.encode()) == wanted:
                out[form] = None
    return list(out)


# The words English spells two ways (American, British) whose stems differ:
# a word of either stem also finds the other's forms (`color` finds colour,
# colours, coloured). Only words whose other spelling is no other word, nor
# a form of one: `check`/`cheque`, `tire`/`tyre`, `draft`/`draught`,
# `program`/`programme` (programmer) and `aging`/`ageing` (age) are left out.
_SPELLED_TWO_WAYS = (
    "color colour", "behavior behaviour", "favor favour", "favorite favourite",
    "flavor flavour", "honor honour", "humor humour", "labor labour",
    "neighbor neighbour", "rumor rumour", "vapor vapour", "harbor harbour",
    "armor armour", "endeavor endeavour", "odor odour", "vigor vigour",
    "rigor rigour", "tumor tumour", "savor savour", "center centre", "meter metre",
    "liter litre", "theater theatre", "fiber fibre", "caliber calibre",
    "somber sombre", "specter spectre", "luster lustre", "meager meagre",
    "license licence", "defense defence", "offense offence", "pretense pretence",
    "catalog catalogue", "dialog dialogue", "analog analogue",
    "gray grey", "aluminum aluminium", "judgment judgement",
    "acknowledgment acknowledgement", "artifact artefact",
    "skeptical sceptical", "skeptic sceptic", "mold mould", "plow plough",
    "cozy cosy", "inquiry enquiry", "fulfill fulfil", "enroll enrol",
    "installment instalment", "skillful skilful", "willful wilful",
    "airplane aeroplane", "maneuver manoeuvre", "pajamas pyjamas", "mustache moustache",
)
# (a word not starting as one of them is none: most words are looked up no further)
_SPELLED_STARTS = frozenset(w[:3] for pair in _SPELLED_TWO_WAYS for w in pair.split())


@lru_cache(maxsize=1)
def _other_spelling() -> dict[str, str]:
    """The other spelling of a word, by the stem of each spelling."""
    out: dict[str, str] = {}
    for pair in _SPELLED_TWO_WAYS:
        us, uk = pair.split()
        if stem(us) != stem(uk):
            out[stem(us)] = uk
            out[stem(uk)] = us
    return out


@lru_cache(maxsize=1)
def _ize() -> re.Pattern[str]:
    """-ize/-ise, -yze/-yse and what is made of them (organize: organise,
    organisation; analyze: analyse): the other letter is put in."""
    return re.compile(r"([a-z]{3,}i|[a-z]{2,}y)([sz])(e|es|ed|er|ers|ing|ings|ation|ations|able)")


def spellings(word: str) -> list[str]:
    """The folded word as the other side of the Atlantic spells it (none, or
    one): `colours` gives `colour`'s other spelling `color`, `organised`
    gives `organized` (whose forms are then looked for: `forms`)."""
    if not word.isascii():
        return []
    out = []
    other = _other_spelling().get(stem(word)) if word[:3] in _SPELLED_STARTS else None
    if other is not None:
        out.append(other)
    m = _ize().fullmatch(word) if ("is" in word or "iz" in word or "ys" in word
                                   or "yz" in word) else None
    if m is not None:
        out.append(m.group(1) + ("z" if m.group(2) == "s" else "s") + m.group(3))
    return [w for w in out if w != word]
