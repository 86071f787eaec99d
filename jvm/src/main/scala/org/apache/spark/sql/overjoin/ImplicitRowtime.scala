package org.apache.spark.sql.overjoin

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, EventTimeWatermark, Filter, LogicalPlan, Project, SubqueryAlias}
import org.apache.spark.sql.classic.{Dataset, SparkSession => ClassicSession}

import io.overjoin.catalyst.analysis.RewriteTumblingAggregates

/**
 * A pump's query that does not select `ROWTIME` still gives its rows one, as in Kinesis Data
 * Analytics (`INSERT INTO s SELECT STREAM k, COUNT(*) ... GROUP BY k, STEP(...)` fills `s.ROWTIME`
 * with each window's end): docs/semantics.md §10-11. This adds it as a last column named
 * `ROWTIME`, taken from the analyzed plan: a tumbling aggregation's window end, or the one
 * event-time column under the query's final projection (a join's or an input's rowtime).
 * Building a DataFrame from a plan is Spark-internal, hence this package.
 */
object ImplicitRowtime {

  def add(session: SparkSession, df: DataFrame): Option[DataFrame] = {
    val plan = df.queryExecution.analyzed
    withRowtime(plan).map(p => Dataset.ofRows(session.asInstanceOf[ClassicSession], p))
  }

  private def eventTime(a: Attribute): Boolean = a.metadata.contains(EventTimeWatermark.delayKey)

  private def withRowtime(p: LogicalPlan): Option[LogicalPlan] = p match {
    case a: Aggregate =>
      a.groupingExpressions.collectFirst {
        case end: Attribute if end.name == RewriteTumblingAggregates.WindowEnd => end
      }.map(end => a.copy(aggregateExpressions = a.aggregateExpressions :+ Alias(end, "ROWTIME")()))
    case Project(list, child) =>
      child.output.filter(eventTime) match {
        case Seq(one) => Some(Project(list :+ Alias(one, "ROWTIME")(), child))
        case _ => withRowtime(child).map(c => Project(list :+ c.output.last, c))
      }
    case f: Filter => withRowtime(f.child).map(c => f.copy(child = c))
    case s: SubqueryAlias => withRowtime(s.child).map(c => s.copy(child = c))
    case _ => None
  }
}
