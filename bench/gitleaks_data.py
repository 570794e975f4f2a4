"""Make `bench/data/gitleaks_rules.json` from a checkout of gitleaks.

    python bench/gitleaks_data.py /path/to/gitleaks [commit]

Only facts about token shapes are kept: each rule's id, its regex, its
keywords and which group is the secret. The source, its commit and its
licence (MIT) go in the file beside them. Rules with no regex (path-only
rules) are left out: they find files, not text.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "gitleaks_rules.json"


def main() -> int:
    repo = sys.argv[1]
    rev = sys.argv[2] if len(sys.argv) > 2 else "HEAD"

    def show(path: str) -> str:
        return subprocess.run(["git", "--git-dir", repo, "show", f"{rev}:{path}"], check=True,
                              capture_output=True, text=True).stdout

    commit = subprocess.run(["git", "--git-dir", repo, "rev-parse", rev], check=True,
                            capture_output=True, text=True).stdout.strip()
    config = tomllib.loads(show("config/gitleaks.toml"))
    licence = show("LICENSE").splitlines()
    rules = [{"id": r["id"], "regex": r["regex"], "keywords": r.get("keywords", []),
              "secret_group": r.get("secretGroup", 0)}
             for r in config["rules"] if "regex" in r]
    data = {
        "source": "https://github.com/gitleaks/gitleaks config/gitleaks.toml",
        "commit": commit,
        # The rules' regexes are copied as published: the licence's notice goes with them.
        "licence": licence,
        "rules": rules,
    }
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(rules)} rules from {commit[:12]} -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
