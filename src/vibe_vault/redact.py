"""Keep secrets out of the vault.

Every text the fold copies from a transcript passes `Redactor.redact` first.
A secret is replaced by `[REDACTED:<kind>]`; the count goes in the note's
frontmatter. Patterns are anchored on the shape of real credentials (prefixes,
lengths, key names) so that git SHAs, UUIDs and lock-file hashes stay intact.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from vibe_vault.text import rx

# Seconds one of the user's own patterns may take on one text. A pattern that
# backtracks without end (`(a+)+$`) is stopped there, and the whole text is
# withheld rather than shown unredacted.
USER_PATTERN_BUDGET = 0.5
# Texts a pattern that backtracks without end is likely to meet; `check_pattern`
# runs each user pattern over them at load.
_PROBES = tuple(c * 30 + "!" for c in ("a", "A", "1", " ", "_", "-", "x=", "a1", "\t"))

# (kind, triggers, pattern). A rule runs only when one of its triggers (lower
# case) occurs in the lower-cased text, and is compiled the first time it runs:
# most texts trigger nothing, and compiling every pattern up front would cost
# each hook several milliseconds. The whole match is replaced unless the pattern
# has a group named "v", in which case only that group is.
_PATTERNS: list[tuple[str, tuple[str, ...], str]] = [
    (
        "private-key", ("private key",),
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    ("aws-access-key", ("akia", "asia", "abia", "acca"),
     r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    (
        "aws-secret-key", ("aws",),
        r"(?i)aws.{0,20}?(?:secret|private).{0,20}?[=:]\s*[\"']?(?P<v>[A-Za-z0-9/+=]{40})\b",
    ),
    ("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
     r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    ("gitlab-token", ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "gloas-"),
     r"\bgl(?:pat|dt|ptt|rt|cbt|oas)-[A-Za-z0-9_\-]{20,}"),
    ("anthropic-key", ("sk-ant-",), r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", ("sk-",), r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("google-api-key", ("aiza",), r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("slack-token", ("xox",), r"\bxox[abposre]-[A-Za-z0-9-]{10,}"),
    ("slack-webhook", ("hooks.slack.com",),
     r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/\-]{20,}"),
    ("stripe-key", ("_live_", "_test_"), r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("jwt", ("eyj",), r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    (
        "url-password", ("://",),
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@\"'`]{1,100}:(?P<v>[^\s@/\"'`]{1,200})@",
    ),
    ("bearer-token", ("bearer",),
     r"(?i)\b(?:authorization:\s*)?bearer\s+(?P<v>[A-Za-z0-9_\-.=+/]{20,})"),
    (
        "secret-assignment",
        ("pass", "pwd", "secret", "token", "key", "credential"),
        # Anchored on the keyword (not on the start of the name) so the engine
        # does not backtrack from every position; a longer name still matches.
        r"(?i)(?:password|passwd|passphrase|pwd|secret|token|api[_\-]?key|apikey"
        r"|access[_\-]?key|private[_\-]?key|client[_\-]?secret|credentials?|auth[_\-]?key)"
        r"[A-Za-z0-9_.\-]*[\"']?\s*(?:=|:|:=|=>)\s*"
        r"(?P<q>[\"']?)(?P<v>[^\s\"'`,;)}\]]{6,})",
    ),
]

# Values of `key = value` that are code or placeholders, not secrets.
_NOT_A_SECRET = (
    r"(?i)^(?:none|null|nil|true|false|undefined|string|str|bytes|int|bool|optional\b.*"
    r"|\$\{?[A-Za-z_].*|%\(?[a-z_].*|\{\{.*|<[^>]*>?|\*+|x{3,}|\.\.\.|redacted.*|\[redacted.*"
    r"|os\.environ.*|os\.getenv.*|process\.env.*|env\(.*|getenv.*|settings\..*|config\..*"
    r"|self\..*|this\..*|args\..*|options\..*|req\..*|request\..*|ctx\..*"
    r"|[a-z_][a-z0-9_]*\(.*|[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_.]*"
    r"|your[_\-].*|changeme|example.*|dummy.*|test|tests?[_\-].*|placeholder.*|secret|password"
    r"|[a-z_]{1,15}|[A-Z][a-zA-Z]{1,20})$"
)

# A `.env` file being written or dumped by a shell command.
_ENV_FILE_CMD = (
    r"(?:>>?\s*|cat\s+|tee\s+(?:-a\s+)?)\S*\.env(?:\.(?!example|sample|template|dist)[\w.]+)?\b"
)
_ENV_LINE = r"(?m)^(\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=)(.+)$"




class Redactor:
    """Redacts known secret shapes; extra patterns and an allow-list come from the config."""

    def __init__(
        self, extra: Iterable[tuple[str, str]] = (), allow: Iterable[str] = ()
    ) -> None:
        extra = list(extra)
        self._rules = [(kind, p) for kind, _, p in _PATTERNS]
        # Case-insensitive rules also get a plain form, run on the lower-cased text:
        # (?i) keeps the regex engine from skipping ahead by literal prefix, and
        # costs those rules about six times as much.
        self._folded = {i: p.removeprefix("(?i)") for i, (_, _, p) in
                        enumerate(_PATTERNS) if p.startswith("(?i)")}
        # Triggers grouped under a character most of them contain: a text without
        # "_" (or "-", "://", ".") skips that whole group with one search.
        groups: dict[str, list[tuple[str, int]]] = {}
        for i, (_, triggers, _) in enumerate(_PATTERNS):
            for t in triggers:
                gate = next((g for g in ("://", "_", "-", ".") if g in t), "")
                groups.setdefault(gate, []).append((t, i))
        self._gated = sorted(groups.items())
        # A user's pattern has no trigger we could know: it always runs.
        self._always = list(range(len(self._rules), len(self._rules) + len(extra)))
        self._rules += [(kind, p) for kind, p in extra]
        self._allow = frozenset(allow)
        self._too_slow: set[int] = set()

    def redact(self, text: str) -> tuple[str, int]:
        """Return the text with secrets replaced, and how many were."""
        if not text:
            return text, 0
        low = text.lower()
        count = 0
        hits = {i for gate, triggers in self._gated if not gate or gate in low
                for t, i in triggers if t in low}
        hits.update(self._always)
        for i in sorted(hits):  # in the table's order, as the patterns expect
            kind, pattern = self._rules[i]
            marker = f"[REDACTED:{kind}]"
            folded = self._folded.get(i)
            if folded is not None and len(low) == len(text):
                text, n = self._sub_folded(rx(folded), low, text, marker, kind)
            elif i in self._always:
                sub = self._replacer(marker, kind)
                done = (None if i in self._too_slow else
                        within_budget(USER_PATTERN_BUDGET, rx(pattern).subn, sub, text))
                if done is None:
                    # What it would have hidden cannot be known: nothing it
                    # would have read is shown, for the rest of this run.
                    self._too_slow.add(i)
                    return f"[REDACTED:{kind} (pattern too slow; text withheld)]", count + 1
                text, n = done
                n -= sub.skipped
            else:
                sub = self._replacer(marker, kind)
                text, n = rx(pattern).subn(sub, text)
                n -= sub.skipped
            if n:
                count += n
                low = text.lower()
        if ".env" in low and rx(_ENV_FILE_CMD).search(text):
            # Whatever is written into, or dumped from, a .env file is a secret.
            text, m = rx(_ENV_LINE).subn(r"\1[REDACTED:env-file]", text)
            count += m
        return text, count

    def _replacer(self, marker: str, kind: str) -> _Replacer:
        return _Replacer(marker, kind, self._allow)

    def _sub_folded(self, rx: re.Pattern[str], low: str, text: str, marker: str,
                    kind: str) -> tuple[str, int]:
        """Replace what `rx` finds in `low` at the same places in `text` (which
        has the same length), deciding on the original-case value."""
        keep = _Replacer(marker, kind, self._allow)
        out: list[str] = []
        last = n = 0
        for m in rx.finditer(low):
            start, end = m.span("v") if "v" in rx.groupindex else m.span()
            if keep.skips(text[start:end]):
                continue
            out.append(text[last:start])
            out.append(marker)
            last = end
            n += 1
        if not n:
            return text, 0
        out.append(text[last:])
        return "".join(out), n


class _Replacer:
    """Replaces one match by its marker, and counts the matches it left alone
    (allow-listed values, earlier markers, code that only looks like a secret)."""

    def __init__(self, marker: str, kind: str, allow: frozenset[str]) -> None:
        self.marker, self.kind, self.allow = marker, kind, allow
        self.skipped = 0

    def skips(self, secret: str) -> bool:
        return (
            secret in self.allow
            or secret.startswith("[REDACTED")
            or (self.kind == "secret-assignment" and bool(rx(_NOT_A_SECRET).match(secret)))
        )

    def __call__(self, m: re.Match[str]) -> str:
        whole = m.group(0)
        v = m.groupdict().get("v")
        secret = v if v is not None else whole
        if self.skips(secret):
            self.skipped += 1
            return whole
        if v is None:
            return self.marker
        start, end = m.span("v")
        base = m.start(0)
        return whole[: start - base] + self.marker + whole[end - base :]


DEFAULT = Redactor()


_T = TypeVar("_T")


class _OutOfTime(Exception):
    pass


def within_budget(seconds: float, work: Callable[..., _T], *args: Any) -> _T | None:
    """`work(*args)`, or None when it took longer than `seconds`.

    The regex engine checks for signals as it goes, so an interval timer stops
    a match that would backtrack for hours. Where there is no such timer (not
    the main thread, or Windows), the work runs unbounded.
    """
    import signal
    import threading

    if (not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        return work(*args)

    def stop(signum: int, frame: object) -> None:
        raise _OutOfTime

    previous = signal.signal(signal.SIGALRM, stop)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return work(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _OutOfTime:
        return None
    finally:
        signal.signal(signal.SIGALRM, previous)


def check_pattern(pattern: str) -> str | None:
    """Why a user's pattern cannot be used (it does not compile, or it
    backtracks without end on a simple text), or None when it can."""
    try:
        compiled = re.compile(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        return f"not a valid regular expression ({exc})"

    def probe() -> bool:
        for text in _PROBES:
            compiled.search(text)
        return True

    if within_budget(0.2, probe) is None:
        return "takes too long on a short text (nested repetition such as (a+)+ ?)"
    return None
