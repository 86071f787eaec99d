package org.apache.spark.sql.overjoin

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression}
import org.apache.spark.sql.catalyst.plans.JoinType
import org.apache.spark.sql.catalyst.plans.physical.{Distribution, Partitioning}
import org.apache.spark.sql.execution.{BinaryExecNode, SparkPlan}
import org.apache.spark.sql.execution.streaming.operators.stateful.{StatefulOperatorCustomMetric, StatefulOperatorCustomSumMetric, StatefulOperatorPartitioning, StatefulOperatorStateInfo}
import org.apache.spark.sql.execution.streaming.state._
import org.apache.spark.sql.types.{BinaryType, StructField, StructType}
import org.apache.spark.util.CompletionIterator

import io.overjoin.catalyst.plans.logical.{SideBounds, WindowedJoin}
import io.overjoin.execution.join.{JoinCounters, JoinKernels, JoinPartition, JoinSpec}

/**
 * The physical operator of a [[WindowedJoin]]: a stateful stream-stream join with its own state
 * store (one per shuffle partition), holding each key's buffered rows in one blob
 * ([[io.overjoin.execution.join.JoinStateBlob]]). The work of a partition is in
 * [[io.overjoin.execution.join.JoinPartition]].
 *
 * As a `StateStoreWriter` it takes part in everything Spark does for its own stateful operators:
 * state restored from the checkpoint and committed per micro-batch, state schema and operator
 * metadata checks at restart, watermark propagation to the operators above it, no-data batches
 * when the watermark moves, and the `stateOperators` entry of the query's progress.
 */
case class WindowedJoinExec(
    joinType: JoinType,
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    nullSafe: Seq[Boolean],
    condition: Option[Expression],
    leftTimes: Seq[Expression],
    rightTimes: Seq[Expression],
    leftBounds: SideBounds,
    rightBounds: SideBounds,
    produced: Seq[Attribute],
    leftRowsN: Option[Long],
    leftPartition: Seq[Expression],
    rightRowsN: Option[Long],
    rightPartition: Seq[Expression],
    holdUntilFinal: Boolean,
    stateInfo: Option[StatefulOperatorStateInfo],
    left: SparkPlan,
    right: SparkPlan) extends BinaryExecNode with OverjoinStateWriter {

  override def output: Seq[Attribute] = WindowedJoin.outputOf(produced, left.output, right.output, joinType)

  override def producedAttributes: AttributeSet = AttributeSet(produced)

  override def shortName: String = "overjoinWindowedJoin"

  override def requiredChildDistribution: Seq[Distribution] =
    StatefulOperatorPartitioning.getCompatibleDistribution(leftKeys, getStateInfo, conf) ::
      StatefulOperatorPartitioning.getCompatibleDistribution(rightKeys, getStateInfo, conf) :: Nil

  override def outputPartitioning: Partitioning = left.outputPartitioning

  override def customStatefulOperatorMetrics: Seq[StatefulOperatorCustomMetric] = Seq(
    StatefulOperatorCustomSumMetric("numPaddedRows", "number of null-padded rows emitted"))

  override protected def stateKeys: Seq[Expression] = leftKeys

  override protected def valueSchema: StructType = StructType(Seq(StructField("rows", BinaryType, nullable = false)))

  // The watermark passed up must stay below the ROWTIME of every row this operator emits later,
  // or an operator above (a join, an aggregation, ordered emit) drops that row as late. A match
  // is no earlier than its later row: it leaves when that row arrives (not late), or, for a ROWS
  // window, once the watermark reaches the start of its intersection, which is at most its ROWTIME
  // (a row's life never starts after its ROWTIME). A padded row can leave after the watermark has
  // passed its ROWTIME, by up to `padDelayUs`; the watermark passed up is the input's less that.
  // With `holdUntilFinal` a matched row may leave long after that, once its life is final: the
  // watermark passed up is then also held below every row still to come ([[HeldWatermark]]).
  override def produceOutputWatermark(inputWatermarkMs: Long): Option[Long] = {
    val passed =
      if (inputWatermarkMs <= 0 || padDelayUs == 0) inputWatermarkMs
      else math.max(0L, Math.floorDiv(inputWatermarkMs * 1000L - padDelayUs, 1000L))
    if (!holdUntilFinal || getStateInfo.checkpointLocation == StreamContext.NotRunning) Some(passed)
    else {
      val below = HeldWatermark.read(session, getStateInfo, if (executed) batchId else batchId - 1)
      Some(math.min(passed, below))
    }
  }

  /**
   * How far (us) the watermark can be past a padded row's ROWTIME (`max(ROWTIME, end)`) when the
   * row leaves: it waits until the watermark reaches `end` plus the other side's lag, after which
   * no later row of that side can meet it. A side's lag is positive when it is the result of
   * another join (a row of it can start before the watermark); an input's is at most 0. With an
   * unbounded lag a row is never padded.
   */
  private[overjoin] lazy val padDelayUs: Long = {
    val (leftPreserved, rightPreserved) = WindowedJoin.preservedSides(joinType)
    def lag(b: SideBounds) = if (b.lag == Long.MaxValue) 0L else math.max(0L, b.lag)
    math.max(if (leftPreserved) lag(rightBounds) else 0L, if (rightPreserved) lag(leftBounds) else 0L)
  }

  private def batchId: Long = getStateInfo.storeVersion

  // Whether this instance ran its micro-batch: Spark asks it for the next batch's watermark then.
  @transient @volatile private var executed = false

  override protected def doExecute(): RDD[InternalRow] = {
    metrics // the accumulators exist on the driver before the tasks use them
    executed = true
    val (lateUs, evictUs) = watermarksMicros()
    val (leftPreserved, rightPreserved) = WindowedJoin.preservedSides(joinType)
    val spec = JoinSpec(left.output, right.output, leftKeys, rightKeys, nullSafe, condition, leftTimes, rightTimes,
      leftBounds, rightBounds, leftPreserved, rightPreserved, output.map(_.dataType),
      leftRowsN, leftPartition, rightRowsN, rightPartition, holdUntilFinal)
    val batchId = getStateInfo.storeVersion
    val info = getStateInfo
    val held = if (holdUntilFinal) Some(HeldWatermark.writer(session, info)) else None
    val numOutput = longMetric("numOutputRows")
    val dropped = longMetric("numRowsDroppedByWatermark")
    val totalRows = longMetric("numTotalStateRows")
    val updated = longMetric("numUpdatedStateRows")
    val removed = longMetric("numRemovedStateRows")
    val updatesTime = longMetric("allUpdatesTimeMs")
    val removalsTime = longMetric("allRemovalsTimeMs")
    val commitTime = longMetric("commitTimeMs")
    val padded = longMetric("numPaddedRows")
    val ks = keySchema
    val checkpoint = queryCheckpoint
    val zipped = left.execute().zipPartitions(right.execute(), preservesPartitioning = true) {
      (l, r) => Iterator.single((l, r))
    }
    zipped.mapPartitionsWithStateStore[InternalRow](getStateInfo, ks, valueSchema,
      NoPrefixKeyStateEncoderSpec(ks), session.sessionState, Some(session.streams.stateStoreCoordinator)) {
      (store, iter) =>
        val (l, r) = iter.next()
        val counters = new JoinCounters
        val start = System.nanoTime()
        val kernels = JoinKernels.acquire(spec)
        val out = OverjoinStateWriter.namingCheckpoint(checkpoint)(new JoinPartition(spec, kernels, store, lateUs, evictUs, batchId, counters).run(l, r))
        CompletionIterator[InternalRow, Iterator[InternalRow]](out.map { row => numOutput += 1; row }, {
          updatesTime += math.max(0L, (System.nanoTime() - start - counters.evictNanos) / 1000000L)
          removalsTime += counters.evictNanos / 1000000L
          // Before the commit: a committed batch always has its bound (a rerun rewrites it).
          held.foreach(_.write(batchId, store.id.partitionId, HeldWatermark.bound(counters.heldMin, evictUs, math.max(leftBounds.lag, rightBounds.lag))))
          commitTime += timeTakenMs { store.commit() }
          JoinKernels.release(kernels)
          dropped += counters.dropped
          padded += counters.padded
          updated += counters.updatedKeys
          removed += counters.removedKeys
          // Spark's setStoreMetrics counts the store's keys as state rows; a key holds many rows
          // here, and numRowsTotal should say how many input rows are buffered.
          totalRows += counters.stateRows - store.metrics.numKeys
          setStoreMetrics(store)
        })
    }
  }

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan): WindowedJoinExec =
    copy(left = newLeft, right = newRight)
}
