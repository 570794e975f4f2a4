"""How the redaction gate's time grows on adversarial one-line texts, rule by rule.

    python bench/gate_worst.py               # every rule of the table, the worst first
    python bench/gate_worst.py --rule cookie --show 20

A hook gates every text of a transcript, some of them a tool's output of
hundreds of kilobytes on one line. A rule that scans from each occurrence of
its word to the line's end takes time growing with the square of the text
(f43a410: 64 kB of `login: admin / ` took ~2 s). For every rule of the table
(`secret_rules.RULES`, enumerated, so a rule added later is measured too) this
builds texts meant to be its worst case (`adversaries`): its triggers and the
head of each of its samples repeated with separators, unclosed quotes, long
runs of a value's alphabet, nested brackets. Each rule is run alone
(`Redactor.apply_rule`) on each of its texts at 8 kB; its worst text is then
run at 32 kB and 128 kB, and the whole gate on that text too.

Reported per rule: the growth from 32 kB to 128 kB (near 4 is linear, near 16
quadratic), the time at 128 kB, and that time as a multiple of the floor: one
pass over the same text (`text.lower()`, which the gate makes anyway),
measured in the same run; the whole gate's time on that text too. Times are
the process's CPU time, the least of three runs (other processes' load is
not counted). A measurement is stopped at `--cap` seconds.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator
from functools import partial

from vibe_vault.redact import Redactor, within_budget
from vibe_vault.secret_rules import _CHARS, RULES, Rule, expand

# Joins a unit to the next: each begins a new attempt of a rule's pattern.
# Glued on by a letter, a digit, `.`, `_`, `-` or `;` too: a name's rest that
# ran to the end of a run of `ключa…`, `op_session_…`, `пароль.…` and back
# (attack 25 S-11, S-13) was missed by the separators alone.
SEPARATORS = (" ", "=", ": ", " '", ' "', "\t", "", " -", "/", ", ", " | ",
              "a", "1", ".", "_", "-", ";")
# Texts that are nobody's trigger but every rule's trouble: long runs of each
# alphabet a value is drawn from, unclosed quotes, nested brackets, a key's width.
GENERIC = (
    *(chars[:24] for chars in _CHARS.values()),
    "'", '"', "`", "([{<", "[", "{", "\\", "\\n", "%2F", "a b ", "a=b ", "a:b ", "-a ", "--a=",
    "_-", "a.", "://", "@", "/", "\u200b", "é", "ключ ", "A" * 64 + "\n",
    "$y$x=", "Password=;", "k=v\n", "x=$(y)\n",
)


def _units(rule: Rule, seed: int = 5) -> Iterator[tuple[str, str]]:
    """(label, unit) pairs: a text is a unit repeated."""
    seen: set[str] = set()

    def once(label: str, unit: str) -> Iterator[tuple[str, str]]:
        if unit and unit not in seen:
            seen.add(unit)
            yield label, unit

    for trigger in rule.triggers:
        for word in dict.fromkeys((trigger, trigger.strip(), trigger.upper().strip(),
                                   trigger.strip().capitalize())):
            for sep in SEPARATORS:
                yield from once(f"trigger {word!r} + {sep!r}", word + sep)
    import random

    rng = random.Random(f"{seed}:{rule.id}")
    for n, template in enumerate(rule.samples, 1):
        sample = expand(template, rng)
        at = sample.text.find(sample.secret)
        head = sample.text[:at] if at > 0 else sample.text[:max(1, len(sample.text) // 2)]
        secret = sample.secret or "x"
        for label, unit in (
                ("head", head),
                ("head + ' '", head + " "),
                ("head + quote", head + "'"),
                ("head + dquote", head + '"'),
                ("head on one line", head.replace("\n", " ")),
                ("whole on one line + ' '", sample.text.replace("\n", " ") + " "),
                ("head + secret's run", head + secret * 8),
                ("head in capitals", head.upper())):
            yield from once(f"sample {n}'s {label}", unit)
        # The secret's own first characters glued end to end (`eyJhbGcieyJhbGci…`,
        # `eyJeyJ…`, and with dots or spaces): a rule read without its
        # boundary (the gate checks it after a match) would try each
        # occurrence to the run's end (attack 26: 2.7 s at 320 kB).
        for k in (3, 4, 8):
            for sep in ("", ".", " "):
                yield from once(f"sample {n}'s secret's {k} first + {sep!r}", secret[:k] + sep)
    for unit in GENERIC:
        yield from once(f"generic {unit[:12]!r}", unit)


def adversaries(rule: Rule, size: int) -> list[tuple[str, str]]:
    """Texts of `size` characters meant to be `rule`'s worst cases: (label, text).
    A generic text begins with one of the rule's triggers: the gate runs the rule on it."""
    first = rule.triggers[0] + " " if rule.triggers else ""
    return [(label, ((first if label.startswith("generic") else "") + _filled(unit, size))[:size])
            for label, unit in _units(rule)]


def _filled(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def timed(work: Callable[[], object], cap: float, repeat: int = 1) -> float:
    """The least of `repeat` runs of `work`, in seconds of this process's CPU
    (what other processes on a loaded machine take is not counted); `cap` when
    stopped there (wall-clock seconds)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        if within_budget(cap, work) is None:
            return cap
        best = min(best, time.process_time() - start)
    return best


def floor(text: str, repeat: int = 5) -> float:
    """One pass over the text, as the gate makes anyway (lower-casing it)."""
    return timed(text.lower, 10.0, repeat)


def rule_time(redactor: Redactor, i: int, text: str, cap: float, repeat: int = 1) -> float:
    low = text.lower()
    return timed(lambda: redactor.apply_rule(i, text, low), cap, repeat)


def worst_text(redactor: Redactor, i: int, cap: float) -> str:
    """The label of rule `i`'s slowest text: the three slowest at 4 kB, run at 16 kB."""
    rule = RULES[i]
    at_4k = sorted(adversaries(rule, 4_000),
                   key=lambda pair: -rule_time(redactor, i, pair[1], cap))[:3]
    labels = {label for label, _ in at_4k}
    at_16k = [pair for pair in adversaries(rule, 16_000) if pair[0] in labels]
    return max(at_16k, key=lambda pair: rule_time(redactor, i, pair[1], cap))[0]


def growth(redactor: Redactor, i: int, label: str, sizes: tuple[int, ...],
           cap: float) -> tuple[float, int, float]:
    """How rule `i`'s time grows on its text `label` from size to size: the
    growth between the largest two sizes run within `cap` (their ratio is the
    linear growth), the larger of them, and its time."""
    times: list[tuple[int, float]] = []
    for size in sizes:
        text = dict(adversaries(RULES[i], size))[label]
        took = rule_time(redactor, i, text, cap, 3)
        if took >= cap:
            break
        times.append((size, took))
    if len(times) < 2:
        return float("inf"), sizes[0], cap
    (_, before), (size, last) = times[-2], times[-1]
    return last / max(before, 1e-9), size, last


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rule", help="only the rules of this id")
    ap.add_argument("--show", type=int, default=15, help="rules to list, the worst first")
    ap.add_argument("--cap", type=float, default=2.0, help="seconds a measurement may take")
    args = ap.parse_args()
    sizes = (8_000, 32_000, 128_000)
    redactor = Redactor()
    rows = []
    started = time.perf_counter()
    for i, rule in enumerate(RULES):
        if args.rule and rule.id != args.rule:
            continue
        label = worst_text(redactor, i, args.cap)
        grew, size, took = growth(redactor, i, label, sizes, args.cap)
        large = dict(adversaries(rule, sizes[-1]))[label]
        gate_large = timed(partial(redactor.redact, large), args.cap)
        rows.append((grew, size, took, floor(large), gate_large, i, rule.id, label))
    rows.sort(key=lambda row: (-row[0] if row[1] == sizes[-1] else -1e9, -row[2]))
    print(f"{len(rows)} rules, {time.perf_counter() - started:.0f} s; growth of each rule's "
          f"time on its worst text, size to size x4 (linear ~4, quadratic ~16), up to "
          f"{sizes[-1] // 1000} kB; a rule stopped at {args.cap} s is listed first")
    print(f"{'growth':>7} {'kB':>4} {'rule ms':>9} {'xfloor':>8} {'gate ms':>9}"
          "  rule  (worst text)")
    for grew, size, took, t_floor, gate, i, rule_id, label in rows[:args.show]:
        print(f"{grew:7.1f} {size // 1000:4} {took * 1000:9.2f} {took / t_floor:8.0f}"
              f" {gate * 1000:9.1f}  {rule_id} #{i}  ({label})")
    super_linear = [r for r in rows if r[0] > 8 or r[1] < sizes[-1]]
    print(f"super-linear (growth over 8, or over {args.cap} s at {sizes[-1] // 1000} kB): "
          f"{len(super_linear)}" + "".join(f"\n  {r[6]} #{r[5]}: {r[7]}" for r in super_linear))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
