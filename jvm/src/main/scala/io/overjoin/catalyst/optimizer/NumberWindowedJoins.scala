package io.overjoin.catalyst.optimizer

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

import io.overjoin.catalyst.plans.logical.{OverjoinNode, SlidingWindow, StaggerAssign, WindowedJoin}

/**
 * Numbers overjoin's stateful operators of a whole query ([[WindowedJoin]]s, [[SlidingWindow]]s and [[StaggerAssign]]s,
 * in one sequence), bottom-up from 0, like Spark numbers its own
 * stateful operators. The number names the operator's state in the checkpoint, so it must depend
 * only on the query: the same query numbers its joins the same way in every micro-batch and after
 * a restart, and two joins of one query (two `spark.sql` results joined or unioned) never share one.
 */
object NumberWindowedJoins extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!OverjoinNode.mayExist) return plan
    if (!plan.exists(p => p.isInstanceOf[WindowedJoin] || p.isInstanceOf[SlidingWindow] || p.isInstanceOf[StaggerAssign])) {
      return plan
    }
    var next = 0
    plan.transformUp {
      case j: WindowedJoin =>
        val numbered = if (j.opIndex == next) j else j.copy(opIndex = next)
        next += 1
        numbered
      case s: SlidingWindow =>
        val numbered = if (s.opIndex == next) s else s.copy(opIndex = next)
        next += 1
        numbered
      case s: StaggerAssign =>
        val numbered = if (s.opIndex == next) s else s.copy(opIndex = next)
        next += 1
        numbered
    }
  }
}
