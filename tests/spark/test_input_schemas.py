"""KDA's input schemas (docs/server.md, "Input schemas") against the model of tests/kda_records.py,
on generated schemas and records: a folder of files read with the schema (each file a record) is
the same stream a Kinesis source with the schema is (the same decoder reads both), read here as a
table (replay) and as a stream. The rows must be the model's, value for value; the rows that do
not read must be in error_stream, with KDA's error names, once each.

Seeds: ``OVERJOIN_INPUT_SCHEMA_SEEDS`` (default 6).
"""

from __future__ import annotations

import random
import uuid
from collections import Counter
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from overjoin.importer.model import Column, RecordFormat, Schema
from overjoin.importer.script import literal
from tests.kda_records import decode, make_records
from tests.seeds import count

TYPES = ["VARCHAR(6)", "VARCHAR(64)", "INTEGER", "BIGINT", "SMALLINT", "DOUBLE", "DECIMAL(8,2)", "BOOLEAN", "TIMESTAMP"]
FIELDS = ["id", "name", "price", "qty", "when", "ok", "info", "detail", "v"]


def random_schema(seed: int) -> Schema:
    """A schema as KDA users write them: mappings that differ from the names, nested paths, at most
    one flattened array (the row path's or a column's), a whole array read into a VARCHAR."""
    rng = random.Random(seed)
    if rng.random() < 0.3:
        delimiter = rng.choice([",", "\t", "|", "::"])
        fields = tuple(Column(f"c{i}", rng.choice(TYPES)) for i in range(rng.randint(1, 5)))
        return Schema(RecordFormat("CSV", row_delimiter=rng.choice(["\n", "\r\n", "#"]), column_delimiter=delimiter),
                      fields)  # fmt: skip
    row_path = "$.records[0:]" if rng.random() < 0.25 else "$"
    flat = None if row_path != "$" or rng.random() < 0.5 else "$." + rng.choice(FIELDS) + "_list[0:]"
    columns: list[Column] = []
    used: list[str] = []
    for i in range(rng.randint(1, 6)):
        path = ".".join(rng.sample(FIELDS, rng.randint(1, 3)))
        # One path within another would ask a field to be a value and an object at once.
        if any(p == path or p.startswith(path + ".") or path.startswith(p + ".") for p in used):
            continue
        used.append(path)
        if flat and rng.random() < 0.5:
            mapping = f"{flat}.{path}"
        elif row_path != "$":
            mapping = f"{row_path}.{path}" if rng.random() < 0.7 else f"$.{path}"
        else:
            mapping = f"$.{path}"
        columns.append(Column(f"col_{i}", rng.choice(TYPES), mapping))
    if rng.random() < 0.3:
        # Under a row path, a mapping not written from it is read under each row (one [0:] a mapping).
        columns.append(Column("whole", "VARCHAR(200)", "$.tags[0:]"))
    return Schema(RecordFormat("JSON", row_path=row_path), tuple(columns))


def create_statement(name: str, schema: Schema, folder: Path) -> str:
    f = schema.format
    cols = ", ".join(
        f'"{c.name}" {c.sql_type}' + (f" MAPPING {literal(c.mapping)}" if c.mapping else "") for c in schema.columns
    )
    if f.kind == "CSV":
        options = (f"format = 'csv', record_row_delimiter = {literal(f.row_delimiter or '')}, "
                   f"record_column_delimiter = {literal(f.column_delimiter or '')}")  # fmt: skip
    else:
        options = f"format = 'json', record_row_path = {literal(f.row_path or '$')}"
    return f'CREATE STREAM "{name}" ({cols}) WITH ({options}, path = {literal(str(folder))})'


def spark_value(v: Any) -> Any:
    if isinstance(v, datetime):
        return v.replace(tzinfo=timezone.utc)
    if isinstance(v, Decimal):
        return v.normalize()
    return v


def model_value(v: Any) -> Any:
    return v.normalize() if isinstance(v, Decimal) else v


@pytest.mark.parametrize("seed", range(count("OVERJOIN_INPUT_SCHEMA_SEEDS", 6)))
def test_records_read_with_an_input_schema_are_the_models(spark, tmp_path: Path, seed: int) -> None:
    schema = random_schema(seed)
    records = make_records(schema, 25, seed=seed, bad=0.15)
    folder = tmp_path / "records"
    folder.mkdir()
    for i, r in enumerate(records):
        (folder / f"r{i:03d}.txt").write_bytes(r)
    name = f"in_{uuid.uuid4().hex[:8]}"
    db = f"db_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE DATABASE {db}")
    try:
        spark.sql(f"USE {db}")
        spark.sql(create_statement(name, schema, folder))
        expected_rows: Counter[tuple[Any, ...]] = Counter()
        expected_errors: Counter[str] = Counter()
        for r in records:
            for row in decode(r, schema):
                if row.error:
                    expected_errors[row.error] += 1
                else:
                    assert row.values is not None
                    expected_rows[tuple(model_value(row.values[c.name]) for c in schema.columns)] += 1
        columns = ", ".join(f'"{c.name}"' for c in schema.columns)
        # Replay: a plain SELECT reads the stream's rows so far, as a table (semantics.md §10; a
        # SELECT STREAM block reads it as a stream, with or without STREAM).
        plain = ", ".join(f"`{c.name}`" for c in schema.columns)
        got = spark.sql(f"SELECT {plain} FROM {name}").collect()
        assert Counter(tuple(spark_value(v) for v in row) for row in got) == expected_rows, (seed, schema)
        # As a stream: the same rows, and the others in error_stream.
        rows = stream_rows(spark, f"SELECT STREAM {columns} FROM STREAM {name}")
        assert Counter(tuple(spark_value(v) for v in row[: len(schema.columns)]) for row in rows) == expected_rows
        errors = stream_rows(spark, "SELECT STREAM ERROR_NAME, DATA_ROW FROM STREAM error_stream")
        assert Counter(e[0] for e in errors) == expected_errors, (seed, schema)
        payloads = {bytes.fromhex(e[1]) for e in errors}
        assert all(any(p in r for r in records) for p in payloads)  # DATA_ROW is the row as written
    finally:
        spark.sql("USE default")
        spark.sql(f"DROP DATABASE {db} CASCADE")


def stream_rows(spark: Any, sql: str) -> list[Any]:
    """Every row of a streaming query over what is there now (Trigger.AvailableNow into memory)."""
    table = f"out_{uuid.uuid4().hex[:8]}"
    query = spark.sql(sql).writeStream.format("memory").queryName(table).trigger(availableNow=True).start()
    try:
        query.awaitTermination(300)
        assert query.exception() is None, query.exception()
        return list(spark.sql(f"SELECT * FROM {table}").collect())
    finally:
        query.stop()
        spark.catalog.dropTempView(table)


def test_a_quoted_csv_field_may_hold_the_delimiters_and_missing_fields_are_null(spark, tmp_path: Path) -> None:
    folder = tmp_path / "csv"
    folder.mkdir()
    (folder / "a.csv").write_text('1,"a, b",2024-01-31 12:00:00\n2,"say ""hi""\n and go",\n3\n\n4,plain,x\n')
    spark.sql(f"""CREATE STREAM quoted_csv ("n" INTEGER, "text" VARCHAR(32), "at" TIMESTAMP)
                 WITH (format = 'csv', record_format = 'csv', path = {literal(str(folder))})""")
    try:
        rows = sorted(spark.sql("SELECT `n`, `text`, `at` FROM quoted_csv").collect())  # replay
        assert [tuple(r) for r in rows] == [
            (1, "a, b", datetime(2024, 1, 31, 12, 0)),
            (2, 'say "hi"\n and go', None),  # the row delimiter inside quotes is the field's
            (3, None, None),  # fields after the last one are NULL
        ]
        errors = stream_rows(spark, "SELECT STREAM ERROR_NAME, MESSAGE FROM STREAM error_stream")
        assert [e[0] for e in errors] == ["Coercion error"]  # row 4: 'x' is no TIMESTAMP
        assert "'x' cannot be read as TIMESTAMP" in errors[0][1]
    finally:
        spark.sql("DROP TABLE quoted_csv")
        spark.sql("DROP TABLE IF EXISTS error_stream")
