"""How much of the world's secret formats the redaction gate catches.

    python bench/secret_coverage.py            # the summary, and every format missed
    python bench/secret_coverage.py --samples 5 --show-caught

The formats are gitleaks' default rules (`bench/data/gitleaks_rules.json`, made
by `bench/gitleaks_data.py`; MIT, see the licence in that file). For each rule
a small generator with a fixed seed writes texts its regex matches; a format
counts as caught when the gate hides the secret part (the rule's secret group,
else its first group, else the whole match) of every sample. Then the forms of
vibe-vault's own table (`vibe_vault.secret_rules`) and its look-alikes, and the
whole test corpus (every text the fold redacts to show it; not the windows of
a command's output fold.shell_secrets reads to learn), where nothing may be
redacted.

The goal (issue 27): at least 95% of the formats, every form of the table, no
redaction on the corpus or on a look-alike.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

# The regex parser of Python's own re module (3.11+): what the samples are drawn from.
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser as P  # type: ignore[attr-defined]
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "gitleaks_rules.json"
# trufflehog's detectors of a token by its own shape (`bench/trufflehog_data.py`).
TRUFFLEHOG = HERE / "data" / "trufflehog_rules.json"
CORPUS = HERE.parent.parent / "shared" / "corpus"
PRINTABLE = [chr(c) for c in range(0x21, 0x7F)]
MAX_EXTRA = 12  # an open repeat ({n,} or *) goes at most this far over its least


def go_to_python(regex: str) -> str:
    """Go's RE2 syntax as Python's parser reads it (for generating only)."""
    regex = regex.replace("[[:alnum:]]", "[A-Za-z0-9]").replace("[:alnum:]", "A-Za-z0-9")
    regex = regex.replace(r"\z", r"\Z")
    # A flag group in the middle applies to the rest in Go; Python refuses it.
    # Samples are drawn as written, so dropping it changes nothing they match.
    head, rest = regex[:4], regex[4:]
    return head + re.sub(r"\(\?[imsU]+\)", "", rest)


class Sampler:
    """Draws a text from a parsed regex, and where each group fell."""

    def __init__(self, rng: random.Random, least_open: int = 0) -> None:
        self.rng = rng
        # An open repeat (`+`, `*`, `{n,}`) of a character class draws at
        # least this many (a token's run is long; `tskey-w-G-R` is no token).
        self.least_open = least_open
        self.out: list[str] = []
        self.spans: dict[int, tuple[int, int]] = {}
        self.depth = 0

    def draw(self, parsed: Any) -> None:
        for op, av in parsed:
            self.one(op, av)

    def one(self, op: Any, av: Any) -> None:
        rng = self.rng
        if op is C.LITERAL:
            self.out.append(chr(av))
        elif op is C.NOT_LITERAL:
            self.out.append(rng.choice([c for c in PRINTABLE if ord(c) != av]))
        elif op is C.ANY:
            # Alone, an unescaped dot in these rules is nearly always meant as
            # one (`hooks.slack.com`); repeated, it is any text.
            self.out.append(rng.choice(PRINTABLE) if self.depth else ".")
        elif op is C.IN:
            self.out.append(self.from_set(av))
        elif op is C.BRANCH:
            self.draw(rng.choice(av[1]))
        elif op is C.SUBPATTERN:
            group, _, _, sub = av
            start = len("".join(self.out))
            self.draw(sub)
            if group is not None:
                self.spans[group] = (start, len("".join(self.out)))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            low, high, sub = av
            if high == C.MAXREPEAT and len(sub) == 1 and sub[0][0] is C.IN:
                low = max(low, self.least_open)
            high = min(high, low + MAX_EXTRA) if high != C.MAXREPEAT else low + MAX_EXTRA
            # Each repeat past the least with even odds: the filler these rules
            # allow around a keyword is short in real text, a token's length
            # stays within its range.
            count = low
            while count < high and rng.random() < 0.5:
                count += 1
            self.depth += 1
            for _ in range(count):
                self.draw(sub)
            self.depth -= 1
        elif op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            pass  # boundaries: the texts put spaces around each sample
        elif op is C.GROUPREF:
            start, end = self.spans.get(av, (0, 0))
            self.out.append("".join(self.out)[start:end])
        elif op is getattr(C, "ATOMIC_GROUP", None):
            self.draw(av)
        else:
            raise ValueError(f"cannot draw {op}")

    def from_set(self, items: Any) -> str:
        chars: set[str] = set()
        negate = False
        for op, av in items:
            if op is C.NEGATE:
                negate = True
            elif op is C.LITERAL:
                chars.add(chr(av))
            elif op is C.RANGE:
                chars.update(chr(c) for c in range(av[0], av[1] + 1) if c < 0x7F)
            elif op is C.CATEGORY:
                chars.update(_category(av))
        pool = sorted(set(PRINTABLE) - chars) if negate else sorted(chars)
        return self.rng.choice(pool or PRINTABLE)


def _category(cat: Any) -> set[str]:
    words = {c for c in PRINTABLE if c.isalnum() or c == "_"}
    table = {
        C.CATEGORY_DIGIT: set("0123456789"),
        C.CATEGORY_NOT_DIGIT: set(PRINTABLE) - set("0123456789"),
        C.CATEGORY_SPACE: {" "},
        C.CATEGORY_NOT_SPACE: set(PRINTABLE),
        C.CATEGORY_WORD: words,
        C.CATEGORY_NOT_WORD: set(PRINTABLE) - words,
    }
    return table.get(cat, set(PRINTABLE))


def entropy(text: str) -> float:
    """Shannon entropy in bits per character, as gitleaks measures a secret."""
    from collections import Counter
    from math import log2

    return -sum(n / len(text) * log2(n / len(text)) for n in Counter(text).values()) \
        if text else 0.0


def _allow_regex(regex: str) -> re.Pattern[str] | None:
    regex = regex.replace(r"\z", r"\Z")
    if "(?i)" in regex[1:]:  # a flag in the middle: Python wants it first
        regex = "(?i)" + regex.replace("(?i)", "")
    try:
        return re.compile(regex)
    except re.error:
        return None


def reported(rule: dict[str, Any], allowlists: list[dict[str, Any]], secret: str,
             match: str) -> bool:
    """Whether gitleaks itself reports a match: its secret has the rule's
    least entropy and no allow-list of the rule's, or the global one, takes
    it. A drawn text gitleaks would not report (an empty or `{{ template }}`
    value of a Kubernetes Secret, a generic value of low entropy, a curl
    `-u user:$PASS`) holds no format to catch."""
    if entropy(secret) < rule.get("entropy", 0):
        return False
    for allow in [*rule.get("allowlists", []), *allowlists]:
        target = match if allow["target"] in ("match", "line") else secret
        checks = []
        if allow["regexes"]:
            checks.append(any(c is not None and c.search(target)
                              for c in map(_allow_regex, allow["regexes"])))
        if allow["stopwords"]:
            checks.append(any(w in secret.lower() for w in allow["stopwords"]))
        if allow["condition"] == "AND":
            # Every check must hold, a path's too: a text has no path.
            if checks and all(checks) and not allow["has_paths"]:
                return False
        elif any(checks):
            return False
    return True


def samples(rule: dict[str, Any], n: int, seed: int,
            allowlists: list[dict[str, Any]] | None = None) -> list[tuple[str, str]]:
    """Up to n (text, secret) pairs the rule's regex matches (checked with
    Python's engine on the drawn text, as far as it can read the regex) and
    gitleaks would report (`reported`)."""
    pattern = go_to_python(rule["regex"])
    parsed = P.parse(pattern)
    try:
        check: re.Pattern[str] | None = re.compile(pattern)
    except re.error:
        check = None
    rng = random.Random(f"{seed}:{rule['id']}")
    out: list[tuple[str, str]] = []
    for _ in range(n * 20):
        if len(out) == n:
            break
        s = Sampler(rng)
        s.draw(parsed)
        text = "".join(s.out)
        if check is not None and not check.search(text):
            continue
        # The rule's secret group, else the first group drawn, else the match.
        group = rule.get("secret_group") or min((g for g in s.spans if g), default=0)
        start, end = s.spans.get(group, (0, len(text)))
        if not reported(rule, allowlists or [], text[start:end], text):
            continue
        secret = text[start:end].strip(" \t\n'\"`")
        if len(secret) < 4:
            secret = text.strip()
        out.append((text, secret))
    return out


def token_samples(rule: dict[str, Any], n: int, seed: int) -> list[tuple[str, str]]:
    """Up to n (text, token) pairs drawn from a trufflehog rule's shape (its
    token format, bench/trufflehog_data.shape; each checked with Python's
    engine): the token is its `secret_group` when the rule names one, else its
    largest group, else the match."""
    pattern = rule["shape"]
    parsed = P.parse(pattern)
    check = re.compile(pattern)
    rng = random.Random(f"{seed}:{rule['id']}")
    out: list[tuple[str, str]] = []
    for _ in range(n * 20):
        if len(out) == n:
            break
        s = Sampler(rng, least_open=16)
        s.draw(parsed)
        text = "".join(s.out)
        if not check.fullmatch(text):
            continue
        group = rule.get("secret_group") or max(
            (g for g in s.spans if g), default=0,
            key=lambda g: s.spans[g][1] - s.spans[g][0])
        start, end = s.spans.get(group, (0, len(text)))
        out.append((text, text[start:end]))
    return out


def trufflehog_missed(redact: Any, n: int, seed: int) -> tuple[int, list[tuple[str, str]]]:
    """How many of trufflehog's token shapes were drawn, and (id, text) of
    each whose token the gate left in a text."""
    data = json.loads(TRUFFLEHOG.read_text())
    missed = []
    for rule in data["rules"]:
        pairs = token_samples(rule, n, seed)
        bad = [text for text, token in pairs if not caught(redact, text, token)]
        if bad or not pairs:
            missed.append((rule["id"], bad[0] if bad else "(not sampled)"))
    return len(data["rules"]), missed


def caught(redact: Any, text: str, secret: str) -> bool:
    for context in ("{}", "run {} now", "{}\n"):
        out, _ = redact(context.format(text))
        if secret in out:
            return False
    return True


def corpus_texts() -> list[str]:
    """Every text the fold hands the redactor in the corpus."""
    from vibe_vault import redact
    from vibe_vault.entries import decode_line
    from vibe_vault.fold import fold
    from vibe_vault.state import Fold

    texts: list[str] = []
    original = redact.Redactor.redact

    def recording(self: redact.Redactor, text: str,
                  found: list[str] | None = None) -> tuple[str, int]:
        # (not fold.shell_secrets' probes: windows of a command's output read
        # to learn what the gate calls a secret, never shown; hiding the value
        # after `Token:` there is their purpose, and what is not as random as
        # a token is not learned)
        if sys._getframe(1).f_globals.get("__name__") != "vibe_vault.fold.shell_secrets":
            texts.append(text)
        return original(self, text, found)

    redact.Redactor.redact = recording  # type: ignore[method-assign]
    try:
        for path in sorted(CORPUS.rglob("*.jsonl")):
            entries = [decode_line(x) for x in path.read_bytes().split(b"\n") if x.strip()]
            fold(Fold(), entries, redact.Redactor())
    finally:
        redact.Redactor.redact = original  # type: ignore[method-assign]
    return texts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=3, help="texts drawn per format")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--show-caught", action="store_true")
    ap.add_argument("--json", action="store_true", help="the figures as JSON")
    args = ap.parse_args()
    from vibe_vault.redact import Redactor
    from vibe_vault.secret_rules import LOOK_ALIKES, RULES
    from vibe_vault.secret_rules import samples as rule_samples

    redactor = Redactor()
    data = json.loads(DATA.read_text())
    missed: list[tuple[str, str]] = []
    unsampled: list[str] = []
    for rule in data["rules"]:
        pairs = samples(rule, args.samples, args.seed, [data["allowlist"]])
        if not pairs:
            unsampled.append(rule["id"])
            continue
        bad = [text for text, secret in pairs if not caught(redactor.redact, text, secret)]
        if bad:
            missed.append((rule["id"], bad[0]))
        elif args.show_caught:
            print(f"  caught {rule['id']}: {pairs[0][0][:100]!r}")
    formats = len(data["rules"]) - len(unsampled)
    share = (formats - len(missed)) / formats if formats else 0.0

    th_rules, th_missed = trufflehog_missed(redactor.redact, args.samples, args.seed)
    own_missed = [r.id for r in RULES for sample in rule_samples(r)
                  if not caught(redactor.redact, sample.text, sample.secret)]
    look_alikes = [*LOOK_ALIKES, *(r.look_alike for r in RULES if r.look_alike)]
    look_hits = [t for t in look_alikes if redactor.redact(t)[1]]
    texts = corpus_texts()
    start = time.perf_counter()
    corpus_hits = [(t, redactor.redact(t)[0]) for t in texts]
    gate_s = time.perf_counter() - start
    # The trigger words found word by word, as every text was before the
    # regex of redact._RootFinder: every text must come out byte for byte
    # the same (the corpus's, each sample, each look-alike).
    word_by_word = Redactor()
    word_by_word._word_chars = -(10 ** 12)
    by_regex = Redactor()
    by_regex._word_chars = 10 ** 12
    own_texts = [s.text for r in RULES for s in rule_samples(r)]
    differ = [t for t in [*texts, *own_texts, *look_alikes]
              if word_by_word.redact(t) != by_regex.redact(t)]
    corpus_hits = [(t, out) for t, out in corpus_hits if out != t]
    floor_start = time.perf_counter()
    for t in texts:
        t.lower()
    floor_s = time.perf_counter() - floor_start

    own_forms = sum(len(r.samples) for r in RULES)
    figures = {
        "gitleaks_commit": data["commit"][:12],
        "formats": formats, "caught": formats - len(missed), "share": round(share, 4),
        "unsampled": unsampled, "missed": [m[0] for m in missed],
        "trufflehog_shapes": th_rules, "trufflehog_caught": th_rules - len(th_missed),
        "trufflehog_missed": [m[0] for m in th_missed],
        "own_forms": own_forms, "own_missed": own_missed,
        "look_alikes": len(look_alikes), "look_alike_hits": look_hits,
        "corpus_texts": len(texts), "corpus_redactions": len(corpus_hits),
        "gate_ms": round(gate_s * 1000, 1), "floor_lower_ms": round(floor_s * 1000, 2),
        "word_finders_differ": len(differ),
    }
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print(f"gitleaks {data['commit'][:12]}: {formats - len(missed)} of {formats} formats "
              f"caught ({share:.1%}), {args.samples} samples each"
              + (f"; {len(unsampled)} not sampled: {', '.join(unsampled)}" if unsampled else ""))
        for rid, text in missed:
            print(f"  missed {rid}: {text[:110]!r}")
        print(f"trufflehog's token shapes: {th_rules - len(th_missed)} of {th_rules} caught")
        for rid, text in th_missed:
            print(f"  missed {rid}: {text[:110]!r}")
        print(f"vibe-vault's table: {own_forms - len(own_missed)} of {own_forms} forms caught"
              + (f"; missed {own_missed}" if own_missed else ""))
        print(f"look-alikes: {len(look_hits)} of {len(look_alikes)} redacted")
        for t in look_hits:
            print(f"  redacted: {t!r}")
        print(f"corpus: {len(corpus_hits)} of {len(texts):,} texts redacted; the gate over them "
              f"took {gate_s * 1000:.1f} ms (lower-casing them: {floor_s * 1000:.2f} ms)")
        for _, out in corpus_hits[:20]:
            print(f"  {out[:140]!r}")
        print(f"trigger words by regex vs word by word: {len(differ)} of "
              f"{len(texts) + len(own_texts) + len(look_alikes):,} texts redacted otherwise")
        for t in differ[:20]:
            print(f"  {t[:140]!r}")
    ok = (share >= 0.95 and not th_missed and not own_missed and not look_hits
          and not corpus_hits and not differ)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
