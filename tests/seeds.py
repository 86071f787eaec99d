"""How many generated cases the seeded tests run.

Each seeded test has a default count, which its own environment variable can change (named in the
test's docstring, e.g. ``OVERJOIN_DIFF_SEEDS``), and ``OVERJOIN_SOAK`` multiplies every count:
``make soak`` runs the differential, ROWS, restart and fuzz tests with ``OVERJOIN_SOAK=8``. Every
generated input comes from its seed alone (``random.Random(seed)``), and a failure names the seed.
"""

from __future__ import annotations

import os


def soak_factor() -> int:
    """``OVERJOIN_SOAK`` (default 1): how many times each seeded test's default count to run."""
    factor = int(os.environ.get("OVERJOIN_SOAK", "1"))
    if factor < 1:
        raise ValueError(f"OVERJOIN_SOAK must be a positive integer, got {factor}")
    return factor


def count(variable: str, default: int) -> int:
    """The number of seeds of a test: ``$variable`` if set, else ``default``, times the soak factor."""
    return int(os.environ.get(variable, str(default))) * soak_factor()
