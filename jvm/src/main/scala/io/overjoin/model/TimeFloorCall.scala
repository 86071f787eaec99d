package io.overjoin.model

/**
 * A `STEP(ts BY interval)`, `FLOOR(ts TO unit)` or `CEIL(ts TO unit)` call in a streaming-dialect
 * query block (docs/semantics.md §11), as the parser found it (`function` is `CEIL` for Calcite's
 * `CEILING` too). `start` is the offset of the function's name:
 * Spark's function call node for the same text starts there too.
 *
 * `STEP` floors to a multiple of `stepMicros` since 1970-01-01 00:00:00 UTC (or, with a number
 * after `BY`, of `stepNumber`); `FLOOR` truncates to the start of its `unit` in the session time
 * zone; `CEIL` rounds up to the end of its unit (a time already at the start of a unit is its own
 * ceiling). Grouped by over a rowtime, each makes a tumbling window (rewritten by
 * [[io.overjoin.catalyst.analysis.RewriteTumblingAggregates]]): `CEIL`'s holds the times
 * `(end - 1 unit, end]`, the others' `[start, start + step)`.
 *
 * KDA's template form `FLOOR((ts - TIMESTAMP '1970-01-01 00:00:00') SECOND / 10 TO SECOND)` is a
 * `FLOOR` with an `origin` (the timestamp, in microseconds since the epoch, UTC) and `stepMicros`
 * (10 seconds): the number of whole steps since the origin, as an interval of `unit`; grouped by,
 * a tumbling window of that step aligned at the origin.
 */
final case class TimeFloorCall(
    start: Int,
    function: String,
    text: String,
    stepMicros: Option[Long] = None,
    stepNumber: Option[String] = None,
    unit: Option[String] = None,
    origin: Option[Long] = None) {
  def isStep: Boolean = function == "STEP"
  def isCeil: Boolean = function == "CEIL"
}

object TimeFloorCall {
  /** The units `FLOOR(ts TO unit)` takes (the shared lexicon's `floorUnits`). */
  def FloorUnits: Seq[String] = Lexicon.floorUnits
}
