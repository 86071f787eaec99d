package io.overjoin.streaming

import java.util.UUID
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.streaming.StreamingQueryListener
import org.apache.spark.sql.streaming.StreamingQueryListener.{QueryIdleEvent, QueryProgressEvent, QueryStartedEvent, QueryTerminatedEvent}

/**
 * Counts the rows each streaming query dropped because they were late (older than the
 * watermark), so that dropping is never silent: docs/semantics.md §8.
 *
 * Spark's stream-stream join reports late input rows it dropped in its progress
 * (`numRowsDroppedByWatermark` of each state operator). This listener adds them up per query,
 * logs a warning at every micro-batch that dropped rows, and keeps the totals for
 * `overjoin.late_rows(query)` in Python (or `LateRows.total(queryId)` on the JVM).
 */
object LateRows extends Logging {
  private val totals = new ConcurrentHashMap[UUID, AtomicLong]()
  private val installed = ConcurrentHashMap.newKeySet[SparkSession]()

  /** Registers the listener with `session` once; called by the extension for every session. */
  def ensureInstalled(session: SparkSession): Unit = {
    if (installed.add(session)) session.streams.addListener(new Listener)
  }

  /** Late rows dropped so far by the query with this id (its `StreamingQuery.id`). */
  def total(queryId: String): Long = Option(totals.get(UUID.fromString(queryId))).map(_.get).getOrElse(0L)

  def totalsByQuery: Map[String, Long] = totals.asScala.map { case (k, v) => k.toString -> v.get }.toMap

  private class Listener extends StreamingQueryListener {
    override def onQueryStarted(event: QueryStartedEvent): Unit = totals.putIfAbsent(event.id, new AtomicLong())
    override def onQueryIdle(event: QueryIdleEvent): Unit = ()
    override def onQueryTerminated(event: QueryTerminatedEvent): Unit = ()

    override def onQueryProgress(event: QueryProgressEvent): Unit = {
      val p = event.progress
      val dropped = p.stateOperators.map(_.numRowsDroppedByWatermark).sum
      if (dropped > 0) {
        val total = totals.computeIfAbsent(p.id, _ => new AtomicLong()).addAndGet(dropped)
        val watermark = Option(p.eventTime.get("watermark")).getOrElse("?")
        logWarning(s"overjoin: query ${Option(p.name).getOrElse(p.id)} batch ${p.batchId} dropped $dropped " +
          s"late row(s) older than the watermark $watermark (Spark's value; overjoin's is 1 ms later); " +
          s"$total dropped so far. Raise spark.overjoin.lateness or the input's WATERMARK delay to keep them.")
      }
    }
  }
}
