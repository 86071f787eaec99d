package io.overjoin.catalyst.plans.logical

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression}
import org.apache.spark.sql.catalyst.plans.{FullOuter, JoinType, LeftOuter, RightOuter}
import org.apache.spark.sql.catalyst.plans.logical.{BinaryNode, EventTimeWatermark, LogicalPlan}
import org.apache.spark.sql.types.{Metadata, MetadataBuilder}

/**
 * What a [[WindowedJoin]] knows, besides the expressions, about the rows of one side: bounds in
 * microseconds over every row the side can deliver (`Long.MaxValue`: no bound).
 *
 *  - `lag`: `eventTime - start`. A row arriving after the watermark `W` has `eventTime > W`, so
 *    its life interval starts after `W - lag`: what lets the other side evict.
 *  - `width`: `end - start`, the length of a life interval.
 *  - `rowtimeLag`: `ROWTIME - start`; 0 for an input row (its ROWTIME is its start), more for a
 *    row null-padded by a join below (its ROWTIME is the end of its life).
 */
final case class SideBounds(lag: Long, width: Long, rowtimeLag: Long) {
  override def toString: String = {
    def us(v: Long) = if (v == Long.MaxValue) "unbounded" else s"${v}us"
    s"lag=${us(lag)} width=${us(width)}"
  }
}

/**
 * The `ROWS n` window of a stream input (docs/semantics.md §3): a row's life ends at the rowtime of
 * the `(n+1)`-th later row of its partition (`partition`: columns of the input; empty: the whole
 * input), in (rowtime, arrival) order. The join's operator computes it as rows arrive.
 */
final case class RowsWindow(n: Long, partition: Seq[Expression]) {
  override def toString: String =
    (if (partition.isEmpty) "" else partition.map(_.sql).mkString("PARTITION BY ", ", ", " ")) + s"ROWS $n PRECEDING"
}

/**
 * One side of a [[WindowedJoin]]: how each of its rows gives its life interval (docs/semantics.md
 * §3) and its ROWTIME (§4), as expressions over the side's output. `times` holds, in order:
 *
 *  0. `eventTime`: the column late rows are judged by (§8): an input's rowtime, or the ROWTIME of
 *     the join below;
 *  1. `start`, 2. `end` (NULL: not closed yet), 3. `endInclusive` (RANGE windows include their
 *     end, ROWS windows do not);
 *  4. `rowtime`: the row's ROWTIME.
 *
 * `rows`: for an input with a `ROWS` window, the window; the operator computes each row's end.
 */
final case class JoinSide(times: Seq[Expression], bounds: SideBounds, rows: Option[RowsWindow] = None) {
  require(times.size == 5, s"a join side has 5 time expressions, got ${times.size}")
  def eventTime: Expression = times(0)
  def start: Expression = times(1)
  def end: Expression = times(2)
  def endInclusive: Expression = times(3)
  def rowtime: Expression = times(4)
}

/**
 * A stream-stream join run by overjoin's own stateful operator
 * ([[org.apache.spark.sql.overjoin.WindowedJoinExec]]) instead of Spark's symmetric hash join:
 * rows with equal keys meet when their life intervals share a point and `condition` holds
 * (docs/semantics.md §4); outer joins pad a row once its last possible match is gone (§8).
 *
 * {{{
 *   WindowedJoin LeftOuter keys=[o.orderId = s.orderId] opIndex=0
 *     left  s: start=s.t end=s.t + 1h (inclusive)
 *     right o: start=o.t end=o.t (inclusive)
 *   :- EventTimeWatermark s.t, 1 ms ...
 *   +- EventTimeWatermark o.t, 1 ms ...
 * }}}
 *
 * Output: `produced` (the ROWTIME of each output row, and its life interval `start`, `end`,
 * `endInclusive`, which a join above reads), then both sides' columns (nullable on a padded side).
 * ROWTIME is the one event-time column of the output: the inputs' rowtimes lose that mark (Spark
 * allows one per stream).
 *
 * `holdUntilFinal` (a join with a `ROWS` window whose result another stream join reads): a matched
 * row leaves only once its life interval is final, i.e. once the watermark has reached its end, since
 * the join above matches on that interval; the watermark this join passes up is held back below
 * the ROWTIME of every row it still holds (docs/operator.md, "ROWS windows joined again"). `opIndex` numbers the overjoin operators of one query
 * ([[io.overjoin.catalyst.optimizer.NumberWindowedJoins]]); it names the operator's state.
 */
case class WindowedJoin(
    left: LogicalPlan,
    right: LogicalPlan,
    joinType: JoinType,
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    nullSafe: Seq[Boolean],
    condition: Option[Expression],
    leftTimes: Seq[Expression],
    rightTimes: Seq[Expression],
    leftBounds: SideBounds,
    rightBounds: SideBounds,
    produced: Seq[Attribute],
    leftRowsN: Option[Long] = None,
    leftPartition: Seq[Expression] = Nil,
    rightRowsN: Option[Long] = None,
    rightPartition: Seq[Expression] = Nil,
    holdUntilFinal: Boolean = false,
    opIndex: Int = -1) extends BinaryNode {

  def leftRows: Option[RowsWindow] = leftRowsN.map(RowsWindow(_, leftPartition))
  def rightRows: Option[RowsWindow] = rightRowsN.map(RowsWindow(_, rightPartition))
  def leftSide: JoinSide = JoinSide(leftTimes, leftBounds, leftRows)
  def rightSide: JoinSide = JoinSide(rightTimes, rightBounds, rightRows)

  override def output: Seq[Attribute] = WindowedJoin.outputOf(produced, left.output, right.output, joinType)

  override def producedAttributes: AttributeSet = AttributeSet(produced)

  override lazy val resolved: Boolean =
    childrenResolved && expressions.forall(_.resolved) && produced.forall(_.resolved)

  /** The bounds of this join's output rows, for a join above (see [[SideBounds]]). */
  def outputBounds: SideBounds = WindowedJoin.outputBounds(leftBounds, rightBounds, joinType)

  override def simpleString(maxFields: Int): String = {
    val keys = leftKeys.zip(rightKeys).zip(nullSafe).map { case ((l, r), ns) =>
      s"${l.sql} ${if (ns) "<=>" else "="} ${r.sql}" }.mkString(", ")
    val cond = condition.map(c => s" condition=${c.sql}").getOrElse("")
    def side(name: String, s: JoinSide) = s.rows match {
      case Some(w) => s"$name: start=${s.start.sql} end=<$w> rowtime=${s.rowtime.sql}"
      case None => s"$name: start=${s.start.sql} end=${s.end.sql} rowtime=${s.rowtime.sql} ${s.bounds}"
    }
    val hold = if (holdUntilFinal) " holdUntilFinal" else ""
    s"WindowedJoin ${joinType.sql} keys=[$keys]$cond$hold opIndex=$opIndex ${side("left", leftSide)}; ${side("right", rightSide)}"
  }

  override protected def withNewChildrenInternal(newLeft: LogicalPlan, newRight: LogicalPlan): WindowedJoin =
    copy(left = newLeft, right = newRight)
}

object WindowedJoin {

  /** `a` without the event-time mark: only the join's ROWTIME keeps one. */
  def withoutEventTime(a: Attribute): Attribute =
    if (!a.metadata.contains(EventTimeWatermark.delayKey)) a else a.withMetadata(withoutEventTime(a.metadata))

  /**
   * `m` without the event-time mark: for the columns beside the one event-time column that Spark
   * allows a stateful operator's input (MULTIPLE_EVENT_TIME_COLUMNS otherwise).
   */
  def withoutEventTime(m: Metadata): Metadata =
    new MetadataBuilder().withMetadata(m).remove(EventTimeWatermark.delayKey).build()

  def outputOf(produced: Seq[Attribute], left: Seq[Attribute], right: Seq[Attribute], joinType: JoinType): Seq[Attribute] = {
    val (leftNullable, rightNullable) = nullableSides(joinType)
    produced ++ left.map(a => withoutEventTime(if (leftNullable) a.withNullability(true) else a)) ++
      right.map(a => withoutEventTime(if (rightNullable) a.withNullability(true) else a))
  }

  /** Which sides a padded row leaves NULL: (left, right). */
  def nullableSides(joinType: JoinType): (Boolean, Boolean) = joinType match {
    case LeftOuter => (false, true)
    case RightOuter => (true, false)
    case FullOuter => (true, true)
    case _ => (false, false)
  }

  /** Which sides keep their unmatched rows: (left, right). */
  def preservedSides(joinType: JoinType): (Boolean, Boolean) = {
    val (ln, rn) = nullableSides(joinType)
    (rn, ln)
  }

  /**
   * docs/semantics.md §4: a matched row's life is the intersection (no longer than either side's)
   * and its ROWTIME the larger of the two ROWTIMEs; a padded row keeps its side's life and gets
   * ROWTIME `max(ROWTIME, end)`, at most `width` after its start.
   */
  def outputBounds(l: SideBounds, r: SideBounds, joinType: JoinType): SideBounds = {
    val (lp, rp) = preservedSides(joinType)
    val matchedWidth = math.min(l.width, r.width)
    val width = Seq(Some(matchedWidth), if (lp) Some(l.width) else None, if (rp) Some(r.width) else None).flatten.max
    val rowtimeLag = Seq(Some(l.rowtimeLag), Some(r.rowtimeLag), if (lp) Some(l.width) else None,
      if (rp) Some(r.width) else None).flatten.max
    // The output's event time is its ROWTIME: lag = rowtimeLag.
    SideBounds(rowtimeLag, width, rowtimeLag)
  }

  /** Metadata of the output ROWTIME: an event-time column with no delay of its own. */
  val RowtimeMetadata: Metadata = new MetadataBuilder().putLong(EventTimeWatermark.delayKey, 0L).build()
}
