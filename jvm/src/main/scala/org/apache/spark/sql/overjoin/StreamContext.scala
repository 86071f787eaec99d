package org.apache.spark.sql.overjoin

import java.util.UUID

import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.execution.streaming.operators.stateful.StatefulOperatorStateInfo
import org.apache.spark.sql.execution.streaming.runtime.{IncrementalExecution, StreamExecution}

/**
 * The micro-batch being planned or run on this thread, for overjoin's stateful operators.
 *
 * Spark gives its own stateful operators their state (checkpoint folder, run, batch, operator id,
 * partitions) and their watermarks in `IncrementalExecution`'s `state` rule, which only knows
 * Spark's classes (docs/design/stateful-operators.md). While a streaming query plans or runs a
 * micro-batch, its thread carries the query's id as a local property, the query is registered
 * with the session's shared state, and its `lastExecution` is the batch's `IncrementalExecution`:
 * from there an operator of ours gets the same information. This object is the one place that
 * reads those Spark internals, which is why it lives in a package under `org.apache.spark.sql`.
 */
object StreamContext {

  /** The checkpoint location of an operator planned outside a running query. */
  val NotRunning = "<not running>"

  /** Operator ids of overjoin start here, far above Spark's own (0, 1, ... in plan order). */
  val OperatorIdBase = 1000

  /** The execution of the micro-batch on this thread, if a streaming query is planning or running one. */
  def current(session: SparkSession): Option[IncrementalExecution] = {
    val id = session.sparkContext.getLocalProperty(StreamExecution.QUERY_ID_KEY)
    if (id == null) return None
    Option(session.sharedState.activeStreamingQueries.get(UUID.fromString(id)))
      .flatMap(q => Option(q.lastExecution))
  }

  /**
   * The state of operator `opIndex` in the micro-batch being planned, or a placeholder when no
   * query is running (`EXPLAIN` of a streaming DataFrame before it starts).
   */
  def stateInfo(session: SparkSession, opIndex: Int): StatefulOperatorStateInfo = {
    val opId = OperatorIdBase + opIndex
    current(session) match {
      case Some(ie) =>
        StatefulOperatorStateInfo(ie.checkpointLocation, ie.runId, opId, ie.currentBatchId, ie.numStateStores,
          ie.stateSchemaMetadatas.get(opId), ie.currentStateStoreCkptId.get(opId))
      case None =>
        StatefulOperatorStateInfo(NotRunning, new UUID(0, 0), opId, 0, session.sessionState.conf.numShufflePartitions)
    }
  }

  /**
   * (late-events watermark, eviction watermark) in milliseconds of operator `opId` in the running
   * micro-batch, as Spark's watermark propagation computed them; None outside a running batch.
   */
  def watermarks(session: SparkSession, info: StatefulOperatorStateInfo): Option[(Long, Long)] =
    current(session).filter(_.runId == info.queryRunId).map { ie =>
      val p = ie.watermarkPropagator
      (p.getInputWatermarkForLateEvents(ie.currentBatchId, info.operatorId),
        p.getInputWatermarkForEviction(ie.currentBatchId, info.operatorId))
    }
}
