"""Where vibe-vault keeps its state: stdlib only, shared by every hook.

The tool hooks run around every tool call and import nothing heavy, so this
is the one place the state directory is worked out, for them and for the rest.
"""

from __future__ import annotations

import os
from zlib import crc32 as _crc32


def tool_key(tool_use_id: str) -> str:
    """What vibe-vault keeps of an id (a tool call's, a message's): a checksum
    and the length, enough to pair a call with its result and its timing, and
    no transcript text (an id is as untrusted as any other field)."""
    raw = tool_use_id.encode("utf-8", "surrogatepass")
    return f"t{_crc32(raw):08x}{len(raw):x}"


def home() -> str:
    return os.path.expanduser("~")


def anchored(path: str, base: str) -> str:
    """`~` expanded; a relative path taken from `base`, not from wherever Claude
    Code happens to run the hook (it runs hooks in each project's directory)."""
    path = os.path.expanduser(path)
    return path if os.path.isabs(path) else os.path.join(base, path)


def state_dir() -> tuple[str, str]:
    """(state directory, where that came from): `VV_STATE_DIR`, else
    `$XDG_STATE_HOME/vibe-vault`, else `~/.local/state/vibe-vault`; relative
    values are taken from the home directory."""
    env = os.environ.get("VV_STATE_DIR")
    if env:
        return anchored(env, home()), "VV_STATE_DIR"
    xdg = os.environ.get("XDG_STATE_HOME")
    if xdg:
        return os.path.join(anchored(xdg, home()), "vibe-vault"), "XDG_STATE_HOME"
    return os.path.join(home(), ".local", "state", "vibe-vault"), "default"
