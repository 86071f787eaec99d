package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.expressions.{Alias, Ascending, Attribute, AttributeSet, Expression, Literal, MicrosToTimestamp, NamedExpression, SortOrder, Subtract, UnixMicros}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, EventTimeWatermark, Filter, LogicalPlan, Project, Sort, SubqueryAlias}
import org.apache.spark.sql.internal.SQLConf

import io.overjoin.catalyst.expressions.{RowtimeReference, TimeFloor}
import io.overjoin.catalyst.plans.logical.{OrderWithinBatch, StaggerInput, StreamJoinOutput}
import io.overjoin.errors.OverjoinErrors
import io.overjoin.execution.OrderedEmit

/**
 * `ORDER BY` in a streaming block (docs/semantics.md §11, "Sorting a stream"), KDA's streaming sort:
 * its first expression is the span of time to sort within, `ROWTIME` or a `STEP`/`FLOOR ... TO` of
 * it, ascending; the rest sorts each span's rows.
 *
 *  - After a tumbling window (`GROUP BY STEP(ROWTIME BY ...)`), `ROWTIME` is the window's end and
 *    the window's own `STEP`/`FLOOR` its start. A window's groups all go out in the micro-batch
 *    whose watermark passes its end, so on a stream the batch's rows are sorted
 *    ([[OrderWithinBatch]]), which sorts the whole stream.
 *  - Over rows that are not aggregated, a row waits until the watermark has closed its span: its
 *    `ROWTIME` (`ORDER BY ROWTIME, ...`), or the end of its `STEP`/`FLOOR` (every row of the span has
 *    arrived once the watermark reaches the span's last instant); each batch's released rows are
 *    then sorted ([[OrderedEmit]], as `spark.overjoin.emit = ordered` releases rows). Each row keeps
 *    its own `ROWTIME`.
 *
 * Over tables (replay) it is Spark's sort, with the same meaning of `ROWTIME` and `STEP`/`FLOOR`.
 * An `ORDER BY` over a stream that does not start so is refused (OJ123): it could never emit.
 */
object StreamOrderBy {

  /**
   * Whether `s` sorts a streaming block's rows, which this object decides (and whose `ROWTIME`s
   * [[BindRowtimeReferences]] leaves to it). After a stagger window `ROWTIME` is the window's end,
   * bound by [[RewriteStaggerWindows]]: such a sort is Spark's.
   */
  def decides(s: Sort): Boolean =
    s.child.exists(_.isInstanceOf[StreamJoinOutput]) && !s.child.exists(_.isInstanceOf[StaggerInput])

  /** Whether `s` is to be rewritten now: its input is resolved, and so is its order but for `ROWTIME`s and `STEP`s. */
  def applies(s: Sort): Boolean = decides(s) && s.child.resolved &&
    (s.child.isStreaming || s.order.exists(_.exists(isOurs))) && s.order.forall(o => settled(o.child))

  private def isOurs(e: Expression): Boolean = e.isInstanceOf[TimeFloor] || e.isInstanceOf[RowtimeReference]

  /** Resolved, or unresolved only for the `ROWTIME`s and `STEP`s inside it. */
  private def settled(e: Expression): Boolean =
    e.resolved || (e.children.nonEmpty && !e.childrenResolved && e.children.forall(settled)) ||
      (isOurs(e) && e.children.forall(settled))

  def rewrite(s: Sort): LogicalPlan = {
    val outputs = s.child.collect { case o: StreamJoinOutput => o }
    val tz = SQLConf.get.sessionLocalTimeZone
    val (plan, order, releaseAt) = tumblingAggregate(s.child) match {
      case Some(agg) => afterWindow(s, agg, outputs, tz)
      case None => overRows(s, outputs, tz)
    }
    val sorted = if (!plan.isStreaming) Sort(order, s.global, plan)
      else releaseAt match {
        case None => OrderWithinBatch(order, plan)
        case Some(at) => OrderedEmit.release(plan, at, order)
      }
    if (sorted.output.map(_.exprId) == s.output.map(_.exprId)) return sorted
    // The released rows are new attributes: each gets its column's metadata back, so that a
    // ROWTIME that was an event-time column stays one, the sort's own columns and the rowtime it
    // exposed alike. A block that reads this one (a sorted subquery or view) then takes its
    // watermark over instead of starting one of its own on ROWTIME (which the sort's rows, released
    // only as the query's watermark, the least of all, passes them, would never have moved), and a
    // pump finds its rows' ROWTIME (ImplicitRowtime).
    // A column is an event-time column where any node below marks it so (an operator that passes
    // it on may list it without the mark).
    lazy val marks = plan.collect { case n => n.output.filter(_.metadata.contains(EventTimeWatermark.delayKey)) }
      .flatten.map(a => a.exprId -> a.metadata).toMap
    val released = if (sorted.output.map(_.exprId) == plan.output.map(_.exprId)) sorted
      else Project(sorted.output.zip(plan.output).map { case (at, was) =>
        Alias(at, was.name)(explicitMetadata = Some(marks.getOrElse(was.exprId, was.metadata)))
      }, sorted)
    // The sort's columns, by position in `plan`, under the ids the plan above knows.
    Project(s.output.map { a =>
      val at = released.output(plan.output.indexWhere(_.exprId == a.exprId))
      if (at.exprId == a.exprId) at
      else Alias(at, a.name)(exprId = a.exprId, qualifier = a.qualifier, explicitMetadata = Some(a.metadata))
    }, released)
  }

  /** The sort of a tumbling window's groups: `ROWTIME` is the window's end, its `STEP`/`FLOOR` the start. */
  private def afterWindow(s: Sort, agg: Aggregate, outputs: Seq[StreamJoinOutput], tz: String)
      : (LogicalPlan, Seq[SortOrder], Option[Expression]) = {
    val start = agg.groupingExpressions.collectFirst { case a: Attribute if a.name == RewriteTumblingAggregates.WindowStart => a }.get
    val end = agg.groupingExpressions.collectFirst { case a: Attribute if a.name == RewriteTumblingAggregates.WindowEnd => a }.get
    val startDef = agg.child.collectFirst { case Project(list, _) => list }.toSeq.flatten
      .collectFirst { case al: Alias if al.exprId == start.exprId => al.child }
    def bound(e: Expression): Expression = BindRowtimeReferences.bindIn(e, outputs) match {
      case a: Attribute => RewriteTumblingAggregates.canonical(a, outputs)
      case other => other
    }
    val order = s.order.map(o => o.transformDown {
      case f: TimeFloor if startDef.exists(_.semanticEquals(f.startOf(bound(f.child), tz))) =>
        if (f.call.origin.isDefined) f.floorOf(start, tz) else start
      case f: TimeFloor => f.floorOf(end, tz)
      case _: RowtimeReference => end
    }.asInstanceOf[SortOrder])
    checkLeading(s, order, leadsWithTime = order.head.child match {
      case a: Attribute => a.exprId == start.exprId || a.exprId == end.exprId
      case other => s.order.head.child.isInstanceOf[TimeFloor] && other.references.subsetOf(AttributeSet(Seq(start, end)))
    })
    (expose(s.child, Seq(start, end)), order, None)
  }

  /** The sort of rows that are not aggregated: each waits for the watermark to close its span. */
  private def overRows(s: Sort, outputs: Seq[StreamJoinOutput], tz: String)
      : (LogicalPlan, Seq[SortOrder], Option[Expression]) = {
    // A block of one input: its rowtime column, by name (a t-sort's `ORDER BY ts WITHIN ...` makes
    // ts that rowtime), is the block's ROWTIME too.
    val rowtimes = outputs.map(_.rowtime) ++ outputs.filter(_.inputRowtimes.size == 1).flatMap(_.inputRowtimes.values)
    def isRowtime(e: Expression): Boolean = e match {
      case a: Attribute => rowtimes.exists(_.exprId == a.exprId)
      case _ => false
    }
    val bindRef: PartialFunction[Expression, Expression] = { case r: RowtimeReference => BindRowtimeReferences.bindIn(r, outputs) }
    val lead = s.order.head.child.transformUp(bindRef)
    val releaseAt: Option[Expression] = lead match {
      case f: TimeFloor if isRowtime(f.child) =>
        // The span's last instant: every row of the span has a ROWTIME at or before it.
        Some(MicrosToTimestamp(Subtract(UnixMicros(f.endOf(f.child, tz)), Literal(1L))))
      case a if isRowtime(a) => Some(a)
      case _ => None
    }
    val order = s.order.map(o => o.transformUp(bindRef).transformUp {
      case f: TimeFloor if f.child.resolved => f.floorOf(f.child, tz)
    }.asInstanceOf[SortOrder])
    checkLeading(s, order, leadsWithTime = releaseAt.isDefined)
    val needed = releaseAt.toSeq.flatMap(_.references) ++ order.flatMap(_.references)
    (expose(s.child, needed.filter(a => rowtimes.exists(_.exprId == a.exprId))), order, releaseAt)
  }

  /** OJ123 on a stream unless the sort starts with its span of time, ascending. */
  private def checkLeading(s: Sort, order: Seq[SortOrder], leadsWithTime: Boolean): Unit = {
    if (s.child.isStreaming && (!leadsWithTime || order.head.direction != Ascending)) {
      // Where the first sort key starts in the user's text (Spark's parser kept the key's place), and
      // the key as written: ours by their calls, others by the text less ASC/DESC and NULLS ...
      val o = s.order.head.origin
      val written = s.order.head.child match {
        case f: TimeFloor => f.call.text
        case r: RowtimeReference => r.spelling
        case other =>
          (for (text <- o.sqlText; from <- o.startIndex; to <- o.stopIndex if to < text.length)
            yield text.substring(from, to + 1).replaceAll("(?i)(\\s+(ASC|DESC))?(\\s+NULLS\\s+(FIRST|LAST))?\\s*$", ""))
            .getOrElse(other.sql)
      }
      throw OverjoinErrors.streamOrderBy(o, written)
    }
  }

  /** The tumbling aggregation whose groups `p` passes on (through HAVING's filter and projections). */
  private def tumblingAggregate(p: LogicalPlan): Option[Aggregate] = p match {
    case a: Aggregate if a.groupingExpressions.exists {
      case attr: Attribute => attr.name == RewriteTumblingAggregates.WindowEnd
      case _ => false
    } => Some(a)
    case Project(_, child) => tumblingAggregate(child)
    case Filter(_, child) => tumblingAggregate(child)
    case SubqueryAlias(_, child) => tumblingAggregate(child)
    case _ => None
  }

  /**
   * `p` with `attrs` in its output, added to each projection and aggregation on the way down to
   * where they are made (the sort reads them; the projection above the sort drops them again).
   */
  private def expose(p: LogicalPlan, attrs: Seq[Attribute]): LogicalPlan = {
    val missing = attrs.filterNot(a => p.outputSet.contains(a)).distinct
    if (missing.isEmpty) p else p match {
      case pr: Project => pr.copy(projectList = pr.projectList ++ missing, child = expose(pr.child, missing))
      case a: Aggregate => a.copy(aggregateExpressions = a.aggregateExpressions ++ missing.map(x => x: NamedExpression))
      case f: Filter => f.copy(child = expose(f.child, missing))
      case other => other
    }
  }
}
