package io.overjoin.execution.join

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.{GenerateUnsafeRowJoiner, UnsafeRowWriter}
import org.apache.spark.sql.types.{BooleanType, DataType, LongType, StructField, StructType}

/**
 * The output rows of one key, kept as their parts (ROWTIME, life interval, left row, right row)
 * and put together only as they are read, into one reused row, as Spark's operators do: nothing is
 * allocated per output row. Putting a row together is two block copies by Spark's generated row
 * joiner (the times with the left row, that with the right row), not a projection field by field.
 * The parts stay valid until the key's output is read: the left and right rows
 * point into the key's stored value or into this batch's copied input rows, neither of which
 * changes. The buffer and its entries are reused for the next key, so a key's output must be
 * read before the next key is joined (both `JoinPartition.run` and its due keys pull keys one at
 * a time). The layout of the row put together: ROWTIME, start, end (NULL when open), end inclusive,
 * then the left row's columns and the right row's ([[JoinPartition]] and the operator's output).
 */
final class JoinOutputs(outputTypes: Seq[DataType], nLeft: Int) {
  private val timeTypes = Seq(LongType, LongType, LongType, BooleanType)
  private val leftTypes = outputTypes.slice(timeTypes.size, timeTypes.size + nLeft)
  private val rightTypes = outputTypes.drop(timeTypes.size + nLeft)
  private val times = new UnsafeRowWriter(timeTypes.size)
  private val timesAndLeft = GenerateUnsafeRowJoiner.create(schema(timeTypes), schema(leftTypes))
  private val withRight =
    GenerateUnsafeRowJoiner.create(schema(timeTypes ++ leftTypes), schema(rightTypes))

  /** A row of the left side, or of the right, all NULL: the other side of a padded row. */
  val nullLeft: UnsafeRow = nullRow(leftTypes)
  val nullRight: UnsafeRow = nullRow(rightTypes)

  private def schema(types: Seq[DataType]): StructType =
    StructType(types.zipWithIndex.map { case (t, i) => StructField(s"c$i", t) })

  private def nullRow(types: Seq[DataType]): UnsafeRow =
    UnsafeProjection.create(types.toArray).apply(new GenericInternalRow(types.size)).copy()

  private var n = 0
  private var rowtimes = new Array[Long](16)
  private var starts = new Array[Long](16)
  private var ends = new Array[Long](16)
  private var inclusive = new Array[Boolean](16)
  private var lefts = new Array[UnsafeRow](16)
  private var rights = new Array[UnsafeRow](16)

  def clear(): Unit = {
    java.util.Arrays.fill(lefts.asInstanceOf[Array[AnyRef]], 0, n, null)
    java.util.Arrays.fill(rights.asInstanceOf[Array[AnyRef]], 0, n, null)
    n = 0
  }

  def add(rowtime: Long, start: Long, end: Long, endInclusive: Boolean, l: UnsafeRow, r: UnsafeRow)
      : Unit = {
    if (n == rowtimes.length) {
      val size = 2 * n
      rowtimes = java.util.Arrays.copyOf(rowtimes, size)
      starts = java.util.Arrays.copyOf(starts, size)
      ends = java.util.Arrays.copyOf(ends, size)
      inclusive = java.util.Arrays.copyOf(inclusive, size)
      lefts = java.util.Arrays.copyOf(lefts, size)
      rights = java.util.Arrays.copyOf(rights, size)
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
      times.reset()
      times.zeroOutNullBytes()
      times.write(0, rowtimes(i))
      times.write(1, starts(i))
      if (ends(i) == Entry.Open) times.setNullAt(2) else times.write(2, ends(i))
      times.write(3, inclusive(i))
      val row = withRight.join(timesAndLeft.join(times.getRow, lefts(i)), rights(i))
      i += 1
      row
    }
  }
}
