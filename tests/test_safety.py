"""Never hurt Claude Code, never lose or leak: crashes, races, disk trouble,
odd transcripts, fuzzed lines and planted secrets."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, Env, frontmatter, strip_status
from test_hook_contract import SESSION, SID, assert_harmless, place, stop
from vibe_vault.config import Config
from vibe_vault.session import Store, Update, update_session
from vibe_vault.state import decode_state

pytestmark = pytest.mark.corpus  # every test here reads the shared corpus

SLICE = [
    CORPUS / "DRMacIver__claude-reliability/snapshot-tests/python-to-rust-port/transcript.jsonl",
    CORPUS / "DRMacIver__claude-reliability/snapshot-tests/coverage-test-fix/transcript.jsonl",
    CORPUS / "iansherr__claude-code-log/real_projects/-Users-dain-workspace-claude-code-log-sample/0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl",
    CORPUS / "entireio__cli/checkpoints/ca/fca7ea73ac/0/full.jsonl",
]


def home_with(env: Env, files: list[Path]) -> Path:
    slug = env.claude / "projects" / "-tmp-p"
    slug.mkdir(parents=True, exist_ok=True)
    for i, f in enumerate(files):
        shutil.copyfile(f, slug / f"{i:08d}-0000-4000-8000-{i:012d}.jsonl")
    return slug


def check_complete(env: Env) -> None:
    """Every note and state file is a whole version, never partial or empty."""
    for p in env.vault.rglob("*.md"):
        text = p.read_text(encoding="utf-8")
        frontmatter(text)
        assert "\n## My notes\n" in text, p
    for p in (env.state / "sessions").glob("*.state"):
        assert decode_state(p.read_bytes()) is not None, p


def test_sigkill_at_random_moments_converges(tmp_path: Path,
                                             request: pytest.FixtureRequest) -> None:
    trials = 100 if request.config.getoption("--slow") else 20
    rng = random.Random(1234)
    ref = Env(tmp_path / "ref")
    home_with(ref, SLICE)
    assert ref.vv("backfill", str(ref.claude / "projects")).returncode == 0
    env = Env(tmp_path / "kill")
    slug = home_with(env, SLICE)
    for _ in range(trials):
        if rng.random() < 0.5:
            args = [sys.executable, "-m", "vibe_vault", "backfill", "--force", str(slug)]
            stdin = b""
        else:
            name = rng.choice(sorted(slug.glob("*.jsonl")))
            args = [sys.executable, "-m", "vibe_vault", "hook"]
            stdin = json.dumps({"hook_event_name": "Stop", "session_id": name.stem,
                                "transcript_path": str(name)}).encode()
        proc = subprocess.Popen(args, env=env.env, stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
        time.sleep(rng.uniform(0.0, 0.25))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        check_complete(env)
    r = env.vv("backfill", str(slug))
    assert r.returncode == 0, r.stderr
    check_complete(env)
    assert env.notes() == ref.notes()
    leftovers = [p for p in env.root.rglob(".vv-tmp-*") if p.suffix == ".md"]
    assert not leftovers


def test_sixteen_stops_with_tool_hooks_and_a_backfill(env: Env) -> None:
    target = place(env)
    data = SESSION.read_bytes()
    target.write_bytes(data[: len(data) // 3])
    results: list[subprocess.CompletedProcess[bytes]] = []
    lock = threading.Lock()

    def call(ev: dict[str, object] | None) -> None:
        r = env.vv("backfill", str(target.parent)) if ev is None else env.hook(ev)
        with lock:
            results.append(r)

    jobs: list[dict[str, object] | None] = [stop(path=target) for _ in range(16)]
    jobs += [{"hook_event_name": "PostToolUse", "session_id": SID, "tool_use_id": f"t{i}",
              "tool_name": "Bash", "duration_ms": 5} for i in range(8)]
    jobs.append(None)
    threads = [threading.Thread(target=call, args=(j,)) for j in jobs]
    for i, t in enumerate(threads):
        t.start()
        if i == 6:
            target.write_bytes(data[: 2 * len(data) // 3])
        if i == 12:
            target.write_bytes(data)
    for t in threads:
        t.join()
    for r in results:
        assert r.returncode == 0 and b"Traceback" not in r.stderr
    assert_harmless(env.hook(stop(path=target)))
    seq = Env(env.root / "seq")
    place(seq)
    assert_harmless(seq.hook(stop(path=seq.claude / "projects" / "-tmp-proj" / f"{SID}.jsonl")))
    # The backfill among them may mark the session idle (its entries are old).
    assert ([strip_status(n) for n in env.notes().values()]
            == [strip_status(n) for n in seq.notes().values()])
    state = Store(env.state).load(SID)
    assert state is not None and state.cursor.offset == len(data)


def test_lock_held_elsewhere_gives_up_quietly_then_catches_up(env: Env) -> None:
    env.configure("lock_timeout = 0.3\n")
    target = place(env)
    (env.state / "locks").mkdir(parents=True)
    fd = os.open(Store(env.state).lock_path(SID), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        t0 = time.monotonic()
        r = env.hook(stop(path=target))
        assert_harmless(r)
        assert time.monotonic() - t0 < 3.0
        assert not env.notes()
    finally:
        os.close(fd)
    assert_harmless(env.hook(stop(path=target)))
    assert len(env.notes()) == 1


def test_lock_of_a_dead_process_is_no_deadlock(env: Env) -> None:
    target = place(env)
    (env.state / "locks").mkdir(parents=True)
    lock_file = Store(env.state).lock_path(SID)
    holder = subprocess.Popen([sys.executable, "-c", (
        f"import fcntl, os, time; fd = os.open({lock_file!r}, os.O_RDWR | os.O_CREAT); "
        "fcntl.flock(fd, fcntl.LOCK_EX); time.sleep(60)")])
    time.sleep(0.3)
    holder.kill()
    holder.wait()
    assert_harmless(env.hook(stop(path=target)))
    assert len(env.notes()) == 1


def test_deadline_saves_progress_and_next_event_continues(env: Env) -> None:
    env.configure("hook_deadline = 0.0\n")
    big = CORPUS / "fenv-org__mementor/checkpoints/0f/54ff53e6a4/0/full.jsonl"
    target = place(env, big)
    assert_harmless(env.hook(stop(path=target)))
    cut = Store(env.state).load(SID)  # saved where the deadline stopped it: short of the end
    assert cut is not None and cut.cursor.offset < big.stat().st_size
    env.configure()  # (the home's five minutes: the rest in one event, on a loaded machine too)
    assert_harmless(env.hook(stop(path=target)))
    state = Store(env.state).load(SID)
    assert state is not None and state.cursor.offset == big.stat().st_size


def _config(root: Path) -> Config:
    return Config(vault=root / "vault", state_dir=root / "state",
                  projects_root=root / "claude", config_file=root / "none.toml")


def test_disk_full_leaves_offset_where_it_was(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = _config(tmp_path)
    src = tmp_path / "t.jsonl"
    data = SESSION.read_bytes()
    src.write_bytes(data[: len(data) // 2])
    update_session(cfg, Update(session_id=SID, transcript=str(src)))
    before = Store(cfg.state_dir).load(SID)
    note_before = {p: p.read_bytes() for p in cfg.vault.rglob("*.md")}
    src.write_bytes(data)
    import vibe_vault.note

    def full(*a: object, **k: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(vibe_vault.note, "replace_seen", full)
    with pytest.raises(OSError):
        update_session(cfg, Update(session_id=SID, transcript=str(src)))
    after = Store(cfg.state_dir).load(SID)
    assert before is not None and after is not None
    assert after.cursor.offset == before.cursor.offset
    assert {p: p.read_bytes() for p in cfg.vault.rglob("*.md")} == note_before
    monkeypatch.undo()
    update_session(cfg, Update(session_id=SID, transcript=str(src)))
    assert Store(cfg.state_dir).load(SID).cursor.offset == len(data)  # type: ignore[union-attr]


def test_unwritable_vault_one_message_hook_zero_command_nonzero(env: Env) -> None:
    env.vault.parent.mkdir(parents=True, exist_ok=True)
    env.vault.write_text("a file where the vault should be")
    target = place(env)
    r = env.hook(stop(path=target))
    assert_harmless(r)
    assert r.stderr.startswith(b"vv: ")
    r = env.vv("backfill", str(target.parent))
    assert r.returncode != 0 and b"Traceback" not in r.stderr
    assert env.vault.read_text() == "a file where the vault should be"


def test_odd_transcript_lines(env: Env, tmp_path: Path) -> None:
    good = SESSION.read_bytes().split(b"\n")
    odd = [
        b'{"type":"user","message":{"role":"user","content":"x' + b"y" * (50 << 20) + b'"}}',
        b"\xff\xfe invalid utf-8 \xc3\x28",
        b'{"type":"user","message":{"content":"nul \x00 inside"}}',
        '{"type":"user","message":{"role":"user","content":"line\u2028sep"},"timestamp":"2026-01-21T06:20:00Z"}'.encode(),
        b"[1,2,3]", b'"just a string"', b"null",
    ] + [b'{"type":"brand-new-%d","version":"9.%d"}' % (i % 7, i % 3) for i in range(10_000)]
    src = tmp_path / "odd.jsonl"
    src.write_bytes(b"\n".join(good[:10] + odd + good[10:]))
    target = place(env, src)
    r = env.hook(stop(path=target), timeout=120)
    assert_harmless(r)
    note = next(iter(env.notes().values()))
    clean = Env(env.root / "clean")
    place(clean)
    assert_harmless(clean.hook(stop(path=clean.claude / "projects" / "-tmp-proj" / f"{SID}.jsonl")))
    fm, fm_clean = frontmatter(note), frontmatter(next(iter(clean.notes().values())))
    assert fm["output_tokens"] == fm_clean["output_tokens"]
    state = Store(env.state).load(SID)
    assert state is not None
    assert sum(state.fold.unknown.values()) == 10_000
    assert state.fold.malformed >= 4


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_corpus_lines(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    """Real lines with fields deleted, retyped or nulled: exit 0, note still written."""
    lines = [json.loads(x) for x in SESSION.read_bytes().split(b"\n") if x.strip()]
    # st.builds, not st.just: one shared {} put in two places could end up inside itself.
    junk = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.booleans(),
                     st.builds(list), st.builds(dict))
    for i in data.draw(st.lists(st.integers(0, len(lines) - 1), max_size=12)):
        obj = lines[i]
        key = data.draw(st.sampled_from(sorted(obj)))
        if data.draw(st.booleans()):
            del obj[key]
        else:
            obj[key] = data.draw(junk)
        if isinstance(obj.get("message"), dict) and data.draw(st.booleans()):
            m = obj["message"]
            mk = data.draw(st.sampled_from(sorted(m) or ["x"]))
            m[mk] = data.draw(junk)
    env = Env(tmp_path_factory.mktemp("fz"))
    src = env.root / "f.jsonl"
    src.write_bytes(b"\n".join(json.dumps(x).encode() for x in lines) + b"\n")
    target = place(env, src)
    assert_harmless(env.hook(stop(path=target)))
    assert len(env.notes()) <= 1


def test_files_are_private_and_transcript_untouched(env: Env) -> None:
    target = place(env)
    st0 = target.stat()
    digest = target.read_bytes()
    assert_harmless(env.hook(stop(path=target)))
    assert_harmless(env.hook({"hook_event_name": "PreToolUse", "session_id": SID,
                              "tool_use_id": "t"}))
    st1 = target.stat()
    assert (st0.st_ino, st0.st_mtime_ns, st0.st_size) == (st1.st_ino, st1.st_mtime_ns, st1.st_size)
    assert target.read_bytes() == digest
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name]
    for p in env.state.rglob("*"):
        mode = stat.S_IMODE(p.stat().st_mode)
        assert mode == (0o700 if p.is_dir() else 0o600), (p, oct(mode))
    note = next(env.vault.rglob("*.md"))
    assert stat.S_IMODE(note.stat().st_mode) == 0o666 & ~_umask()


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


SECRET_MAKERS = {
    "aws-access-key": lambda r: "AKIA" + "".join(r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16)),
    "github-token": lambda r: r.choice(["ghp_", "gho_", "ghs_"]) + _rand(r, 36),
    "github-pat": lambda r: "github_pat_" + _rand(r, 22) + "_" + _rand(r, 59),
    "gitlab-token": lambda r: "glpat-" + _rand(r, 20),
    "anthropic-key": lambda r: "sk-ant-api03-" + _rand(r, 93) + "AA",
    "openai-key": lambda r: "sk-proj-" + _rand(r, 48),
    "google-api-key": lambda r: "AIza" + _rand(r, 35),
    "slack-token": lambda r: "xoxb-" + "".join(r.choice("0123456789") for _ in range(12)) + "-" + _rand(r, 24),
    "stripe-key": lambda r: r.choice(["sk_live_", "rk_live_", "sk_test_"]) + _rand(r, 24),
    "jwt": lambda r: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ" + _rand(r, 40) + "." + _rand(r, 43),
    "url-password": lambda r: "P" + _rand(r, 14) + "9",
    "assignment": lambda r: "Sx" + _rand(r, 18) + "7!",
    "private-key": lambda r: "MIIEv" + _rand(r, 60),
    "env-file": lambda r: "v" + _rand(r, 24),
}


def _rand(r: random.Random, n: int) -> str:
    return "".join(r.choice("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(n))


# Secrets that are only secret by context (a password in a URL, a value after
# `PASSWORD=`) cannot be told from a file name; shaped ones can.
CONTEXT_ONLY = {"url-password", "assignment", "private-key", "env-file"}


def _path_for(kind: str, secret: str) -> str:
    return "/tmp/p/notes.txt" if kind in CONTEXT_ONLY else f"/tmp/p/{secret}.txt"


def _plant(kind: str, secret: str) -> str:
    if kind == "url-password":
        return f"git clone https://deploy:{secret}@git.example.com/repo.git"
    if kind == "assignment":
        return f'export DATABASE_PASSWORD="{secret}"'
    if kind == "private-key":
        return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{secret}\n-----END OPENSSH PRIVATE KEY-----"
    if kind == "env-file":
        return f"cat > .env <<'EOF'\nAPP_SETTING={secret}\nEOF"
    return f"use {secret} for this"


def test_planted_secrets_never_reach_the_vault(env: Env, tmp_path: Path) -> None:
    r = random.Random(7)
    secrets: list[str] = []
    lines = []
    ts = "2026-01-21T06:19:38.000Z"
    for kind, make in SECRET_MAKERS.items():
        for i in range(32):
            s = make(r)
            secrets.append(s)
            text = _plant(kind, s)
            uid = f"{kind}-{i}"
            lines.append({"type": "user", "uuid": "u" + uid, "timestamp": ts, "sessionId": SID,
                          "cwd": "/tmp/p", "message": {"role": "user", "content": text}})
            lines.append({"type": "assistant", "uuid": "a" + uid, "timestamp": ts,
                          "sessionId": SID, "message": {
                              "id": "m" + uid, "model": "claude-opus-4-5", "role": "assistant",
                              "usage": {"input_tokens": 1, "output_tokens": 1},
                              "content": [{"type": "text", "text": "Done: " + text},
                                          {"type": "tool_use", "id": "t" + uid, "name": "Bash",
                                           "input": {"command": text}},
                                          {"type": "tool_use", "id": "w" + uid, "name": "Write",
                                           "input": {"file_path": _path_for(kind, s),
                                                     "content": text}}]}})
            lines.append({"type": "user", "uuid": "r" + uid, "timestamp": ts, "sessionId": SID,
                          "toolUseResult": {"stdout": text, "stderr": ""},
                          "message": {"role": "user", "content": [
                              {"type": "tool_result", "tool_use_id": "t" + uid,
                               "content": "Exit code 1\n" + text, "is_error": True},
                              {"type": "tool_result", "tool_use_id": "w" + uid,
                               "content": "ok"}]}})
    lines.insert(0, {"type": "ai-title", "aiTitle": "Set key " + secrets[0], "sessionId": SID})
    src = tmp_path / "secrets.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    target = place(env, src)
    assert_harmless(env.hook(stop(path=target)))
    vault_text = "\n".join(env.notes().values())
    state_bytes = b"".join(p.read_bytes() for p in env.state.rglob("*.state"))
    assert len(secrets) >= 30 * len(SECRET_MAKERS)
    for s in secrets:
        assert s not in vault_text, s
        assert s.encode() not in state_bytes, s
    fm = frontmatter(next(iter(env.notes().values())))
    assert int(fm["redactions"]) >= len(secrets)
    assert "[REDACTED:" in vault_text


@pytest.mark.parametrize("first", ["PreToolUse", "Stop", "SessionEnd"])
def test_state_directory_is_private_whichever_event_comes_first(env: Env, first: str) -> None:
    target = place(env)
    ev: dict[str, object] = {"hook_event_name": first, "session_id": SID,
                             "transcript_path": str(target), "tool_use_id": "t1"}
    assert_harmless(env.hook(ev))
    for p in [env.state, *env.state.rglob("*")]:
        mode = stat.S_IMODE(p.stat().st_mode)
        assert mode == (0o700 if p.is_dir() else 0o600), (p, oct(mode))
