package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.{FunctionRegistry, UnresolvedFunction, UnresolvedHaving}
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Expression, NamedExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, EventTimeWatermark, Filter, LogicalPlan, Project, Sort}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{Metadata, MetadataBuilder, TimestampType}

import io.overjoin.catalyst.expressions.{RowtimeReference, TimeFloor}
import io.overjoin.catalyst.plans.logical.{OverjoinNode, StaggerInput, StreamJoinOutput}
import io.overjoin.errors.OverjoinErrors

/**
 * Kinesis Data Analytics' and s-Server's tumbling windows (docs/semantics.md §11): an aggregation
 * grouped by `STEP(ROWTIME BY interval)` or `FLOOR(ROWTIME TO unit)` becomes Spark's streaming
 * aggregation, grouped by the window's end (which carries the watermark, so each group is emitted
 * once the watermark passes the end, in append mode) and start. `ROWTIME` in the select list is
 * the window's end; the `STEP`/`FLOOR` expression itself is its start.
 * {{{
 *   Aggregate [k, STEP(ROWTIME BY 1m)], [rowtime_ref(ROWTIME) AS ROWTIME, k, count(1)]
 *   +- StreamJoinOutput block=0 t#1
 * ==>
 *   Aggregate [k, __overjoin_window_end, __overjoin_window_start], [__overjoin_window_end AS ROWTIME, k, count(1)]
 *   +- Project [t#1, k, v, <floor of t#1> AS __overjoin_window_start, <floor + 1m> AS __overjoin_window_end]
 *      +- StreamJoinOutput block=0 t#1
 * }}}
 * Everywhere else `STEP` and `FLOOR ... TO` are scalar functions: replaced by Spark's expressions
 * once their argument is resolved. Over tables (replay) the same rewrite gives the same groups.
 */
object RewriteTumblingAggregates extends Rule[LogicalPlan] {

  val WindowStart = "__overjoin_window_start"
  val WindowEnd = "__overjoin_window_end"

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!OverjoinNode.mayExist) return plan
    // A resolved plan holds no STEP/FLOOR call of ours (they are never resolved); it may hold a
    // streaming block's ORDER BY over a stream, which a stream cannot run as Spark's sort.
    val sorts = plan.exists {
      case s: Sort => StreamOrderBy.decides(s) && (!s.resolved || s.child.isStreaming)
      case _ => false
    }
    if (!sorts && (plan.resolved || !plan.exists(_.expressions.exists(_.exists(_.isInstanceOf[TimeFloor]))))) return plan
    plan.transformUp {
      case a: Aggregate if waiting(a) && a.child.resolved => decide(a)
      case s: Sort if !waiting(s) && StreamOrderBy.applies(s) => StreamOrderBy.rewrite(s)
      case p if !waiting(p) && p.childrenResolved && p.expressions.exists(_.exists(isScalarReady)) =>
        p.transformExpressions(scalars)
    }
  }

  /**
   * An aggregation grouped by a `STEP`/`FLOOR` of time that may be a tumbling window, not decided
   * yet: its `ROWTIME`s wait for the decision ([[BindRowtimeReferences]] leaves them alone).
   */
  def waiting(p: LogicalPlan): Boolean = p match {
    // A stagger window's keys are plain values (docs/semantics.md §13), whatever they floor.
    case a: Aggregate if a.child.isInstanceOf[StaggerInput] => false
    case a: Aggregate => a.groupingExpressions.exists { case f: TimeFloor => f.call.stepNumber.isEmpty; case _ => false }
    // An ORDER BY over such an aggregation reads its window ([[StreamOrderBy]]).
    case s: Sort => aggregateBelow(s.child).exists(waiting)
    case _ => false
  }

  /** The aggregation a sort reads, through HAVING's filter and Spark's projections. */
  private def aggregateBelow(p: LogicalPlan): Option[Aggregate] = p match {
    case a: Aggregate => Some(a)
    case Project(_, child) => aggregateBelow(child)
    case Filter(_, child) => aggregateBelow(child)
    case h: UnresolvedHaving => aggregateBelow(h.child)
    case _ => None
  }

  private def isScalarReady(e: Expression): Boolean = e match {
    case f: TimeFloor => f.child.resolved
    case _ => false
  }

  private def scalars: PartialFunction[Expression, Expression] = {
    case f: TimeFloor if f.child.resolved => f.floorOf(f.child, SQLConf.get.sessionLocalTimeZone)
  }

  /**
   * A window is tumbling when its argument is a rowtime of the block: `ROWTIME`, `s.ROWTIME`, or
   * the column that is an input's rowtime (`STEP(s.ts BY ...)` where `ts` is `s`'s rowtime).
   * Otherwise the aggregation groups by the plain value.
   */
  private def decide(a: Aggregate): LogicalPlan = {
    val floors = a.groupingExpressions.collect { case f: TimeFloor if f.call.stepNumber.isEmpty => f }
    if (!floors.forall(f => f.child.resolved || f.child.isInstanceOf[RowtimeReference])) return a
    val outputs = a.child.collect { case o: StreamJoinOutput => o }
    def rowtimeOf(f: TimeFloor): Option[Attribute] = f.child match {
      case _: RowtimeReference => BindRowtimeReferences.bindIn(f.child, outputs) match {
        case attr: Attribute => Some(attr)
        case _ => None
      }
      case attr: Attribute if outputs.exists(o => (o.rowtime +: o.inputRowtimes.values.toSeq).exists(_.semanticEquals(attr))) =>
        Some(attr)
      case _ => None
    }
    val windows = floors.flatMap(f => rowtimeOf(f).map(rt => f -> canonical(rt, outputs)))
    if (windows.isEmpty) {
      // A plain time column: its STEP/FLOOR is a value to group by.
      a.transformExpressions { case ref: RowtimeReference => BindRowtimeReferences.bindIn(ref, outputs) }
        .transformExpressions(scalars)
    } else rewrite(a, windows, e => BindRowtimeReferences.bindIn(e, outputs) match {
      case attr: Attribute => canonical(attr, outputs)
      case other => other
    })
  }

  /**
   * The same rowtime under its two names: with one input, the block's `ROWTIME` is an alias of the
   * input's rowtime column (`GROUP BY STEP(s.ts ...)`, `SELECT STEP(ROWTIME ...)`).
   */
  private[analysis] def canonical(attr: Attribute, outputs: Seq[StreamJoinOutput]): Attribute =
    outputs.filter(_.rowtime.exprId == attr.exprId).flatMap { o =>
      o.child.collectFirst { case Project(list, _) => list }.toSeq.flatten.collectFirst {
        case al @ Alias(inner: Attribute, _) if al.exprId == attr.exprId &&
          o.inputRowtimes.values.exists(_.exprId == inner.exprId) => inner
      }
    }.headOption.getOrElse(attr)

  private def rewrite(a: Aggregate, windows: Seq[(TimeFloor, Attribute)], bind: Expression => Expression): LogicalPlan = {
    val (f, rt) = windows.head
    def same(g: TimeFloor): Boolean = windows.exists { case (w, r) => (w eq g) && w.sameWindow(f) && r.semanticEquals(rt) }
    windows.find { case (w, r) => !w.sameWindow(f) || !r.semanticEquals(rt) }.foreach { case (g, _) =>
      throw OverjoinErrors.twoTumblingWindows(f.call.text, g.call.text)
    }
    if (rt.dataType != TimestampType) {
      throw OverjoinErrors.rowtimeNotTimestamp(a.origin, rt.name, f.call.text, rt.dataType.sql)
    }
    val tz = SQLConf.get.sessionLocalTimeZone
    val start = Alias(f.startOf(rt, tz), WindowStart)()
    val end = Alias(f.endOf(rt, tz), WindowEnd)(explicitMetadata = Some(eventTimeMetadata(rt, a.child)))
    val project = Project(a.child.output :+ start :+ end, a.child)
    val (startAttr, endAttr) = (start.toAttribute, end.toAttribute)

    val groupings = a.groupingExpressions.filterNot {
      case g: TimeFloor => same(g)
      case _ => false
    } ++ Seq(endAttr, startAttr)
    val aggregates = a.aggregateExpressions.map { e =>
      outsideAggregates(e) {
        // The window's STEP/FLOOR in the select list is its start; KDA's FLOOR((ts - TIMESTAMP ...)
        // SECOND / n TO SECOND) is its number of steps since the origin, an interval.
        case g: TimeFloor if g.call.copy(start = 0, text = "") == f.call.copy(start = 0, text = "") &&
          bind(g.child).semanticEquals(rt) => if (g.call.origin.isDefined) g.floorOf(startAttr, tz) else startAttr
        case r: RowtimeReference if r.block == f.block => endAttr
      }.asInstanceOf[NamedExpression]
    }
    val rewritten = Aggregate(groupings, aggregates, project, a.hint)
    rewritten.copyTagsFrom(a)
    rewritten
  }

  /** `e` with `pf` applied, top-down, except inside aggregate functions (`MAX(ROWTIME)` is the input's). */
  private[analysis] def outsideAggregates(e: Expression)(pf: PartialFunction[Expression, Expression]): Expression = e match {
    case agg: AggregateExpression => agg
    case call: UnresolvedFunction if isAggregateCall(call) => call
    case x if pf.isDefinedAt(x) => pf(x)
    case x => x.withNewChildren(x.children.map(outsideAggregates(_)(pf)))
  }

  /**
   * An aggregate function not yet resolved (it waits for the `ROWTIME` in its argument): one with
   * DISTINCT, FILTER or WITHIN GROUP, or a built-in of Spark's aggregate group.
   */
  private def isAggregateCall(u: UnresolvedFunction): Boolean =
    u.isDistinct || u.filter.isDefined || u.orderingWithinGroup.nonEmpty || (u.nameParts.size == 1 &&
      FunctionRegistry.builtin.lookupFunction(FunctionIdentifier(u.nameParts.head.toLowerCase))
        .exists(_.getGroup == "agg_funcs"))

  /**
   * Spark finds a streaming aggregation's event time by the watermark delay in a grouping
   * column's metadata: the window end gets the rowtime's, or any watermarked column's (after a
   * join, the query's watermark is one for all its inputs).
   */
  private[analysis] def eventTimeMetadata(rt: Attribute, child: LogicalPlan): Metadata = {
    val key = EventTimeWatermark.delayKey
    if (rt.metadata.contains(key)) rt.metadata
    else child.output.find(_.metadata.contains(key)) match {
      case Some(w) => new MetadataBuilder().withMetadata(rt.metadata).putLong(key, w.metadata.getLong(key)).build()
      case None => rt.metadata
    }
  }
}
