package io.overjoin.catalyst.plans.logical

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}

import io.overjoin.model.StaggerWindowCall

/**
 * Put by the parser under the aggregation Spark made of a block's `WINDOWED BY STAGGER` clause
 * (read by Spark as `GROUP BY keys`), until [[io.overjoin.catalyst.analysis.RewriteStaggerWindows]]
 * makes it a [[StaggerAssign]]. Passes its child's rows through.
 */
case class StaggerInput(block: Int, call: StaggerWindowCall, child: LogicalPlan) extends OverjoinNode {
  override protected def withNewChildInternal(newChild: LogicalPlan): StaggerInput = copy(child = newChild)
}

/**
 * KDA's stagger window (docs/semantics.md §13), the step Spark has no operator for: each row gets
 * the start and end of its window. Per value of `keys`, in rowtime order, a row opens a window at
 * its rowtime `t0` when its key has none open (none yet, or the open one ended at or before the
 * row's rowtime), and the window holds that key's rows with rowtime in `[t0, t0 + size)`:
 * {{{
 *   Aggregate [k], [ROWTIME, k, count(1)]                Aggregate [k, end, start], [end AS ROWTIME, k, count(1)]
 *   +- StaggerInput block=0 (k, 1m)               ==>    +- StaggerAssign [k] ROWTIME size=60000000us -> start, end
 *      +- StreamJoinOutput ...                              +- StreamJoinOutput ...
 * }}}
 * Output: the child's rows, then `start` and `end` (which carries the watermark's event-time
 * metadata, so Spark's streaming aggregation above emits each window once the watermark passes
 * its end). Over tables it is planned as [[org.apache.spark.sql.overjoin.StaggerReplayExec]] (per
 * key, sorted by rowtime); on a stream as [[org.apache.spark.sql.overjoin.StaggerWindowExec]],
 * which holds each row until the watermark reaches its rowtime (every earlier row of its key is in
 * by then) and keeps each key's open window in its state. `opIndex` numbers overjoin's stateful
 * operators ([[io.overjoin.catalyst.optimizer.NumberWindowedJoins]]).
 */
case class StaggerAssign(
    keys: Seq[Expression],
    rowtime: Expression,
    sizeMicros: Long,
    start: Attribute,
    end: Attribute,
    opIndex: Int,
    child: LogicalPlan) extends UnaryNode {

  override def output: Seq[Attribute] = child.output :+ start :+ end

  override def producedAttributes: AttributeSet = AttributeSet(Seq(start, end))

  override def simpleString(maxFields: Int): String =
    s"StaggerAssign ${keys.map(_.sql).mkString("[", ", ", "]")} ${rowtime.sql} size=${sizeMicros}us " +
      s"-> ${start.name}, ${end.name} opIndex=$opIndex"

  override protected def withNewChildInternal(newChild: LogicalPlan): StaggerAssign = copy(child = newChild)
}
