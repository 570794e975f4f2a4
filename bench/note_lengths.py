"""How long and how repetitive the corpus notes are, now and (optionally) as an
earlier revision wrote them.

    python bench/note_lengths.py                 # this checkout
    python bench/note_lengths.py --before REV    # and REV, from a git worktree

Every corpus session is backfilled into a scratch vault; for each set of notes
it prints the median and total lines, the longest story line, and the notes in
which one command is listed twice in the Commands section. Not a test: the
figures are for reading, and for the closing note of a change to the notes.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


def claude_home(into: Path) -> Path:
    """A Claude Code home holding every corpus folder of transcripts as a project."""
    projects = into / "projects"
    folders = sorted({p.parent for p in CORPUS.rglob("*.jsonl")
                      if "subagents" not in p.parts and not p.name.startswith("agent-")})
    for i, folder in enumerate(folders):
        dest = projects / f"p{i:02d}-{folder.name}"
        dest.mkdir(parents=True)
        for main in folder.glob("*.jsonl"):
            shutil.copyfile(main, dest / main.name)
            if (folder / main.stem).is_dir():  # its subagents
                shutil.copytree(folder / main.stem, dest / main.stem)
    return into


def notes_of(src: Path, home: Path, work: Path) -> dict[str, str]:
    vault = work / "vault"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VV_", "CLAUDE", "XDG_"))}
    env.update(VV_VAULT=str(vault), VV_STATE_DIR=str(work / "state"),
               VV_CONFIG=str(work / "config.toml"), CLAUDE_CONFIG_DIR=str(home),
               HOME=str(work / "home"), PYTHONPATH=str(src))
    subprocess.run([sys.executable, "-m", "vibe_vault", "backfill"], env=env, check=True,
                   capture_output=True)
    return {p.name: p.read_text(encoding="utf-8")
            for p in sorted(vault.glob("Projects/*/sessions/*.md"))}


def report(label: str, notes: dict[str, str]) -> float:
    lengths = [n.count("\n") for n in notes.values()]
    story_lines = [ln for n in notes.values()
                   for ln in n.split("\n## Story\n", 1)[-1].split("\n## ", 1)[0].splitlines()
                   if ln.startswith("- ")]
    repeated = 0
    for note in notes.values():
        section = note.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0] \
            if "\n## Commands\n" in note else ""
        # digest entries, and the rows of the older table
        shown = re.findall(r"^(?:> )?(?:- |\| )(`[^\n]*?`) (?:—|\|)", section, re.M)
        repeated += len(shown) != len(set(shown))
    median = statistics.median(lengths) if lengths else 0
    longest = max((len(ln) for ln in story_lines), default=0)
    print(f"{label:<10} {len(notes):>5} notes  median {median:>6.1f} lines  "
          f"total {sum(lengths):>6}  longest action line {longest:>4} chars  "
          f"notes listing a command twice {repeated}")
    return float(median)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", help="a git revision to compare with")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="vv-lengths-") as tmp:
        scratch = Path(tmp)
        home = claude_home(scratch / "claude")
        now = report("now", notes_of(ROOT / "src", home, scratch / "now"))
        if args.before:
            tree = scratch / "before-tree"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree),
                            args.before], check=True, capture_output=True)
            try:
                before = report(args.before[:10],
                                notes_of(tree / "src", home, scratch / "before"))
            finally:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                                str(tree)], check=False, capture_output=True)
            if before:
                change = 100 * (now - before) / before
                print(f"median note {abs(change):.0f}% {'shorter' if change < 0 else 'longer'}"
                      " than before")
    return 0


if __name__ == "__main__":
    sys.exit(main())
