package org.apache.spark.sql.overjoin

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.streaming.operators.stateful.StateStoreWriter
import org.apache.spark.sql.execution.streaming.state._
import org.apache.spark.sql.types.{StructField, StructType}

import io.overjoin.errors.{OverjoinErrors, OverjoinRuntimeException}

/**
 * What overjoin's stateful operators (the windowed join, the sliding window) share as Spark
 * `StateStoreWriter`s: one state store per shuffle partition, keyed by `stateKeys`' values with
 * one `valueSchema` row per key, checked against the checkpoint's schema at restart; the
 * watermarks of the micro-batch in microseconds; and a batch without new rows whenever the
 * watermark moves, since both emit rows on the watermark alone.
 */
trait OverjoinStateWriter extends StateStoreWriter { self: SparkPlan =>

  /** The expressions whose values key the state (the join keys, the PARTITION BY values). */
  protected def stateKeys: Seq[Expression]

  /** The schema of a key's state value. */
  protected def valueSchema: StructType

  protected def keySchema: StructType =
    StructType(stateKeys.zipWithIndex.map { case (k, i) => StructField(s"key$i", k.dataType, nullable = true) })

  override def validateAndMaybeEvolveStateSchema(
      hadoopConf: Configuration, batchId: Long, stateSchemaVersion: Int): List[StateSchemaValidationResult] = {
    val schema = List(StateStoreColFamilySchema(StateStore.DEFAULT_COL_FAMILY_NAME, 0, keySchema, 0, valueSchema))
    List(StateSchemaCompatibilityChecker.validateAndMaybeEvolveStateSchema(
      getStateInfo, hadoopConf, schema, session.sessionState, stateSchemaVersion))
  }

  /** (late-events, eviction) watermarks in microseconds; no watermark yet is [[OverjoinStateWriter.NoWatermark]]. */
  protected def watermarksMicros(): (Long, Long) =
    StreamContext.watermarks(session, getStateInfo) match {
      case Some((late, evict)) => (if (late > 0) late * 1000L else OverjoinStateWriter.NoWatermark,
        if (evict > 0) evict * 1000L else OverjoinStateWriter.NoWatermark)
      case None => (OverjoinStateWriter.NoWatermark, OverjoinStateWriter.NoWatermark)
    }

  /** The query's checkpoint location, as the user gave it (the state is in its `state` folder). */
  protected def queryCheckpoint: String = getStateInfo.checkpointLocation.stripSuffix("/").stripSuffix("/state")

  override def shouldRunAnotherBatch(newInputWatermark: Long): Boolean =
    newInputWatermark > 0 && newInputWatermark * 1000L > watermarksMicros()._2
}

object OverjoinStateWriter {
  /** No watermark yet (the first micro-batch). */
  val NoWatermark: Long = Long.MinValue

  /**
   * `rows` (made here, and read later: both may read state), whose state-format errors (OJ401)
   * name `checkpoint`, the query's checkpoint location, where the unreadable state is.
   * The errors are thrown deep in decoding, where the location is not known. The try blocks cost
   * nothing while no error is thrown, and nothing is allocated per row.
   */
  def namingCheckpoint[T](checkpoint: String)(rows: => Iterator[T]): Iterator[T] = {
    val underlying = try rows catch { case e: OverjoinRuntimeException => throw named(e, checkpoint) }
    new Iterator[T] {
      def hasNext: Boolean = try underlying.hasNext catch { case e: OverjoinRuntimeException => throw named(e, checkpoint) }
      def next(): T = try underlying.next() catch { case e: OverjoinRuntimeException => throw named(e, checkpoint) }
    }
  }

  /** `e` naming `checkpoint` if it is a state-format error without one; otherwise `e` itself. */
  private def named(e: OverjoinRuntimeException, checkpoint: String): Throwable =
    if (e.condition.name == "OVERJOIN_STATE_FORMAT" && !e.params.get("checkpoint").contains(checkpoint))
      OverjoinErrors.stateFormat(e.params("operator"), e.params("found").toInt, e.params("supported"), checkpoint)
    else e
}
