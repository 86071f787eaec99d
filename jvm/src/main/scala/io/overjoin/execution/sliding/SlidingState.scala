package io.overjoin.execution.sliding

import java.nio.ByteBuffer

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

import io.overjoin.errors.OverjoinErrors
import io.overjoin.execution.state.Varints

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
 *   byte  format (2)
 *   int   rows
 *   per row: byte emitted | varlong rowtime - the previous row's | varlong seq - the previous
 *            row's | varint length | row bytes
 * }}}
 * A `varlong` is a zigzag-encoded LEB128 number (the first row's differences are from 0), as in
 * the join's format 3 ([[io.overjoin.execution.join.JoinStateBlob]]): a row's header is a few
 * bytes instead of format 1's 21 (long rowtime | long seq | byte emitted | int length), which is
 * still read. Rows are kept in (rowtime, seq) order. Next to the blob the value holds `pending`:
 * the smallest rowtime of a row not emitted yet (`Long.MaxValue`: none), which the scan for due
 * keys reads without decoding the blob. A stagger window keeps its rows in the same blob.
 */
object SlidingState {
  val Format: Byte = 2
  private val Format1: Byte = 1
  val NoPending: Long = Long.MaxValue

  def encode(rows: scala.collection.Seq[HeldRow]): Array[Byte] = {
    val bytes = new Array[Byte](encodedSize(rows))
    write(rows, ByteBuffer.wrap(bytes))
    bytes
  }

  private def encodedSize(rows: scala.collection.Seq[HeldRow]): Int = {
    var size = 5
    var rowtime = 0L
    var seq = 0L
    rows.foreach { r =>
      val len = r.row.getSizeInBytes
      size += 1 + Varints.size(Varints.zigzag(r.rowtime - rowtime)) + Varints.size(Varints.zigzag(r.seq - seq)) +
        Varints.size(len.toLong) + len
      rowtime = r.rowtime
      seq = r.seq
    }
    size
  }

  private def write(rows: scala.collection.Seq[HeldRow], buf: ByteBuffer): Unit = {
    buf.put(Format).putInt(rows.size)
    var rowtime = 0L
    var seq = 0L
    rows.foreach { r =>
      buf.put(if (r.emitted) 1.toByte else 0.toByte)
      putUnsigned(buf, Varints.zigzag(r.rowtime - rowtime))
      putUnsigned(buf, Varints.zigzag(r.seq - seq))
      putUnsigned(buf, r.row.getSizeInBytes.toLong)
      r.row.writeTo(buf)
      rowtime = r.rowtime
      seq = r.seq
    }
  }

  private def putUnsigned(buf: ByteBuffer, value: Long): Unit = {
    var v = value
    while ((v & ~0x7fL) != 0) { buf.put(((v & 0x7f) | 0x80).toByte); v >>>= 7 }
    buf.put(v.toByte)
  }

  private def getUnsigned(buf: ByteBuffer): Long = {
    var result = 0L
    var shift = 0
    var b = 0
    while ({ b = buf.get(); result |= (b & 0x7fL) << shift; shift += 7; (b & 0x80) != 0 }) ()
    result
  }

  /**
   * The state value of a key: the row `(pending: Long, rows: Binary)` of the sliding window's value
   * schema, and with `running` (a window with running frames, UNBOUNDED PRECEDING) a third field,
   * `running: Binary`, the bytes of the frames' buffers over the key's emitted rows (empty: none
   * yet). The blob `encode(rows)` is written in place, so it is not copied again into a
   * projection's buffer. The bytes are those `UnsafeProjection` writes for that row: a null bitset
   * word, `pending`, the offset and size of each binary field, then each one padded with zeros to a
   * word.
   */
  def valueRow(pending: Long, rows: scala.collection.Seq[HeldRow], running: Option[Array[Byte]] = None): UnsafeRow = {
    val fields = if (running.isDefined) 3 else 2
    val run = running.getOrElse(Array.emptyByteArray)
    val size = encodedSize(rows)
    val fixed = 8 + 8 * fields
    val padded = (size + 7) & ~7
    val bytes = new Array[Byte](fixed + padded + ((run.length + 7) & ~7))
    Platform.putLong(bytes, Platform.BYTE_ARRAY_OFFSET + 8, pending)
    Platform.putLong(bytes, Platform.BYTE_ARRAY_OFFSET + 16, (fixed.toLong << 32) | size.toLong)
    if (running.isDefined) {
      Platform.putLong(bytes, Platform.BYTE_ARRAY_OFFSET + 24, ((fixed + padded).toLong << 32) | run.length.toLong)
      System.arraycopy(run, 0, bytes, fixed + padded, run.length)
    }
    write(rows, ByteBuffer.wrap(bytes, fixed, size))
    val row = new UnsafeRow(fields)
    row.pointTo(bytes, bytes.length)
    row
  }

  /**
   * The blob in binary field `ordinal` of a state value, as a buffer at its first byte: over the
   * value's own bytes when they are a byte array (no copy; the store never changes a value it
   * returned: a put stores a new one), else over a copy.
   */
  def blobOf(value: UnsafeRow, ordinal: Int): ByteBuffer = value.getBaseObject match {
    case bytes: Array[Byte] =>
      val offsetAndSize = value.getLong(ordinal)
      val start = (value.getBaseOffset - Platform.BYTE_ARRAY_OFFSET + (offsetAndSize >>> 32)).toInt
      ByteBuffer.wrap(bytes, start, offsetAndSize.toInt).slice()
    case _ => ByteBuffer.wrap(value.getBinary(ordinal))
  }

  /** The number of rows in a blob, read from its header. */
  def rowCount(blob: ByteBuffer): Int = blob.getInt(1)

  /**
   * The rows of a blob. Each row points into `bytes` (no copy per row), so `bytes` must not change
   * while the rows are in use. `operator` names whose state it is in OJ401 ("a sliding window").
   */
  def decode(bytes: Array[Byte], numFields: Int, operator: String): ArrayBuffer[HeldRow] =
    decode(ByteBuffer.wrap(bytes), numFields, operator)

  /**
   * The rows of a blob in `blob` (from its position 0, a buffer over an array: [[blobOf]]), each
   * pointing into the array, which must not change while the rows are in use.
   */
  def decode(blob: ByteBuffer, numFields: Int, operator: String): ArrayBuffer[HeldRow] = {
    val buf = blob
    val bytes = buf.array()
    val base = Platform.BYTE_ARRAY_OFFSET + buf.arrayOffset()
    val format = buf.get()
    if (format != Format && format != Format1) {
      throw OverjoinErrors.stateFormat(operator, format.toInt, s"$Format1 and $Format")
    }
    val n = buf.getInt()
    val out = new ArrayBuffer[HeldRow](n)
    var rowtime = 0L
    var seq = 0L
    var i = 0
    while (i < n) {
      var emitted = false
      var len = 0
      if (format == Format) {
        emitted = buf.get() != 0
        rowtime += Varints.unzigzag(getUnsigned(buf))
        seq += Varints.unzigzag(getUnsigned(buf))
        len = getUnsigned(buf).toInt
      } else {
        rowtime = buf.getLong()
        seq = buf.getLong()
        emitted = buf.get() != 0
        len = buf.getInt()
      }
      val row = new UnsafeRow(numFields)
      row.pointTo(bytes, base + buf.position(), len)
      buf.position(buf.position() + len)
      out += HeldRow(rowtime, seq, emitted, row)
      i += 1
    }
    out
  }

  /** (rowtime, seq) order: the order of a key's rows. */
  val Order: Ordering[HeldRow] = new Ordering[HeldRow] {
    def compare(a: HeldRow, b: HeldRow): Int = {
      val c = java.lang.Long.compare(a.rowtime, b.rowtime)
      if (c != 0) c else java.lang.Long.compare(a.seq, b.seq)
    }
  }

  /** `held` (in order) and `added` (any order) in one sequence in (rowtime, seq) order. */
  def merged(held: scala.collection.IndexedSeq[HeldRow], added: scala.collection.Seq[HeldRow]): ArrayBuffer[HeldRow] = {
    val news = added.toArray
    java.util.Arrays.sort(news, Order)
    val out = new ArrayBuffer[HeldRow](held.size + news.length)
    var i = 0
    var j = 0
    while (i < held.size || j < news.length) {
      if (j >= news.length || (i < held.size && Order.compare(held(i), news(j)) <= 0)) { out += held(i); i += 1 }
      else { out += news(j); j += 1 }
    }
    out
  }

  def pending(rows: scala.collection.Seq[HeldRow]): Long = {
    var min = NoPending
    rows.foreach(r => if (!r.emitted && r.rowtime < min) min = r.rowtime)
    min
  }
}
