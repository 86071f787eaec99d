package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.types.TimestampType

import io.overjoin.catalyst.expressions.RowtimeReference
import io.overjoin.catalyst.plans.logical.{OverjoinNode, StaggerAssign, StaggerInput, StreamJoinOutput}
import io.overjoin.errors.OverjoinErrors

/**
 * KDA's stagger windows (docs/semantics.md §13): the aggregation Spark made of `WINDOWED BY STAGGER
 * (PARTITION BY keys RANGE ...)` (read as `GROUP BY keys`) gets each row's window from a
 * [[StaggerAssign]] under it and groups by the window too; `ROWTIME` outside aggregate functions
 * is the window's end, inside them (`MAX(ROWTIME)`) the rows' own. `ROWTIME` in a key is the rows'.
 * {{{
 *   Aggregate [k], [rowtime_ref(ROWTIME) AS ROWTIME, k, count(1)]
 *   +- StaggerInput block=0 (k, 1m)
 *      +- StreamJoinOutput block=0 t#1
 * ==>
 *   Aggregate [k, __overjoin_stagger_end, __overjoin_stagger_start], [__overjoin_stagger_end AS ROWTIME, k, count(1)]
 *   +- StaggerAssign [k] t#1 size=60000000us -> __overjoin_stagger_start, __overjoin_stagger_end
 *      +- StreamJoinOutput block=0 t#1
 * }}}
 * It runs before [[BindRowtimeReferences]] (which leaves an aggregation over a [[StaggerInput]]
 * alone) once the block's FROM clause is resolved. Spark's aggregation does the rest: over tables
 * every window is a group; on a stream a window is emitted once the watermark passes its end.
 */
object RewriteStaggerWindows extends Rule[LogicalPlan] {

  val WindowStart = "__overjoin_stagger_start"
  val WindowEnd = "__overjoin_stagger_end"

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!OverjoinNode.mayExist) return plan
    if (!plan.exists(_.isInstanceOf[StaggerInput])) return plan
    plan.transformUp {
      case a @ Aggregate(_, _, s: StaggerInput, _) if s.child.resolved => rewrite(a, s)
    }
  }

  private def rewrite(a: Aggregate, s: StaggerInput): LogicalPlan = {
    val outputs = s.child.collect { case o: StreamJoinOutput => o }
    val below = s.child.output.map(x => x.exprId -> x).toMap
    val rt = BindRowtimeReferences.bindIn(RowtimeReference(s.block, None, "ROWTIME"), outputs) match {
      case attr: Attribute => below.getOrElse(attr.exprId, attr)
      case _ => throw OverjoinErrors.internal(s"no ROWTIME for the stagger window ${s.call.text}")
    }
    if (rt.dataType != TimestampType) {
      throw OverjoinErrors.rowtimeNotTimestamp(a.origin, rt.name, s.call.text, rt.dataType.sql)
    }
    val keys = a.groupingExpressions.map(BindRowtimeReferences.bindIn(_, outputs))
    val start = AttributeReference(WindowStart, TimestampType)()
    val end = AttributeReference(WindowEnd, TimestampType,
      metadata = RewriteTumblingAggregates.eventTimeMetadata(rt, s.child))()
    val assign = StaggerAssign(keys, rt, s.call.sizeMicros, start, end, -1, s.child)
    val aggregates = a.aggregateExpressions.map { e =>
      RewriteTumblingAggregates.outsideAggregates(e) {
        case r: RowtimeReference if r.block == s.block => end
      }.asInstanceOf[NamedExpression]
    }
    val rewritten = Aggregate(keys ++ Seq(end, start), aggregates, assign, a.hint)
    rewritten.copyTagsFrom(a)
    rewritten
  }
}
