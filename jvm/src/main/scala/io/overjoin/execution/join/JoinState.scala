package io.overjoin.execution.join

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

import io.overjoin.errors.OverjoinErrors

/**
 * One buffered row of a windowed join: its life interval `[start, end]` (`end` inclusive or not;
 * `Open` while it has no end yet), its ROWTIME, its arrival number, whether it has matched, and
 * the row itself. `unmatchable` rows (an equality key is NULL) can only ever be null-padded.
 * `orderOnly` rows of a ROWS window are kept only to count positions (docs/semantics.md §3): they
 * neither match nor are padded any more.
 */
final class Entry(
    val start: Long,
    var end: Long,
    var endInclusive: Boolean,
    val rowtime: Long,
    val seq: Long,
    var matched: Boolean,
    val unmatchable: Boolean,
    val row: UnsafeRow,
    var orderOnly: Boolean = false) {

  /** The latest watermark at which a pair of this row still waiting for it is decided (not stored). */
  var pending: Long = Long.MinValue

  def isOpen: Boolean = end == Entry.Open
}

object Entry {
  /** The end of a life interval that has not closed yet. */
  val Open: Long = Long.MaxValue
}

/** Everything one key holds: its buffered rows of each side, in arrival order. */
final class KeyRows {
  val lefts = new ArrayBuffer[Entry](4)
  val rights = new ArrayBuffer[Entry](4)
  def size: Int = lefts.size + rights.size
}

/**
 * The state value of one key: one binary blob, so that a key costs one state-store read and one
 * write per micro-batch however many rows it holds.
 *
 * {{{
 *   byte   format (2)
 *   long   due: the smallest watermark (us) at which something of this key must be evicted or emitted
 *   long   decided: the watermark (us) up to which this key's pairs are decided (ROWS windows)
 *   long   held: for a join that holds its matched rows until their life is final (a ROWS join read
 *          by another join), the earliest life start (us) of an output row the key can still make
 *          from the rows it holds alone: a pair waiting for the watermark, or an unmatched row of a
 *          preserved side still to be padded; Long.MaxValue for none or another join
 *   int    rows on the left, int rows on the right
 *   per row: long start | long end | long rowtime | long seq | byte flags | int length | row bytes
 * }}}
 * `flags`: 1 matched, 2 end inclusive, 4 unmatchable, 8 order only. Format 1 (overjoin 0.1's) is
 * the same without `held`, and is still read. A blob of an unknown format fails the query with a
 * clear error instead of a wrong result.
 */
object JoinStateBlob {
  val Format: Byte = 2
  private val Format1: Byte = 1
  private val EntryBytes = 8 + 8 + 8 + 8 + 1 + 4
  private val Base = Platform.BYTE_ARRAY_OFFSET

  def due(blob: Array[Byte]): Long = due(blob, Base)
  def decided(blob: Array[Byte]): Long = decided(blob, Base)
  def held(blob: Array[Byte]): Long = held(blob, Base)
  def rows(blob: Array[Byte]): Int = rows(blob, Base)

  // The same, reading a blob at `at` in `base` (a state store value, without copying it out).
  def due(base: AnyRef, at: Long): Long = { format(base, at); Platform.getLong(base, at + 1) }
  def decided(base: AnyRef, at: Long): Long = { format(base, at); Platform.getLong(base, at + 9) }
  def held(base: AnyRef, at: Long): Long =
    if (format(base, at) == Format1) Long.MaxValue else Platform.getLong(base, at + 17)
  def rows(base: AnyRef, at: Long): Int = {
    val counts = at + countsAt(format(base, at))
    Platform.getInt(base, counts) + Platform.getInt(base, counts + 4)
  }

  private def countsAt(format: Byte): Int = if (format == Format1) 17 else 25

  private def format(base: AnyRef, at: Long): Byte = {
    val format = Platform.getByte(base, at)
    if (format != Format && format != Format1) throw OverjoinErrors.stateFormat("a windowed join", format.toInt, s"$Format1 and $Format")
    format
  }

  /**
   * Adds the rows of the blob at `at` in `base` to `into`. Each row points into `base` (no copy):
   * the caller keeps `base` unchanged while it uses them.
   */
  def decode(base: AnyRef, at: Long, leftFields: Int, rightFields: Int, into: KeyRows): Unit = {
    val counts = at + countsAt(format(base, at))
    val nLeft = Platform.getInt(base, counts)
    val nRight = Platform.getInt(base, counts + 4)
    var off = counts + 8
    var i = 0
    while (i < nLeft + nRight) {
      val start = Platform.getLong(base, off)
      val end = Platform.getLong(base, off + 8)
      val rowtime = Platform.getLong(base, off + 16)
      val seq = Platform.getLong(base, off + 24)
      val flags = Platform.getByte(base, off + 32)
      val len = Platform.getInt(base, off + 33)
      off += EntryBytes
      val isLeft = i < nLeft
      val row = new UnsafeRow(if (isLeft) leftFields else rightFields)
      row.pointTo(base, off, len)
      off += len
      val e = new Entry(start, end, (flags & 2) != 0, rowtime, seq, (flags & 1) != 0, (flags & 4) != 0, row,
        (flags & 8) != 0)
      (if (isLeft) into.lefts else into.rights) += e
      i += 1
    }
  }

  /**
   * Encodes `rows` as the state value row `into`: an `UnsafeRow` of one binary field holding the
   * blob, written straight into `buffer` (grown when short; returned) without an intermediate
   * array. A state store copies the value it is given, so one buffer serves every key.
   */
  def encodeRow(
      rows: KeyRows, due: Long, decided: Long, held: Long, buffer: Array[Byte], into: UnsafeRow)
      : Array[Byte] = {
    val header = countsAt(Format) + 8
    var size = header
    var i = 0
    while (i < rows.lefts.size) { size += EntryBytes + rows.lefts(i).row.getSizeInBytes; i += 1 }
    i = 0
    while (i < rows.rights.size) { size += EntryBytes + rows.rights(i).row.getSizeInBytes; i += 1 }
    // The value row: a null-bit word, the field's offset and size, the blob padded to 8 bytes.
    val rowSize = 16 + ((size + 7) & ~7)
    val buf =
      if (buffer != null && buffer.length >= rowSize) buffer
      else new Array[Byte](math.max(rowSize, 1024))
    Platform.putLong(buf, Base, 0L)
    Platform.putLong(buf, Base + 8, (16L << 32) | size.toLong)
    Platform.putLong(buf, Base + rowSize - 8, 0L)
    val at = Base + 16
    Platform.putByte(buf, at, Format)
    Platform.putLong(buf, at + 1, due)
    Platform.putLong(buf, at + 9, decided)
    Platform.putLong(buf, at + 17, held)
    Platform.putInt(buf, at + 25, rows.lefts.size)
    Platform.putInt(buf, at + 29, rows.rights.size)
    var off = at + header
    def put(e: Entry): Unit = {
      Platform.putLong(buf, off, e.start)
      Platform.putLong(buf, off + 8, e.end)
      Platform.putLong(buf, off + 16, e.rowtime)
      Platform.putLong(buf, off + 24, e.seq)
      Platform.putByte(buf, off + 32, ((if (e.matched) 1 else 0) | (if (e.endInclusive) 2 else 0) |
        (if (e.unmatchable) 4 else 0) | (if (e.orderOnly) 8 else 0)).toByte)
      val len = e.row.getSizeInBytes
      Platform.putInt(buf, off + 33, len)
      off += EntryBytes
      e.row.writeToMemory(buf, off)
      off += len
    }
    i = 0
    while (i < rows.lefts.size) { put(rows.lefts(i)); i += 1 }
    i = 0
    while (i < rows.rights.size) { put(rows.rights(i)); i += 1 }
    into.pointTo(buf, Base, rowSize)
    buf
  }
}
