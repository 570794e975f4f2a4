"""A file as it is, in one number: changed when its size, time or inode is.

How the search index tells a session state it has read from one saved since.
Its own module, import-free: the hooks, the workers and `vv search` use it.
"""

from __future__ import annotations

import os


def of(st: os.stat_result) -> int:
    return hash((st.st_size, st.st_mtime_ns, st.st_ino))  # ints hash the same in every run
