package io.overjoin.execution.sliding

import java.nio.ByteBuffer

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

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

  def encode(rows: scala.collection.Seq[HeldRow]): Array[Byte] = {
    var size = 5
    rows.foreach(r => size += 21 + r.row.getSizeInBytes)
    val buf = ByteBuffer.allocate(size)
    buf.put(Format).putInt(rows.size)
    rows.foreach { r =>
      buf.putLong(r.rowtime).putLong(r.seq).put(if (r.emitted) 1.toByte else 0.toByte).putInt(r.row.getSizeInBytes)
      r.row.writeTo(buf)
    }
    buf.array()
  }

  /**
   * The rows of a blob. Each row points into `bytes` (no copy per row), so `bytes` must not change
   * while the rows are in use: the blob read from the store's value is a copy of its own.
   */
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
      val row = new UnsafeRow(numFields)
      row.pointTo(bytes, Platform.BYTE_ARRAY_OFFSET + buf.position(), len)
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

/**
 * What the state holds of one key of a sliding window in layout 2 (docs/operator.md, "Sliding
 * windows"): the key's rows are kept in time buckets of `width` microseconds (a row's bucket is
 * `floorDiv(rowtime, width)`), one state store entry per (key, bucket), and this header, one more
 * entry per key, lists them. `emittedThrough` is the eviction watermark of the key's last visit:
 * every held row at or below it has been emitted, every row above it has not (a row is emitted in
 * the batch whose watermark reaches it, and a key whose `pending` the watermark reaches is visited),
 * so no row carries a flag of its own and emitting a row rewrites nothing. `pending` is the smallest
 * rowtime of a row not emitted (`NoPending`: none).
 */
final class KeyHeader(var pending: Long, var emittedThrough: Long, val width: Long, var ids: Array[Long],
    var counts: Array[Int]) {
  def rows: Long = { var n = 0L; var i = 0; while (i < counts.length) { n += counts(i); i += 1 }; n }
}

/**
 * Layout 2 of a sliding window's state: a header entry per key (its bucket is [[HeaderBucket]]) and
 * a row entry per (key, time bucket). Both are values of the operator's schema `(pending, rows)`:
 * {{{
 *   header: pending = the key's pending | rows = byte format (2), long emittedThrough, long width,
 *           int buckets, per bucket: long id | int rows
 *   bucket: pending = BucketEntry       | rows = byte format (2), int rows,
 *           per row: long rowtime | long seq | int length | row bytes
 * }}}
 * A bucket's rows are in (rowtime, seq) order, so the buckets in id order are the key's rows in order.
 * Numbers are in the platform's byte order (`Platform`), read in place from the store's value.
 */
object SlidingBuckets {
  val Format: Byte = 2
  /** The bucket id of a key's header entry. */
  val HeaderBucket: Long = Long.MinValue
  /** The `pending` column of a bucket entry (a header's is a rowtime or `NoPending`). */
  val BucketEntry: Long = Long.MinValue

  private val Base = Platform.BYTE_ARRAY_OFFSET

  def encodeHeader(h: KeyHeader): Array[Byte] = {
    val out = new Array[Byte](21 + 12 * h.ids.length)
    out(0) = Format
    Platform.putLong(out, Base + 1, h.emittedThrough)
    Platform.putLong(out, Base + 9, h.width)
    Platform.putInt(out, Base + 17, h.ids.length)
    var i = 0
    while (i < h.ids.length) {
      Platform.putLong(out, Base + 21 + 12 * i, h.ids(i))
      Platform.putInt(out, Base + 29 + 12 * i, h.counts(i))
      i += 1
    }
    out
  }

  /** The header in `value` (a state value `(pending, rows)` of a header entry). */
  def decodeHeader(value: UnsafeRow): KeyHeader = {
    val (base, at, _) = binaryAt(value, 1)
    checkFormat(Platform.getByte(base, at))
    val n = Platform.getInt(base, at + 17)
    val ids = new Array[Long](n)
    val counts = new Array[Int](n)
    var i = 0
    while (i < n) {
      ids(i) = Platform.getLong(base, at + 21 + 12 * i)
      counts(i) = Platform.getInt(base, at + 29 + 12 * i)
      i += 1
    }
    new KeyHeader(value.getLong(0), Platform.getLong(base, at + 1), Platform.getLong(base, at + 9), ids, counts)
  }

  /** Rows `from` until `until` of `rows` as a bucket's blob. */
  def encodeBucket(rows: scala.collection.IndexedSeq[HeldRow], from: Int, until: Int): Array[Byte] = {
    var size = 5
    var i = from
    while (i < until) { size += 20 + rows(i).row.getSizeInBytes; i += 1 }
    val out = new Array[Byte](size)
    out(0) = Format
    Platform.putInt(out, Base + 1, until - from)
    var at = Base + 5L
    i = from
    while (i < until) {
      val r = rows(i)
      val len = r.row.getSizeInBytes
      Platform.putLong(out, at, r.rowtime)
      Platform.putLong(out, at + 8, r.seq)
      Platform.putInt(out, at + 16, len)
      r.row.writeToMemory(out, at + 20)
      at += 20 + len
      i += 1
    }
    out
  }

  /**
   * The rows of the bucket in `value`, appended to `out`; a row is emitted when its rowtime is at or
   * below `emittedThrough`. Each row points into `value`'s memory (no copy), which must not change
   * while the rows are in use. Returns how many rows it appended.
   */
  def decodeBucket(value: UnsafeRow, numFields: Int, emittedThrough: Long, out: ArrayBuffer[HeldRow]): Int = {
    val (base, start, _) = binaryAt(value, 1)
    checkFormat(Platform.getByte(base, start))
    val n = Platform.getInt(base, start + 1)
    var at = start + 5
    var i = 0
    while (i < n) {
      val rowtime = Platform.getLong(base, at)
      val len = Platform.getInt(base, at + 16)
      val row = new UnsafeRow(numFields)
      row.pointTo(base, at + 20, len)
      out += HeldRow(rowtime, Platform.getLong(base, at + 8), emitted = rowtime <= emittedThrough, row)
      at += 20 + len
      i += 1
    }
    n
  }

  /** Where the bytes of binary column `ordinal` of `row` are: (base object, address, length). */
  private def binaryAt(row: UnsafeRow, ordinal: Int): (AnyRef, Long, Int) = {
    val offsetAndSize = row.getLong(ordinal)
    (row.getBaseObject, row.getBaseOffset + (offsetAndSize >>> 32), offsetAndSize.toInt)
  }

  private def checkFormat(format: Byte): Unit =
    if (format != Format) throw OverjoinErrors.stateFormat(format.toInt, Format.toString)
}
