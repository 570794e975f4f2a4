"""A token in the working directory's name reaches no table of the vault's
database (attack 22, #1): Claude Code names a session's folder after its
working directory, each character outside [A-Za-z0-9] a `-` (`ghp_x…` is
`ghp-x…`, a form no rule reads as a token), and the database keeps each
transcript file it read by a key (stored_paths.file_key), not by that path.

The oracle is the attacker's: no run of 6 characters of the planted value, in
its own form or its folder form, in any column of any table (compressed
bodies decompressed, msgpack decoded), in the database file's bytes or its
WAL, in any other file vv wrote (the archive aside: a raw copy by design),
or in what vv printed."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import string
import zlib
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Env, examples
from test_hook_input import transcript
from vibe_vault.stored_paths import file_key, folder_key

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def slug(cwd: str) -> str:
    """Claude Code's folder name for a working directory (ASCII): each
    character outside [A-Za-z0-9] a `-`."""
    return "".join(c if c in ALNUM else "-" for c in cwd)


@st.composite
def provider_tokens(draw: st.DrawFn) -> tuple[str, str]:
    """(a token of one of many providers, its random part)."""
    def body(n: int, chars: str = ALNUM) -> str:
        return "".join(draw(st.lists(st.sampled_from(chars), min_size=n, max_size=n)))

    kind = draw(st.sampled_from(
        ["ghp_", "gho_", "ghs_", "github_pat_", "glpat-", "npm_", "sk-ant-api03-", "sk-proj-",
         "AIza", "GOCSPX-", "xoxb-", "sk_live_", "rk_live_", "whsec_", "hf_", "SG.", "AKIA",
         "dop_v1_", "shpat_", "xai-"]))
    if kind == "github_pat_":
        value = body(22) + "_" + body(59)
    elif kind == "sk-ant-api03-":
        value = body(93) + "AA"
    elif kind == "xoxb-":
        value = body(12, string.digits) + "-" + body(24)
    elif kind == "SG.":
        value = body(22) + "." + body(43)
    elif kind == "AKIA":
        value = body(16, string.ascii_uppercase + "234567")
    elif kind in ("dop_v1_", "shpat_"):
        value = body(64 if kind == "dop_v1_" else 32, HEX)
    else:
        n = {"glpat-": 20, "sk-proj-": 48, "AIza": 35, "GOCSPX-": 28, "sk_live_": 24,
             "rk_live_": 24, "whsec_": 32, "hf_": 34, "xai-": 80}.get(kind, 36)
        value = body(n)
    return kind + value, value


def runs_of(value: str) -> set[str]:
    """Every 6-character run of the value, as written and in its folder form;
    runs all of digits or hex, like any number or digest, only when the value
    is not made of them (an AWS key's runs are upper case)."""
    out = set()
    for form in {value, slug(value)}:
        out |= {form[i:i + 6] for i in range(len(form) - 5)}
    return {r for r in out if not set(r) <= set(HEX) and "-" not in r[1:-1]}


def texts_of_database(path: Path) -> dict[str, str]:
    """Every value of every table of the database (the WAL read through
    SQLite, as it is), bodies decompressed and msgpack decoded where they
    are so, and the raw bytes of the file and its WAL: by where."""
    out: dict[str, list[str]] = {}
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
        for table in tables:
            try:
                rows = conn.execute(f'SELECT * FROM "{table}"').fetchall()
            except sqlite3.Error:
                continue  # (a contentless FTS table's own rows)
            texts = out.setdefault(table, [])
            for row in rows:
                for v in row:
                    if isinstance(v, bytes):
                        texts.append(v.decode("utf-8", "replace"))
                        for unpack in (zlib.decompress, lambda b: zlib.decompress(b, -15)):
                            with contextlib.suppress(zlib.error):
                                texts.append(unpack(v).decode("utf-8", "replace"))
                        with contextlib.suppress(msgspec.DecodeError, ValueError, TypeError):
                            texts.append(json.dumps(msgspec.msgpack.decode(v)))
                    else:
                        texts.append(str(v))
        conn.execute("CREATE VIRTUAL TABLE temp.words USING fts5vocab(main, search, 'row')")
        out["search terms"] = [r[0] for r in conn.execute("SELECT term FROM temp.words")]
    finally:
        conn.close()
    found = {where: "\n".join(texts) for where, texts in out.items()}
    for suffix in ("", "-wal"):
        p = Path(str(path) + suffix)
        if p.exists():
            found["bytes of vault.db" + suffix] = p.read_bytes().decode("utf-8", "replace")
    return found


def shown(found: dict[str, str], runs: set[str]) -> dict[str, list[str]]:
    """Where a run is, markers left out (`[REDACTED:github-token]` holds `github`)."""
    out = {}
    for where, text in found.items():
        text = re.sub(r"\[REDACTED:[^\]]*\]", "\n", text)
        hits = sorted(r for r in runs if r in text)
        if hits:
            out[where] = hits[:5]
    return out


def written_files(env: Env) -> dict[str, str]:
    return {str(p): p.read_bytes().decode("utf-8", "replace")
            for root in (env.vault, env.state) if root.exists()
            for p in sorted(root.rglob("*"))
            if p.is_file() and "archive" not in p.relative_to(root).parts
            and not p.name.startswith("vault.db")}


@st.composite
def working_directories(draw: st.DrawFn) -> tuple[str, str]:
    """(a working directory whose name holds a token, the token's random part)."""
    token, value = draw(provider_tokens())
    before = draw(st.sampled_from(["/home/dev/", "/srv/", "/Users/me/work/", "/home/dev/x_"]))
    after = draw(st.sampled_from(["", "/app", "-copy/src", "/a/b"]))
    return before + token + after, value


@settings(max_examples=examples(4, 25), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=working_directories(), sid=st.uuids().map(str))
def test_a_token_in_the_working_directory_is_in_no_table_of_the_database(
        tmp_path_factory: pytest.TempPathFactory, case: tuple[str, str], sid: str) -> None:
    cwd, value = case
    env = Env(tmp_path_factory.mktemp("home"))
    folder = env.claude / "projects" / slug(cwd)
    folder.mkdir(parents=True)
    path = folder / f"{sid}.jsonl"
    path.write_bytes(transcript(sid, cwd, "Fix the parser"))
    # a legacy agent file beside it: the owners table keys it too
    (folder / "agent-a1b2c3d4.jsonl").write_text(json.dumps({
        "type": "user", "uuid": "s1", "parentUuid": None, "sessionId": sid, "cwd": cwd,
        "isSidechain": True, "timestamp": "2026-05-01T10:00:01.000Z",
        "message": {"role": "user", "content": "look at the parser"}}) + "\n")
    printed = []
    for event in ("Stop", "SessionEnd"):
        r = env.hook({"hook_event_name": event, "session_id": sid, "cwd": cwd,
                      "transcript_path": str(path), "reason": "exit"})
        assert r.returncode == 0 and r.stdout == b"", r.stderr
        printed.append(r.stderr)
    for args in (["backfill", "--json"], ["backfill", "--json"], ["index"],
                 ["search", "parser"], ["files", "parser"], ["stats"]):
        r = env.vv(*args)
        assert r.returncode == 0, (args, r.stderr)
        printed += [r.stdout, r.stderr]
    again = json.loads(printed[-10])  # the second backfill: the files read are known
    assert again["unchanged"] == 1 and again.get("written", 0) == 0, again
    runs = runs_of(value)
    found = texts_of_database(env.state / "vault.db")
    assert found.get("stamps"), "no file read was recorded"
    found |= written_files(env)
    found["printed"] = b"\n".join(printed).decode("utf-8", "replace")
    assert not shown(found, runs)


# A name Claude Code gives (a session's UUID, `agent-<hex>`, its folders), kept
# as it is; a folder of the user's so named is no secret either.
CLAUDES_NAME = re.compile(r"(?:[0-9a-fA-F-]{36}|agent-[0-9a-fA-F]+|subagents|workflows|journal)"
                          r"(?:\.jsonl)?")
user_names = st.text(alphabet=ALNUM + "-._ ", min_size=1, max_size=40).filter(
    lambda s: s not in (".", "..") and not CLAUDES_NAME.fullmatch(s))


@given(st.lists(user_names, min_size=1, max_size=6),
       st.lists(st.uuids().map(str), min_size=1, max_size=3), st.sampled_from("/\\"))
def test_a_folders_keys_are_the_prefix_of_its_files_and_hold_none_of_its_names(
        names: list[str], sids: list[str], sep: str) -> None:
    folder = sep + sep.join(names)
    head = folder_key(folder)
    for sid in sids:
        for f in (f"{sid}.jsonl", f"{sid}{sep}subagents{sep}agent-a{sid[:8]}.jsonl",
                  f"{sid}{sep}subagents{sep}workflows{sep}wf_{names[0]}{sep}agent-a1.jsonl",
                  f"agent-{sid[:8]}.jsonl", "notes.jsonl"):
            key = file_key(folder + sep + f)
            assert key.startswith(head + sep)  # backfill finds a folder's files by it
            # each name the user gave is a digest; Claude Code's own are as they are
            path_names, key_names = (folder + sep + f).split(sep), key.split(sep)
            assert len(path_names) == len(key_names)
            for name, kept in zip(path_names, key_names, strict=True):
                if name and not CLAUDES_NAME.fullmatch(name):
                    assert re.fullmatch("~[0-9a-f]{16}", kept), (name, kept)
                else:
                    assert kept == name
    # one key names one folder, one file
    assert folder_key(folder + "x") != head
    assert file_key(folder + sep + "a.jsonl") != file_key(folder + "x" + sep + "a.jsonl")


def test_a_database_of_schema_10_is_taken_up_in_place_keeping_every_row(
        tmp_path: Path) -> None:
    """A database made before keys (schema 10: each file by its path, the
    backfill marks by folder) is keyed again at the next connection: no row
    lost, no session read again or note written, no traceback, no word of
    the path left in it or its WAL."""
    from vibe_vault.records import Record, encode_record

    value = "Qw3Er6Ty9Ui2Op5As8Df1Gh4Jk7Lz0Xc3Vb6"
    cwd = "/home/dev/ghp_" + value
    sid = "0f6c3f0e-6d1e-4a3b-9a57-2d0f5e0b8c11"
    env = Env(tmp_path)
    folder = env.claude / "projects" / slug(cwd)
    folder.mkdir(parents=True)
    path = folder / f"{sid}.jsonl"
    path.write_bytes(transcript(sid, cwd, "Fix the parser"))
    agent = folder / "agent-a1b2c3d4.jsonl"
    agent.write_text(json.dumps({
        "type": "user", "uuid": "s1", "parentUuid": None, "sessionId": sid, "cwd": cwd,
        "isSidechain": True, "timestamp": "2026-05-01T10:00:01.000Z",
        "message": {"role": "user", "content": "look at the parser"}}) + "\n")
    assert env.vv("backfill").returncode == 0
    notes = {p: p.read_bytes() for p in env.vault.rglob("*.md")}
    db = env.state / "vault.db"
    conn = sqlite3.connect(db, isolation_level=None)
    try:  # as schema 10 kept them: the paths themselves
        raw = {file_key(str(p)): str(p) for p in (path, agent)}
        counts = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                  for t in ("records", "stamps", "owners", "texts", "sessions")}
        for table in ("stamps", "owners"):
            for key, real in raw.items():
                conn.execute(f"UPDATE {table} SET path = ? WHERE path = ?", (real, key))
        decode = msgspec.msgpack.Decoder(Record).decode
        for rid, body in conn.execute("SELECT session_id, body FROM records").fetchall():
            rec = decode(body)
            for f in rec.files:
                f.path = raw[f.path]
            conn.execute("UPDATE records SET body = ? WHERE session_id = ?",
                         (encode_record(rec), rid))
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('backfill_marks', ?)",
                     (json.dumps({"tombstones": "", "folders": {str(folder): [
                         "x", 2, 1, 0, {}, None, []]}}),))
        conn.execute("PRAGMA user_version = 10")
        assert value in db.read_bytes().decode("utf-8", "replace") + Path(
            str(db) + "-wal").read_bytes().decode("utf-8", "replace")
    finally:
        conn.close()
    r = env.vv("backfill", "--json")
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    assert b"damaged" not in r.stderr, r.stderr  # taken up, not thrown away
    done = json.loads(r.stdout)
    assert done["unchanged"] == 1 and done.get("written", 0) == 0, done
    assert {p: p.read_bytes() for p in env.vault.rglob("*.md")} == notes
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 11
        assert {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in counts} == counts
        assert sorted(r[0] for r in conn.execute("SELECT path FROM stamps")) == sorted(raw)
    finally:
        conn.close()
    assert b"parser" in env.vv("search", "parser").stdout
    assert not shown(texts_of_database(db), runs_of(value))
