package io.overjoin.catalyst.expressions

import org.apache.spark.sql.catalyst.expressions.{Expression, Unevaluable}
import org.apache.spark.sql.types.DataType

/**
 * `LAG(x [, k [, default]]) [IGNORE NULLS] OVER w` in a streaming-dialect block whose window `w`
 * has a frame, before [[io.overjoin.catalyst.analysis.RewriteSlidingWindows]] gives it Kinesis
 * Data Analytics' meaning: the k-th row before the current one *within its window* (docs/semantics.md
 * §12). Spark's own `lag` ignores the frame (and refuses one), so the parser puts this in its
 * place; it stays unresolved until its arguments and its window are.
 */
case class SlidingLag(children: Seq[Expression], ignoreNulls: Boolean) extends Expression with Unevaluable {
  override lazy val resolved: Boolean = false
  override def dataType: DataType = children.head.dataType
  override def nullable: Boolean = true
  override def prettyName: String = "lag"
  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): SlidingLag =
    copy(children = newChildren)
}
