package io.overjoin.execution.sliding

import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, Expression, NamedExpression, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.execution.window.WindowEvaluatorFactory

import io.overjoin.errors.OverjoinErrors

/**
 * What a sliding window's task needs besides its rows and its store (serializable, sent to tasks).
 * `operator` names the operator in its query run (run id and operator id; empty: not named), for
 * [[SlidingPartition.compiled]].
 */
final case class SlidingTaskSpec(
    windowExpressions: Seq[NamedExpression],
    partitionSpec: Seq[Expression],
    keyExpressions: Seq[Expression],
    orderSpec: Seq[SortOrder],
    childOutput: Seq[Attribute],
    keepMicros: Long,
    keepRows: Long,
    evaluation: String = "incremental",
    operator: String = "") {

  /** A frame is UNBOUNDED PRECEDING: each key's state keeps a third field, its running buffers. */
  def runningFrames: Boolean = windowExpressions.exists(DueRowAggregates.isRunning)
}

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
  private val compiled = SlidingPartition.compiled(spec)
  import compiled._
  private val runningFrames = spec.runningFrames

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
          val unsafe = row match {
            case u: UnsafeRow if u.numFields == numFields => u.copy()
            case _ => toUnsafe(row).copy()
          }
          fresh.getOrElseUpdate(key, ArrayBuffer.empty) += HeldRow(t, (batchId << 32) | seq, emitted = false, unsafe)
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
        else stateRows += SlidingState.rowCount(SlidingState.blobOf(pair.value, 1))
      }
    }
    val evalRows = ArrayBuffer.empty[UnsafeRow]
    val emit = ArrayBuffer.empty[Boolean]
    val evaluated = ArrayBuffer.empty[UnsafeRow]
    def visit(key: UnsafeRow, added: ArrayBuffer[HeldRow]): Unit = {
      val stored = store.get(key)
      // The rows point into the stored value's bytes, which stay as they are (a put stores new
      // bytes); the Spark evaluation keeps rows of several keys, so it decodes a copy.
      val held = if (stored == null) ArrayBuffer.empty[HeldRow]
        else if (dueOnly.isDefined) SlidingState.decode(SlidingState.blobOf(stored, 1), numFields, "a sliding window")
        else SlidingState.decode(stored.getBinary(1), numFields, "a sliding window")
      val rows = if (added.isEmpty) held else SlidingState.merged(held, added)
      val n = rows.size
      val isDue = new Array[Boolean](n)
      var dueRows = 0
      if (evictUs != SlidingPartition.NoWatermark) {
        var i = 0
        while (i < n) {
          val r = rows(i)
          if (!r.emitted && r.rowtime <= evictUs) { isDue(i) = true; dueRows += 1 }
          i += 1
        }
      }
      // Running frames (UNBOUNDED PRECEDING): their buffers over the key's emitted rows.
      var running: Array[Byte] = if (stored == null || !runningFrames) null
        else Option(stored.getBinary(2)).filter(_.nonEmpty).orNull
      if (dueRows > 0) dueOnly match {
        case Some(aggregates) if runningFrames =>
          val saved = if (running == null) null else {
            val r = new UnsafeRow(aggregates.runningSchema.size)
            r.pointTo(running, running.length)
            r
          }
          aggregates.evalDue(rows, isDue, evaluated, saved)
          running = aggregates.savedRunning().getBytes
        case Some(aggregates) => aggregates.evalDue(rows, isDue, evaluated)
        case None => var i = 0; while (i < n) { evalRows += rows(i).row; emit += isDue(i); i += 1 }
      }
      val kept = keep(rows, isDue)
      stateRows += kept.size
      if (kept.isEmpty && running == null) {
        if (held.nonEmpty) { store.remove(key); counters.removedKeys += 1 }
      } else if (added.nonEmpty || dueRows > 0 || kept.size != n) {
        store.put(key, SlidingState.valueRow(SlidingState.pending(kept), kept,
          if (runningFrames) Some(Option(running).getOrElse(Array.emptyByteArray)) else None))
        counters.updatedKeys += 1
      }
    }
    fresh.foreach { case (key, added) => visit(key, added) }
    due.foreach(key => visit(key, ArrayBuffer.empty))
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

  /**
   * The rows a row still to come can need, the due ones marked emitted (every row at or below the
   * watermark is emitted by now): those not emitted, those within `keepMicros` of the watermark
   * (RANGE), the last `keepRows` emitted (ROWS, LAG).
   */
  private def keep(rows: scala.collection.IndexedSeq[HeldRow], isDue: Array[Boolean]): ArrayBuffer[HeldRow] = {
    val out = new ArrayBuffer[HeldRow](rows.size)
    if (evictUs == SlidingPartition.NoWatermark) { out ++= rows; return out }
    var emittedCount = 0
    var i = 0
    while (i < rows.size) { if (rows(i).emitted || isDue(i)) emittedCount += 1; i += 1 }
    var emittedSeen = 0
    i = 0
    while (i < rows.size) {
      val r = rows(i)
      if (!r.emitted && !isDue(i)) out += r
      else {
        emittedSeen += 1
        if ((spec.keepMicros >= 0 && r.rowtime >= evictUs - spec.keepMicros) ||
            (spec.keepRows > 0 && emittedSeen > emittedCount - spec.keepRows)) {
          out += (if (r.emitted) r else r.copy(emitted = true))
        }
      }
      i += 1
    }
    out
  }
}

object SlidingPartition {
  val NoWatermark: Long = org.apache.spark.sql.overjoin.OverjoinStateWriter.NoWatermark

  /**
   * What a task of a sliding window compiles from its spec (projections, the due rows'
   * aggregates). Every micro-batch runs a task per partition for the same operator; compiling it
   * again each time cost about a seventh of the operator's CPU, so each executor thread keeps the
   * last few it compiled, by operator ([[compiled]]). One thread runs one task at a time, so the mutable
   * buffers inside are never shared.
   */
  final class Compiled(spec: SlidingTaskSpec) {
    val toUnsafe: UnsafeProjection = UnsafeProjection.create(spec.childOutput.map(_.dataType).toArray)
    val keyOf: UnsafeProjection = UnsafeProjection.create(spec.keyExpressions, spec.childOutput)
    val rowtimeOf: Expression = BindReferences.bindReference(spec.orderSpec.head.child, spec.childOutput)
    // The due rows' values alone, when the window expressions allow it; else (and always with
    // spark.overjoin.sliding.evaluation = spark) Spark's evaluator over every row of the visited keys.
    val dueOnly: Option[DueRowAggregates] = spec.evaluation match {
      case "spark" if !spec.runningFrames => None
      case "due" => DueRowAggregates.of(spec, incremental = false)
      case _ => DueRowAggregates.of(spec)
    }
    if (spec.runningFrames && !dueOnly.exists(_.hasRunning)) {
      throw OverjoinErrors.internal("a sliding window with UNBOUNDED PRECEDING whose functions are not all aggregates")
    }
  }

  private val CacheSize = 8

  private val cache = new ThreadLocal[java.util.LinkedHashMap[String, Compiled]] {
    override def initialValue(): java.util.LinkedHashMap[String, Compiled] =
      new java.util.LinkedHashMap[String, Compiled](16, 0.75f, true) {
        override def removeEldestEntry(e: java.util.Map.Entry[String, Compiled]): Boolean = size() > CacheSize
      }
  }

  /**
   * This thread's compiled form of `spec`, made on first use. It is kept by operator (one operator
   * of one query run computes the same window every micro-batch, though the planner may give its
   * expressions new ids each time, so the spec's expressions are not the key).
   */
  def compiled(spec: SlidingTaskSpec): Compiled =
    if (spec.operator.isEmpty) new Compiled(spec)
    else cache.get().computeIfAbsent(s"${spec.operator}/${spec.evaluation}", _ => new Compiled(spec))
}
