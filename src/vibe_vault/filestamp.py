"""A file as it is, in one number: changed when its size, time or inode is.

How the search index tells a session state it has read from one saved since.
Its own module, import-free: the hooks, the workers and `vv search` use it.
"""

from __future__ import annotations

import os


def of(stat_result: os.stat_result) -> int:
    # (ints hash the same in every run)
    return hash((stat_result.st_size, stat_result.st_mtime_ns, stat_result.st_ino))
