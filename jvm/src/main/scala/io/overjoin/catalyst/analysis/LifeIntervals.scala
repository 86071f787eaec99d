package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.logical.{EventTimeWatermark, LogicalPlan, Project}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{CalendarIntervalType, MetadataBuilder}
import org.apache.spark.unsafe.types.CalendarInterval

import io.overjoin.catalyst.plans.logical.{JoinSide, RowtimeInput}
import io.overjoin.errors.OverjoinErrors
import io.overjoin.model.RangeFrame

/**
 * What the rewrite knows about a (partial) join row of stream inputs (docs/semantics.md §3-4).
 * `start`/`end` are its life interval: the intersection of its rows' intervals, or the non-null
 * side's for a null-padded row; Spark's `greatest`/`least` skip NULLs, which gives exactly that.
 * `present` is true when the row has any stream row. `leaves` are its inputs, each with whether it
 * can be NULL here (under the null-supplying side of an outer join). `eventTime` is the one column
 * Spark treats as its event time, for a row made by a join: its start.
 */
private[analysis] final case class Life(start: Expression, end: Expression, present: Expression,
    leaves: Seq[(RowtimeInput, Boolean)], eventTime: Option[Attribute], widthMicros: Long,
    side: Option[JoinSide] = None)

/** Life intervals as expressions, and the time conditions that make two of them meet. */
private[analysis] object LifeIntervals {

  def plus(t: Expression, micros: Long): Expression =
    if (micros == 0) t
    else TimestampAddInterval(t, Literal(new CalendarInterval(0, 0, micros), CalendarIntervalType),
      Some(SQLConf.get.sessionLocalTimeZone))

  /**
   * The RANGE frame a leaf's time conditions are written with. A TUMBLE/HOP row meets rows of the
   * same window, whose times are less than its size apart: that bound, implied by the user's
   * window condition, lets Spark evict state.
   */
  def frame(r: RowtimeInput): RangeFrame =
    r.input.tvf.map(t => RangeFrame(t.sizeMicros, 0)).getOrElse(r.input.window.frame.asInstanceOf[RangeFrame])

  def isRange(r: RowtimeInput): Boolean = r.rowsEnd.isEmpty && r.streamRows.isEmpty

  def leafStart(r: RowtimeInput): Expression =
    r.windowEnd.getOrElse(if (isRange(r)) plus(r.rowtime, frame(r).bMicros) else r.rowtime)

  /** The end of a leaf's life interval, and whether the end is included (RANGE) or not (ROWS). */
  def leafEnd(r: RowtimeInput): (Expression, Boolean) = r.windowEnd.map(e => (e: Expression, true))
    .getOrElse(if (isRange(r)) (plus(r.rowtime, frame(r).aMicros), true)
      else (r.rowsEnd.getOrElse(Literal(null, r.rowtime.dataType)), false))

  /** A stream's ROWS window has no bounded width: its end comes with later rows. */
  def widthOf(r: RowtimeInput): Long =
    if (isRange(r)) frame(r).aMicros - frame(r).bMicros else if (r.streamRows.isDefined) Long.MaxValue else 0L

  def leaf(r: RowtimeInput): Life = Life(leafStart(r), leafEnd(r)._1, IsNotNull(r.rowtime), Seq(r -> false), None, widthOf(r))

  /**
   * The rows of `a` and `b` share a point of their life intervals. On a line, intervals that
   * intersect pairwise share a point, so this is: every input of `a` intersects every input of
   * `b`, `x.t + c1 <= y.t AND y.t <= x.t + c2`, the shape Spark derives state eviction from. An
   * input that can be NULL here (null-padded) is left out of the test. A side made by a join also
   * bounds its event-time column, so Spark can evict that side's rows too.
   */
  def intersects(a: Life, b: Life): Expression = {
    val pairs = for ((x, xn) <- a.leaves; (y, yn) <- b.leaves) yield {
      val test = if (isRange(x) && isRange(y)) {
        val (fx, fy) = (frame(x), frame(y))
        And(
          LessThanOrEqual(plus(x.rowtime, fx.bMicros - fy.aMicros), y.rowtime),
          LessThanOrEqual(y.rowtime, plus(x.rowtime, fx.aMicros - fy.bMicros)))
      } else {
        // A ROWS interval is half-open and may be empty or never end (NULL end): exact, unshaped
        // conditions, which only replay needs.
        def startsBefore(s: Expression, end: (Expression, Boolean)): Expression = end match {
          case (e, true) => LessThanOrEqual(s, e)
          case (e, false) => Or(IsNull(e), LessThan(s, e))
        }
        val nonEmpty = Seq(x, y).filterNot(isRange).map(r => startsBefore(r.rowtime, leafEnd(r)))
        (Seq(startsBefore(leafStart(x), leafEnd(y)), startsBefore(leafStart(y), leafEnd(x))) ++ nonEmpty).reduce(And)
      }
      val skip = Seq(xn -> x.rowtime, yn -> y.rowtime).collect { case (true, t) => IsNull(t): Expression }
      if (skip.isEmpty) test else Or(skip.reduce(Or), test)
    }
    // start(a) <= end(b) and start(b) <= end(a), with end <= start + width, in event-time terms.
    def bounds(side: Life, other: Life): Seq[Expression] = side.eventTime.toSeq.flatMap { e =>
      other.leaves.collect { case (y, false) if isRange(y) =>
        val fy = frame(y)
        Seq(LessThanOrEqual(e, plus(y.rowtime, fy.aMicros)),
          LessThanOrEqual(plus(y.rowtime, fy.bMicros - side.widthMicros), e))
      }.flatten
    }
    (pairs ++ bounds(a, b) ++ bounds(b, a)).reduce(And)
  }

  /**
   * For a side made by a join of streams: strip the event-time mark from its inputs' rowtimes and
   * add one event-time column, the start of its rows' life interval. Every start is `t + b` with
   * `b >= 0`, so that column is never smaller than any input's rowtime: a bound Spark derives for
   * one input's rowtime is safe to apply to it.
   */
  def withEventTime(plan: LogicalPlan, life: Life): (LogicalPlan, Life) = {
    if (life.leaves.size < 2 || !plan.isStreaming) return (plan, life)
    if (life.leaves.exists(_._2)) {
      // A null-padded row leaves an outer join only once the watermark has passed the end of its
      // window, long after its life interval began: the next join has dropped the rows it should
      // meet, and Spark would count it late. Replay runs it; a stream must not silently differ.
      throw OverjoinErrors.paddedRowsJoinedAgain(life.leaves.collect { case (r, true) => r.input.name }.mkString(", "))
    }
    val delayKey = EventTimeWatermark.delayKey
    val leafIds = life.leaves.map(_._1.rowtime.exprId).toSet
    val stripped = plan.output.map { a =>
      if (leafIds.contains(a.exprId) && a.metadata.contains(delayKey)) {
        Alias(a, a.name)(exprId = a.exprId, qualifier = a.qualifier,
          explicitMetadata = Some(new MetadataBuilder().withMetadata(a.metadata).remove(delayKey).build()))
      } else a
    }
    val delayMs = life.leaves.map(_._1.rowtime.metadata).collectFirst {
      case m if m.contains(delayKey) => m.getLong(delayKey)
    }.getOrElse(0L)
    val eventTime = Alias(life.start, InternalColumns.EventTime)(
      explicitMetadata = Some(new MetadataBuilder().putLong(delayKey, delayMs).build()))
    val projected = Project(stripped :+ eventTime, plan)
    val current = AttributeMap(projected.output.map(a => a -> a))
    def rebind(e: Expression): Expression = e.transform { case a: Attribute if current.contains(a) => current(a) }
    val newLeaves = life.leaves.map { case (r, n) => r.copy(rowtime = rebind(r.rowtime).asInstanceOf[Attribute]) -> n }
    (projected, life.copy(start = rebind(life.start), end = rebind(life.end), present = rebind(life.present),
      leaves = newLeaves, eventTime = Some(projected.output.last)))
  }
}
