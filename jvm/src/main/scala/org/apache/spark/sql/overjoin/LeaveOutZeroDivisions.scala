package org.apache.spark.sql.overjoin

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Alias, And, Attribute, Cast, CreateNamedStruct, ConditionalExpression, EqualNullSafe, Expression, ExpressionSet, If, LambdaFunction, Literal, NamedExpression, Not, Or, SubqueryExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, Sum}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, CollectMetrics, EventTimeWatermark, Filter, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.QueryExecution
import org.apache.spark.sql.streaming.StreamingQueryListener
import org.apache.spark.sql.types.{TimestampNTZType, TimestampType}
import org.apache.spark.sql.util.QueryExecutionListener

/**
 * KDA's rows that divide by zero (docs/semantics.md §10): in KDA such a row went to the error
 * stream and the query went on; under Spark's ANSI default it fails the query. A `SELECT` list or
 * `WHERE` of a streaming block whose division always runs (not in a `CASE` branch, an `IF`'s
 * branches, `COALESCE`'s later arguments or the right of `AND`/`OR`, which run only for some rows)
 * gets, below it, a filter that leaves out the rows whose divisor is zero, and metrics that count
 * them ([[ZeroDivisions]]: logged, and `error_rows` in `DESCRIBE PUMP`); in an aggregation, a
 * division each input row runs leaves that row out, and one of a group's result leaves the group's
 * row out. Any other division is Spark's. Post-hoc: the plan is resolved, and no overjoin rule sees
 * the filter.
 */
object LeaveOutZeroDivisions extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!plan.exists(_.expressions.exists(marked))) plan
    else {
      // Guards are numbered in the plan's order, so a replayed micro-batch names its error files as before.
      val guards = new java.util.concurrent.atomic.AtomicInteger()
      plan.transformUp {
        case a: Aggregate if a.expressions.exists(marked) => aggregate(a, guards)
        case p: Project if p.projectList.exists(marked) =>
          p.copy(projectList = p.projectList.map(strip(_).asInstanceOf[NamedExpression]),
            child = guard(p.child, p.projectList.flatMap(always(_)), guards))
        case f: Filter if marked(f.condition) =>
          f.copy(condition = strip(f.condition), child = guard(f.child, always(f.condition), guards))
        case other if other.expressions.exists(marked) => other.mapExpressions(strip)
      }
    }

  private def marked(e: Expression): Boolean = e.exists(_.isInstanceOf[KdaRowDivision])

  private def strip(e: Expression): Expression = e.transform { case d: KdaRowDivision => d.replacement }

  /**
   * The divisors of the divisions `e` always evaluates, where a zero divisor would fail the row;
   * with `perGroup`, those of an aggregation's result (not inside an aggregate function, which
   * runs per row of the group).
   */
  private def always(e: Expression, perGroup: Boolean = false): Seq[Expression] = e match {
    case _: AggregateExpression if perGroup => Nil
    case d: KdaRowDivision =>
      val divisor = strip(d.divisor)
      d.replacement.children.flatMap(always(_, perGroup)) ++
        (if (divisor.deterministic && !divisor.exists(_.isInstanceOf[SubqueryExpression])) Seq(divisor) else Nil)
    case c: ConditionalExpression => c.alwaysEvaluatedInputs.flatMap(always(_, perGroup))
    case a: And => always(a.left, perGroup)
    case o: Or => always(o.left, perGroup)
    case _: LambdaFunction => Nil
    case other => other.children.flatMap(always(_, perGroup))
  }

  /**
   * An aggregation of a streaming block (docs/semantics.md §10): a division that every input row
   * runs (in the `GROUP BY`, or in an aggregate function's argument, without a `FILTER`) leaves
   * the input row out of its group, below the aggregation, as above; one of the group's result
   * (`SUM(a) / COUNT(b)`) leaves the group's row out, above it: the divisor is computed beside the
   * result as a hidden column, the division gives NULL where it is zero instead of failing, and a
   * filter above drops that row (counted as well), before the hidden columns are projected away.
   * {{{
   *                                           Project [k, q]
   *                                           +- Filter NOT (d <=> 0)
   *   Aggregate [k], [k, SUM(a) / SUM(b) q]      +- CollectMetrics
   *                                      ==>        +- Aggregate [k], [k, IF(SUM(b) <=> 0, NULL, SUM(a) / SUM(b)) q, SUM(b) d]
   * }}}
   */
  private def aggregate(a: Aggregate, guards: java.util.concurrent.atomic.AtomicInteger): LogicalPlan = {
    val perRow = a.groupingExpressions.flatMap(always(_)) ++ a.aggregateExpressions.flatMap(_.collect {
      case ae: AggregateExpression if ae.filter.isEmpty => ae.aggregateFunction.children.flatMap(always(_))
    }.flatten)
    val child = guard(a.child, perRow, guards)
    val perGroup = ExpressionSet(a.aggregateExpressions.flatMap(always(_, perGroup = true))).toSeq
    if (perGroup.isEmpty) {
      return a.copy(groupingExpressions = a.groupingExpressions.map(strip),
        aggregateExpressions = a.aggregateExpressions.map(strip(_).asInstanceOf[NamedExpression]), child = child)
    }
    def safe(e: Expression): Expression = e match {
      case ae: AggregateExpression => strip(ae)
      case d: KdaRowDivision if perGroup.exists(_.semanticEquals(strip(d.divisor))) =>
        val divisor = strip(d.divisor)
        If(EqualNullSafe(divisor, Cast(Literal(0), divisor.dataType)), Literal(null, d.dataType), d.replacement.mapChildren(safe))
      case d: KdaRowDivision => d.replacement.mapChildren(safe)
      case other => other.mapChildren(safe)
    }
    val hidden = perGroup.zipWithIndex.map { case (d, i) => Alias(d, s"__overjoin_divisor_$i")() }
    val results = a.copy(groupingExpressions = a.groupingExpressions.map(strip),
      aggregateExpressions = a.aggregateExpressions.map(safe(_).asInstanceOf[NamedExpression]) ++ hidden, child = child)
    val zero = hidden.map(h => EqualNullSafe(h.toAttribute, Cast(Literal(0), h.dataType)): Expression).reduce(Or(_, _))
    val name = ZeroDivisions.register(perGroup.map(_.sql).mkString(", "))
    val count = Alias(Sum(If(zero, Literal(1L), Literal(0L))).toAggregateExpression(), "rows")()
    val what = perGroup.map(_.sql).mkString(", ")
    val collected = CollectMetrics(name, Seq(count), results, 0L)
    Project(a.output, Filter(Not(kept(zero, what, a.output, guards)), collected))
  }

  private def guard(child: LogicalPlan, divisors: Seq[Expression], guards: java.util.concurrent.atomic.AtomicInteger): LogicalPlan =
    if (divisors.isEmpty) child else {
      val distinct = ExpressionSet(divisors).toSeq
      val zero = distinct.map(d => EqualNullSafe(d, Cast(Literal(0), d.dataType)): Expression).reduce(Or(_, _))
      val what = distinct.map(_.sql).mkString(", ")
      val name = ZeroDivisions.register(what)
      val count = Alias(Sum(If(zero, Literal(1L), Literal(0L))).toAggregateExpression(), "rows")()
      Filter(Not(kept(zero, what, child.output, guards)), CollectMetrics(name, Seq(count), child, 0L))
    }

  /**
   * The filter's test of a zero divisor: `zero` itself, or in a pump's session a [[DivertedRow]]
   * that also keeps the rows it is true for, as rows of `error_stream` (the row: the columns of
   * `row`, its ROWTIME the column of that name, else its one event-time column).
   */
  private def kept(zero: Expression, what: String, row: Seq[Attribute], guards: java.util.concurrent.atomic.AtomicInteger): Expression = {
    val visible = row.filterNot(_.name.startsWith("__overjoin_"))
    val struct = CreateNamedStruct(visible.flatMap(a => Seq(Literal(a.name), a)))
    val time = (t: Attribute) => t.dataType == TimestampType || t.dataType == TimestampNTZType
    val rowtime = visible.find(a => a.name.equalsIgnoreCase("ROWTIME") && time(a))
      .orElse(Some(visible.filter(a => time(a) && a.metadata.contains(EventTimeWatermark.delayKey))).filter(_.size == 1).map(_.head))
    val id = s"z${guards.incrementAndGet()}x${Integer.toHexString((what + "|" + visible.map(_.name).mkString(",")).hashCode)}"
    ZeroDivisionRows.spec(id, what, DataTypeUtils.fromAttributes(visible))
      .map(spec => DivertedRow(zero, struct, rowtime, spec): Expression).getOrElse(zero)
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

  private val installed = ConcurrentHashMap.newKeySet[SparkSession]()

  /**
   * The session's listeners: a streaming query's micro-batches report their rows left out, and so
   * does a query over tables (replay) once it has run. Nothing is read until a guard exists.
   */
  def ensureInstalled(session: SparkSession): Unit = if (installed.add(session)) {
    session.streams.addListener(new StreamingQueryListener {
      override def onQueryStarted(event: StreamingQueryListener.QueryStartedEvent): Unit = ()
      override def onQueryIdle(event: StreamingQueryListener.QueryIdleEvent): Unit = ()
      override def onQueryTerminated(event: StreamingQueryListener.QueryTerminatedEvent): Unit = ()
      override def onQueryProgress(event: StreamingQueryListener.QueryProgressEvent): Unit = if (ids.get > 0) {
        val p = event.progress
        observed(Option(p.name).getOrElse(p.id.toString), p.batchId, p.observedMetrics.asScala.toMap)
      }
    })
    session.listenerManager.register(new QueryExecutionListener {
      override def onSuccess(funcName: String, qe: QueryExecution, durationNs: Long): Unit =
        if (ids.get > 0 && !qe.analyzed.isStreaming) observed("a query over tables", 0L, qe.observedMetrics)
      override def onFailure(funcName: String, qe: QueryExecution, e: Exception): Unit = ()
    })
  }

  private def observed(query: String, batch: Long, metrics: Map[String, Row]): Unit =
    metrics.foreach { case (metric, row) =>
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
