package io.overjoin.catalyst.expressions

import org.apache.spark.sql.catalyst.analysis.UnresolvedException
import org.apache.spark.sql.catalyst.expressions.{Add, Expression, Literal, MicrosToTimestamp, Pmod, Subtract, TimestampAdd, TruncTimestamp, UnaryExpression, Unevaluable, UnixMicros}
import org.apache.spark.sql.types.DataType

import io.overjoin.model.TimeFloorCall

/**
 * `STEP(ts BY ...)` or `FLOOR(ts TO unit)` of query block `block`, before analysis decides what it
 * is (docs/semantics.md §11). In the `GROUP BY` of an aggregation, over a rowtime of the block, it
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

  /** `ts` floored: to a multiple of the step since the epoch, or to the start of the unit in `timeZone`. */
  def floorOf(ts: Expression, timeZone: String): Expression = call match {
    case TimeFloorCall(_, "STEP", _, Some(micros), _, _) => TimeFloor.stepStart(ts, micros)
    case TimeFloorCall(_, "STEP", _, None, Some(number), _) =>
      val n = if (number.forall(_.isDigit)) Literal(number.toLong) else Literal(BigDecimal(number))
      Subtract(ts, Pmod(ts, n))
    case TimeFloorCall(_, _, _, _, _, Some(unit)) =>
      TruncTimestamp(Literal(unit), ts, Some(timeZone))
    case other => throw new IllegalStateException(s"not a time floor: $other")
  }

  /** Where the window of `ts` ends (exclusive): its floor plus one step or unit. */
  def endOf(ts: Expression, timeZone: String): Expression = call match {
    case TimeFloorCall(_, "STEP", _, Some(micros), _, _) => TimeFloor.stepEnd(ts, micros)
    case TimeFloorCall(_, _, _, _, _, Some(unit)) =>
      TimestampAdd(unit, Literal(1L), floorOf(ts, timeZone), Some(timeZone))
    case other => throw new IllegalStateException(s"no window end for $other")
  }
}

object TimeFloor {
  /** The start of `ts`'s step of `micros`: a whole number of steps since 1970-01-01 00:00:00 UTC. */
  def stepStart(ts: Expression, micros: Long): Expression = {
    val x = UnixMicros(ts)
    MicrosToTimestamp(Subtract(x, Pmod(x, Literal(micros))))
  }

  /** The end (exclusive) of `ts`'s step of `micros`: its start plus one step. */
  def stepEnd(ts: Expression, micros: Long): Expression = {
    val x = UnixMicros(ts)
    MicrosToTimestamp(Add(Subtract(x, Pmod(x, Literal(micros))), Literal(micros)))
  }
}
