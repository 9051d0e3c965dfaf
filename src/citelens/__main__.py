"""``python -m citelens``."""

from .cli import main

raise SystemExit(main())
