from vibe_vault.cli import entry

entry()
