"""Lines of a file as the state keeps them, and the lines two contents differ by.

A file's content is kept as one 8-byte fingerprint per line (never the text:
the state holds no file's words), keyed with the vault's own random key
(`use_key`, from `line_key`): an unkeyed checksum of a short line (a
password's) is found again by trying lines. Each line is taken with its
newline, so a last line without one differs from the same line with one, as
`git diff` counts it
("\\ No newline at end of file"). Counts are those of a shortest edit script
(what `git diff --numstat` shows): added = lines of the new content outside a
longest common subsequence, removed = lines of the old one outside it. Pure,
given the key.
"""

from __future__ import annotations

from typing import Any

try:  # the C module itself: hashlib's import costs a hook ~3 ms more
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - another Python
    from hashlib import blake2b

HASH = 8  # bytes per line
MAX_EDITS = 300  # beyond this many differing lines, difflib's near-shortest script


_NO_KEY = b"vibe-vault: no vault key"


class _Key:
    """The key lines are fingerprinted with: the vault's (use_key), or, in a
    fold outside any vault (tests) or with no key to be had, a fixed one; and
    its id ("" the fixed one's)."""

    hasher = blake2b(key=_NO_KEY, digest_size=HASH)
    id = ""


def use_key(key: bytes) -> None:
    """Fingerprint lines with `key` (the vault's, line_key.load) from now on;
    b"": the fixed key."""
    _Key.hasher = blake2b(key=(key or _NO_KEY)[:64], digest_size=HASH)
    _Key.id = blake2b(key, digest_size=6, person=b"vv-lkey").hexdigest() if key else ""


def key_id() -> str:
    """Which key fingerprints are made with: a state keeps it, and
    fingerprints made with another are not compared (fold.files.rekey)."""
    return _Key.id




def line_hashes(text: str) -> bytes:
    """The fingerprints of `text`'s lines, split on "\n" as git does."""
    if not text:
        return b""
    parts = text.encode("utf-8", "surrogatepass").split(b"\n")
    last = parts.pop()
    lines = [p + b"\n" for p in parts]
    if last:
        lines.append(last)  # the last line, without a newline
    return b"".join(map(_keyed, lines))


def _keyed(line: bytes) -> bytes:
    h = _Key.hasher.copy()
    h.update(line)
    return h.digest()


def _hash(line: str) -> bytes:
    return _keyed(line.encode("utf-8", "surrogatepass"))


def count(lines: bytes) -> int:
    return len(lines) // HASH


def _split(lines: bytes) -> list[bytes]:
    return [lines[i:i + HASH] for i in range(0, len(lines), HASH)]


def diff_counts(old: bytes, new: bytes) -> tuple[int, int]:
    """(added, removed): the lines `new` adds to `old` and those it takes away."""
    if old == new:
        return 0, 0
    a, b = _split(old), _split(new)
    start = 0  # common lines at the start and at the end do not take part
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    a, b = a[start:end_a], b[start:end_b]
    if not a or not b:
        return len(b), len(a)
    edits = _shortest(a, b)
    if edits is None:
        import difflib  # (only past MAX_EDITS: most hooks never load it)

        sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
        common = sum(block.size for block in sm.get_matching_blocks())
    else:
        common = (len(a) + len(b) - edits) // 2
    return len(b) - common, len(a) - common


def _shortest(old: list[bytes], new: list[bytes]) -> int | None:
    """The length of a shortest edit script from `old` to `new` (Myers' greedy
    O(ND) search), or None when it is over MAX_EDITS."""
    n, m = len(old), len(new)
    limit = min(n + m, MAX_EDITS)
    offset = limit + 1
    v = [0] * (2 * limit + 3)
    for d in range(limit + 1):
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]
            else:
                x = v[offset + k - 1] + 1
            y = x - k
            while x < n and y < m and old[x] == new[y]:
                x += 1
                y += 1
            v[offset + k] = x
            if x >= n and y >= m:
                return d
    return None


def patch_counts(hunks: Any) -> tuple[int, int] | None:
    """(added, removed) of a tool's `structuredPatch`; None for a shape not known."""
    if not isinstance(hunks, list):
        return None
    added = removed = 0
    for hunk in hunks:
        lines = hunk.get("lines") if isinstance(hunk, dict) else None
        if not isinstance(lines, list):
            continue
        try:  # counted in C over one joined string, not line by line
            joined = "\n" + "\n".join(lines)
        except TypeError:
            continue  # not all strings: a shape we do not know
        added += joined.count("\n+")
        removed += joined.count("\n-")
    return added, removed


def apply_patch(old: bytes, hunks: Any) -> bytes | None:
    """The content after a tool's `structuredPatch` (hunks of " ", "-", "+" and
    "\\ No newline" lines) is applied to `old`; None when the patch does not
    fit `old` (its context or removed lines are not there: the file was not
    what the session last saw) or has a shape not known."""
    if not isinstance(hunks, list):
        return None
    a = _split(old)
    out: list[bytes] = []
    at = 0  # lines of `old` used so far
    for hunk in hunks:
        if not isinstance(hunk, dict):
            return None
        start, lines = hunk.get("oldStart"), hunk.get("lines")
        if not isinstance(start, int) or isinstance(start, bool) or not isinstance(lines, list):
            return None
        # A hunk that removes nothing starts after line `oldStart` (unified
        # diff's convention); any other at that line.
        begin = start if hunk.get("oldLines") == 0 and start <= len(a) else max(start - 1, 0)
        if begin < at or begin > len(a):
            return None
        out.extend(a[at:begin])
        at = begin
        kinds: list[tuple[str, str]] = []
        for line in lines:
            if not isinstance(line, str) or not line:
                return None
            if line[0] == "\\":  # the line before has no newline
                if not kinds:
                    return None
                kinds[-1] = (kinds[-1][0], kinds[-1][1].removesuffix("\n"))
            elif line[0] in " -+":
                kinds.append((line[0], line[1:] + "\n"))
            else:
                return None
        for kind, text in kinds:
            if kind == "+":
                out.append(_hash(text))
                continue
            if at >= len(a) or a[at] != _hash(text):
                return None
            if kind == " ":
                out.append(a[at])
            at += 1
    out.extend(a[at:])
    return b"".join(out)


def reversed_patch(hunks: Any) -> Any:
    """A `structuredPatch` turned round: the hunks that take the new content
    back to the old one (None for a shape not known), so a Write's content
    and its patch give the file before it."""
    if not isinstance(hunks, list):
        return None
    flip = {"+": "-", "-": "+"}
    out = []
    for hunk in hunks:
        if not isinstance(hunk, dict) or not isinstance(hunk.get("lines"), list):
            return None
        lines = [flip[x[0]] + x[1:] if isinstance(x, str) and x[:1] in flip else x
                 for x in hunk["lines"]]
        out.append({"oldStart": hunk.get("newStart"), "oldLines": hunk.get("newLines"),
                    "lines": lines})
    return out


def edit_lines(old: str, new: str) -> list[bytes]:
    """An Edit's replacement of `old` by `new`, as line fingerprints that
    `apply_edits` can make in a file's (the state keeps no words): [lines
    replaced anywhere, their replacement, lines replaced at the file's end,
    their replacement]; a pair b"" where there is none. The strings are
    taken to start a line and to end one (the rest of the line a newline;
    or the file's end, for the second pair): an edit inside a line is not
    found, and the file is then not followed (never followed wrongly); nor
    is one whose old text may be found earlier, overlapping the lines found
    (it starts with a newline; or what follows one of its newlines is how it
    starts): the client replaces the first."""
    if not old:
        # An empty old string fills an empty file (the client refuses it on
        # a file with content): a replacement of no lines at the file's end.
        return [b"", b"", b"", line_hashes(new)]
    if old.startswith("\n") or _overlaps(old):
        return [b"", b"", b"", b""]
    if old.endswith("\n"):
        if not new or new.endswith("\n"):
            return [line_hashes(old), line_hashes(new), b"", b""]
        # The new text's last line would run into the next line, not known:
        # only at the file's end (found elsewhere too: not followed).
        return [line_hashes(old), _NOWHERE, line_hashes(old), line_hashes(new)]
    return [line_hashes(old + "\n"), line_hashes(new + "\n"), line_hashes(old), line_hashes(new)]


def _overlaps(old: str) -> bool:
    at = old.find("\n")
    while 0 <= at < len(old) - 1:
        if old.startswith(old[at + 1:]):
            return True
        at = old.find("\n", at + 1)
    return False


_NOWHERE = b"\xff"  # (no line's fingerprint: HASH bytes each)


def apply_edits(lines: bytes, edits: list[bytes]) -> bytes | None:
    """The file's lines after each edit (groups of four, from `edit_lines`)
    is made in turn; None when one is not found once in the lines as it is
    taken (inside a line, or not there: the file is not what was followed)."""
    if not edits or len(edits) % 4:
        return None
    a = _split(lines)
    for at in range(0, len(edits), 4):
        mid_old, mid_new, end_old, end_new = edits[at:at + 4]
        if not mid_old and not end_old:
            if a or not end_new:
                return None  # (an empty file filled: only when it is empty)
            a = _split(end_new)
            continue
        found: dict[int, tuple[int, bytes]] = {}  # start -> (lines replaced, replacement)
        if mid_old:
            want = _split(mid_old)
            k = len(want)
            for p in range(len(a) - k + 1):
                if a[p] == want[0] and a[p:p + k] == want:
                    found[p] = (k, mid_new)
                    if len(found) > 1:
                        return None
        if end_old:
            want = _split(end_old)
            k = len(want)
            if k <= len(a) and a[len(a) - k:] == want:
                found[len(a) - k] = (k, end_new)
        if len(found) != 1:
            return None
        [(p, (k, put))] = found.items()
        if put == _NOWHERE:
            return None
        a[p:p + k] = _split(put)
    return b"".join(a)
