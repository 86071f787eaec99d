package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

import org.apache.spark.sql.SparkSession

import io.overjoin.streams.{ErrorStream, ExternalStreams, SourceColumns, Streams}

/**
 * A source stream's implicit `ROWTIME` and `APPROXIMATE_ARRIVAL_TIME` (docs/semantics.md §10),
 * wherever the stream is read, in any statement: its relation gets the projection of
 * [[SourceColumns]] once Spark has resolved it.
 * {{{
 *   Relation src [ticker, price, ROWTIME]       Project [ticker, price, coalesce(ROWTIME, <arrival>) AS ROWTIME]
 *                                         ==>   +- Relation src [ticker, price, ROWTIME]
 * }}}
 * It runs first among overjoin's rules, so that a join input's rowtime is chosen from the
 * projected columns.
 */
object AddSourceStreamColumns extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!plan.exists(p => SourceColumns.tableOf(p).isDefined || ExternalStreams.tableOf(p).isDefined ||
        ExternalStreams.batchTableOf(p).isDefined || ErrorStream.tableOf(p).isDefined)) return plan
    lazy val namesArrival = plan.exists(_.expressions.exists(_.exists {
      case u: UnresolvedAttribute => u.nameParts.last.equalsIgnoreCase(Streams.ArrivalTime)
      case _ => false
    }))
    def wrap(p: LogicalPlan): LogicalPlan = p match {
      case done @ SourceColumns(_, _) => done
      // A stream over another Spark source (Kinesis, Kafka, ...): that source, decoded.
      case r if ExternalStreams.tableOf(r).isDefined =>
        ExternalStreams.read(SparkSession.active, ExternalStreams.tableOf(r).get, namesArrival)
      // KDA's error_stream: the error rows of the database's source streams.
      case r if ErrorStream.tableOf(r).isDefined => ErrorStream.read(SparkSession.active, ErrorStream.tableOf(r).get)
      // Files read with an input schema, as a table (replay): the same rows, decoded the same way.
      case r if ExternalStreams.batchTableOf(r).isDefined =>
        ExternalStreams.read(SparkSession.active, ExternalStreams.batchTableOf(r).get, namesArrival, batch = true)
      case r if SourceColumns.tableOf(r).isDefined => SourceColumns.project(r, SourceColumns.tableOf(r).get, namesArrival)
      case other => other.mapChildren(wrap)
    }
    wrap(plan)
  }
}
