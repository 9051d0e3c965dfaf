"""``python -m citelens``."""

from citelens.cli import main

raise SystemExit(main())
