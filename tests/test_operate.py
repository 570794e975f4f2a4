"""Installing and operating vv: hook install/uninstall, the plugin, doctor,
stats, config, and context at session start."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest

from conftest import ROOT, Env, frontmatter, in_process
from test_backfill import SMALL, backfill, lay_out
from test_hook_contract import assert_harmless

# (no PreToolUse: tool timings come with PostToolUse's duration_ms since Claude
# Code 2.1.119; it is registered only for a client known to be older)
EVENTS = {"SessionStart", "Stop", "SubagentStop", "PreCompact", "SessionEnd",
          "PostToolUse", "PostToolUseFailure", "StopFailure"}
# Every event name Claude Code documents (shared/docs/hooks.md, section 2).
KNOWN_EVENTS = EVENTS | {"PreToolUse", "UserPromptSubmit", "PostToolUseFailure", "PostToolBatch",
                         "Notification", "SubagentStart", "StopFailure", "PostCompact"}


def settings(env: Env) -> Path:
    return env.claude / "settings.json"


OTHER = {
    "permissions": {"allow": ["Bash(ls:*)"]},
    "zeta": 1,
    "hooks": {
        "PostToolUse": [{"matcher": "Edit|Write",
                         "hooks": [{"type": "command", "command": "prettier --write"}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
    "alpha": {"nested": [1, 2]},
}


def test_install_merges_keeps_order_and_is_idempotent(env: Env) -> None:
    path = settings(env)
    path.parent.mkdir(parents=True)
    original = json.dumps(OTHER, indent=4)
    path.write_text(original)
    r = env.vv("hook", "install")
    assert r.returncode == 0, r.stderr
    data = json.loads(path.read_text())
    assert list(data) == ["permissions", "zeta", "hooks", "alpha"]
    assert data["hooks"]["Notification"] == OTHER["hooks"]["Notification"]
    assert data["hooks"]["PostToolUse"][0] == OTHER["hooks"]["PostToolUse"][0]
    assert set(data["hooks"]) == EVENTS | {"Notification"}
    ours = data["hooks"]["SessionEnd"][0]["hooks"][0]
    assert ours["timeout"] >= 10 and Path(ours["command"].split()[0]).is_absolute()
    assert data["hooks"]["PostToolUseFailure"][0]["hooks"][0]["async"] is True
    assert (path.parent / "settings.json.vv-backup").read_text() == original
    once = path.read_text()
    r = env.vv("hook", "install")
    assert r.returncode == 0 and b"already installed" in r.stdout
    assert path.read_text() == once
    r = env.vv("hook", "uninstall")
    assert r.returncode == 0
    assert json.loads(path.read_text()) == OTHER
    assert list(json.loads(path.read_text())) == list(OTHER)


def test_install_places_the_recall_skill_and_uninstall_takes_it_away(env: Env) -> None:
    skill = settings(env).parent / "skills" / "vibe-vault-recall" / "SKILL.md"
    assert env.vv("hook", "install").returncode == 0
    text = skill.read_text()
    assert text.startswith("---\nname: vibe-vault-recall\n") and "vv search --json" in text
    # the same words as the plugin's own copy, under the plugin's name
    plugin_copy = (ROOT / "skills" / "recall" / "SKILL.md").read_text()
    assert text == plugin_copy.replace("name: recall\n", "name: vibe-vault-recall\n", 1)
    packaged = ROOT / "src" / "vibe_vault" / "data" / "skills" / "recall" / "SKILL.md"
    assert packaged.read_text() == plugin_copy
    assert env.vv("hook", "uninstall").returncode == 0
    assert not skill.parent.exists()
    # a skill of the user's own under that name is never touched
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: mine\n---\n")
    assert env.vv("hook", "install").returncode == 0
    assert env.vv("hook", "uninstall").returncode == 0
    assert skill.read_text() == "---\nname: mine\n---\n"


def test_install_into_missing_file_and_uninstall_removes_hooks_key(env: Env) -> None:
    r = env.vv("hook", "install")
    assert r.returncode == 0, r.stderr
    assert set(json.loads(settings(env).read_text())["hooks"]) == EVENTS
    assert env.vv("hook", "uninstall").returncode == 0
    assert json.loads(settings(env).read_text()) == {}


def test_install_refuses_broken_and_read_only_files(env: Env) -> None:
    path = settings(env)
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": {"Stop": [}')
    r = env.vv("hook", "install")
    assert r.returncode == 1 and r.stderr.startswith(b"vv: ") and b"not valid JSON" in r.stderr
    assert path.read_text() == '{"hooks": {"Stop": [}'
    path.write_text('{"a": 1}')
    path.chmod(0o444)
    r = env.vv("hook", "install")
    assert r.returncode == 1 and b"read-only" in r.stderr
    assert path.read_text() == '{"a": 1}'
    assert not (path.parent / "settings.json.vv-backup").exists()


def test_install_dry_run_prints_a_diff_and_writes_nothing(env: Env) -> None:
    r = env.vv("hook", "install", "--dry-run")
    assert r.returncode == 0
    assert b"+++ " in r.stdout and b'"SessionEnd"' in r.stdout
    assert not settings(env).exists()


def test_project_and_local_scopes(env: Env, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    for scope, name in (("project", "settings.json"), ("local", "settings.local.json")):
        r = env.vv("hook", "install", "--scope", scope, "--project-dir", str(proj))
        assert r.returncode == 0, r.stderr
        assert set(json.loads((proj / ".claude" / name).read_text())["hooks"]) == EVENTS


def _valid_hooks_shape(hooks: object) -> None:
    """The shape in shared/docs/hooks.md §1.2: event -> [ {matcher?, hooks: [handler]} ]."""
    assert isinstance(hooks, dict)
    for event, groups in hooks.items():
        assert event in KNOWN_EVENTS, event
        assert isinstance(groups, list) and groups
        for g in groups:
            assert isinstance(g, dict) and set(g) <= {"matcher", "hooks"}
            assert isinstance(g.get("matcher", ""), str)
            assert isinstance(g["hooks"], list) and g["hooks"]
            for h in g["hooks"]:
                assert h["type"] == "command" and isinstance(h["command"], str)
                assert set(h) <= {"type", "command", "timeout", "async", "args", "shell", "if",
                                  "statusMessage"}
                assert isinstance(h.get("timeout", 1), int) and 0 < h.get("timeout", 1) <= 60
                assert isinstance(h.get("async", False), bool)


def test_plugin_and_example_hooks_are_valid() -> None:
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert plugin["name"] == "vibe-vault" and plugin["description"]
    hooks = json.loads((ROOT / "hooks" / "hooks.json").read_text())
    assert set(hooks) <= {"description", "hooks"}
    _valid_hooks_shape(hooks["hooks"])
    assert set(hooks["hooks"]) == EVENTS
    example = json.loads((ROOT / "examples" / "settings.json").read_text())
    _valid_hooks_shape(example["hooks"])
    assert set(example["hooks"]) == EVENTS


@pytest.mark.corpus
def test_doctor_healthy_and_broken(env: Env) -> None:
    lay_out(env, SMALL[:2])
    env.vv("hook", "install")
    backfill(env)
    r = env.vv("doctor", "--json")
    report = json.loads(r.stdout)
    assert r.returncode == 0, report
    assert report["ok"] and all(c["status"] != "fail" for c in report["checks"])
    (env.root / "config.toml").write_text("not = [valid\n")
    data = json.loads(settings(env).read_text())
    data["hooks"]["Stop"][0]["hooks"][0]["command"] = "/nonexistent/vv hook"
    settings(env).write_text(json.dumps(data))
    r = env.vv("doctor", "--json")
    assert r.returncode == 1
    failed = {c["name"] for c in json.loads(r.stdout)["checks"] if c["status"] == "fail"}
    assert {"config", "hooks"} <= failed
    r = env.vv("doctor")
    assert b"fix:" in r.stdout


def test_doctor_without_hooks_fails(env: Env) -> None:
    r = env.vv("doctor")
    assert r.returncode == 1 and b"not registered" in r.stdout


@pytest.mark.corpus
def test_stats_totals_equal_note_sums(env: Env) -> None:
    lay_out(env, SMALL)
    backfill(env)
    r = env.vv("stats", "--json")
    assert r.returncode == 0, r.stderr
    stats = json.loads(r.stdout)
    notes = [frontmatter(n) for n in env.notes().values()]
    assert stats["total"]["sessions"] == len(notes)
    for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens"):
        assert stats["total"][k] == sum(int(n[k]) for n in notes)
    assert stats["total"]["cost_usd"] == pytest.approx(sum(float(n.get("cost_usd", 0)) for n in notes),
                                                       abs=0.01)
    per_project = {p: b["sessions"] for p, b in stats["by_project"].items()}
    assert sum(per_project.values()) == len(notes)
    r = env.vv("stats", "--csv")
    assert r.stdout.decode().count("\n") == len(notes) + 1
    r = env.vv("stats")
    assert b"By project" in r.stdout and b"By model" in r.stdout


@pytest.mark.corpus
def test_session_start_context_only_when_enabled(env: Env) -> None:
    lay_out(env, SMALL[:1])
    backfill(env)
    fm = frontmatter(next(iter(env.notes().values())))
    ev = {"hook_event_name": "SessionStart", "session_id": "new-session", "source": "startup",
          "cwd": fm["cwd"]}
    r = env.hook(ev)
    assert_harmless(r)
    env.configure("inject_context = true\n")
    r = env.hook(ev)
    assert r.returncode == 0 and b"Traceback" not in r.stderr
    out = json.loads(r.stdout)
    ctx = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert len(ctx) <= 2000 and fm["title"] in ctx
    assert "vv search --json" in ctx  # how to look further back


@pytest.mark.corpus
def test_session_start_with_the_database_busy_says_nothing_and_warns_of_nothing(
        env: Env) -> None:
    """A backfill holding the database: the new session starts without context
    this time, and nothing goes wrong (no warning for `vv doctor` to report)."""
    import sqlite3

    lay_out(env, SMALL[:1])
    backfill(env)
    fm = frontmatter(next(iter(env.notes().values())))
    env.configure("inject_context = true\n")
    ev = {"hook_event_name": "SessionStart", "session_id": "new-session", "source": "startup",
          "cwd": fm["cwd"]}
    writer = sqlite3.connect(env.state / "vault.db", isolation_level=None)
    writer.execute("PRAGMA locking_mode = EXCLUSIVE")
    writer.execute("BEGIN EXCLUSIVE")
    try:
        r = env.hook(ev)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert_harmless(r)
    log = env.state / "vv.log"
    assert not log.exists() or b"WARN" not in log.read_bytes()
    assert fm["title"] in json.loads(env.hook(ev).stdout)["hookSpecificOutput"][
        "additionalContext"]  # and the next one has it


def test_config_show_init_and_unknown_keys(env: Env) -> None:
    (env.root / "config.toml").unlink()  # (a home without one: `config init` makes it)
    r = env.vv("config", "init")
    assert r.returncode == 0
    text = (env.root / "config.toml").read_text()
    assert "# lock_timeout = 1.0" in text
    r = env.vv("config", "show", "--json")
    shown = json.loads(r.stdout)
    assert shown["vault_path"]["source"] == "VV_VAULT"
    assert shown["lock_timeout"] == {"value": 1.0, "source": "default"}
    assert env.vv("config", "init").returncode == 1
    env.configure("lock_timeout = 2\nbogus = 1\n")
    r = env.vv("config", "show")
    assert b"unknown key 'bogus'" in r.stderr + r.stdout
    assert b"lock_timeout" in r.stdout and b"2.0" in r.stdout


@pytest.mark.parametrize("command", [[], ["backfill"], ["archive"], ["reprocess"], ["stats"],
                                     ["doctor"], ["config"], ["hook"], ["hook", "install"],
                                     ["search"], ["files"], ["show"], ["resume"]])
def test_help_has_examples(env: Env, command: list[str]) -> None:
    env.here = in_process("operate help")  # (the first as a process)
    r = env.vv(*command, "--help")
    assert r.returncode == 0
    assert b"usage: vv" in r.stdout
    if command:
        assert b"example" in r.stdout


def test_version_and_bad_usage(env: Env) -> None:
    r = env.vv("--version")
    assert r.returncode == 0 and r.stdout.startswith(b"vv ")
    r = env.vv("backfill", "/does/not/exist")
    assert r.returncode == 2 and r.stderr.startswith(b"vv: ") and r.stderr.count(b"\n") == 1


def test_console_script_installed() -> None:
    import sys

    vv = Path(sys.executable).parent / "vv"
    assert vv.exists() and vv.stat().st_mode & stat.S_IXUSR
    assert shutil.which("vv", path=str(vv.parent))


@pytest.mark.corpus
def test_doctor_reports_format_drift_and_last_run(env: Env) -> None:
    projects = lay_out(env, SMALL[:1])
    main = next(projects.rglob("*.jsonl"))
    with open(main, "a", encoding="utf-8") as f:
        f.write(json.dumps({"type": "hologram", "version": "9.9.9", "sessionId": "x"}) + "\n")
        f.write(json.dumps({"type": "user", "version": "9.9.9", "brandNewField": 1,
                            "message": {"role": "user", "content": "hi"}}) + "\n")
    r = env.hook({"hook_event_name": "SessionEnd", "session_id": main.stem,
                  "transcript_path": str(main), "reason": "other"})
    assert_harmless(r)
    report = json.loads(env.vv("doctor", "--json").stdout)
    checks = {c["name"]: c for c in report["checks"]}
    drift = checks["format drift"]
    assert drift["status"] == "warn"
    assert "hologram@9.9.9" in drift["detail"] and "brandNewField@9.9.9" in drift["detail"]
    assert "SessionEnd" in checks["last runs"]["detail"]
