"""SessionStart: nothing by default (stdout here would reach Claude's context)."""

from __future__ import annotations

from typing import Any


def run(event: dict[str, Any], cfg: Any) -> None:
    del event, cfg
