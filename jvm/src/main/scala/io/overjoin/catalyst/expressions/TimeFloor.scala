package io.overjoin.catalyst.expressions

import org.apache.spark.sql.catalyst.analysis.UnresolvedException
import org.apache.spark.sql.catalyst.expressions.{Add, EqualTo, Expression, If, IntegralDivide, Literal, MicrosToTimestamp, MultiplyDTInterval, Pmod, Subtract, TimestampAdd, TruncTimestamp, UnaryExpression, Unevaluable, UnixMicros}
import org.apache.spark.sql.types.{DataType, DayTimeIntervalType}

import io.overjoin.model.TimeFloorCall

/**
 * `STEP(ts BY ...)`, `FLOOR(ts TO unit)` or `CEIL(ts TO unit)` of query block `block`, before
 * analysis decides what it is (docs/semantics.md §11). In the `GROUP BY` of an aggregation, over a rowtime of the block, it
 * makes a tumbling window, which
 * [[io.overjoin.catalyst.analysis.RewriteTumblingAggregates]] rewrites; anywhere else it is the
 * scalar [[floorOf]] of its argument. It stays unresolved until one of the two has happened.
 */
case class TimeFloor(block: Int, call: TimeFloorCall, child: Expression)
  extends UnaryExpression with Unevaluable {

  override lazy val resolved: Boolean = false
  override def dataType: DataType = throw new UnresolvedException("dataType")
  override def nullable: Boolean = true
  override def toString: String = s"${call.text}"
  override def sql: String = call.text
  override protected def withNewChildInternal(newChild: Expression): TimeFloor = copy(child = newChild)

  /** The same window: the same function and size over the same argument. */
  def sameWindow(other: TimeFloor): Boolean =
    other.call.copy(start = 0, text = "") == call.copy(start = 0, text = "") && other.child == child

  /**
   * The call's value at `ts`: `ts` floored to a multiple of the step since the epoch, or to the
   * start of the unit in `timeZone`; for KDA's `FLOOR((ts - TIMESTAMP '...') SECOND / n TO SECOND)`,
   * the number of whole steps since the origin, as an interval of the unit (what KDA gives); for
   * Calcite's `CEIL(ts TO unit)`, `ts` rounded up to the end of its unit (itself when `ts` starts a unit).
   */
  def floorOf(ts: Expression, timeZone: String): Expression = call match {
    case TimeFloorCall(_, _, _, Some(micros), _, Some(unit), Some(origin)) =>
      // The whole steps from the origin to the window's start, in units of `unit`.
      val steps = IntegralDivide(Subtract(UnixMicros(startOf(ts, timeZone)), Literal(origin)), Literal(micros))
      val one = Literal(TimeFloor.unitMicros(unit), DayTimeIntervalType(TimeFloor.intervalField(unit)))
      MultiplyDTInterval(one, steps)
    case TimeFloorCall(_, "STEP", _, Some(micros), _, _, _) => TimeFloor.stepStart(ts, micros)
    case TimeFloorCall(_, "STEP", _, None, Some(number), _, _) =>
      val n = if (number.forall(_.isDigit)) Literal(number.toLong) else Literal(BigDecimal(number))
      Subtract(ts, Pmod(ts, n))
    case TimeFloorCall(_, "CEIL", _, _, _, Some(unit), _) =>
      val floor = TruncTimestamp(Literal(unit), ts, Some(timeZone))
      If(EqualTo(floor, ts), floor, TimestampAdd(unit, Literal(1L), floor, Some(timeZone)))
    case TimeFloorCall(_, _, _, _, _, Some(unit), _) =>
      TruncTimestamp(Literal(unit), ts, Some(timeZone))
    case other => throw new IllegalStateException(s"not a time floor: $other")
  }

  /** Where the window of `ts` starts: its floor, or for an origin, a whole number of steps after it. */
  def startOf(ts: Expression, timeZone: String): Expression = call match {
    case TimeFloorCall(_, _, _, Some(micros), _, _, Some(origin)) => TimeFloor.stepStart(ts, micros, origin)
    case _ => floorOf(ts, timeZone)
  }

  /**
   * Where the window of `ts` ends (exclusive): its start plus one step or unit; for `CEIL`, whose
   * window `(end - 1 unit, end]` holds its end, the instant after the end.
   */
  def endOf(ts: Expression, timeZone: String): Expression = call match {
    case TimeFloorCall(_, "CEIL", _, _, _, Some(_), _) =>
      MicrosToTimestamp(Add(UnixMicros(floorOf(ts, timeZone)), Literal(1L)))
    case TimeFloorCall(_, _, _, Some(micros), _, _, Some(origin)) => TimeFloor.stepEnd(ts, micros, origin)
    case TimeFloorCall(_, "STEP", _, Some(micros), _, _, _) => TimeFloor.stepEnd(ts, micros)
    case TimeFloorCall(_, _, _, _, _, Some(unit), _) =>
      TimestampAdd(unit, Literal(1L), floorOf(ts, timeZone), Some(timeZone))
    case other => throw new IllegalStateException(s"no window end for $other")
  }

  /**
   * The `ROWTIME` of the group that holds `ts` (docs/semantics.md §11): its window's end, the
   * first instant after it; for `CEIL`, the call's value, the last instant of its window. A
   * stream emits the group when the watermark reaches it: every row of the window is then late.
   */
  def groupRowtime(ts: Expression, timeZone: String): Expression =
    if (call.isCeil) floorOf(ts, timeZone) else endOf(ts, timeZone)
}

object TimeFloor {
  /**
   * The start of `ts`'s step of `micros`: a whole number of steps since `origin` (microseconds
   * since 1970-01-01 00:00:00 UTC, the epoch by default).
   */
  def stepStart(ts: Expression, micros: Long, origin: Long = 0L): Expression = {
    val x = UnixMicros(ts)
    MicrosToTimestamp(Subtract(x, Pmod(Subtract(x, Literal(origin)), Literal(micros))))
  }

  /** The end (exclusive) of `ts`'s step of `micros`: its start plus one step. */
  def stepEnd(ts: Expression, micros: Long, origin: Long = 0L): Expression = {
    val x = UnixMicros(ts)
    MicrosToTimestamp(Add(Subtract(x, Pmod(Subtract(x, Literal(origin)), Literal(micros))), Literal(micros)))
  }

  /** The microseconds of a fixed unit. */
  def unitMicros(unit: String): Long = unit match {
    case "SECOND" => 1000000L
    case "MINUTE" => 60000000L
    case "HOUR" => 3600000000L
    case "DAY" => 86400000000L
    case other => throw new IllegalArgumentException(s"not a fixed unit: $other")
  }

  /** Spark's field of a day-time interval of `unit`. */
  def intervalField(unit: String): Byte = unit match {
    case "SECOND" => DayTimeIntervalType.SECOND
    case "MINUTE" => DayTimeIntervalType.MINUTE
    case "HOUR" => DayTimeIntervalType.HOUR
    case _ => DayTimeIntervalType.DAY
  }
}
