"""Fixtures of the real-client tier, for every test file here: each test that
asks for `client_version` (or `claude`, or `world`) runs once per client
version under test (`world.versions()`: 2.1.197 and 2.1.332, or those named by
`VV_CLIENT_VERSION`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from world import Run, client, need_namespace, versions


@pytest.fixture(scope="session", params=versions(), ids=lambda v: f"claude-{v}")
def client_version(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def claude(client_version: str) -> Path:
    """The client binary of this version (installed on first use)."""
    need_namespace()
    return client(client_version)


@pytest.fixture
def world(claude: Path, client_version: str, tmp_path: Path) -> Run:
    """A fresh scratch world for one test, on this client version."""
    return Run(tmp_path, claude, client_version)
