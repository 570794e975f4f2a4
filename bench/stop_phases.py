"""Where a long session's Stop spends its instructions, phase by phase.

    python bench/stop_phases.py                  # 100 and 500 MB (builds both, ~2 GB scratch)
    python bench/stop_phases.py --sizes 100      # one size
    python bench/stop_phases.py --work DIR       # keep (and reuse) the fixtures in DIR

Each size is the fixture of `bench.py --instructions`: a session of that many
MB that vv has read to its end (its first Stop), then one new turn. The Stop
after that turn is run under callgrind once per phase, ended (`os._exit(0)`)
right after the phase's function returns, from the same saved state and
vault each time; a phase's cost is the difference from the phase before.
`import msgspec` is the floor of the same run. The figures are instruction
counts (PYTHONHASHSEED=0): they do not move with the machine's load.
Ending a phase early costs ~0.2 M (the patch), so "rest" can be just below 0.

A --work directory's fixtures keep the state and note the code that first
made them wrote: to compare two trees (--src), give each its own directory.
A state of another STATE_VERSION is rebuilt from the whole transcript, and
the render memo is filed under the rendering modules' file sizes and times
(render.memo.code_stamp): counted by another tree, or after an edit of one
of those modules, every settled turn renders again (at 100 MB, 103 M
instead of 28 M).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench

# (phase, function in vibe_vault.session, end before or after it runs)
PHASES = [
    ("imports, hook input", "update_session", "before"),
    ("load state", "_state_to_fold_into", "after"),
    ("read, fold", "_read_new", "after"),
    ("figures", "figures", "after"),
    ("render", "render", "after"),
    ("note write", "write_session_note", "after"),
    ("state encode, write", "Store.save", "after"),
    ("rest (to exit)", "", ""),  # (~-0.2 M: what ending a phase early costs)
]

# The launcher `bench.py` counts, ending the Stop at one phase (STOP_AT names it).
_PHASE_LAUNCHER = bench._SLOW_CLOCK + '''import os
import re
import sys
spec = os.environ.get("STOP_AT", "")
if spec:
    import gc
    gc.disable()  # as a Stop runs (left off: a collection here is no phase's)
    try:  # the hook's modules from their kept file, as cli.entry loads them
        from vibe_vault import kept_modules
        kept_modules.install()
    except ImportError:
        pass  # (a tree from before kept_modules)
    import vibe_vault.session as session
    name, when = spec.split(":")
    owner, attr = (session, name) if "." not in name else (
        getattr(session, name.split(".")[0]), name.split(".")[1])
    real = getattr(owner, attr)
    def ended(*args, **kwargs):
        if when == "after":
            real(*args, **kwargs)
        os._exit(0)
    setattr(owner, attr, ended)
from vibe_vault.cli import entry
sys.argv[0] = re.sub(r"(-script\\.pyw|\\.exe)?$", "", sys.argv[0])
sys.exit(entry())
'''


def prepare(maker: bench.Maker, work: Path, mb: int, src: Path) -> Path:
    """A fixture of `mb` MB under work/sMB: its first Stop done, one turn
    added, state and vault kept aside (state0, vault0) for every phase run."""
    d = work / f"s{mb}"
    d.mkdir(parents=True, exist_ok=True)
    launcher = d / "vv-phases"
    launcher.write_text(_PHASE_LAUNCHER)
    if (d / "meta.json").exists():
        return d
    root, env, sid, path = bench._one_session(maker, d, mb * 1_000_000)
    env["PYTHONPATH"] = str(src)
    event = bench.stop_event(sid, path)
    subprocess.run([bench.PY, str(launcher), "hook"], input=event, env=env,
                   capture_output=True, check=True)
    with open(path, "ab") as f:
        f.write(maker.one_turn(sid))
    for sub in ("state", "vault"):
        shutil.copytree(root / sub, d / f"{sub}0", symlinks=True)
    (d / "meta.json").write_text(json.dumps({"root": str(root), "event": event.decode(),
                                             "env": env}))
    return d


def count(d: Path, stop_at: str, src: Path) -> int:
    meta = json.loads((d / "meta.json").read_text())
    root = Path(meta["root"])
    for sub in ("state", "vault"):
        shutil.rmtree(root / sub, ignore_errors=True)
        shutil.copytree(d / f"{sub}0", root / sub, symlinks=True)
    env = {**meta["env"], "PYTHONPATH": str(src), "STOP_AT": stop_at}
    n = bench.instructions([bench.PY, str(d / "vv-phases"), "hook"], env,
                           meta["event"].encode())
    log = root / "state" / "vv.log"
    if log.exists():
        raise RuntimeError(f"the measured Stop logged: {log.read_text()}")
    return n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 500], help="MB")
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--work", type=Path, default=None,
                    help="fixture directory, kept and reused (default: a temporary one)")
    ap.add_argument("--src", type=Path, default=bench.ROOT / "src",
                    help="the vibe_vault source tree to measure")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing to count")
        return 1
    work = args.work or Path(tempfile.mkdtemp(prefix="vv-phases-"))
    maker = bench.Maker(args.seed)
    fl = bench.floor_instructions()
    print(f"floor (python -c 'import msgspec'): {fl / 1e6:.1f} M instructions")
    for mb in args.sizes:
        d = prepare(maker, work, mb, args.src.resolve())
        before = 0
        print(f"\nStop after one new turn, {mb} MB")
        for phase, name, when in PHASES:
            n = count(d, f"{name}:{when}" if name else "", args.src.resolve())
            print(f"  {phase:24s} {(n - before) / 1e6:7.1f} M   (to here {n / 1e6:6.1f} M)")
            before = n
            if when == "before":
                print(f"  {'(beyond the floor)':24s} {(n - fl) / 1e6:7.1f} M")
        print(f"  {'total':24s} {before / 1e6:7.1f} M   = {before / fl:.2f}× floor (goal ≤ 1.50×)")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
