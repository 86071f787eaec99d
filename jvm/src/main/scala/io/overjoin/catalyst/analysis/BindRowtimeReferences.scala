package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan, Sort}
import org.apache.spark.sql.catalyst.rules.Rule

import io.overjoin.catalyst.expressions.RowtimeReference
import io.overjoin.catalyst.plans.logical.{OverjoinNode, StaggerInput, StreamJoinOutput}

/**
 * `ROWTIME` in a streaming block's other clauses (select list, WHERE, GROUP BY, ...), once the
 * block's FROM clause has become a [[StreamJoinOutput]]: the unqualified one is the join's output
 * rowtime, `o.ROWTIME` input `o`'s own (docs/semantics.md §4).
 * {{{
 *   Project [rowtime_ref(ROWTIME) AS ROWTIME, o.id]          Project [ROWTIME#9 AS ROWTIME, o.id]
 *   +- StreamJoinOutput block=0 ROWTIME#9              ==>   +- StreamJoinOutput block=0 ROWTIME#9
 * }}}
 */
object BindRowtimeReferences extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!OverjoinNode.mayExist) return plan
    if (!plan.exists(_.isInstanceOf[StreamJoinOutput])) return plan
    plan.transformUp {
      case p if !p.isInstanceOf[StreamJoinOutput] && !RewriteTumblingAggregates.waiting(p) && !staggerWaiting(p) &&
        !sortOfStreamOrderBy(p) && !groupingUnresolved(p) &&
        p.expressions.exists(_.exists(_.isInstanceOf[RowtimeReference])) =>
        bind(p)
    }
  }

  /** An aggregation whose GROUP BY is not resolved yet: it may group by the rowtime column itself. */
  private def groupingUnresolved(p: LogicalPlan): Boolean = p match {
    case a: Aggregate => a.groupingExpressions.exists(g => !g.resolved && !g.exists(_.isInstanceOf[RowtimeReference]))
    case _ => false
  }

  /** A streaming block's ORDER BY: [[StreamOrderBy]] reads its `ROWTIME`s (a window's end after a tumbling window). */
  private def sortOfStreamOrderBy(p: LogicalPlan): Boolean = p match {
    case s: Sort => StreamOrderBy.decides(s)
    case _ => false
  }

  /** A stagger window's aggregation not rewritten yet: its `ROWTIME` is the window's end ([[RewriteStaggerWindows]]). */
  private def staggerWaiting(p: LogicalPlan): Boolean = p match {
    case Aggregate(_, _, _: StaggerInput, _) => true
    case _ => false
  }

  private def bind(p: LogicalPlan): LogicalPlan = {
    val outputs = p.children.flatMap(_.collect { case o: StreamJoinOutput => o })
    if (outputs.isEmpty) return p
    // The block's ROWTIME as its child outputs it, with the event-time metadata it carries there:
    // what reads it (a window function's node, an aggregation above) then keeps the watermark.
    // From the resolved children only: an unresolved column has no id yet.
    val below = p.children.filter(_.resolved).flatMap(_.output).map(a => a.exprId -> a).toMap
    // Grouped by the input's rowtime column itself (GROUP BY MONOTONIC(col), docs/semantics.md
    // §11), the block's ROWTIME is that column, by the name it is grouped by.
    def grouped(a: Attribute): Attribute = p match {
      case agg: Aggregate if !agg.groupingExpressions.exists(_.semanticEquals(a)) =>
        val c = RewriteTumblingAggregates.canonical(a, outputs)
        agg.groupingExpressions.collectFirst { case g: Attribute if g.semanticEquals(c) => g }.getOrElse(a)
      case _ => a
    }
    p.transformExpressions {
      case ref @ RowtimeReference(_, None, _) => bindIn(ref, outputs) match {
        case a: Attribute => grouped(below.getOrElse(a.exprId, a))
        case other => other
      }
      case ref: RowtimeReference => bindIn(ref, outputs)
    }
  }

  /** `e` with each `ROWTIME` of a block in `outputs` replaced by its attribute. */
  def bindIn(e: Expression, outputs: Seq[StreamJoinOutput]): Expression = e.transform {
    case ref @ RowtimeReference(b, q, _) =>
      outputs.find(_.block == b) match {
        case Some(o) => q match {
          case None => o.rowtime
          case Some(name) => o.inputRowtimes.getOrElse(name.toLowerCase, ref)
        }
        case None => ref
      }
  }
}
