"""One module per `vv` subcommand.

Keep this file free of imports: `vv hook` for tool events imports this package
and must not pay for anything it does not use.
"""
