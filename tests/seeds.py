"""How many generated cases the seeded tests run.

Each seeded test has a default count, which its own environment variable can change (named in the
test's docstring, e.g. ``OVERJOIN_DIFF_SEEDS``), and ``OVERJOIN_SOAK`` multiplies every count:
``make soak`` runs the differential, ROWS, restart and fuzz tests with ``OVERJOIN_SOAK=8``. Every
generated input comes from its seed alone (``random.Random(seed)``), and a failure names the seed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable


def soak_factor() -> int:
    """``OVERJOIN_SOAK`` (default 1): how many times each seeded test's default count to run."""
    factor = int(os.environ.get("OVERJOIN_SOAK", "1"))
    if factor < 1:
        raise ValueError(f"OVERJOIN_SOAK must be a positive integer, got {factor}")
    return factor


def count(variable: str, default: int) -> int:
    """The number of seeds of a test: ``$variable`` if set, else ``default``, times the soak factor."""
    return int(os.environ.get(variable, str(default))) * soak_factor()


def covering(
    candidates: Iterable[int],
    how_many: int,
    features: Callable[[int], set[str]],
    wanted: set[str],
    usable: Callable[[int], bool] = lambda _: True,
) -> list[int]:
    """``how_many`` seeds from ``candidates`` (in order) that are ``usable`` (e.g. a case with some
    output) and, between them, have every feature in ``wanted`` (e.g. every join type), as far as
    ``how_many`` allows: a seed that brings no missing feature is taken only while there are more
    places left than features missing. Deterministic: the same seeds for the same arguments."""
    chosen: list[int] = []
    missing = set(wanted)
    for seed in candidates:
        if len(chosen) >= how_many:
            break
        if not usable(seed):
            continue
        new = features(seed) & missing
        if new or how_many - len(chosen) > len(missing):
            chosen.append(seed)
            missing -= new
    return chosen
