package org.apache.spark.sql.overjoin

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression, Literal, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.{Distribution, Partitioning}
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.streaming.operators.stateful.{StatefulOperatorPartitioning, StatefulOperatorStateInfo}
import org.apache.spark.sql.execution.streaming.state._
import org.apache.spark.sql.types.{BinaryType, LongType, StructField, StructType}
import org.apache.spark.util.CompletionIterator

import io.overjoin.execution.sliding.{DueRowAggregates, SlidingCounters, SlidingPartition, SlidingTaskSpec}

/**
 * The physical operator of a [[io.overjoin.catalyst.plans.logical.SlidingWindow]]: window functions
 * over a stream (docs/semantics.md §12), with a state store per shuffle partition keyed by the
 * `PARTITION BY` values (one constant key, in one partition, without `PARTITION BY`). Each key's
 * rows are one blob ([[io.overjoin.execution.sliding.SlidingState]]); the work of a partition is in
 * [[io.overjoin.execution.sliding.SlidingPartition]].
 *
 * As a `StateStoreWriter` it takes part in what Spark does for its own stateful operators: state
 * restored and committed per micro-batch, schema and operator-metadata checks at restart,
 * watermark propagation, no-data batches when the watermark moves (rows wait for it), and the
 * `stateOperators` entry of the query's progress (`numRowsTotal` = rows held,
 * `numRowsDroppedByWatermark` = late rows).
 *
 * The watermark it passes up is its input's: it emits a row once the watermark has reached the row's
 * ROWTIME, which it keeps, so nothing it emits later is at or below the watermark passed up.
 */
case class SlidingWindowExec(
    windowExpressions: Seq[NamedExpression],
    partitionSpec: Seq[Expression],
    orderSpec: Seq[SortOrder],
    keepMicros: Long,
    keepRows: Long,
    stateInfo: Option[StatefulOperatorStateInfo],
    child: SparkPlan) extends UnaryExecNode with OverjoinStateWriter {

  override def output: Seq[Attribute] = child.output ++ windowExpressions.map(_.toAttribute)

  override def producedAttributes: AttributeSet = AttributeSet(windowExpressions.map(_.toAttribute))

  override def shortName: String = "overjoinSlidingWindow"

  /** The state's key: the PARTITION BY values, or one constant. */
  private def keyExpressions: Seq[Expression] = if (partitionSpec.isEmpty) Seq(Literal(0)) else partitionSpec

  override def requiredChildDistribution: Seq[Distribution] =
    StatefulOperatorPartitioning.getCompatibleDistribution(keyExpressions, getStateInfo, conf) :: Nil

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override protected def stateKeys: Seq[Expression] = keyExpressions

  /**
   * `(pending, rows)`; a window with a frame `UNBOUNDED PRECEDING` also keeps `running`, the
   * frames' aggregation buffers over the key's emitted rows (its state grows with keys, not rows).
   */
  override protected def valueSchema: StructType = StructType(
    Seq(StructField("pending", LongType, nullable = false), StructField("rows", BinaryType, nullable = false)) ++
      (if (windowExpressions.exists(DueRowAggregates.isRunning)) Seq(StructField("running", BinaryType, nullable = false))
       else Nil))

  override protected def doExecute(): RDD[InternalRow] = {
    metrics // the accumulators exist on the driver before the tasks use them
    val (lateUs, evictUs) = watermarksMicros()
    val spec = SlidingTaskSpec(windowExpressions, partitionSpec, keyExpressions, orderSpec, child.output,
      keepMicros, keepRows, evaluation = conf.getConf(OverjoinConfEntries.SlidingEvaluation),
      operator = s"${getStateInfo.queryRunId}/${getStateInfo.operatorId}")
    val batchId = getStateInfo.storeVersion
    val numOutput = longMetric("numOutputRows")
    val dropped = longMetric("numRowsDroppedByWatermark")
    val totalRows = longMetric("numTotalStateRows")
    val updated = longMetric("numUpdatedStateRows")
    val removed = longMetric("numRemovedStateRows")
    val updatesTime = longMetric("allUpdatesTimeMs")
    val commitTime = longMetric("commitTimeMs")
    val ks = keySchema
    val checkpoint = queryCheckpoint
    child.execute().mapPartitionsWithStateStore[InternalRow](getStateInfo, ks, valueSchema,
      NoPrefixKeyStateEncoderSpec(ks), session.sessionState, Some(session.streams.stateStoreCoordinator)) {
      (store, iter) =>
        val counters = new SlidingCounters
        val start = System.nanoTime()
        val out = OverjoinStateWriter.namingCheckpoint(checkpoint)(new SlidingPartition(spec, store, lateUs, evictUs, batchId, counters).run(iter))
        CompletionIterator[InternalRow, Iterator[InternalRow]](out.map { row => numOutput += 1; row }, {
          updatesTime += math.max(0L, (System.nanoTime() - start) / 1000000L)
          commitTime += timeTakenMs { store.commit() }
          dropped += counters.dropped
          updated += counters.updatedKeys
          removed += counters.removedKeys
          // Spark's setStoreMetrics counts the store's keys as state rows; a key holds many rows
          // here, and numRowsTotal should say how many input rows are held.
          totalRows += counters.stateRows - store.metrics.numKeys
          setStoreMetrics(store)
        })
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): SlidingWindowExec = copy(child = newChild)
}
