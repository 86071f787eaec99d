package io.overjoin.catalyst.plans.logical

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import io.overjoin.model.StreamInput

/**
 * A join input of a streaming-dialect query block, with its window, as the parser found it:
 *
 * {{{
 *   FROM Orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o
 *   ==>  WindowedInput o (RANGE INTERVAL '1' HOUR PRECEDING)
 *        +- SubqueryAlias o
 *           +- UnresolvedRelation [Orders]
 * }}}
 *
 * It stays unresolved until [[io.overjoin.catalyst.analysis.ResolveStreamJoinInputs]] has chosen
 * the input's rowtime and given it a watermark; that keeps Spark's join resolution (NATURAL, USING)
 * waiting for overjoin's rules, which must leave rowtime columns out of it.
 */
case class WindowedInput(block: Int, input: StreamInput, child: LogicalPlan) extends OverjoinNode {
  override lazy val resolved: Boolean = false
  override def simpleString(maxFields: Int): String = s"WindowedInput ${input.name} ${input.window.sql}"
  override protected def withNewChildInternal(newChild: LogicalPlan): WindowedInput = copy(child = newChild)
}

/**
 * A join input whose rowtime is known (`rowtime`, an attribute of `child`'s output) and, for a
 * stream, whose watermark is set. `isStream` is false for a static input of a query that also reads
 * streams (a table: docs/semantics.md §5); in replay every input counts as a stream. For a ROWS
 * window, `rowsEnd` is the column that ends each row's life interval (NULL while it never closes).
 * For a `TUMBLE`/`HOP` input, `windowEnd` is its `window_end` column, the rows' ROWTIME. A stream
 * with a ROWS window has `streamRows` instead of `rowsEnd`: the join's operator finds the ends.
 */
case class RowtimeInput(block: Int, input: StreamInput, rowtime: Attribute, isStream: Boolean,
    child: LogicalPlan, rowsEnd: Option[Attribute] = None, windowEnd: Option[Attribute] = None,
    streamRows: Option[RowsWindow] = None)
  extends OverjoinNode {
  override def simpleString(maxFields: Int): String =
    s"RowtimeInput ${input.name} rowtime=${rowtime.name} ${input.window.sql}${if (isStream) "" else " (table)"}"
  override protected def withNewChildInternal(newChild: LogicalPlan): RowtimeInput = copy(child = newChild)
}

/**
 * A static input of a query block that also reads streams: a table (docs/semantics.md §5). It
 * has no window; each stream row meets it as it is when the row is processed. `rowtime` is its
 * rowtime column if it has one (for `t.ROWTIME`), not needed otherwise.
 */
case class TableInput(block: Int, input: StreamInput, rowtime: Option[Attribute], child: LogicalPlan)
  extends OverjoinNode {
  override def simpleString(maxFields: Int): String = s"TableInput ${input.name}"
  override protected def withNewChildInternal(newChild: LogicalPlan): TableInput = copy(child = newChild)
}
