package io.overjoin.catalyst

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}

import io.overjoin.parser.StreamBlock

/**
 * Marks the FROM clause of a streaming-dialect query block: the join tree of its
 * [[WindowedInput]]s. [[RewriteWindowedJoins]] replaces it, once everything below is resolved, with
 * the time-bounded join and the output `ROWTIME` column:
 *
 * {{{
 *   StreamJoinRoot block=0                  StreamJoinOutput block=0 ROWTIME#9
 *   +- Join Inner, (o.id = s.id)      ==>   +- Project [greatest(s.t, o.t) AS ROWTIME#9, s.*, o.*]
 *      :- WindowedInput s ...                  +- Join Inner, (o.id = s.id) AND o.t >= s.t - 1h AND o.t <= s.t
 *      +- WindowedInput o ...                     :- EventTimeWatermark s.t ...
 * }}}
 */
case class StreamJoinRoot(block: StreamBlock, prepared: Boolean, child: LogicalPlan) extends UnaryNode {
  override def output: Seq[Attribute] = child.output
  override lazy val resolved: Boolean = false
  override def simpleString(maxFields: Int): String =
    s"StreamJoinRoot block=${block.id}${if (block.selectStream) " SELECT STREAM" else ""}" +
      s" inputs=[${block.inputs.map(i => s"${i.name} ${i.window.sql}").mkString(", ")}]"
  override protected def withNewChildInternal(newChild: LogicalPlan): StreamJoinRoot = copy(child = newChild)
}

/**
 * The rewritten FROM clause of block `block`: `child` outputs `rowtime` (the output `ROWTIME`)
 * first, then the join's columns. `inputRowtimes` maps each input's name (lower case) to its
 * rowtime attribute, for `o.ROWTIME`. Removed after analysis by [[RemoveStreamJoinMarkers]].
 */
case class StreamJoinOutput(block: Int, rowtime: Attribute, inputRowtimes: Map[String, Attribute],
    child: LogicalPlan) extends UnaryNode {
  override def output: Seq[Attribute] = child.output
  override def simpleString(maxFields: Int): String = s"StreamJoinOutput block=$block ${rowtime.name}"
  override protected def withNewChildInternal(newChild: LogicalPlan): StreamJoinOutput = copy(child = newChild)
}
