package io.overjoin.execution.join

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

import io.overjoin.errors.OverjoinErrors
import io.overjoin.execution.state.Varints

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
 *   byte   format (3)
 *   long   due: the smallest watermark (us) at which something of this key must be evicted or emitted
 *   long   decided: the watermark (us) up to which this key's pairs are decided (ROWS windows)
 *   long   held: for a join that holds its matched rows until their life is final (a ROWS join read
 *          by another join), the earliest life start (us) of an output row the key can still make
 *          from the rows it holds alone: a pair waiting for the watermark, or an unmatched row of a
 *          preserved side still to be padded; Long.MaxValue for none or another join
 *   int    rows on the left, int rows on the right
 *   per row, left rows first:
 *     byte    flags: 1 matched, 2 end inclusive, 4 unmatchable, 8 order only,
 *                    16 start = rowtime, 32 end open, 64 end = rowtime
 *     varlong rowtime - the previous row's rowtime (0 before the first)
 *     varlong start - rowtime    (unless flag 16)
 *     varlong end - rowtime      (unless flag 32 or 64)
 *     varlong seq - the previous row's seq (0 before the first)
 *     varint  length, then the row's bytes
 * }}}
 * A `varlong` is a zigzag-encoded LEB128 number: 1 byte up to +-63, 4 bytes up to +-134 s in
 * microseconds, 5 bytes for the micro-batch part of a `seq`. A row's rowtime is mostly seconds
 * from its neighbour's, and its life starts and ends at its rowtime or a window's length from it,
 * so a row's header is about 6 to 15 bytes instead of format 2's 37 (docs/operator.md, "State
 * layout"). Formats 1 (overjoin 0.1's, without `held`) and
 * 2 (each row's header as fixed fields: long start | long end | long rowtime | long seq | byte flags
 * (1 to 8) | int length) are still read, and a key written again is written in format 3. A blob of
 * an unknown format fails the query with a clear error instead of a wrong result.
 */
object JoinStateBlob {
  val Format: Byte = 3
  private val Format1: Byte = 1
  private val Format2: Byte = 2
  private val Format2EntryBytes = 8 + 8 + 8 + 8 + 1 + 4
  // The most a format 3 row header can take: flags, four varlongs, a varint.
  private val MaxEntryBytes = 1 + 4 * Varints.MaxBytes + 5
  private val Base = Platform.BYTE_ARRAY_OFFSET

  private val StartIsRowtime = 16
  private val EndOpen = 32
  private val EndIsRowtime = 64

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
    if (format != Format && format != Format1 && format != Format2) {
      throw OverjoinErrors.stateFormat("a windowed join", format.toInt, s"$Format1, $Format2 and $Format")
    }
    format
  }

  /**
   * Adds the rows of the blob at `at` in `base` to `into`. Each row points into `base` (no copy):
   * the caller keeps `base` unchanged while it uses them.
   */
  def decode(base: AnyRef, at: Long, leftFields: Int, rightFields: Int, into: KeyRows): Unit = {
    val fmt = format(base, at)
    val counts = at + countsAt(fmt)
    val nLeft = Platform.getInt(base, counts)
    val nRight = Platform.getInt(base, counts + 4)
    if (fmt == Format) decode3(base, counts + 8, nLeft, nRight, leftFields, rightFields, into)
    else decodeFixed(base, counts + 8, nLeft, nRight, leftFields, rightFields, into)
  }

  private def add(into: KeyRows, isLeft: Boolean, fields: Int, base: AnyRef, at: Long, len: Int, start: Long,
      end: Long, rowtime: Long, seq: Long, flags: Int): Unit = {
    val row = new UnsafeRow(fields)
    row.pointTo(base, at, len)
    val e = new Entry(start, end, (flags & 2) != 0, rowtime, seq, (flags & 1) != 0, (flags & 4) != 0, row,
      (flags & 8) != 0)
    (if (isLeft) into.lefts else into.rights) += e
  }

  // Formats 1 and 2: fixed-width row headers.
  private def decodeFixed(base: AnyRef, from: Long, nLeft: Int, nRight: Int, leftFields: Int, rightFields: Int,
      into: KeyRows): Unit = {
    var off = from
    var i = 0
    while (i < nLeft + nRight) {
      val start = Platform.getLong(base, off)
      val end = Platform.getLong(base, off + 8)
      val rowtime = Platform.getLong(base, off + 16)
      val seq = Platform.getLong(base, off + 24)
      val flags = Platform.getByte(base, off + 32) & 0xff
      val len = Platform.getInt(base, off + 33)
      off += Format2EntryBytes
      val isLeft = i < nLeft
      add(into, isLeft, if (isLeft) leftFields else rightFields, base, off, len, start, end, rowtime, seq, flags)
      off += len
      i += 1
    }
  }

  private def decode3(base: AnyRef, from: Long, nLeft: Int, nRight: Int, leftFields: Int, rightFields: Int,
      into: KeyRows): Unit = {
    val in = new VarReader(base, from)
    var rowtime = 0L
    var seq = 0L
    var i = 0
    while (i < nLeft + nRight) {
      val flags = in.byte()
      rowtime += in.zigzag()
      val start = if ((flags & StartIsRowtime) != 0) rowtime else rowtime + in.zigzag()
      val end =
        if ((flags & EndOpen) != 0) Entry.Open
        else if ((flags & EndIsRowtime) != 0) rowtime
        else rowtime + in.zigzag()
      seq += in.zigzag()
      val len = in.varint()
      val isLeft = i < nLeft
      add(into, isLeft, if (isLeft) leftFields else rightFields, base, in.at, len, start, end, rowtime, seq, flags)
      in.at += len
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
    var bound = header
    var i = 0
    while (i < rows.lefts.size) { bound += MaxEntryBytes + rows.lefts(i).row.getSizeInBytes; i += 1 }
    i = 0
    while (i < rows.rights.size) { bound += MaxEntryBytes + rows.rights(i).row.getSizeInBytes; i += 1 }
    // The value row: a null-bit word, the field's offset and size, the blob padded to 8 bytes.
    val boundSize = 16 + ((bound + 7) & ~7)
    val buf =
      if (buffer != null && buffer.length >= boundSize) buffer
      else new Array[Byte](math.max(boundSize, 1024))
    val at = Base + 16
    Platform.putByte(buf, at, Format)
    Platform.putLong(buf, at + 1, due)
    Platform.putLong(buf, at + 9, decided)
    Platform.putLong(buf, at + 17, held)
    Platform.putInt(buf, at + 25, rows.lefts.size)
    Platform.putInt(buf, at + 29, rows.rights.size)
    val out = new VarWriter(buf, at + header)
    var rowtime = 0L
    var seq = 0L
    def put(e: Entry): Unit = {
      val startIsRowtime = e.start == e.rowtime
      val endOpen = e.end == Entry.Open
      val endIsRowtime = !endOpen && e.end == e.rowtime
      out.byte((if (e.matched) 1 else 0) | (if (e.endInclusive) 2 else 0) | (if (e.unmatchable) 4 else 0) |
        (if (e.orderOnly) 8 else 0) | (if (startIsRowtime) StartIsRowtime else 0) | (if (endOpen) EndOpen else 0) |
        (if (endIsRowtime) EndIsRowtime else 0))
      out.zigzag(e.rowtime - rowtime)
      rowtime = e.rowtime
      if (!startIsRowtime) out.zigzag(e.start - e.rowtime)
      if (!endOpen && !endIsRowtime) out.zigzag(e.end - e.rowtime)
      out.zigzag(e.seq - seq)
      seq = e.seq
      val len = e.row.getSizeInBytes
      out.varint(len)
      e.row.writeToMemory(buf, out.at)
      out.at += len
    }
    i = 0
    while (i < rows.lefts.size) { put(rows.lefts(i)); i += 1 }
    i = 0
    while (i < rows.rights.size) { put(rows.rights(i)); i += 1 }
    val size = (out.at - at).toInt
    val rowSize = 16 + ((size + 7) & ~7)
    Platform.putLong(buf, Base, 0L)
    Platform.putLong(buf, Base + 8, (16L << 32) | size.toLong)
    var pad = out.at
    while (pad < Base + rowSize) { Platform.putByte(buf, pad, 0.toByte); pad += 1 }
    into.pointTo(buf, Base, rowSize)
    buf
  }

  /** Writes a format 3 blob's numbers at `at` in `buf`. */
  private final class VarWriter(buf: Array[Byte], var at: Long) {
    def byte(b: Int): Unit = { Platform.putByte(buf, at, b.toByte); at += 1 }
    def varint(v: Int): Unit = unsigned(v.toLong & 0xffffffffL)
    def zigzag(v: Long): Unit = unsigned(Varints.zigzag(v))
    private def unsigned(value: Long): Unit = {
      var v = value
      while ((v & ~0x7fL) != 0) {
        Platform.putByte(buf, at, ((v & 0x7f) | 0x80).toByte)
        at += 1
        v >>>= 7
      }
      Platform.putByte(buf, at, v.toByte)
      at += 1
    }
  }

  /** Reads a format 3 blob's numbers from `at` in `base`. */
  private final class VarReader(base: AnyRef, var at: Long) {
    def byte(): Int = { val b = Platform.getByte(base, at) & 0xff; at += 1; b }
    def varint(): Int = unsigned().toInt
    def zigzag(): Long = Varints.unzigzag(unsigned())
    private def unsigned(): Long = {
      var result = 0L
      var shift = 0
      var b = 0
      while ({ b = Platform.getByte(base, at); at += 1; result |= (b & 0x7fL) << shift; shift += 7; (b & 0x80) != 0 }) ()
      result
    }
  }
}
