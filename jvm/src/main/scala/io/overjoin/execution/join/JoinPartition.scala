package io.overjoin.execution.join

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * One micro-batch of a windowed join in one partition (docs/semantics.md §4 and §8):
 *
 *  1. the batch's rows are grouped by key; a row whose event time is at or below the previous
 *     watermark (`lateUs`) is late: dropped and counted;
 *  2. for each key with new rows: new left rows meet the key's buffered right rows, new right rows
 *     meet buffered and new left rows (each pair once); a pair matches when the rows' life
 *     intervals share a point and the condition holds. Output: ROWTIME = the larger ROWTIME, life
 *     = the intersection;
 *  3. then rows no later row can meet are dropped, an unmatched row of a preserved side padded
 *     with NULLs first, once the watermark (`evictUs`) has passed its ROWTIME `max(ROWTIME, end)`;
 *  4. keys without new rows are visited only when their blob says something is due.
 *
 * With a ROWS window on a side (docs/semantics.md §3, §8), a row's life ends at the rowtime of the
 * `(n+1)`-th later row of its partition, and a row that arrives later, still on time, can shrink
 * it. So, for such a join: new rows first recompute the ends of their partition's rows that are
 * not final yet (a final end is at or below the watermark: every later row is above it); a pair
 * is decided, emitted if its lives intersect, once the watermark has reached the start of the
 * intersection (no later row can end a life before it), in the batch it arrives or later; and the
 * last `n + 1` rows of each partition at or below the watermark stay, as `orderOnly` rows, so that
 * later rows find their position. A window that never closes keeps its rows and never pads them.
 * With `holdUntilFinal` (the join's result is joined again) a pair is decided once the watermark has
 * reached the end of the intersection instead, when its life is final (the smaller of the two
 * ends, which is final once the watermark reaches it even while the other, a ROWS window, is still
 * open), and each key records the earliest start of an output row it can still make from the rows
 * it holds (a waiting pair, or an unmatched row of a preserved side to pad), from which the
 * watermark passed up is held back (org.apache.spark.sql.overjoin.HeldWatermark).
 *
 * A row arriving after this batch has event time above `evictUs`, so its life starts after
 * `evictUs - lag` of its side ([[io.overjoin.catalyst.plans.logical.SideBounds]]): a row of the other side whose life ends before
 * that can meet no later row.
 */
final class JoinPartition(
    spec: JoinSpec,
    kernels: JoinKernels,
    store: StateStore,
    lateUs: Long,
    evictUs: Long,
    batchId: Long,
    counters: JoinCounters) {
  import JoinPartition._
  import kernels.{condition, leftKey, leftPartition, leftTimes, leftToUnsafe, outputs}
  import kernels.{rightKey, rightPartition, rightTimes, rightToUnsafe}

  private val cf = StateStore.DEFAULT_COL_FAMILY_NAME
  private val nLeft = spec.leftOutput.size
  private val nRight = spec.rightOutput.size
  private val nullSafe = spec.nullSafe.toArray
  private val pairRow = new JoinedRow
  // A later row of the left side starts after evictUs - leftLag; of the right, evictUs - rightLag.
  private val leftLag = spec.leftBounds.lag
  private val rightLag = spec.rightBounds.lag
  private val hasRows = spec.leftRows.isDefined || spec.rightRows.isDefined
  // Arrival order within the batch: a ROWS window orders tied rowtimes by arrival.
  private var arrivals = 0L
  // The earliest watermark at which a pair of the current key still waiting for it is decided.
  private var pendingFrom = Long.MaxValue
  // With `holdUntilFinal`: the earliest life start (intersection start) of those waiting pairs.
  private var pendingStart = Long.MaxValue

  /** The batch's output: matches and padded rows of keys with new rows, then padded rows of the others. */
  def run(leftRows: Iterator[InternalRow], rightRows: Iterator[InternalRow]): Iterator[InternalRow] = {
    val batch = new java.util.HashMap[UnsafeRow, KeyRows]()
    take(leftRows, isLeft = true, batch)
    take(rightRows, isLeft = false, batch)
    val keys = batch.entrySet().iterator()
    val fresh = new Iterator[InternalRow] {
      private var current: Iterator[InternalRow] = Iterator.empty
      def hasNext: Boolean = {
        while (!current.hasNext && keys.hasNext) {
          val e = keys.next()
          val stored = store.get(e.getKey, cf)
          current = joinKey(e.getKey, e.getValue, stored)
        }
        current.hasNext
      }
      def next(): InternalRow = { hasNext; current.next() }
    }
    // Evaluated once the fresh keys are done: it must not see them as "keys without new rows".
    fresh ++ dueKeys(batch)
  }

  private def take(rows: Iterator[InternalRow], isLeft: Boolean, batch: java.util.HashMap[UnsafeRow, KeyRows]): Unit = {
    val (keyOf, timesOf, toUnsafe, preserved) =
      if (isLeft) (leftKey, leftTimes, leftToUnsafe, spec.leftPreserved)
      else (rightKey, rightTimes, rightToUnsafe, spec.rightPreserved)
    while (rows.hasNext) {
      val row = rows.next()
      val t = timesOf(row)
      // A row without rowtime (or life) is in no window: it neither matches nor is emitted.
      if (!t.isNullAt(EventTime) && !t.isNullAt(Start) && !t.isNullAt(Rowtime)) {
        if (lateUs != NoWatermark && t.getLong(EventTime) <= lateUs) counters.dropped += 1
        else {
          val key = keyOf(row)
          val unmatchable = hasNullKey(key)
          val rowsSide = if (isLeft) spec.leftRows.isDefined else spec.rightRows.isDefined
          // A ROWS row counts in its window's order even when it can never match.
          if (!unmatchable || preserved || rowsSide) {
            val copy = row match {
              case u: UnsafeRow => u.copy()
              case other => toUnsafe(other).copy()
            }
            val end = if (t.isNullAt(End)) Entry.Open else t.getLong(End)
            arrivals += 1
            val entry = new Entry(t.getLong(Start), end, !t.isNullAt(EndInclusive) && t.getBoolean(EndInclusive),
              t.getLong(Rowtime), (batchId << 32) + arrivals, false, unmatchable, copy,
              orderOnly = unmatchable && !preserved)
            var rowsOfKey = batch.get(key)
            if (rowsOfKey == null) {
              rowsOfKey = new KeyRows
              batch.put(key.copy(), rowsOfKey)
            }
            (if (isLeft) rowsOfKey.lefts else rowsOfKey.rights) += entry
          }
        }
      }
    }
  }

  private def hasNullKey(key: UnsafeRow): Boolean = {
    var i = 0
    while (i < nullSafe.length) {
      if (!nullSafe(i) && key.isNullAt(i)) return true
      i += 1
    }
    false
  }

  /**
   * Joins the new rows of one key (maybe none) with what the key holds (`stored`, or null), then
   * evicts and writes it back.
   */
  private def joinKey(key: UnsafeRow, fresh: KeyRows, stored: UnsafeRow): Iterator[InternalRow] = {
    val held = new KeyRows
    var decided = NoWatermark
    if (stored != null) {
      // Read in place: the store's value stays as it is until this key is written back, below.
      val offsetAndSize = stored.getLong(0)
      val at = stored.getBaseOffset + (offsetAndSize >>> 32)
      JoinStateBlob.decode(stored.getBaseObject, at, nLeft, nRight, held)
      decided = JoinStateBlob.decided(stored.getBaseObject, at)
    }
    pendingFrom = Long.MaxValue
    pendingStart = Long.MaxValue
    if (fresh.lefts.nonEmpty) spec.leftRows.foreach(n => closeEnds(held.lefts ++ fresh.lefts, n, leftPartition.get, decided))
    if (fresh.rights.nonEmpty) spec.rightRows.foreach(n => closeEnds(held.rights ++ fresh.rights, n, rightPartition.get, decided))
    outputs.clear()
    val out = outputs
    var i = 0
    while (i < fresh.lefts.size) {
      val x = fresh.lefts(i)
      var j = 0
      while (j < held.rights.size) { tryMatch(x, held.rights(j), out, Long.MinValue); j += 1 }
      i += 1
    }
    i = 0
    while (i < fresh.rights.size) {
      val y = fresh.rights(i)
      var j = 0
      while (j < held.lefts.size) { tryMatch(held.lefts(j), y, out, Long.MinValue); j += 1 }
      j = 0
      while (j < fresh.lefts.size) { tryMatch(fresh.lefts(j), y, out, Long.MinValue); j += 1 }
      i += 1
    }
    if (hasRows) {
      // Pairs held from earlier batches whose intersection the watermark has reached since.
      i = 0
      while (i < held.lefts.size) {
        var j = 0
        while (j < held.rights.size) { tryMatch(held.lefts(i), held.rights(j), out, decided); j += 1 }
        i += 1
      }
    }
    appendAll(held.lefts, fresh.lefts)
    appendAll(held.rights, fresh.rights)
    // A key with new rows is counted by the scan for due keys, which follows (dueKeys); a due
    // key (no new rows) is not, it is counted here.
    evictAndWrite(key, held, out, existed = stored != null, countRows = fresh.size == 0)
    out.iterator
  }

  private def appendAll(to: ArrayBuffer[Entry], from: ArrayBuffer[Entry]): Unit = {
    var i = 0
    while (i < from.size) { to += from(i); i += 1 }
  }

  /**
   * The ends of a ROWS side's rows, in (rowtime, arrival) order per partition: the rowtime of the
   * `(n+1)`-th later row, or open. An end at or below `decided` (the watermark when the key was
   * last written) is final and stays: the rows that made it may be gone.
   */
  private def closeEnds(rows: ArrayBuffer[Entry], n: Long, partitionOf: UnsafeProjection, decided: Long): Unit =
    partitions(rows, partitionOf).foreach { part =>
      var i = 0
      while (i < part.size) {
        val e = part(i)
        if (e.end == Entry.Open || e.end > decided) {
          val k = i + n + 1
          e.end = if (k < part.size) part(k.toInt).start else Entry.Open
          e.endInclusive = false
        }
        i += 1
      }
    }

  /** A ROWS side's rows grouped by partition, each group in (rowtime, arrival) order. */
  private def partitions(rows: ArrayBuffer[Entry], partitionOf: UnsafeProjection): Iterable[ArrayBuffer[Entry]] = {
    val groups = new java.util.LinkedHashMap[UnsafeRow, ArrayBuffer[Entry]]()
    rows.foreach { e =>
      val p = partitionOf(e.row)
      var g = groups.get(p)
      if (g == null) { g = new ArrayBuffer[Entry](); groups.put(p.copy(), g) }
      g += e
    }
    val out = new ArrayBuffer[ArrayBuffer[Entry]](groups.size)
    groups.values().forEach(g => out += g.sortInPlaceWith((a, b) => a.start < b.start || (a.start == b.start && a.seq < b.seq)))
    out
  }

  /** docs/semantics.md §4: `x` and `y` match when their lives share a point and the condition holds. */
  private def tryMatch(x: Entry, y: Entry, out: JoinOutputs, decidedBefore: Long): Unit = {
    if (x.unmatchable || y.unmatchable || x.orderOnly || y.orderOnly) return
    val from = math.max(x.start, y.start)
    val to = math.min(x.end, y.end)
    val toInclusive =
      if (x.end < y.end) x.endInclusive else if (y.end < x.end) y.endInclusive else x.endInclusive && y.endInclusive
    if (from > to || (from == to && !toInclusive)) return
    // A ROWS life may still shrink until the watermark reaches `from`; a pair is decided once.
    // With `holdUntilFinal` it also waits for its end: the join above matches on the whole life.
    // Once the watermark reaches `to`, `to` is the pair's end for good, even with a ROWS window
    // still open: an end not final yet is above the watermark and can only shrink to the rowtime
    // of a row still to come, above the watermark too (docs/operator.md, "ROWS windows joined
    // again"). Before that, such a row can still end it sooner. A pair whose `decideAt` is at or
    // below `decidedBefore` was decided then.
    val decideAt = if (spec.holdUntilFinal) to else from
    if (hasRows && decideAt <= decidedBefore) return
    // The condition first: a pair that can never match neither keeps its rows nor holds anything.
    if (condition.isDefined && !condition.get.eval(pairRow(x.row, y.row))) return
    if (hasRows && decideAt > evictUs) {
      if (decideAt < pendingFrom) pendingFrom = decideAt
      if (from < pendingStart) pendingStart = from
      if (decideAt > x.pending) x.pending = decideAt
      if (decideAt > y.pending) y.pending = decideAt
      return
    }
    x.matched = true
    y.matched = true
    out.add(math.max(x.rowtime, y.rowtime), from, to, toInclusive, x.row, y.row)
  }

  /**
   * Drops the rows no later row can meet (padding unmatched rows of a preserved side once the
   * watermark has passed their ROWTIME), then writes the key's blob, or removes the key.
   */
  private def evictAndWrite(
      key: UnsafeRow, rows: KeyRows, out: JoinOutputs, existed: Boolean, countRows: Boolean): Unit = {
    val t0 = System.nanoTime()
    var due = pendingFrom
    def sweep(side: ArrayBuffer[Entry], preserved: Boolean, otherLag: Long, isLeft: Boolean,
        order: java.util.IdentityHashMap[Entry, Entry]): Unit = {
      var kept = 0
      var i = 0
      while (i < side.size) {
        val e = side(i)
        if (e.orderOnly) {
          if (order != null && order.containsKey(e)) { side(kept) = e; kept += 1 }
        } else {
          // The watermark from which no later row of the other side can meet e.
          val noMoreMatches = if (e.unmatchable) Long.MinValue else plus(e.end, otherLag)
          val pad = preserved && !e.matched
          val padAt = if (pad) math.max(e.rowtime, e.end) else Long.MinValue
          // Not while a pair of it waits for the watermark (ROWS windows).
          val dropAt = math.max(math.max(noMoreMatches, padAt), e.pending)
          if (dropAt <= evictUs) {
            if (pad) {
              counters.padded += 1
              if (isLeft) out.add(padAt, e.start, e.end, e.endInclusive, e.row, out.nullRight)
              else out.add(padAt, e.start, e.end, e.endInclusive, out.nullLeft, e.row)
            }
            if (order != null && order.containsKey(e)) { e.orderOnly = true; side(kept) = e; kept += 1 }
          } else {
            side(kept) = e
            kept += 1
            if (dropAt < due) due = dropAt
          }
        }
        i += 1
      }
      side.remove(kept, side.size - kept)
    }
    sweep(rows.lefts, spec.leftPreserved, rightLag, isLeft = true,
      spec.leftRows.map(n => lastFinal(rows.lefts, n, leftPartition.get)).orNull)
    sweep(rows.rights, spec.rightPreserved, leftLag, isLeft = false,
      spec.rightRows.map(n => lastFinal(rows.rights, n, rightPartition.get)).orNull)
    counters.evictNanos += System.nanoTime() - t0
    if (countRows) counters.stateRows += rows.size
    if (rows.size == 0) {
      if (existed) { store.remove(key, cf); counters.removedKeys += 1 }
    } else {
      val held = if (spec.holdUntilFinal) earliestOutputStart(rows) else Long.MaxValue
      if (held < counters.heldMin) counters.heldMin = held
      valueBuffer = JoinStateBlob.encodeRow(rows, due, evictUs, held, valueBuffer, valueRow)
      store.put(key, valueRow, cf)
      counters.updatedKeys += 1
    }
  }

  /**
   * The earliest life start of a row this key can still output from what it holds (with
   * `holdUntilFinal`, recorded as the key's `held`; docs/operator.md, "ROWS windows joined again"):
   * a pair still waiting for the watermark starts at its intersection's start, and an unmatched
   * row of a preserved side may still be padded, with its own life. Every other output row pairs
   * a held row with a row still to come, and starts no earlier than that row, after the watermark
   * (the caller's bound, [[org.apache.spark.sql.overjoin.HeldWatermark.bound]], covers those): a
   * held row whose window is still open does not hold anything back by itself. Pairs of held rows
   * that were neither decided nor are waiting never match (their lives do not meet, and ends only
   * shrink, or the condition is false).
   */
  private def earliestOutputStart(rows: KeyRows): Long = {
    var min = pendingStart
    def scan(side: ArrayBuffer[Entry], preserved: Boolean): Unit = if (preserved) {
      var i = 0
      while (i < side.size) {
        val e = side(i)
        if (!e.orderOnly && !e.matched && e.start < min) min = e.start
        i += 1
      }
    }
    scan(rows.lefts, spec.leftPreserved)
    scan(rows.rights, spec.rightPreserved)
    min
  }

  /**
   * The rows of a ROWS side that a later row may still need to find its position: per partition,
   * the last `n + 1` rows at or below the watermark (every later row comes after them).
   */
  private def lastFinal(rows: ArrayBuffer[Entry], n: Long, partitionOf: UnsafeProjection)
      : java.util.IdentityHashMap[Entry, Entry] = {
    val keep = new java.util.IdentityHashMap[Entry, Entry]()
    partitions(rows, partitionOf).foreach { part =>
      var i = part.size - 1
      var taken = 0L
      while (i >= 0 && taken <= n) {
        if (part(i).start <= evictUs) { keep.put(part(i), part(i)); taken += 1 }
        i -= 1
      }
    }
    keep
  }

  // The value row of the key being written, in one buffer reused for every key (the store copies).
  private val valueRow = new UnsafeRow(1)
  private var valueBuffer: Array[Byte] = null

  /** Keys without new rows: only those whose blob says something is due are decoded. */
  private def dueKeys(batch: java.util.HashMap[UnsafeRow, KeyRows]): Iterator[InternalRow] = {
    lazy val due = {
      val t0 = System.nanoTime()
      val due = new ArrayBuffer[(UnsafeRow, UnsafeRow)]()
      val it = store.iterator(cf)
      while (it.hasNext) {
        val pair = it.next()
        val v = pair.value
        val at = v.getBaseOffset + (v.getLong(0) >>> 32)
        // A key written this batch is due above evictUs (evictAndWrite), so it is counted here
        // with what it holds now; only a due key's key is looked up in the batch.
        if (JoinStateBlob.due(v.getBaseObject, at) <= evictUs) {
          if (!batch.containsKey(pair.key)) due += ((pair.key.copy(), v.copy()))
        } else {
          counters.stateRows += JoinStateBlob.rows(v.getBaseObject, at)
          if (spec.holdUntilFinal) {
            counters.heldMin = math.min(counters.heldMin, JoinStateBlob.held(v.getBaseObject, at))
          }
        }
      }
      counters.evictNanos += System.nanoTime() - t0
      due
    }
    // Collected first, written after: a store's iterator and its writes must not interleave. Each
    // key's output is consumed before the next key is joined (the output buffer is reused).
    val none = new KeyRows
    Iterator.single(()).flatMap(_ => due.iterator).flatMap { case (k, blob) =>
      joinKey(k, none, blob)
    }
  }
}

object JoinPartition {
  /** Positions in a side's `times` row: see [[io.overjoin.catalyst.plans.logical.JoinSide]]. */
  val EventTime = 0
  val Start = 1
  val End = 2
  val EndInclusive = 3
  val Rowtime = 4

  /** The late-events watermark before a query has one: no row is late. */
  val NoWatermark: Long = org.apache.spark.sql.overjoin.OverjoinStateWriter.NoWatermark

  /** `a + b`, saturating: `Entry.Open` or an unbounded lag stays unbounded. */
  def plus(a: Long, b: Long): Long = {
    if (a == Long.MaxValue || b == Long.MaxValue) Long.MaxValue
    else {
      val s = a + b
      if (((a ^ s) & (b ^ s)) < 0) (if (a > 0) Long.MaxValue else Long.MinValue) else s
    }
  }
}
