"""A session Claude Code's cleanup deleted is resumable again after `vv restore`,
on each client version: the real client ends a session with vibe-vault's hooks
installed, its files are deleted as the cleanup deletes them, `vv restore` puts
them back, and `claude -p --resume` carries the conversation on: the fake API
receives the earlier messages. Without the restore, the same resume finds
nothing (so the restore is what made it work).

Runs the client inside the loopback-only namespace, like test_real_client.py,
whose `Run` world and fake API it reuses unchanged.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_real_client import HERE, NETNS_RUN, PORT, Run

VERSIONS = ["2.1.197", "2.1.332"]
FIRST = "remember the word pelican"
LATER = "what was the word"

# The fake API, recording the user messages of every request it is sent.
RECORDING_API = """
import io, json, sys
sys.path.insert(0, {here!r})
import fake_api

class Recording(fake_api.Handler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.startswith("/v1/messages") and "count_tokens" not in self.path:
            messages = json.loads(body or b"{{}}").get("messages", [])
            with open({requests!r}, "a", encoding="utf-8") as f:
                f.write(json.dumps([fake_api.words(m) for m in messages
                                    if m.get("role") == "user"]) + "\\n")
        self.rfile = io.BytesIO(body)
        super().do_POST()

fake_api.Handler = Recording
fake_api.main()
"""


def claude_at(version: str) -> Path:
    cache = Path(os.environ.get("VV_CLIENT_CACHE_ROOT")
                 or Path.home() / ".cache" / "vibe-vault-tests")
    claude = cache / f"claude-code-{version}" / "node_modules" / ".bin" / "claude"
    if not claude.exists():
        pytest.fail(f"Claude Code {version} is not installed at {claude} "
                    "(tests/client/test_real_client.py installs a client from npm)")
    return claude


class World(Run):
    def __init__(self, root: Path, claude: Path, config_dir: bool) -> None:
        super().__init__(root)
        self.claude = claude
        self.requests = root / "requests.jsonl"
        self.config = root / "claude-config" if config_dir else self.home / ".claude"
        self.base = self.env(claude)
        if config_dir:
            self.base["CLAUDE_CONFIG_DIR"] = str(self.config)
        (root / "api.py").write_text(RECORDING_API.format(here=str(HERE),
                                                          requests=str(self.requests)))

    def vv(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "vibe_vault", *args], env=self.base,
                              capture_output=True, text=True, timeout=300, check=False)

    def client(self, name: str, *args: str) -> list[dict[str, object]]:
        """One `claude -p` run in the namespace; its stream-json output."""
        out = self.root / f"{name}.jsonl"
        script = self.root / f"{name}.sh"
        script.write_text("\n".join([
            "set -u", f"cd {self.project}",
            f"{sys.executable} {self.root / 'api.py'} --port {PORT} --log {self.api_log} "
            "--lifetime 120 >/dev/null 2>&1 &", "api=$!", "sleep 0.5",
            f"timeout 90 {self.claude} -p {' '.join(map(json.dumps, args))} --output-format "
            f"stream-json --verbose > {out} 2> {self.root / name}.err",
            "status=$?", "kill $api 2>/dev/null", "exit 0", ""]))
        done = subprocess.run([str(NETNS_RUN), "sh", str(script)], env=self.base,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        return [json.loads(ln) for ln in out.read_text().splitlines() if ln.startswith("{")]

    def session_files(self, sid: str) -> dict[str, bytes]:
        projects = self.config / "projects"
        return {p.relative_to(projects).as_posix(): p.read_bytes()
                for p in sorted(projects.rglob("*"))
                if p.is_file() and (p.stem == sid or sid in p.relative_to(projects).parts)}


@pytest.mark.parametrize("config_dir", [False, True], ids=["home", "CLAUDE_CONFIG_DIR"])
@pytest.mark.parametrize("version", VERSIONS)
def test_a_deleted_session_is_resumed_after_vv_restore(
        tmp_path_factory: pytest.TempPathFactory, version: str, config_dir: bool) -> None:
    if os.geteuid() != 0 or not NETNS_RUN.exists():
        pytest.fail(f"the real-client tests need root and {NETNS_RUN}")
    world = World(tmp_path_factory.mktemp(f"restore-{version}"), claude_at(version), config_dir)
    installed = world.vv("hook", "install")
    assert installed.returncode == 0, installed.stderr
    first = world.client("first", FIRST)
    sid = str(next(o["session_id"] for o in first if o.get("session_id")))
    assert any(o.get("type") == "result" and not o.get("is_error") for o in first), first
    saved = world.session_files(sid)  # the client's own bytes: the oracle
    main = next(Path(world.config / "projects" / k) for k in saved if k.endswith(f"{sid}.jsonl"))
    # the archive was made by the hooks alone (SessionEnd, or its background run)
    verified = world.vv("archive", "--verify")
    assert verified.returncode == 0 and "verified 0 files" not in verified.stdout, verified

    # Claude Code's cleanup: the transcript and the session's folder go.
    main.unlink()
    shutil.rmtree(main.parent / sid, ignore_errors=True)
    sent = len(_requests(world))
    lost = world.client("lost", LATER, "--resume", sid)
    assert not any(FIRST in " ".join(words) for words in _requests(world)[sent:]), lost

    restored = world.vv("restore", sid[:12])
    assert restored.returncode == 0, restored.stderr
    assert f"claude --resume {sid}" in restored.stdout
    assert str(world.project) in restored.stdout
    assert world.session_files(sid) == saved
    requests_before = len(_requests(world))
    again = world.client("again", LATER, "--resume", sid)
    assert any(o.get("type") == "result" and not o.get("is_error") for o in again), again
    later = _requests(world)[requests_before:]
    assert later, "the resumed session sent nothing to the API"
    # the earlier conversation went to the API with the new prompt
    assert any(FIRST in " ".join(words) and LATER in " ".join(words) for words in later), later


def _requests(world: World) -> list[list[str]]:
    if not world.requests.exists():
        return []
    return [json.loads(ln) for ln in world.requests.read_text().splitlines()]
