package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

import io.overjoin.catalyst.expressions.RowtimeReference
import io.overjoin.catalyst.plans.logical.{OverjoinNode, PreparedStreamJoin, StreamJoinOutput, StreamJoinRoot}
import io.overjoin.errors.OverjoinErrors

/**
 * After the resolution batch: removes the [[StreamJoinOutput]] markers once analysis has bound
 * every `ROWTIME`, and turns a `ROWTIME` left unbound into an error that says why, instead of
 * Spark's generic "unresolved" message.
 *
 * A FROM clause still waiting for its rewrite has something unresolved below it (an unknown
 * column in ON, say): Spark's own check reports that, with its position, before it reaches this
 * node. Only a resolved one left behind would be overjoin's fault.
 */
object RemoveStreamJoinMarkers extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!OverjoinNode.mayExist) return plan
    // A resolved plan holds no ROWTIME reference (it is never resolved).
    if (!OverjoinNode.in(plan) && (plan.resolved || !hasRowtimeReference(plan))) return plan
    plan.foreach {
      case r: StreamJoinRoot if r.child.resolved =>
        throw OverjoinErrors.internal(s"the FROM clause of query block ${r.block.id} was resolved but not prepared")
      case p: PreparedStreamJoin if p.child.resolved =>
        throw OverjoinErrors.internal(s"the FROM clause of query block ${p.block.id} was resolved but not rewritten")
      case _ =>
    }
    plan.foreach { p =>
      p.expressions.foreach(_.foreach {
        case RowtimeReference(_, None, spelling) if p.childrenResolved && !p.isInstanceOf[OverjoinNode] =>
          throw OverjoinErrors.rowtimeOutsideBlock(spelling)
        case RowtimeReference(_, Some(q), spelling) if p.childrenResolved && !p.isInstanceOf[OverjoinNode] =>
          throw OverjoinErrors.inputRowtimeOutsideBlock(q, spelling)
        case _ =>
      })
    }
    if (!plan.exists(_.isInstanceOf[StreamJoinOutput])) plan
    else plan.transformUp { case o: StreamJoinOutput => o.child }
  }

  private def hasRowtimeReference(plan: LogicalPlan): Boolean =
    plan.exists(_.expressions.exists(_.exists(_.isInstanceOf[RowtimeReference])))
}
