package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.expressions.{CurrentRow, Expression, FrameType, Literal, RangeFrame => SparkRange, RowFrame, SpecialFrameBoundary, SpecifiedWindowFrame, UnboundedFollowing, UnboundedPreceding}
import org.apache.spark.sql.types.DayTimeIntervalType
import org.apache.spark.unsafe.types.CalendarInterval

import io.overjoin.model.{JoinFrame, RangeFrame, RowsFrame}

/**
 * The frames of sliding windows (docs/semantics.md §12) in Spark's terms, and what a frame asks
 * the streaming operator to keep.
 */
object SlidingFrames {

  private val Interval = DayTimeIntervalType(DayTimeIntervalType.DAY, DayTimeIntervalType.SECOND)

  /** A frame as the parser read it (sizes in microseconds or rows), as Spark's frame. */
  def toSpark(f: JoinFrame): SpecifiedWindowFrame = f match {
    case RangeFrame(a, b) =>
      SpecifiedWindowFrame(SparkRange, if (a == 0) CurrentRow else Literal(-a, Interval),
        if (b == 0) CurrentRow else Literal(-b, Interval))
    case RowsFrame(n) =>
      SpecifiedWindowFrame(RowFrame, if (n == 0) CurrentRow else Literal(-n.toInt), CurrentRow)
  }

  /**
   * A bound's offset from the current row: rows for a ROWS frame, microseconds for a RANGE frame
   * (negative: preceding). None for UNBOUNDED and for what is not a constant.
   */
  def offset(bound: Expression): Option[Long] = bound match {
    case CurrentRow => Some(0L)
    case _: SpecialFrameBoundary => None
    case e if e.foldable => e.eval() match {
      case n: java.lang.Integer => Some(n.longValue)
      case n: java.lang.Long => Some(n.longValue)
      case n: java.lang.Short => Some(n.longValue)
      case n: java.lang.Byte => Some(n.longValue)
      case i: CalendarInterval if i.months == 0 => Some(i.days * 86400000000L + i.microseconds)
      case _ => None
    }
    case _ => None
  }

  def isUnboundedPreceding(f: SpecifiedWindowFrame): Boolean = f.lower == UnboundedPreceding

  /** The frame reaches past the current row (a FOLLOWING bound, UNBOUNDED FOLLOWING included). */
  def isFollowing(f: SpecifiedWindowFrame): Boolean =
    f.upper == UnboundedFollowing || offset(f.upper).exists(_ > 0) || offset(f.lower).exists(_ > 0)

  def frameType(f: SpecifiedWindowFrame): FrameType = f.frameType
}
