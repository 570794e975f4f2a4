"""A secret caught in one session is hidden in every other session of the home
(attack 26, L4): `export AWS_SECRET_ACCESS_KEY=V` in session A, then
`remember V? use it again` in session B showed V whole in B's note, the
project note's title, the index and `vv show`.

Generated: a random value (letters and digits drawn by a seeded generator),
taught in A in one of the gate's forms (an assignment in a command, a `.env`
written, a header, a password flag, the user's words, a file printed), then
said bare in B (a prompt, an answer, a command and its output), B in the same
project or another; the sessions run by the Stop hook (A before B, or B, A,
then B again) or by `vv backfill` (-j 1 or 2) with A older or newer than B
(a backfill writes the newest first), and by `vv reprocess` with nothing
learned before it. Oracle: the value itself: no run of 6 of its characters
(in any case) in any file under the vault and the state dir (the archive
aside: a raw copy of the transcripts, by design), in any table of vault.db
(blobs decompressed), in the search index's vocabulary, or in what `vv show`
and `vv search` print. A word a false positive learned (`postgres`,
`Password123!`) stays a word in the other sessions.
"""

from __future__ import annotations

import json
import random
import sqlite3
import string
import zlib
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import Env, examples, in_process
from test_headlines import Transcript

RUN = 6
_ALNUM = string.ascii_letters + string.digits
# The forms A teaches V in (each one of the gate's: docs/privacy.md).
FORMS = ["export", "env_file", "bearer", "mysql", "prose", "printed"]


def _value(seed: int, size: int) -> str:
    """A random value as a key or a token is: letters and digits, a digit at
    least every fourth character (so no run of its letters is shaped as a
    word: those are not shared, by design; see test_what_is_shared)."""
    rng = random.Random(seed)
    return "".join(rng.choice(string.digits) if i % 4 == 3 else rng.choice(_ALNUM)
                   for i in range(size))


def _teach(t: Transcript, form: str, value: str) -> None:
    t.prompt("set up the deploy credentials")
    if form == "export":
        t.bash(f"export AWS_SECRET_ACCESS_KEY={value}", "", "Set the key")
    elif form == "env_file":
        t.write_file("/work/app/.env", f"DB_PASSWORD={value}\nDEBUG=1\n")
    elif form == "bearer":
        t.bash(f'curl -H "Authorization: Bearer {value}" https://api.example.com/v1/me',
               '{"ok": true}', "Check the token")
    elif form == "mysql":
        t.bash(f"mysql -u deploy -p{value} app -e 'select 1'", "1", "Check the login")
    elif form == "prose":
        t.prompt(f"my password is {value}")
    else:
        t.bash("cat .env", f"API_TOKEN={value}\nPORT=8080\n", "Show the settings")
    t.say("Done, the credentials are set.")


def _repeat(t: Transcript, value: str) -> None:
    t.prompt(f"remember {value}? use it again")
    t.bash(f"echo {value} | wc -c", value, "Count it")
    t.say(f"Using {value} again, as before.")
    t.prompt("thanks, that works")
    t.say("Good.")


def _filler(t: Transcript, n: int) -> None:
    t.prompt(f"rename the helper number {n} and run the tests")
    t.bash("pytest -q", "3 passed", "Run the tests")
    t.say("Renamed and the tests pass.")


def _texts_of_database(path: Path) -> list[tuple[str, str]]:
    """(where, text) of every cell of every table of the database (a blob
    decompressed when it is), and of the search index's vocabulary."""
    out: list[tuple[str, str]] = []
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute("SELECT name, sql FROM sqlite_master "
                                            "WHERE type = 'table'")]
        for table in tables:
            try:
                rows = con.execute(f'SELECT * FROM "{table}"').fetchall()
            except sqlite3.Error:
                continue
            for row in rows:
                for cell in row:
                    if isinstance(cell, bytes):
                        out.append((f"db {table}", _blob(cell)))
                    elif cell is not None:
                        out.append((f"db {table}", str(cell)))
        for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                    "AND sql LIKE '%fts5(%'"):
            con.execute(f"CREATE VIRTUAL TABLE temp.v_{table} USING fts5vocab(main, '{table}', "
                        "'row')")
            terms = [r[0] for r in con.execute(f"SELECT term FROM temp.v_{table}")]
            out.append((f"fts {table}", "\n".join(terms)))
    finally:
        con.close()
    return out


def _blob(data: bytes) -> str:
    texts = [data.decode("utf-8", "replace")]
    for unpack in (zlib.decompress, lambda b: zlib.decompress(b, -15),
                   lambda b: zlib.decompress(b, 47)):
        try:
            texts.append(unpack(data).decode("utf-8", "replace"))
            break
        except zlib.error:
            pass
    return "\n".join(texts)


def traces(env: Env, value: str, sids: list[str], here: bool) -> list[str]:
    """Where a run of RUN characters of `value` is, in any case."""
    runs = {value[i:i + RUN].lower() for i in range(len(value) - RUN + 1)}
    places: list[tuple[str, str]] = []
    for root in (env.vault, env.state):
        for p in sorted(root.rglob("*")) if root.exists() else ():
            if not p.is_file() or p.is_symlink() or "archive" in p.relative_to(root).parts:
                continue
            data = p.read_bytes()
            places.append((str(p), _blob(data)))
            if p.name.endswith(".db"):
                places += _texts_of_database(p)
    run = env.vv_here if here else env.vv
    for args in (["search", value], ["search", "--json", value],
                 *(["show", sid[:8]] for sid in sids)):
        r = run(*args)
        places.append(("vv " + " ".join(args), (r.stdout + r.stderr).decode("utf-8", "replace")))
    found = []
    for where, text in places:
        low = text.lower()
        escaped = json.dumps(low)
        if any(r in low or r in escaped for r in runs):
            found.append(where)
    return found


A_ID = "a1a1a1a1-0000-4000-8000-000000000001"
B_ID = "b2b2b2b2-0000-4000-8000-000000000002"


def _home(tmp: Path, value: str, form: str, a_newer: bool, other_project: bool,
          ids: tuple[str, str] = (A_ID, B_ID)) -> tuple[Env, list[tuple[str, Path, str]]]:
    """A home of four sessions: A teaches `value`, B repeats it, two others do
    neither; (id, transcript, cwd) of each, A first and B second."""
    env = Env(tmp)
    (tmp / "config.toml").write_text("hook_deadline = 60\n")
    a = Transcript(sid=ids[0], hour=14 if a_newer else 11)
    b_cwd = "/work/other" if other_project else "/work/app"
    b = Transcript(sid=ids[1], cwd=b_cwd, hour=11 if a_newer else 14)
    _teach(a, form, value)
    _repeat(b, value)
    sessions = [(a, "-work-app"), (b, "-work-other" if other_project else "-work-app")]
    for n in (3, 4):
        f = Transcript(sid=f"c{n}c{n}c{n}c{n}-0000-4000-8000-00000000000{n}", hour=10 + n)
        _filler(f, n)
        sessions.append((f, "-work-app"))
    out = [(t.sid, env.transcript(t.sid, t.encoded(), folder), t.cwd) for t, folder in sessions]
    return env, out


@settings(max_examples=examples(8, 40), deadline=None)
@given(seed=st.integers(0, 2**32), size=st.integers(12, 48), form=st.sampled_from(FORMS),
       run=st.sampled_from(["hook", "hook-late", "hook-late-backfill", "backfill-hook-backfill",
                            "backfill-1", "backfill-2"]),
       a_newer=st.booleans(), other_project=st.booleans())
# (each way a session is written before the value is known, every run)
@example(seed=1, size=20, form="export", run="backfill-hook-backfill", a_newer=False,
         other_project=True)
@example(seed=2, size=16, form="env_file", run="hook-late-backfill", a_newer=True,
         other_project=False)
@example(seed=3, size=24, form="prose", run="backfill-2", a_newer=False, other_project=True)
def test_a_secret_caught_in_one_session_is_in_no_other(
        tmp_path_factory: pytest.TempPathFactory, seed: int, size: int, form: str, run: str, a_newer: bool,
        other_project: bool) -> None:
    value = _value(seed, size)
    here = in_process("test_a_secret_caught_in_one_session_is_in_no_other")
    env, sessions = _home(tmp_path_factory.mktemp("home"), value, form,
                          a_newer, other_project)
    env.here = here
    if run.startswith("hook"):
        # Live: A's hook before B's; or B's first (written before anything was
        # learned), then A's, then B's next event, or a `vv backfill` (B's
        # folder and transcript as its hook left them).
        order = {"hook": [0, 1], "hook-late": [1, 0, 1], "hook-late-backfill": [1, 0]}[run]
        for i in order:
            sid, path, cwd = sessions[i]
            env.stop(sid, path, cwd=cwd, here=here)
        if run == "hook-late-backfill":
            r = env.vv("backfill")
            assert r.returncode == 0, r.stderr
    elif run == "backfill-hook-backfill":
        # B (and the others) backfilled before A's transcript was there; A's
        # hook then taught V; a backfill after (B's folder unchanged when
        # B is of another project: B is of no job of that run).
        a_path = sessions[0][1]
        aside = a_path.with_name("aside")
        a_path.rename(aside)
        assert env.vv("backfill").returncode == 0
        aside.rename(a_path)
        env.stop(sessions[0][0], a_path, cwd=sessions[0][2], here=here)
        r = env.vv("backfill")
        assert r.returncode == 0, r.stderr
    else:
        r = env.vv("backfill", "-j", run[-1])
        assert r.returncode == 0, r.stderr
    # (B's note was written, the value hidden in it where B said it)
    note = next(n for p, n in env.notes().items() if sessions[1][0][:8] in p)
    assert "use it again" in note and "[REDACTED" in note
    assert traces(env, value, [s[0] for s in sessions[:2]], here) == []


@settings(max_examples=examples(3, 12), deadline=None)
@given(seed=st.integers(0, 2**32), size=st.integers(12, 40), form=st.sampled_from(FORMS))
def test_reprocess_keeps_a_secret_out_of_sessions_read_before_the_one_that_caught_it(
        tmp_path_factory: pytest.TempPathFactory, seed: int, size: int, form: str) -> None:
    """`vv reprocess` reads the sessions in the order of their ids: B's here
    before A's; with nothing learned before it (the shared keys deleted, as
    in a home a version before this one made)."""
    value = _value(seed, size)
    here = in_process("test_reprocess_keeps_a_secret_out_of_sessions_read_before_the_one_that_c")
    env, sessions = _home(tmp_path_factory.mktemp("home"), value, form,
                          False, False, ids=(B_ID, A_ID))
    env.here = here
    assert env.vv("backfill").returncode == 0
    (env.state / "shared-secrets").unlink()
    r = env.vv("reprocess")
    assert r.returncode == 0, r.stderr
    assert traces(env, value, [s[0] for s in sessions[:2]], here) == []


LOOK_ALIKES = [("POSTGRES_PASSWORD", "postgres"), ("DB_PASSWORD", "Password123!"),
               ("ADMIN_PASSWORD", "administrator2024"), ("REDIS_PASSWORD", "changeme"),
               ("APP_SECRET", "development"), ("DB_PASSWORD", "2024-01-15")]


@settings(max_examples=examples(3, 10), deadline=None)
@given(pair=st.sampled_from(LOOK_ALIKES), run=st.sampled_from(["hook", "backfill-1"]))
def test_a_word_caught_as_a_password_stays_a_word_in_other_sessions(
        tmp_path_factory: pytest.TempPathFactory, pair: tuple[str, str], run: str) -> None:
    """Attack 26, f10: `POSTGRES_PASSWORD=postgres` made `postgres` a secret.
    Oracle: B's note holds the word where B's user wrote it."""
    key, word = pair
    here = in_process("test_a_word_caught_as_a_password_stays_a_word_in_other_sessions")
    env = Env(tmp_path_factory.mktemp("home"))
    env.here = here
    (env.root / "config.toml").write_text("hook_deadline = 60\n")
    a = Transcript(sid=A_ID, hour=11)
    a.prompt("start the database")
    a.bash(f"docker run -e {key}={word} db:16", "", "Start it")
    a.say("Started.")
    b = Transcript(sid=B_ID, hour=14)
    b.prompt(f"is the value {word} still used in the tests?")
    b.say("It is.")
    paths = [env.transcript(t.sid, t.encoded()) for t in (a, b)]
    if run == "hook":
        for t, p in zip((a, b), paths, strict=True):
            env.stop(t.sid, p, cwd=t.cwd, here=here)
    else:
        assert env.vv("backfill").returncode == 0
    note = next(n for p, n in env.notes().items() if "b2b2b2b2" in p)
    assert f"is the value {word} still used" in note


def test_the_shared_keys_file_is_private_and_holds_keys_only(tmp_path: Path) -> None:
    value = _value(7, 24)
    env, sessions = _home(tmp_path, value, "export", False, False)
    for sid, path, cwd in sessions[:2]:
        env.stop(sid, path, cwd=cwd)
    shared = env.state / "shared-secrets"
    assert shared.stat().st_mode & 0o777 == 0o600
    lines = shared.read_text().splitlines()
    assert len(lines) >= 2 and all(len(k) >= 24 and value.lower() not in k for k in lines[1:])


def test_what_is_shared() -> None:
    """Random values are shared; words, words with digits or marks about them,
    numbers and dates are not (the oracle: how each was made)."""
    from vibe_vault.fold.context import shareable

    rng = random.Random(31)
    words = (Path(__file__).resolve().parents[1] / "src" / "vibe_vault" / "data"
             / "bip39-english.txt").read_text().split()
    for _ in range(2000):
        token = _value(rng.randrange(2**32), rng.randrange(12, 60))
        assert shareable(token), token
        w = rng.choice(words)
        for made in (w.capitalize() + str(rng.randrange(10_000)) + rng.choice(["", "!", "#"]),
                     w + rng.choice(words).capitalize() + str(rng.randrange(100)),
                     str(rng.randrange(10**12)), f"2024-{rng.randrange(1, 13):02d}-15",
                     "Configuration", "Sunshine2024!", "postgres", "Password123!"):
            assert not shareable(made), made
