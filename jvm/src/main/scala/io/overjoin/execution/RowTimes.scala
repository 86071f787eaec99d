package io.overjoin.execution

import java.sql.Timestamp
import java.time.{Instant, LocalDateTime, ZoneOffset}

import org.apache.spark.sql.Row
import org.apache.spark.sql.streaming.GroupState

/** Timestamps as overjoin's stateful operators see them in rows: whichever Java type Spark hands over. */
private[execution] object RowTimes {

  /** Microseconds since the epoch (TIMESTAMP_NTZ read as UTC, as Spark's watermarks do); NULL sorts first. */
  def micros(v: Any): Long = v match {
    case t: Timestamp => t.getTime / 1000 * 1000000L + t.getNanos / 1000
    case i: Instant => i.getEpochSecond * 1000000L + i.getNano / 1000
    case l: LocalDateTime => micros(l.toInstant(ZoneOffset.UTC))
    case _ => Long.MinValue
  }

  /**
   * `rows` split by the time at `position`: those the group state's watermark has reached (final: a
   * row still to come is later, or it is late), and the others, which wait.
   */
  def dueAtWatermark(rows: Seq[Row], position: Int, state: GroupState[_]): (Seq[Row], Seq[Row]) = {
    val mark = state.getCurrentWatermarkMs() * 1000L
    rows.partition(r => micros(r.get(position)) <= mark)
  }

  /**
   * A one-group operator's rows (the `waiting` from its state, then the new `values`) that are due,
   * in `ROWTIME` order (rows of one `ROWTIME` in the order of their values), and those that wait: on
   * a stream those the watermark has reached ([[dueAtWatermark]]), over tables all of them.
   */
  def dueInOrder(waiting: Seq[Row], values: Iterator[Any], position: Int, state: GroupState[_],
      streaming: Boolean): (Seq[Row], Seq[Row]) = {
    val all = waiting ++ values.map(_.asInstanceOf[Row])
    val (ready, later) = if (streaming) dueAtWatermark(all, position, state) else (all, Seq.empty[Row])
    (ready.sortBy(r => (micros(r.get(position)), r.toString)), later)
  }

  /** An event-time timeout that calls the group again once the watermark reaches the earliest of `waiting`. */
  def wakeAtEarliest(state: GroupState[_], waiting: Seq[Row], position: Int): Unit =
    state.setTimeoutTimestamp(Math.floorDiv(waiting.map(r => micros(r.get(position))).min + 999L, 1000L))
}
