package org.apache.spark.sql.overjoin

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import org.apache.spark.sql.catalyst.expressions.{Alias, And, Cast, ConditionalExpression, EqualNullSafe, Expression, If, LambdaFunction, Literal, Not, Or, SubqueryExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.Sum
import org.apache.spark.sql.catalyst.plans.logical.{CollectMetrics, Filter, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.types.LongType

/**
 * KDA's rows that divide by zero (docs/semantics.md §10): in KDA such a row went to the error
 * stream and the query went on; under Spark's ANSI default it fails the query. A `SELECT` list or
 * `WHERE` of a streaming block whose division always runs (not in a `CASE` branch, an `IF`'s
 * branches, `COALESCE`'s later arguments or the right of `AND`/`OR`, which run only for some rows)
 * gets, below it, a filter that leaves out the rows whose divisor is zero, and metrics that count
 * them ([[ZeroDivisions]]: logged, and `error_rows` in `DESCRIBE PUMP`). Any other division, an
 * aggregate's included, is Spark's. Post-hoc: the plan is resolved, and no overjoin rule sees the
 * filter.
 */
object LeaveOutZeroDivisions extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!plan.exists(_.expressions.exists(_.exists(_.isInstanceOf[KdaRowDivision])))) plan
    else plan.transformUp {
      case p: Project if p.projectList.exists(marked) =>
        val (list, child) = (p.projectList.map(strip(_).asInstanceOf[org.apache.spark.sql.catalyst.expressions.NamedExpression]),
          guard(p.child, p.projectList.flatMap(always)))
        p.copy(projectList = list, child = child)
      case f: Filter if marked(f.condition) =>
        f.copy(condition = strip(f.condition), child = guard(f.child, always(f.condition)))
      case other if other.expressions.exists(marked) => other.transformExpressions { case d: KdaRowDivision => d.replacement }
    }

  private def marked(e: Expression): Boolean = e.exists(_.isInstanceOf[KdaRowDivision])

  private def strip(e: Expression): Expression = e.transform { case d: KdaRowDivision => d.replacement }

  /** The divisors of the divisions `e` always evaluates, where a zero divisor would fail the row. */
  private def always(e: Expression): Seq[Expression] = e match {
    case d: KdaRowDivision =>
      val divisor = strip(d.divisor)
      d.replacement.children.flatMap(always) ++
        (if (divisor.deterministic && !divisor.exists(_.isInstanceOf[SubqueryExpression])) Seq(divisor) else Nil)
    case c: ConditionalExpression => c.alwaysEvaluatedInputs.flatMap(always)
    case a: And => always(a.left)
    case o: Or => always(o.left)
    case _: LambdaFunction => Nil
    case other => other.children.flatMap(always)
  }

  private def guard(child: LogicalPlan, divisors: Seq[Expression]): LogicalPlan = if (divisors.isEmpty) child else {
    val distinct = divisors.foldLeft(Seq.empty[Expression])((seen, d) => if (seen.exists(_.semanticEquals(d))) seen else seen :+ d)
    val zero = distinct.map(d => EqualNullSafe(d, Cast(Literal(0), d.dataType)): Expression).reduce(Or(_, _))
    val name = ZeroDivisions.register(distinct.map(_.sql).mkString(", "))
    val count = Alias(Sum(If(zero, Literal(1L), Literal(0L))).toAggregateExpression(), "rows")()
    Filter(Not(zero), CollectMetrics(name, Seq(count), child, 0L))
  }
}

/**
 * The rows streaming queries left out because they divided by zero ([[LeaveOutZeroDivisions]]):
 * counted per query from its progress's observed metrics, and logged at each micro-batch that
 * leaves any out, naming the divisors.
 */
object ZeroDivisions extends org.apache.spark.internal.Logging {
  val MetricPrefix = "overjoin_zero_divisor"
  private val ids = new AtomicLong()
  private val divisors = new ConcurrentHashMap[String, String]()
  private val totals = new ConcurrentHashMap[String, AtomicLong]()
  private val last = new ConcurrentHashMap[String, String]()

  /** A metric name of its own for a guard over `what` (the divisors, as SQL). */
  def register(what: String): String = {
    val name = s"$MetricPrefix:${ids.incrementAndGet()}"
    divisors.put(name, what)
    name
  }

  /** Rows query `query` (its name, or its id when it has none) left out so far. */
  def total(query: String): Long = Option(totals.get(query.toLowerCase)).map(_.get).getOrElse(0L)

  /** The divisors of the last rows it left out. */
  def sample(query: String): String = last.get(query.toLowerCase)

  private val installed = ConcurrentHashMap.newKeySet[org.apache.spark.sql.SparkSession]()

  /** A query over tables (replay) reports its rows left out too, once it has run. */
  def ensureInstalled(session: org.apache.spark.sql.SparkSession): Unit = if (installed.add(session)) {
    session.listenerManager.register(new org.apache.spark.sql.util.QueryExecutionListener {
      override def onSuccess(funcName: String, qe: org.apache.spark.sql.execution.QueryExecution, durationNs: Long): Unit =
        if (!qe.analyzed.isStreaming) {
          val metrics = new java.util.HashMap[String, org.apache.spark.sql.Row]()
          qe.observedMetrics.foreach { case (k, v) => metrics.put(k, v) }
          observed("a query over tables", 0L, metrics)
        }
      override def onFailure(funcName: String, qe: org.apache.spark.sql.execution.QueryExecution, e: Exception): Unit = ()
    })
  }

  /** A micro-batch's observed metrics, from the query listener. */
  def observed(query: String, batch: Long, metrics: java.util.Map[String, org.apache.spark.sql.Row]): Unit =
    metrics.forEach { (metric, row) =>
      if (metric.startsWith(MetricPrefix) && row != null && !row.isNullAt(0) && row.getLong(0) > 0) {
        val n = row.getLong(0)
        val what = Option(divisors.get(metric)).getOrElse("a divisor")
        val total = totals.computeIfAbsent(query.toLowerCase, _ => new AtomicLong()).addAndGet(n)
        last.put(query.toLowerCase, what)
        logWarning(s"overjoin: query $query batch $batch: $n row(s) divided by zero ($what is 0) and were left out, " +
          s"as KDA sent them to its error stream ($total so far)")
      }
    }
}
