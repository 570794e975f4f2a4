"""What the redactor finds in the corpus: redactions by kind, with samples to
read, for judging false positives (a redaction that is not a secret).

    python bench/redactions.py              # counts by kind, 3 samples each
    python bench/redactions.py --samples 20

Every corpus transcript (and subagent file) is folded as vv folds it; each text
the redactor changes is recorded with the value it hid and a little context.
"""

from __future__ import annotations

import argparse
import random
import re
from collections import defaultdict
from pathlib import Path

from vibe_vault import redact
from vibe_vault.entries import decode_line
from vibe_vault.fold import fold
from vibe_vault.state import Fold

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
MARKER = re.compile(r"\[REDACTED:([a-z0-9-]+)[^\]]*\]")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=3)
    args = ap.parse_args()
    found: dict[str, list[str]] = defaultdict(list)
    original = redact.Redactor.redact
    seen = [0, 0]  # texts, characters

    def recording(self: redact.Redactor, text: str,
                  secrets: list[str] | None = None) -> tuple[str, int]:
        out, n = original(self, text, secrets)
        seen[0] += 1
        seen[1] += len(text)
        if n:
            for m in MARKER.finditer(out):
                found[m.group(1)].append(out[max(0, m.start() - 60): m.end() + 20])
        return out, n

    redact.Redactor.redact = recording  # type: ignore[method-assign,assignment]
    texts = 0
    for path in sorted(CORPUS.rglob("*.jsonl")):
        entries = [decode_line(x) for x in path.read_bytes().split(b"\n") if x.strip()]
        fold(Fold(), entries, redact.Redactor())
        texts += 1
    redact.Redactor.redact = original  # type: ignore[method-assign]
    rng = random.Random(1)
    total = sum(len(v) for v in found.values())
    print(f"{total} redactions in {seen[0]:,} texts ({seen[1]:,} characters) "
          f"of {texts} corpus files")
    for kind, hits in sorted(found.items(), key=lambda kv: -len(kv[1])):
        print(f"\n{kind}: {len(hits)}")
        for sample in rng.sample(hits, min(args.samples, len(hits))):
            print("   …" + " ".join(sample.split())[:140] + "…")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
