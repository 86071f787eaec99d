package io.overjoin.execution.join

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{JoinedRow, SpecificInternalRow, UnsafeProjection}
import org.apache.spark.sql.types.{BooleanType, DataType, LongType}

/**
 * The output rows of one key, kept as their parts (ROWTIME, life interval, left row, right row)
 * and projected only as they are read, into one reused row, as Spark's operators do: no copy per
 * output row. The parts stay valid until the key's output is read: the left and right rows
 * point into the key's stored value or into this batch's copied input rows, neither of which
 * changes. The buffer and its entries are reused for the next key, so a key's output must be
 * read before the next key is joined (both `JoinPartition.run` and its due keys pull keys one at
 * a time). The layout of the row projected: ROWTIME, start, end (NULL when open), end inclusive,
 * then the left row's columns and the right row's ([[JoinPartition]] and the operator's output).
 */
final class JoinOutputs(outputTypes: Seq[DataType]) {
  private val timesRow = new SpecificInternalRow(Seq(LongType, LongType, LongType, BooleanType))
  private val outRow1 = new JoinedRow
  private val outRow2 = new JoinedRow
  private val project = UnsafeProjection.create(outputTypes.toArray)

  private var n = 0
  private var rowtimes = new Array[Long](16)
  private var starts = new Array[Long](16)
  private var ends = new Array[Long](16)
  private var inclusive = new Array[Boolean](16)
  private var lefts = new Array[InternalRow](16)
  private var rights = new Array[InternalRow](16)

  def clear(): Unit = {
    java.util.Arrays.fill(lefts.asInstanceOf[Array[AnyRef]], 0, n, null)
    java.util.Arrays.fill(rights.asInstanceOf[Array[AnyRef]], 0, n, null)
    n = 0
  }

  def add(rowtime: Long, start: Long, end: Long, endInclusive: Boolean, l: InternalRow, r: InternalRow): Unit = {
    if (n == rowtimes.length) {
      val size = 2 * n
      rowtimes = java.util.Arrays.copyOf(rowtimes, size)
      starts = java.util.Arrays.copyOf(starts, size)
      ends = java.util.Arrays.copyOf(ends, size)
      inclusive = java.util.Arrays.copyOf(inclusive, size)
      lefts = java.util.Arrays.copyOf(lefts.asInstanceOf[Array[AnyRef]], size).asInstanceOf[Array[InternalRow]]
      rights = java.util.Arrays.copyOf(rights.asInstanceOf[Array[AnyRef]], size).asInstanceOf[Array[InternalRow]]
    }
    rowtimes(n) = rowtime; starts(n) = start; ends(n) = end; inclusive(n) = endInclusive
    lefts(n) = l; rights(n) = r
    n += 1
  }

  def iterator: Iterator[InternalRow] = new Iterator[InternalRow] {
    private var i = 0
    private val count = n
    def hasNext: Boolean = i < count
    def next(): InternalRow = {
      timesRow.setLong(0, rowtimes(i))
      timesRow.setLong(1, starts(i))
      if (ends(i) == Entry.Open) timesRow.setNullAt(2) else timesRow.setLong(2, ends(i))
      timesRow.setBoolean(3, inclusive(i))
      val row = project(outRow2(outRow1(timesRow, lefts(i)), rights(i)))
      i += 1
      row
    }
  }
}
