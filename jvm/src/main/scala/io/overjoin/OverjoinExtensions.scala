package io.overjoin

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.classic.{SparkSession => ClassicSession}
import org.apache.spark.sql.overjoin.WindowedJoinStrategy

import io.overjoin.catalyst.analysis.{AddSourceStreamColumns, ApplyOrderedEmit, BindRowtimeReferences, RemoveStreamJoinMarkers, ResolveCurrentRowTimestamp, ResolveImplicitRowtime, ResolveStreamJoinInputs, RewriteCursorFunctions, RewriteSlidingWindows, RewriteStaggerWindows, RewriteStreamDistinct, RewriteStreamingDistinctAggregates, RewriteTumblingAggregates, RewriteWindowedJoins}
import io.overjoin.catalyst.optimizer.NumberWindowedJoins
import io.overjoin.catalyst.parser.OverjoinSqlParser
import io.overjoin.config.OverjoinConf
import io.overjoin.streaming.LateRows

/**
 * overjoin's entry point, named in `spark.sql.extensions`:
 * {{{
 *   spark.sql.extensions=io.overjoin.OverjoinExtensions
 * }}}
 */
class OverjoinExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    // Settings: registered with Spark so that SET checks them and SET -v lists them.
    OverjoinConf.register()

    // Kinesis Data Analytics' and s-Server's functions Spark lacks (TSDIFF, CHAR_TO_TIMESTAMP, ...),
    // under names no Spark function has.
    org.apache.spark.sql.overjoin.KdaFunctions.registrations.foreach(extensions.injectFunction)

    // Parser: wraps whatever parser comes before us, so Delta/Iceberg syntax keeps working.
    extensions.injectParser { (_, delegate) => new OverjoinSqlParser(delegate) }

    // Resolution, in Spark's own resolution batch because each step needs Spark's resolution in
    // between: inputs resolved -> rowtimes and watermarks chosen (and NATURAL/USING settled before
    // Spark resolves them) -> join conditions resolved -> time conditions and ROWTIME -> tumbling
    // windows -> ROWTIME references bound -> ordered emission once the whole query is resolved.
    // A source stream's implicit ROWTIME and APPROXIMATE_ARRIVAL_TIME, in every statement that reads
    // it, and before a join input's rowtime is chosen from its columns.
    extensions.injectResolutionRule { _ => AddSourceStreamColumns }
    // KDA's CURRENT_ROW_TIMESTAMP without parentheses, where no column has that name.
    extensions.injectResolutionRule { _ => ResolveCurrentRowTimestamp }
    // UNIX_TIMESTAMP(ts), TO_TIMESTAMP(n) and `/` of a streaming block: KDA's (milliseconds, and
    // integer division), decided once their arguments' types are known.
    extensions.injectResolutionRule { _ => org.apache.spark.sql.overjoin.ResolveKdaCalls }
    // RANDOM_CUT_FOREST and TOP_K_ITEMS_TUMBLING, once their cursor's query is resolved: inputs of
    // the block that reads them.
    extensions.injectResolutionRule { _ => RewriteCursorFunctions }
    extensions.injectResolutionRule { _ => ResolveImplicitRowtime }
    extensions.injectResolutionRule { _ => ResolveStreamJoinInputs }
    extensions.injectResolutionRule { _ => RewriteWindowedJoins }
    // Tumbling windows (GROUP BY STEP/FLOOR of ROWTIME) before ROWTIME is bound: in their select
    // list ROWTIME is the window's end, not the rows' rowtime.
    extensions.injectResolutionRule { _ => RewriteTumblingAggregates }
    // Stagger windows (docs/semantics.md §13) before ROWTIME is bound too (in their select list it
    // is the window's end), once the block's FROM clause is resolved.
    extensions.injectResolutionRule { _ => RewriteStaggerWindows }
    extensions.injectResolutionRule { _ => BindRowtimeReferences }
    // SELECT STREAM DISTINCT (docs/semantics.md §15), once its select list is resolved.
    extensions.injectResolutionRule { _ => RewriteStreamDistinct }
    // COUNT(DISTINCT x) per window of a stream: the window's set of values (docs/semantics.md §11).
    extensions.injectResolutionRule { _ => RewriteStreamingDistinctAggregates }
    // Sliding windows (window functions over a stream, docs/semantics.md §12) after ROWTIME is
    // bound (their order is the block's rowtime) and in the resolution batch, once Spark has made
    // its Window node: Spark's check for streaming queries, which runs on the analyzed plan, refuses
    // a Window over a stream, so it must be overjoin's operator by then. LAG gets KDA's meaning here.
    extensions.injectResolutionRule { _ => RewriteSlidingWindows }
    extensions.injectResolutionRule { _ => ApplyOrderedEmit }
    // In the server's pumps, a durable stream read as a stream is read from its log of files.
    extensions.injectResolutionRule { _ => org.apache.spark.sql.overjoin.ReadDurableStreamsFromLogs }

    // Post-hoc: after the resolution batch has reached its fixed point, drop overjoin's markers
    // (no physical planner knows them) and say why anything overjoin left unbound is refused.
    // A row of a streaming block that divides by zero is left out, as KDA did (before the markers go).
    extensions.injectPostHocResolutionRule { _ => org.apache.spark.sql.overjoin.LeaveOutZeroDivisions }
    extensions.injectPostHocResolutionRule { _ => RemoveStreamJoinMarkers }

    // Optimizer and planner: overjoin's own join operator, numbered per query, planned with the
    // state of the micro-batch being planned.
    extensions.injectOptimizerRule { _ => NumberWindowedJoins }
    extensions.injectPlannerStrategy { s => WindowedJoinStrategy(s.asInstanceOf[ClassicSession]) }
    // INSERT INTO a durable stream: Spark's write, then its files logged for the stream's readers.
    extensions.injectPlannerStrategy { _ => io.overjoin.streams.LogDurableStreamInserts }

    // Check: a no-op check whose builder runs once per session, which is when each session's
    // streaming queries get the listener that counts late rows (docs/semantics.md §8).
    extensions.injectCheckRule { session => LateRows.ensureInstalled(session); _ => () }
    // Likewise the listeners that count records of external streams that did not decode, and rows
    // left out for dividing by zero.
    extensions.injectCheckRule { session =>
      io.overjoin.streams.BadRecords.ensureInstalled(session)
      org.apache.spark.sql.overjoin.ZeroDivisions.ensureInstalled(session)
      io.overjoin.streams.PythonWorkerRetry.ensureInstalled(session)
      _ => ()
    }
    // A plain SELECT of (or INSERT INTO) a stream over a source: refused, saying what to write.
    extensions.injectCheckRule { _ => io.overjoin.streams.RefuseExternalBatchUse }
  }
}
