"""overjoin.validate: diagnostics, positions, scope and the schema checks."""

from __future__ import annotations

import dataclasses

import pytest

import overjoin
from overjoin.errors import by_code, condition, format_message
from overjoin.validator import Diagnostic, render, validate


def codes(sql: str, schemas=None, dq: bool = False) -> list[tuple[str, int, int]]:
    return [(d.code, d.line, d.column) for d in validate(sql, schemas, double_quoted_identifiers=dq)]


def one(sql: str, schemas=None, dq: bool = False) -> Diagnostic:
    found = validate(sql, schemas, double_quoted_identifiers=dq)
    assert len(found) == 1, found
    return found[0]


class TestPublicApi:
    def test_exported_from_package(self) -> None:
        assert overjoin.validate is validate
        assert overjoin.Diagnostic is Diagnostic

    def test_diagnostic_is_frozen_and_complete(self) -> None:
        d = one("SELECT STREAM * FROM a OVER (RANGE INTERVAL '1' MINUTE FOLLOWING) AS x JOIN b ON x.k = b.k")
        with pytest.raises(dataclasses.FrozenInstanceError):
            d.line = 3  # type: ignore[misc]
        assert (d.code, d.condition, d.severity) == ("OJ102", "OVERJOIN_WINDOW_FOLLOWING", "error")
        assert (d.line, d.column, d.end_line, d.end_column) == (1, 56, 1, 64)
        assert "x (a)" in d.message and "FOLLOWING" in d.message
        assert d.hint == condition("OVERJOIN_WINDOW_FOLLOWING").hint
        assert d.to_dict()["code"] == "OJ102"

    def test_render_points_at_the_text(self) -> None:
        sql = "SELECT STREAM *\nFROM a OVER (RANGE INTERVAL '1' MONTH PRECEDING) AS x\nJOIN b ON x.k = b.k"
        text = one(sql).render(sql, "q.sql")
        lines = text.splitlines()
        assert lines[0].startswith("q.sql:2:33: error[OJ101]: An interval of the join window of x (a) uses MONTH")
        assert lines[1] == "  FROM a OVER (RANGE INTERVAL '1' MONTH PRECEDING) AS x"
        assert lines[2] == "  " + " " * 32 + "^~~~~"
        assert lines[3].startswith("  hint: Write the window in SECOND")
        assert render(one(sql), path="q.sql") == lines[0] + "\n" + lines[3]

    def test_valid_sql_gives_nothing(self) -> None:
        assert (
            validate(
                "SELECT STREAM ROWTIME, o.id FROM s JOIN o OVER (RANGE INTERVAL '1' HOUR PRECEDING) ON o.id = s.id"
            )
            == []
        )
        assert validate("") == []
        assert validate("  ;  ; ") == []


class TestSyntax:
    def test_error_column_is_the_first_character_of_the_token(self) -> None:
        # sqlglot reports the last character; the validator must report the first.
        d = one("SELECT * FROM t WHERE a = = 1")
        assert (d.code, d.line, d.column, d.end_column) == ("OJ001", 1, 27, 27)
        d = one("SELECT a b longname FROM t")
        assert (d.column, d.end_column) == (12, 19)
        assert "'longname'" in d.message

    def test_unknown_statement_start(self) -> None:
        d = one("SSELECT STREAM * FROM a")
        assert (d.code, d.line, d.column) == ("OJ001", 1, 1)
        assert "'SSELECT'" in d.message

    def test_unparseable_statement_is_never_silent(self) -> None:
        # sqlglot would keep this as an opaque Command.
        d = one("CREATE BEAST beast_events (row_id integer)")
        assert d.code == "OJ001" and d.column == 8

    def test_stream_and_pump_statements_are_checked(self) -> None:
        # docs/semantics.md §10: their own syntax here, a pump's query as any other query.
        for sql in (
            "CREATE STREAM beast_events (row_id integer)",
            'CREATE OR REPLACE STREAM "DEST" ("ticker" VARCHAR(4), "n" BIGINT) DESCRIPTION \'d\'',
            "CREATE STREAM src (ROWTIME TIMESTAMP, id INT) WITH (format = 'json', path = '/in')",
            "CREATE PUMP p STOPPED AS INSERT INTO dest (a, b) SELECT STREAM ROWTIME, a, b FROM src",
            "ALTER PUMP p START",
            "DROP PUMP IF EXISTS p",
            "DROP STREAM s",
            "SHOW PUMPS",
            "SHOW STREAMS",
            "DESCRIBE PUMP p",
        ):
            assert overjoin.validate(sql) == [], sql
        assert [(d.code, d.column, d.params["detail"]) for d in overjoin.validate("ALTER PUMP p PAUSE")] == [
            ("OJ001", 14, "expected START or STOP")
        ]
        assert one("CREATE PUMP p AS INSERT dest SELECT 1").params["detail"] == "expected INTO"
        d = one("CREATE PUMP p AS INSERT INTO dest\nSELECT STREAM * FROM a JOIN b OVER (ROWS -1 PRECEDING) ON TRUE")
        assert (d.code, d.line) == ("OJ104", 2)  # the query's own error, at its place in the statement

    def test_end_of_input(self) -> None:
        d = one("SELECT * FROM")
        assert d.code == "OJ001" and "end of input" in d.message and d.column == 14

    def test_unterminated_string(self) -> None:
        d = one("SELECT 'abc")
        assert (d.code, d.column) == ("OJ001", 8)

    def test_statements_are_validated_each_with_whole_text_positions(self) -> None:
        sql = "SELECT 1;\nSELECT * FROM (;\nSELECT STREAM * FROM a OVER (ROWS -1 PRECEDING) JOIN b ON TRUE"
        assert codes(sql) == [("OJ001", 2, 16), ("OJ104", 3, 35)]

    def test_semicolon_in_string_does_not_split(self) -> None:
        assert validate("SELECT 'a;b' AS x; SELECT stream FROM t") == []

    @pytest.mark.parametrize("sql", ["SHOW TABLES", "ADD JAR /tmp/x.jar", "LIST JARS", "CLEAR CACHE",
                                     "RESET", "MSCK REPAIR TABLE t", "REFRESH TABLE t"])  # fmt: skip
    def test_spark_commands_sqlglot_does_not_model(self, sql: str) -> None:
        assert validate(sql) == []

    def test_explain_checks_the_inner_statement(self) -> None:
        assert codes("EXPLAIN EXTENDED SELECT STREAM * FROM a OVER (RANGE UNBOUNDED PRECEDING) JOIN b ON TRUE") == [
            ("OJ103", 1, 53)
        ]


class TestScope:
    def test_plain_spark_gets_no_window_checks(self) -> None:
        # FOLLOWING and UNBOUNDED are fine in window functions and WINDOW clauses they use.
        assert (
            validate("SELECT SUM(x) OVER w FROM t WINDOW w AS (ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING)") == []
        )
        assert validate("SELECT * FROM a CROSS JOIN b ON a.k = b.k") == []

    def test_window_clause_used_only_by_functions_in_a_stream_block(self) -> None:
        sql = "SELECT STREAM MIN(p) OVER w FROM bids WINDOW w AS (ROWS BETWEEN 3 PRECEDING AND 0 FOLLOWING)"
        assert validate(sql) == []

    def test_keywords_in_strings_and_comments_do_not_count(self) -> None:
        assert validate("SELECT 'OVER (RANGE INTERVAL ''1'' MONTH PRECEDING)' -- WITHIN 5x\nFROM t") == []

    def test_duplicate_window_names_everywhere(self) -> None:
        sql = "SELECT MIN(x) OVER w FROM t WINDOW w AS (ROWS 1 PRECEDING), W AS (ROWS 2 PRECEDING)"
        assert codes(sql) == [("OJ113", 1, 61)]

    def test_streaming_block_inside_cte(self) -> None:
        sql = "WITH j AS (SELECT * FROM a OVER (RANGE 1 PRECEDING) JOIN b ON TRUE) SELECT * FROM j"
        assert codes(sql) == [("OJ114", 1, 40)]


class TestWindows:
    @pytest.mark.parametrize(
        ("spec", "code"),
        [
            ("RANGE INTERVAL '2' YEARS PRECEDING", "OJ101"),
            ("ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING", "OJ102"),
            ("ROWS UNBOUNDED PRECEDING", "OJ103"),
            ("RANGE INTERVAL '-5' MINUTE PRECEDING", "OJ104"),
            ("RANGE BETWEEN 1m PRECEDING AND 2m PRECEDING", "OJ105"),
            ("RANGE INTERVAL '1 2' DAY TO SECOND PRECEDING", "OJ106"),
            ("RANGE INTERVAL '1' SECOND TO MINUTE PRECEDING", "OJ106"),
            ("RANGE INTERVAL '1:60' MINUTE TO SECOND PRECEDING", "OJ106"),
            ("RANGE INTERVAL '1 24' DAY TO HOUR PRECEDING", "OJ106"),
            ("PARTITION BY k", "OJ108"),
            ("ORDER BY a + 1 RANGE CURRENT ROW", "OJ109"),
            ("RANGE 10x PRECEDING", "OJ114"),
            ("RANGE INTERVAL '1:30' MINUTE TO SECOND(10) PRECEDING", "OJ115"),
            ("ROWS BETWEEN 4 PRECEDING AND 1 PRECEDING", "OJ117"),
        ],
    )
    def test_codes(self, spec: str, code: str) -> None:
        found = codes(f"SELECT STREAM * FROM a OVER ({spec}) AS x JOIN b ON x.k = b.k")
        assert [c for c, _, _ in found] == [code]

    @pytest.mark.parametrize(
        "spec",
        ["RANGE INTERVAL '1:59' MINUTE TO SECOND PRECEDING", "RANGE INTERVAL '1 02' DAY TO HOUR PRECEDING",
         "RANGE INTERVAL '01:02:03.25' HOUR TO SECOND PRECEDING", "RANGE INTERVAL '1.5' SECOND PRECEDING",
         "RANGE INTERVAL '1 hour 30 minutes' PRECEDING", "RANGE INTERVAL 3 DAYS PRECEDING",
         "RANGE BETWEEN 2h PRECEDING AND 1h PRECEDING", "ROWS BETWEEN 0 PRECEDING AND CURRENT ROW",
         "RANGE BETWEEN CURRENT ROW AND CURRENT ROW", "ORDER BY x.ts ASC RANGE 1m PRECEDING"],
    )  # fmt: skip
    def test_valid_specs(self, spec: str) -> None:
        assert validate(f"SELECT STREAM * FROM a OVER ({spec}) AS x JOIN b ON x.k = b.k") == []

    def test_several_errors_are_all_reported_in_order(self) -> None:
        sql = ("SELECT STREAM * FROM a OVER (RANGE INTERVAL '1' MONTH PRECEDING) AS x "
               "JOIN b OVER (ROWS 2 FOLLOWING) AS y ON x.k = y.k")  # fmt: skip
        assert [c for c, _, _ in codes(sql)] == ["OJ101", "OJ102"]

    def test_named_window_errors_point_into_the_window_clause(self) -> None:
        sql = (
            "SELECT STREAM * FROM a OVER w AS x JOIN b ON x.k = b.k\nWINDOW w AS (RANGE INTERVAL 'x' SECOND PRECEDING)"
        )
        assert codes(sql) == [("OJ106", 2, 29)]

    def test_named_window_in_plain_syntax_used_by_join_input(self) -> None:
        sql = "SELECT STREAM * FROM a OVER w AS x JOIN b ON x.k = b.k WINDOW w AS (ROWS BETWEEN x + 1 PRECEDING AND CURRENT ROW)"
        assert [c for c, _, _ in codes(sql)] == ["OJ001"]

    def test_window_names_are_case_insensitive(self) -> None:
        assert validate("SELECT STREAM * FROM a OVER W AS x JOIN b ON TRUE WINDOW w AS (RANGE 1m PRECEDING)") == []

    def test_unknown_window_names_the_input(self) -> None:
        d = one("SELECT STREAM * FROM orders OVER lastHour AS o JOIN s ON o.k = s.k")
        assert d.code == "OJ107" and "lastHour" in d.message and "o (orders)" in d.message


class TestJoins:
    def test_cross_join_condition(self) -> None:
        assert codes("SELECT STREAM * FROM a CROSS JOIN b USING (k)") == [("OJ110", 1, 37)]

    def test_within_with_over(self) -> None:
        assert [
            c for c, _, _ in codes("SELECT STREAM * FROM a JOIN b OVER (ROWS 1 PRECEDING) WITHIN 1s ON a.k = b.k")
        ] == ["OJ111"]

    def test_within_alone_is_fine(self) -> None:
        assert validate("SELECT STREAM * FROM a JOIN b WITHIN 5s ON a.k = b.k") == []

    @pytest.mark.parametrize(
        "sql",
        [
            # docs/semantics.md §8: the padded rows of a kept side come out once its window closes;
            # a partitioned ROWS window that never closes is the documented exception, not an error.
            "SELECT STREAM * FROM a OVER (PARTITION BY k ROWS 1 PRECEDING) AS x "
            "FULL JOIN b OVER (RANGE 1m PRECEDING) AS y ON x.k = y.k",
            "SELECT STREAM * FROM a OVER (ROWS 1 PRECEDING) AS x LEFT JOIN b OVER (RANGE 1m PRECEDING) AS y ON x.k = y.k",
            "SELECT STREAM * FROM a OVER (RANGE 1m PRECEDING) AS x LEFT JOIN b OVER (PARTITION BY k ROWS 1 PRECEDING) AS y ON x.k = y.k",
            "SELECT STREAM * FROM a OVER (PARTITION BY k ROWS 1 PRECEDING) AS x LEFT JOIN dim AS d ON x.k = d.k",
        ],
    )
    def test_outer_joins_keeping_rows_windows_are_accepted(self, sql: str) -> None:
        assert validate(sql) == []

    def test_asof_needs_equality_and_one_inequality(self) -> None:
        assert validate("SELECT * FROM t ASOF JOIN q ON t.s = q.s AND q.ts <= t.ts") == []
        assert [c for c, _, _ in codes("SELECT * FROM t ASOF JOIN q ON q.ts <= t.ts")] == ["OJ118"]

    def test_over_on_lookup_table(self) -> None:
        sql = "SELECT * FROM s JOIN p FOR SYSTEM_TIME AS OF PROCTIME() OVER (RANGE 1m PRECEDING) ON s.k = p.k"
        assert [c for c, _, _ in codes(sql)] == ["OJ112"]


SCHEMAS = {
    "orders": {"orderId": "int", "rowtime": "timestamp", "amount": "double"},
    "shipments": {"orderId": "int", "ROWTIME": "timestamp", "carrier": "string"},
    "events": {"id": "int", "ts": "timestamp_ntz", "kind": "string"},
    "raw": {"id": "int", "ts": "string"},
}


class TestSchemas:
    def test_valid_with_schemas(self) -> None:
        sql = ("SELECT STREAM ROWTIME, o.orderId, carrier FROM shipments AS s "
               "JOIN orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON o.orderId = s.orderId")  # fmt: skip
        assert validate(sql, SCHEMAS) == []

    def test_ambiguous_column(self) -> None:
        sql = "SELECT STREAM orderId FROM shipments AS s JOIN orders OVER (RANGE 1h PRECEDING) AS o ON o.orderId = s.orderId"
        d = one(sql, SCHEMAS)
        assert (d.code, d.column) == ("OJ205", 15)
        assert "s (shipments) and o (orders)" in d.message and "s.orderId" in d.hint

    def test_using_makes_a_column_unambiguous(self) -> None:
        sql = "SELECT STREAM orderId FROM shipments AS s JOIN orders OVER (RANGE 1h PRECEDING) AS o USING (orderId)"
        assert validate(sql, SCHEMAS) == []

    def test_using_unknown_and_rowtime(self) -> None:
        sql = "SELECT STREAM * FROM shipments s JOIN orders OVER (RANGE 1h PRECEDING) o USING (carrier, rowtime)"
        assert [c for c, _, _ in codes(sql, SCHEMAS)] == ["OJ201", "OJ206"]

    def test_no_rowtime_and_watermark(self) -> None:
        sql = "SELECT STREAM * FROM events OVER (RANGE 1m PRECEDING) AS e JOIN orders o ON e.id = o.orderId"
        d = one(sql, SCHEMAS)
        assert d.code == "OJ203" and "e (events)" in d.message and "events WATERMARK" in d.hint
        fixed = sql.replace("events OVER", "events WATERMARK ts DELAY OF INTERVAL 1 SECOND OVER")
        assert validate(fixed, SCHEMAS) == []

    def test_rowtime_type(self) -> None:
        sql = "SELECT STREAM * FROM raw OVER (ORDER BY ts RANGE 1m PRECEDING) AS r JOIN orders o ON r.id = o.orderId"
        d = one(sql, SCHEMAS)
        assert d.code == "OJ204" and "string" in d.message and d.column == 41

    def test_natural_ignores_rowtime(self) -> None:
        sql = "SELECT STREAM * FROM orders OVER (RANGE 1m PRECEDING) NATURAL JOIN events OVER (ORDER BY ts RANGE 1m PRECEDING)"
        assert [c for c, _, _ in codes(sql, SCHEMAS)] == ["OJ202"]
        sql = "SELECT STREAM * FROM orders OVER (RANGE 1m PRECEDING) NATURAL JOIN shipments OVER (RANGE 1m PRECEDING)"
        assert validate(sql, SCHEMAS) == []

    def test_unknown_tables_are_not_guessed(self) -> None:
        sql = "SELECT STREAM id FROM mystery OVER (RANGE 1m PRECEDING) AS m JOIN events e USING (nothing)"
        assert validate(sql, SCHEMAS) == []

    def test_subquery_columns(self) -> None:
        sql = ("SELECT STREAM * FROM (SELECT id, CAST(ts AS TIMESTAMP) AS rowtime FROM raw) OVER (RANGE 1m PRECEDING) AS r "
               "JOIN events OVER (ORDER BY ts RANGE 1m PRECEDING) AS e USING (id)")  # fmt: skip
        assert validate(sql, SCHEMAS) == []

    def test_qualified_and_case_insensitive_table_names(self) -> None:
        schemas = {"DB.Orders": {"k": "int", "rowtime": "timestamp"}}
        sql = "SELECT STREAM * FROM db.orders OVER (RANGE 1m PRECEDING) a JOIN orders OVER (RANGE 1m PRECEDING) b USING (x)"
        assert [c for c, _, _ in codes(sql, schemas)] == ["OJ201"]


class TestCatalogue:
    def test_codes_are_unique_and_formatting(self) -> None:
        from overjoin.errors import catalogue

        entries = catalogue()
        parents = [e for e in entries.values() if "." not in e.name]
        assert len({e.code for e in parents}) == len(parents)
        # A sub-condition shares its parent's code.
        for e in entries.values():
            if "." in e.name:
                assert e.code == entries[e.name.split(".")[0]].code
        assert by_code("OJ102").name == "OVERJOIN_WINDOW_FOLLOWING"
        assert format_message("a <x> b <y>", {"x": 1}) == "a 1 b <y>"


class TestCatalogueFile:
    """The catalogue is one file for two languages: kept sorted, and every entry complete."""

    def test_sorted_and_complete(self) -> None:
        import json
        from importlib import resources

        raw = json.loads(resources.files("overjoin").joinpath("resources/overjoin-error-conditions.json").read_text())
        names = [n for n in raw if not n.startswith("_")]
        assert names == sorted(names)
        codes = [raw[n]["code"] for n in names]
        assert len(codes) == len(set(codes)), "a code is used twice"
        for name in names:
            entry = raw[name]
            assert set(entry) <= {"code", "sqlState", "message", "hint", "subClass", "retired"}, name
            assert name.startswith("OVERJOIN_") and entry["code"].startswith("OJ"), name
            assert len(entry["sqlState"]) == 5 and entry["message"].endswith(".") and entry["hint"], name
            subs = list(entry.get("subClass", {}))
            assert subs == sorted(subs), name
            for sub in subs:
                assert set(entry["subClass"][sub]) == {"message", "hint"}, (name, sub)


class TestFoundByFuzzing:
    """Statements the fuzzer found crashing the JVM parser (issue 21): the validator reports what
    the JVM now reports, with the same code, position and parameters."""

    J = " FROM o JOIN t OVER (RANGE INTERVAL '1' MINUTE PRECEDING) ON o.k = t.k"

    @pytest.mark.parametrize(
        "select",
        ["ROWTIME ROWTIME, o.k", "o.ROWTIME ROWTIME", "STREAM rowtime", "x" * 100_000 + " rowtime"],
        ids=["rowtime-rowtime", "o.rowtime-rowtime", "stream-rowtime", "long-identifier"],
    )
    def test_names_written_without_as_are_valid(self, select: str) -> None:
        assert validate("SELECT STREAM " + select + self.J) == []

    @pytest.mark.parametrize(
        ("sql", "at", "detail"),
        [
            ("SELECT STREAM ON * FROM a", "ON", "expected a select list after SELECT STREAM"),
            ("SELECT STREAM a + FROM b", "FROM", "expected an expression"),
            ("SELECT STREAM a, FROM b", "FROM", "expected an expression"),
            (
                "SELECT STREAM k FROM t GROUP BY k, STEP(t.ROWTIME BY 1" + "0" * 100_000 + ")",
                "1" + "0" * 100_000,
                "the step of STEP(ts BY n) must fit a BIGINT (at most 9223372036854775807) or, with a "
                "fraction, a DECIMAL of at most 38 digits",
            ),
            (
                "SELECT STREAM k FROM t GROUP BY k, STEP(t.ROWTIME BY 10L)",
                "10L",
                "the step of STEP(ts BY n) is a number written as digits with an optional fraction, "
                "such as 1000 or 0.5",
            ),
            (
                "SELECT STREAM k FROM t GROUP BY k, STEP(t.ROWTIME BY '1 minute')",
                "'1 minute'",
                "expected an INTERVAL literal such as INTERVAL '1' MINUTE after BY, not a string: "
                "write INTERVAL '1 minute'; or a number, when the time is a number",
            ),
            (
                "SELECT STREAM * FROM a OVER (ROWS " + "9" * 5000 + " PRECEDING) JOIN b ON a.k = b.k",
                "9" * 5000,
                "a ROWS window counts at most 9223372036854775807 rows",
            ),
        ],
        ids=["on", "operator", "comma", "step-digits", "step-suffix", "step-string", "rows-digits"],
    )
    def test_syntax_errors_at_the_text(self, sql: str, at: str, detail: str) -> None:
        d = one(sql)
        assert (d.code, d.line, d.column) == ("OJ001", 1, sql.index(at) + 1)
        assert d.params == {"token": at if at.startswith("'") else f"'{at}'", "detail": detail}

    @pytest.mark.parametrize(
        "sql",
        [
            "SELECT STREAM * FROM a OVER (RANGE 1.5.5s PRECEDING) JOIN b ON a.k = b.k",
            "SELECT STREAM * FROM a JOIN b ON a.k = b.k WITHIN 1.5.5s",
        ],
    )
    def test_a_duration_with_two_points_is_one_bad_duration(self, sql: str) -> None:
        d = one(sql)
        assert (d.code, d.column, d.params) == ("OJ114", sql.index("1.5.5s") + 1, {"literal": "1.5.5s"})


class TestSlidingWindows:
    """The frames of window functions in a streaming block, read as the JVM's SlidingWindowParser
    reads them (docs/semantics.md §12): a join window's errors, the window named by its spec's
    text (inline) or its name (WINDOW clause)."""

    def test_an_inline_frame_is_named_by_its_text(self) -> None:
        spec = "(PARTITION BY k RANGE INTERVAL '1' MONTH PRECEDING)"
        sql = f"SELECT STREAM k, SUM(v) OVER {spec} AS s FROM t"
        d = one(sql)
        assert (d.code, d.column, d.params) == (
            "OJ101",
            sql.index("MONTH") + 1,
            {"window": f"the window {spec}", "unit": "MONTH"},
        )

    @pytest.mark.parametrize("name", ["W1", '"W1"'])
    def test_a_named_frame_is_named_by_its_name(self, name: str) -> None:
        sql = f"SELECT STREAM k, MIN(v) OVER {name} FROM t WINDOW {name} AS (ROWS -3 PRECEDING)"
        d = one(sql)
        assert (d.code, d.column, d.params) == ("OJ104", sql.index("-3") + 1, {"window": "the window W1", "size": "-3"})

    @pytest.mark.parametrize(
        "sql",
        [
            "SELECT k, SUM(v) OVER (ORDER BY ts RANGE INTERVAL '1' MONTH PRECEDING) FROM t",
            "SELECT STREAM k, SUM(v) OVER (RANGE BETWEEN INTERVAL '1' MONTH PRECEDING AND 1 FOLLOWING) FROM t",
            "SELECT STREAM k, SUM(v) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING) FROM t",
            "SELECT STREAM k, (SELECT SUM(v) OVER (RANGE INTERVAL '1' MONTH PRECEDING) FROM u) FROM t",
        ],
        ids=["not-streaming", "following", "unbounded-preceding", "subquery"],
    )
    def test_what_stays_spark(self, sql: str) -> None:
        assert [d.code for d in validate(sql) if d.severity == "error"] == []
