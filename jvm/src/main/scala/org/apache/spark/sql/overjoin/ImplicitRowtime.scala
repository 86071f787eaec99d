package org.apache.spark.sql.overjoin

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, ExprId}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, CollectMetrics, EventTimeWatermark, Filter, LogicalPlan, Project, SubqueryAlias}
import org.apache.spark.sql.classic.{Dataset, SparkSession => ClassicSession}

import io.overjoin.catalyst.analysis.{RewriteStaggerWindows, RewriteTumblingAggregates}

/**
 * A pump's query that does not select `ROWTIME` still gives its rows one, as in Kinesis Data
 * Analytics (`INSERT INTO s SELECT STREAM k, COUNT(*) ... GROUP BY k, STEP(...)` fills `s.ROWTIME`
 * with each window's end): docs/semantics.md §10-11. This adds it as a last column named
 * `ROWTIME`, taken from the analyzed plan: a tumbling or stagger aggregation's window end, a
 * monotonic group's value, or the one
 * event-time column under the query's final projection (a join's or an input's rowtime).
 * Building a DataFrame from a plan is Spark-internal, hence this package.
 */
object ImplicitRowtime {

  def add(session: SparkSession, df: DataFrame): Option[DataFrame] = {
    val plan = df.queryExecution.analyzed
    // An operator that passes a column through may not copy its metadata (a window function's
    // node lists its child's columns anew): such a column is still the one that carried it below.
    val eventTimeIds = plan.collect { case n => n.output.filter(eventTime).map(_.exprId) }.flatten.toSet
    withRowtime(plan, eventTimeIds).map(p => Dataset.ofRows(session.asInstanceOf[ClassicSession], p))
  }

  private def eventTime(a: Attribute): Boolean = a.metadata.contains(EventTimeWatermark.delayKey)

  private def withRowtime(p: LogicalPlan, ids: Set[ExprId]): Option[LogicalPlan] = p match {
    case a: Aggregate =>
      val windowEnd = a.groupingExpressions.collectFirst {
        case end: Attribute if end.name == RewriteTumblingAggregates.WindowEnd || end.name == RewriteStaggerWindows.WindowEnd =>
          end
      }
      // Grouped by a column declared monotonic (GROUP BY MONOTONIC(col), or a subquery's MONOTONIC
      // item): the group's ROWTIME is its value, the one event-time key (docs/semantics.md §11).
      lazy val monotonicKey = a.groupingExpressions.collect { case g: Attribute if eventTime(g) => g } match {
        case Seq(one) => Some(one)
        case _ => None
      }
      windowEnd.orElse(monotonicKey).map(end => a.copy(aggregateExpressions = a.aggregateExpressions :+ Alias(end, "ROWTIME")()))
    case Project(list, child) =>
      val marked = child.output.filter(eventTime)
      val carried = if (marked.isEmpty) child.output.filter(a => ids.contains(a.exprId)) else marked
      carried match {
        case Seq(one) => Some(Project(list :+ Alias(one, "ROWTIME")(), child))
        case _ => withRowtime(child, ids).map(c => Project(list :+ c.output.last, c))
      }
    case f: Filter => withRowtime(f.child, ids).map(c => f.copy(child = c))
    // The count of a group's rows left out for dividing by zero, above an aggregation.
    case m: CollectMetrics => withRowtime(m.child, ids).map(c => m.copy(child = c))
    case s: SubqueryAlias => withRowtime(s.child, ids).map(c => s.copy(child = c))
    case _ => None
  }
}
