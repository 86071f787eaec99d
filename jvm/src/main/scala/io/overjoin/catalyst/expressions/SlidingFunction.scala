package io.overjoin.catalyst.expressions

import org.apache.spark.sql.catalyst.expressions.{Expression, Unevaluable}
import org.apache.spark.sql.types.DataType

/**
 * One window function of a [[io.overjoin.catalyst.plans.logical.SlidingWindow]], held so that
 * Spark's check of the analyzed plan does not see it: that check refuses window and aggregate
 * functions in any operator but its own `Window` and `Aggregate`. Its children are the columns
 * `function` reads (nothing else), so the analyzer's and optimizer's rewrites of references
 * (a renamed or substituted column) still reach it: a new child replaces the old one inside
 * `function`.
 */
case class SlidingFunction(function: Expression, columns: Seq[Expression]) extends Expression with Unevaluable {
  override def children: Seq[Expression] = columns
  override lazy val resolved: Boolean = function.resolved
  override def dataType: DataType = function.dataType
  override def nullable: Boolean = function.nullable
  override def toString: String = function.toString
  override def sql: String = function.sql

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): SlidingFunction = {
    val replaced = function.transformUp {
      case e if columns.exists(_.semanticEquals(e)) => newChildren(columns.indexWhere(_.semanticEquals(e)))
    }
    SlidingFunction(replaced, newChildren)
  }
}

object SlidingFunction {
  def of(function: Expression): SlidingFunction = SlidingFunction(function, function.references.toSeq)
}
