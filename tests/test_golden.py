"""Golden notes: a handful of corpus sessions from different eras, rendered and
committed after a review by eye. A change in rendering fails here on purpose.

Regenerate after an intended change, then review the diff:

    VV_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import CORPUS, Env, frontmatter, main_files, session_files

pytestmark = pytest.mark.corpus  # every test here reads the shared corpus

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "v1.0-summary-thinking": "iansherr__claude-code-log/real_projects/-Users-dain-workspace-claude-code-log-sample/fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl",
    "v2.0-legacy-agent-files": "iansherr__claude-code-log/real_projects/-Users-dain-workspace-coderabbit-review-helper/cb2e607c-c758-415a-8b45-c49e4631906a.jsonl",
    "v2.1-subagents-dir": "iansherr__claude-code-log/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
    "v2.1-compaction": "entireio__cli/checkpoints/76/62d755ef9f/2/full.jsonl",
    "v2.1-windows-ai-title": "StefanJonssonInExchange__branch-pruner/checkpoints/8E/01M0CMD2M3YA1TN5W4K5W3TG8E/0/full.jsonl",
}


def render_case(tmp: Path, rel: str) -> str:
    main = CORPUS / rel
    env = Env(tmp)
    slug = tmp / "claude" / "projects" / "-golden"
    slug.mkdir(parents=True)
    shutil.copyfile(main, slug / main.name)
    for agent in session_files(main):
        dest = slug / agent.relative_to(main.parent)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(agent, dest)
        meta = agent.with_suffix(".meta.json")
        if meta.exists():
            shutil.copyfile(meta, dest.with_suffix(".meta.json"))
    r = env.vv("backfill", str(slug))
    assert r.returncode == 0, r.stderr
    notes = env.notes()
    assert len(notes) == 1
    return next(iter(notes.values()))


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_note(tmp_path: Path, name: str) -> None:
    note = render_case(tmp_path, CASES[name])
    golden = GOLDEN / f"{name}.md"
    if os.environ.get("VV_UPDATE_GOLDEN"):
        golden.write_text(note, encoding="utf-8")
    assert golden.exists(), f"missing {golden}; run with VV_UPDATE_GOLDEN=1"
    assert note == golden.read_text(encoding="utf-8")


def test_rendering_is_deterministic(tmp_path: Path) -> None:
    rel = CASES["v2.1-compaction"]
    assert render_case(tmp_path / "a", rel) == render_case(tmp_path / "b", rel)


WRAPPER = re.compile(r"</?(?:command-name|command-message|command-args|local-command-stdout"
                     r"|system-reminder|ide_opened_file|ide_selection)\b")


def test_no_wrapper_tag_in_titles_and_no_base64_anywhere(tmp_path: Path) -> None:
    env = Env(tmp_path)
    r = env.vv("backfill", str(CORPUS))
    assert r.returncode == 0
    notes = env.notes()
    assert len(notes) >= len([p for p in main_files() if p.stat().st_size > 2000]) // 2
    for rel, note in notes.items():
        fm = frontmatter(note)
        title = str(fm["title"])
        assert not WRAPPER.search(title), (rel, title)
        # (80 characters, up to a half more to end a request's thought: review 26)
        assert 0 < len(title) <= 120, (rel, title)
        assert title.lower().strip(".! ") not in ("continue", "yes", "ok"), rel
        assert not title.startswith("/"), (rel, title)
        assert "base64," not in note and not re.search(r"[A-Za-z0-9+/]{200,}", note), rel
