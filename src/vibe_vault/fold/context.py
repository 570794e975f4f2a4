"""What every kind of fact folds through: the facts being built, the redactor,
the current turn, the entry's time.

One `Context` per fold call. Texts from the transcript reach the facts only
through `text`, `line` or `cleaned` here: cleaned, redacted and cut, so neither
the saved state nor the note ever holds a secret.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from msgspec import Struct

from vibe_vault import patterns
from vibe_vault import text as tx
from vibe_vault.entries import ToolResult
from vibe_vault.locations import tool_key
from vibe_vault.redact import HUGE_TEXT, Redacted, Redactor, a_name
from vibe_vault.shared_secrets import MAX_KEYS as SHARED_KEYS
from vibe_vault.state import Action, Fold, Pending, Said, Turn
from vibe_vault.text import rx
from vibe_vault.times import epoch

# Caps keep a note readable and the state small for sessions of tens of
# thousands of entries; what is dropped is counted and said in the note.
HEAD_TURNS = 10  # the first turns say what the session was for: always kept
TAIL_TURNS = 50  # and the latest ones; the turns between are counted, not kept
MAX_ACTIONS = 60
ANSWER_CHARS = 700  # of each turn's answer: its gist is its first paragraph
LAST_ANSWER_CHARS = 20_000  # of the last answer, shown whole
QUESTION_TAIL = 3000  # of an answer, where a question it ends on is looked for
QUESTION_CHARS = 400
SAID_PIECE = 32_000  # characters of one prompt or answer text kept for search
SAID_CHARS = 2_000_000  # and of a whole session's
THINKING_CHARS = 500
IDLE_GAP_S = 300.0  # a pause this long within a turn is not work (see fold.active)
MEMO_SIZE = 4096
_SHARED_NAMES: dict[tuple[str, int, int], Redacted] = {}
MIN_LEARNED = 6  # shorter values are too common to redact wherever they appear
PRIVATE_WORD = 8  # words of a private span this long are kept out everywhere
# The keys a state keeps: a value's own first (a secret of a session that
# learned many is still kept out), its other spellings (below) while fewer
# than MAX_VARIANT_KEYS are kept.
# (Beside those, each state takes in the keys other sessions shared, up to
# shared_secrets.MAX_KEYS: they do not count against its own.)
MAX_LEARNED = 2000 + SHARED_KEYS
MAX_VARIANT_KEYS = 1500 + SHARED_KEYS
_TOKEN = r"[^\s'\"`,;()\[\]{}<>]{6,}"  # a word, as a secret may come back
# What glues a secret into a longer word: ASCII marks, and what prose puts
# around a word in any script (`was it X?`, `**X**`, `«X»`, `X。`, `X’s`,
# `「X」`), and letters of scripts written without spaces (`密码是X`, `X는`,
# `รหัสXครับ`): a learned value followed by `?` or in bold was found nowhere
# (attack 25: 56 of 70 such forms reached the note, state and database).
_SEPARATOR = (r"[=:@/_.\-|?!*#$%^~+&\\\u00a1-\u00bf\u2010-\u206f\u2e00-\u2e7f\u3000-\u30ff"
              r"\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0e7f\ufe10-\ufe6f\uff00-\uffef"
              r"\u0600-\u060f\u061b-\u061f\u066a-\u066d\u06d4\u0964\u0965\u055a-\u055f\u0589]")
_PARTS = r"[\s/:@?&=;,|\"'`]+"  # what a caught form's parts are joined by
NAME_CHARS = 200
_is_uuid = patterns.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z").match

# Lines standing for several calls add up their kinds; the others count calls.
EXPLORE = "explore"


GLUED_PARTS = 24  # a secret glued into a word spans at most this many of its parts
GLUED_CHARS = 4096  # and this many characters


RUN_ENDS = 4  # places tried at each end of a run of separators


def _ends(first: int, stop: int) -> tuple[int, ...]:
    """The positions first..stop-1 nearest either end, RUN_ENDS of each."""
    if stop - first <= 2 * RUN_ENDS:
        return tuple(range(first, stop))
    return (*range(first, first + RUN_ENDS), *range(stop - RUN_ENDS, stop))


def _learned_spans(token: str, learned: set[str]) -> list[tuple[int, int]]:
    """Where in a word the learned secrets are: the whole word, or the parts
    of it between separators (`=`, `:`, `@`, `/`, `_`, `.`, `-`, `|`) each was
    glued on with, leftmost and longest first; empty when nowhere.

    A run of separators counts as one place to glue (a secret may begin after
    any of its first or last RUN_ENDS separators, and end before one), and a
    glued secret spans at most GLUED_PARTS parts and GLUED_CHARS characters:
    every pair of separators would cost a digest each, cubic in a word of
    thousands of dashes or slashes (a base64 blob, a rule line), which took a
    hook minutes. The bounds pass every secret a rule catches."""
    if _digest(token) in learned:
        return [(0, len(token))]
    size = len(token)
    runs = [(m.start(), m.end()) for m in rx(_SEPARATOR + "+").finditer(token)]
    # Where a secret may start (after run i-1) and stop (before run i); index
    # i = 0 is the word's start, i = len(runs) its end.
    starts = [(0,)] + [_ends(a + 1, b + 1) for a, b in runs]
    stops = [_ends(a, b) for a, b in runs] + [(size,)]
    spans: list[tuple[int, int]] = []
    done = 0  # found spans do not overlap
    for i, firsts in enumerate(starts):
        hit = None
        for first in firsts:
            if first < done or first >= size:
                continue
            for j in range(min(len(stops) - 1, i + GLUED_PARTS - 1), i - 1, -1):
                for stop in reversed(stops[j]):
                    if MIN_LEARNED <= stop - first <= GLUED_CHARS \
                            and (first, stop) != (0, size) \
                            and _digest(token[first:stop]) in learned:
                        hit = (first, stop)
                        break
                if hit:
                    break
            if hit:
                break
        if hit:
            spans.append(hit)
            done = hit[1]
    return spans


# A learned value of several words (`export DB_PASSWORD='correct horse battery
# staple'`, a passphrase in a .env, a `<private>` span) is kept as "<k>w<digest>"
# of its words joined by one space, and found again as a run of k words
# (`_phrase_spans`), whatever space is between them and whatever glue is
# before its first word or after its last. Longer values (a whole file) are
# learned by their pieces only.
PHRASE_WORDS = 24
PHRASE_GLUE = 6  # places tried in the first and last word for the phrase's ends


# A phrase's first or last word may have been redacted already, alone (a rule
# caught `pw=first`, or it was learned first): the text then holds a marker
# there. The phrase is also kept with that word as MASK, so the rest of it
# leaves that text too, and the text ends the same whichever was learned first.
MASK = "\x00"  # (no text holds it: text.clean takes control characters out)
_ENDS_IN_MARKER = r"\[REDACTED[^\]\s]*\]\Z"
_BEGINS_WITH_MARKER = r"\[REDACTED[^\]\s]*\]"


def learned_keys(secret: str) -> list[str]:
    """What the state keeps of a learned secret: its digest; for a phrase,
    "<k>w<n>:<digest>" of its k words joined by one space (n characters), and
    the same with its first, then its last, word as MASK (n: the characters
    of the rest, so a text's runs of words are digested only at that length:
    a hook meets texts of thousands of words)."""
    words = secret.split()
    if len(words) < 2:
        return [_digest(secret)]
    k = len(words)
    out = []
    for tag, w in (("w", words), ("m", [MASK, *words[1:]]), ("m", [*words[:-1], MASK])):
        joined = " ".join(w)
        out.append(f"{k}{tag}{len(joined.replace(MASK, ''))}:{_digest(joined)}")
    return out


def _phrases(learned: set[str]) -> dict[int, tuple[set[int], set[int], int]]:
    """The learned phrases by number of words: the lengths their keys tell,
    whole and with a MASK ("w", "m": a plain digest is hex, it holds
    neither), and the least of them."""
    out: dict[int, tuple[set[int], set[int], int]] = {}
    for d in learned:
        tag = "w" if "w" in d else "m" if "m" in d else ""
        if tag:
            k, _, rest = d.partition(tag)
            whole, masked, _ = out.setdefault(int(k), (set(), set(), 0))
            (whole if tag == "w" else masked).add(int(rest.partition(":")[0]))
    return {k: (w, m, min(w | m)) for k, (w, m, _) in out.items() if 2 <= k <= PHRASE_WORDS}


def _phrase_starts(word: str) -> list[tuple[int, str]]:
    """Where in a word a phrase may begin (its start, or after glue), and
    the phrase's first word from there; a marker ending the word is MASK."""
    if word.isalnum():
        return [(0, word)]
    m = rx(_ENDS_IN_MARKER).search(word) if word[-1] == "]" else None
    if m:
        return [(m.start(), MASK)]
    glued = [j for j in range(1, len(word)) if not word[j - 1].isalnum()]
    return [(j, word[j:]) for j in (0, *glued[-PHRASE_GLUE:])]


def _phrase_stops(word: str) -> list[tuple[int, str]]:
    """Where in a word a phrase may end (its end, or before glue), and the
    phrase's last word up to there; a marker beginning the word is MASK."""
    if word.isalnum():
        return [(len(word), word)]
    m = rx(_BEGINS_WITH_MARKER).match(word) if word[0] == "[" else None
    if m:
        return [(m.end(), MASK)]
    glued = [j for j in range(1, len(word)) if not word[j].isalnum()]
    return [(j, word[:j]) for j in (len(word), *glued[:PHRASE_GLUE])]


def _phrase_spans(text: str, sizes: dict[int, tuple[set[int], set[int], int]],
                  learned: set[str]) -> list[tuple[int, int]]:
    """Where in `text` the learned phrases are: runs of k words whose words,
    the first from a glued-on start and the last to a glued-on end, joined by
    one space, have a learned key. Leftmost and longest first, not
    overlapping.

    Only runs that may have a key's length are looked at: those of a whole
    phrase's length, and those whose first or last word is glued or a marker
    (a hook meets texts of thousands of words: a digest each would cost it)."""
    spans_of_words = [m.span() for m in rx(r"\S+").finditer(text)]
    words = [text[a:b] for a, b in spans_of_words]
    ends = [0]  # characters of the words before each, joined by one space
    for word in words:
        ends.append(ends[-1] + len(word) + 1)
    plain = [word.isalnum() for word in words]
    n = len(words)
    # Where a run of k words may begin, by k.
    runs = {k: {i for i in range(n - k + 1) if not plain[i] or not plain[i + k - 1]
                or ends[i + k] - ends[i] - 1 in sizes[k][0]} for k in sizes}
    order = sorted(sizes, reverse=True)
    spans: list[tuple[int, int]] = []
    taken = 0  # words before this one are in a phrase found
    for i in sorted(set().union(*runs.values())):
        if i < taken:
            continue
        for k in order:
            if i not in runs[k]:
                continue
            hit = _phrase_at(words, spans_of_words, ends, i, k, sizes[k], learned)
            if hit:
                spans.append(hit)
                taken = i + k
                break
    return spans


def _phrase_at(words: list[str], spans: list[tuple[int, int]], ends: list[int], i: int,
               k: int, sizes: tuple[set[int], set[int], int],
               learned: set[str]) -> tuple[int, int] | None:
    """Where the run of k words from word i is a learned phrase, if it is."""
    whole_sizes, masked_sizes, _ = sizes
    first_word, last_word = words[i], words[i + k - 1]
    # The inner words and their spaces: whole in the phrase.
    inner_size = ends[i + k] - ends[i] - 1 - len(first_word) - len(last_word)
    inner = None
    for s, first in _phrase_starts(first_word):
        for e, last in _phrase_stops(last_word):
            if first == MASK and last == MASK:
                continue
            masked = first == MASK or last == MASK
            size = inner_size + (0 if first == MASK else len(first)) + (
                0 if last == MASK else len(last))
            if size not in (masked_sizes if masked else whole_sizes):
                continue
            if inner is None:
                inner = "".join(" " + w for w in words[i + 1:i + k - 1])
            key = f"{k}{'m' if masked else 'w'}{size}:"
            if key + _digest(first + inner + " " + last) in learned:
                return spans[i][0] + s, spans[i + k - 1][0] + e
    return None


def _bodies(secret: str) -> list[str]:
    """A token's rest after its last separator (`_`, `.`, `-`, a hash's `$`)
    in its first PREFIX_CHARS characters, where the rest is a random piece of
    HALVES_FROM or more, and the token one word; a JWT's parts."""
    if len(secret) < HALVES_FROM + 2 or len(secret) > 1000 or any(c.isspace() for c in secret):
        return []
    cuts = [j + 1 for j, c in enumerate(secret[:PREFIX_CHARS]) if c in "_.-$"]
    # (the rest after the last of them only: each rest's halves are keys, and
    # a session's keys are bounded)
    out = [secret[j:] for j in cuts[-1:] if len(secret) - j >= HALVES_FROM
           and _random_piece(secret[j:])]
    if secret.startswith("eyJ") and secret.count(".") == 2:
        # a JWT's parts (its payload, its signature) each come back alone
        out += [p for p in secret.split(".")[1:] if len(p) >= HALVES_FROM and _random_piece(p)]
    return out


def _mixed(word: str) -> bool:
    """Letters and digits both, as a random value has them."""
    return any(c.isdigit() for c in word) and any(c.isalpha() for c in word)


def _digest(secret: str) -> str:
    """A secret's key, the same for any case of its letters: a value learned
    as `X` comes back as `x.upper()` (a shell's `${X^^}`, a header, a shout),
    and a text's word is digested in the same fold, so no digest more a word."""
    import hashlib  # only in sessions that had a secret: it costs a hook ~2 ms

    return hashlib.blake2b(secret.lower().encode("utf-8", "surrogatepass"), digest_size=12,
                           person=b"vibe-vault").hexdigest()


# -- a learned value written another way ----------------------------------------------
# A value comes back encoded (`echo -n X | base64`, a URL's query, `xxd -p`)
# or cut in two (half on one line, half on another: each half is no secret
# to a rule). Its spellings are computed once, when it is learned, and kept
# as more keys of the same kind, so finding them costs a text nothing more:
# each of its words is digested as before.
HALF = 8  # a piece of a value this long or longer is kept out when it comes back alone
HALVES_FROM = 2 * HALF
PREFIX_CHARS = 16  # a vendor's prefix is within a token's first characters (`tskey-auth-`)
HALF_SPREAD = 16  # a long value's cuts: this near its middle (a value of 48: anywhere)
_VOWELS = frozenset("aeiouyAEIOUY")


def _random_letters(piece: str) -> bool:
    """Letters only, and not shaped as words are: a part of its camel case
    without a vowel, other than a capitals' acronym of up to 5 (`QzKbPwRt`,
    not `Postgres`, `getElementById`, `HTTPServer`)."""
    for part in rx(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+").findall(piece):
        if not _VOWELS.intersection(part) and not (part.isupper() and len(part) <= 5):
            return True
    return False


def _random_piece(piece: str) -> bool:
    """A piece of a value that is kept out alone: letters and digits both, as
    a random value's halves have them, or random letters. A piece that is a
    word (`Postgres` of `Postgres2024Pass`), a number or a date is left: it
    is in ordinary text, and hiding it everywhere in the session would hide
    the word, not the secret."""
    return len(piece) >= HALF and (_mixed(piece) or (piece.isalpha() and _random_letters(piece)))


# A value caught in its assignment that is a word (`POSTGRES_PASSWORD=postgres`,
# `DB_PASSWORD=administrator`, `changeme`) is hidden there only: learned, it
# hid the word everywhere after, the key's own name (`[REDACTED:learned]_PASSWORD`),
# the image (`[REDACTED:learned]:16`), the user (`psql -U …`) and the prose
# ("upgrade the … server"), for the rest of the session (attack 26, f4). A
# word cannot be told from the text's own use of it; a random value can. A
# word here is one of a list (BIP-39's 2,048 English words, the stop words,
# and the default passwords and service names compose files and tutorials
# set), or words of those run together as a name is (`PostgresAdmin`,
# `DBAdmin`): letters shaped as words are not enough, since random letters
# often are (`ApfwooCC`, a planted secret, was taken for a word and shown).
PLAIN_CHARS = 16
_WORD_PART = r"[A-Z]{2,5}(?![a-z])|[A-Z]?[a-z]{2,}"
DEFAULT_WORDS = frozenset([
    "admin", "administrator", "root", "toor", "superuser", "sa", "dba", "db", "dbadmin", "user",
    "users", "guest", "test", "tester", "demo", "example", "default", "defaults", "changeme",
    "password", "passwort", "passwd", "pass", "secret", "secrets", "letmein", "welcome",
    "qwerty", "master", "oracle", "postgres", "postgresql", "pg", "mysql", "mariadb", "redis",
    "mongo", "mongodb", "rabbitmq", "keycloak", "grafana", "jenkins", "elastic",
    "elasticsearch", "kibana", "kubernetes", "sonarqube", "docker", "ubuntu", "debian", "minio",
    "vault", "consul", "airflow", "superset", "metabase", "nextcloud", "wordpress", "django",
    "rails", "laravel", "app", "api", "dev", "development", "staging", "prod", "production",
    "local", "localhost", "motdepasse", "contrasena", "senha", "parola", "wachtwoord", "haslo"
])


def plain_value(secret: str) -> bool:
    """A value that is a word, or words run together as a name is (`postgres`,
    `administrator`, `PostgresAdmin`, `пароль`): at most PLAIN_CHARS letters,
    in ASCII each part of its camel case one of the listed words above.
    Such a value is hidden where a rule finds it, never learned."""
    if not secret.isalpha() or len(secret) > PLAIN_CHARS:
        return False
    if not secret.isascii():
        return True
    parts = rx(_WORD_PART).findall(secret)
    if "".join(parts) != secret:
        return False
    from vibe_vault.seed_phrase import words
    from vibe_vault.stopwords import stop_words

    known = words()
    stops = stop_words()
    return all((w := p.lower()) in DEFAULT_WORDS or w in known or w in stops for p in parts)


# A value learned in one session is kept out of every other (shared_secrets)
# when it is random, as a key or a token is. A word, words run together, a
# word with a few digits or marks about it (`postgres`, `Configuration`,
# `Password123!`, `hunter2024`), a number, a date or a phrase may be a false
# positive's (attack 26, f10: `POSTGRES_PASSWORD=postgres` hid the word in
# other sessions): it is kept out of its own session only. What is left of a
# value once its word-shaped parts are taken out must still be SHARED_BITS
# of randomness, as told by its length and the kinds of its characters (a
# short random value whose letters happen to spell a long pronounceable run
# is not shared either: the price of never sharing a word).
SHARED_FROM = 10  # characters
SHARED_BITS = 48


def shareable(secret: str) -> bool:
    """Whether a learned value is random enough to be kept out of every session."""
    if len(secret) < SHARED_FROM or len(secret) > GLUED_CHARS \
            or any(c.isspace() for c in secret) or "://" in secret or plain_value(secret):
        return False
    if len(set(secret.lower())) < 6:
        return False
    rest = rx(r"[A-Za-z]+").sub(lambda m: _not_words(m.group(0)), secret)
    if not any(c.isascii() and c.isalpha() for c in rest):  # a number, a date, a phone
        return False
    alphabet = (26 * any(c.islower() for c in rest) + 26 * any(c.isupper() for c in rest)
                + 10 * any(c.isdigit() for c in rest) + 32 * any(not c.isalnum() for c in rest))
    import math

    return len(rest) * math.log2(max(alphabet, 2)) >= SHARED_BITS


def _not_words(letters: str) -> str:
    """A run of letters less its parts (of its camel case) shaped as words
    are: of 4 letters or more, a listed word (plain_value) or with a vowel
    in every part of it (`_random_letters`)."""
    parts = rx(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+").findall(letters)
    return "".join(p for p in parts if len(p) < 4 or (
        not plain_value(p) and _random_letters(p)))


def _halves(secret: str) -> list[str]:
    """The pieces a value of HALVES_FROM characters or more may be cut into,
    two of HALF or more: its heads and tails, where random (a value of
    words, a URL or a path is not cut: its heads are ordinary text)."""
    size = len(secret)
    if size < HALVES_FROM or "://" in secret or any(c.isspace() for c in secret):
        return []
    middle = size // 2
    cuts = range(max(HALF, middle - HALF_SPREAD), min(size - HALF, middle + HALF_SPREAD) + 1)
    return [p for k in cuts for p in (secret[:k], secret[k:]) if _random_piece(p)]


def _encodings(secret: str) -> list[str]:
    """A value as base64 (standard and URL-safe, padded or not), base32
    (padded or not), hex and URL-encoded (`%XX`, `+` for a space) spell it,
    and written backwards or in rot13: other words than it."""
    import base64
    import codecs
    from urllib.parse import quote, quote_plus

    raw = secret.encode("utf-8", "surrogatepass")
    std = base64.b64encode(raw).decode()
    url = base64.urlsafe_b64encode(raw).decode()
    b32 = base64.b32encode(raw).decode()
    return [std, std.rstrip("="), url, url.rstrip("="), b32, b32.rstrip("="), raw.hex(),
            quote(secret, safe=""), quote(secret), quote_plus(secret),
            secret[::-1], codecs.encode(secret, "rot13")]


def variant_keys(secret: str) -> list[str]:
    """The keys of a learned value's other spellings: encoded, cut in two
    (case needs none: every key is of lower case), and cut in more pieces
    (`joined_key`)."""
    own = secret.lower()
    spelt = {s.lower() for s in _encodings(secret)} | {h.lower() for h in _halves(secret)}
    spelt.discard(own)
    # (A short value's encoding may be a word of 6: kept whole only from MIN_LEARNED.)
    return [_digest(s) for s in sorted(spelt) if len(s) >= MIN_LEARNED] + joined_key(secret)


# A value cut in three or more pieces (`"Ab3x" + "Yz9q" + "Kp2m"`, each on a
# line of its own, `A="…"; B="…"; C="…"`, `Ab3x Yz9q Kp2m`): each piece is too
# short to be kept out alone (a third of a 16-character value is a word's
# length), so the value is kept as "j<n>:<digest>" of its n letters and digits,
# and found again as a run of up to JOINED_PIECES pieces of letters and digits
# whose n together have that key (attack 25: a learned value in thirds
# reached the note, the state and the search index).
JOINED_FROM = 12  # letters and digits a value has for it
JOINED_PIECES = 6
JOINED_GLUE = 16  # characters between two pieces, at most


def _letters_and_digits(secret: str) -> str:
    return "".join(c for c in secret if c.isascii() and c.isalnum())


def joined_key(secret: str) -> list[str]:
    """The key of a value found cut in pieces: of a random value (not a
    phrase, a URL or a path: their words are ordinary text)."""
    kept = _letters_and_digits(secret)
    if len(kept) < JOINED_FROM or "://" in secret or any(c.isspace() for c in secret) \
            or not _random_piece(kept):
        return []
    return [f"j{len(kept)}:{_digest(kept)}"]


def _joined_sizes(learned: set[str]) -> set[int]:
    return {int(d[1:d.index(":")]) for d in learned if d[:1] == "j"}


# A piece a random value's first one is: a letter and a digit, or a capital
# after its first letter (a word of prose, a number are neither, so a text's
# runs of pieces are begun at few places). Each piece is read once: begun
# where none goes on.
_ODD_PIECE = r"(?<![A-Za-z0-9])(?=[0-9]++[A-Za-z]|[A-Za-z][a-z]*+[0-9A-Z])[A-Za-z0-9]+"
# The next piece: after at most JOINED_GLUE other characters; or, read with
# pieces of three or more only, after at most that many others or pieces of
# one or two (`A="…"; B="…"`: the names between are no part of it).
_NEXT_PIECE = f"[^A-Za-z0-9]{{1,{JOINED_GLUE}}}([A-Za-z0-9]+)"
_NEXT_LONG_PIECE = (r"(?:[^A-Za-z0-9]|(?<![A-Za-z0-9])[A-Za-z0-9]{1,2}(?![A-Za-z0-9]))"
                    f"{{1,{JOINED_GLUE}}}+([A-Za-z0-9]{{3,}})")


def _joined_spans(text: str, sizes: set[int], learned: set[str]) -> list[tuple[int, int]]:
    """Where in `text` a learned value is cut in pieces: runs of 2 to
    JOINED_PIECES pieces of letters and digits (each after the one before
    as _NEXT_PIECE or _NEXT_LONG_PIECE says), together of a learned key."""
    top = max(sizes)
    out: list[tuple[int, int]] = []
    taken = 0
    for first in rx(_ODD_PIECE).finditer(text):
        if first.start() < taken:
            continue
        short = False  # (pieces of three or more are read only past a shorter one)
        for step in (rx(_NEXT_PIECE), rx(_NEXT_LONG_PIECE)):
            if step.pattern == _NEXT_LONG_PIECE and not short:
                break
            parts, at = [first.group(0)], first.end()
            total = len(parts[0])
            while len(parts) < JOINED_PIECES:
                m = step.match(text, at)
                if m is None:
                    break
                short = short or len(m.group(1)) < 3
                total += len(m.group(1))
                if total > top:
                    break
                parts.append(m.group(1))
                at = m.end()
                if total in sizes and f"j{total}:" + _digest("".join(parts)) in learned:
                    out.append((first.start(), at))
                    taken = at
                    break
            if taken > first.start():
                break
    return out


class Learned(set[str]):
    """The learned keys as a set, with its phrases' sizes worked out once (a
    hook passes thousands of texts through the same set)."""

    _sizes: dict[int, tuple[set[int], set[int], int]] | None = None
    _joined: set[int] | None = None

    def phrases(self) -> dict[int, tuple[set[int], set[int], int]]:
        if self._sizes is None:
            self._sizes = _phrases(self)
        return self._sizes

    def joined(self) -> set[int]:
        """The sizes of the values kept out cut in pieces (`joined_key`)."""
        if self._joined is None:
            self._joined = _joined_sizes(self)
        return self._joined


def forget_learned(text: Redacted, learned: set[str]) -> tuple[Redacted, int]:
    """`text` with every secret whose digest is in `learned` redacted; and how many."""
    sizes = learned.phrases() if isinstance(learned, Learned) else _phrases(learned)
    phrases = _phrase_spans(text, sizes, learned) if sizes else []
    joined = learned.joined() if isinstance(learned, Learned) else _joined_sizes(learned)
    if joined:
        phrases += _joined_spans(text, joined, learned)
    spans = list(phrases)
    for m in rx(_TOKEN).finditer(text):
        for first, stop in _learned_spans(m.group(0), learned):
            spans.append((m.start() + first, m.start() + stop))
    if not spans:
        return text, 0
    secrets = len(spans)
    if phrases:  # a phrase (or pieces) holds words learned alone too: one marker over both
        merged: list[tuple[int, int]] = []
        for first, stop in sorted(spans):
            if merged and first < merged[-1][1]:
                merged[-1] = (merged[-1][0], max(stop, merged[-1][1]))
            else:
                merged.append((first, stop))
        spans = merged
        # One that takes in a marker stands for the secret it counted already.
        secrets = sum("[REDACTED" not in text[a:b] for a, b in spans)
    out: list[str] = []
    last = 0
    for first, stop in spans:
        out.append(text[last:first])
        out.append("[REDACTED:learned]")
        last = stop
    out.append(text[last:])
    return Redacted("".join(out)), secrets


def gate_outside(raw: str, limit: int | None, redactor: Redactor, learned: list[str],
                 stated: bool = False) -> Redacted:
    """A text from outside the transcript (the Stop hook's answer, a subagent's
    `.meta.json`) through the same gate as the transcript's: `<private>` spans
    hidden, secrets redacted, the secrets the session taught kept out. It
    teaches nothing: the state stays what the transcript alone makes it."""
    text, _ = tx.hide_private(raw)
    found: list[str] = []
    out = note_text(text, limit, redactor, stated, found, learned=Learned(learned))[0]
    # What it gives away itself (`export X_PASSWORD=v; … v`) is kept out of
    # the rest of it too, as the transcript's own text would be.
    taught = {k for s in found if len(s.strip()) >= MIN_LEARNED
              and not plain_value(s.strip().rstrip(".,;:!?"))
              for k in (*learned_keys(s.strip()), *variant_keys(s.strip()))}
    return forget_learned(out, Learned(taught | set(learned)))[0] if taught else out


# -- secrets learned late: every text a state holds, found by its type ---------------
# A field is walked when its type is Redacted (the gate's type) or may hold one
# (a list, a dict, an optional, a Struct): a field added to the state later is
# walked with no list to update. tests/test_secrets.py fills every such field
# of a state with a secret and checks that none survives.
_IN_PROGRESS: set[type] = set()


def _args(hint: Any) -> tuple[Any, ...]:
    import typing

    return typing.get_args(hint)


@cache
def _holds(hint: Any) -> bool:
    """Whether a value of this type may hold a Redacted text."""
    if hint is Redacted:
        return True
    if isinstance(hint, type) and issubclass(hint, Struct):
        return hint in _IN_PROGRESS or bool(_fields(hint))
    return any(_holds(a) for a in _args(hint))


@cache
def _fields(cls: type) -> tuple[tuple[str, Any], ...]:
    """A Struct's fields that may hold a Redacted text, with their types."""
    import typing

    _IN_PROGRESS.add(cls)
    try:
        return tuple((name, hint) for name, hint in typing.get_type_hints(cls).items()
                     if _holds(hint))
    finally:
        _IN_PROGRESS.discard(cls)


def scrub(value: Any, hint: Any, learned: set[str], count: Fold | None = None) -> Any:
    """`value` (of type `hint`) with the learned secrets out of every Redacted
    text it holds, in place where it can be; counted in the Fold holding each
    (a turn's answer and thinking in the turn too)."""
    import typing

    if hint is Redacted:
        if not value:
            return value
        out, n = forget_learned(value, learned)
        if n and count is not None:
            count.redactions += n
        return out
    if value is None or not _holds(hint):
        return value
    if isinstance(value, Struct):
        # A Fold counts its own; words kept for search only (Said) count in no note.
        inner = value if isinstance(value, Fold) else None if isinstance(value, Said) else count
        for name, field_hint in _fields(type(value)):
            old = getattr(value, name)
            if isinstance(value, Turn) and name in ("answer", "thinking") and old:
                new, n = forget_learned(old, learned)
                setattr(value, f"{name}_redactions", getattr(value, f"{name}_redactions") + n)
                if inner is not None:
                    inner.redactions += n
            elif (isinstance(value, Fold) and name in ("last_answer", "last_answer_whole",
                                                       "closing_question")) or (
                    isinstance(value, Turn) and name == "asked_answer"):
                # A copy of the last turn's answer, counted there (a read that
                # ended before a later answer replaced it must count the same).
                new = scrub(old, field_hint, learned, None)
            else:
                new = scrub(old, field_hint, learned, inner)
            if new is not old:
                setattr(value, name, new)
        return value
    origin, args = typing.get_origin(hint), _args(hint)
    if origin is list:
        return [scrub(v, args[0], learned, count) for v in value]
    if origin is dict:
        return {scrub(k, args[0], learned, count): scrub(v, args[1], learned, count)
                for k, v in value.items()}
    for arg in args:  # X | None
        if arg is not type(None) and _holds(arg):
            return scrub(value, arg, learned, count)
    return value


class CallEnd(Struct):
    """How a tool call ended, as the generic pairing worked it out."""

    status: str  # ok, failed, denied (Bash may add interrupted)
    text: str  # the result's text, when it was read (errors, a command's output)
    result: ToolResult | None
    ms: int | None
    ts: str
    # The tool said it succeeded (a command: its line's exit status was 0),
    # whatever its output says of it (a check piped on that failed, a usage text).
    exit_ok: bool = False
    # A `git push` whose output says git refused it, though the line's status
    # was 0 (fold.git.push_failed): the status says "failed".
    push_refused: bool = False



class Gated:
    """What the gate made of each text one fold call read (escaped with
    tx.clean, redacted, before the learned secrets and the cut), so a text
    kept twice passes the gate once: a prompt is kept for the note (cut at
    5,000 characters) and for search (32,000), an answer for its turn (700)
    and for search, or as the session's last (20,000); under twice the
    shorter limit both read the same text. (The gate's output is a function
    of the text alone; what the session learned is applied after it.) A
    cold backfill gated 19 texts a session, 8 of them a second time: 40% of
    the gate's time. Bounded in characters; texts a huge text's deadline may
    cut short (redact.HUGE_TEXT) are not kept."""

    __slots__ = ("chars", "texts")

    LIMIT = 4 << 20  # characters of texts held (a session's search text is at most 2 M)

    def __init__(self) -> None:
        self.texts: dict[str, tuple[str, int, list[str]]] = {}
        self.chars = 0

    def redact(self, redactor: Redactor, text: str,
               found: list[str] | None) -> tuple[str, int]:
        if len(text) > HUGE_TEXT:
            return redactor.redact_escaped(text, tx.clean, found)
        hit = self.texts.get(text)
        if hit is None:
            seen: list[str] = []
            out, n = redactor.redact_escaped(text, tx.clean, seen)
            if self.chars + len(text) > self.LIMIT:
                self.texts.clear()
                self.chars = 0
            hit = self.texts[text] = (out, n, seen)
            self.chars += len(text)
        if found is not None:
            found.extend(hit[2])
        return hit[0], hit[1]


def note_text(text: str, limit: int | None, redactor: Redactor,
              stated: bool = False, found: list[str] | None = None,
              learned: set[str] | None = None,
              gated: Gated | None = None) -> tuple[Redacted, int]:
    """A transcript text as a note may hold it: cleaned, redacted (the
    `learned` secrets too) and only then cut to `limit`; and how many secrets
    were replaced.

    The text is first cut at a space near twice the limit, so the regex work is
    bounded and no token-like secret is split in two. `stated` says the limit
    where a long text was cut (prompts, answers, summaries). `gated`: what the
    gate made of the texts read before (a fold call's).
    """
    if limit is not None:
        text = tx.cut(text, limit * 2)
    if gated is not None:
        text, n = gated.redact(redactor, text, found)
    else:
        text, n = redactor.redact_escaped(text, tx.clean, found)
    if learned:
        text, more = forget_learned(Redacted(text), learned)
        n += more
    if limit is not None:
        cut = tx.trim(text, limit)
        if stated and cut != text.strip():
            cut += f" [cut at {limit:,} characters]"
        text = cut
    return Redacted(text), n


# The commands that end a session, each with the reason Claude Code's own
# SessionEnd gives for it (`/clear` starts a new session, in a new file).
ENDING_COMMANDS = {"/exit": "prompt_input_exit", "/quit": "prompt_input_exit",
                   "/clear": "clear", "/logout": "logout"}


class Context:
    """The state of one fold call over `facts`."""

    def __init__(self, facts: Fold, redactor: Redactor, keep_thinking: bool = False,
                 agent: bool = False) -> None:
        self.facts = facts
        self.redactor = redactor
        # Thinking is a third of all the text a session has; it is cleaned, redacted
        # and kept only when notes show it (update_session re-reads when that changes).
        self.keep_thinking = facts.keeps_thinking = keep_thinking
        # A subagent's work: its entries are sidechain ones, its usage is counted
        # apart, and it has no story of its own (its Task call tells it).
        self.agent = agent
        self.memo: dict[tuple[str, int | None, bool], tuple[Redacted, int]] = {}
        self.gate_memo = Gated()  # (of the texts, whatever the limit and what was learned)
        self._learned: Learned | None = None  # facts.learned as a set (learned_set)
        self._learned_from = (0, 0)
        self.names: dict[tuple[str, int], Redacted] = {}
        self.keys: dict[str, str] = {}  # models, branches: the same few, often
        self.entry_epoch = 0.0  # the current entry's time, parsed once
        self.entry_ts = ""  # and as written
        self.entry_gap = 0.0  # seconds since the latest entry before it (0: not later)
        # What the current entry says of time spent (fold.active): it starts a
        # turn (a prompt); the pause before it was the user's (a permission or
        # a question answered).
        self.begins_turn = False
        self.entry_cwd = ""  # the current line's cwd, as written (where its commands ran)
        self.user_waited = False
        # The pause's latest seconds before a command began to run, past a
        # permission prompt (its first progress line says when it began): the
        # user's, the rest of the pause Claude's.
        self.is_work = False  # the current entry is Claude's (an answer, a subagent's)
        self.is_queue = False  # the current entry is a queue-operation line
        self.waited_until = 0.0
        self.waited_from = 0.0  # (that command's call)
        self.branch = Redacted("")  # the last git branch seen, as the facts hold it
        self.files_touched: set[Redacted] = set()  # files changed in this read (fold.files)
        self.raw_branch = ""  # and as the transcript wrote it, to skip the work
        self.raw_version = ""
        self.held_turn = -1
        self.held_answer: str | None = None
        self.held_thinking: str | None = None
        # The ids of recent_tools as a set: every tool_use block is checked against them.
        self.recent = set(facts.recent_tools)
        # TodoWrite lists by call, until their result says whether they took effect.
        self.todo_calls: dict[str, list[Any]] = {}
        self.todos: list[Any] | None = None
        self.sidechain: Context | None = None  # inline subagents' work, in the main file
        self.streamed: dict[str, Context] = {}  # streamed subagents' work (progress), by agent
        # fold.order: facts.recent_uuids as a set, and whether the current
        # line began a record of words written before their parent
        self.uuids: set[Redacted] | None = None
        self.orphan_began = False

    # -- text --------------------------------------------------------------------
    def cleaned(self, text: str, limit: int | None, stated: bool = False,
                memo: bool = True) -> tuple[Redacted, int]:
        """`note_text`, memoised for this fold call (todo lists and paths recur;
        `memo=False` for long texts that do not, whole answers)."""
        key = (text, limit, stated)
        hit = self.memo.get(key) if memo else None
        if hit is not None:
            return hit
        found: list[str] = []
        text, private = tx.hide_private(text)
        if private:
            self.learn(private, PRIVATE_WORD)  # should the user's private words come back
        out = note_text(text, limit, self.redactor, stated, found, self.learned_set(),
                        self.gate_memo)
        if found:
            self.learn(found)
            if self.facts.learned:
                # What this text taught leaves it too (its pieces, glued on
                # elsewhere in it); cut already, after the rules' redaction.
                out = self.forget_learned(*out)
        if not memo:
            return out
        if len(self.memo) > MEMO_SIZE:
            self.memo.clear()
        self.memo[key] = out
        return out

    # -- secrets learned in this session -------------------------------------------
    # A secret found once (`export DB_PASSWORD=...`, a .env file written) is
    # redacted wherever it comes back in the session, bare in Claude's prose
    # too. The state keeps digests of them, never the values.
    def gated(self, raw: str) -> str:
        """`raw` through the gate whole, what it hid learned, uncounted: a text
        whose lines are taken and cut after it (an error's first lines, a `!`
        command's outcome), so a form of many lines is read as one; the lines
        kept are counted when they pass `text` or `line`. A `<private>` span
        is hidden whole first, as `cleaned` hides it."""
        raw, private = tx.hide_private(raw)
        if private:
            self.learn(private, PRIVATE_WORD)
        found: list[str] = []
        out, _ = self.redactor.redact(raw, found)
        if found:
            self.learn(found)
        return out

    def learn(self, secrets: list[str], piece: int = 16) -> None:
        """Remember secrets (and their words of `piece` characters or more)."""
        learned = self.facts.learned
        new = False
        # A key block's lines may come back one by one: its long pieces too.
        pieces = [p.strip(".,;:!?()[]{}'\"") for s in secrets
                  if len(s) > 40 or piece < 16 for p in s.split()]
        pieces = [p for p in pieces if len(p) >= piece]
        # The random part of a caught form (a webhook URL's token, a cookie's
        # value) may come back alone: its long parts that are not words.
        # (A shorter part too when it mixes letters and digits, as a random
        # value does: `.*|TOKEN=Qz8ab3kd9X|` caught whole in a sed script.)
        pieces += [p for s in secrets for p in rx(_PARTS).split(s)
                   if p != s and not p.isalpha() and (len(p) >= 16 or (
                       len(p) >= 8 and _mixed(p)))]
        # A vendor's token may come back without its prefix (`gho_`, `ya29.`,
        # `hvs.`, `glpat-`, `sk_test_`, `tskey-auth-`; a hash's `$6$salt$`): what follows each of
        # its first separators, when random (attack 25, R5).
        pieces += [t for s in [*secrets, *pieces] for t in _bodies(s.strip())]
        kept = []
        # A value a rule read to a sentence's stop (`password=X.` hides `X.`)
        # comes back without it: learned both ways.
        stopped = [s.strip().rstrip(".,;:!?") for s in [*secrets, *pieces]
                   if s.strip()[-1:] in (".", ",", ";", ":", "!", "?")]
        for secret in [*secrets, *pieces, *stopped]:
            secret = secret.strip()
            if len(secret) < MIN_LEARNED or secret.startswith(("[REDACTED", "[private")):
                continue
            # A word: hidden where it was caught only (a private span's words
            # are the user's to keep out, words or not).
            # A name (words around a date, a path of words: redact.a_name, the
            # gate's judgement) neither: a file a rule's value was cut from
            # (`/tmp/x_pass_BURL_2023-03-02T08.30.json`, review 31 F13).
            if piece > PRIVATE_WORD and (plain_value(secret.rstrip(".,;:!?")) or a_name(secret)):
                continue
            kept.append(secret)
            keys = learned_keys(secret)
            for digest in keys:
                if digest not in learned and len(learned) < MAX_LEARNED:
                    learned.append(digest)
                    new = True
            if piece > PRIVATE_WORD and shareable(secret):
                # Its own key, and the key it is found by cut in pieces (not
                # its other spellings: the home's bound is for all its secrets).
                shared = self.facts.shared
                shared.extend(k for k in (*keys, *joined_key(secret))
                              if k not in shared and len(shared) < SHARED_KEYS)
        # Its other spellings after every value's own key (the bound is theirs).
        for secret in kept:
            for digest in variant_keys(secret):
                if digest not in learned and len(learned) < MAX_VARIANT_KEYS:
                    learned.append(digest)
                    new = True
        if new:
            self.memo.clear()  # what was cleaned before may hold it
            self.names.clear()
            self.forget_everywhere()

    def forget_everywhere(self) -> None:
        """Redact newly learned secrets in what the facts already hold too, so
        the result does not depend on where a read began or a turn closed."""
        scrub(self.facts, Fold, self.learned_set())

    def learned_set(self) -> Learned:
        """The learned keys as a set, made again when one was added."""
        learned = self.facts.learned
        if self._learned is None or self._learned_from != (id(learned), len(learned)):
            self._learned = Learned(learned)
            self._learned_from = (id(learned), len(learned))
        return self._learned

    def forget_learned(self, text: Redacted, secrets: int) -> tuple[Redacted, int]:
        out, n = forget_learned(text, self.learned_set())
        return out, secrets + n

    def cleaned_line(self, text: str, limit: int) -> tuple[Redacted, int]:
        """`cleaned` for a text shown as one line."""
        # Collapsed to its first line but not cut: `cleaned` cuts after the gate.
        cut = tx.cut(text, max(limit * 8, 4096))
        before = 0
        if "\t" in cut:
            # A tab tells a form the collapse would lose (`PASSWORD<TAB>value`,
            # a TSV table's column): the rules read the text before it is one line.
            found: list[str] = []
            cut, before = self.redactor.redact(cut, found)
            if found:
                self.learn(found)
        out, secrets = self.cleaned(tx.one_line(cut, 1 << 30), limit)
        return out, secrets + before

    def text(self, raw: str, limit: int | None = None, stated: bool = False) -> Redacted:
        """A text for the facts; its secrets are counted in the session's."""
        text, secrets = self.cleaned(raw, limit, stated)
        self.facts.redactions += secrets
        return text

    def line(self, raw: str, limit: int) -> Redacted:
        """`text`, as one line."""
        text, secrets = self.cleaned_line(raw, limit)
        self.facts.redactions += secrets
        return text

    def name(self, raw: str, limit: int = NAME_CHARS) -> Redacted:
        """A name the transcript gives (a model, a branch, a tool, a folder): it
        passes the gate like any text, without counting as a secret of the note."""
        key = (raw, limit)
        hit = self.names.get(key)
        if hit is not None:
            return hit
        if self.facts.learned:
            hit = self.cleaned_line(raw, limit)[0]
        else:
            # Models, branches, tool names recur from session to session: what
            # the redactor makes of one is kept for the whole run.
            shared = (raw, limit, id(self.redactor))
            hit = _SHARED_NAMES.get(shared)
            if hit is None:
                hit = self.cleaned_line(raw, limit)[0]
                if len(_SHARED_NAMES) < MEMO_SIZE:
                    _SHARED_NAMES[shared] = hit
        self.names[key] = hit
        return hit

    def exact(self, raw: str, limit: int = 4096) -> Redacted:
        """A name kept as written (a folder: its spaces, tabs and newlines are
        part of it), through the gate; not counted as a secret of the note."""
        return self.cleaned(tx.cut(raw, limit), None)[0]

    def key(self, raw: str) -> str:
        """`tool_key` of an id, memoised: a message's id recurs on each of its lines."""
        key = self.keys.get(raw)
        if key is None:
            if len(self.keys) > MEMO_SIZE:
                self.keys.clear()
            key = self.keys[raw] = tool_key(raw)
        return key

    def uuid(self, raw: str) -> Redacted:
        """An entry id, kept to link sessions: a canonical UUID cannot hold a
        secret; anything else passes the gate."""
        if _is_uuid(raw):
            return Redacted(raw)  # hex digits and dashes: nothing to hide
        return self.cleaned_line(raw, NAME_CHARS)[0]

    # -- time ------------------------------------------------------------------------
    def clock(self, timestamp: str, own: bool = True) -> float:
        """Track first/last stamps and the pause before this entry; the entry's
        epoch (0 if none). Only the session's own entries (`own`: not Claude
        Code's meta lines) set when it started and ended: 1.0.x opens a file
        with the "Caveat: …" line of a local command typed hours before, in
        the session it cleared."""
        self.entry_gap = 0.0
        ep = epoch(timestamp)
        if ep is None:
            return 0.0
        facts = self.facts
        if own and (not facts.first_ts or ep < facts.first_epoch):
            # The earliest stamp, not the first line's: lines are not always
            # written in time order. (A note keeps the name it was first
            # written under: state.note.)
            facts.first_ts, facts.first_epoch = timestamp, ep
        last = facts.last_epoch
        if ep >= last:
            if last:
                self.entry_gap = ep - last
            facts.last_epoch = ep
        if own and ep >= facts.last_own_epoch:
            facts.last_own_epoch = ep
            facts.last_ts = timestamp
        return ep

    def recent_uuids(self) -> set[Redacted]:
        if self.uuids is None:
            self.uuids = set(self.facts.recent_uuids)
        return self.uuids

    def begin_turn(self) -> None:
        """The current entry starts a turn: the pause before it was the user's."""
        self.begins_turn = True

    # -- turns and actions ---------------------------------------------------------------
    def turn(self) -> Turn | None:
        turns = self.facts.turns
        return turns[-1] if turns else None

    def new_turn(self, turn: Turn) -> None:
        if self.agent:
            return
        self.flush()
        facts = self.facts
        ended_by = ENDING_COMMANDS.get(turn.text.partition(" ")[0], "") \
            if turn.kind == "command" else ""
        if ended_by == "clear" and not facts.turns:
            ended_by = ""  # (the `/clear` a cleared session's new file opens with)
        facts.ended_by = ended_by
        if turn.kind in ("prompt", "command"):
            self.sent_again(turn.text)
        facts.turns.append(turn)
        if len(facts.turns) > HEAD_TURNS + TAIL_TURNS:
            del facts.turns[HEAD_TURNS]  # the oldest of the tail
            facts.turns_dropped += 1

    def sent_again(self, text: str) -> None:
        """A prompt or command sent (or queued again) with the words of one
        taken back from the queue: that one was not left unsent."""
        facts = self.facts
        if facts.taken_back:
            facts.taken_back = [q for q in facts.taken_back if q.text != text]

    def turn_no(self) -> int:
        return self.facts.turns_dropped + len(self.facts.turns) - 1

    def turn_at(self, no: int) -> Turn | None:
        """The turn numbered `no` (0 = first of the session), if still kept."""
        if no < 0:
            return None
        facts = self.facts
        i = no if no < HEAD_TURNS else no - facts.turns_dropped
        if no >= HEAD_TURNS and i < HEAD_TURNS:
            return None  # dropped from between head and tail
        if i < len(facts.turns):
            return facts.turns[i]
        return None

    def action_at(self, call: Pending) -> Action | None:
        t = self.turn_at(call.turn_no)
        if t is None or not 0 <= call.action_no < len(t.actions):
            return None
        return t.actions[call.action_no]

    def add_action(self, action: Action, merge: bool = False) -> int:
        """Append an action to the current turn; its index, or -1. With `merge`,
        a line like the last one (same kind and text) stands for both."""
        if self.agent:
            return -1
        t = self.turn()
        if t is None:
            t = Turn(kind="continued", ts=action.ts)
            self.new_turn(t)
        if merge and t.actions and self._may_merge(t):
            last = t.actions[-1]
            # (A tool's calls for different purposes stay lines of their own.)
            if last.kind == action.kind and last.text == action.text and action.kind != "bash" \
                    and (action.kind != "tool" or last.detail == action.detail):
                if action.kind == EXPLORE:
                    last.reads += action.reads
                    last.searches += action.searches
                    last.listings += action.listings
                else:
                    last.added += action.added
                    last.removed += action.removed
                    last.times += action.times
                return len(t.actions) - 1
        if len(t.actions) >= MAX_ACTIONS:
            t.more_actions += 1
            return -1
        t.actions.append(action)
        return len(t.actions) - 1

    def _may_merge(self, turn: Turn) -> bool:
        """Not the first action of words written before their parent (fold.order)
        with the turn's action before them: they may move to another turn."""
        rec = self.facts.orphan
        return rec is None or not rec.open or len(turn.actions) != rec.first_action \
            or self.turn_no() != rec.turn_no

    def say(self, kind: str, raw: str) -> None:
        """A prompt or an answer's text, whole, for search: passed through the
        gate like every text kept, not counted in the note's secrets (the note
        counts those it shows)."""
        facts = self.facts
        if facts.said_chars >= SAID_CHARS:
            facts.said_dropped += 1
            return
        text = self.cleaned(raw, SAID_PIECE, memo=False)[0]
        if not text:
            return
        last = facts.said[-1] if facts.said else None
        if last is not None and last.kind == kind and last.text == text:
            return  # a streamed snapshot of the block just kept
        facts.said.append(Said(kind=kind, text=text))
        facts.said_chars += len(text)

    # -- a turn's answer and thinking --------------------------------------------------
    # Claude writes many text blocks per turn and only the last is kept, so the
    # text is held raw and cleaned and redacted once: when the turn closes or
    # the fold ends. Each turn remembers how many secrets its kept texts had,
    # so the session's count is the same however the transcript was chunked.
    def hold(self, kind: str, raw: str, timestamp: str) -> None:
        if self.agent:
            return
        if self.turn() is None:
            self.new_turn(Turn(kind="continued", ts=timestamp))
        no = self.turn_no()
        if self.held_turn != no:
            self.flush()
            self.held_turn = no
        if kind == "answer":
            self.held_answer = raw
        else:
            self.held_thinking = raw

    def has_answer(self, turn: Turn) -> bool:
        """Whether Claude wrote words in turn `turn` (kept, or held to be kept)."""
        if turn.answer:
            return True
        return self.held_answer is not None and self.turn_at(self.held_turn) is turn

    def flush(self) -> None:
        if self.held_turn < 0:
            return
        t = self.turn_at(self.held_turn)
        facts = self.facts
        if t is not None and self.held_answer is not None:
            text, n = self.cleaned(self.held_answer, ANSWER_CHARS, stated=True)
            facts.redactions += n - t.answer_redactions
            t.answer, t.answer_redactions = text, n
            facts.last_answer = text
            # Cut here: kept whole as well, should it be the session's last
            # (the copy's secrets are the answer's, counted there).
            facts.last_answer_whole = self.cleaned(
                self.held_answer, LAST_ANSWER_CHARS, stated=True, memo=False)[0] if len(
                self.held_answer) > ANSWER_CHARS else Redacted("")
            # (its secrets are the answer's, counted there)
            facts.closing_question = self.cleaned(
                tx.closing_question(self.held_answer[-QUESTION_TAIL:]), QUESTION_CHARS,
                stated=True)[0]
        if t is not None and self.held_thinking is not None:
            text, n = self.cleaned(self.held_thinking, THINKING_CHARS, stated=True)
            facts.redactions += n - t.thinking_redactions
            t.thinking, t.thinking_redactions = text, n
        self.held_turn, self.held_answer, self.held_thinking = -1, None, None
