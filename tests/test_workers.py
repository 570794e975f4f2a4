"""The forked worker pool behind `vv backfill`: every job answered exactly once,
failures reported as such, and no process left behind."""

from __future__ import annotations

import os
import time

import pytest
from msgspec import Struct

from vibe_vault import workers

pytestmark = pytest.mark.skipif(not workers.available(), reason="needs os.fork")


class Result(Struct):
    job: int
    pid: int
    text: str


def square(job: int) -> Result:
    return Result(job=job, pid=os.getpid(), text="x" * (job * 1000))  # some over PIPE_BUF


def test_every_job_answered_once_by_the_workers() -> None:
    jobs = list(range(50))
    got = list(workers.run_forked(square, jobs, 3, Result))
    assert sorted(i for i, _, _ in got) == jobs
    assert all(err == "" and r.job == i and r.text == "x" * (i * 1000) for i, r, err in got)
    pids = {r.pid for _, r, _ in got}
    assert os.getpid() not in pids and 1 <= len(pids) <= 3


def failing(job: int) -> Result:
    if job == 3:
        raise ValueError("bad input")
    return Result(job=job, pid=os.getpid(), text="")


def test_a_job_that_raises_is_reported_and_the_rest_still_run() -> None:
    got = {i: (r, err) for i, r, err in workers.run_forked(failing, list(range(10)), 2, Result)}
    assert sorted(got) == list(range(10))
    assert got[3] == (None, "ValueError: bad input")
    assert all(got[i][0] is not None for i in got if i != 3)


def dying(job: int) -> Result:
    if job == 2:
        os._exit(9)  # a worker killed mid-job (OOM killer, SIGKILL)
    time.sleep(0.01)
    return Result(job=job, pid=os.getpid(), text="")


def test_a_worker_that_dies_loses_only_its_job() -> None:
    got = {i: (r, err) for i, r, err in workers.run_forked(dying, list(range(12)), 2, Result)}
    assert sorted(got) == list(range(12))
    assert got[2][0] is None and "died" in got[2][1]
    # The other worker takes over the rest of the queue.
    assert all(got[i][0] is not None for i in got if i != 2)


def slow(job: int) -> Result:
    time.sleep(0.05 if job else 0)
    return Result(job=job, pid=os.getpid(), text="")


def test_jobs_are_taken_in_the_order_given() -> None:
    got = [i for i, _, _ in workers.run_forked(slow, list(range(8)), 1, Result)]
    assert got == list(range(8))


def test_stopping_early_leaves_no_worker_behind() -> None:
    gen = workers.run_forked(slow, list(range(40)), 2, Result)
    first = next(gen)
    pids = [first[1].pid]
    gen.close()
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # already reaped: no zombie, no orphan


class Stamped(Struct):
    job: int
    done_at: float


def stamped(job: int) -> Stamped:
    time.sleep(0.01)
    return Stamped(job=job, done_at=time.time())


def test_workers_keep_going_while_the_caller_is_busy() -> None:
    """The caller writing a batch to the database for a while does not leave
    the workers idle: jobs queued ahead, results waiting in the pipe."""
    gen = workers.run_forked(stamped, list(range(40)), 2, Stamped)
    first = next(gen)
    time.sleep(1.0)  # busy elsewhere
    back = time.time()
    rest = list(gen)
    assert {i for i, _, _ in [first, *rest]} == set(range(40))
    done_meanwhile = [r for _, r, _ in rest if r.done_at < back]
    assert len(done_meanwhile) >= 30, len(done_meanwhile)


@pytest.mark.corpus
def test_transcript_starts_read_by_workers_equal_one_process(monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """A first backfill reads the start of every new transcript (for the link
    guesses) in worker processes: what they find is what one process finds,
    in the order asked."""
    from conftest import main_files
    from vibe_vault import backfill

    paths = [str(p) for p in main_files()]
    one = backfill._sniff_all(paths, 1)
    monkeypatch.setattr(backfill, "SNIFF_CHUNK", 2)  # forked only past 4 chunks
    spread = backfill._sniff_all(paths, 2)
    assert len(paths) > 8 and spread == one
    assert any(s.answered for s in one) and any(not s.answered for s in one)


def test_in_order_gives_the_jobs_results_in_their_order_and_redoes_a_failed_one() -> None:
    """Results wait for those before them, whichever worker was quicker; a job
    whose worker raised is done again by `again`, here."""
    jobs = list(range(40))
    slow_first = [40 - j for j in jobs]  # the first jobs finish last

    def work(job: int) -> Result:
        time.sleep(slow_first[job] / 4000)
        return failing(job)

    got = list(workers.in_order(work, jobs, 3, Result,
                                again=lambda job: Result(job=job, pid=os.getpid(), text="again")))
    assert [r.job for r in got] == jobs
    assert got[3].text == "again" and got[3].pid == os.getpid()
    assert all(r.pid != os.getpid() for r in got if r.job != 3)
