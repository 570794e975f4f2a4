"""One module per `vv` subcommand."""
