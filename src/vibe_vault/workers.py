"""Run a batch of jobs in forked worker processes; results as they finish.

`vv backfill` spreads sessions over the cores with this instead of
`multiprocessing.Pool`, whose imports and start-up took ~20 ms before the
first job could start, with every core idle (2-3% of a cold backfill of
400 MB on two cores; this takes ~1 ms). Jobs are
inherited through `fork`, so only a job's index crosses the shared task pipe
(4-byte writes and reads, which a pipe keeps whole); each worker sends its
results back on a pipe of its own, since messages longer than PIPE_BUF from
several writers could interleave. Jobs are handed out a few at a time in
their given order, so the caller decides what runs first.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
from collections.abc import Callable, Iterator, Sequence

TYPE_CHECKING = False  # typing costs a caller that only asks available() ~2 ms
if TYPE_CHECKING:
    from typing import Any

_INDEX = 4  # bytes of a job index on the task pipe
_LEN = 4  # bytes of a result message's length
AHEAD = 64  # jobs per worker waiting in the task pipe (4 bytes each)
RESULT_PIPE = 1 << 20  # a result pipe's size where it can be set (Linux): results
# a worker can leave there while the parent is busy, rather than wait to write;
# all of them together within PIPES_TOTAL, a quarter of Linux's default per-user
# soft limit (past it, every new pipe of the user's gets one page).
PIPES_TOTAL = 16 << 20


def available() -> bool:
    return hasattr(os, "fork")


def run_forked(work: Callable[[Any], Any], jobs: Sequence[Any], workers: int,
               result_type: Any) -> Iterator[tuple[int, Any, str]]:
    """Yield (job index, result, "") for each job, in the order they finish,
    or (job index, None, error) when the job raised or its worker died.

    `result_type` is what `work` returns, for msgspec to send it back whole.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    pool = _Pool(jobs)
    try:
        count = min(workers, len(jobs))
        for _ in range(count):
            pool.fork(work, max(1 << 16, min(RESULT_PIPE, PIPES_TOTAL // count)))
        pool.close_reader()
        yield from pool.collect(result_type)
    finally:
        pool.close_reader()
        pool.close_tasks()
        for pid in pool.children.values():  # stopped early (an error, Ctrl-C)
            _kill(pid)
        for fd, pid in pool.children.items():
            os.close(fd)
            os.waitpid(pid, 0)


def in_order(work: Callable[[Any], Any], jobs: Sequence[Any], workers: int, result_type: Any,
             again: Callable[[Any], Any] | None = None) -> Iterator[Any]:
    """`work(job)` of each job, in the jobs' order, done by forked workers
    (where `available()`): a result that comes early waits for those before
    it, so what the caller makes of them does not depend on which worker was
    quicker. A job whose worker raised or died is done here by `again`
    (default: `work`). `work` must not return None."""
    redo = again or work
    early: dict[int, Any] = {}
    ahead = 0
    for i, result, _ in run_forked(work, jobs, workers, result_type):
        early[i] = result if result is not None else redo(jobs[i])
        while ahead in early:
            yield early.pop(ahead)
            ahead += 1


class _Pool:
    def __init__(self, jobs: Sequence[Any]) -> None:
        self.jobs = jobs
        self.tasks_r, self.tasks_w = os.pipe()
        self.children: dict[int, int] = {}  # result pipe -> pid
        self.sent = 0

    def fork(self, work: Callable[[Any], Any], pipe_size: int) -> None:
        out_r, out_w = os.pipe()
        _grow(out_w, pipe_size)
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the caller's code
            code = 0
            try:
                os.close(self.tasks_w)  # else the task pipe never reads as closed
                os.close(out_r)
                for fd in self.children:
                    os.close(fd)
                _serve(work, self.jobs, self.tasks_r, out_w)
            except BaseException:  # a worker must never unwind into the caller's code
                code = 1
            finally:
                os._exit(code)
        os.close(out_w)
        self.children[out_r] = pid

    def send(self, n: int) -> None:
        """Put the next `n` jobs in the task pipe; close it after the last."""
        end = min(self.sent + n, len(self.jobs))
        if end > self.sent:
            os.write(self.tasks_w, b"".join(i.to_bytes(_INDEX, "little")
                                            for i in range(self.sent, end)))
            self.sent = end
        if self.sent == len(self.jobs):
            self.close_tasks()  # workers stop when the pipe runs dry

    def close_reader(self) -> None:
        if self.tasks_r >= 0:  # the workers have their own copies
            os.close(self.tasks_r)
            self.tasks_r = -1

    def close_tasks(self) -> None:
        if self.tasks_w >= 0:
            os.close(self.tasks_w)
            self.tasks_w = -1

    def collect(self, result_type: Any) -> Iterator[tuple[int, Any, str]]:
        import msgspec  # here, not at import: asking available() costs the caller nothing

        decode = msgspec.msgpack.Decoder(tuple[int, result_type | None, str]).decode
        # Jobs queued well ahead, so no worker waits while this process writes a
        # batch to the database (a fraction of a second); the order still holds.
        self.send(AHEAD * len(self.children))
        buffers = {fd: bytearray() for fd in self.children}
        finished: set[int] = set()
        poll = select.poll()  # not select(): no limit on descriptor numbers
        for fd in self.children:
            poll.register(fd, select.POLLIN)
        while self.children:
            for fd, _ in poll.poll():
                data = os.read(fd, 1 << 16)
                if not data:  # the worker exited
                    poll.unregister(fd)
                    os.waitpid(self.children.pop(fd), 0)
                    os.close(fd)
                    continue
                buf = buffers[fd]
                buf += data
                while len(buf) >= _LEN:
                    n = int.from_bytes(buf[:_LEN], "little")
                    if len(buf) < _LEN + n:
                        break
                    i, result, error = decode(bytes(buf[_LEN : _LEN + n]))
                    del buf[: _LEN + n]
                    finished.add(i)
                    self.send(1)
                    yield i, result, error
        # A worker that died took its current job with it; if all died, the rest never ran.
        for i in range(len(self.jobs)):
            if i not in finished:
                yield i, None, "not processed: a worker process died"


def _serve(work: Callable[[Any], Any], jobs: Sequence[Any], tasks: int, out: int) -> None:
    # Ctrl-C reaches every process of the terminal: the parent decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import msgspec

    encode = msgspec.msgpack.Encoder().encode
    while True:
        data = os.read(tasks, _INDEX)
        if len(data) < _INDEX:
            return  # the task pipe is closed and empty: no more jobs
        i = int.from_bytes(data, "little")
        try:
            msg = encode((i, work(jobs[i]), ""))
        except Exception as exc:  # reported as this job's failure
            msg = encode((i, None, f"{type(exc).__name__}: {exc}"))
        view = memoryview(len(msg).to_bytes(_LEN, "little") + msg)
        while view:
            view = view[os.write(out, view) :]


def _kill(pid: int) -> None:
    with contextlib.suppress(OSError):  # already gone
        os.kill(pid, signal.SIGTERM)


def _grow(fd: int, size: int) -> None:
    import fcntl

    with contextlib.suppress(OSError, AttributeError):  # not Linux, or over the user's limit
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)
