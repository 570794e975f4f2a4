"""The gate against the world's formats: samples drawn from every rule of
gitleaks' public ruleset (`bench/secret_coverage.py`), and the table's own."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import secret_coverage as coverage  # noqa: E402

from vibe_vault.redact import Redactor  # noqa: E402

DATA = json.loads((BENCH / "data" / "gitleaks_rules.json").read_text())


@pytest.mark.parametrize("seed", [27, 1, 2])
def test_every_gitleaks_rule_is_sampled_and_95_percent_caught(seed: int) -> None:
    redactor = Redactor()
    missed, unsampled = [], []
    for rule in DATA["rules"]:
        pairs = coverage.samples(rule, 3, seed, [DATA["allowlist"]])
        if not pairs:
            unsampled.append(rule["id"])
        elif not all(coverage.caught(redactor.redact, t, s) for t, s in pairs):
            missed.append(rule["id"])
    assert not unsampled
    assert len(missed) <= 0.05 * len(DATA["rules"]), missed


def test_what_gitleaks_would_not_report_is_not_drawn() -> None:
    """The filter follows gitleaks' own data: a Kubernetes Secret's empty or
    templated value is on its allow-list, a generic value needs 3.5 bits."""
    rules = {r["id"]: r for r in DATA["rules"]}
    k8s, generic = rules["kubernetes-secret-yaml"], rules["generic-api-key"]
    glob = [DATA["allowlist"]]
    assert not coverage.reported(k8s, glob, 'password: ""', "kind: Secret\ndata:\n password: \"\"")
    assert not coverage.reported(k8s, glob, "user: {{ .Values.u }}", "x")
    assert coverage.reported(k8s, glob, "pass: c2VjcmV0cGFzc3dvcmQ=", "x")
    assert not coverage.reported(generic, glob, "aaaaaaaaaab1", "token=aaaaaaaaaab1")
    assert coverage.reported(generic, glob, "0we49hkbug3/=", "creds>0we49hkbug3/=")
    for rule in DATA["rules"]:
        for text, secret in coverage.samples(rule, 2, 5, glob):
            assert secret and secret in text
