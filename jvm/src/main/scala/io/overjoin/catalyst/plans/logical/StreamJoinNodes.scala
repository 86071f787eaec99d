package io.overjoin.catalyst.plans.logical

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import io.overjoin.model.{SlidingCall, SlidingSpec, StreamBlock}

/**
 * Marks the FROM clause of a streaming-dialect query block, as the parser found it: the join
 * tree of its [[WindowedInput]]s. [[io.overjoin.catalyst.analysis.ResolveStreamJoinInputs]] turns
 * it into a [[PreparedStreamJoin]] once every input is resolved.
 */
case class StreamJoinRoot(block: StreamBlock, child: LogicalPlan) extends OverjoinNode {
  override lazy val resolved: Boolean = false
  override def simpleString(maxFields: Int): String =
    s"StreamJoinRoot block=${block.id}${if (block.selectStream) " SELECT STREAM" else ""}" +
      s" inputs=[${block.inputs.map(i => s"${i.name} ${i.window.sql}").mkString(", ")}]"
  override protected def withNewChildInternal(newChild: LogicalPlan): StreamJoinRoot = copy(child = newChild)
}

/**
 * A FROM clause whose inputs have their rowtimes and watermarks ([[RowtimeInput]],
 * [[TableInput]]), waiting for Spark to resolve its join conditions before
 * [[io.overjoin.catalyst.analysis.RewriteWindowedJoins]] adds the time conditions and `ROWTIME`:
 *
 * {{{
 *   PreparedStreamJoin block=0                   StreamJoinOutput block=0 ROWTIME#9
 *   +- Join Inner, (o.id = s.id)           ==>   +- Project [greatest(s.t, o.t) AS ROWTIME#9, s.*, o.*]
 *      :- RowtimeInput s rowtime=t ...              +- Join Inner, (o.id = s.id) AND o.t >= s.t - 1h AND o.t <= s.t
 *      +- RowtimeInput o rowtime=t ...                 :- EventTimeWatermark s.t ...
 * }}}
 */
case class PreparedStreamJoin(block: StreamBlock, child: LogicalPlan) extends OverjoinNode {
  override lazy val resolved: Boolean = false
  override def simpleString(maxFields: Int): String = s"PreparedStreamJoin block=${block.id}"
  override protected def withNewChildInternal(newChild: LogicalPlan): PreparedStreamJoin = copy(child = newChild)
}

/**
 * The rewritten FROM clause of block `block`: `child` outputs `rowtime` (the output `ROWTIME`)
 * first, then the join's columns. `inputRowtimes` maps each input's name (lower case) to its
 * rowtime attribute, for `o.ROWTIME`. `slidingCalls`/`slidingSpecs`: the block's window functions
 * and their windows as the parser found them (docs/semantics.md §12), for the errors of
 * [[io.overjoin.catalyst.analysis.RewriteSlidingWindows]]. Removed once analysis has bound every `ROWTIME`.
 */
case class StreamJoinOutput(block: Int, rowtime: Attribute, inputRowtimes: Map[String, Attribute],
    child: LogicalPlan, slidingCalls: Seq[SlidingCall] = Nil, slidingSpecs: Seq[SlidingSpec] = Nil)
  extends OverjoinNode {
  override def simpleString(maxFields: Int): String = s"StreamJoinOutput block=$block ${rowtime.name}"
  override protected def withNewChildInternal(newChild: LogicalPlan): StreamJoinOutput = copy(child = newChild)
}
