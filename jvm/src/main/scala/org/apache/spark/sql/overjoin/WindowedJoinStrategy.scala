package org.apache.spark.sql.overjoin

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.classic.{SparkSession, Strategy}
import org.apache.spark.sql.execution.SparkPlan

import io.overjoin.catalyst.plans.logical.{AsofLookup, OrderWithinBatch, SlidingWindow, StaggerAssign, WindowedJoin}
import io.overjoin.execution.{AsofLookupExec, OrderWithinBatchExec}
import io.overjoin.errors.OverjoinErrors

/**
 * Plans a [[WindowedJoin]] as a [[WindowedJoinExec]] with the state of the micro-batch being
 * planned ([[StreamContext]]): Spark's own planning step for state only knows Spark's operators.
 * Also plans a [[SlidingWindow]] (window functions over a stream) as a [[SlidingWindowExec]] the
 * same way, a [[StaggerAssign]] (stagger windows) as a [[StaggerWindowExec]] on a stream and a
 * [[StaggerReplayExec]] over tables, [[OrderWithinBatch]], the last step of ordered output, and [[AsofLookup]].
 */
case class WindowedJoinStrategy(session: SparkSession) extends Strategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case j: WindowedJoin =>
      if (j.opIndex < 0) throw OverjoinErrors.internal("a windowed join reached the planner without an operator number")
      WindowedJoinExec(j.joinType, j.leftKeys, j.rightKeys, j.nullSafe, j.condition, j.leftTimes, j.rightTimes,
        j.leftBounds, j.rightBounds, j.produced, j.leftRowsN, j.leftPartition, j.rightRowsN, j.rightPartition, j.holdUntilFinal,
        Some(StreamContext.stateInfo(session, j.opIndex)),
        planLater(j.left), planLater(j.right)) :: Nil
    case s: SlidingWindow =>
      if (s.opIndex < 0) throw OverjoinErrors.internal("a sliding window reached the planner without an operator number")
      SlidingWindowExec(s.windowExpressions, s.partitionSpec, s.orderSpec, s.keepMicros, s.keepRows,
        Some(StreamContext.stateInfo(session, s.opIndex)), planLater(s.child)) :: Nil
    case s: StaggerAssign if s.child.isStreaming =>
      if (s.opIndex < 0) throw OverjoinErrors.internal("a stagger window reached the planner without an operator number")
      StaggerWindowExec(s.keys, s.rowtime, s.sizeMicros, s.start, s.end,
        Some(StreamContext.stateInfo(session, s.opIndex)), planLater(s.child)) :: Nil
    case s: StaggerAssign => StaggerReplayExec(s.keys, s.rowtime, s.sizeMicros, s.start, s.end, planLater(s.child)) :: Nil
    case o: OrderWithinBatch => OrderWithinBatchExec(o.order, planLater(o.child)) :: Nil
    // Only the optimizer needed it (filters stay above the stream's watermark): no operator.
    case f: io.overjoin.catalyst.plans.logical.WatermarkFence => planLater(f.child) :: Nil
    case a: AsofLookup =>
      AsofLookupExec(a.xKeys, a.yKeys, a.xTime, a.yTime, a.op, a.leftOuter, planLater(a.left), planLater(a.right)) :: Nil
    case _ => Nil
  }
}
