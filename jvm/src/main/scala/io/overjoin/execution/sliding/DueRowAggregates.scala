package io.overjoin.execution.sliding

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Ascending, Attribute, BoundReference, CurrentRow, Expression, JoinedRow, MutableProjection, RangeFrame, RowFrame, SpecificInternalRow, SpecifiedWindowFrame, UnsafeProjection, UnsafeRow, WindowExpression, WindowSpecDefinition}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, Complete, DeclarativeAggregate, NoOp}
import org.apache.spark.sql.types.{DayTimeIntervalType, IntegerType}

/**
 * The values of the due rows of a key, and of those only, when every window expression of a sliding
 * window is an aggregate (`COUNT`, `SUM`, `MIN`, `MAX`, `AVG`, `STDDEV`, `FIRST_VALUE`, ..., any
 * `DeclarativeAggregate` without `DISTINCT` or `FILTER`) over a frame with constant bounds.
 *
 * Spark's `WindowEvaluatorFactory` computes a value for every row it is given, and a key's rows
 * are all its held rows: most were emitted already, or are not due yet, and a sliding frame
 * aggregates its whole frame again for each row. Here each due row's frame is found in the key's
 * rows (in (rowtime, arrival) order) and aggregated as Spark's sliding frame does it
 * (`SlidingWindowFunctionFrame` with an `AggregateProcessor`): the frame's rows in order into a
 * fresh buffer by the function's own initial, update and evaluate expressions. So the values are
 * Spark's, and the cost is the due rows' frames rather than every held row's.
 *
 * Frames: `RANGE` holds the rows whose rowtime is in [rowtime + lower, rowtime + upper] (peers
 * included; bounds in microseconds, a day-time interval added as Spark adds it), `ROWS` the rows
 * at positions [i + lower, i + upper] of the key's rows. Other window expressions (`LAG`, whose
 * KDA meaning is built from several window functions; imperative aggregates) keep Spark's
 * evaluator ([[DueRowAggregates.of]] is None).
 */
final class DueRowAggregates private (groups: Array[DueRowAggregates.FrameGroup], slots: Array[Int],
    exprs: Seq[Expression], childOutput: Seq[Attribute]) {

  private val values = new SpecificInternalRow(slots.indices.map(i => exprs(slots.indexOf(i)).dataType))
  private val joined = new JoinedRow
  private val project = UnsafeProjection.create(
    childOutput.zipWithIndex.map { case (a, j) => BoundReference(j, a.dataType, a.nullable) } ++
      exprs.indices.map(i => BoundReference(childOutput.size + slots(i), exprs(i).dataType, nullable = true)))

  /** The output row (input columns, then the window values) of `rows(i)`, copied. */
  def eval(rows: scala.collection.IndexedSeq[HeldRow], i: Int): UnsafeRow = {
    var g = 0
    while (g < groups.length) { groups(g).evaluate(rows, i, values); g += 1 }
    project(joined(rows(i).row, values)).copy()
  }
}

object DueRowAggregates {

  /** The aggregates over one frame: their buffer and Spark's projections of them. */
  private final class FrameGroup(range: Boolean, lower: Long, upper: Long, functions: Seq[DeclarativeAggregate],
      ordinal: Int, childOutput: Seq[Attribute]) {
    private val bufferAttrs = functions.flatMap(_.aggBufferAttributes)
    private val buffer = new SpecificInternalRow(bufferAttrs.map(_.dataType))
    private val init: MutableProjection = MutableProjection.create(functions.flatMap(_.initialValues), Nil)
    private val update: MutableProjection =
      MutableProjection.create(functions.flatMap(_.updateExpressions), bufferAttrs ++ childOutput)
    private val result: MutableProjection =
      MutableProjection.create(Seq.fill(ordinal)(NoOp) ++ functions.map(_.evaluateExpression), bufferAttrs)
    private val joined = new JoinedRow
    init.target(buffer)
    update.target(buffer)

    def evaluate(rows: scala.collection.IndexedSeq[HeldRow], i: Int, target: InternalRow): Unit = {
      val n = rows.size
      var from = 0
      var to = -1
      if (range) {
        val t = rows(i).rowtime
        val lo = t + lower
        val hi = t + upper
        from = i
        while (from > 0 && rows(from - 1).rowtime >= lo) from -= 1
        while (from < n && rows(from).rowtime < lo) from += 1
        to = i
        while (to + 1 < n && rows(to + 1).rowtime <= hi) to += 1
        while (to >= 0 && rows(to).rowtime > hi) to -= 1
      } else {
        from = math.max(0, i + lower.toInt)
        to = math.min(n - 1, i + upper.toInt)
      }
      init(InternalRow.empty)
      var j = from
      while (j <= to) { update(joined(buffer, rows(j).row)); j += 1 }
      result.target(target)
      result(buffer)
    }
  }

  private def bound(range: Boolean, e: Expression): Option[Long] = e match {
    case CurrentRow => Some(0L)
    case b if b.foldable && range && b.dataType.isInstanceOf[DayTimeIntervalType] =>
      Option(b.eval()).map(_.asInstanceOf[Long])
    case b if b.foldable && !range && b.dataType == IntegerType => Option(b.eval()).map(_.asInstanceOf[Int].toLong)
    case _ => None
  }

  private final case class Frame(range: Boolean, lower: Long, upper: Long)

  private def frameOf(e: Expression): Option[(Frame, DeclarativeAggregate)] = e match {
    case Alias(WindowExpression(ae: AggregateExpression, WindowSpecDefinition(_, _, f: SpecifiedWindowFrame)), _)
        if ae.mode == Complete && !ae.isDistinct && ae.filter.isEmpty =>
      val range = f.frameType match {
        case RangeFrame => Some(true)
        case RowFrame => Some(false)
        case _ => None
      }
      (ae.aggregateFunction, range) match {
        case (d: DeclarativeAggregate, Some(r)) if !d.isInstanceOf[org.apache.spark.sql.catalyst.expressions.SizeBasedWindowFunction] =>
          for (lo <- bound(r, f.lower); hi <- bound(r, f.upper)) yield (Frame(r, lo, hi), d)
        case _ => None
      }
    case _ => None
  }

  /** The evaluation of the due rows alone, when every window expression allows it (see the class). */
  def of(spec: SlidingTaskSpec): Option[DueRowAggregates] = {
    if (spec.orderSpec.size != 1 || spec.orderSpec.head.direction != Ascending) return None
    val found = spec.windowExpressions.map(frameOf)
    if (found.exists(_.isEmpty)) return None
    val byFrame = found.flatten.zipWithIndex.groupBy(_._1._1).toSeq.sortBy(_._2.head._2)
    val slots = new Array[Int](found.size)
    var ordinal = 0
    val groups = byFrame.map { case (frame, members) =>
      val group = new FrameGroup(frame.range, frame.lower, frame.upper, members.map(_._1._2), ordinal, spec.childOutput)
      members.foreach { case (_, i) => slots(i) = ordinal; ordinal += 1 }
      group
    }
    Some(new DueRowAggregates(groups.toArray, slots, spec.windowExpressions, spec.childOutput))
  }
}
