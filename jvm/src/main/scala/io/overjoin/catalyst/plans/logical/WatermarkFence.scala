package io.overjoin.catalyst.plans.logical

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}

/**
 * Directly above the watermark overjoin gives a stream input: a node that passes its child's rows
 * on as they are, and that Spark's optimizer moves no filter through (it pushes filters only
 * through the nodes it knows). Without it Spark pushes a `WHERE` that does not name the event time
 * below the watermark, and a row the filter drops no longer moves the stream's time: a STEP window
 * of `WHERE status >= '400'` stayed open until the next failure. In KDA a stream's time is its
 * rows', filtered or not (docs/semantics.md §8). The planner drops it
 * (`WindowedJoinStrategy`: its child is planned in its place).
 */
case class WatermarkFence(child: LogicalPlan) extends UnaryNode {
  override def output: Seq[Attribute] = child.output
  override protected def withNewChildInternal(newChild: LogicalPlan): WatermarkFence = copy(child = newChild)
}
