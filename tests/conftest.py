"""Shared test helpers: the corpus, an isolated environment, running `vv`."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
# The shared corpus of real transcripts, beside the project: read in place, never copied.
CORPUS = ROOT.parent / "shared" / "corpus"
# Sessions recorded from the real client against tests/client/fake_api.py
# (tests/fixtures/record.py re-records them): they come with the project.
FIXTURES = ROOT / "tests" / "fixtures"
# What the slow tiers need; CI sets VV_REQUIRE_CORPUS=1 and VV_REQUIRE_CLIENT=1 to make
# a missing one a failure instead of a skip.
CLIENT_CACHE = Path.home() / ".cache" / "vibe-vault-tests"
NETNS_RUN = ROOT.parent / "shared" / "tools" / "claude-client" / "netns-run"
# What each tier lacks here, and how many of its tests were left out for it.
MISSING = pytest.StashKey[dict[str, str]]()
LEFT_OUT = pytest.StashKey[dict[str, int]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", help="run the long trials in full")


# -- on every core ------------------------------------------------------------------
#
# With pytest-xdist installed (the `test` extra brings it) and two cores or more, a run
# that names no `-n` runs on one worker a core (`-n auto`): the suite is many small
# independent tests, so it takes about half the time on two. It is set here, not in
# addopts, so that the same command still works where xdist is not installed. `-n 0` or
# `-p no:xdist` runs in this one process. The real-client tier stays on one worker, in
# its order, as it runs alone: each client runs in a network namespace of its own (so
# the fake API's port is not shared), but its hooks' median time is checked, and two
# clients at once on two cores would measure the machine rather than the hooks.
# Not yet where CI requires the corpus and client tiers (VV_REQUIRE_CORPUS or
# VV_REQUIRE_CLIENT set): those still run in one process unless `-n auto` is given,
# until a whole CI run in parallel has been seen to pass as often as one in series.
_SPREAD = pytest.StashKey[bool]()


def _is_client_test(nodeid: str) -> bool:
    return nodeid.split("::", 1)[0].startswith("tests/client/")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    option = config.option
    if (config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput")
            and getattr(option, "numprocesses", 0) is None and option.dist == "no"
            and not option.collectonly and not config.getoption("usepdb", False)
            and "1" not in (os.environ.get("VV_REQUIRE_CORPUS"),
                            os.environ.get("VV_REQUIRE_CLIENT"))
            and len(os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity")
                    else range(os.cpu_count() or 1)) >= 2):
        option.numprocesses = "auto"
    if getattr(option, "numprocesses", None) and option.dist == "no":
        config.stash[_SPREAD] = True  # (-n given, no --dist: the client tier kept whole)


@pytest.hookimpl(optionalhook=True, tryfirst=True)  # (before xdist's own)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """(xdist's controller) Each test is a unit of its own, but the real-client tier is
    one unit. (Not xdist's `xdist_group` marker: pytest 9 ignores the group name that
    xdist 3.8 appends to a test's id, so the tests of a group were spread anyway.)"""
    if not config.stash.get(_SPREAD, False):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Scheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return "tests/client/" if _is_client_test(nodeid) else nodeid

    return Scheduling(config, log)


# Every trial rather than a sample (the `thorough` fixture, `examples`): set at configure.
THOROUGH = [False]


def pytest_configure(config: pytest.Config) -> None:
    THOROUGH[0] = (bool(config.getoption("--slow"))
                   or os.environ.get("VV_REQUIRE_CORPUS") == "1")
    if os.environ.get("VV_REQUIRE_CORPUS") == "1" and os.environ.get("VV_NEW_DRAWS") != "1":
        # CI draws the same examples each run of the same code (a hash of each
        # test), so a red run is the same run again and a rehearsal says what
        # CI will; `--slow` without it, and VV_NEW_DRAWS=1, draw new ones each
        # run to find more. (Loaded before the test modules are read: their
        # `@settings` take the rest from it.)
        from hypothesis import settings

        settings.register_profile("ci-fixed-draws", derandomize=True)
        settings.load_profile("ci-fixed-draws")
    if not hasattr(config, "workerinput"):  # (xdist's workers inherit the folder)
        _compile_once(config)
        _utf8_table_known()
    config.addinivalue_line(
        "markers", "corpus: reads the shared corpus of real transcripts (../shared/corpus)")
    config.stash[MISSING] = {}
    corpus, client = missing_corpus(), missing_client()
    if corpus:
        if os.environ.get("VV_REQUIRE_CORPUS") == "1":
            raise pytest.UsageError(f"VV_REQUIRE_CORPUS=1 but {corpus}")
        config.stash[MISSING]["corpus"] = corpus
    if client:
        if os.environ.get("VV_REQUIRE_CLIENT") == "1":
            raise pytest.UsageError(f"VV_REQUIRE_CLIENT=1 but {client}")
        config.stash[MISSING]["client"] = client


# -- `vv` processes start from bytecode ----------------------------------------------
#
# Every `vv` a test starts as a process imports vibe_vault. Where Python writes no
# bytecode (PYTHONDONTWRITEBYTECODE: Env sets it, so that a test's `vv` writes nothing
# into the source tree, and some shells set it for everything), each such process
# compiled every module it imports from source again: ~0.13 s of CPU of a Stop's 0.2,
# some hundreds of times a run. The package, and what it imports, is compiled once per
# run instead (tests/bytecode.py, in the background as the run starts) into a folder
# of the run's own, which Env's processes read their bytecode from
# (PYTHONPYCACHEPREFIX), as an installed `vv` has its bytecode from pip: where a
# process finds its bytecode is all that changes. A module edited meanwhile no longer
# matches its bytecode's stamp and is compiled from source, as before; so is one not
# compiled yet. The test processes themselves keep their own bytecode (a prefix is
# where a process looks for all of it). A prefix the user set is left as it is.
BYTECODE = "VV_TEST_BYTECODE"  # (the folder, for Env; VV_ keeps it from `vv` itself)
_COMPILING = pytest.StashKey[tuple[str, "subprocess.Popen[bytes]"]]()


def _compile_once(config: pytest.Config) -> None:
    import tempfile

    if os.environ.get(BYTECODE) or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    folder = tempfile.mkdtemp(prefix="vv-test-bytecode-")
    os.environ[BYTECODE] = folder  # (before xdist starts its workers, which inherit it)
    config.stash[_COMPILING] = folder, subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "bytecode.py"), folder],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _COMPILING in config.stash:
        folder, compiling = config.stash[_COMPILING]
        with contextlib.suppress(subprocess.TimeoutExpired):
            compiling.wait(timeout=60)
        os.environ.pop(BYTECODE, None)
        shutil.rmtree(folder, ignore_errors=True)


# -- hypothesis's table of the characters UTF-8 encodes ------------------------------
#
# `st.text()` draws from the characters UTF-8 can encode. Hypothesis finds them by
# encoding each of the 1,114,112 code points, ~2.3 s of CPU, then keeps the answer in
# its folder (.hypothesis/unicode_data/<version>/codec-v2-utf-8.json.gz). A fresh clone
# has no such folder, so each xdist worker worked it out again: some 5 s of a first
# run's ~85 s of CPU. The answer is what UTF-8 is: every code point but the surrogates
# (U+D800..U+DFFF), each decoding back to itself. It is written there, in hypothesis's
# own form, before the workers start; a table already there is left as it is, and one
# that hypothesis no longer reads (another name, another form) is worked out as before.
_UTF8_TABLE = [[[0, 0xD7FF], [0xE000, 0x10FFFF]], []]  # [encodable, not round-tripping]


def _utf8_table_known() -> None:
    import gzip
    import tempfile
    import unicodedata

    with contextlib.suppress(Exception):  # (another hypothesis: it works it out itself)
        from hypothesis.configuration import storage_directory

        folder = storage_directory("unicode_data", unicodedata.unidata_version,
                                   intent_to_write=False)
        path = folder.path / "codec-v2-utf-8.json.gz"
        if path.exists():
            return
        folder.create_if_missing()  # (as hypothesis makes it: with its .gitignore)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=1) as out:
            out.write(json.dumps(_UTF8_TABLE).encode())
        os.replace(temporary, path)  # (a worker never reads half a table)


# -- no test reads the shared corpus unmarked -----------------------------------------
#
# A test that reads ../shared/corpus without the `corpus` marker passes here and fails
# on a fresh clone (where the corpus tier is left out, but it is not). An audit hook
# sees every file the test process opens, lists or copies, and every command it starts;
# one naming a corpus path while an unmarked test runs fails that test, here.

_CORPUS_PREFIXES = tuple({str(CORPUS) + os.sep, os.path.realpath(CORPUS) + os.sep})
_PATH_EVENTS = {"open": 1, "os.listdir": 1, "os.scandir": 1, "shutil.copyfile": 1,
                "shutil.copytree": 1, "glob.glob": 1}  # event -> how many arguments are paths
_RUNNING: list[pytest.Item] = []  # the test being set up or run (at most one)
_UNMARKED_READS = pytest.StashKey[list[str]]()


def _corpus_path(value: object) -> str:
    """The path, when `value` names something in the shared corpus ('' otherwise)."""
    if isinstance(value, (str, bytes, os.PathLike)):
        try:
            path = os.fsdecode(value)
        except (TypeError, ValueError):
            return ""
        if "corpus" in path and any(
                (whole + os.sep).startswith(_CORPUS_PREFIXES)
                for whole in (os.path.abspath(path), os.path.realpath(path))):
            return path
    return ""


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _RUNNING:
        return
    count = _PATH_EVENTS.get(event)
    if count is not None:
        named = [_corpus_path(a) for a in args[:count]]
    elif event == "subprocess.Popen":  # (executable, args, cwd, env)
        argv = args[1] if isinstance(args[1], (list, tuple)) else [args[1]]
        named = [_corpus_path(a) for a in [*argv, args[2]]]
    else:
        return
    item = _RUNNING[0]
    for path in named:
        if path and item.get_closest_marker("corpus") is None:
            item.stash.setdefault(_UNMARKED_READS, []).append(f"{event} {path}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    _RUNNING[:] = [item]
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    try:
        result = yield
    finally:
        _RUNNING.clear()
    reads = item.stash.get(_UNMARKED_READS, [])
    if reads:
        pytest.fail(f"{item.nodeid} reads the shared corpus but is not marked "
                    f"@pytest.mark.corpus (it fails wherever the corpus is missing): "
                    f"{reads[0]}" + (f" and {len(reads) - 1} more" if len(reads) > 1 else ""),
                    pytrace=False)
    return result


def pytest_runtest_logfinish() -> None:
    _RUNNING.clear()  # (a test skipped in its setup has no call)
    _FIRST_CASE.clear()  # (its first generated case, if any, is over)


def pytest_sessionstart(session: pytest.Session) -> None:
    sys.addaudithook(_audit)  # process-wide and for good: it does nothing between tests


def missing_corpus() -> str:
    """What the shared-corpus tests lack here ('' when nothing)."""
    if not CORPUS.is_dir() or not any(CORPUS.rglob("*.jsonl")):
        return f"the shared corpus is missing at {CORPUS}"
    return ""


def missing_client() -> str:
    """What the real-client tier (tests/client/) lacks here ('' when nothing)."""
    lacks = []
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        lacks.append("root (for a loopback-only network namespace)")
    if not NETNS_RUN.exists():
        lacks.append(str(NETNS_RUN))
    # (VV_CLIENT_CACHE: the folder holding a claude-code-<version>/ per client)
    cached = [*CLIENT_CACHE.glob("*/node_modules/.bin/claude"),
              *Path(os.environ.get("VV_CLIENT_CACHE") or CLIENT_CACHE).glob(
                  "*/node_modules/.bin/claude")]
    if shutil.which("npm") is None and not any(p.exists() for p in cached):
        lacks.append(f"npm (or a client installed under {CLIENT_CACHE})")
    return "the real-client tier needs " + ", ".join(lacks) if lacks else ""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out the tiers whose inputs are missing, said once each at the end."""
    missing = config.stash[MISSING]
    client_dir = Path(__file__).resolve().parent / "client"
    kept, dropped, left = [], [], {"corpus": 0, "client": 0}
    for item in items:
        tier = ("client" if client_dir in Path(str(item.path)).parents
                else "corpus" if item.get_closest_marker("corpus") else "")
        if tier in missing:
            left[tier] += 1
            dropped.append(item)
        else:
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    config.stash[LEFT_OUT] = left
    if hasattr(config, "workeroutput"):  # an xdist worker: the controller says it
        config.workeroutput["vv_left_out"] = left


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """(xdist's controller) Each worker collected the whole run: take its counts."""
    left = getattr(node, "workeroutput", {}).get("vv_left_out")
    if left is not None:
        node.config.stash[LEFT_OUT] = left


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    missing, left = config.stash[MISSING], config.stash.get(LEFT_OUT, {})
    for tier, variable in (("corpus", "VV_REQUIRE_CORPUS"), ("client", "VV_REQUIRE_CLIENT")):
        if left.get(tier):
            terminalreporter.write_line(
                f"skipped {left[tier]} tests: {missing[tier]} ({variable}=1 makes this a failure)")


def corpus_files() -> list[Path]:
    return sorted(CORPUS.rglob("*.jsonl"))


def main_files() -> list[Path]:
    """Corpus transcripts that are sessions (not subagent files)."""
    return [
        p for p in corpus_files()
        if p.parent.name != "subagents" and not p.name.startswith("agent-")
    ]


# -- `vv` inside this process ---------------------------------------------------------
#
# What vibe_vault keeps at module level between calls (caches by folder, session or
# redactor; settings a command sets), with the value a new process starts with. A
# `vv` process starts without any of it; `run_here` restores each before a call, so
# a call in this process sees what a new process would, whatever ran before it.
# test_in_process.py fails on a module-level cache that is in neither this table
# nor its own list of those that are pure (a function of their arguments alone).
PROCESS_STATE: dict[str, object] = {
    "vibe_vault.archive._kills": [0],  # (VV_TEST_ARCHIVE_KILL, read at import: see run_here)
    "vibe_vault.backfill._cfg": None,  # a backfill's config, for its workers
    "vibe_vault.fold.context._SHARED_NAMES": {},  # keyed by id(redactor): reused addresses
    "vibe_vault.line_key.load": functools.cache,  # the key by state folder (one may be removed)
    "vibe_vault.log.IN_COMMAND": False,  # set by a command: a hook then says nothing on stderr
    "vibe_vault.note._CHECKED_FOLDERS": set(),
    "vibe_vault.note._MOVED": {},  # session -> note path, one scan of the vault
    "vibe_vault.project._NAMES": {},  # by cwd, from its git config
    "vibe_vault.session._ENSURED": set(),  # state folders made
    "vibe_vault.session._LAST": [None],  # the last update's state, held until the next
    "vibe_vault.shared_secrets._cache": {},  # the shared keys by state folder, as last read
    "vibe_vault.times._LOOKED_UP": [True],
    "vibe_vault.times._ZONE": [None],
    "vibe_vault.times._ZONE_NAME": [""],
    "vibe_vault.vault._project_folders": {},
}


def fresh_process() -> None:
    """Put vibe_vault's process-wide state back as a new process has it
    (modules not imported yet have none to put back)."""
    for name, initial in PROCESS_STATE.items():
        module_name, attribute = name.rsplit(".", 1)
        module = sys.modules.get(module_name)
        if module is None:
            continue
        held = getattr(module, attribute)
        if initial is functools.cache:
            held.cache_clear()
        elif isinstance(held, list):
            held[:] = initial  # (in place: other modules may hold the same object)
        elif isinstance(held, (dict, set)):
            held.clear()
            held.update(initial)
        else:
            setattr(module, attribute, initial)


def run_here(argv: list[str], env: dict[str, str], stdin: bytes = b"",
             cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """`vv ARGV[1:]` run by `vibe_vault.cli.main` in this process, as `vv` runs as
    a process: `env` as the whole environment, `cwd` as the working folder, stdin
    a pipe holding `stdin`, stdout and stderr files (so that they have a file
    descriptor, as a pipe does); their bytes and the exit code returned."""
    import tempfile
    import threading

    from vibe_vault import cli

    # A kill point ends the process it is in: here, the test run's.
    assert "VV_TEST_ARCHIVE_KILL" not in env, "a kill point needs `vv` as a process"
    import gc

    saved_env, saved_cwd, collecting = dict(os.environ), os.getcwd(), gc.isenabled()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    read_end, write_end = os.pipe()

    def feed() -> None:
        view = memoryview(stdin)
        # (BrokenPipeError: the command left some unread, as a process may)
        with contextlib.suppress(BrokenPipeError):
            while view:
                view = view[os.write(write_end, view):]
        os.close(write_end)

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        os.environ.clear()
        os.environ.update(env)
        time.tzset()
        fresh_process()
        if cwd is not None:
            os.chdir(cwd)
        # (closed below; as Python opens them: stderr never fails to encode)
        sys.stdin = open(read_end, encoding="utf-8")  # noqa: SIM115
        sys.stdout = open(out.fileno(), "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(err.fileno(), "w", encoding="utf-8",  # noqa: SIM115
                          errors="backslashreplace", closefd=False)
        try:
            try:
                code = cli.main(argv[1:])
            except SystemExit as exit_:  # argparse's usage errors and --help
                code = exit_.code if isinstance(exit_.code, int) else 1
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            for stream in (sys.stdin, sys.stdout, sys.stderr):
                stream.close()
            sys.stdin, sys.stdout, sys.stderr = saved_streams
            feeder.join()
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)
            time.tzset()
            if collecting:
                gc.enable()  # (the hook and search turn collections off)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(argv, code, out.read(), err.read())


# The deadlines a test home's hooks work to. `vv hook` stops reading at its deadline
# (3 s; 1.2 s at SessionEnd) and leaves the rest to the next hook: on a loaded machine
# (CI runs the suite in series on 2 cores, some 3,000 s) a test that wants one hook to
# read a whole session would fail for the load, not for vv. So every home's config.toml
# gives its hooks five minutes (`Env.configure`: a Stop of test_safety's planted
# secrets took more than 60 s at load 20 on 2 cores); a test of the deadline itself
# names its own, which is kept. `vv` as a process is given twice as long (HOOK_WAIT).
GENEROUS_DEADLINES = {"hook_deadline": 300.0, "session_end_deadline": 300.0}
HOOK_WAIT = 600.0


class Env:
    """An isolated home for `vv`: its own vault, state dir, config and Claude dir.
    Its config.toml is made with it, holding `GENEROUS_DEADLINES`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.vault = root / "vault"
        self.state = root / "state"
        self.claude = root / "claude"
        self.env = {
            k: v for k, v in os.environ.items()
            if not k.startswith(("VV_", "CLAUDE", "XDG_"))
        }
        self.env.update(
            VV_VAULT=str(self.vault),
            VV_STATE_DIR=str(self.state),
            VV_CONFIG=str(root / "config.toml"),
            CLAUDE_CONFIG_DIR=str(self.claude),
            HOME=str(root / "home"),
            PYTHONDONTWRITEBYTECODE="1",
            TZ="UTC",  # notes tell times in the system's zone: the same one on every machine
        )
        if os.environ.get(BYTECODE):  # (the run's bytecode of vibe_vault: see BYTECODE)
            self.env["PYTHONPYCACHEPREFIX"] = os.environ[BYTECODE]
        # `vv` and `hook` run in this process (`vv_here`): set for the generated
        # cases of a test but its first (`in_process`), never where a process
        # is killed, timed or watched.
        self.here = False
        self.configure()

    def configure(self, text: str = "") -> None:
        """The home's config.toml: `text`, and each of `GENEROUS_DEADLINES` it
        does not set itself (a test of the deadline keeps its own)."""
        given = {m.group(1) for m in re.finditer(r"(?m)^\s*(\w+)\s*=", text)}
        lines = "".join(f"{key} = {value}\n" for key, value in GENEROUS_DEADLINES.items()
                        if key not in given)
        self.root.mkdir(parents=True, exist_ok=True)
        # (first: a key after a `[table]` line would be the table's)
        (self.root / "config.toml").write_text(lines + text)

    def vv(self, *args: str, stdin: bytes | None = None, timeout: float = HOOK_WAIT,
           cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
        """`vv ARGS` as a user or Claude Code runs it: a process of its own
        (in this one, `vv_here`, when `here` is set)."""
        if self.here or (_FIRST_CASE and _run_before(args, stdin, self.env)):
            return self.vv_here(*args, stdin=stdin or b"", cwd=cwd)
        return subprocess.run(
            [sys.executable, "-m", "vibe_vault", *args],
            input=stdin if stdin is not None else b"",
            capture_output=True,
            env=self.env,
            cwd=cwd,
            timeout=timeout,
            check=False,
        )

    def vv_here(self, *args: str, stdin: bytes = b"",
                cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
        """`vv` run inside this process: as `vv` (the same arguments, environment,
        working folder and stdin, a pipe; stdout and stderr captured; the exit
        code), without starting Python and importing vibe_vault again (~0.17 s
        of CPU a call). What vibe_vault keeps in the process between calls is
        cleared first (`fresh_process`), as a new process starts without it;
        test_in_process runs commands both ways and compares all they leave.
        For tests whose promise is what `vv` answers, not how its process
        starts, exits or is killed (those use `vv`)."""
        return run_here(["vv", *args], self.env, stdin, cwd)

    def hook_here(self, event: dict[str, object] | bytes) -> subprocess.CompletedProcess[bytes]:
        """`vv hook` run inside this process (as `vv_here`), the event as its stdin."""
        return self.vv_here("hook", stdin=event if isinstance(event, bytes)
                            else json.dumps(event).encode())

    def traces(self, secret: str, sid: str, here: bool = False) -> list[str]:
        """Where `secret` is seen: each file under the vault and the state dir
        (the database included) holding it as written or JSON-escaped, and each
        of `vv search` (plain and --json) and `vv show` of the session printing
        it. The privacy tests' one oracle: the value the test planted. `here`
        runs the three commands in this process (`vv_here`), for the many
        generated cases whose end-to-end proof is one case run as processes."""
        needle, escaped = secret.encode(), json.dumps(secret)[1:-1].encode()
        found = [str(p) for root in (self.vault, self.state) if root.exists()
                 for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()
                 and (needle in (data := p.read_bytes()) or escaped in data)]
        run = self.vv_here if here else self.vv
        for args in (["search", secret], ["search", "--json", secret], ["show", sid[:8]]):
            r = run(*args)
            if needle in r.stdout + r.stderr:
                found.append("vv " + " ".join(args))
        return found

    def hook(self, event: dict[str, object] | bytes,
             timeout: float = HOOK_WAIT) -> subprocess.CompletedProcess[bytes]:
        data = event if isinstance(event, bytes) else json.dumps(event).encode()
        return self.vv("hook", stdin=data, timeout=timeout)

    def transcript(self, sid: str, lines: list[bytes], folder: str = "-srv-app") -> Path:
        """Session `sid`'s transcript, these JSONL lines, where Claude Code
        keeps it (a project's folder in the Claude dir)."""
        path = self.claude / "projects" / folder / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(line + b"\n" for line in lines))
        return path

    def stop(self, sid: str, transcript: Path, cwd: str = "/srv/app", here: bool = False) -> None:
        """The Stop hook on that session, as Claude Code sends it (`vv hook` as
        a process, or `here` in this one); it answers 0."""
        event = {"hook_event_name": "Stop", "session_id": sid,
                 "transcript_path": str(transcript), "cwd": cwd}
        r = self.hook_here(event) if here else self.hook(event)
        assert r.returncode == 0, r.stderr

    def config(self) -> Any:
        """The Config `vv` runs with here."""
        from vibe_vault.config import Config

        return Config(vault=str(self.vault), state_dir=str(self.state),
                      projects_root=str(self.claude / "projects"),
                      config_file=str(self.root / "config.toml"))

    def registry(self) -> Any:
        """Every record the registry holds (a Registry)."""
        from vibe_vault import registry

        return registry.load(self.config())

    def notes(self) -> dict[str, str]:
        """Session notes by path relative to the vault."""
        return {
            p.relative_to(self.vault).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(self.vault.glob("Projects/*/sessions/*.md"))
        }

    def all_notes(self) -> dict[str, str]:
        """Every note: sessions, project notes, the home note, daily notes."""
        return {
            p.relative_to(self.vault).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(self.vault.rglob("*.md"))
            if ".vibe-vault" not in p.parts
        }


# Generated end-to-end cases that ran `vv` as processes, by test (in this process).
_RAN_AS_PROCESSES: set[str] = set()
# While the first case of one runs: the kinds of `vv` run it ran as processes.
_FIRST_CASE: list[set[str]] = []


def in_process(test: str) -> bool:
    """Whether a generated end-to-end case of `test` runs `vv` in this process
    (`hook_here`, `traces(here=True)`): every case but the first, which runs
    it as Claude Code and a user do, as processes, each kind of run once (a
    command with its options, a hook with its event: `Env.vv`); the same kind
    again in that case runs in this process. A process adds its start and
    nothing else to what a case proves, and those started by the hundred."""
    if test in _RAN_AS_PROCESSES:
        return True
    _RAN_AS_PROCESSES.add(test)
    _FIRST_CASE[:] = [set()]  # (until the test ends: pytest_runtest_logfinish)
    return False


def _run_before(args: tuple[str, ...], stdin: bytes | None, env: dict[str, str]) -> bool:
    """Whether the first case running has run this kind of `vv` as a process
    (noted, when not): a command with the options given (the words it is
    given aside), `vv hook` with the event in `stdin`. A kill point always
    needs a process."""
    if "VV_TEST_ARCHIVE_KILL" in env:
        return False
    kind = [a.split("=", 1)[0] for a in args[1:] if a.startswith("-")]
    if args[:1] == ("hook",):
        try:
            event = json.loads(stdin or b"")
        except ValueError:
            event = None
        kind.append(str(event.get("hook_event_name")) if isinstance(event, dict)
                    else "(not an event)")
    key = " ".join([*args[:1], *sorted(kind)])
    if key in _FIRST_CASE[0]:
        return True
    _FIRST_CASE[0].add(key)
    return False


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    yield Env(tmp_path)


class PlantedHome(NamedTuple):
    """test_secrets' planted home after its run: each session (id, the secret it
    holds, its transcript) and every output of the run (`run_planted_home`)."""
    env: Env
    sessions: list[tuple[str, str, Path]]
    outputs: list[bytes]


@pytest.fixture(scope="session")
def _planted_home_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the run's planted home is: in the folder all of xdist's workers share
    (each worker's own where there is no flock to take turns with)."""
    base = tmp_path_factory.getbasetemp()
    shared = os.environ.get("PYTEST_XDIST_WORKER") and hasattr(os, "fork")
    return (base.parent if shared else base) / "planted-home"


@pytest.fixture
def planted_home(_planted_home_folder: Path) -> Iterator[PlantedHome]:
    """One home planted with every secret form and run through hooks, backfill,
    stats, doctor and index, made once a run (whichever worker asks first) and
    read by the tests that ask for it, one at a time: each backfill of it cost
    a second or more of CPU, and two tests read the same thing."""
    folder = _planted_home_folder
    # (flock itself, released by name: the backfill forks workers that inherit the
    # descriptor, and filelock 4.3's FileLock was seen to wait for ever after it)
    with open(f"{folder}.lock", "a") as turn:
        if hasattr(os, "fork"):
            import fcntl

            fcntl.flock(turn, fcntl.LOCK_EX)  # (held while the test reads it: none changes it)
        try:
            env, made = Env(folder), folder / "made.json"
            if not made.exists():
                from test_secrets import run_planted_home

                shutil.rmtree(folder, ignore_errors=True)  # (a run that failed half way)
                env.configure()  # (its config went with it)
                sessions, outputs = run_planted_home(env)
                made.write_text(json.dumps({
                    "sessions": [[sid, secret, str(path)] for sid, secret, path in sessions],
                    "outputs": [out.decode("latin-1") for out in outputs]}))
            data = json.loads(made.read_text())
            yield PlantedHome(env, [(sid, secret, Path(path))
                                    for sid, secret, path in data["sessions"]],
                              [out.encode("latin-1") for out in data["outputs"]])
        finally:
            if hasattr(os, "fork"):
                fcntl.flock(turn, fcntl.LOCK_UN)


@pytest.fixture
def thorough(request: pytest.FixtureRequest) -> bool:
    """Every trial rather than a sample: with --slow, and in CI (.ci/run sets
    VV_REQUIRE_CORPUS=1), where the run need not fit in a minute."""
    return THOROUGH[0]


def examples(quick: int, full: int) -> int:
    """How many examples a slow generated test draws: `full` with --slow and in
    CI (.ci/run sets VV_REQUIRE_CORPUS=1), `quick` in the default run, which is
    to fit in a minute. For `@settings(max_examples=examples(...))`, read when
    a test module is collected, after pytest_configure has set THOROUGH."""
    return full if THOROUGH[0] else quick


def json_objects(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file, lines that are not one left out."""
    out = []
    for raw in path.read_bytes().split(b"\n"):
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def last_prompt_kind(path: Path) -> str:
    """What the user last typed in a transcript, read from its JSON: a slash
    command's name (`exit`, `quit`, `clear` ...), "prompt" for typed words, or ""
    when nothing was typed. Meta lines, subagents' lines and a local command's
    own output are not typing."""
    last = ""
    for o in json_objects(path):
        if o.get("isSidechain") or o.get("isMeta") or o.get("type") != "user":
            continue
        msg = o.get("message")
        content = msg.get("content") if isinstance(msg, dict) else o.get("content")
        if isinstance(content, str):
            if "<local-command-stdout>" in content:
                continue
            m = re.search(r"<command-name>/?(\w+)</command-name>", content)
            last = m.group(1) if m else "prompt"
        elif any(b.get("type") == "text" for b in content or [] if isinstance(b, dict)):
            last = "prompt"
    return last


def blocks(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks (dicts) of a transcript entry's message, if it has a list of them."""
    msg = obj.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def frontmatter(note: str) -> dict[str, object]:
    assert note.startswith("---\n"), note[:80]
    end = note.index("\n---\n", 4)
    data = yaml.safe_load(note[4:end])
    assert isinstance(data, dict)
    return data


def stamp(at: datetime) -> str:
    """A time as a transcript line's `timestamp`: UTC to the millisecond, with a Z."""
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Transcript:
    """A generated session's transcript lines, in the order `add` is called:
    each holds the session's id, folder, client version and permission mode,
    a uuid of its own and its time."""

    def __init__(self, sid: str, version: str, mode: str, cwd: str = "/work/app") -> None:
        self.lines: list[dict[str, Any]] = []
        self.base = {"sessionId": sid, "cwd": cwd, "version": version, "permissionMode": mode}

    def add(self, kind: str, when: datetime, **fields: Any) -> None:
        self.lines.append({**self.base, "type": kind, "uuid": f"e{len(self.lines)}",
                           "timestamp": stamp(when), **fields})


def open_threads(note: str) -> list[str]:
    """The items of a note's Open threads, in order, as written."""
    lines = note.splitlines()
    if "## Open threads" not in lines:
        return []
    out = []
    for ln in lines[lines.index("## Open threads") + 1:]:
        if not ln.startswith("- [ ] "):
            break
        out.append(ln)
    return out


def independent_tokens(main: Path, agents: list[Path]) -> dict[str, int]:
    """Token totals counted straight from the JSONL, one snapshot per message.

    Written independently of the package: key = message.id, else requestId,
    else uuid; the snapshot with the largest output_tokens wins. Subagent
    messages streamed into `progress` lines (data.type agent_progress) count
    too, for the agents whose own file is not among `agents`. A Task's result
    (`toolUseResult.usage`, with its `agentId`) is the usage of that agent's
    last message: the agent's message with the same input, cache read and
    cache write counts is that message (its output the larger of the two),
    and without one it is a message of its own.
    """
    best: dict[str, dict[str, int]] = {}
    by_agent: dict[str, list[str]] = {}  # the keys of each agent's messages
    results: list[tuple[str, dict[str, object]]] = []

    def counts(usage: dict[str, object]) -> dict[str, int]:
        def n(v: object) -> int:
            return v if isinstance(v, int) else 0
        return {
            "input_tokens": n(usage.get("input_tokens")),
            "output_tokens": n(usage.get("output_tokens")),
            "cache_read_tokens": n(usage.get("cache_read_input_tokens")),
            "cache_creation_tokens": n(usage.get("cache_creation_input_tokens")),
        }

    def note(msg: dict[str, object], key: object, agent: str | None = None) -> None:
        usage = msg.get("usage")
        if not isinstance(usage, dict) or not key or msg.get("model") == "<synthetic>":
            return
        if agent is not None:
            by_agent.setdefault(agent, []).append(str(key))
        rec = counts(usage)
        old = best.get(str(key))
        if old is None or rec["output_tokens"] > old["output_tokens"]:
            best[str(key)] = rec

    with_files: set[str] = set()
    streamed: list[tuple[str, dict[str, object], object]] = []
    for path in [main, *agents]:
        for raw in path.read_bytes().split(b"\n"):
            try:
                d = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(d, dict):
                continue
            agent = d.get("agentId") if path != main else None
            if isinstance(agent, str):
                with_files.add(agent)
            result = d.get("toolUseResult")
            if d.get("type") == "user" and isinstance(result, dict) \
                    and isinstance(result.get("usage"), dict):
                results.append((str(result.get("agentId") or ""), result["usage"]))
            data = d.get("data")
            if (path == main and d.get("type") == "progress" and isinstance(data, dict)
                    and data.get("type") == "agent_progress"):
                outer = data.get("message")
                inner = outer.get("message") if isinstance(outer, dict) else None
                if isinstance(outer, dict) and outer.get("type") == "assistant" \
                        and isinstance(inner, dict):
                    streamed.append((str(data.get("agentId")), inner,
                                     inner.get("id") or d.get("uuid")))
                continue
            if d.get("type") != "assistant":
                continue
            msg = d.get("message")
            if isinstance(msg, dict):
                note(msg, msg.get("id") or d.get("requestId") or d.get("uuid"),
                     agent if isinstance(agent, str) else None)
    for agent, msg, key in streamed:
        if agent not in with_files:
            note(msg, key, agent)
    for n, (agent, usage) in enumerate(results):
        rec = counts(usage)
        prompt = [k for k in rec if k != "output_tokens"]
        keys = by_agent.get(agent, []) if agent else list(best)
        same = [k for k in keys if all(best[k][p] == rec[p] for p in prompt)]
        if same:
            kept = best[same[-1]]
            kept["output_tokens"] = max(kept["output_tokens"], rec["output_tokens"])
        else:
            best[f"task result {n}"] = rec
    totals = dict.fromkeys(
        ("input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens"), 0)
    for rec in best.values():
        for k in totals:
            totals[k] += rec[k]
    return totals


def session_files(main: Path) -> list[Path]:
    """The subagent files that belong to a corpus session (both layouts)."""
    sid = main.stem
    agents = sorted((main.parent / sid / "subagents").glob("agent-*.jsonl"))
    for legacy in sorted(main.parent.glob("agent-*.jsonl")):
        for raw in legacy.read_bytes().split(b"\n")[:5]:
            try:
                d = json.loads(raw)
            except ValueError:
                continue
            if isinstance(d, dict) and d.get("sessionId"):
                if d["sessionId"] == sid:
                    agents.append(legacy)
                break
    return agents


def has_assistant(path: Path) -> bool:
    for raw in path.read_bytes().split(b"\n"):
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        if isinstance(d, dict) and d.get("type") == "assistant":
            m = d.get("message")
            if isinstance(m, dict) and m.get("model") != "<synthetic>":
                return True
    return False


def strip_status(note: str) -> str:
    """A note without the lines that legitimately differ once a session ended."""
    out = []
    for line in note.splitlines():
        if line.startswith(("status:", "end_reason:")):
            continue
        # A last request with no answer yet reads as still being worked on
        # while the session runs, and as unanswered once it ended (or, when
        # Claude made calls on it, as ending while it was still on it).
        out.append(_still_on(line.replace(" · **Status** active", "").replace(
            "Claude is still at work on the last request", "The last request got no answer")))
    return "\n".join(out)


STILL_ON = "The transcript ends while Claude was still on the last request ("


def _still_on(line: str) -> str:
    """The line with "The transcript ends while Claude was still on the last
    request (after N calls: …)" said as an ended request with no answer."""
    at = line.find(STILL_ON)
    if at < 0:
        return line
    depth, k = 1, at + len(STILL_ON)
    while k < len(line) and depth:
        depth += {"(": 1, ")": -1}.get(line[k], 0)
        k += 1
    return line[:at] + "The last request got no answer" + line[k:]


# Fixtures of the real-client tier (tests/client/). They live here, not in a
# tests/client/conftest.py: two conftest modules would both be imported as
# `conftest`, and the test files' `from conftest import Env` would then find the
# wrong one when the whole suite is collected. Each test that asks for
# `client_version` (or `claude`, or `world`) runs once per client version under
# test (`world.versions()`: 2.1.197 and 2.1.332, or those named by
# `VV_CLIENT_VERSION`).
sys.path.insert(0, str(ROOT / "tests" / "client"))
import world as _client_world  # noqa: E402


@pytest.fixture(scope="session", params=_client_world.versions(),
                ids=lambda v: f"claude-{v}")
def client_version(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def claude(client_version: str) -> Path:
    """The client binary of this version (installed on first use)."""
    _client_world.need_namespace()
    return _client_world.client(client_version)


@pytest.fixture
def world(claude: Path, client_version: str, tmp_path: Path) -> _client_world.Run:
    """A fresh scratch world for one test, on this client version."""
    return _client_world.Run(tmp_path, claude, client_version)


# Line fingerprints are keyed per vault (vibe_vault.line_key): two vaults whose
# folds a test compares (grown in steps and read at once) are given one key.
TEST_LINE_KEY = bytes(range(32))


def share_line_key(state_dir: Path) -> None:
    state_dir.mkdir(parents=True, exist_ok=True)
    (state_dir / "line-key").write_bytes(TEST_LINE_KEY)
