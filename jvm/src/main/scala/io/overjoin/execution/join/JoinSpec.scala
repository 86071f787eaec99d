package io.overjoin.execution.join

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.types.DataType

import io.overjoin.catalyst.plans.logical.SideBounds

/**
 * Everything a windowed join's partition task needs besides its state store; built on the driver
 * and shipped with the task. Expressions are bound to the sides' output here, on the executor.
 */
final case class JoinSpec(
    leftOutput: Seq[Attribute],
    rightOutput: Seq[Attribute],
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    nullSafe: Seq[Boolean],
    condition: Option[Expression],
    leftTimes: Seq[Expression],
    rightTimes: Seq[Expression],
    leftBounds: SideBounds,
    rightBounds: SideBounds,
    leftPreserved: Boolean,
    rightPreserved: Boolean,
    outputTypes: Seq[DataType],
    leftRows: Option[Long] = None,
    leftPartition: Seq[Expression] = Nil,
    rightRows: Option[Long] = None,
    rightPartition: Seq[Expression] = Nil,
    holdUntilFinal: Boolean = false)

/** Counters of one partition task, reported as the operator's metrics. */
final class JoinCounters {
  var dropped = 0L
  var padded = 0L
  var stateRows = 0L
  var updatedKeys = 0L
  var removedKeys = 0L
  var evictNanos = 0L
  /**
   * With `holdUntilFinal`: the earliest life start (us) of an output row the task's state can still
   * make from held rows alone (waiting pairs, unmatched rows of a preserved side).
   */
  var heldMin: Long = Long.MaxValue
}
