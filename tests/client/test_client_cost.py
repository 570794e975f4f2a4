"""Cost as the client counts it: twelve sessions on each client version whose
turns cross 200k prompt tokens (the fake API's usage grows with k, which starts
at `KBASE`), two in fast mode, one with a subagent, one resumed, one forked
from that. Each note's tokens and cost equal the client's own report
(`--output-format json`: `total_cost_usd`, `modelUsage`) to the hundredth of a
cent; so does the price table alone, on a copy of the transcripts without the
client's `cost-state` lines (as an older client writes them).

The oracle: the fake API's log (which replies a session file holds) and the
client's reports of each run. Newer clients carry a resumed or forked
session's earlier total on, so their last report is the whole conversation's;
older ones report each run alone, and the conversation's is the sum of the
reports of the runs its file holds. Which one a client does is read from its
report's tokens, never assumed.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from world import Run, frontmatter, frontmatter_int

KBASE = 12  # k = 21 is the first reply whose prompt is over 200k tokens
CENT_HUNDREDTH = 0.0001

SESSIONS = {
    "text": "hello there",
    "tool": "please run: echo hi",
    "text2": "hello over there",
    "failing": "please run: exit 3",
    "write": "please write: {project}/costed.txt",
    "tool2": "please run: echo two",
    "fast": "go fast: hello",
    "fast-tool": "go fast and please run: echo quick",
    "delegate": "please delegate: say hello",
    "tool3": "please run: echo three",
}


@pytest.fixture(scope="module")
def costed(claude: Path, client_version: str,
           tmp_path_factory: pytest.TempPathFactory) -> Run:
    world = Run(tmp_path_factory.mktemp("costed"), claude, client_version)
    assert world.vv("hook", "install").returncode == 0
    lines = [world.fake_api(kbase=KBASE)]

    def session(name: str, args: str) -> None:
        lines.append(f"timeout 60 {claude} {args} --output-format json --permission-mode "
                     f"bypassPermissions > {world.root / name}.json 2> {world.root / name}.err")
        # where this run's requests end in the API's log
        lines.append(f"wc -l < {world.api_log} > {world.root / name}.upto")

    for name, prompt in SESSIONS.items():
        session(name, f"-p {json.dumps(prompt.format(project=world.project))}")
    sid = (f"$({sys.executable} -c \"import json,sys; print(json.load(open(sys.argv[1]))"
           "['session_id'])\" {})")
    session("resumed", f"-p 'hello once more' --resume {sid.format(world.root / 'tool.json')}")
    session("forked", f"-p 'hello from the fork' --resume "
            f"{sid.format(world.root / 'resumed.json')} --fork-session")
    lines.append("kill $api 2>/dev/null; true")
    done = world.drive(lines)
    assert done.returncode == 0, done.stderr
    return world


RUNS = [*SESSIONS, "resumed", "forked"]


def reports(run: Run) -> dict[str, dict[str, Any]]:
    return {name: json.loads((run.root / f"{name}.json").read_text()) for name in RUNS}


def replies_by_run(run: Run) -> dict[str, dict[str, dict[str, Any]]]:
    """The fake API's replies (usage by message id) each run got."""
    records = [r for r in run.api_records() if "id" in r or "error" in r]
    out: dict[str, dict[str, dict[str, Any]]] = {}
    start = 0
    for name in RUNS:
        upto = int((run.root / f"{name}.upto").read_text())
        out[name] = {r["id"]: r["usage"] for r in records[start:upto] if "id" in r}
        start = upto
    return out


def file_ids(transcript: Path) -> set[str]:
    """The message ids of the assistant lines of a session file and its subagents'."""
    files = [transcript, *sorted((transcript.parent / transcript.stem).rglob("*.jsonl"))]
    ids = set()
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            o = json.loads(line)
            m = o.get("message")
            if o.get("type") == "assistant" and isinstance(m, dict) and m.get("id"):
                ids.add(m["id"])
    return ids


TOKENS = (("input_tokens", "inputTokens"), ("output_tokens", "outputTokens"),
          ("cache_read_input_tokens", "cacheReadInputTokens"),
          ("cache_creation_input_tokens", "cacheCreationInputTokens"))


def client_tokens(report: dict[str, Any]) -> dict[str, int]:
    return {ours: sum(int(u[theirs]) for u in report["modelUsage"].values())
            for ours, theirs in TOKENS}


# The run each resumed or forked run continues.
CONTINUES = {"resumed": "tool", "forked": "resumed"}


def model_costs(report: dict[str, Any]) -> dict[str, float]:
    return {model.removesuffix("[1m]"): float(u["costUSD"])
            for model, u in report["modelUsage"].items()}


def run_costs(run: Run) -> dict[str, tuple[float, dict[str, float]]]:
    """By run: what the client counted for that run's own requests (in all, by
    model). A client that carries a resumed or forked conversation's total on
    reports more tokens than the run's replies hold; its own part is then its
    report less the report of the run it continues (itself a running total)."""
    said = reports(run)
    got = replies_by_run(run)
    out: dict[str, tuple[float, dict[str, float]]] = {}
    for name in RUNS:
        r = said[name]
        cost, by_model = float(r["total_cost_usd"]), model_costs(r)
        own = {k: sum(int(u[k]) for u in got[name].values()) for k, _ in TOKENS}
        if client_tokens(r) != own:
            assert name in CONTINUES, (name, client_tokens(r), own)
            before = said[CONTINUES[name]]
            assert client_tokens(r)["input_tokens"] == \
                client_tokens(before)["input_tokens"] + own["input_tokens"], name
            cost -= float(before["total_cost_usd"])
            for model, c in model_costs(before).items():
                by_model[model] = by_model.get(model, 0.0) - c
            by_model = {m: c for m, c in by_model.items() if abs(c) > 1e-12}
        out[name] = (cost, by_model)
    return out


def expected(run: Run) -> dict[str, tuple[dict[str, int], float, dict[str, float]]]:
    """By session id: the tokens of the replies of the runs that were this
    session's (a fork's file also holds copies of the replies of the session
    it was forked from: they are that session's), and the cost (in all, by
    model) the client counted for those runs."""
    said = reports(run)
    got = replies_by_run(run)
    costs = run_costs(run)
    out = {}
    for transcript in run.transcripts():
        mine = [n for n in RUNS if said[n]["session_id"] == transcript.stem]
        if not mine:
            continue
        held = file_ids(transcript)
        replies = {i: u for n in mine for i, u in got[n].items()}
        assert replies.keys() <= held, transcript.stem
        tokens = {k: sum(int(u[k]) for u in replies.values()) for k, _ in TOKENS}
        by_model: dict[str, float] = {}
        for n in mine:
            for model, c in costs[n][1].items():
                by_model[model] = by_model.get(model, 0.0) + c
        out[transcript.stem] = (tokens, sum(costs[n][0] for n in mine), by_model)
    return out


def test_turns_cross_200k_and_some_ran_fast(costed: Run) -> None:
    """What this file claims of its sessions is so."""
    replies = [r for r in costed.api_records() if "id" in r]
    prompts = [u["input_tokens"] + u["cache_read_input_tokens"] +
               u["cache_creation_input_tokens"] for u in (r["usage"] for r in replies)]
    assert min(prompts) < 200_000 < max(prompts), prompts
    assert any(r["usage"].get("speed") == "fast" for r in replies)
    assert len(reports(costed)) == 12
    forked = reports(costed)["forked"]["session_id"]
    assert forked != reports(costed)["resumed"]["session_id"]


def test_every_note_costs_what_the_client_counted(costed: Run) -> None:
    want = expected(costed)
    notes = costed.notes()
    assert len(want) == 11, want.keys()  # the resumed run added to its session
    compared = []
    for sid, (tokens, cost, _) in want.items():
        note = notes[sid]
        assert frontmatter_int(note, "input_tokens") == tokens["input_tokens"], sid
        assert frontmatter_int(note, "output_tokens") == tokens["output_tokens"], sid
        assert frontmatter_int(note, "cache_read_tokens") == tokens["cache_read_input_tokens"]
        assert frontmatter_int(note, "cache_creation_tokens") == \
            tokens["cache_creation_input_tokens"], sid
        ours = float(frontmatter(note, "cost_usd"))
        compared.append((sid[:8], ours, round(cost, 6)))
        assert abs(ours - cost) <= CENT_HUNDREDTH, (sid, ours, cost)
        assert "unpriced" not in note
    print(f"{costed.version}: note vs client cost", compared)


def test_sessions_add_up_to_what_the_client_counted(costed: Run) -> None:
    """Totals over sessions (what `vv stats` and the project and home notes
    add up) count each API request once: the notes' tokens add up to the
    fake API's replies, their costs to what the client counted over all runs,
    and `vv stats` says the same."""
    notes = costed.notes()
    replies = [r for r in costed.api_records() if "id" in r]
    for ours, _ in TOKENS:
        key = ours.replace("_input", "")
        assert sum(frontmatter_int(n, key) for n in notes.values()) == \
            sum(int(r["usage"][ours]) for r in replies), ours
    client_total = sum(c for c, _ in run_costs(costed).values())
    ours_total = sum(float(frontmatter(n, "cost_usd")) for n in notes.values())
    print(f"{costed.version}: {len(replies)} API replies; sum of notes ${ours_total:.6f}, "
          f"client ${client_total:.6f}")
    assert abs(ours_total - client_total) <= CENT_HUNDREDTH * len(notes)
    done = costed.vv("stats", "--json")
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout)
    assert abs(stats["total"]["cost_usd"] - client_total) <= CENT_HUNDREDTH * len(notes), stats


def test_cost_by_model_is_the_clients(costed: Run) -> None:
    from vibe_vault import registry
    from vibe_vault.config import Config

    cfg = Config(vault=str(costed.vault), state_dir=str(costed.state),
                 projects_root=str(costed.home / ".claude" / "projects"),
                 config_file=str(costed.root / "none.toml"))
    records = registry.load(cfg).sessions
    for sid, (_, _, by_model) in expected(costed).items():
        # (our rows keep apart requests priced otherwise: "model (fast, ...)")
        ours: dict[str, float] = {}
        for key, cost in records[sid].cost_by_model.items():
            model = key.split(" (", 1)[0]
            ours[model] = ours.get(model, 0.0) + cost
        assert set(ours) == set(by_model), (sid, ours, by_model)
        for model, cost in by_model.items():
            assert abs(ours[model] - cost) <= CENT_HUNDREDTH, (sid, model, ours, by_model)


def test_the_price_table_alone_prices_as_the_client(costed: Run, tmp_path: Path) -> None:
    """Without the client's own count (a copy of the transcripts without their
    `cost-state` lines), the price table gives the client's figures: long
    prompts, fast mode and all."""
    projects = tmp_path / "claude" / "projects"
    shutil.copytree(costed.home / ".claude" / "projects", projects)
    for f in projects.rglob("*.jsonl"):
        kept = [ln for ln in f.read_text(encoding="utf-8").splitlines(keepends=True)
                if '"type":"cost-state"' not in ln]
        f.write_text("".join(kept), encoding="utf-8")
    env = costed.env()
    env.update(VV_VAULT=str(tmp_path / "vault"), VV_STATE_DIR=str(tmp_path / "state"),
               CLAUDE_CONFIG_DIR=str(tmp_path / "claude"))
    done = costed.vv("backfill", env=env)
    assert done.returncode == 0, done.stderr
    notes = {}
    for p in (tmp_path / "vault").glob("Projects/*/sessions/*.md"):
        text = p.read_text(encoding="utf-8")
        notes[frontmatter(text, "session_id").strip('"')] = text
    for sid, (_, cost, _) in expected(costed).items():
        ours = float(frontmatter(notes[sid], "cost_usd"))
        assert abs(ours - cost) <= CENT_HUNDREDTH, (sid, ours, cost)
