package io.overjoin.catalyst.plans.logical

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import io.overjoin.model.TimeFloorCall

/**
 * `SELECT STREAM DISTINCT` of block `block` (docs/semantics.md §15), over the block's select list
 * `child` (a `Project`), as the parser found it: `rowtimeItems` are the positions of the select
 * items that are the block's `ROWTIME` (under any alias), which KDA leaves out of the comparison;
 * `floorItems` those that are a `STEP`/`FLOOR` of it, whose window ends say when a value can no
 * longer repeat; `monotonicItems` those declared with `MONOTONIC(...)`.
 * [[io.overjoin.catalyst.analysis.RewriteStreamDistinct]] makes it Spark's deduplication (a
 * stream) or an aggregation keeping the earliest `ROWTIME` (tables).
 */
case class StreamDistinct(
    block: Int,
    child: LogicalPlan,
    rowtimeItems: Seq[Int] = Nil,
    floorItems: Map[Int, TimeFloorCall] = Map.empty,
    monotonicItems: Seq[Int] = Nil) extends OverjoinNode {
  override lazy val resolved: Boolean = false
  override def simpleString(maxFields: Int): String =
    s"StreamDistinct block=$block rowtime items=${rowtimeItems.mkString(",")}"
  override protected def withNewChildInternal(newChild: LogicalPlan): StreamDistinct = copy(child = newChild)
}
