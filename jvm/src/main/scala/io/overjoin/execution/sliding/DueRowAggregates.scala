package io.overjoin.execution.sliding

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Ascending, Attribute, AttributeMap, BoundReference, CurrentRow, Expression, JoinedRow, MutableProjection, RangeFrame, RowFrame, SpecificInternalRow, SpecifiedWindowFrame, UnboundedPreceding, UnsafeProjection, UnsafeRow, WindowExpression, WindowSpecDefinition}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, Average, Complete, Count, DeclarativeAggregate, First, Last, Max, Min, NoOp, Sum}
import org.apache.spark.sql.types.{ByteType, DataType, DayTimeIntervalType, IntegerType, ShortType}

/**
 * The values of the due rows of a key, and of those only, when every window expression of a sliding
 * window is an aggregate (`COUNT`, `SUM`, `MIN`, `MAX`, `AVG`, `STDDEV`, `FIRST_VALUE`, ..., any
 * `DeclarativeAggregate` without `DISTINCT` or `FILTER`) over a frame with constant bounds.
 *
 * Spark's `WindowEvaluatorFactory` computes a value for every row it is given, and a key's rows
 * are all its held rows: most were emitted already, or are not due yet, and a sliding frame
 * aggregates its whole frame again for each row. Here only the due rows' frames are aggregated, in
 * one of two ways per frame (docs/operator.md, "Sliding windows"):
 *
 *  - '''in order''' (any aggregate): the frame's rows in (rowtime, arrival) order into a fresh
 *    buffer by the function's own initial, update and evaluate expressions, what Spark's sliding
 *    frame (`SlidingWindowFunctionFrame` with an `AggregateProcessor`) does;
 *  - '''incrementally''', for the functions of the frame that give the same buffer whatever way its
 *    rows are grouped ([[DueRowAggregates.groupingFree]]: `COUNT`, `MIN`, `MAX`, `FIRST_VALUE`,
 *    `LAST_VALUE`, and `SUM`/`AVG` of `TINYINT`/`SMALLINT`/`INT`, whose sums are exact): the due
 *    rows of a key come in order, so both ends of their frames only move forward, and the frames
 *    are a queue of rows. The queue is kept as two parts: its front as suffix buffers (the buffer
 *    of each of its rows and every front row after it, built by the functions' merge expressions
 *    when the front is taken) and its back as one running buffer (update expressions, in order).
 *    A frame's buffer is the merge of the front's suffix at its first row with the back, earlier
 *    rows always on the merge's left. Each row enters the back once and the front at most once
 *    (one projection: the merge with the row's own buffer as its left side), so a key's due rows
 *    cost a few buffer operations each instead of a whole frame each.
 *
 * Either way the values are Spark's: the in-order path is Spark's evaluation; the incremental one
 * is used only where regrouping the rows cannot change a buffer (integer sums below 2^53, the first
 * of equal minima kept since merges keep their left side on ties, as updates keep the buffer's).
 *
 * Frames: `RANGE` holds the rows whose rowtime is in [rowtime + lower, rowtime + upper] (peers
 * included; bounds in microseconds, a day-time interval added as Spark adds it), `ROWS` the rows
 * at positions [i + lower, i + upper] of the key's rows. A frame `UNBOUNDED PRECEDING AND CURRENT
 * ROW` is '''running''': every row of the key up to the current one (its peers too for `RANGE`),
 * which no key holds; its buffer over the key's emitted rows is kept in the state instead
 * ([[DueRowAggregates.hasRunning]]), loaded before a key's due rows and saved after them. The due
 * rows of a micro-batch are all later than every emitted row (a row at or below the last
 * eviction watermark is late), so they only ever extend it, in order. Other window expressions (`LAG`, whose
 * KDA meaning is built from several window functions; imperative aggregates) keep Spark's
 * evaluator ([[DueRowAggregates.of]] is None).
 *
 * An instance keeps buffers between calls: one task (one thread) uses it at a time.
 */
final class DueRowAggregates private (groups: Array[DueRowAggregates.FrameGroup], slots: Array[Int],
    exprs: Seq[Expression], childOutput: Seq[Attribute]) {

  private val values = new SpecificInternalRow(slots.indices.map(i => exprs(slots.indexOf(i)).dataType))
  private val joined = new JoinedRow
  private val project = UnsafeProjection.create(
    childOutput.zipWithIndex.map { case (a, j) => BoundReference(j, a.dataType, a.nullable) } ++
      exprs.indices.map(i => BoundReference(childOutput.size + slots(i), exprs(i).dataType, nullable = true)))

  /**
   * The output rows (input columns, then the window values), copied, of the rows of one key that
   * `due` marks, in the rows' order, appended to `out`. `rows` are the key's rows in (rowtime,
   * arrival) order.
   */
  def evalDue(rows: scala.collection.IndexedSeq[HeldRow], due: Array[Boolean], out: ArrayBuffer[UnsafeRow]): Unit =
    evalDue(rows, due, out, null)

  /**
   * [[evalDue]] for a key whose running frames' buffers over its emitted rows are `saved` (a row
   * of [[runningSchema]], null: none yet); [[savedRunning]] then has them over its due rows too.
   */
  def evalDue(rows: scala.collection.IndexedSeq[HeldRow], due: Array[Boolean], out: ArrayBuffer[UnsafeRow],
      saved: InternalRow): Unit = {
    var g = 0
    var offset = 0
    while (g < groups.length) { groups(g).startKey(rows, saved, offset); offset += groups(g).runningWidth; g += 1 }
    var i = 0
    while (i < rows.size) {
      if (due(i)) {
        g = 0
        while (g < groups.length) { groups(g).evaluate(i, values); g += 1 }
        out += project(joined(rows(i).row, values)).copy()
      }
      i += 1
    }
  }

  private val runningGroups = groups.filter(_.running)
  private val runningTypes = runningGroups.flatMap(_.bufferTypes).toSeq

  /** Whether a frame is running (UNBOUNDED PRECEDING): the state keeps its buffers. */
  def hasRunning: Boolean = runningGroups.nonEmpty

  /** The types of the running frames' buffers, in the row [[savedRunning]] gives. */
  def runningSchema: Seq[DataType] = runningTypes

  private lazy val runningRow = new SpecificInternalRow(runningTypes)
  private lazy val runningProjection = UnsafeProjection.create(runningTypes.toArray)

  /** The running frames' buffers after the last [[evalDue]], over every row emitted so far (a copy). */
  def savedRunning(): UnsafeRow = {
    var offset = 0
    runningGroups.foreach { g => g.saveRunning(runningRow, offset); offset += g.runningWidth }
    runningProjection(runningRow).copy()
  }
}

object DueRowAggregates {

  /** Rows of a key past which the integer sums of an incremental frame could leave 2^53. */
  private val MaxIncrementalRows = 1 << 22

  /**
   * Whether a function's buffer over some rows is the same however the rows are grouped into
   * partial buffers that are merged in order: true of counts, extremes (merges, like updates, keep
   * the earlier of equal values), first and last values, and sums of small integers (exact as
   * longs, and as doubles for AVG while below 2^53).
   */
  def groupingFree(f: DeclarativeAggregate): Boolean = f match {
    case _: Count | _: Min | _: Max | _: First | _: Last => true
    case s: Sum => smallIntegral(s.child.dataType)
    case a: Average => smallIntegral(a.child.dataType)
    case _ => false
  }

  private def smallIntegral(t: DataType): Boolean = t match {
    case ByteType | ShortType | IntegerType => true
    case _ => false
  }

  /** The aggregates over one frame: their buffers and Spark's projections of them. */
  private final class FrameGroup(range: Boolean, lower: Long, upper: Long, functions: Seq[DeclarativeAggregate],
      ordinal: Int, childOutput: Seq[Attribute], val incremental: Boolean) {
    private val bufferAttrs = functions.flatMap(_.aggBufferAttributes)
    val bufferTypes: Seq[DataType] = bufferAttrs.map(_.dataType)
    /** UNBOUNDED PRECEDING AND CURRENT ROW: every row of the key up to the current one. */
    val running: Boolean = lower == Long.MinValue
    def runningWidth: Int = if (running) bufferTypes.size else 0
    private val buffer = new SpecificInternalRow(bufferTypes)
    private val init: MutableProjection = MutableProjection.create(functions.flatMap(_.initialValues), Nil)
    private val update: MutableProjection =
      MutableProjection.create(functions.flatMap(_.updateExpressions), bufferAttrs ++ childOutput)
    private val result: MutableProjection =
      MutableProjection.create(Seq.fill(ordinal)(NoOp) ++ functions.map(_.evaluateExpression), bufferAttrs)
    private val inputBufferAttrs = functions.flatMap(_.inputAggBufferAttributes)
    private val merge: MutableProjection =
      if (!incremental) null else MutableProjection.create(functions.flatMap(_.mergeExpressions), bufferAttrs ++ inputBufferAttrs)
    // One row's buffer merged, as the earlier side, with a buffer (`joined(row, buffer)`) in one
    // projection: the merge expressions with their left buffer replaced by the row's own buffer,
    // which is the update expressions applied to the initial values.
    private val prepend: MutableProjection =
      if (!incremental) null
      else {
        val initial = AttributeMap(bufferAttrs.zip(functions.flatMap(_.initialValues)))
        val own = AttributeMap(bufferAttrs.zip(functions.flatMap(_.updateExpressions).map(_.transformUp {
          case a: Attribute if initial.contains(a) => initial(a)
        })))
        MutableProjection.create(functions.flatMap(_.mergeExpressions).map(_.transformUp {
          case a: Attribute if own.contains(a) => own(a)
        }), childOutput ++ inputBufferAttrs)
      }
    private val joined = new JoinedRow

    // The key's rows, and the frame of the last due row evaluated (both ends only move forward).
    private var rows: scala.collection.IndexedSeq[HeldRow] = IndexedSeq.empty
    private var from = 0
    private var to = -1
    private var byQueue = false
    // The queue (incremental): front rows [frontStart, frontEnd) as suffix buffers, back rows
    // [frontEnd, backEnd) in one running buffer.
    private val suffixes = ArrayBuffer.empty[SpecificInternalRow]
    private val back = new SpecificInternalRow(bufferTypes)
    private var frontStart = 0
    private var frontEnd = 0
    private var backEnd = 0

    // A running frame: its buffer over the key's emitted rows and the due rows before `runPos`.
    private lazy val runBuf = new SpecificInternalRow(bufferTypes)
    private var runPos = 0

    def startKey(keyRows: scala.collection.IndexedSeq[HeldRow], saved: InternalRow, offset: Int): Unit = {
      if (running) {
        if (saved == null) initInto(runBuf)
        else {
          var f = 0
          while (f < bufferTypes.size) { runBuf.update(f, saved.get(offset + f, bufferTypes(f))); f += 1 }
        }
        runPos = 0
      }
      rows = keyRows
      from = 0
      to = -1
      byQueue = incremental && keyRows.size < MaxIncrementalRows
      frontStart = 0
      frontEnd = 0
      backEnd = 0
      initInto(back)
    }

    private def initInto(target: InternalRow): Unit = { init.target(target); init(InternalRow.empty) }

    private def updateInto(target: InternalRow, j: Int): Unit = { update.target(target); update(joined(target, rows(j).row)) }

    /** The frame of rows(i): [from, to] (empty when from > to); i only grows within a key. */
    private def frameOf(i: Int): Unit = {
      val n = rows.size
      if (range) {
        val t = rows(i).rowtime
        val lo = t + lower
        val hi = t + upper
        while (from < n && rows(from).rowtime < lo) from += 1
        if (to < from - 1) to = from - 1
        while (to + 1 < n && rows(to + 1).rowtime <= hi) to += 1
      } else {
        from = math.max(0, i + lower.toInt)
        to = math.min(n - 1, i + upper.toInt)
      }
    }

    /** The running buffer into `target`'s fields from `offset` on. */
    def saveRunning(target: InternalRow, offset: Int): Unit = {
      var f = 0
      while (f < bufferTypes.size) { target.update(offset + f, runBuf.get(f, bufferTypes(f))); f += 1 }
    }

    def evaluate(i: Int, target: InternalRow): Unit = {
      if (running) {
        // The rows up to the current one (and its peers for RANGE) join the buffer, in order; the
        // emitted ones are in it already.
        var end = i
        if (range) { val t = rows(i).rowtime; while (end + 1 < rows.size && rows(end + 1).rowtime == t) end += 1 }
        while (runPos <= end) { if (!rows(runPos).emitted) updateInto(runBuf, runPos); runPos += 1 }
        result.target(target)
        result(runBuf)
        return
      }
      frameOf(i)
      val buf = if (from > to) { initInto(buffer); buffer } else if (byQueue) queued() else inOrder()
      result.target(target)
      result(buf)
    }

    /** The frame's buffer, its rows in order into a fresh buffer (Spark's way). */
    private def inOrder(): InternalRow = {
      initInto(buffer)
      update.target(buffer)
      var j = from
      while (j <= to) { update(joined(buffer, rows(j).row)); j += 1 }
      buffer
    }

    private def suffix(j: Int): SpecificInternalRow = {
      while (suffixes.size <= j - frontStart) suffixes += new SpecificInternalRow(bufferTypes)
      suffixes(j - frontStart)
    }

    /** The frame's buffer from the queue (see the class). */
    private def queued(): InternalRow = {
      if (from >= backEnd) { // no row held is in the frame: its rows become the front
        takeFront(from, to + 1)
        return suffix(from)
      }
      while (backEnd <= to) { updateInto(back, backEnd); backEnd += 1 }
      if (from == frontEnd) return back
      if (from > frontEnd) { // the front is used up: the back's rows from `from` become the front
        takeFront(from, backEnd)
        return suffix(from)
      }
      if (frontEnd == backEnd) return suffix(from)
      merge.target(buffer)
      merge(joined(suffix(from), back))
      buffer
    }

    /** Rows [start, end) as the front (suffix buffers, built from the last row back), the back empty. */
    private def takeFront(start: Int, end: Int): Unit = {
      frontStart = start
      frontEnd = end
      backEnd = end
      initInto(back)
      val last = suffix(end - 1)
      initInto(last)
      updateInto(last, end - 1)
      var j = end - 2
      while (j >= start) {
        prepend.target(suffix(j))
        prepend(joined(rows(j).row, suffix(j + 1)))
        j -= 1
      }
    }
  }

  private def bound(range: Boolean, e: Expression): Option[Long] = e match {
    case CurrentRow => Some(0L)
    case UnboundedPreceding => Some(Long.MinValue)
    case b if b.foldable && range && b.dataType.isInstanceOf[DayTimeIntervalType] =>
      Option(b.eval()).map(_.asInstanceOf[Long])
    case b if b.foldable && !range && b.dataType == IntegerType => Option(b.eval()).map(_.asInstanceOf[Int].toLong)
    case _ => None
  }

  private final case class Frame(range: Boolean, lower: Long, upper: Long)

  private def frameOf(e: Expression): Option[(Frame, DeclarativeAggregate)] = e match {
    case Alias(WindowExpression(ae: AggregateExpression, WindowSpecDefinition(_, _, f: SpecifiedWindowFrame)), _)
        if ae.mode == Complete && !ae.isDistinct && ae.filter.isEmpty =>
      val range = f.frameType match {
        case RangeFrame => Some(true)
        case RowFrame => Some(false)
        case _ => None
      }
      (ae.aggregateFunction, range) match {
        case (d: DeclarativeAggregate, Some(r)) if !d.isInstanceOf[org.apache.spark.sql.catalyst.expressions.SizeBasedWindowFunction] =>
          for (lo <- bound(r, f.lower); hi <- bound(r, f.upper) if lo != Long.MinValue || hi == 0L)
            yield (Frame(r, lo, hi), d)
        case _ => None
      }
    case _ => None
  }

  /** Whether a window expression's frame is `UNBOUNDED PRECEDING` (a running frame: see the class). */
  def isRunning(e: Expression): Boolean = e.exists {
    case WindowSpecDefinition(_, _, f: SpecifiedWindowFrame) => f.lower == UnboundedPreceding
    case _ => false
  }

  /** Whether a window expression can be evaluated here (see the class); running frames only so. */
  def evaluable(e: Expression): Boolean = frameOf(e).isDefined

  /**
   * The evaluation of the due rows alone, when every window expression allows it (see the class);
   * `incremental = false` aggregates every frame in order (spark.overjoin.sliding.evaluation = due).
   */
  def of(spec: SlidingTaskSpec, incremental: Boolean = true): Option[DueRowAggregates] = {
    if (spec.orderSpec.size != 1 || spec.orderSpec.head.direction != Ascending) return None
    val found = spec.windowExpressions.map(frameOf)
    if (found.exists(_.isEmpty)) return None
    // One group per frame and way of evaluation: the functions of a frame that allow it are
    // evaluated incrementally even when others over the same frame are not.
    val byFrame = found.flatten.zipWithIndex
      .groupBy { case ((frame, f), _) => (frame, incremental && groupingFree(f) && frame.lower != Long.MinValue) }
      .toSeq.sortBy(_._2.head._2)
    val slots = new Array[Int](found.size)
    var ordinal = 0
    val groups = byFrame.map { case ((frame, byQueue), members) =>
      val group = new FrameGroup(frame.range, frame.lower, frame.upper, members.map(_._1._2), ordinal,
        spec.childOutput, byQueue)
      members.foreach { case (_, i) => slots(i) = ordinal; ordinal += 1 }
      group
    }
    Some(new DueRowAggregates(groups.toArray, slots, spec.windowExpressions, spec.childOutput))
  }
}
