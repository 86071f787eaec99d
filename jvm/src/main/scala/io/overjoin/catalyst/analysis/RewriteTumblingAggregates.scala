package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.{FunctionRegistry, UnresolvedFunction}
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, EventTimeWatermark, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{Metadata, MetadataBuilder, TimestampType}

import io.overjoin.catalyst.expressions.{RowtimeReference, TimeFloor}
import io.overjoin.catalyst.plans.logical.StreamJoinOutput
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
    if (!plan.exists(_.expressions.exists(_.exists(_.isInstanceOf[TimeFloor])))) return plan
    plan.transformUp {
      case a: Aggregate if waiting(a) =>
        val outputs = a.child.collect { case o: StreamJoinOutput => o }
        if (a.child.resolved && outputs.nonEmpty) rewrite(a, outputs) else a
      case p if p.childrenResolved && p.expressions.exists(_.exists(isScalarReady)) =>
        val tz = SQLConf.get.sessionLocalTimeZone
        p.transformExpressions { case f: TimeFloor if f.child.resolved => f.floorOf(f.child, tz) }
    }
  }

  /** An aggregation grouped by a tumbling window that is not rewritten yet: its `ROWTIME`s wait for it. */
  def waiting(p: LogicalPlan): Boolean = p match {
    case a: Aggregate => a.groupingExpressions.exists { case f: TimeFloor => f.overRowtime; case _ => false }
    case _ => false
  }

  private def isScalarReady(e: Expression): Boolean = e match {
    case f: TimeFloor => f.child.resolved
    case _ => false
  }

  private def rewrite(a: Aggregate, outputs: Seq[StreamJoinOutput]): LogicalPlan = {
    val windows = a.groupingExpressions.collect { case f: TimeFloor if f.overRowtime => f }
    val f = windows.head
    windows.find(g => !g.sameWindow(f)).foreach { g =>
      throw OverjoinErrors.twoTumblingWindows(f.call.text, g.call.text)
    }
    val rt = BindRowtimeReferences.bindIn(f.child, outputs) match {
      case attr: Attribute => attr
      case _ => return a // an input name the block does not have: left for the check that says so
    }
    if (rt.dataType != TimestampType) {
      throw OverjoinErrors.rowtimeNotTimestamp(a.origin, rt.name, f.call.text, rt.dataType.sql)
    }
    val tz = SQLConf.get.sessionLocalTimeZone
    val start = Alias(f.floorOf(rt, tz), WindowStart)()
    val end = Alias(f.endOf(rt, tz), WindowEnd)(explicitMetadata = Some(eventTimeMetadata(rt, a.child)))
    val project = Project(a.child.output :+ start :+ end, a.child)
    val (startAttr, endAttr) = (start.toAttribute, end.toAttribute)

    val groupings = a.groupingExpressions.filterNot {
      case g: TimeFloor => g.overRowtime && g.sameWindow(f)
      case _ => false
    } ++ Seq(endAttr, startAttr)
    val aggregates = a.aggregateExpressions.map { e =>
      outsideAggregates(e) {
        case g: TimeFloor if g.overRowtime && g.sameWindow(f) => startAttr
        case r: RowtimeReference if r.block == f.block => endAttr
      }.asInstanceOf[org.apache.spark.sql.catalyst.expressions.NamedExpression]
    }
    val rewritten = Aggregate(groupings, aggregates, project, a.hint)
    rewritten.copyTagsFrom(a)
    rewritten
  }

  /** `e` with `pf` applied, top-down, except inside aggregate functions (`MAX(ROWTIME)` is the input's). */
  private def outsideAggregates(e: Expression)(pf: PartialFunction[Expression, Expression]): Expression = e match {
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
  private def eventTimeMetadata(rt: Attribute, child: LogicalPlan): Metadata = {
    val key = EventTimeWatermark.delayKey
    if (rt.metadata.contains(key)) rt.metadata
    else child.output.find(_.metadata.contains(key)) match {
      case Some(w) => new MetadataBuilder().withMetadata(rt.metadata).putLong(key, w.metadata.getLong(key)).build()
      case None => rt.metadata
    }
  }
}
