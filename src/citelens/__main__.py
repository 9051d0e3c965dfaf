"""``python -m citelens``."""

from citelens.cli import entry

entry()
