package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{Alias, Expression, LeafExpression, Unevaluable}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.types.DataType

/**
 * The `ROWTIME` a plain `SELECT` subquery passes on when a streaming block reads it (docs/semantics.md
 * §10: every KDA stream has one): `FROM (SELECT ticker, price FROM "STREAM_1") WHERE ...` in a
 * `SELECT STREAM` block. The parser adds this placeholder to such a subquery's select list when the
 * list names no `ROWTIME` and has no `*`; once the subquery's `FROM` is resolved, it becomes that
 * `FROM`'s column named `ROWTIME`, or nothing where there is none (a rowtime the subquery gets some
 * other way, or none: OJ203 says so as before).
 */
case class ImplicitRowtime() extends LeafExpression with Unevaluable {
  override lazy val resolved: Boolean = false
  override def dataType: DataType = throw new UnsupportedOperationException("an implicit ROWTIME not resolved yet")
  override def nullable: Boolean = true
}

object ResolveImplicitRowtime extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case p: Project if p.child.resolved && p.projectList.exists(isPlaceholder) =>
      val named = p.child.output.filter(_.name.equalsIgnoreCase("ROWTIME"))
      val column = named.find(_.name == "ROWTIME").orElse(named.headOption)
      // By name, resolved by Spark with the rest of the list: the FROM may still change (a stream
      // table read as a table is sent back to be read as a stream, with new column ids).
      p.copy(projectList = p.projectList.flatMap {
        case a if isPlaceholder(a) => column.map(c => UnresolvedAttribute(Seq(c.name))).toSeq
        case other => Seq(other)
      })
  }

  private def isPlaceholder(e: Expression): Boolean = e match {
    case Alias(_: ImplicitRowtime, _) => true
    case _ => false
  }
}
