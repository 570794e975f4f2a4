"""Keep secrets out of the vault.

Every text the fold copies from a transcript passes `Redactor.redact` first.
A secret is replaced by `[REDACTED:<kind>]`; the count goes in the note's
frontmatter. Patterns are anchored on the shape of real credentials (prefixes,
lengths, key names) so that git SHAs, UUIDs and lock-file hashes stay intact.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, NewType, TypeVar

from vibe_vault.text import rx

# A string that passed the redaction gate (`fold.context.Context.text`, `line`,
# `name`, `note_text`), or a constant of vibe-vault's own. The session state's
# text fields are of this type, so mypy refuses a transcript string that did
# not pass the gate.
Redacted = NewType("Redacted", str)

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
# Where a token may begin: not inside a word, but after "_" (a tool name, an
# identifier that glues a token on) as well as after a space or a quote.
_B = r"(?<![A-Za-z0-9])"

_PATTERNS: list[tuple[str, tuple[str, ...], str]] = [
    (
        "private-key", ("private key",),
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    ("aws-access-key", ("akia", "asia", "abia", "acca"),
     _B + r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    (
        "aws-secret-key", ("aws",),
        r"(?i)aws.{0,20}?(?:secret|private).{0,20}?[=:]\s*[\"']?(?P<v>[A-Za-z0-9/+=]{40})\b",
    ),
    ("putty-key", ("putty-user-key-file",),
     r"PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-MAC:\s*\S+|\Z)"),
    ("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
     _B + r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    ("gitlab-token", ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "gloas-", "glsoat-",
                      "glffct-", "glimt-", "glagent-"),
     _B + r"gl(?:pat|dt|ptt|rt|cbt|oas|soat|ffct|imt|agent)-[A-Za-z0-9_\-]{20,}"),
    ("anthropic-key", ("sk-ant-",), _B + r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", ("sk-",), _B + r"sk-(?:proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_\-]{20,}"),
    ("google-api-key", ("aiza",), _B + r"AIza[0-9A-Za-z_\-]{35}"),
    ("google-oauth", ("gocspx-", "ya29."),
     _B + r"(?:GOCSPX-[A-Za-z0-9_\-]{24,}|ya29\.[0-9A-Za-z_\-]{20,})"),
    ("slack-token", ("xox", "xapp-"),
     _B + r"(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]{16,})"),
    ("slack-webhook", ("hooks.slack.com",),
     r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{20,}"),
    ("discord-webhook", ("discord",),
     r"https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{20,}"),
    ("stripe-key", ("_live_", "_test_", "whsec_"),
     _B + r"(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})"),
    ("npm-token", ("npm_",), _B + r"npm_[A-Za-z0-9]{36}\b"),
    ("pypi-token", ("pypi-",), _B + r"pypi-AgE[A-Za-z0-9_\-]{50,}"),
    ("sendgrid-key", ("sg.",), _B + r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,64}"),
    ("huggingface-token", ("hf_",), _B + r"hf_[A-Za-z]{30,40}\b"),
    ("docker-token", ("dckr_pat_", "dckr_oat_"), _B + r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}"),
    ("vault-token", ("hvs.", "hvb.", "hvr."), _B + r"hv[sbr]\.[A-Za-z0-9_\-]{24,}"),
    ("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"),
     _B + r"do[por]_v1_[a-f0-9]{64}\b"),
    ("shopify-token", ("shpat_", "shpca_", "shppa_", "shpss_"),
     _B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ("discord-token", ("discord",),
     _B + r"[MNO][A-Za-z\d_\-]{23,27}\.[A-Za-z\d_\-]{6}\.[A-Za-z\d_\-]{27,40}\b"),
    ("twilio-key", ("twilio",), _B + r"SK[0-9a-fA-F]{32}\b"),
    ("mailgun-key", ("key-",), _B + r"key-[0-9a-zA-Z]{32}\b"),
    ("square-token", ("sq0atp-", "sq0csp-", "eaaa"),
     _B + r"(?:sq0(?:atp|csp)-[0-9A-Za-z_\-]{22,}|EAAA[0-9A-Za-z_\-]{60})"),
    ("databricks-token", ("dapi",), _B + r"dapi[a-f0-9]{32}(?:-\d)?\b"),
    ("newrelic-key", ("nrak-", "nrii-"), _B + r"NR(?:AK|II)-[A-Z0-9]{27}\b"),
    ("grafana-token", ("glsa_", "glc_"),
     _B + r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})"),
    ("linear-key", ("lin_api_",), _B + r"lin_api_[A-Za-z0-9]{40}\b"),
    ("notion-token", ("secret_", "ntn_"),
     _B + r"(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})\b"),
    ("supabase-token", ("sbp_",), _B + r"sbp_[a-f0-9]{40}\b"),
    ("postman-key", ("pmak-",), _B + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    ("doppler-token", ("dp.pt.", "dp.st.", "dp.ct."),
     _B + r"dp\.(?:pt|st|ct|sa|scim)\.[A-Za-z0-9]{40,}"),
    ("pulumi-token", ("pul-",), _B + r"pul-[a-f0-9]{40}\b"),
    ("atlassian-token", ("atatt",), _B + r"ATATT[A-Za-z0-9_\-=]{100,}"),
    ("age-key", ("age-secret-key-",), _B + r"AGE-SECRET-KEY-1[0-9A-Z]{58}\b"),
    ("groq-key", ("gsk_",), _B + r"gsk_[A-Za-z0-9]{48,}\b"),
    ("replicate-token", ("r8_",), _B + r"r8_[A-Za-z0-9]{37}\b"),
    ("xai-key", ("xai-",), _B + r"xai-[A-Za-z0-9]{70,}\b"),
    ("sentry-token", ("sntrys_", "sntryu_"), _B + r"sntry[su]_[A-Za-z0-9+/=_\-]{40,}"),
    ("jwt", ("eyj",), _B + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    (
        # A password in a URL: the user may be empty (`redis://:pw@host`), the
        # password may hold `@` (the last `@` before the host ends it).
        "url-password", ("://",),
        _B + r"[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@\"'`]{0,100}:(?P<v>[^\s/\"'`]{1,200}?)"
        r"@(?=[^\s@/\"'`:]+(?:[:/?#\s\"'`]|$))",
    ),
    ("bearer-token", ("bearer",),
     r"(?i)\b(?:authorization:\s*)?bearer\s+(?P<v>[A-Za-z0-9_\-.=+/]{20,})"),
    ("authorization", ("authorization",),
     r"(?i)authorization[\"']?\s*[:=]\s*[\"']?(?:basic|token|digest|apikey|sso-key)\s+"
     r"(?P<v>[A-Za-z0-9_\-.=+/:]{6,})"),
    ("cli-password", ("-u ", "--user", "sshpass", "mysql", "mariadb", "--pass", "--token",
                      "--secret", "--api", "--auth", "--access"),
     r"(?:(?:^|\s)(?:-u|--user)[ =]['\"]?[^\s:'\"]+:(?P<v>[^\s'\"]+)"
     r"|\bsshpass\s+-p\s*['\"]?(?P<v2>[^\s'\"]+)"
     r"|\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?\s-p(?P<v3>[^\s'\"-][^\s'\"]{2,})"
     r"|--(?:password|passwd|pass|token|secret|api-key|apikey|auth-token|access-token)"
     r"[ =]['\"]?(?P<v4>[^\s'\"]{3,}))"),
    ("netrc", ("machine",),
     r"(?m)^\s*(?:machine\s+\S+|default)\b[^\n]*?\bpassword\s+(?P<v>\S+)"),
    ("pgpass", ("pgpass", ":5432:", ":*:"),
     r"(?m)^[A-Za-z0-9.\-*_]+:(?:\d{2,5}|\*):[^:\s]+:[^:\s]+:(?P<v>[^\s:]{3,})$"),
    ("azure-key", ("accountkey", "sharedaccess"),
     r"(?i)\b(?:accountkey|sharedaccesskey|sharedaccesssignature)\s*=\s*(?P<v>[^;\s\"']{8,})"),
    (
        "secret-assignment",
        ("pass", "pwd", "secret", "token", "key", "credential"),
        # Anchored on the keyword (not on the start of the name) so the engine
        # does not backtrack from every position; a longer name still matches.
        r"(?i)(?:password|passwd|passphrase|pwd|secret|token|api[_\-]?key|apikey"
        r"|access[_\-]?key|private[_\-]?key|client[_\-]?secret|credentials?|auth[_\-]?key)"
        r"[A-Za-z0-9_.\-]*[\"']?(?P<sep>\s*(?:=|:|:=|=>)\s*)"
        # A quoted value may hold spaces (a passphrase); a bare one ends at one.
        r"(?:\"(?P<v>[^\"\n]{6,200})\"|'(?P<v2>[^'\n]{6,200})'|(?P<v3>[^\s\"'`,;)}\]]{6,}))",
    ),
]

# A value that is code: a snake_case name (or a dotted path of them).
_IDENTIFIER = r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*\Z"

# Rules for tokens of a known shape: a prefix and a long random run. Every such
# token holds a run like _LONG_RUN; a text without one skips them all.
SHAPED = frozenset({
    "aws-access-key", "github-token", "gitlab-token", "anthropic-key", "openai-key",
    "google-api-key", "google-oauth", "slack-token", "stripe-key", "npm-token", "pypi-token",
    "sendgrid-key", "huggingface-token", "docker-token", "vault-token", "digitalocean-token",
    "shopify-token", "mailgun-key", "square-token",
    "databricks-token", "newrelic-key", "grafana-token", "linear-key", "notion-token",
    "supabase-token", "postman-key", "doppler-token", "pulumi-token", "atlassian-token",
    "age-key", "groq-key", "replicate-token", "xai-key", "sentry-token", "jwt",
})
_LONG_RUN = r"[a-z0-9_\-]{16,}"  # on the lower-cased text

@cache
def _shaped_gate() -> str:
    """A regex finding any shaped token's prefix, as a trie: one pass over a
    text instead of a substring search per prefix (twice as fast here)."""
    trie: dict[str, Any] = {}
    for _, triggers, _ in (p for p in _PATTERNS if p[0] in SHAPED):
        for word in triggers:
            node = trie
            for ch in word:
                node = node.setdefault(ch, {})
            node[""] = {}

    def build(node: dict[str, Any]) -> str:
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


# Values of `key = value` that are code or exact, obvious placeholders, not
# secrets. Anything else is redacted, all-letter passwords and "test_" keys too.
_NOT_A_SECRET = (
    r"(?i)^(?:none|null|nil|true|false|undefined|string|str|bytes|int|bool|optional\[.*"
    r"|\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-[^}]*)?\}?|\$[A-Za-z_][A-Za-z0-9_]*|%\([a-z_]+\)s"
    r"|\{\{\s*[\w.]+\s*\}\}|<[^<>]+>|\*{3,}|x{3,}|\.{3}|…|changeme|\[redacted[^\]]*\]"
    r"|(?:os\.environ|os\.getenv|process\.env|getenv|env|settings|config|self|this|args"
    r"|options|req|request|ctx)\b[.\[(].*"
    r"|[A-Za-z_][A-Za-z0-9_]*\(.*\)|[A-Za-z_][\w.]*\[.*)$"
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
        # "_" (or "-", "://", ".") skips that whole group with one search. Token
        # shapes (a prefix and a long random run) are tried only on a text that
        # has such a run at all, which most texts do not.
        context: dict[str, list[tuple[str, int]]] = {}
        self._by_prefix: dict[str, list[int]] = {}
        for i, (kind, triggers, _) in enumerate(_PATTERNS):
            for t in triggers:
                if kind in SHAPED:
                    self._by_prefix.setdefault(t, []).append(i)
                else:
                    gate = next((g for g in ("://", "_", "-", ".") if g in t), "")
                    context.setdefault(gate, []).append((t, i))
        self._gated = sorted(context.items())
        # A user's pattern has no trigger we could know: it always runs.
        self._always = list(range(len(self._rules), len(self._rules) + len(extra)))
        self._rules += [(kind, p) for kind, p in extra]
        self._allow = frozenset(allow)
        self._too_slow: set[int] = set()

    def redact(self, text: str, found: list[str] | None = None) -> tuple[str, int]:
        """Return the text with secrets replaced, and how many were; the
        secrets themselves are added to `found` when it is given."""
        if not text:
            return text, 0
        low = text.lower()
        count = 0
        hits = {i for gate, triggers in self._gated if not gate or gate in low
                for t, i in triggers if t in low}
        runs = [m.start() for m in rx(_LONG_RUN).finditer(low)]
        if runs:
            # A token's prefix is at the start of its run (or just before it:
            # "sg.", "hvs."): only those few characters are searched, by one
            # trie-shaped regex.
            gate = rx(_shaped_gate())
            by_prefix = self._by_prefix
            for start in runs:
                for t in gate.findall(low, max(0, start - 8), start + 24):
                    hits.update(by_prefix[t])
        hits.update(self._always)
        for i in sorted(hits):  # in the table's order, as the patterns expect
            kind, pattern = self._rules[i]
            marker = f"[REDACTED:{kind}]"
            folded = self._folded.get(i)
            if folded is not None and len(low) == len(text):
                text, n = self._sub_folded(rx(folded), low, text, marker, kind, found)
            elif i in self._always:
                sub = self._replacer(marker, kind, found)
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
                sub = self._replacer(marker, kind, found)
                text, n = rx(pattern).subn(sub, text)
                n -= sub.skipped
            if n:
                count += n
                low = text.lower()
        if ".env" in low and rx(_ENV_FILE_CMD).search(text):
            # Whatever is written into, or dumped from, a .env file is a secret.
            def env_value(m: re.Match[str]) -> str:
                if found is not None:
                    found.append(m.group(2).strip().strip("'\""))
                return m.group(1) + "[REDACTED:env-file]"

            text, m = rx(_ENV_LINE).subn(env_value, text)
            count += m
        return text, count

    def _replacer(self, marker: str, kind: str, found: list[str] | None = None) -> _Replacer:
        return _Replacer(marker, kind, self._allow, found)

    def _sub_folded(self, rx: re.Pattern[str], low: str, text: str, marker: str,
                    kind: str, found: list[str] | None = None) -> tuple[str, int]:
        """Replace what `rx` finds in `low` at the same places in `text` (which
        has the same length), deciding on the original-case value."""
        keep = _Replacer(marker, kind, self._allow)
        out: list[str] = []
        last = n = 0
        for m in rx.finditer(low):
            start, end = _value_span(m)
            if keep.skips_match(m, text[start:end]):
                continue
            if found is not None:
                found.append(text[start:end])
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

    def __init__(self, marker: str, kind: str, allow: frozenset[str],
                 found: list[str] | None = None) -> None:
        self.marker, self.kind, self.allow = marker, kind, allow
        self.found = found
        self.skipped = 0

    def skips_match(self, m: re.Match[str], secret: str) -> bool:
        """`skips`, knowing the match: `password = user_password` (a bare
        identifier after a spaced `=`) is code; `DB_PASSWORD=hunter` is not."""
        if self.kind == "secret-assignment" and m.groupdict().get("v3") is not None:
            sep = m.group("sep") or ""
            if sep != sep.strip() and rx(_IDENTIFIER).match(secret):
                return True
        return self.skips(secret)

    def skips(self, secret: str) -> bool:
        return (
            secret in self.allow
            or secret.startswith("[REDACTED")
            or (self.kind == "secret-assignment" and bool(rx(_NOT_A_SECRET).match(secret)))
        )

    def __call__(self, m: re.Match[str]) -> str:
        whole = m.group(0)
        start, end = _value_span(m)
        secret = m.string[start:end]
        if self.skips_match(m, secret):
            self.skipped += 1
            return whole
        if self.found is not None:
            self.found.append(secret)
        base = m.start(0)
        return whole[: start - base] + self.marker + whole[end - base :]


def _value_span(m: re.Match[str]) -> tuple[int, int]:
    """Where the secret is in a match: the group named v (or v2, v3...) that
    took part, else the whole match."""
    for name, value in m.groupdict().items():
        if value is not None and name.startswith("v"):
            return m.span(name)
    return m.span()


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


DEFAULT = Redactor()
