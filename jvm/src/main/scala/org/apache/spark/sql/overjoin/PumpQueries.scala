package org.apache.spark.sql.overjoin

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.classic.{Dataset => ClassicDataset, SparkSession => ClassicSession}
import org.apache.spark.sql.execution.streaming.Sink
import org.apache.spark.sql.execution.streaming.sources.ForeachBatchSink
import org.apache.spark.sql.streaming.{OutputMode, StreamingQuery, Trigger}

/**
 * Starts a pump's query as `df.writeStream.foreachBatch(batch).trigger(trigger).start()` would,
 * with one difference the public API has no setting for: the clock its trigger waits on. Spark's
 * processing-time trigger waits for the next interval with `clock.waitTillTime`; the server's pumps
 * pass a clock that another pump can end that wait with ([[PumpClock]]). Spark
 * takes such a clock only from its own package, hence this one.
 */
object PumpQueries {

  def start(df: DataFrame, name: String, checkpoint: String, trigger: Trigger, clock: PumpClock,
      batch: (DataFrame, Long) => Unit): StreamingQuery = {
    val ds = df.asInstanceOf[ClassicDataset[Row]]
    startWith(df, name, checkpoint, trigger, clock,
      new ForeachBatchSink[Row]((d: org.apache.spark.sql.Dataset[Row], id: Long) => batch(d, id), ds.exprEnc))
  }

  /** As [[start]], into `sink` (a sink of Spark's v1 kind, given each micro-batch's own Dataset). */
  def startWith(df: DataFrame, name: String, checkpoint: String, trigger: Trigger, clock: PumpClock,
      sink: Sink): StreamingQuery = {
    val ds = df.asInstanceOf[ClassicDataset[Row]]
    val session = ds.sparkSession.asInstanceOf[ClassicSession]
    session.sessionState.streamingQueryManager.startQuery(
      userSpecifiedName = Some(name),
      userSpecifiedSinkName = None,
      userSpecifiedCheckpointLocation = Some(checkpoint),
      df = ds,
      extraOptions = Map("queryName" -> name, "checkpointLocation" -> checkpoint),
      sink = sink,
      outputMode = OutputMode.Append(),
      trigger = trigger,
      triggerClock = clock)
  }
}
