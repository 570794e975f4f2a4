"""fold/commands.py: a shell command is a test run, a build or another command."""

from __future__ import annotations

import json

import pytest

from vibe_vault.entries import decode_line


@pytest.mark.parametrize("command,kind", [
    ("pytest -q", "test"), ("python -m pytest tests", "test"), ("python3 -m unittest", "test"),
    ("tox -e py311", "test"), ("nox -s tests", "test"), ("go test ./...", "test"),
    ("cargo test", "test"), ("cargo nextest run", "test"), ("npm test", "test"),
    ("pnpm run test", "test"), ("yarn test", "test"), ("npx jest", "test"),
    ("npx vitest run", "test"), ("jest --watch", "test"), ("mocha", "test"),
    ("bundle exec rspec", "test"), ("vendor/bin/phpunit", "test"), ("ctest", "test"),
    ("mvn test", "test"), ("gradle test", "test"), ("./gradlew test", "test"),
    ("dotnet test", "test"), ("make test", "test"), ("just test", "test"),
    ("deno test", "test"), ("swift test", "test"), ("mix test", "test"),
    ("cargo build --release", "build"), ("go build ./...", "build"), ("npm run build", "build"),
    ("pnpm build", "build"), ("yarn build", "build"), ("make", "build"),
    ("cmake --build build", "build"), ("mvn package", "build"), ("gradle build", "build"),
    ("tsc -p .", "build"), ("python -m build", "build"), ("uv build", "build"),
    ("docker build .", "build"), ("vite build", "build"), ("next build", "build"),
    ("git status", "command"), ("ls -la", "command"), ("cat README.md", "command"),
])
def test_commands_are_classified(command: str, kind: str) -> None:
    from vibe_vault.fold import fold

    lines = [
        {"type": "user", "timestamp": "2026-01-01T00:00:00Z", "message": {"content": "go"}},
        {"type": "assistant", "timestamp": "2026-01-01T00:00:01Z", "message": {
            "id": "m1", "content": [{"type": "tool_use", "id": "t1", "name": "Bash",
                                     "input": {"command": command}}]}},
    ]
    from vibe_vault.state import Fold

    f = fold(Fold(), (decode_line(json.dumps(x).encode()) for x in lines))
    assert f.commands[-1].kind == kind
