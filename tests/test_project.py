"""project.py: a project's name, from its git remote or its folder."""

from __future__ import annotations

from pathlib import Path

from vibe_vault.project import project_name, remote_repo_name


def test_project_name_from_git_remote_or_directory(tmp_path: Path) -> None:
    repo = tmp_path / "checkout"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:me/My-Tool.git\n')
    assert project_name(str(repo)) == "My-Tool"
    assert project_name(str(tmp_path / "plain-dir")) == "plain-dir"
    assert project_name("C:\\Users\\s\\source\\repos\\branch-pruner") == "branch-pruner"
    assert remote_repo_name('[remote "up"]\n url = https://x.org/a/b/\n') == "b"
    assert project_name("") == "unknown"
