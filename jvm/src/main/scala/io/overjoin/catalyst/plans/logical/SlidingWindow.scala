package io.overjoin.catalyst.plans.logical

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeSet, Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}

import io.overjoin.catalyst.expressions.SlidingFunction

/**
 * Window functions over a stream (docs/semantics.md §12): Spark's `Window` node, which Spark
 * cannot run on a stream, made into overjoin's stateful operator
 * ([[org.apache.spark.sql.overjoin.SlidingWindowExec]]). One per group of window expressions with
 * the same `PARTITION BY` and order, as Spark's analyzer groups them:
 * {{{
 *   Window [avg(p) windowspecdefinition(k, ROWTIME ASC, RANGE -1m..0) AS a], [k], [ROWTIME ASC]
 *   ==>
 *   SlidingWindow [avg(p) windowspecdefinition(...) AS a], [k], [ROWTIME ASC] keep=60000000us/-1 rows opIndex=0
 * }}}
 * Output: the input's columns (each row's ROWTIME and its watermark mark pass through), then the
 * window values, `windowOutput`, computed by `windowFunctions` (kept apart: Spark's analyzer strips
 * the aliases of any node it does not know, so the names are held as the output attributes; and
 * refuses window functions in it, so each is held in a [[SlidingFunction]]). `keepMicros` (RANGE frames: rows within this of the watermark) and `keepRows`
 * (ROWS frames and LAG: rows before the earliest row not yet emitted) say which rows a row still
 * to come can need; -1 when no frame of that kind is there. `opIndex` numbers overjoin's stateful
 * operators of the query ([[io.overjoin.catalyst.optimizer.NumberWindowedJoins]]).
 */
case class SlidingWindow(
    windowFunctions: Seq[SlidingFunction],
    windowOutput: Seq[Attribute],
    partitionSpec: Seq[Expression],
    orderSpec: Seq[SortOrder],
    keepMicros: Long,
    keepRows: Long,
    opIndex: Int,
    child: LogicalPlan) extends UnaryNode {

  override def output: Seq[Attribute] = child.output ++ windowOutput

  override def producedAttributes: AttributeSet = AttributeSet(windowOutput)

  /** The window expressions as Spark's `Window` holds them: each function under its output's name. */
  def windowExpressions: Seq[NamedExpression] = windowFunctions.zip(windowOutput).map { case (f, a) =>
    Alias(f.function, a.name)(exprId = a.exprId, qualifier = a.qualifier)
  }

  override def simpleString(maxFields: Int): String =
    s"SlidingWindow ${windowExpressions.map(_.sql).mkString("[", ", ", "]")} " +
      s"partition=${partitionSpec.map(_.sql).mkString("[", ", ", "]")} order=${orderSpec.map(_.sql).mkString("[", ", ", "]")} " +
      s"keep=${keepMicros}us/$keepRows rows opIndex=$opIndex"

  override protected def withNewChildInternal(newChild: LogicalPlan): SlidingWindow = copy(child = newChild)
}
