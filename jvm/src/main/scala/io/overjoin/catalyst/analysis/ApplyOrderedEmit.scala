package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.plans.logical.{Command, FlatMapGroupsWithState, LogicalPlan, SubqueryAlias, Union}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.trees.TreeNodeTag

import io.overjoin.catalyst.plans.logical.{OverjoinNode, StreamJoinOutput}
import io.overjoin.config.OverjoinConf
import io.overjoin.errors.OverjoinErrors
import io.overjoin.execution.{OrderedEmit, StreamingAsof}

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
    // A stream-stream ASOF join runs as Spark's flatMapGroupsWithState (StreamingAsof.Closest),
    // after which Spark runs no other stateful operator (its global-watermark correctness check).
    plan.collectFirst { case f: FlatMapGroupsWithState if f.func.isInstanceOf[StreamingAsof.Closest] => f }.foreach { f =>
      // Each side of the union the ASOF join reads, named as written: `view AS alias`.
      val sides = f.child.collectFirst { case u: Union => u.children }.getOrElse(Seq(f.child))
      val names = sides.flatMap { side =>
        side.collect { case a: SubqueryAlias => a.alias }.distinct match {
          case Seq() => None
          case Seq(one) => Some(one)
          case outer +: inner => Some(s"${inner.last} AS $outer")
        }
      }
      throw OverjoinErrors.orderedEmitAfterStreamAsof(if (names.isEmpty) "in this query" else names.mkString(" and "))
    }
    val outputs = plan.collect { case o: StreamJoinOutput => o }
    val rowtime = plan.output.find(a => outputs.exists(_.rowtime.exprId == a.exprId))
      .orElse(plan.output.find(_.name.equalsIgnoreCase("ROWTIME")))
      .getOrElse(throw OverjoinErrors.orderedEmitWithoutRowtime())
    val ordered = OrderedEmit(plan, rowtime)
    ordered.setTagValue(Applied, true)
    ordered
  }
}
