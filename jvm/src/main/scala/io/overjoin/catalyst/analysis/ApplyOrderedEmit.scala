package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.plans.logical.{Command, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.trees.TreeNodeTag

import io.overjoin.catalyst.plans.logical.{OverjoinNode, StreamJoinOutput}
import io.overjoin.config.OverjoinConf
import io.overjoin.errors.OverjoinErrors
import io.overjoin.execution.OrderedEmit

/**
 * `spark.overjoin.emit = ordered` (docs/semantics.md §8): once the whole query is resolved, its
 * rows are released in ROWTIME order (see [[OrderedEmit]]). It runs in the resolution batch so
 * that Spark resolves the encoders of the operator it adds.
 */
object ApplyOrderedEmit extends Rule[LogicalPlan] {
  private val Applied = TreeNodeTag[Boolean]("overjoin.orderedEmit")

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!OverjoinNode.mayExist) return plan
    if (!plan.exists(_.isInstanceOf[StreamJoinOutput])) return plan
    if (!plan.resolved || plan.isInstanceOf[Command] || plan.exists(_.getTagValue(Applied).isDefined)) return plan
    if (!OverjoinConf.orderedEmit()) return plan
    val outputs = plan.collect { case o: StreamJoinOutput => o }
    val rowtime = plan.output.find(a => outputs.exists(_.rowtime.exprId == a.exprId))
      .orElse(plan.output.find(_.name.equalsIgnoreCase("ROWTIME")))
      .getOrElse(throw OverjoinErrors.orderedEmitWithoutRowtime())
    val ordered = OrderedEmit(plan, rowtime)
    ordered.setTagValue(Applied, true)
    ordered
  }
}
