"""Kinesis Data Analytics' and s-Server's functions and operators that Spark SQL lacks or means
differently (docs/syntax.md, "KDA and s-Server functions"): `SIMILAR TO`, `TSDIFF`,
`CHAR_TO_TIMESTAMP` and its kin, `REGEX_REPLACE`, `CURRENT_ROW_TIMESTAMP`, `MONOTONIC`, the log
parsers, and `UNIX_TIMESTAMP`/`TO_TIMESTAMP` in milliseconds inside a streaming block.

Oracles: published results (Amazon Redshift's SIMILAR TO examples, which follow the SQL standard
as KDA does), Spark's own `LIKE` (an independent implementation of `%` and `_`) on generated
patterns and values, and Python's `datetime`, `calendar` and `re` on generated inputs; W3C_LOG_PARSE against log lines written
from generated fields by the format (the parse must give back the fields the line was written from).
"""

from __future__ import annotations

import calendar
import random
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from pyspark.errors import AnalysisException, ParseException

from tests.spark.streams import make_stream, run_stream

# ---- SIMILAR TO ------------------------------------------------------------------------------------

#: Amazon Redshift's documented SIMILAR TO examples (Database Developer Guide, "SIMILAR TO"): value,
#: pattern, result. The SQL standard's operator, which KDA and s-Server implement.
PUBLISHED = [
    ("abc", "abc", True),
    ("abc", "_b_", True),
    ("abc", "_A_", False),
    ("abc", "%(b|d)%", True),
    ("abc", "(b|c)%", False),
    ("AbcAbcdefgefg12efgefg12", "((Ab)?c)+d((efg)+(12))+", True),
    ("aaaaaab11111xy", "a{6}_[0-9]{5}(x|y){2}", True),
    ("$0.87", "$[0-9]+(.[0-9][0-9])?", True),
]


def sql_string(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def test_published_similar_to_examples(spark) -> None:
    items = ", ".join(f"{sql_string(v)} SIMILAR TO {sql_string(p)} AS c{i}" for i, (v, p, _) in enumerate(PUBLISHED))
    got = list(spark.sql(f"SELECT {items}").first())
    assert got == [want for _, _, want in PUBLISHED]


def random_like_pattern(rng: random.Random) -> str:
    """A pattern of literals (some of them regular-expression characters that SIMILAR TO takes as
    themselves), `%` and `_`: it means the same to LIKE and to SIMILAR TO."""
    return "".join(rng.choice(["a", "b", ".", "$", "^", "%", "_", "ab"]) for _ in range(rng.randint(0, 5)))


def random_value(rng: random.Random) -> str:
    return "".join(rng.choice("ab.$^") for _ in range(rng.randint(0, 6)))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_similar_to_agrees_with_like_on_generated_patterns(spark, seed: int) -> None:
    """Without the regular-expression operators, SIMILAR TO is LIKE: the whole value, `%` any run,
    `_` one character, `.` `$` `^` themselves. Alternatives `(p|q)` are LIKE p OR LIKE q; NOT SIMILAR
    TO is the negation; NULL gives NULL."""
    rng = random.Random(seed)
    values = [random_value(rng) for _ in range(30)] + [None]
    patterns = [random_like_pattern(rng) for _ in range(40)]
    spark.createDataFrame([(v,) for v in values], "v STRING").createOrReplaceTempView("similar_values")
    checks = []
    for i, p in enumerate(patterns):
        q = patterns[(i + 7) % len(patterns)]
        checks.append(
            f"(v SIMILAR TO {sql_string(p)}) <=> (v LIKE {sql_string(p)}) AND "
            f"(v NOT SIMILAR TO {sql_string(p)}) <=> (v NOT LIKE {sql_string(p)}) AND "
            f"(v SIMILAR TO {sql_string('(' + p + '|' + q + ')')}) <=> (v LIKE {sql_string(p)} OR v LIKE {sql_string(q)})"
        )
    cols = ", ".join(f"{c} AS ok{i}" for i, c in enumerate(checks))
    for row in spark.sql(f"SELECT v, {cols} FROM similar_values").collect():
        bad = [patterns[i] for i in range(len(patterns)) if not row[f"ok{i}"]]
        assert not bad, f"seed {seed}: value {row['v']!r} disagrees with LIKE on {bad}"


def test_similar_to_escape_agrees_with_like_escape(spark) -> None:
    rng = random.Random(11)
    values = ["100%", "100", "a_b", "axb", "!", "x!y", "%", "_"]
    patterns = ["100!%", "%!%", "a!_b", "a_b", "!!", "%!!%", "!%", "!_", "%"]
    spark.createDataFrame([(v,) for v in values], "v STRING").createOrReplaceTempView("escape_values")
    for p in rng.sample(patterns, len(patterns)):
        rows = spark.sql(
            f"SELECT v, v SIMILAR TO '{p}' ESCAPE '!' AS s, v LIKE '{p}' ESCAPE '!' AS l FROM escape_values"
        ).collect()
        assert [(r["v"], r["s"]) for r in rows] == [(r["v"], r["l"]) for r in rows], p


def test_similar_to_regular_expression_operators(spark) -> None:
    cases = [
        ("TECHNOLOGY", "%TECH%", True),
        ("BIOTECH", "%TECH%", True),
        ("tech", "%TECH%", False),  # case matters
        ("TECH", "TECH|FIN", True),
        ("FIN", "TECH|FIN", True),
        ("TECHFIN", "TECH|FIN", False),  # the whole value
        ("aaa", "a+", True),
        ("", "a*", True),
        ("ab", "ab?", True),
        ("abb", "ab?", False),
        ("c", "[a-c]", True),
        ("d", "[a-c]", False),
        ("d", "[^a-c]", True),
        ("7", "[[:DIGIT:]]", True),
        ("x", "[[:DIGIT:]]", False),
        ("a.c", "a.c", True),
        ("abc", "a.c", False),  # `.` is itself
        ("a\nb", "a_b", True),  # `_` is any character, a line break too
        ("a\\b", "a\\b", True),  # `\` is itself without ESCAPE
    ]
    items = ", ".join(f"{sql_string(v)} SIMILAR TO {sql_string(p)} AS c{i}" for i, (v, p, _) in enumerate(cases))
    got = list(spark.sql(f"SELECT {items}").first())
    assert [(c[0], c[1], g) for c, g in zip(cases, got)] == [(v, p, w) for v, p, w in cases]


def test_similar_to_in_subqueries_views_and_next_to_rlike(spark) -> None:
    spark.createDataFrame([("TECH",), ("FIN",), ("BIOTECH",)], "sector STRING").createOrReplaceTempView("sectors")
    got = spark.sql(
        "SELECT sector, sector RLIKE 'TECH' AS partial FROM sectors "
        "WHERE sector IN (SELECT sector FROM sectors WHERE sector SIMILAR TO 'TECH|FIN')"
    ).collect()
    # RLIKE keeps Spark's meaning (a match anywhere) in a statement that also has SIMILAR TO.
    assert sorted(tuple(r) for r in got) == [("FIN", False), ("TECH", True)]
    spark.sql("CREATE OR REPLACE TEMP VIEW tech_sectors AS SELECT sector FROM sectors WHERE sector SIMILAR TO '%TECH'")
    assert sorted(r[0] for r in spark.sql("SELECT * FROM tech_sectors").collect()) == ["BIOTECH", "TECH"]


def test_bad_similar_to_pattern_is_refused_where_it_is_written(spark) -> None:
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT 'abc' SIMILAR TO '(ab' AS m").collect()
    message = str(e.value)
    assert "'(ab' is not a SIMILAR TO pattern" in message and "ESCAPE" in message
    assert "line 1 pos 13" in message  # SIMILAR's position
    with pytest.raises(ParseException) as e2:
        spark.sql("SELECT 'a' SIMILAR TO 'a' ESCAPE 'ab'").collect()
    assert "OJ001" in str(e2.value) and "exactly one character" in str(e2.value)
    assert "(line 1, pos 33)" in str(e2.value)  # the ESCAPE literal


# ---- time functions ----------------------------------------------------------------------------------

T0 = datetime(2024, 3, 30, 22, 0, 0)


def random_times(rng: random.Random, n: int) -> list[datetime]:
    return [T0 + timedelta(microseconds=rng.randrange(-(10**13), 10**13)) for _ in range(n)]


def millis(t: datetime) -> int:
    return calendar.timegm(t.timetuple()) * 1000 + t.microsecond // 1000


def test_tsdiff_on_generated_timestamps_and_millis(spark) -> None:
    """TSDIFF(a, b) = a - b in milliseconds, for TIMESTAMPs and for BIGINT milliseconds; NULL in, NULL out."""
    rng = random.Random(5)
    times = random_times(rng, 60)
    pairs = [(a, b) for a, b in zip(times, reversed(times))] + [(None, T0), (T0, None)]
    spark.createDataFrame(pairs, "a TIMESTAMP, b TIMESTAMP").createOrReplaceTempView("tsdiff_pairs")
    rows = spark.sql(
        "SELECT a, b, TSDIFF(a, b) AS d, TSDIFF(unix_millis(a), unix_millis(b)) AS dm FROM tsdiff_pairs"
    ).collect()
    for r in rows:
        want = None if r["a"] is None or r["b"] is None else millis(r["a"]) - millis(r["b"])
        assert (r["d"], r["dm"]) == (want, want), (r["a"], r["b"])
    with pytest.raises(AnalysisException, match="TSDIFF takes TIMESTAMP values or BIGINT milliseconds"):
        spark.sql("SELECT TSDIFF('2024-01-01', 1)").collect()


def test_unix_timestamp_and_to_timestamp_are_millis_in_a_streaming_block(spark) -> None:
    """KDA's UNIX_TIMESTAMP(ts) and TO_TIMESTAMP(ms) count milliseconds; in a streaming block
    (SELECT STREAM) they are KDA's, and UNIX_TIMESTAMP converts a string, a date or a number to a
    TIMESTAMP first as KDA does (a number is already milliseconds; a string that is no time gives
    NULL). Elsewhere Spark's (seconds); TO_TIMESTAMP of a string is Spark's everywhere."""
    rng = random.Random(6)
    times = random_times(rng, 40)
    rows = [(t, millis(t), t.strftime("%Y-%m-%d %H:%M:%S.%f"), t.date()) for t in times]
    spark.createDataFrame(rows, "ROWTIME TIMESTAMP, ms BIGINT, s STRING, d DATE").createOrReplaceTempView("kda_times")
    got = spark.sql(
        "SELECT STREAM ROWTIME, d, UNIX_TIMESTAMP(ROWTIME) AS u, TO_TIMESTAMP(ms) AS t, "
        "UNIX_TIMESTAMP(s) AS us, UNIX_TIMESTAMP(d) AS ud, UNIX_TIMESTAMP(ms) AS um, "
        "UNIX_TIMESTAMP('1970-01-01 00:01:00') AS lit, UNIX_TIMESTAMP('no time') AS bad, "
        "TO_TIMESTAMP('2024-01-01 00:00:00') AS spark_t "
        "FROM kda_times"
    ).collect()
    assert len(got) == len(rows)
    for r in got:
        assert r["u"] == r["us"] == r["um"] == millis(r["ROWTIME"])
        assert r["ud"] == calendar.timegm(r["d"].timetuple()) * 1000
        assert r["t"] == r["ROWTIME"].replace(microsecond=r["ROWTIME"].microsecond // 1000 * 1000)
        assert (r["lit"], r["bad"], r["spark_t"]) == (60000, None, datetime(2024, 1, 1))
    plain = spark.sql(
        "SELECT ROWTIME, ms, UNIX_TIMESTAMP(ROWTIME) AS u, unix_seconds(TO_TIMESTAMP(ms)) AS t FROM kda_times"
    ).collect()
    for r in plain:  # Spark's functions: seconds
        assert (r["u"], r["t"]) == (calendar.timegm(r["ROWTIME"].timetuple()), r["ms"])


PATTERNS = [
    ("yyyy-MM-dd HH:mm:ss", "%Y-%m-%d %H:%M:%S"),
    ("dd/MM/yyyy HH:mm", "%d/%m/%Y %H:%M"),
    ("yyyyMMdd'T'HHmmss", "%Y%m%dT%H%M%S"),
]


@pytest.mark.parametrize(("kda", "python"), PATTERNS)
def test_timestamp_to_char_and_back(spark, kda: str, python: str) -> None:
    rng = random.Random(len(kda))
    times = [t.replace(microsecond=0) for t in random_times(rng, 40)]
    spark.createDataFrame([(t,) for t in times], "ts TIMESTAMP").createOrReplaceTempView("char_times")
    f = sql_string(kda)
    rows = spark.sql(
        f"SELECT ts, TIMESTAMP_TO_CHAR({f}, ts) AS s, CHAR_TO_TIMESTAMP({f}, TIMESTAMP_TO_CHAR({f}, ts)) AS back, "
        f"DATE_TO_CHAR({f}, CAST(ts AS DATE)) AS d, CHAR_TO_DATE({f}, TIMESTAMP_TO_CHAR({f}, ts)) AS back_d "
        "FROM char_times"
    ).collect()
    for r in rows:
        assert r["s"] == r["ts"].strftime(python)
        assert r["back"] == datetime.strptime(r["ts"].strftime(python), python)
        midnight = datetime.combine(r["ts"].date(), datetime.min.time())
        assert r["d"] == midnight.strftime(python)
        assert r["back_d"] == r["ts"].date()


def test_char_to_timestamp_reads_as_javas_simple_date_format(spark) -> None:
    """KDA's reference: the pattern is Java's SimpleDateFormat's; a template of fewer fields reads
    the start of the string and the rest of the TIMESTAMP is its default (day 1, zero time); every
    field must be within its range. `z` reads an offset such as Apache's log format has."""
    row = spark.sql(
        "SELECT CHAR_TO_TIMESTAMP('yyyy-MM-dd', '2009-09-16 03:15:24') AS day, "
        "CHAR_TO_TIMESTAMP('yyyy-MM', '2009-09-16 03:15:24') AS month, "
        "CHAR_TO_TIMESTAMP('yyyy-MM-dd hh:mm:ss', '2009-09-16 03:15:24') AS full, "
        "CHAR_TO_TIMESTAMP('dd/MMM/yyyy:HH:mm:ss z', '10/Oct/2000:13:55:36 -0700') AS apache, "
        "TIMESTAMP_TO_CHAR('yyyy-MM-dd', CAST(NULL AS TIMESTAMP)) AS null_ts"
    ).first()
    assert row["day"] == datetime(2009, 9, 16)
    assert row["month"] == datetime(2009, 9, 1)
    assert row["full"] == datetime(2009, 9, 16, 3, 15, 24)
    assert row["apache"] == datetime(2000, 10, 10, 20, 55, 36)  # 13:55:36 at -07:00, in UTC
    assert row["null_ts"] == "null"  # as KDA's reference says
    with pytest.raises(Exception, match="'2009-02-30' does not match the pattern 'yyyy-MM-dd'"):
        spark.sql("SELECT CHAR_TO_TIMESTAMP('yyyy-MM-dd', '2009-02-30')").collect()


# ---- REGEX_REPLACE, CURRENT_ROW_TIMESTAMP, MONOTONIC -------------------------------------------------


def regex_replace_model(s: str, regex: str, rep: str, start: int, occurrence: int) -> str:
    """KDA's definition: from character `start` (1-based), the `occurrence`-th match (all when 0)."""
    if start > len(s):
        return s
    out, last = [s[: start - 1]], start - 1
    for n, m in enumerate(re.finditer(regex, s[start - 1 :]), start=1):
        if occurrence in (0, n):
            out.append(s[last : m.start() + start - 1])
            out.append(rep)
            last = m.end() + start - 1
    out.append(s[last:])
    return "".join(out)


def test_regex_replace_on_generated_strings(spark) -> None:
    rng = random.Random(8)
    regexes = ["b", "ab", "a+", "[bc]", "x"]
    cases = []
    for _ in range(120):
        s = "".join(rng.choice("abcx") for _ in range(rng.randint(0, 12)))
        cases.append((s, rng.choice(regexes), rng.choice(["-", "", "ZZ"]), rng.randint(1, 14), rng.randint(0, 3)))
    spark.createDataFrame(cases, "s STRING, r STRING, rep STRING, st INT, occ INT").createOrReplaceTempView("rr")
    for row in spark.sql("SELECT *, REGEX_REPLACE(s, r, rep, st, occ) AS got FROM rr").collect():
        assert row["got"] == regex_replace_model(row["s"], row["r"], row["rep"], row["st"], row["occ"]), tuple(row)
    # The reference's own example: every TECHNOLOGY sector renamed.
    assert (
        spark.sql("SELECT REGEX_REPLACE('TECHNOLOGY', 'TECHNOLOGY', 'INFORMATION TECHNOLOGY', 1, 0)").first()[0]
        == "INFORMATION TECHNOLOGY"
    )
    with pytest.raises(Exception, match="the start position is 0"):
        spark.sql("SELECT REGEX_REPLACE('ab', 'b', 'c', 0, 0)").collect()


def test_current_row_timestamp_with_and_without_parentheses(spark) -> None:
    before = datetime.now().replace(microsecond=0)
    row = spark.sql("SELECT CURRENT_ROW_TIMESTAMP, CURRENT_ROW_TIMESTAMP() AS c, MONOTONIC(1 + 1) AS m").first()
    after = datetime.now() + timedelta(seconds=1)
    assert before <= row["CURRENT_ROW_TIMESTAMP"] <= after and before <= row["c"] <= after
    assert row["m"] == 2
    # A column of that name wins, as a column named current_date does over Spark's function.
    spark.createDataFrame([(5,)], "CURRENT_ROW_TIMESTAMP INT").createOrReplaceTempView("has_column")
    assert spark.sql("SELECT CURRENT_ROW_TIMESTAMP FROM has_column").first()[0] == 5


# ---- the log parsers ---------------------------------------------------------------------------------


def test_regex_log_parse_on_generated_strings(spark) -> None:
    """A row of the groups (COLUMN1..n) when the whole string matches the Java regular expression,
    NULL when it does not; the model is Python's `re.fullmatch`, which agrees with Java's on these."""
    rng = random.Random(12)
    regexes = [r".*([E].).*([R].*)", r"(\w+)-(\d+)", r"a(b*)c", r"([^,]*),([^,]*),?(.*)"]
    strings = ["ENERGY", "HEALTHCARE", "abc-12", "ac", "abbbc", "x,y", "x,y,z", "", "a,b,c,d", "E1R", "ab-"]
    strings += ["".join(rng.choice("abcER-1,") for _ in range(rng.randint(0, 8))) for _ in range(40)]
    spark.createDataFrame([(s,) for s in strings], "s STRING").createOrReplaceTempView("log_lines")
    for regex in regexes:
        n = re.compile(regex).groups
        cols = ", ".join(f"r.COLUMN{i}" for i in range(1, n + 1))
        got = spark.sql(
            f"SELECT s, r IS NULL AS missing, {cols} FROM (SELECT s, REGEX_LOG_PARSE(s, {sql_string(regex)}) AS r "
            "FROM log_lines)"
        ).collect()
        for row in got:
            m = re.fullmatch(regex, row["s"])
            assert row["missing"] == (m is None), (regex, row["s"])
            if m:
                assert tuple(row[2:]) == m.groups(), (regex, row["s"])


def vclp_model(s: str, n: int, delimiter: str, escape: str | None, quote: str | None) -> list[str | None]:
    """KDA's split, written independently: escape keeps the next character, quotes hold one field."""
    fields, field, quoted, i = [], [], False, 0
    opening, closing = (quote[0], quote[-1]) if quote else (None, None)
    while i < len(s):
        ch = s[i]
        if escape and ch == escape and i + 1 < len(s):
            field.append(s[i + 1])
            i += 2
        elif quoted:
            quoted = ch != closing
            if quoted:
                field.append(ch)
            i += 1
        elif ch == opening:
            quoted, i = True, i + 1
        elif s.startswith(delimiter, i):
            fields.append("".join(field))
            field, i = [], i + len(delimiter)
        else:
            field.append(ch)
            i += 1
    fields.append("".join(field))
    return [fields[k] if k < len(fields) else None for k in range(n)]


@pytest.mark.parametrize(
    ("delimiter", "escape", "quote"), [(",", None, None), ("||", "\\", None), (";", "\\", '"'), (",", None, "[]")]
)
def test_variable_column_log_parse_on_generated_strings(
    spark, delimiter: str, escape: str | None, quote: str | None
) -> None:
    rng = random.Random(len(delimiter) * 7 + len(quote or ""))
    alphabet = ["a", "b", "1", delimiter, *(escape or ""), *(quote or "")]
    strings = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) for _ in range(60)]
    spark.createDataFrame([(s,) for s in strings], "s STRING").createOrReplaceTempView("vclp_lines")
    args = ", ".join(sql_string(a) for a in [delimiter, escape or "", quote or ""] if a is not None)
    if quote is None:
        args = ", ".join(sql_string(a) for a in [delimiter, *([escape] if escape else [])])
    rows = spark.sql(f"SELECT s, VARIABLE_COLUMN_LOG_PARSE(s, 4, {args}) AS r FROM vclp_lines").collect()
    for row in rows:
        want = vclp_model(row["s"], 4, delimiter, escape, quote)
        assert list(row["r"]) == want, (row["s"], delimiter, escape, quote)


def test_variable_column_log_parse_with_typed_columns(spark) -> None:
    """The developer guide's form: a list of typed columns, each field cast to its type; missing
    fields are NULL; a type that is none is refused naming it."""
    row = spark.sql(
        "SELECT VARIABLE_COLUMN_LOG_PARSE('7;2.5;abc', 'A TYPE INTEGER, \"b c\" TYPE DOUBLE, C TYPE VARCHAR(16), "
        "D TYPE TIMESTAMP', ';') AS r"
    ).first()["r"]
    assert row.asDict() == {"A": 7, "b c": 2.5, "C": "abc", "D": None}
    with pytest.raises(AnalysisException, match="'WHAT' is not a data type"):
        spark.sql("SELECT VARIABLE_COLUMN_LOG_PARSE('1', 'A TYPE WHAT', ';')").collect()


def test_select_stream_subquery_has_an_implicit_rowtime(spark) -> None:
    """As in KDA, a SELECT STREAM subquery is a stream with a ROWTIME even when its select list does
    not name it: the reference's REGEX_LOG_PARSE example reads one. Its ROWTIME is its input's."""
    rows = [(datetime(2024, 1, 1, 0, 0, i), s) for i, s in enumerate(["ENERGY", "RETAIL", "HEALTHCARE"])]
    spark.createDataFrame(rows, "ROWTIME TIMESTAMP, SECTOR STRING").createOrReplaceTempView("SECTORS_STREAM")
    got = spark.sql(
        "SELECT STREAM ROWTIME, T.SECTOR, T.REC.COLUMN1, T.REC.COLUMN2 FROM (SELECT STREAM SECTOR, "
        "REGEX_LOG_PARSE(SECTOR, '.*([E].).*([R].*)') AS REC FROM SECTORS_STREAM) AS T"
    ).collect()
    want = []
    for t, s in rows:
        m = re.fullmatch(r".*([E].).*([R].*)", s)
        want.append((t, s, *(m.groups() if m else (None, None))))
    assert sorted(tuple(r) for r in got) == sorted(want)
    # The column is added for the outer block only: the subquery alone has its own select list.
    assert spark.sql("SELECT STREAM SECTOR FROM SECTORS_STREAM").columns == ["SECTOR"]


def test_integer_division_in_a_streaming_block(spark) -> None:
    """KDA's reference ("Streaming SQL Operators"): operands of one type give that type, 5/2 is 2;
    5.0/2 is 2.5. In a streaming block two whole numbers divide to a whole number truncated toward
    zero, of the wider operand's type; elsewhere (a plain SELECT, a subquery that is not streaming)
    Spark's `/` gives a DOUBLE."""
    rng = random.Random(13)
    rows = [(datetime(2024, 1, 1), rng.randint(-50, 50), rng.choice([-7, -3, -2, -1, 1, 2, 3, 7]), rng.randint(-9, 9))
            for _ in range(60)]  # fmt: skip
    spark.createDataFrame(rows, "ROWTIME TIMESTAMP, a INT, b BIGINT, c SMALLINT").createOrReplaceTempView("divisions")
    df = spark.sql(
        "SELECT STREAM a, b, c, a / b AS ab, a / 2 AS a2, c / 2 AS c2, a / 2.0 AS dec, CAST(a AS DOUBLE) / b AS dbl "
        "FROM divisions"
    )
    assert dict(df.dtypes)["ab"] == "bigint" and dict(df.dtypes)["a2"] == "int" and dict(df.dtypes)["c2"] == "int"

    for r in df.collect():
        assert (r["ab"], r["a2"], r["c2"]) == (trunc_div(r["a"], r["b"]), trunc_div(r["a"], 2), trunc_div(r["c"], 2))
        assert float(r["dec"]) == r["a"] / 2 and r["dbl"] == r["a"] / r["b"]
    # A WHERE that starts with a parenthesis is the block's own too.
    where = spark.sql("SELECT STREAM a, b FROM divisions WHERE (a / b) = 0").collect()
    assert sorted(map(tuple, where)) == sorted((r[1], r[2]) for r in rows if trunc_div(r[1], r[2]) == 0)
    plain = spark.sql("SELECT a, a / 2 AS a2 FROM divisions").collect()
    assert all(r["a2"] == r["a"] / 2 for r in plain)
    assert spark.sql("SELECT STREAM 5 / 2 AS x, (SELECT 5 / 2) AS y FROM divisions LIMIT 1").first() == (2, 2.5)


def trunc_div(x: int, y: int) -> int:
    """Java's (and KDA's) division of whole numbers: truncated toward zero."""
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


#: Streaming blocks with divisions, and the model of each: the row's output, or None where a
#: division that always runs has a zero divisor (the row is left out). ``CASE``, ``COALESCE``'s later
#: arguments and the right of ``AND`` run only for some rows: a zero divisor there is never reached.
DIVISION_QUERIES: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
    (
        "SELECT STREAM id, a / b AS q FROM zdiv",
        lambda r: (
            None if r["b"] == 0 else (r["id"], None if r["a"] is None or r["b"] is None else trunc_div(r["a"], r["b"]))
        ),
    ),
    (
        "SELECT STREAM id FROM zdiv WHERE (ABS(x / (y - x)) * 100) > 1",
        lambda r: None if r["y"] - r["x"] == 0 or abs(r["x"] / (r["y"] - r["x"])) * 100 <= 1 else (r["id"],),
    ),
    (
        "SELECT STREAM id, CASE WHEN b = 0 THEN -1 ELSE a / b END AS q FROM zdiv",
        lambda r: (
            r["id"],
            -1 if r["b"] == 0 else None if r["a"] is None or r["b"] is None else trunc_div(r["a"], r["b"]),
        ),
    ),
    (
        "SELECT STREAM id FROM zdiv WHERE b <> 0 AND a / b > 1",
        lambda r: (
            (r["id"],) if r["b"] not in (None, 0) and r["a"] is not None and trunc_div(r["a"], r["b"]) > 1 else None
        ),
    ),
    (
        "SELECT STREAM id, (a + 1) / (b - 1) + x / y AS q FROM zdiv",
        lambda r: (
            None
            if r["b"] == 1 or r["y"] == 0
            else (
                r["id"],
                None if r["a"] is None or r["b"] is None else trunc_div(r["a"] + 1, r["b"] - 1) + r["x"] / r["y"],
            )
        ),
    ),
]


def zero_division_rows(seed: int, n: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [
        {"ROWTIME": datetime(2024, 1, 1) + timedelta(seconds=i), "id": i, "a": rng.choice([None, *range(-4, 9)]),
         "b": rng.choice([None, 0, 0, 1, 2, -3, 5]), "x": float(rng.randint(-3, 3)), "y": float(rng.choice([0, 1, 2, 3, -1]))}
        for i in range(n)
    ]  # fmt: skip


def test_a_row_that_divides_by_zero_is_left_out_as_kda_did(spark) -> None:
    """KDA sent a row whose division by zero failed to its error stream and went on (its developer
    guide, "Error Handling"); under Spark's ANSI default the query failed. In a streaming block a
    division that always runs leaves its row out when the divisor is zero; one in a branch that only
    some rows take does not. The model is each query's own rule over generated rows; plain Spark SQL
    still fails, and with ANSI off a zero divisor is NULL, as Spark's."""
    rows = zero_division_rows(21, 150)
    spark.createDataFrame(rows, "ROWTIME TIMESTAMP, id INT, a INT, b INT, x DOUBLE, y DOUBLE").createOrReplaceTempView(
        "zdiv"
    )
    for sql, model in DIVISION_QUERIES:
        want = sorted(m for m in map(model, rows) if m is not None)
        got = sorted(tuple(r) for r in spark.sql(sql).collect())
        assert got == want, sql
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        spark.sql("SELECT id, a / b FROM zdiv").collect()
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        nulls = spark.sql("SELECT STREAM id, a / b AS q FROM zdiv WHERE b = 0").collect()
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")
    assert len(nulls) == sum(1 for r in rows if r["b"] == 0) and all(r["q"] is None for r in nulls)


@pytest.mark.streaming
def test_a_stream_leaves_out_and_counts_the_rows_that_divide_by_zero(spark) -> None:
    """On a stream the same rows are left out, micro-batch by micro-batch, and each batch's progress
    counts them (the count SHOW PUMPS' DESCRIBE PUMP reports as error_rows)."""
    rows = zero_division_rows(22, 90)
    src = make_stream(spark, "zdiv_s", "ROWTIME TIMESTAMP, id INT, a INT, b INT, x DOUBLE, y DOUBLE")
    sql, model = DIVISION_QUERIES[0]
    batches = [rows[i : i + 30] for i in range(0, len(rows), 30)]
    run = run_stream(spark, sql.replace("zdiv", "zdiv_s"), [{"zdiv_s": b} for b in batches], {"zdiv_s": src})
    assert sorted(tuple(r) for r in run.rows) == sorted(m for m in map(model, rows) if m is not None)
    counted = [
        sum(v["rows"] for k, v in p.observedMetrics.items() if k.startswith("overjoin_zero_divisor"))
        for p in run.progress
        if p.numInputRows
    ]
    assert counted == [sum(1 for r in b if r["b"] == 0) for b in batches]


GROUPED_DIVISIONS = (
    "SELECT STREAM k, STEP(z.ROWTIME BY INTERVAL '20' SECOND) AS w, SUM(a) / SUM(b) AS q, SUM(x / y) AS s, "
    "COUNT(*) AS n FROM {source} AS z GROUP BY k, STEP(z.ROWTIME BY INTERVAL '20' SECOND)"
)


def grouped_division_rows(seed: int, n: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [
        {"ROWTIME": datetime(2024, 1, 1) + timedelta(seconds=i), "k": rng.randint(0, 4), "a": rng.choice([None, *range(-5, 9)]),
         "b": rng.choice([None, -1, 0, 1, 1]), "x": float(rng.randint(-3, 3)), "y": float(rng.choice([0, 1, 2, -1, 4]))}
        for i in range(n)
    ]  # fmt: skip


def grouped_division_model(rows: list[dict[str, Any]]) -> tuple[list[tuple], int, int]:
    """A row whose ``x / y`` divides by zero is left out of its group (every input row runs it); a
    group whose ``SUM(b)`` is zero is left out (its result divides by zero); a NULL sum divides to
    NULL. Also how many rows and groups were left out."""
    kept = [r for r in rows if r["y"] != 0]
    groups: dict[tuple[int, datetime], list[dict[str, Any]]] = {}
    for r in kept:
        w = r["ROWTIME"].replace(second=r["ROWTIME"].second // 20 * 20)
        groups.setdefault((r["k"], w), []).append(r)
    out, dropped = [], 0
    for (k, w), members in groups.items():
        sa = sum(r["a"] for r in members if r["a"] is not None) if any(r["a"] is not None for r in members) else None
        sb = sum(r["b"] for r in members if r["b"] is not None) if any(r["b"] is not None for r in members) else None
        if sb == 0:
            dropped += 1
            continue
        q = None if sa is None or sb is None else trunc_div(sa, sb)
        out.append((k, w, q, sum(r["x"] / r["y"] for r in members), len(members)))
    return sorted(out), len(rows) - len(kept), dropped


def test_an_aggregation_leaves_out_the_rows_and_groups_that_divide_by_zero(spark) -> None:
    """In a windowed aggregation, an input row whose division in an aggregate's argument divides by
    zero is left out of its group, and a group whose result divides by zero (``SUM(a) / SUM(b)``) is
    left out, as KDA sent each to its error stream; the model computes the groups in Python."""
    rows = grouped_division_rows(31, 400)
    want, dropped_rows, dropped_groups = grouped_division_model(rows)
    assert dropped_rows > 20 and dropped_groups > 5 and len(want) > 50
    spark.createDataFrame(rows, "ROWTIME TIMESTAMP, k INT, a INT, b INT, x DOUBLE, y DOUBLE").createOrReplaceTempView(
        "zgroup"
    )
    got = sorted(tuple(r) for r in spark.sql(GROUPED_DIVISIONS.format(source="zgroup")).collect())
    assert got == want
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        spark.sql("SELECT k, SUM(a) / SUM(b) FROM zgroup GROUP BY k, FLOOR(UNIX_SECONDS(ROWTIME) / 20)").collect()


@pytest.mark.streaming
def test_a_stream_aggregation_leaves_out_and_counts_rows_and_groups_that_divide_by_zero(spark) -> None:
    rows = grouped_division_rows(32, 240)
    far = {"ROWTIME": datetime(2024, 1, 1, 1), "k": 0, "a": 1, "b": 1, "x": 1.0, "y": 1.0}
    src = make_stream(spark, "zgroup_s", "ROWTIME TIMESTAMP, k INT, a INT, b INT, x DOUBLE, y DOUBLE")
    batches = [rows[i : i + 60] for i in range(0, len(rows), 60)] + [[far]]
    run = run_stream(spark, GROUPED_DIVISIONS.format(source="STREAM zgroup_s"), [{"zgroup_s": b} for b in batches],
                     {"zgroup_s": src})  # fmt: skip
    want, dropped_rows, dropped_groups = grouped_division_model(rows)
    assert sorted(tuple(r) for r in run.rows) == want
    counted = sum(
        v["rows"] or 0  # a batch that emits no group counts NULL
        for p in run.progress
        for k, v in p.observedMetrics.items()
        if k.startswith("overjoin_zero_divisor")
    )
    assert counted == dropped_rows + dropped_groups and dropped_groups > 0


SLIDING_DIVISIONS = (
    "SELECT STREAM ROWTIME, k, SUM(x / y) OVER (PARTITION BY k RANGE INTERVAL '1' MINUTE PRECEDING) AS s, "
    "COUNT(*) OVER (PARTITION BY k RANGE INTERVAL '1' MINUTE PRECEDING) AS n FROM {source}"
)


def sliding_division_model(rows: list[dict[str, Any]]) -> list[tuple]:
    """A row whose ``x / y`` divides by zero is left out: no row of its own, and in no other row's
    window; every other row has the sum and count of its key's kept rows of the minute up to it."""
    kept = [r for r in rows if r["y"] != 0]
    out = []
    for r in kept:
        window = [
            w for w in kept if w["k"] == r["k"] and r["ROWTIME"] - timedelta(minutes=1) <= w["ROWTIME"] <= r["ROWTIME"]
        ]
        out.append((r["ROWTIME"], r["k"], round(sum(w["x"] / w["y"] for w in window), 9), len(window)))
    return sorted(out)


@pytest.mark.streaming
def test_a_sliding_window_leaves_out_the_rows_that_divide_by_zero(spark) -> None:
    """A division in a sliding window's function (``SUM(x / y) OVER w``) runs for every row (Spark
    computes the argument below the window), so a row whose divisor is zero is left out, before any
    window is made, over a table and over a stream alike, as KDA sent it to its error stream; the
    stream's progress counts the rows. The model sums each kept row's minute in Python."""
    rows = grouped_division_rows(41, 150)
    want = sliding_division_model(rows)
    dropped = sum(1 for r in rows if r["y"] == 0)
    assert dropped > 20 and len(want) > 100
    schema = "ROWTIME TIMESTAMP, k INT, a INT, b INT, x DOUBLE, y DOUBLE"
    spark.createDataFrame(rows, schema).createOrReplaceTempView("zslide")
    got = sorted(
        (t, k, round(v, 9), n) for t, k, v, n in spark.sql(SLIDING_DIVISIONS.format(source="zslide")).collect()
    )
    assert got == want
    far = {"ROWTIME": datetime(2024, 1, 1, 1), "k": 99, "a": 1, "b": 1, "x": 1.0, "y": 1.0}
    src = make_stream(spark, "zslide_s", schema)
    batches = [rows[i : i + 50] for i in range(0, len(rows), 50)] + [[far]]
    run = run_stream(spark, SLIDING_DIVISIONS.format(source="STREAM zslide_s"), [{"zslide_s": b} for b in batches],
                     {"zslide_s": src})  # fmt: skip
    streamed = sorted((t, k, round(v, 9), n) for t, k, v, n in run.rows if k != 99)
    assert streamed == want
    counted = sum(
        v["rows"] or 0
        for p in run.progress
        for k, v in p.observedMetrics.items()
        if k.startswith("overjoin_zero_divisor")
    )
    assert counted == dropped


# ---- W3C_LOG_PARSE ------------------------------------------------------------------------------

#: The formats KDA names (its SQL reference, "W3C Predefined Formats") as Apache writes them, and two
#: of a server's own: each line a test writes follows one of these.
W3C_FORMATS = {
    "COMMON": '%h %l %u %t "%r" %>s %b',
    "common with vhost": '%v %h %l %u %t "%r" %>s %b',
    "NCSA EXTENDED": '%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i"',
    "REFERER": "%{Referer}i -> %U",
    "AGENT": "%{User-agent}i",
    '%a %{X-Forwarded-For}i [%{%d/%b/%Y:%H:%M:%S %z}t] "%m" %D %>s %B': None,
    '%h %l %u %t \\"%r\\" %>s %b %%': None,  # quotes as Apache's LogFormat writes them, and a literal %
}


def w3c_fields(fmt: str) -> list[tuple[str, str]]:
    """The specifiers of an Apache format, in order, as (kind, letter): kind "quoted" (between double
    quotes in the format), "argument" (``%{...}x``) or "plain"."""
    out = []
    for m in re.finditer(r"%%|%[<>!,0-9]*(\{[^}]*\})?([a-zA-Z])", fmt):
        if m.group(0) == "%%":
            continue
        before, after = fmt[m.start() - 1 : m.start()], fmt[m.end() : m.end() + 1]
        kind = "quoted" if before == '"' and after == '"' else "argument" if m.group(1) else "plain"
        out.append((kind, m.group(2)))
    return out


def w3c_value(rng: random.Random, kind: str, letter: str, last: bool) -> str:
    """A field a server could write there: a request line with spaces and escaped quotes between
    quotes, a bracketed time for %t, a header (spaces only where it ends the line), else a token or -."""
    if kind == "quoted":
        words = ["GET", "/a b.gif", 'x\\"y\\"', "HTTP/1.1", "-", "q=1&r=2", ""]
        return " ".join(rng.choice(words) for _ in range(rng.randint(0, 4)))
    if letter == "t" and kind == "plain":
        t = datetime(2004, 5, 24) + timedelta(seconds=rng.randint(0, 10**7))
        return t.strftime("[%d/%b/%Y:%H:%M:%S ") + rng.choice(["-0700", "+0000", "+0530"]) + "]"
    if letter == "t":
        return (datetime(2004, 5, 24) + timedelta(seconds=rng.randint(0, 10**7))).strftime("%d/%b/%Y:%H:%M:%S -0700")
    if kind == "argument":
        agents = ["Mozilla/5.0 (X11; Linux x86_64)", "curl/8.1", "-"] if last else ["http://x.org/p?q=1", "-"]
        return rng.choice(agents)
    return rng.choice(["-", "192.168.254.30", "John", "304", "0", "2326", str(rng.randint(0, 10**6)), "www.x.org"])


def w3c_line(rng: random.Random, fmt: str) -> tuple[str, list[str]]:
    """A log line written by ``fmt`` from generated fields, and the fields."""
    fields = w3c_fields(fmt)
    values = [w3c_value(rng, k, c, i == len(fields) - 1) for i, (k, c) in enumerate(fields)]
    it = iter(values)
    line = re.sub(r"%%|%[<>!,0-9]*(\{[^}]*\})?[a-zA-Z]", lambda m: "%" if m.group(0) == "%%" else next(it), fmt)
    return line, values


def test_w3c_log_parse_gives_back_the_fields_a_line_was_written_from(spark) -> None:
    """KDA's W3C_LOG_PARSE on lines written from generated fields by each predefined format and two
    of a server's own: COLUMN1 to COLUMNn are the fields as the line holds them (%t with its brackets,
    a request without its quotes, '-' kept), whatever the format's name's case, with the format's
    quotes written as Apache's configuration writes them (\\") too; a line without a bracket or a
    quote its format has is NULL."""
    rng = random.Random(38)
    for name, written in W3C_FORMATS.items():
        fmt = (written or name).replace('\\"', '"')
        lines = [w3c_line(rng, fmt) for _ in range(40)]
        # Without its first [ or " (where the format has one) a line follows the format no more.
        opener = next((c for c in fmt if c in '["'), None)
        broken = [line.replace(opener, "", 1) for line, _ in lines[:8]] if opener else []
        literal = sql_string(name)
        values = ", ".join(f"({i}, {sql_string(line)})" for i, line in enumerate([x for x, _ in lines] + broken))
        got = spark.sql(
            f"SELECT i, W3C_LOG_PARSE(s, {literal}) AS r FROM VALUES {values} AS t(i, s) ORDER BY i"
        ).collect()
        n = len(w3c_fields(fmt))
        for row in got[: len(lines)]:
            line, want = lines[row["i"]]
            assert row["r"] is not None and list(row["r"]) == want, (name, line)
            assert row["r"].__fields__ == [f"COLUMN{j}" for j in range(1, n + 1)]
        assert [row["r"] for row in got[len(lines) :]] == [None] * len(broken), name


def test_w3c_log_parse_reads_a_subquerys_row_as_kda_does(spark) -> None:
    """The developer guide's form: ``FROM (SELECT STREAM W3C_LOG_PARSE("log", 'COMMON') FROM s) AS l(r)``
    then ``l.r.COLUMN1`` ...; a format that is none, and IIS's (its fields are named in the log), are
    refused naming the format and what to write instead."""
    spark.createDataFrame(
        [(datetime(2024, 1, 1), '10.1.2.3 - ann [01/Jan/2024:00:00:00 +0000] "GET /x HTTP/1.1" 200 -')],
        "ROWTIME TIMESTAMP, log STRING",
    ).createOrReplaceTempView("WEBLOG_STREAM")
    got = spark.sql(
        'SELECT STREAM l.r.COLUMN1, l.r.COLUMN4, l.r.COLUMN5, l.r.COLUMN7 FROM (SELECT STREAM W3C_LOG_PARSE("log", '
        "'COMMON') FROM WEBLOG_STREAM) AS l(r)"
    ).collect()
    assert [tuple(r) for r in got] == [("10.1.2.3", "[01/Jan/2024:00:00:00 +0000]", "GET /x HTTP/1.1", "-")]
    spaced = spark.sql("""SELECT W3C_LOG_PARSE('h  -  u   [t]  "r s"  1  2', 'COMMON') AS r""").first()["r"]
    assert list(spaced) == ["h", "-", "u", "[t]", "r s", "1", "2"]  # a space of the format: one or more
    with pytest.raises(AnalysisException, match="'CLF' is not a log format: name one of AGENT, COMMON"):
        spark.sql("SELECT W3C_LOG_PARSE('x', 'CLF')").collect()
    with pytest.raises(AnalysisException, match=r"IIS format is not supported.*VARIABLE_COLUMN_LOG_PARSE"):
        spark.sql("SELECT W3C_LOG_PARSE('x', 'IIS')").collect()
    with pytest.raises(AnalysisException, match="'%Z' at position 4 of '%h %Z' is not a format specifier"):
        spark.sql("SELECT W3C_LOG_PARSE('x', '%h %Z')").collect()
