package io.overjoin.execution.sliding

import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, Expression, GenericInternalRow, NamedExpression, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.execution.window.WindowEvaluatorFactory
import org.apache.spark.sql.types.StructType

/** What a sliding window's task needs besides its rows and its store (serializable, sent to tasks). */
final case class SlidingTaskSpec(
    windowExpressions: Seq[NamedExpression],
    partitionSpec: Seq[Expression],
    keyExpressions: Seq[Expression],
    orderSpec: Seq[SortOrder],
    childOutput: Seq[Attribute],
    keepMicros: Long,
    keepRows: Long,
    valueSchema: StructType,
    dueOnly: Boolean = true)

/** What a task counts, for the operator's metrics. */
final class SlidingCounters {
  var dropped = 0L
  var stateRows = 0L
  var updatedKeys = 0L
  var removedKeys = 0L
  var emitted = 0L
}

/**
 * The work of one shuffle partition of a sliding window in one micro-batch (docs/semantics.md §12,
 * docs/operator.md "Sliding windows"):
 *
 *  1. the batch's rows, by partition key; a row at or below the late-rows watermark is dropped and
 *     counted (§8: strictly older than overjoin's watermark, which is Spark's + 1 ms);
 *  2. the keys to visit: those with new rows, and those whose `pending` (earliest rowtime not
 *     emitted) the eviction watermark has reached (a scan of the store's values, no blob decoded);
 *  3. per key, its held rows and new rows in (rowtime, arrival) order; the rows not emitted whose
 *     rowtime the watermark has reached are due: every row of their window, peers included, has
 *     arrived. Their values are computed by Spark's own window evaluation
 *     (`WindowEvaluatorFactory`, what `WindowExec` runs) over the key's rows, so they are Spark's;
 *     when every window expression is an aggregate over a frame with constant bounds, only the due
 *     rows' frames are aggregated, by the functions' own expressions ([[DueRowAggregates]]);
 *  4. the key keeps the rows a later row can still need: those not emitted, those within
 *     `keepMicros` of the watermark (RANGE), the last `keepRows` emitted (ROWS, LAG).
 */
final class SlidingPartition(spec: SlidingTaskSpec, store: StateStore, lateUs: Long, evictUs: Long, batchId: Long,
    counters: SlidingCounters) {

  private val numFields = spec.childOutput.size
  private val toUnsafe = UnsafeProjection.create(spec.childOutput.map(_.dataType).toArray)
  private val keyOf = UnsafeProjection.create(spec.keyExpressions, spec.childOutput)
  private val rowtimeOf = BindReferences.bindReference(spec.orderSpec.head.child, spec.childOutput)
  private val valueOf = UnsafeProjection.create(spec.valueSchema)
  // The due rows' values alone, when the window expressions allow it; else (and always with
  // spark.overjoin.sliding.evaluation = spark) Spark's evaluator over every row of the visited keys.
  private val dueOnly = if (spec.dueOnly) DueRowAggregates.of(spec) else None

  def run(input: Iterator[InternalRow]): Iterator[InternalRow] = {
    val fresh = mutable.LinkedHashMap.empty[UnsafeRow, ArrayBuffer[HeldRow]]
    var seq = 0L
    input.foreach { row =>
      val rt = rowtimeOf.eval(row)
      if (rt != null) {
        val t = rt.asInstanceOf[Long]
        if (t <= lateUs) counters.dropped += 1
        else {
          val key = keyOf(row).copy()
          fresh.getOrElseUpdate(key, ArrayBuffer.empty) += HeldRow(t, (batchId << 32) | seq, emitted = false,
            toUnsafe(row).copy())
          seq += 1
        }
      }
    }
    // Keys without new rows whose earliest row not emitted is now due; the others keep their rows
    // and are counted from their blob's header.
    val due = ArrayBuffer.empty[UnsafeRow]
    var stateRows = 0L
    store.iterator().foreach { pair =>
      if (!fresh.contains(pair.key)) {
        if (evictUs != SlidingPartition.NoWatermark && pair.value.getLong(0) <= evictUs) due += pair.key.copy()
        else stateRows += java.nio.ByteBuffer.wrap(pair.value.getBinary(1), 1, 4).getInt()
      }
    }
    val evalRows = ArrayBuffer.empty[UnsafeRow]
    val emit = ArrayBuffer.empty[Boolean]
    val evaluated = ArrayBuffer.empty[UnsafeRow]
    def visit(key: UnsafeRow, added: Seq[HeldRow]): Unit = {
      val held = Option(store.get(key)).map(v => SlidingState.decode(v.getBinary(1), numFields)).getOrElse(ArrayBuffer.empty)
      val rows = if (added.isEmpty) held else (held ++ added).sortBy(r => (r.rowtime, r.seq))
      val isDue = rows.map(r => !r.emitted && evictUs != SlidingPartition.NoWatermark && r.rowtime <= evictUs)
      if (isDue.contains(true)) dueOnly match {
        case Some(aggregates) => rows.indices.foreach { i => if (isDue(i)) evaluated += aggregates.eval(rows, i) }
        case None => rows.indices.foreach { i => evalRows += rows(i).row; emit += isDue(i) }
      }
      val marked = rows.indices.map(i => if (isDue(i)) rows(i).copy(emitted = true) else rows(i))
      val kept = keep(marked)
      stateRows += kept.size
      if (kept.isEmpty) {
        if (held.nonEmpty) { store.remove(key); counters.removedKeys += 1 }
      } else if (added.nonEmpty || isDue.contains(true) || kept.size != rows.size) {
        store.put(key, valueOf(new GenericInternalRow(Array[Any](SlidingState.pending(kept), SlidingState.encode(kept)))))
        counters.updatedKeys += 1
      }
    }
    fresh.foreach { case (key, added) => visit(key, added.toSeq) }
    due.foreach(key => visit(key, Nil))
    counters.stateRows = stateRows
    if (dueOnly.isDefined) {
      counters.emitted += evaluated.size
      return evaluated.iterator
    }
    if (evalRows.isEmpty) return Iterator.empty
    val factory = new WindowEvaluatorFactory(spec.windowExpressions, spec.partitionSpec, spec.orderSpec,
      spec.childOutput, new SQLMetric("size", 0L), new SQLMetric("sum", 0L), new SQLMetric("sum", 0L))
    val out = factory.createEvaluator().eval(0, evalRows.iterator)
    val flags = emit.iterator
    out.filter { _ => val e = flags.next(); if (e) counters.emitted += 1; e }
  }

  /** The rows a row still to come can need (every row at or below the watermark is emitted by now). */
  private def keep(rows: IndexedSeq[HeldRow]): IndexedSeq[HeldRow] = {
    if (evictUs == SlidingPartition.NoWatermark) return rows
    val emittedCount = rows.count(_.emitted)
    var emittedSeen = 0
    rows.filter { r =>
      if (!r.emitted) true
      else {
        emittedSeen += 1
        (spec.keepMicros >= 0 && r.rowtime >= evictUs - spec.keepMicros) ||
          (spec.keepRows > 0 && emittedSeen > emittedCount - spec.keepRows)
      }
    }
  }
}

object SlidingPartition {
  val NoWatermark: Long = org.apache.spark.sql.overjoin.OverjoinStateWriter.NoWatermark
}
