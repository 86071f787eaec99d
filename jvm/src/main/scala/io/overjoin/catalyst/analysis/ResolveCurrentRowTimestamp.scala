package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{Alias, Expression, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.overjoin.CurrentRowTimestamp

/**
 * Kinesis Data Analytics' `CURRENT_ROW_TIMESTAMP`, written as SQL writes `CURRENT_TIMESTAMP`:
 * without parentheses. Spark reads the bare word as a column; where no column of that name
 * exists, it is the function ([[CurrentRowTimestamp]]; a column of that name wins, as Spark's own
 * `current_date` does). As a whole select item it keeps the name `CURRENT_ROW_TIMESTAMP`.
 */
object ResolveCurrentRowTimestamp extends Rule[LogicalPlan] {
  private val Name = "CURRENT_ROW_TIMESTAMP"

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case q if q.childrenResolved && !q.resolved && q.expressions.exists(_.exists(isOurs(q, _))) =>
      def inner(e: Expression): Expression = e.transformDown { case a: UnresolvedAttribute if isOurs(q, a) => CurrentRowTimestamp() }
      def item(e: NamedExpression): NamedExpression = e match {
        case a: UnresolvedAttribute if isOurs(q, a) => Alias(CurrentRowTimestamp(), a.nameParts.head)()
        case other => inner(other).asInstanceOf[NamedExpression]
      }
      q match {
        case p: Project => p.copy(projectList = p.projectList.map(item))
        case a: Aggregate => a.copy(aggregateExpressions = a.aggregateExpressions.map(item))
        case other => other.transformExpressions { case e => inner(e) }
      }
  }

  private def isOurs(q: LogicalPlan, e: Expression): Boolean = e match {
    case a: UnresolvedAttribute =>
      a.nameParts.size == 1 && a.nameParts.head.equalsIgnoreCase(Name) &&
        q.resolveChildren(a.nameParts, conf.resolver).isEmpty
    case _ => false
  }
}
