"""What every real-client test needs: the pinned clients (installed from npm on
first use), a scratch world per run (home, project, vault, state) and a way to
drive the client in it, offline, inside a loopback-only network namespace with
the fake API (`fake_api.py`) listening.

The versions tested are `CLIENT_VERSIONS` (the oldest supported and the newest
today); `VV_CLIENT_VERSION=2.1.340` (or `2.1.197,2.1.340`) runs any others
instead. The fixtures over these live in `conftest.py`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

# The oldest client vibe-vault supports, and the newest on the registry today.
CLIENT_VERSIONS = ("2.1.197", "2.1.332")
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NETNS_RUN = ROOT.parent / "shared" / "tools" / "claude-client" / "netns-run"
CACHE_ROOT = Path(os.environ.get("VV_CLIENT_CACHE")
                  or Path.home() / ".cache" / "vibe-vault-tests")
PORT = 8765


def versions() -> list[str]:
    """The client versions this run tests."""
    chosen = os.environ.get("VV_CLIENT_VERSION", "").strip()
    if chosen:
        return [v.strip() for v in chosen.split(",") if v.strip()]
    return list(CLIENT_VERSIONS)


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split(".") if p.isdigit())


def client(version: str) -> Path:
    """Claude Code `version`, installed from npm into the cache folder on first use."""
    folder = CACHE_ROOT / f"claude-code-{version}"
    claude = folder / "node_modules" / ".bin" / "claude"
    if not claude.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("the real-client tests need npm to install Claude Code "
                        f"{version}; install Node.js and npm")
        folder.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(folder),
                               f"@anthropic-ai/claude-code@{version}"],
                              capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0 or not claude.exists():
            pytest.fail(f"npm could not install Claude Code {version}:\n{done.stderr[-2000:]}")
    said = subprocess.run([str(claude), "--version"], capture_output=True, text=True,
                          timeout=60, check=False).stdout
    assert said.split()[:1] == [version], said
    return claude


def need_namespace() -> None:
    if os.geteuid() != 0 or not NETNS_RUN.exists():
        pytest.fail("the real-client tests run the client in a loopback-only network "
                    f"namespace: they need root and {NETNS_RUN}")


class Run:
    """One scratch world: a home, a project folder, a vault, a state folder, the
    client that runs there, and what the client and the fake API said."""

    def __init__(self, root: Path, claude: Path | None = None, version: str = "") -> None:
        self.root = root
        self.claude = claude or Path("claude")
        self.version = version
        self.home = root / "home"
        self.project = root / "project"
        self.vault = root / "vault"
        self.state = root / "state"
        self.api_log = root / "api.jsonl"
        self.bodies = root / "bodies"
        for d in (self.home, self.project):
            d.mkdir(parents=True)
        self.outputs: dict[str, list[dict[str, Any]]] = {}
        # when each line of the client's output arrived (ms), in the same order
        self.arrived: dict[str, list[float]] = {}
        self.mode = ""

    def at_least(self, version: str) -> bool:
        return version_tuple(self.version) >= version_tuple(version)

    def env(self, claude: Path | None = None) -> dict[str, str]:
        """The environment the client (`claude`, else this world's) and vv run with."""
        if claude is not None:
            self.claude = claude
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("VV_", "CLAUDE", "ANTHROPIC", "XDG_"))}
        env.update(
            HOME=str(self.home), VV_VAULT=str(self.vault), VV_STATE_DIR=str(self.state),
            PATH=f"{self.claude.parent}{os.pathsep}{env.get('PATH', '')}",
            ANTHROPIC_API_KEY="sk-ant-dummy", ANTHROPIC_BASE_URL=f"http://127.0.0.1:{PORT}",
            DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1", IS_SANDBOX="1",
            CLAUDE_CODE_MAX_RETRIES="2", PYTHONDONTWRITEBYTECODE="1",
        )
        # The hooks the client runs read vibe_vault's bytecode from the run's own
        # folder (conftest's BYTECODE, compiled once per run), as an installed `vv`
        # reads pip's: with no bytecode written (nothing lands in the source tree)
        # each hook compiled every module it imports from source, ~0.13 s of CPU a hook
        # that no user's hook pays, inside the times test_every_hook_is_quick
        # checks. A module missed there is compiled from source, as before.
        bytecode = os.environ.get("VV_TEST_BYTECODE")
        if bytecode and not env.get("PYTHONPYCACHEPREFIX"):
            env["PYTHONPYCACHEPREFIX"] = bytecode
        return env

    def vv(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """`vv` in this world (this checkout's code), as a subprocess."""
        return subprocess.run([sys.executable, "-m", "vibe_vault", *args],
                              env=env or self.env(), capture_output=True, text=True,
                              check=False)

    def fake_api(self, kbase: int = 0, lifetime: int = 300) -> str:
        """The shell line that starts the fake API in the background (`$api`)."""
        return (f"{sys.executable} {HERE / 'fake_api.py'} --port {PORT} --log {self.api_log} "
                f"--bodies {self.bodies} --kbase {kbase} --lifetime {lifetime} "
                ">/dev/null 2>&1 &\napi=$!\nsleep 0.5")

    def drive(self, lines: list[str], env: dict[str, str] | None = None,
              timeout: int = 600, name: str = "drive") -> subprocess.CompletedProcess[str]:
        """Run shell `lines` in the project folder, inside the namespace."""
        need_namespace()
        script = self.root / f"{name}.sh"
        script.write_text("set -u\ncd " + str(self.project) + "\n" + "\n".join(lines) + "\n")
        return subprocess.run([str(NETNS_RUN), "sh", str(script)], env=env or self.env(),
                              capture_output=True, text=True, timeout=timeout, check=False)

    def transcripts(self) -> list[Path]:
        return sorted((self.home / ".claude" / "projects").glob("*/*.jsonl"))

    def notes(self) -> dict[str, str]:
        """Session notes by session id (read from each note's frontmatter)."""
        out = {}
        for p in self.vault.glob("Projects/*/sessions/*.md"):
            text = p.read_text(encoding="utf-8")
            sid = next(ln.split(": ", 1)[1] for ln in text.splitlines()
                       if ln.startswith("session_id: "))
            out[sid.strip('"')] = text
        return out

    def api_records(self) -> list[dict[str, Any]]:
        """The fake API's log: one record per request it answered."""
        if not self.api_log.exists():
            return []
        return [json.loads(ln) for ln in self.api_log.read_text().splitlines()]

    def offered(self, session: str | None = None) -> set[str]:
        """Every tool the client offered the model in any request (of one
        session), deferred ones (loadable through ToolSearch) included."""
        out: set[str] = set()
        for rec in self.api_records():
            if session is not None and rec.get("session") != session:
                continue
            out.update(rec.get("tools", []))
            out.update(rec.get("deferred", []))
        return out


def frontmatter(note: str, key: str) -> str:
    return next(ln.split(": ", 1)[1] for ln in note.splitlines() if ln.startswith(f"{key}: "))


def frontmatter_int(note: str, key: str) -> int:
    return int(frontmatter(note, key))
