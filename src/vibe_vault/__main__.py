from vibe_vault.cli import main

raise SystemExit(main())
