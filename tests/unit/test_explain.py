"""overjoin.explain: the Spark SQL of the RANGE rewrite and the per-input descriptions."""

from __future__ import annotations

from sqlglot import exp

from overjoin import dialect as D
from overjoin.explain import explain, format_explanations

ORDERS = ("SELECT STREAM ROWTIME, o.orderId, o.ROWTIME AS orderTime FROM Shipments AS s "
          "JOIN Orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON o.orderId = s.orderId")  # fmt: skip


def spark_tree(sql: str) -> exp.Expr:
    (result,) = explain(sql)
    assert result.spark_sql, result.notes
    tree = D.dialect_for().parse(result.spark_sql)[0]
    assert tree is not None
    return tree


def test_orders_shipments_rewrite() -> None:
    (result,) = explain(ORDERS)
    assert result.spark_sql == (
        "SELECT GREATEST(s.rowtime, o.rowtime) AS ROWTIME, o.orderId, o.ROWTIME AS orderTime "
        "FROM Shipments AS s JOIN Orders AS o ON o.orderId = s.orderId "
        "AND o.rowtime BETWEEN s.rowtime - INTERVAL '3600' SECOND AND s.rowtime + INTERVAL '0' SECOND"
    )
    names = [r.name for r in result.inputs]
    assert names == ["s (Shipments)", "o (Orders)"]
    o = result.inputs[1]
    assert o.life == "[o.rowtime, o.rowtime + 1h]"
    assert o.state == "until the watermark passes o.rowtime + 1h (its last possible match)"
    assert o.null_padded.startswith("never")


def test_rewritten_sql_is_plain_spark() -> None:
    tree = spark_tree(ORDERS)
    assert not tree.args.get("stream")
    assert not list(tree.find_all(D.JoinWindow)) and not list(tree.find_all(D.OjJoin))


def test_between_windows_and_outer_rowtime() -> None:
    sql = ("SELECT STREAM * FROM a OVER (RANGE BETWEEN INTERVAL '2' MINUTE PRECEDING AND INTERVAL '30' SECOND "
           "PRECEDING) AS x LEFT JOIN b OVER (RANGE 1m PRECEDING) AS y ON x.k = y.k")  # fmt: skip
    (result,) = explain(sql)
    assert result.spark_sql is not None
    # y.t BETWEEN x.t + (b_X - a_Y) AND x.t + (a_X - b_Y) = x.t - 30s AND x.t + 120s
    assert (
        "y.rowtime BETWEEN x.rowtime - INTERVAL '30' SECOND AND x.rowtime + INTERVAL '120' SECOND" in result.spark_sql
    )
    # An unmatched x is emitted at the end of its life interval, x.t + a_X.
    assert result.spark_sql.startswith(
        "SELECT CASE WHEN y.rowtime IS NULL THEN x.rowtime + INTERVAL '120' SECOND "
        "ELSE GREATEST(x.rowtime + INTERVAL '30' SECOND, y.rowtime) END AS ROWTIME, *"
    )
    x = result.inputs[0]
    assert x.life == "[x.rowtime + 30s, x.rowtime + 2m]"
    assert "ROWTIME = x.rowtime + 2m" in x.null_padded
    assert x.state == "until the watermark passes x.rowtime + 2m (its last possible match)"


def test_within_and_using() -> None:
    tree = spark_tree("SELECT STREAM * FROM a JOIN b WITHIN 5s USING (k)")
    join = tree.args["joins"][0]
    assert join.args.get("using") is None
    assert join.args["on"].sql() == (
        "a.k = b.k AND b.rowtime BETWEEN a.rowtime - INTERVAL '5' SECOND AND a.rowtime + INTERVAL '5' SECOND"
    )


def test_order_by_column_is_the_rowtime() -> None:
    (result,) = explain("SELECT STREAM * FROM a OVER (ORDER BY ts RANGE 10m PRECEDING) AS x JOIN b ON x.k = b.k")
    assert result.spark_sql is not None
    assert "b.rowtime BETWEEN x.ts + INTERVAL '0' SECOND AND x.ts + INTERVAL '600' SECOND" in result.spark_sql
    assert result.inputs[0].rowtime == "x.ts (ORDER BY of its window)"


def test_rows_window_is_described_not_rewritten() -> None:
    (result,) = explain("SELECT STREAM * FROM a OVER (PARTITION BY k ROWS 3 PRECEDING) AS x JOIN b ON x.k = b.k")
    assert result.spark_sql is None
    assert "no interval join to show" in result.notes[0]
    assert result.inputs[0].life == "[x.rowtime, s.rowtime) where s is the 4th later row of x (a) in its partition"


def test_plain_sql_and_errors() -> None:
    (plain,) = explain("SELECT a FROM t")
    assert plain.spark_sql == "SELECT a FROM t" and "unchanged" in plain.notes[0]
    (bad,) = explain("SELECT STREAM * FROM a OVER (ROWS 1 FOLLOWING) JOIN b ON TRUE")
    assert bad.diagnostics[0].code == "OJ102"
    assert "OJ102" in format_explanations([bad])


def test_text_format() -> None:
    text = format_explanations(explain(ORDERS))
    assert text.startswith("-- Spark SQL\nSELECT GREATEST(")
    assert "o (Orders)\n  window:           RANGE INTERVAL '1' HOUR PRECEDING\n" in text
    assert "  null-padded rows: never" in text
