package io.overjoin.errors

import org.apache.spark.sql.catalyst.trees.Origin

/** Where a parse error is: the statement and the offending characters, `[start, stop)`. */
final case class TextSpan(sql: String, start: Int, stop: Int)

/**
 * Every error overjoin raises, one constructor per condition of `overjoin-error-conditions.json`,
 * so that a condition's parameters are written in one place. Parse errors point into the user's
 * text; analysis errors carry the input's origin where there is one.
 */
object OverjoinErrors {

  private def parse(name: String, at: TextSpan, params: (String, String)*): OverjoinParseException =
    new OverjoinParseException(ErrorCatalogue(name), params.toMap, at.sql, SqlPosition.of(at.sql, at.start, at.stop))

  private def analysis(name: String, origin: Origin, params: (String, String)*): OverjoinAnalysisException =
    new OverjoinAnalysisException(ErrorCatalogue(name), params.toMap, origin)

  // -- Parse errors (docs/syntax.md, "Errors") --------------------------------------------------

  def syntax(at: TextSpan, token: String, expected: String): OverjoinParseException =
    parse("OVERJOIN_SYNTAX_ERROR", at, "token" -> token, "detail" -> s"expected $expected")

  def syntaxDetail(at: TextSpan, token: String, detail: String): OverjoinParseException =
    parse("OVERJOIN_SYNTAX_ERROR", at, "token" -> token, "detail" -> detail)

  def tooComplex(sql: String, depth: Int): OverjoinParseException =
    parse("OVERJOIN_STATEMENT_TOO_COMPLEX", TextSpan(sql, 0, 0), "depth" -> depth.toString)

  // `window` in the interval and frame errors is a phrase naming the window, as the user wrote it:
  // "the join window of o", "the window w", "the window of WINDOWED BY STAGGER", "STEP(...)"
  // (WindowNames); a sliding or stagger window is not a join window.

  def variableUnit(at: TextSpan, window: String, unit: String): OverjoinParseException =
    parse("OVERJOIN_WINDOW_VARIABLE_UNIT", at, "window" -> window, "unit" -> unit)

  def following(at: TextSpan, window: String): OverjoinParseException =
    parse("OVERJOIN_WINDOW_FOLLOWING", at, "window" -> window)

  def unbounded(at: TextSpan, window: String): OverjoinParseException =
    parse("OVERJOIN_WINDOW_UNBOUNDED", at, "window" -> window)

  def negativeSize(at: TextSpan, window: String, size: String): OverjoinParseException =
    parse("OVERJOIN_WINDOW_NEGATIVE_SIZE", at, "window" -> window, "size" -> size)

  def boundsOrder(at: TextSpan, window: String, start: String, end: String): OverjoinParseException =
    parse("OVERJOIN_WINDOW_BOUNDS_ORDER", at, "window" -> window, "start" -> start, "end" -> end)

  def badInterval(at: TextSpan, literal: String, window: String, unit: String, detail: String): OverjoinParseException =
    parse("OVERJOIN_WINDOW_BAD_INTERVAL", at, "literal" -> literal, "window" -> window, "unit" -> unit, "detail" -> detail)

  def unknownWindow(at: TextSpan, name: String, input: String): OverjoinParseException =
    parse("OVERJOIN_WINDOW_UNKNOWN_NAME", at, "name" -> name, "input" -> input)

  def partitionWithoutFrame(at: TextSpan, input: String): OverjoinParseException =
    parse("OVERJOIN_WINDOW_PARTITION_BY", at, "input" -> input, "detail" -> "it is not followed by a RANGE or ROWS frame")

  def orderByNotAColumn(at: TextSpan, input: String, expression: String): OverjoinParseException =
    parse("OVERJOIN_WINDOW_ORDER_BY", at, "input" -> input, "expression" -> expression)

  def crossJoinCondition(at: TextSpan, clause: String): OverjoinParseException =
    parse("OVERJOIN_CROSS_JOIN_CONDITION", at, "clause" -> clause)

  def withinWithOver(at: TextSpan, input: String): OverjoinParseException =
    parse("OVERJOIN_WITHIN_WITH_OVER", at, "input" -> input)

  def notAJoinInput(at: TextSpan, input: String, detail: String): OverjoinParseException =
    parse("OVERJOIN_WINDOW_NOT_A_JOIN_INPUT", at, "input" -> input, "detail" -> detail)

  def duplicateWindow(at: TextSpan, name: String): OverjoinParseException =
    parse("OVERJOIN_DUPLICATE_WINDOW_NAME", at, "name" -> name)

  def badDuration(at: TextSpan, literal: String): OverjoinParseException =
    parse("OVERJOIN_BAD_DURATION", at, "literal" -> literal)

  /** A stream's input schema (column mappings, record options) that KDA would not read (docs/server.md, "Input schemas"). */
  def inputSchema(at: TextSpan, stream: String, what: String, problem: String, fix: String): OverjoinParseException =
    parse("OVERJOIN_INPUT_SCHEMA", at, "stream" -> stream, "what" -> what, "problem" -> problem, "fix" -> fix)

  def badPrecision(at: TextSpan, precision: String, unit: String, window: String): OverjoinParseException =
    parse("OVERJOIN_WINDOW_BAD_PRECISION", at, "precision" -> precision, "unit" -> unit, "window" -> window)

  def rowsEndingBeforeCurrentRow(at: TextSpan, window: String): OverjoinParseException =
    parse("OVERJOIN_UNSUPPORTED_SYNTAX.ROWS_ENDING_BEFORE_CURRENT_ROW", at, "window" -> window)

  def asofCondition(at: TextSpan, input: String, equalities: Int, inequalities: Int): OverjoinParseException =
    parse("OVERJOIN_ASOF_CONDITION", at, "input" -> input, "equalities" -> equalities.toString,
      "inequalities" -> inequalities.toString)

  def windowNameAsInput(at: TextSpan, name: String, reference: String, input: String, column: String)
      : OverjoinParseException =
    parse("OVERJOIN_WINDOW_NAME_AS_INPUT", at, "name" -> name, "reference" -> reference, "input" -> input,
      "column" -> column)

  /** Calcite's group windows (docs/semantics.md §11): a call whose place or arguments do not make a window. */
  def groupWindow(at: TextSpan, call: String, problem: String, fix: String): OverjoinParseException =
    parse("OVERJOIN_GROUP_WINDOW", at, "call" -> call, "problem" -> problem, "fix" -> fix)

  // -- Analysis errors (docs/syntax.md, "Errors" and docs/semantics.md) -------------------------

  def noRowtime(origin: Origin, input: String, source: String): OverjoinAnalysisException =
    analysis("OVERJOIN_NO_ROWTIME", origin, "input" -> input, "source" -> source, "column" -> "ts")

  def rowtimeNotSelected(origin: Origin, input: String, what: String, fix: String): OverjoinAnalysisException =
    analysis("OVERJOIN_ROWTIME_NOT_SELECTED", origin, "input" -> input, "what" -> what, "fix" -> fix)

  def noTimeColumn(origin: Origin, input: String, source: String, column: String): OverjoinAnalysisException =
    analysis("OVERJOIN_NO_ROWTIME", origin, "input" -> input, "source" -> source, "column" -> column)

  def rowtimeNotTimestamp(origin: Origin, column: String, input: String, dataType: String): OverjoinAnalysisException =
    analysis("OVERJOIN_ROWTIME_NOT_TIMESTAMP", origin, "column" -> column, "input" -> input, "type" -> dataType)

  def cursorFunctionInput(call: String, problem: String, fix: String): OverjoinAnalysisException =
    analysis("OVERJOIN_CURSOR_FUNCTION_INPUT", Origin(), "call" -> call, "problem" -> problem, "fix" -> fix)

  def monotonicAfterWatermark(input: String, column: String, timedBy: String): OverjoinAnalysisException =
    analysis("OVERJOIN_MONOTONIC_AFTER_WATERMARK", org.apache.spark.sql.catalyst.trees.Origin(),
      "input" -> input, "column" -> column, "timedBy" -> timedBy)

  def distinctWithoutTime(origin: Origin, items: String): OverjoinAnalysisException =
    analysis("OVERJOIN_DISTINCT_WITHOUT_TIME", origin, "items" -> items)

  def streamOrderBy(origin: Origin, first: String): OverjoinAnalysisException =
    analysis("OVERJOIN_STREAM_ORDER_BY", origin, "first" -> first)

  def orderByNotAColumnOf(origin: Origin, input: String, expression: String): OverjoinAnalysisException =
    analysis("OVERJOIN_WINDOW_ORDER_BY", origin, "input" -> input, "expression" -> expression)

  def tableInput(origin: Origin, input: String, detail: String): OverjoinAnalysisException =
    analysis("OVERJOIN_WINDOW_NOT_A_JOIN_INPUT", origin, "input" -> input, "detail" -> detail)

  def naturalNoCommonColumn(left: String, right: String): OverjoinAnalysisException =
    analysis("OVERJOIN_NATURAL_NO_COMMON_COLUMN", Origin(), "left" -> left, "right" -> right)

  def usingRowtime(column: String, input: String): OverjoinAnalysisException =
    analysis("OVERJOIN_USING_ROWTIME", Origin(), "column" -> column, "input" -> input)

  def streamTableOuter(joinType: String, stream: String, table: String): OverjoinAnalysisException =
    analysis("OVERJOIN_STREAM_TABLE_OUTER", Origin(), "joinType" -> joinType, "stream" -> stream, "table" -> table)

  def asofConditionOf(input: String, equalities: String, inequalities: String): OverjoinAnalysisException =
    analysis("OVERJOIN_ASOF_CONDITION", Origin(), "input" -> input, "equalities" -> equalities,
      "inequalities" -> inequalities)

  def rowsWindowOnStream(origin: Origin, input: String): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_SYNTAX.ROWS_WINDOW_ON_STREAM", origin, "input" -> input)

  def rowsPartitionNotOfTheInput(origin: Origin, input: String, partition: String): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_SYNTAX.ROWS_PARTITION_NOT_OF_THE_INPUT", origin, "input" -> input,
      "partition" -> partition)

  def asofStreamWithTable(stream: String, table: String): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_SYNTAX.ASOF_STREAM_WITH_TABLE", Origin(), "stream" -> stream, "table" -> table)

  def asofAfterJoin(left: String): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_SYNTAX.ASOF_AFTER_JOIN", Origin(), "left" -> left)

  def asofExtraConditions(condition: String): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_SYNTAX.ASOF_EXTRA_CONDITIONS", Origin(), "condition" -> condition)

  /** A group window function that analysis finds is not the block's window (its time, or a stream's rowtime). */
  def groupWindowOf(origin: Origin, call: String, problem: String, fix: String): OverjoinAnalysisException =
    analysis("OVERJOIN_GROUP_WINDOW", origin, "call" -> call, "problem" -> problem, "fix" -> fix)

  def twoTumblingWindows(first: String, second: String): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_SYNTAX.TWO_TUMBLING_WINDOWS", Origin(), "first" -> first, "second" -> second)

  def orderedEmitAfterStreamAsof(inputs: String): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_SYNTAX.ORDERED_EMIT_AFTER_STREAM_ASOF", Origin(), "inputs" -> inputs)

  def orderedEmitWithoutRowtime(): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_SYNTAX.ORDERED_EMIT_WITHOUT_ROWTIME", Origin())

  def rowtimeInJoinCondition(spelling: String): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_SYNTAX.ROWTIME_IN_JOIN_CONDITION", Origin(), "spelling" -> spelling)

  def rowtimeOutsideBlock(spelling: String): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_SYNTAX.ROWTIME_OUTSIDE_BLOCK", Origin(), "spelling" -> spelling)

  def inputRowtimeOutsideBlock(input: String, spelling: String): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_SYNTAX.INPUT_ROWTIME_OUTSIDE_BLOCK", Origin(),
      "reference" -> s"$input.$spelling", "input" -> input)

  def paddedRowsJoinedAgain(inputs: String): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_STREAMING_JOIN.PADDED_ROWS_JOINED_AGAIN", Origin(), "inputs" -> inputs)

  def noStreamInput(): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_STREAMING_JOIN.NO_STREAM_INPUT", Origin())

  def unsupportedFromItem(node: String): OverjoinAnalysisException =
    analysis("OVERJOIN_UNSUPPORTED_STREAMING_JOIN.UNSUPPORTED_FROM_ITEM", Origin(), "node" -> node)

  // -- Sliding windows on streams (docs/semantics.md §12): refused before the query starts ---------

  /** Where an analysis error points, from a position the parser recorded. */
  private def at(position: Option[SqlPosition]): Origin = position.map { p =>
    Origin(line = Some(p.line), startPosition = Some(p.column - 1), startIndex = Some(p.start),
      stopIndex = Some(math.max(p.start, p.stop - 1)))
  }.getOrElse(Origin())

  def slidingUnbounded(position: Option[SqlPosition], call: String, window: String): OverjoinAnalysisException =
    analysis("OVERJOIN_SLIDING_WINDOW_UNBOUNDED", at(position), "call" -> call, "window" -> window)

  def slidingFollowing(position: Option[SqlPosition], call: String, window: String): OverjoinAnalysisException =
    analysis("OVERJOIN_SLIDING_WINDOW_FOLLOWING", at(position), "call" -> call, "window" -> window)

  def slidingRanking(position: Option[SqlPosition], function: String, call: String): OverjoinAnalysisException =
    analysis("OVERJOIN_SLIDING_WINDOW_RANKING", at(position), "function" -> function, "call" -> call)

  // -- Errors while a query runs ---------------------------------------------------------------

  /**
   * `operator`: "a windowed join", "a sliding window", "a stagger window". `checkpoint`: where the
   * state was read ([[org.apache.spark.sql.overjoin.OverjoinStateWriter]] names the query's
   * checkpoint location once the error reaches the operator's task).
   */
  def stateFormat(operator: String, found: Int, supported: String, checkpoint: String = "of this query")
      : OverjoinRuntimeException =
    new OverjoinRuntimeException(ErrorCatalogue("OVERJOIN_STATE_FORMAT"),
      Map("operator" -> operator, "found" -> found.toString, "supported" -> supported, "checkpoint" -> checkpoint))

  def internal(detail: String): OverjoinAnalysisException =
    analysis("OVERJOIN_INTERNAL_ERROR", Origin(), "detail" -> detail)
}
