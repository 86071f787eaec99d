package org.apache.spark.sql.overjoin

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.classic.ExpressionUtils

/** A Catalyst expression of overjoin's as a DataFrame column, and back (Spark keeps the bridge `private[sql]`). */
object Columns {
  def of(e: Expression): Column = ExpressionUtils.column(e)
  def expressionOf(c: Column): Expression = ExpressionUtils.expression(c)
}
