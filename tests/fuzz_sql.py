"""A seeded SQL fuzzer: mutations of the shared corpus, for both parsers.

``mutate(seed)`` takes a corpus statement and applies one to three mutations: token deletion,
duplication, swap and truncation, a random keyword of the grammar dropped in, deep nesting, very
long identifiers and literals, unbalanced quotes and parentheses, NUL and non-ASCII characters.
The parsers must survive every result: the JVM one parses it as Spark does or fails with an error
that carries an error condition, never a crash or a hang; the validator returns diagnostics and
never raises. Pure Python, standard library only; the same seed always gives the same text.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache

from tests.corpus_loader import load_corpus

__all__ = ["KEYWORDS", "MUTATIONS", "mutate", "seeds"]

KEYWORDS = [
    "SELECT", "STREAM", "FROM", "JOIN", "LEFT", "RIGHT", "FULL", "OUTER", "INNER", "CROSS", "NATURAL",
    "ASOF", "ON", "USING", "WHERE", "GROUP", "BY", "WINDOW", "AS", "OVER", "RANGE", "ROWS", "BETWEEN",
    "AND", "PRECEDING", "FOLLOWING", "CURRENT", "ROW", "UNBOUNDED", "PARTITION", "ORDER", "INTERVAL",
    "SECOND", "MINUTE", "HOUR", "DAY", "MONTH", "TO", "WITHIN", "WATERMARK", "DELAY", "OF", "FOR",
    "SYSTEM_TIME", "PROCTIME", "()", "TUMBLE", "HOP", "ROWTIME", "(", ")", ",", ".", ";", "'", '"', "`",
    "5s", "500ms", "-", "?", ":p", "UNION", "CREATE", "VIEW", "DESCRIPTION", "INSERT", "INTO", "EXPLAIN",
]  # fmt: skip

_TOKEN = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"|`[^`]*`|\w+|\s+|.", re.S)


@lru_cache(maxsize=1)
def seeds() -> list[str]:
    """The corpus statements without their header comments."""
    out = []
    for entry in load_corpus():
        lines = entry.sql.splitlines()
        while lines and lines[0].startswith("--"):
            lines.pop(0)
        out.append("\n".join(lines))
    return out


def _tokens(sql: str) -> list[str]:
    return _TOKEN.findall(sql)


def _words(tokens: list[str]) -> list[int]:
    return [i for i, t in enumerate(tokens) if not t.isspace()]


def _delete(rng: random.Random, t: list[str]) -> list[str]:
    w = _words(t)
    if w:
        del t[rng.choice(w)]
    return t


def _duplicate(rng: random.Random, t: list[str]) -> list[str]:
    w = _words(t)
    if w:
        i = rng.choice(w)
        t.insert(i, t[i] + " ")
    return t


def _swap(rng: random.Random, t: list[str]) -> list[str]:
    w = _words(t)
    if len(w) > 1:
        i, j = rng.sample(w, 2)
        t[i], t[j] = t[j], t[i]
    return t


def _truncate(rng: random.Random, t: list[str]) -> list[str]:
    return t[: rng.randint(0, len(t))]


def _keyword(rng: random.Random, t: list[str]) -> list[str]:
    t.insert(rng.randint(0, len(t)), f" {rng.choice(KEYWORDS)} ")
    return t


def _nest(rng: random.Random, t: list[str]) -> list[str]:
    depth = rng.choice([20, 200, 2000, 5000])
    if rng.random() < 0.5:
        return (
            ["SELECT * FROM "]
            + ["("] * depth
            + ["SELECT STREAM * FROM a OVER (RANGE 5s PRECEDING) JOIN b ON a.k = b.k"]
            + [") AS x"] * depth
        )
    i = rng.randint(0, len(t))
    return t[:i] + ["("] * depth + t[i:] + [")"] * (depth if rng.random() < 0.7 else depth // 2)


def _long(rng: random.Random, t: list[str]) -> list[str]:
    size = rng.choice([1000, 100_000, 1_000_000])
    w = _words(t)
    if not w:
        return t
    i = rng.choice(w)
    kind = rng.random()
    if kind < 0.4:
        t[i] = "x" * size
    elif kind < 0.7:
        t[i] = "'" + "v" * size + "'"
    else:
        t[i] = "9" * min(size, 5000)
    return t


def _unbalance(rng: random.Random, t: list[str]) -> list[str]:
    t.insert(rng.randint(0, len(t)), rng.choice(["(", ")", "'", '"', "`", "/*", "*/", "--", "[", "]"]))
    return t


def _odd_characters(rng: random.Random, t: list[str]) -> list[str]:
    chars = ["\x00", "\u00e9", "\u4e2d", "\u0661", "\u200b", "\ufeff", "\U0001f600", "\r", "\t", "\\", "\u202e"]
    t.insert(rng.randint(0, len(t)), rng.choice(chars) * rng.choice([1, 3]))
    return t


MUTATIONS = [_delete, _duplicate, _swap, _truncate, _keyword, _nest, _long, _unbalance, _odd_characters]


def mutate(seed: int) -> str:
    """A mutated corpus statement; deep nesting and huge literals come rarely (they are slow)."""
    rng = random.Random(seed)
    tokens = _tokens(rng.choice(seeds()))
    for _ in range(rng.choice([1, 1, 2, 3])):
        mutation = rng.choice(MUTATIONS)
        if mutation in (_nest, _long) and rng.random() < 0.7:
            mutation = rng.choice([_delete, _duplicate, _swap, _keyword])
        tokens = mutation(rng, tokens)
    return "".join(tokens)
