package io.overjoin.execution.sliding

import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, BoundReference, Expression, GenericInternalRow, JoinedRow, NamedExpression, SortOrder, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.execution.window.WindowEvaluatorFactory
import org.apache.spark.sql.types.{LongType, StructType}

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
    valueSchema: StructType,
    evaluation: String = "incremental",
    operator: String = "",
    bucketMicros: Long = SlidingPartition.DefaultBucketMicros)

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
    counters: SlidingCounters, indexId: String = "") {

  private val numFields = spec.childOutput.size
  private val compiled = SlidingPartition.compiled(spec)
  import compiled._
  import SlidingPartition.NoWatermark

  // The store's value rows are read in place; a store other than the HDFS-backed one may reuse a
  // value row (and its bytes) for its next read, so its values are copied first.
  private val inPlace = store.getClass.getName.contains("HDFSBackedStateStore")
  private val bucketRow = new SpecificInternalRow(Seq(LongType))
  private val joined = new JoinedRow

  /** The state store key of `key`'s entry `bucket`. */
  private def entry(key: UnsafeRow, bucket: Long): UnsafeRow = {
    bucketRow.setLong(0, bucket)
    storeKeyOf(joined(key, bucketRow))
  }

  private val index: SlidingIndex.PartitionIndex = SlidingIndex.take(indexId, store.version).getOrElse(rebuild())

  /** The headers of the store's keys, read from the store (a restart, or a partition new to this executor). */
  private def rebuild(): SlidingIndex.PartitionIndex = {
    val headers = new java.util.HashMap[UnsafeRow, KeyHeader]
    val bucketOrdinal = spec.keyExpressions.size
    store.iterator().foreach { pair =>
      if (pair.key.getLong(bucketOrdinal) == SlidingBuckets.HeaderBucket) {
        headers.put(keyPartOf(pair.key).copy(), SlidingBuckets.decodeHeader(pair.value))
      }
    }
    new SlidingIndex.PartitionIndex(headers)
  }

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
    // Keys without new rows whose earliest row not emitted is now due, from the headers in memory.
    val due = ArrayBuffer.empty[UnsafeRow]
    if (evictUs != NoWatermark) index.headers.forEach { (key, h) =>
      if (h.pending <= evictUs && !fresh.contains(key)) due += key
    }
    val evalRows = ArrayBuffer.empty[UnsafeRow]
    val emit = ArrayBuffer.empty[Boolean]
    val evaluated = ArrayBuffer.empty[UnsafeRow]
    def visit(key: UnsafeRow, added: ArrayBuffer[HeldRow]): Unit = {
      val header = index.headers.get(key)
      val held = ArrayBuffer.empty[HeldRow]
      if (header != null) {
        var b = 0
        while (b < header.ids.length) {
          val stored = store.get(entry(key, header.ids(b)))
          if (stored == null) {
            throw OverjoinErrors.internal(s"sliding window state: bucket ${header.ids(b)} of a key is missing")
          }
          SlidingBuckets.decodeBucket(if (inPlace) stored else stored.copy(), numFields, header.emittedThrough, held)
          b += 1
        }
      }
      val rows = if (added.isEmpty) held else SlidingState.merged(held, added)
      val n = rows.size
      val isDue = new Array[Boolean](n)
      var dueRows = 0
      if (evictUs != NoWatermark) {
        var i = 0
        while (i < n) {
          val r = rows(i)
          if (!r.emitted && r.rowtime <= evictUs) { isDue(i) = true; dueRows += 1 }
          i += 1
        }
      }
      if (dueRows > 0) dueOnly match {
        case Some(aggregates) => aggregates.evalDue(rows, isDue, evaluated)
        case None => var i = 0; while (i < n) { evalRows += rows(i).row; emit += isDue(i); i += 1 }
      }
      val kept = keep(rows, isDue)
      if (kept.isEmpty) {
        if (header != null) {
          header.ids.foreach(id => store.remove(entry(key, id)))
          store.remove(entry(key, SlidingBuckets.HeaderBucket))
          index.headers.remove(key)
          counters.removedKeys += 1
        }
      } else {
        val width = if (header == null) spec.bucketMicros else header.width
        val emittedThrough = math.max(if (header == null) NoWatermark else header.emittedThrough, evictUs)
        if (writeBuckets(key, header, added, kept, width, emittedThrough) || header == null ||
            header.emittedThrough != emittedThrough) {
          val h = index.headers.get(key)
          store.put(entry(key, SlidingBuckets.HeaderBucket),
            valueOf(new GenericInternalRow(Array[Any](h.pending, SlidingBuckets.encodeHeader(h)))))
          counters.updatedKeys += 1
        }
      }
    }
    fresh.foreach { case (key, added) => visit(key, added) }
    due.foreach(key => visit(key, ArrayBuffer.empty))
    var stateRows = 0L
    index.headers.forEach((_, h) => stateRows += h.rows)
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
   * Writes the buckets of `kept` (a key's rows in order) that differ from what the store holds:
   * those that received rows of `added` and those that lost rows; removes the buckets left
   * empty; sets the key's header in memory. Returns whether any bucket changed.
   */
  private def writeBuckets(key: UnsafeRow, header: KeyHeader, added: ArrayBuffer[HeldRow],
      kept: ArrayBuffer[HeldRow], width: Long, emittedThrough: Long): Boolean = {
    val touched = new java.util.HashSet[java.lang.Long]
    added.foreach(r => touched.add(java.lang.Math.floorDiv(r.rowtime, width)))
    val ids = ArrayBuffer.empty[Long]
    val counts = ArrayBuffer.empty[Int]
    var changed = false
    var pending = SlidingState.NoPending
    var from = 0
    while (from < kept.size) {
      val id = java.lang.Math.floorDiv(kept(from).rowtime, width)
      var until = from + 1
      while (until < kept.size && java.lang.Math.floorDiv(kept(until).rowtime, width) == id) until += 1
      var old = -1
      if (header != null) { val at = java.util.Arrays.binarySearch(header.ids, id); if (at >= 0) old = header.counts(at) }
      if (old != until - from || touched.contains(id)) {
        store.put(entry(key, id), valueOf(new GenericInternalRow(Array[Any](SlidingBuckets.BucketEntry,
          SlidingBuckets.encodeBucket(kept, from, until)))))
        changed = true
      }
      var i = from
      while (i < until && pending == SlidingState.NoPending) {
        if (kept(i).rowtime > emittedThrough) pending = kept(i).rowtime
        i += 1
      }
      ids += id
      counts += until - from
      from = until
    }
    if (header != null) header.ids.foreach { id =>
      if (!ids.contains(id)) { store.remove(entry(key, id)); changed = true }
    }
    index.headers.put(key, new KeyHeader(pending, emittedThrough, width, ids.toArray, counts.toArray))
    changed
  }

  /** After the store's commit: this partition's headers in memory match `version` of the store. */
  def committed(version: Long): Unit = {
    index.version = version
    SlidingIndex.put(indexId, index)
  }

  /**
   * The rows a row still to come can need (the due ones are emitted by now; the header's
   * `emittedThrough` says so after the batch, no row is marked): those not emitted, those within `keepMicros` of the watermark
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
          out += r
        }
      }
      i += 1
    }
    out
  }
}

object SlidingPartition {
  val NoWatermark: Long = org.apache.spark.sql.overjoin.OverjoinStateWriter.NoWatermark

  /** The width of a key's time buckets without a RANGE frame: 10 s. */
  val DefaultBucketMicros: Long = 10L * 1000 * 1000

  /**
   * The width of a key's time buckets for a window that keeps `keepMicros` of rows below the
   * watermark (-1: none, ROWS only): a sixth of it, between 1 s and 10 s. A batch rewrites the
   * buckets its rows fall in and the oldest one it trims, so narrower buckets rewrite less; wider
   * ones mean fewer entries to read per key.
   */
  def bucketMicros(keepMicros: Long): Long =
    if (keepMicros <= 0) DefaultBucketMicros else math.min(DefaultBucketMicros, math.max(1000L * 1000, keepMicros / 6))

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
    val valueOf: UnsafeProjection = UnsafeProjection.create(spec.valueSchema)
    private val keyTypes = spec.keyExpressions.map(_.dataType)
    /** A state store key: the key's values, then the bucket. */
    val storeKeyOf: UnsafeProjection = UnsafeProjection.create((keyTypes :+ LongType).toArray)
    /** The key's values of a state store key. */
    val keyPartOf: UnsafeProjection =
      UnsafeProjection.create(keyTypes.zipWithIndex.map { case (t, i) => BoundReference(i, t, nullable = true) })
    // The due rows' values alone, when the window expressions allow it; else (and always with
    // spark.overjoin.sliding.evaluation = spark) Spark's evaluator over every row of the visited keys.
    val dueOnly: Option[DueRowAggregates] = spec.evaluation match {
      case "spark" => None
      case "due" => DueRowAggregates.of(spec, incremental = false)
      case _ => DueRowAggregates.of(spec)
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

/**
 * The headers of a sliding window's keys, kept in memory between micro-batches next to the state
 * store, per (query run, operator, partition): the scan for due keys reads them here instead of
 * reading every key of the store. An index is used only for the store version it was built for (set
 * after the store's commit); a task takes it out while it runs, so a failed task leaves none behind
 * and the next one rebuilds it from the store's header entries, as after a restart or on an
 * executor new to the partition.
 */
object SlidingIndex {
  final class PartitionIndex(val headers: java.util.HashMap[UnsafeRow, KeyHeader]) {
    @volatile var version: Long = -1L
  }

  private val MaxIndexes = 1024
  private val indexes = new java.util.LinkedHashMap[String, PartitionIndex](16, 0.75f, true) {
    override def removeEldestEntry(e: java.util.Map.Entry[String, PartitionIndex]): Boolean = size() > MaxIndexes
  }

  /** The index of `id` if it matches `version` of its store; it is removed either way. */
  def take(id: String, version: Long): Option[PartitionIndex] =
    if (id.isEmpty) None
    else indexes.synchronized { Option(indexes.remove(id)).filter(_.version == version) }

  def put(id: String, index: PartitionIndex): Unit = if (id.nonEmpty) indexes.synchronized { indexes.put(id, index) }
}
