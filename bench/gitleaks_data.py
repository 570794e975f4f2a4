"""Make `bench/data/gitleaks_rules.json` from a checkout of gitleaks.

    python bench/gitleaks_data.py /path/to/gitleaks [commit]

Only facts about token shapes are kept: each rule's id, its regex, its
keywords, which group is the secret, and what gitleaks itself does not
report (the least entropy of a secret, and its allow-lists' regexes and stop
words, the global ones too; paths are left out: texts have none). The source, its commit and its
licence (MIT) go in the file beside them. Rules with no regex (path-only
rules) are left out: they find files, not text.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

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

    def allowlist(a: dict[str, Any]) -> dict[str, Any]:
        return {"regexes": a.get("regexes", []), "stopwords": a.get("stopwords", []),
                "target": a.get("regexTarget", "secret"),
                "condition": a.get("condition", "OR"), "has_paths": bool(a.get("paths"))}

    rules = [{"id": r["id"], "regex": r["regex"], "keywords": r.get("keywords", []),
              "secret_group": r.get("secretGroup", 0), "entropy": r.get("entropy", 0),
              "allowlists": [allowlist(a) for a in r.get("allowlists", [])]}
             for r in config["rules"] if "regex" in r]
    data = {
        "source": "https://github.com/gitleaks/gitleaks config/gitleaks.toml",
        "commit": commit,
        # The rules' regexes are copied as published: the licence's notice goes with them.
        "licence": licence,
        "allowlist": allowlist(config.get("allowlist", {})),
        "rules": rules,
    }
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(rules)} rules from {commit[:12]} -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
