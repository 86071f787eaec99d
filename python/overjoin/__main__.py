"""``python -m overjoin``: the same as the ``overjoin`` command."""

from __future__ import annotations

import sys

from overjoin.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
