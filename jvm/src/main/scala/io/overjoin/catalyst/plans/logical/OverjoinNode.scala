package io.overjoin.catalyst.plans.logical

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}

/**
 * overjoin's logical nodes. They mark what the parser found, and what the analyzer rules have
 * done with it; none of them reaches Spark's physical planner. A plan without one is plain Spark
 * SQL, which every overjoin rule returns untouched.
 */
trait OverjoinNode extends UnaryNode {
  override def output: Seq[Attribute] = child.output
}

object OverjoinNode {
  /** True when `plan` holds an overjoin node: the one tree walk plain SQL pays per rule. */
  def in(plan: LogicalPlan): Boolean = plan.exists(_.isInstanceOf[OverjoinNode])
}
