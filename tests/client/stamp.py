"""Copy stdin to a file line by line, each line prefixed with the time it
arrived (milliseconds, monotonic clock) and a tab: the client's stream-json
events carry no times of their own, and hook timings are read from these."""

from __future__ import annotations

import sys
import time


def main() -> None:
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        for line in sys.stdin:
            out.write(f"{time.monotonic() * 1000:.1f}\t{line}")
            out.flush()


if __name__ == "__main__":
    main()
