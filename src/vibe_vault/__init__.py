"""vibe-vault: Claude Code sessions as Markdown notes."""

__version__ = "0.1.0"
