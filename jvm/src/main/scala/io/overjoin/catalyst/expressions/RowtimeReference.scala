package io.overjoin.catalyst.expressions

import org.apache.spark.sql.catalyst.analysis.UnresolvedException
import org.apache.spark.sql.catalyst.expressions.{Expression, LeafExpression, Unevaluable}
import org.apache.spark.sql.types.DataType

/**
 * `ROWTIME` in a streaming-dialect query block, before the join that defines it is rewritten.
 * Unqualified (`qualifier = None`) it is the join's output rowtime; `o.ROWTIME` is input `o`'s own
 * rowtime column, whatever that column is called. [[io.overjoin.catalyst.analysis.BindRowtimeReferences]] replaces it by the
 * attribute; Spark's own resolution never sees a bare `ROWTIME`, which would be ambiguous when the
 * inputs have ROWTIME columns themselves.
 */
case class RowtimeReference(block: Int, qualifier: Option[String], spelling: String)
  extends LeafExpression with Unevaluable {
  override lazy val resolved: Boolean = false
  override def dataType: DataType = throw new UnresolvedException("dataType")
  override def nullable: Boolean = throw new UnresolvedException("nullable")
  override def toString: String = s"rowtime_ref(${qualifier.map(_ + ".").getOrElse("")}$spelling)"
  override def sql: String = s"${qualifier.map(q => s"`$q`.").getOrElse("")}$spelling"
}
