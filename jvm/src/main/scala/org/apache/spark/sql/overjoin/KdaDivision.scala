package org.apache.spark.sql.overjoin

import org.apache.spark.sql.catalyst.analysis.UnresolvedException
import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Cast, Expression, InheritAnalysisRules, RuntimeReplaceable, Unevaluable}
import org.apache.spark.sql.catalyst.trees.CurrentOrigin
import org.apache.spark.sql.types.{DataType, IntegralType, LongType}

// Kinesis Data Analytics' division of whole numbers, the rule that decides KDA's time calls and
// divisions once their operands are resolved, and KDA's row that divides by zero (left out).

/**
 * `a / b` in a streaming query block, until the operands' types are known. KDA's reference
 * ("Streaming SQL Operators"): operands of one type give that type, so `5/2` is 2, not 2.5; of
 * different types, the more precise one. Two whole numbers divide to a whole number (truncated
 * toward zero, as Java divides), of the wider operand's type; anything else is Spark's division.
 */
case class KdaDivide(left: Expression, right: Expression) extends BinaryExpression with Unevaluable {
  override lazy val resolved: Boolean = false
  override def dataType: DataType = throw new UnresolvedException("dataType")
  override def nullable: Boolean = true
  override def sql: String = s"(${left.sql} / ${right.sql})"
  override def toString: String = s"($left / $right)"

  def decide: Expression = CurrentOrigin.withOrigin(origin) {
    val division = (left.dataType, right.dataType) match {
      case (l: IntegralType, r: IntegralType) =>
        val wider = if (l.defaultSize >= r.defaultSize) l else r
        new KdaIntegerDivide(left, right, wider)
      case _ => org.apache.spark.sql.catalyst.expressions.Divide(left, right)
    }
    // Under ANSI (Spark's default) a zero divisor fails the query; KDA left the row out
    // ([[LeaveOutZeroDivisions]]). Without ANSI it is NULL, as Spark's.
    if (org.apache.spark.sql.internal.SQLConf.get.ansiEnabled) KdaRowDivision(division) else division
  }

  override protected def withNewChildrenInternal(l: Expression, r: Expression): KdaDivide = copy(left = l, right = r)
}

/** KDA's division of two whole numbers: Spark's `div`, in the wider operand's type. */
case class KdaIntegerDivide(left: Expression, right: Expression, replacement: Expression)
  extends RuntimeReplaceable with InheritAnalysisRules {
  def this(left: Expression, right: Expression, resultType: DataType) = this(left, right,
    Cast(org.apache.spark.sql.catalyst.expressions.IntegralDivide(Cast(left, LongType), Cast(right, LongType)), resultType))
  override def parameters: Seq[Expression] = Seq(left, right)
  override def makeSQLString(childrenSQL: Seq[String]): String = childrenSQL.mkString("(", " / ", ")")
  override protected def withNewChildInternal(newChild: Expression): KdaIntegerDivide = copy(replacement = newChild)
}

/** Analysis of [[KdaTimeCall]]s and [[KdaDivide]]s: each decided once its arguments are resolved. */
object ResolveKdaCalls extends org.apache.spark.sql.catalyst.rules.Rule[org.apache.spark.sql.catalyst.plans.logical.LogicalPlan] {
  override def apply(plan: org.apache.spark.sql.catalyst.plans.logical.LogicalPlan)
      : org.apache.spark.sql.catalyst.plans.logical.LogicalPlan =
    plan.resolveExpressions {
      case k: KdaTimeCall if k.child.resolved => k.decide
      case d: KdaDivide if d.left.resolved && d.right.resolved => d.decide
    }
}

/**
 * A division of a streaming block, as Spark divides ([[replacement]]): marked so that
 * [[LeaveOutZeroDivisions]] can leave out the rows whose divisor is zero, as KDA sent them to its
 * error stream instead of failing (docs/semantics.md §10). Where that rule does not apply, it is
 * the division itself.
 */
case class KdaRowDivision(replacement: Expression) extends RuntimeReplaceable with InheritAnalysisRules {
  /** The divisor, as the division reads it. */
  def divisor: Expression = replacement match {
    case d: org.apache.spark.sql.catalyst.expressions.Divide => d.right
    case d: KdaIntegerDivide => d.right
    case other => throw new IllegalStateException(s"not a division: $other")
  }
  override def parameters: Seq[Expression] = Seq(replacement)
  override def makeSQLString(childrenSQL: Seq[String]): String = childrenSQL.mkString
  override def toString: String = replacement.toString
  override protected def withNewChildInternal(newChild: Expression): KdaRowDivision = copy(replacement = newChild)
}
