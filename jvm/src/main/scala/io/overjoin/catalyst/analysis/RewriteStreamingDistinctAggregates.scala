package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.expressions.{And, Cast, CreateStruct, Expression, If, IsNotNull, Literal, Size}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, CollectSet, Count, Max, Min}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.types.LongType

import io.overjoin.catalyst.plans.logical.{OverjoinNode, StreamJoinOutput}

/**
 * `COUNT(DISTINCT x)` (and `MIN`/`MAX` of `DISTINCT x`) in a windowed aggregation of a
 * stream, which KDA applications write per tumbling window (docs/semantics.md §11) and Spark's
 * streaming aggregation refuses: the set of each group's distinct values is its state, and the
 * aggregate is computed from the set when the group is emitted.
 * {{{
 *   count(distinct x)      ==>  size(collect_set(x))                (NULL is no value)
 *   count(distinct x, y)   ==>  size(collect_set(if(x and y not null) struct(x, y)))
 *   min/max(distinct x)    ==>  min/max(x)
 * }}}
 * Over tables Spark's own distinct aggregation runs, with the same result.
 */
object RewriteStreamingDistinctAggregates extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!OverjoinNode.mayExist) return plan
    plan.transformUp {
      // A streaming block's aggregation only (plain Spark SQL keeps Spark's answer, an error).
      case a: Aggregate if a.resolved && a.child.isStreaming && a.aggregateExpressions.exists(_.exists(isDistinct)) &&
          a.child.exists(_.isInstanceOf[StreamJoinOutput]) =>
        a.copy(aggregateExpressions = a.aggregateExpressions.map(_.transformDown {
          case ae: AggregateExpression if isDistinct(ae) => rewrite(ae)
        }.asInstanceOf[org.apache.spark.sql.catalyst.expressions.NamedExpression]))
    }
  }

  private def isDistinct(e: Expression): Boolean = e match {
    case ae: AggregateExpression => ae.isDistinct && ae.filter.isEmpty
    case _ => false
  }

  private def set(values: Seq[Expression]): Expression = values match {
    case Seq(one) => CollectSet(one).toAggregateExpression()
    case many =>
      val present = many.map(v => IsNotNull(v): Expression).reduce(And(_, _))
      CollectSet(If(present, CreateStruct(many), Literal(null, CreateStruct(many).dataType))).toAggregateExpression()
  }

  private def rewrite(ae: AggregateExpression): Expression = ae.aggregateFunction match {
    case Count(children) => Cast(Size(set(children), legacySizeOfNull = false), LongType)
    case Min(child) => Min(child).toAggregateExpression()
    case Max(child) => Max(child).toAggregateExpression()
    case _ => ae // SUM/AVG(DISTINCT ...): Spark refuses it, naming distinct aggregations
  }
}
