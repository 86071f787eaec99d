package io.overjoin.catalyst.expressions

import org.apache.spark.sql.catalyst.analysis.UnresolvedException
import org.apache.spark.sql.catalyst.expressions.{Add, Expression, GetStructField, Literal, MicrosToTimestamp, Pmod, Subtract, TimeWindow, UnaryExpression, Unevaluable, UnixMicros}
import org.apache.spark.sql.types.DataType

import io.overjoin.model.GroupWindowCall

/**
 * One of Calcite's group window functions of query block `block` over the time `child`, before
 * analysis rewrites its aggregation (docs/semantics.md §11, "Calcite's group windows"): a
 * `TUMBLE`/`HOP`/`SESSION` call in `GROUP BY`, or a `TUMBLE_END`, `HOP_START`, ... call in the
 * select list, which [[io.overjoin.catalyst.analysis.RewriteTumblingAggregates]] replaces by the
 * group's window start or end. It stays unresolved until then.
 */
case class GroupWindow(block: Int, call: GroupWindowCall, child: Expression) extends UnaryExpression with Unevaluable {

  override lazy val resolved: Boolean = false
  override def dataType: DataType = throw new UnresolvedException("dataType")
  override def nullable: Boolean = true
  override def toString: String = call.text
  override def sql: String = call.text
  override protected def withNewChildInternal(newChild: Expression): GroupWindow = copy(child = newChild)

  /** The same window as `other`: the same function, intervals and alignment, over the same time. */
  def sameWindow(other: GroupWindow): Boolean = call.sameWindow(other.call) && other.child.semanticEquals(child)

  /**
   * The start and the end of the windows that hold `ts`. A tumbling window is one per row,
   * `[offset + k * size, offset + (k + 1) * size)`; a hopping window is every one that holds `ts`,
   * through Spark's own `window` function, whose rows Spark's analyzer multiplies (one per window).
   * A session's are made by Spark's `session_window` over the group instead.
   */
  def startAndEnd(ts: Expression): (Expression, Expression) = call.kind match {
    case "TUMBLE" =>
      val x = UnixMicros(ts)
      val start = Subtract(x, Pmod(Subtract(x, Literal(call.offsetMicros)), Literal(call.sizeMicros)))
      (MicrosToTimestamp(start), MicrosToTimestamp(Add(start, Literal(call.sizeMicros))))
    case "HOP" =>
      val window = TimeWindow(ts, call.sizeMicros, call.slideMicros, call.offsetMicros)
      (GetStructField(window, 0, Some("start")), GetStructField(window, 1, Some("end")))
    case other => throw new IllegalStateException(s"no per-row window for $other")
  }
}
