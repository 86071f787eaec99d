package io.overjoin.execution.stagger

import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, Expression, GenericInternalRow, JoinedRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.types.StructType

import io.overjoin.execution.sliding.{HeldRow, SlidingState}

/** What a stagger window's task needs besides its rows (serializable, sent to tasks). */
final case class StaggerTaskSpec(
    keys: Seq[Expression],
    rowtime: Expression,
    sizeMicros: Long,
    childOutput: Seq[Attribute],
    output: Seq[Attribute],
    valueSchema: StructType)

/** What a task counts, for the operator's metrics. */
final class StaggerCounters {
  var dropped = 0L
  var stateRows = 0L
  var updatedKeys = 0L
  var removedKeys = 0L
}

/**
 * The window rule of a stagger window (docs/semantics.md §13), row by row in rowtime order within
 * one key: a row opens a window at its rowtime when none is open (`open` is [[StaggerRule.NoOpen]],
 * or the open window ended at or before the row), else it is in the open one.
 */
final class StaggerRule(spec: StaggerTaskSpec) {
  private val toOutput = UnsafeProjection.create(spec.output, spec.childOutput ++ spec.output.takeRight(2))
  private val extra = new GenericInternalRow(2)
  private val joined = new JoinedRow

  /** The window start of a row at `t` given the key's open window start `open`. */
  def startFor(open: Long, t: Long): Long =
    if (open == StaggerRule.NoOpen || t >= open + spec.sizeMicros) t else open

  /** `row` with its window's start and end after its columns (a copy: the caller may keep it). */
  def output(row: InternalRow, start: Long): UnsafeRow = {
    extra.update(0, start)
    extra.update(1, start + spec.sizeMicros)
    toOutput(joined(row, extra)).copy()
  }
}

object StaggerRule {
  val NoOpen: Long = Long.MinValue
}

/**
 * The work of one shuffle partition of a stagger window on a stream in one micro-batch
 * (docs/operator.md, "Stagger windows"). The state of a key is its open window's start and the
 * rows that wait for the watermark (the sliding window's row blob, [[SlidingState]]):
 *
 *  1. the batch's rows, by key; a row at or below the late-rows watermark is dropped and counted;
 *  2. the keys to visit: those with new rows, those with a waiting row the eviction watermark has
 *     reached, and those whose open window the watermark has passed (to forget them);
 *  3. per key, the waiting rows the watermark has reached, in (rowtime, arrival) order, get their
 *     window by the rule ([[StaggerRule]]) and go out with its start and end (every earlier row of
 *     the key has arrived: a later one would be late); the others wait;
 *  4. a key with no waiting row and no open window the watermark has not passed is removed.
 */
final class StaggerPartition(spec: StaggerTaskSpec, store: StateStore, lateUs: Long, evictUs: Long, batchId: Long,
    counters: StaggerCounters) {

  private val numFields = spec.childOutput.size
  private val toUnsafe = UnsafeProjection.create(spec.childOutput.map(_.dataType).toArray)
  private val keyOf = UnsafeProjection.create(spec.keys, spec.childOutput)
  private val rowtimeOf = BindReferences.bindReference(spec.rowtime, spec.childOutput)
  private val valueOf = UnsafeProjection.create(spec.valueSchema)
  private val rule = new StaggerRule(spec)
  private val noWatermark = StaggerPartition.NoWatermark

  def run(input: Iterator[InternalRow]): Iterator[InternalRow] = {
    val fresh = mutable.LinkedHashMap.empty[UnsafeRow, ArrayBuffer[HeldRow]]
    var seq = 0L
    input.foreach { row =>
      val rt = rowtimeOf.eval(row)
      if (rt != null) {
        val t = rt.asInstanceOf[Long]
        if (t <= lateUs) counters.dropped += 1
        else {
          fresh.getOrElseUpdate(keyOf(row).copy(), ArrayBuffer.empty) +=
            HeldRow(t, (batchId << 32) | seq, emitted = false, toUnsafe(row).copy())
          seq += 1
        }
      }
    }
    val due = ArrayBuffer.empty[UnsafeRow]
    var stateRows = 0L
    store.iterator().foreach { pair =>
      if (!fresh.contains(pair.key)) {
        val open = pair.value.getLong(0)
        val pending = pair.value.getLong(1)
        val closed = open == StaggerRule.NoOpen || open + spec.sizeMicros <= evictUs
        if (evictUs != noWatermark && (pending <= evictUs || (pending == SlidingState.NoPending && closed))) {
          due += pair.key.copy()
        } else stateRows += java.nio.ByteBuffer.wrap(pair.value.getBinary(2), 1, 4).getInt()
      }
    }
    val out = ArrayBuffer.empty[InternalRow]
    def visit(key: UnsafeRow, added: Seq[HeldRow]): Unit = {
      val stored = Option(store.get(key))
      var open = stored.map(_.getLong(0)).getOrElse(StaggerRule.NoOpen)
      val held = stored.map(v => SlidingState.decode(v.getBinary(2), numFields, "a stagger window")).getOrElse(ArrayBuffer.empty)
      val rows = if (added.isEmpty) held else SlidingState.merged(held, added)
      val (ready, waiting) =
        if (evictUs == noWatermark) (IndexedSeq.empty, rows) else rows.partition(_.rowtime <= evictUs)
      ready.foreach { r =>
        open = rule.startFor(open, r.rowtime)
        out += rule.output(r.row, open)
      }
      stateRows += waiting.size
      val closed = open == StaggerRule.NoOpen || (evictUs != noWatermark && open + spec.sizeMicros <= evictUs)
      if (waiting.isEmpty && closed) {
        if (stored.isDefined) { store.remove(key); counters.removedKeys += 1 }
      } else if (added.nonEmpty || ready.nonEmpty) {
        store.put(key, valueOf(new GenericInternalRow(Array[Any](open, SlidingState.pending(waiting.toSeq),
          SlidingState.encode(waiting.toSeq)))))
        counters.updatedKeys += 1
      }
    }
    fresh.foreach { case (key, added) => visit(key, added.toSeq) }
    due.foreach(key => visit(key, Nil))
    counters.stateRows = stateRows
    out.iterator
  }
}

object StaggerPartition {
  val NoWatermark: Long = org.apache.spark.sql.overjoin.OverjoinStateWriter.NoWatermark
}
