"""argparse's help layout without its cost: the stock formatter imports
shutil (and with it bz2, lzma, zlib) on every `add_argument` just to learn the
terminal's width, ~2 ms of a command that should answer in tens."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable


def _columns() -> int:
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 80


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs as written; the width found without shutil."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         width if width is not None else _columns() - 2)


def count_between(low: int, high: int) -> Callable[[str], int]:
    """An argparse `type` for a whole number in [low, high]: a number past what
    anything downstream can hold (SQLite's 64 bits, a worker pool) is refused
    with one line of usage, never a traceback."""

    def parse(text: str) -> int:
        text = text.strip()
        if not text.isascii() or not text.lstrip("+-").isdigit() or len(text) > 12:
            raise argparse.ArgumentTypeError(f"expected a whole number from {low} to {high}")
        value = int(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not from {low} to {high}")
        return value

    parse.__name__ = "number"  # argparse names the type in its messages
    return parse
