"""Subcommands of the formhunter command line, one module each."""
