"""The python-facing package behind the `masta` command."""
