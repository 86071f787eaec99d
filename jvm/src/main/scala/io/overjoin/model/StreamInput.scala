package io.overjoin.model

import org.apache.spark.sql.catalyst.trees.Origin

/**
 * One input of a streaming query block's `FROM` clause, as the parser found it.
 *
 * `start` is the offset of the input's first token (`STREAM`, a table name, the `(` of a
 * subquery; for `TUMBLE(s, ...)` the relation `s`): Spark's plan node for the relation starts
 * there. `source` is the relation as written (`SALES.BIDS`, `"Orders"`, `(SELECT ...)`), `name`
 * how the query calls it (its alias, else the last part of its name), `line`/`column` its
 * position for errors found after parsing (1-based). `lookup` marks a
 * `FOR SYSTEM_TIME AS OF PROCTIME()` table; `asofTime` the column an ASOF join's inequality uses
 * when the input declares no rowtime. `cursorCall`: the input is `TABLE(f(CURSOR(...), ...))`,
 * whose plan node is the cursor's subquery (it starts at the `(` after `CURSOR`).
 */
final case class StreamInput(
    start: Int,
    end: Int,
    source: String,
    name: String,
    alias: Option[String],
    window: JoinWindow,
    windowStart: Option[Int],
    streamKeyword: Boolean,
    line: Int = 0,
    column: Int = 0,
    lookup: Boolean = false,
    asofTime: Option[String] = None,
    tvf: Option[WindowTvf] = None,
    cursorCall: Option[CursorCall] = None) {

  /** Where the input is in the user's text, for errors found after parsing. */
  def origin: Origin =
    if (line <= 0) Origin() else Origin(line = Some(line), startPosition = Some(column - 1))

  /** How errors name the input: `alias (source)`, or the source alone. */
  def display: String = StreamInput.display(alias, source)
}

object StreamInput {
  /** `alias (source)` when the alias says something the source does not; a subquery is "subquery". */
  def display(alias: Option[String], source: String): String = {
    val shown = if (source.startsWith("(")) "subquery" else source
    alias.filterNot(_.equalsIgnoreCase(shown)).map(a => s"$a ($shown)").getOrElse(shown)
  }
}
