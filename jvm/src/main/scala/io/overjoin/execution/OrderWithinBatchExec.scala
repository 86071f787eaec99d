package io.overjoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.{AllTuples, Distribution}
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}

/**
 * Physical [[io.overjoin.catalyst.plans.logical.OrderWithinBatch]]: asks for all rows in one
 * partition, sorted, and passes them on. Spark's planning adds the exchange and the sort it asks
 * for: `Sort [ROWTIME ASC], false <- Exchange SinglePartition`.
 */
case class OrderWithinBatchExec(order: Seq[SortOrder], child: SparkPlan) extends UnaryExecNode {
  override def output: Seq[Attribute] = child.output
  override def requiredChildDistribution: Seq[Distribution] = AllTuples :: Nil
  override def requiredChildOrdering: Seq[Seq[SortOrder]] = order :: Nil
  override def outputOrdering: Seq[SortOrder] = order
  override protected def doExecute(): RDD[InternalRow] = child.execute()
  override protected def withNewChildInternal(newChild: SparkPlan): OrderWithinBatchExec = copy(child = newChild)
}
