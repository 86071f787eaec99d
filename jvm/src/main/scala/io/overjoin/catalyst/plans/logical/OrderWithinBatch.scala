package io.overjoin.catalyst.plans.logical

import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}

/**
 * The rows of each micro-batch in `order`, in one output partition: the last step of
 * `spark.overjoin.emit = ordered` (docs/semantics.md §8). The rows a batch releases all lie
 * between the previous watermark and the current one, so sorting each batch's rows sorts the whole
 * stream. It is not Spark's `Sort` (which a stream refuses, because a global sort would sample its
 * input in a job of its own and so run the stateful operators below twice): it gathers the batch's
 * rows into one task and sorts them there ([[io.overjoin.execution.OrderWithinBatchExec]]).
 */
case class OrderWithinBatch(order: Seq[SortOrder], child: LogicalPlan) extends UnaryNode {
  override def output: Seq[Attribute] = child.output
  override protected def withNewChildInternal(newChild: LogicalPlan): OrderWithinBatch = copy(child = newChild)
}
