"""KDA and s-Server programs, run as written through `overjoin server` (docs/semantics.md §10).

A program is the text of a `.sql` file of `tests/corpus/programs/` (ours, each in the style of a
published program: see its README), split into statements the way a SQL client splits a script (at
`;` outside quotes and comments) and run one statement at a time over JDBC, exactly as written. What KDA configures outside SQL (its source streams: a Kinesis
stream's schema) is declared here, in the test, over a folder the test writes records into.
"""

from __future__ import annotations

from pathlib import Path

from tests.corpus_loader import CORPUS_DIR

PROGRAMS = CORPUS_DIR / "programs"


def statements(text: str) -> list[str]:
    """The statements of a script: split at `;` outside '...', "...", `...` and comments."""
    out: list[str] = []
    buf: list[str] = []
    i, n = 0, len(text)
    quote: str | None = None
    while i < n:
        ch = text[i]
        if quote:
            buf.append(ch)
            if ch == quote:
                if i + 1 < n and text[i + 1] == quote:  # a doubled quote stays inside
                    buf.append(text[i + 1])
                    i += 1
                else:
                    quote = None
        elif ch in "'\"`":
            quote = ch
            buf.append(ch)
        elif text.startswith("--", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            buf.append(text[i:end])
            i = end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            buf.append(text[i:end])
            i = end
            continue
        elif ch == ";":
            out.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
        i += 1
    out.append("".join(buf))
    return [s for s in out if _has_code(s)]


def _has_code(statement: str) -> bool:
    lines = (line.split("--", 1)[0].strip() for line in statement.splitlines())
    return any(lines)


def program(name: str) -> str:
    return (PROGRAMS / name).read_text()


def all_programs() -> list[Path]:
    """Every program of the corpus and of `examples/`, but those over Kinesis streams (`${ENDPOINT}`:
    they need a Kinesis endpoint; tests/server/test_example_kda_orders_kinesis.py runs them)."""
    examples = Path(__file__).resolve().parents[2] / "examples"
    over_kinesis = [p for p in examples.rglob("*.sql") if "${ENDPOINT}" in p.read_text()]
    return sorted(PROGRAMS.glob("*.sql")) + sorted(set(examples.rglob("*.sql")) - set(over_kinesis))
