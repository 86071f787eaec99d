"""The overjoin sqlglot dialect: every construct parses, and parse -> generate -> parse is stable."""

from __future__ import annotations

import pytest
from sqlglot import exp
from sqlglot.errors import ParseError

from overjoin import dialect as D
from overjoin.dialect.parser import OverjoinParser


def parse(sql: str, dq: bool = False) -> exp.Expr:
    trees = D.dialect_for(dq).parse(sql)
    assert len(trees) == 1 and trees[0] is not None
    return trees[0]


def roundtrip(sql: str, dq: bool = False) -> exp.Expr:
    """Parse, print, parse again: the two trees must be equal, and printing must be stable."""
    first = parse(sql, dq)
    printed = first.sql(dialect=D.dialect_for(dq))
    second = parse(printed, dq)
    assert second == first, f"{sql!r} printed as {printed!r}"
    assert second.sql(dialect=D.dialect_for(dq)) == printed
    return first


class TestSelectStream:
    def test_stream_keyword_sets_flag(self) -> None:
        tree = roundtrip("SELECT STREAM ROWTIME, o.id FROM orders AS o")
        assert isinstance(tree, D.OjSelect) and tree.args["stream"] is True
        assert [e.sql() for e in tree.expressions] == ["ROWTIME", "o.id"]

    def test_stream_distinct(self) -> None:
        tree = roundtrip("SELECT STREAM DISTINCT a FROM t")
        assert tree.args["stream"] and isinstance(tree.args["distinct"], exp.Distinct)
        assert tree.sql(dialect=D.dialect_for()) == "SELECT STREAM DISTINCT a FROM t"

    def test_stream_star_and_hint(self) -> None:
        tree = roundtrip("SELECT /*+ BROADCAST(b) */ STREAM * FROM a JOIN b ON a.k = b.k")
        assert tree.args["stream"] and tree.args.get("hint") is not None

    @pytest.mark.parametrize(
        "sql", ["SELECT stream FROM t", "SELECT stream, x FROM t", "SELECT stream AS s FROM t",
                "SELECT stream + 1 FROM t", "SELECT stream.x FROM t AS stream"],
    )  # fmt: skip
    def test_column_named_stream_stays_a_column(self, sql: str) -> None:
        tree = roundtrip(sql)
        assert not tree.args.get("stream")
        assert "stream" in {c.name.lower() for c in tree.find_all(exp.Column)} | {
            c.table.lower() for c in tree.find_all(exp.Column)
        }

    def test_nested_select_stream(self) -> None:
        tree = roundtrip("INSERT INTO out SELECT STREAM * FROM (SELECT STREAM a FROM s) AS x")
        flags = [s.args.get("stream") for s in tree.find_all(exp.Select)]
        assert flags == [True, True]


class TestJoinWindows:
    def test_inline_window_before_alias(self) -> None:
        tree = roundtrip("SELECT * FROM s AS s JOIN o OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON o.id = s.id")
        table = tree.args["joins"][0].this
        assert isinstance(table, D.OjTable) and table.alias == "o"
        spec = table.args["join_window"].args["spec"]
        assert spec.args["kind"] == "RANGE" and spec.args["start"].args["side"] == "PRECEDING"
        interval = spec.args["start"].this
        assert isinstance(interval, D.WindowInterval) and interval.args["unit"] == "HOUR"
        assert "o OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o" in tree.sql(dialect=D.dialect_for())

    def test_window_after_alias_keeps_its_place(self) -> None:
        tree = roundtrip("SELECT * FROM a AS x OVER (ROWS 3 PRECEDING) JOIN b ON x.k = b.k")
        table = tree.args["from_"].this
        assert table.args["window_after_alias"] is True
        assert "a AS x OVER (ROWS 3 PRECEDING)" in tree.sql(dialect=D.dialect_for())

    def test_named_window(self) -> None:
        tree = roundtrip(
            "SELECT * FROM a OVER w AS x JOIN b OVER `w` AS y ON x.k = y.k WINDOW w AS (RANGE 5s PRECEDING)"
        )
        assert tree.args["from_"].this.args["join_window"].this.name == "w"
        definition = tree.args["windows"][0]
        assert isinstance(definition, D.NamedJoinWindow)
        assert isinstance(definition.args["spec"].args["start"].this, D.Duration)

    def test_double_quoted_window_name_in_default_mode(self) -> None:
        tree = roundtrip('SELECT * FROM a OVER "lastFew" AS x JOIN b ON TRUE WINDOW "lastFew" AS (ROWS CURRENT ROW)')
        name = tree.args["from_"].this.args["join_window"].this
        assert name.name == "lastFew" and name.args.get("quoted")

    def test_double_quoted_identifiers_mode(self) -> None:
        tree = roundtrip(
            'SELECT B."ticker" FROM SALES.BIDS OVER "lastTen" AS B WINDOW "lastTen" AS (RANGE INTERVAL \'10\' SECOND PRECEDING)',
            dq=True,
        )
        assert [c.name for c in tree.find_all(exp.Column)] == ["ticker"]

    @pytest.mark.parametrize(
        "spec",
        [
            "RANGE CURRENT ROW",
            "RANGE BETWEEN INTERVAL '2' HOUR PRECEDING AND INTERVAL '1' HOUR PRECEDING",
            "RANGE BETWEEN INTERVAL '10' MINUTE PRECEDING AND CURRENT ROW",
            "RANGE INTERVAL '1:30' MINUTE TO SECOND PRECEDING",
            "RANGE INTERVAL '1 02:03:04.5' DAY(2) TO SECOND(3) PRECEDING",
            "RANGE INTERVAL '5 seconds' PRECEDING",
            "RANGE INTERVAL 10 SECONDS PRECEDING",
            "RANGE 500ms PRECEDING",
            "RANGE 5s PRECEDING",
            "RANGE 1d PRECEDING",
            "ROWS 5 PRECEDING",
            "ROWS CURRENT ROW",
            "ROWS BETWEEN 5 PRECEDING AND CURRENT ROW",
            "PARTITION BY k, region ORDER BY ts ROWS 2 PRECEDING",
            "ORDER BY ts RANGE INTERVAL '1' MINUTE PRECEDING",
        ],
    )
    def test_specs_round_trip(self, spec: str) -> None:
        tree = roundtrip(f"SELECT * FROM a OVER ({spec}) AS x JOIN b ON x.k = b.k")
        assert tree.args["from_"].this.args["join_window"].args["spec"] is not None

    @pytest.mark.parametrize(
        "spec",
        ["RANGE INTERVAL '1' MINUTE FOLLOWING", "RANGE UNBOUNDED PRECEDING", "RANGE INTERVAL '1' MONTH PRECEDING",
         "RANGE INTERVAL -'1' SECOND PRECEDING", "ROWS -1 PRECEDING", "RANGE 5x PRECEDING",
         "ORDER BY FLOOR(ROWTIME TO HOUR) RANGE CURRENT ROW", "PARTITION BY k",
         "RANGE INTERVAL '1' SECOND(12) PRECEDING"],
    )  # fmt: skip
    def test_semantic_errors_still_parse(self, spec: str) -> None:
        # The validator reports these with their own codes, so the dialect must keep them.
        roundtrip(f"SELECT * FROM a OVER ({spec}) AS x JOIN b ON x.k = b.k")

    def test_positions_are_recorded(self) -> None:
        sql = "SELECT * FROM a OVER (RANGE INTERVAL '1' MINUTE FOLLOWING) AS x"
        spec = parse(sql).args["from_"].this.args["join_window"].args["spec"]
        interval = spec.args["start"].this
        unit, literal = D.pos(interval, "unit"), D.pos(interval, "literal")
        assert unit is not None and literal is not None
        assert sql[unit[0] : unit[1] + 1] == "MINUTE"
        assert sql[literal[0] : literal[1] + 1] == "'1'"

    def test_subquery_with_window(self) -> None:
        tree = roundtrip("SELECT * FROM (SELECT * FROM s) OVER (RANGE 5s PRECEDING) AS a CROSS JOIN t")
        assert isinstance(tree.args["from_"].this, D.OjSubquery)

    def test_function_window_stays_spark(self) -> None:
        tree = roundtrip(
            "SELECT SUM(x) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t"
        )
        assert isinstance(tree.expressions[0], exp.Window)
        assert not list(tree.find_all(D.JoinWindow))

    def test_window_clause_for_functions(self) -> None:
        tree = roundtrip(
            "SELECT MIN(x) OVER w FROM t WINDOW w AS (PARTITION BY a ORDER BY b DESC ROWS BETWEEN 3 PRECEDING AND 0 FOLLOWING)"
        )
        assert isinstance(tree.expressions[0], exp.Window)

    def test_window_clause_spark_only_falls_back(self) -> None:
        tree = roundtrip(
            "SELECT SUM(x) OVER w FROM t WINDOW w AS (ORDER BY ts RANGE BETWEEN x + 1 PRECEDING AND CURRENT ROW)"
        )
        assert tree.args["windows"]


class TestWithin:
    @pytest.mark.parametrize("duration", ["5s", "500ms", "10m", "1h", "1d", "INTERVAL '5' SECOND"])
    def test_after_condition(self, duration: str) -> None:
        tree = roundtrip(f"SELECT STREAM * FROM a LEFT JOIN b ON a.k = b.k WITHIN {duration}")
        join = tree.args["joins"][0]
        assert isinstance(join, D.OjJoin) and join.args["within"] is not None
        assert not join.args.get("within_first")

    def test_before_on(self) -> None:
        tree = roundtrip(
            "SELECT STREAM * FROM customers LEFT JOIN orders WITHIN 5s ON customers.id = orders.customer_id"
        )
        join = tree.args["joins"][0]
        assert join.args["within_first"] and join.args["on"] is not None
        assert "orders WITHIN 5s ON customers.id" in tree.sql(dialect=D.dialect_for())

    def test_before_using(self) -> None:
        tree = roundtrip("SELECT * FROM a JOIN b WITHIN INTERVAL '5' SECOND USING (k)")
        join = tree.args["joins"][0]
        assert [i.name for i in join.args["using"]] == ["k"] and join.args.get("on") is None

    def test_within_as_alias(self) -> None:
        tree = roundtrip("SELECT * FROM a JOIN b within ON a.x = within.x")
        assert tree.args["joins"][0].this.alias == "within"

    def test_within_group_is_spark(self) -> None:
        # Only parsed: sqlglot's Spark generator rewrites percentile_cont, which is not ours.
        tree = parse("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM t")
        assert not list(tree.find_all(D.OjJoin)) and isinstance(tree.expressions[0], exp.WithinGroup)


class TestOtherConstructs:
    def test_asof_join(self) -> None:
        tree = roundtrip("SELECT * FROM p ASOF LEFT JOIN m ON p.k = m.k AND m.t <= p.t")
        join = tree.args["joins"][0]
        assert join.args["method"] == "ASOF" and join.side == "LEFT"

    def test_for_system_time_kept(self) -> None:
        tree = roundtrip("SELECT * FROM sales JOIN products FOR SYSTEM_TIME AS OF PROCTIME() AS p ON product_id = p.id")
        assert "FOR SYSTEM_TIME AS OF PROCTIME()" in tree.sql(dialect=D.dialect_for())

    def test_tumble_and_hop(self) -> None:
        tree = roundtrip(
            "SELECT * FROM TUMBLE(s1, ts, INTERVAL '1' MINUTE) JOIN HOP(s2, ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE) ON s1.id = s2.id"
        )
        names = [t.this.name.upper() for t in tree.find_all(exp.Table)]
        assert names == ["TUMBLE", "HOP"]

    def test_stream_relation(self) -> None:
        tree = roundtrip("SELECT * FROM STREAM t OVER (ROWS 5 PRECEDING) AS a JOIN stream(u) b ON a.x = b.x")
        streams = list(tree.find_all(exp.Stream))
        assert len(streams) == 2
        assert streams[0].this.args["join_window"] is not None

    @pytest.mark.parametrize(
        "sql", ["SELECT * FROM stream", "SELECT * FROM stream AS s", "SELECT * FROM stream, version"]
    )
    def test_table_named_stream(self, sql: str) -> None:
        tree = roundtrip(sql)
        assert not list(tree.find_all(exp.Stream))

    def test_watermark_clause(self) -> None:
        tree = roundtrip("SELECT * FROM s WATERMARK ts DELAY OF INTERVAL 10 SECONDS AS a JOIN t ON a.k = t.k")
        table = tree.args["from_"].this
        assert isinstance(table.args["watermark"], D.Watermark) and table.alias == "a"

    def test_watermark_then_window(self) -> None:
        tree = roundtrip("SELECT * FROM s WATERMARK ts DELAY OF INTERVAL 10 SECONDS OVER (RANGE 1m PRECEDING) AS a")
        table = tree.args["from_"].this
        assert table.args["watermark"] is not None and table.args["join_window"] is not None

    def test_group_by_window_function(self) -> None:
        tree = roundtrip("SELECT window(ts, '5 minutes'), COUNT(*) FROM events GROUP BY window(ts, '5 minutes')")
        assert tree.args["group"] is not None

    @pytest.mark.parametrize(
        "sql",
        ["CREATE TABLE events (id INT, ts TIMESTAMP) USING parquet", "INSERT INTO t SELECT * FROM s",
         "WITH x AS (SELECT 1 AS a) SELECT * FROM x", "SELECT a FROM t UNION ALL SELECT a FROM u",
         "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET *"],
    )  # fmt: skip
    def test_plain_spark(self, sql: str) -> None:
        tree = roundtrip(sql)
        assert not list(tree.find_all(D.JoinWindow))


class TestErrors:
    def test_parse_error_keeps_the_token(self) -> None:
        parser = D.dialect_for().parser()
        assert isinstance(parser, OverjoinParser)
        sql = "SELECT * FROM a OVER (RANGE INTERVAL '1' FORTNIGHT PRECEDING) AS x"
        with pytest.raises(ParseError):
            parser.parse(D.dialect_for().tokenize(sql), sql)
        assert parser.oj_error is not None
        message, token, at_end = parser.oj_error
        assert token.text == "FORTNIGHT" and not at_end
        assert message == "Expected SECOND, MINUTE, HOUR or DAY"  # the token itself is named by OJ001
