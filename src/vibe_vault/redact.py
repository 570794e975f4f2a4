"""Keep secrets out of the vault.

Every text the fold copies from a transcript passes `Redactor.redact` first.
A secret is replaced by `[REDACTED:<kind>]`; the count goes in the note's
frontmatter. Patterns are anchored on the shape of real credentials (prefixes,
lengths, key names) so that git SHAs, UUIDs and lock-file hashes stay intact.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

# (kind, pattern); the whole match is replaced unless the pattern has a group
# named "v", in which case only that group is.
_PATTERNS: list[tuple[str, str]] = [
    (
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    ("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    (
        "aws-secret-key",
        r"(?i)aws.{0,20}?(?:secret|private).{0,20}?[=:]\s*[\"']?(?P<v>[A-Za-z0-9/+=]{40})\b",
    ),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    ("gitlab-token", r"\bgl(?:pat|dt|ptt|rt|cbt|oas)-[A-Za-z0-9_\-]{20,}"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("slack-token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}"),
    (
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/\-]{20,}",
    ),
    ("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    (
        "url-password",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@\"'`]{1,100}:(?P<v>[^\s@/\"'`]{1,200})@",
    ),
    (
        "bearer-token",
        r"(?i)\b(?:authorization:\s*)?bearer\s+(?P<v>[A-Za-z0-9_\-.=+/]{20,})",
    ),
    (
        "secret-assignment",
        r"(?i)(?<![A-Za-z0-9])[A-Za-z0-9_.\-]*?"
        r"(?:password|passwd|passphrase|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key"
        r"|private[_\-]?key|client[_\-]?secret|credentials?|auth[_\-]?key)"
        r"[A-Za-z0-9_.\-]*[\"']?\s*(?:=|:|:=|=>)\s*"
        r"(?P<q>[\"']?)(?P<v>[^\s\"'`,;)}\]]{6,})",
    ),
]

# Values of `key = value` that are code or placeholders, not secrets.
_NOT_A_SECRET = re.compile(
    r"(?i)^(?:none|null|nil|true|false|undefined|string|str|bytes|int|bool|optional\b.*"
    r"|\$\{?[A-Za-z_].*|%\(?[a-z_].*|\{\{.*|<[^>]*>?|\*+|x{3,}|\.\.\.|redacted.*|\[redacted.*"
    r"|os\.environ.*|os\.getenv.*|process\.env.*|env\(.*|getenv.*|settings\..*|config\..*"
    r"|self\..*|this\..*|args\..*|options\..*|req\..*|request\..*|ctx\..*"
    r"|[a-z_][a-z0-9_]*\(.*|[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_.]*"
    r"|your[_\-].*|changeme|example.*|dummy.*|test|tests?[_\-].*|placeholder.*|secret|password"
    r"|[a-z_]{1,15}|[A-Z][a-zA-Z]{1,20})$"
)

# A `.env` file being written or dumped by a shell command.
_ENV_FILE_CMD = re.compile(
    r"(?:>>?\s*|cat\s+|tee\s+(?:-a\s+)?)\S*\.env(?:\.(?!example|sample|template|dist)[\w.]+)?\b"
)
_ENV_LINE = re.compile(r"(?m)^(\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=)(.+)$")


class Redactor:
    """Redacts known secret shapes; extra patterns and an allow-list come from the config."""

    def __init__(
        self, extra: Iterable[tuple[str, str]] = (), allow: Iterable[str] = ()
    ) -> None:
        rules = [*_PATTERNS, *extra]
        self._rules = [(kind, re.compile(p)) for kind, p in rules]
        self._allow = frozenset(allow)
        # One cheap pre-check: most texts contain no secret-ish character run at all.
        self._maybe = re.compile(
            r"(?i)PRIVATE KEY|AKIA|ASIA|ABIA|ACCA|aws|gh[pousr]_|github_pat_|gl[a-z]{2,3}-|sk-|AIza"
            r"|xox|hooks\.slack|_live_|_test_|eyJ|://[^\s/@]+:[^\s@]+@|bearer"
            r"|pass|pwd|secret|token|key|credential|\.env"
            + "".join("|" + p for _, p in extra)
        )

    def redact(self, text: str) -> tuple[str, int]:
        """Return the text with secrets replaced, and how many were."""
        if not text or not self._maybe.search(text):
            return text, 0
        count = 0
        for kind, rx in self._rules:
            marker = f"[REDACTED:{kind}]"
            sub = self._replacer(marker, kind)
            text, n = rx.subn(sub, text)
            count += n - sub.skipped  # type: ignore[attr-defined]
        if _ENV_FILE_CMD.search(text):
            # Whatever is written into, or dumped from, a .env file is a secret.
            text, m = _ENV_LINE.subn(r"\1[REDACTED:env-file]", text)
            count += m
        return text, count

    def _replacer(self, marker: str, kind: str) -> Callable[[re.Match[str]], str]:
        allow = self._allow

        def sub(m: re.Match[str]) -> str:
            whole = m.group(0)
            v = m.groupdict().get("v")
            secret = v if v is not None else whole
            if (
                secret in allow
                or secret.startswith("[REDACTED")
                or (kind == "secret-assignment" and _NOT_A_SECRET.match(secret))
            ):
                sub.skipped += 1  # type: ignore[attr-defined]
                return whole
            if v is None:
                return marker
            start, end = m.span("v")
            base = m.start(0)
            return whole[: start - base] + marker + whole[end - base :]

        sub.skipped = 0  # type: ignore[attr-defined]
        return sub

    def redact_command(self, command: str) -> tuple[str, int]:
        return self.redact(command)


DEFAULT = Redactor()
