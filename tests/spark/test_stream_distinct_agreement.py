"""OJ126 (``SELECT STREAM DISTINCT`` with no time item, docs/semantics.md §15) from both sides:
the extension decides it when the query is analyzed, ``overjoin check`` from the text alone (it
depends on the select list, not on whether the input is a stream). Generated select lists, over
tables (replay, where OJ126 applies as on a stream): the two must agree on whether it is raised and
where."""

from __future__ import annotations

import random
import re
from typing import Any

import overjoin

#: Select items, and whether each is a time item by §15's rule in a block of one input.
ITEMS = [
    ("k", False),
    ("ROWTIME", True),
    ('"ROWTIME"', True),
    ("rowtime", True),
    ('"rowtime"', False),
    ("d.ROWTIME AS t", True),
    ("STEP(d.ROWTIME BY INTERVAL '1' MINUTE) AS w", True),
    ("FLOOR(d.ROWTIME TO HOUR)", True),
    ("CEIL(ROWTIME TO MINUTE) AS c", True),
    ("FLOOR(n)", False),
    ("MONOTONIC(n) AS m", True),
    ("UPPER(k) AS uk", False),
    ("n + 1 AS n1", False),
    ("*", False),
]


def statement(seed: int) -> tuple[str, bool]:
    rnd = random.Random(seed)
    items = rnd.sample(ITEMS, rnd.randint(1, 3))
    if len(items) > 1 and any(text == "*" for text, _ in items):
        items = [i for i in items if i[0] != "*"]
    select = ", ".join(text for text, _ in items)
    lead = rnd.choice(["", "\n", "  "])
    sql = f"{lead}SELECT STREAM DISTINCT {select}\nFROM distinct_t AS d"
    # Where the block is: a SELECT STREAM's input adds the implicit ROWTIME to a list that names
    # none (§10); a plain SELECT's input and a view's query (judged as written at CREATE VIEW) do not.
    where = rnd.choice(["top"] * 4 + ["stream input", "plain input", "view", "view with columns"])
    if where == "view with columns" and select == "*":
        where = "view"
    if where == "stream input":
        sql = f"SELECT STREAM ROWTIME FROM ({sql}) AS x"
    elif where == "plain input":
        sql = f"SELECT * FROM ({sql}) AS x"
    elif where == "view":
        sql = f"CREATE OR REPLACE TEMP VIEW distinct_v AS {sql}"
    elif where == "view with columns":
        sql = f"CREATE OR REPLACE TEMP VIEW distinct_v ({', '.join(f'c{i}' for i in range(len(items)))}) AS {sql}"
    names_rowtime = any(text == "*" or text.split()[-1].strip('"').upper() == "ROWTIME" for text, _ in items)
    implicit = where == "stream input" and not names_rowtime
    return sql, implicit or any(timed for _, timed in items)


def jvm_oj126(spark: Any, sql: str) -> tuple[int, int] | None:
    """Where the extension raises OJ126 analyzing ``sql`` (1-based line and column), else None."""
    try:
        spark.sql(sql)
        return None
    except Exception as e:  # any other error is not OJ126
        msg = str(e)
        if "OJ126" not in msg:
            return None
        where = re.search(r"line (\d+),? pos (\d+)", msg)
        assert where, f"{sql}\n{msg}"
        return int(where.group(1)), int(where.group(2)) + 1


def py_oj126(sql: str) -> tuple[int, int] | None:
    found = [d for d in overjoin.validate(sql) if d.code == "OJ126"]
    return (found[0].line, found[0].column) if found else None


def test_both_sides_agree_on_distinct_without_time(spark: Any) -> None:
    spark.createDataFrame(
        [("2024-01-01 10:00:00", "a", 1), ("2024-01-01 10:00:30", "a", 2), ("2024-01-01 10:01:10", "b", 2)],
        "ts STRING, k STRING, n INT",
    ).selectExpr("CAST(ts AS TIMESTAMP) AS ROWTIME", "k", "n").createOrReplaceTempView("distinct_t")
    raised = 0
    for seed in range(200):
        sql, timed = statement(seed)
        jvm, py = jvm_oj126(spark, sql), py_oj126(sql)
        assert jvm == py, f"seed {seed}:\n{sql}\n  jvm: {jvm}\n  py:  {py}"
        assert (py is None) == timed, f"seed {seed}: {sql}"
        raised += py is not None
    assert 30 <= raised <= 130
