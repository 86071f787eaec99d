package io.overjoin.catalyst.plans.logical

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{BinaryNode, LogicalPlan}

/**
 * `stream ASOF [LEFT] JOIN table` (docs/semantics.md §5-6): each row `x` of the stream (`left`)
 * meets the one row of the table (`right`, read as of the micro-batch) with `xKeys = yKeys` whose
 * `yTime` is the closest to `xTime` in the direction `op` (`y.t op x.t`), ties going to the later
 * row of the table; `leftOuter` keeps an `x` with none, padded with NULLs. Stateless: every `x` is
 * answered in the batch that brings it.
 */
case class AsofLookup(
    left: LogicalPlan,
    right: LogicalPlan,
    xKeys: Seq[Expression],
    yKeys: Seq[Expression],
    xTime: Expression,
    yTime: Expression,
    op: String,
    leftOuter: Boolean) extends BinaryNode {

  override def output: Seq[Attribute] =
    left.output ++ (if (leftOuter) right.output.map(_.withNullability(true)) else right.output)

  override lazy val resolved: Boolean = childrenResolved && expressions.forall(_.resolved)

  override def simpleString(maxFields: Int): String =
    s"AsofLookup ${if (leftOuter) "LEFT " else ""}keys=[${xKeys.zip(yKeys).map { case (x, y) => s"${x.sql} = ${y.sql}" }.mkString(", ")}] " +
      s"${yTime.sql} $op ${xTime.sql}"

  override protected def withNewChildrenInternal(newLeft: LogicalPlan, newRight: LogicalPlan): AsofLookup =
    copy(left = newLeft, right = newRight)
}
