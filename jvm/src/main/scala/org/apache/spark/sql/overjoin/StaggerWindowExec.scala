package org.apache.spark.sql.overjoin

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, AttributeSet, BindReferences, Expression, SortOrder, UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.physical.{ClusteredDistribution, Distribution, Partitioning}
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.streaming.operators.stateful.{StatefulOperatorPartitioning, StatefulOperatorStateInfo}
import org.apache.spark.sql.execution.streaming.state._
import org.apache.spark.sql.types.{BinaryType, LongType, StructField, StructType}
import org.apache.spark.util.CompletionIterator

import io.overjoin.execution.stagger.{StaggerCounters, StaggerPartition, StaggerRule, StaggerTaskSpec}

/**
 * The physical operator of a [[io.overjoin.catalyst.plans.logical.StaggerAssign]] on a stream
 * (docs/semantics.md §13): a state store per shuffle partition keyed by the `PARTITION BY` values,
 * holding per key its open window's start and the rows that wait for the watermark
 * ([[io.overjoin.execution.stagger.StaggerPartition]]). A row goes out, with its window's start and
 * end, once the watermark reaches its rowtime; Spark's streaming aggregation above groups the rows
 * by window and emits a window once the watermark passes its end.
 *
 * As a `StateStoreWriter` it takes part in what Spark does for its own stateful operators (state
 * per micro-batch, checks at restart, watermark propagation, no-data batches, the
 * `stateOperators` entry of the progress: `numRowsTotal` = rows waiting, `numRowsDroppedByWatermark`
 * = late rows). Every row it emits has a window end above the late-rows watermark Spark gives the
 * aggregation in the same batch, so the aggregation drops none of them.
 */
case class StaggerWindowExec(
    keys: Seq[Expression],
    rowtime: Expression,
    sizeMicros: Long,
    start: Attribute,
    end: Attribute,
    stateInfo: Option[StatefulOperatorStateInfo],
    child: SparkPlan) extends UnaryExecNode with OverjoinStateWriter {

  override def output: Seq[Attribute] = child.output :+ start :+ end

  override def producedAttributes: AttributeSet = AttributeSet(Seq(start, end))

  override def shortName: String = "overjoinStaggerWindow"

  override def requiredChildDistribution: Seq[Distribution] =
    StatefulOperatorPartitioning.getCompatibleDistribution(keys, getStateInfo, conf) :: Nil

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override protected def stateKeys: Seq[Expression] = keys

  override protected def valueSchema: StructType = StructType(Seq(StructField("open", LongType, nullable = false),
    StructField("pending", LongType, nullable = false), StructField("rows", BinaryType, nullable = false)))

  override protected def doExecute(): RDD[InternalRow] = {
    metrics // the accumulators exist on the driver before the tasks use them
    val (lateUs, evictUs) = watermarksMicros()
    val spec = StaggerTaskSpec(keys, rowtime, sizeMicros, child.output, output, valueSchema)
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
        val counters = new StaggerCounters
        val startNs = System.nanoTime()
        val out = OverjoinStateWriter.namingCheckpoint(checkpoint)(new StaggerPartition(spec, store, lateUs, evictUs, batchId, counters).run(iter))
        CompletionIterator[InternalRow, Iterator[InternalRow]](out.map { row => numOutput += 1; row }, {
          updatesTime += math.max(0L, (System.nanoTime() - startNs) / 1000000L)
          commitTime += timeTakenMs { store.commit() }
          dropped += counters.dropped
          updated += counters.updatedKeys
          removed += counters.removedKeys
          // setStoreMetrics counts the store's keys as state rows; numRowsTotal says how many rows wait.
          totalRows += counters.stateRows - store.metrics.numKeys
          setStoreMetrics(store)
        })
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): StaggerWindowExec = copy(child = newChild)
}

/**
 * A [[io.overjoin.catalyst.plans.logical.StaggerAssign]] over tables (replay, docs/semantics.md
 * §13): the rows clustered by key and sorted by key and rowtime (Spark's exchange and sort), then
 * each key's rows get their windows by the same rule as on a stream. A row whose rowtime is NULL is
 * in no window.
 */
case class StaggerReplayExec(
    keys: Seq[Expression],
    rowtime: Expression,
    sizeMicros: Long,
    start: Attribute,
    end: Attribute,
    child: SparkPlan) extends UnaryExecNode {

  override def output: Seq[Attribute] = child.output :+ start :+ end

  override def producedAttributes: AttributeSet = AttributeSet(Seq(start, end))

  override def requiredChildDistribution: Seq[Distribution] = ClusteredDistribution(keys) :: Nil

  override def requiredChildOrdering: Seq[Seq[SortOrder]] =
    Seq(keys.map(SortOrder(_, Ascending)) :+ SortOrder(rowtime, Ascending))

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override protected def doExecute(): RDD[InternalRow] = {
    val spec = StaggerTaskSpec(keys, rowtime, sizeMicros, child.output, output, new StructType())
    child.execute().mapPartitionsInternal { iter =>
      val rule = new StaggerRule(spec)
      val keyOf = UnsafeProjection.create(spec.keys, spec.childOutput)
      val rowtimeOf = BindReferences.bindReference(spec.rowtime, spec.childOutput)
      var current: InternalRow = null
      var open = StaggerRule.NoOpen
      iter.flatMap { row =>
        val rt = rowtimeOf.eval(row)
        if (rt == null) None
        else {
          val key = keyOf(row)
          if (current == null || current != key) { current = key.copy(); open = StaggerRule.NoOpen }
          open = rule.startFor(open, rt.asInstanceOf[Long])
          Some(rule.output(row, open))
        }
      }
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): StaggerReplayExec = copy(child = newChild)
}
