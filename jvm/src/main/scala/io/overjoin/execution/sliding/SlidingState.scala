package io.overjoin.execution.sliding

import java.nio.ByteBuffer

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.expressions.UnsafeRow

import io.overjoin.errors.OverjoinErrors

/**
 * One input row a sliding window holds: its rowtime (microseconds), its arrival order (`seq`: the
 * micro-batch, then its place in the task's input), whether its output row has been emitted, and
 * the row itself.
 */
final case class HeldRow(rowtime: Long, seq: Long, emitted: Boolean, row: UnsafeRow)

/**
 * The state of one partition key of a sliding window, one blob per key in the state store's value
 * (docs/operator.md, "Sliding windows"):
 * {{{
 *   byte  format (1)
 *   int   rows
 *   per row: long rowtime | long seq | byte emitted | int length | row bytes
 * }}}
 * Rows are kept in (rowtime, seq) order. Next to the blob the value holds `pending`: the smallest
 * rowtime of a row not emitted yet (`Long.MaxValue`: none), which the scan for due keys reads
 * without decoding the blob.
 */
object SlidingState {
  val Format: Byte = 1
  val NoPending: Long = Long.MaxValue

  def encode(rows: Seq[HeldRow]): Array[Byte] = {
    val size = 5 + rows.map(r => 21 + r.row.getSizeInBytes).sum
    val buf = ByteBuffer.allocate(size)
    buf.put(Format).putInt(rows.size)
    rows.foreach { r =>
      buf.putLong(r.rowtime).putLong(r.seq).put(if (r.emitted) 1.toByte else 0.toByte).putInt(r.row.getSizeInBytes)
      buf.put(r.row.getBytes)
    }
    buf.array()
  }

  def decode(bytes: Array[Byte], numFields: Int): ArrayBuffer[HeldRow] = {
    val buf = ByteBuffer.wrap(bytes)
    val format = buf.get()
    if (format != Format) throw OverjoinErrors.stateFormat(format.toInt, Format.toString)
    val n = buf.getInt()
    val out = new ArrayBuffer[HeldRow](n)
    var i = 0
    while (i < n) {
      val rowtime = buf.getLong()
      val seq = buf.getLong()
      val emitted = buf.get() != 0
      val len = buf.getInt()
      val data = new Array[Byte](len)
      buf.get(data)
      val row = new UnsafeRow(numFields)
      row.pointTo(data, len)
      out += HeldRow(rowtime, seq, emitted, row)
      i += 1
    }
    out
  }

  def pending(rows: Seq[HeldRow]): Long = {
    var min = NoPending
    rows.foreach(r => if (!r.emitted && r.rowtime < min) min = r.rowtime)
    min
  }
}
