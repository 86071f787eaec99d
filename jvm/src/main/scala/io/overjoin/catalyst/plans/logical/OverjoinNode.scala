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
  /**
   * Set, once and for good, when overjoin's parser first puts its nodes or expressions into a
   * plan in this JVM (they come from nowhere else). Until then every overjoin rule returns the plan
   * at once: a JVM that only ever runs plain Spark SQL pays not even a tree walk per rule.
   */
  @volatile private var created = false

  def markCreated(): Unit = if (!created) created = true

  /** False while no overjoin node can exist in this JVM: the rules' first, free test. */
  def mayExist: Boolean = created

  /** True when `plan` holds an overjoin node: the one tree walk plain SQL pays per rule. */
  def in(plan: LogicalPlan): Boolean = created && plan.exists(_.isInstanceOf[OverjoinNode])
}
