package io.overjoin.catalyst.analysis

import org.apache.spark.sql.{Encoder, Encoders, Row}
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeReference, Cast, Inline, Literal, Size}
import org.apache.spark.sql.catalyst.expressions.aggregate.{CollectList, CollectSet}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, FlatMapGroupsWithState, Generate, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.streaming.{GroupStateTimeout, OutputMode}
import org.apache.spark.sql.types._

import io.overjoin.catalyst.expressions.{TimeFloor, TopKItems}
import io.overjoin.catalyst.plans.logical.{CursorFunctionInput, OverjoinNode, WindowedJoin}
import io.overjoin.errors.OverjoinErrors
import io.overjoin.execution.hotspots.HotspotsScoring
import io.overjoin.execution.rcf.RandomCutForestScoring
import io.overjoin.model.{CountDistinctCall, CursorCall, HotspotsCall, RcfCall, TopKCall}

/**
 * Kinesis Data Analytics' functions of a cursor (docs/semantics.md §14), once the cursor's query
 * is resolved: each [[CursorFunctionInput]] becomes the plan of its function, an input of the block
 * that reads it. Over tables the same plans give the same rows.
 *
 * `TABLE(RANDOM_CUT_FOREST(CURSOR(query), ...))`: the query's rows with `ANOMALY_SCORE` (and, for
 * `RANDOM_CUT_FOREST_WITH_EXPLANATION`, `ANOMALY_EXPLANATION`), scored in `ROWTIME` order by one
 * forest ([[RandomCutForestScoring]]) in a `flatMapGroupsWithState` of one group, whose state the
 * checkpoint keeps:
 * {{{
 *   CursorFunctionInput RANDOM_CUT_FOREST(...)      Project [ROWTIME, x, ..., score AS ANOMALY_SCORE]
 *   +- <query> [ROWTIME#1, x#2, ...]         ==>    +- FlatMapGroupsWithState RandomCutForestScoring, key 0
 *                                                      +- Project [ROWTIME, x, ..., 0 AS key, ROWTIME AS time]
 * }}}
 * `TABLE(TOP_K_ITEMS_TUMBLING(CURSOR(query), 'c', k, n))`: per tumbling window of `n` seconds of
 * the query's `ROWTIME`, the `k` most frequent values of `c`, through Spark's streaming aggregation
 * (a window is emitted once the watermark passes its end):
 * {{{
 *   Project [window_end AS ROWTIME, ITEM, ITEM_COUNT]
 *   +- Generate inline(top_k_items(items, k))
 *      +- Aggregate [window_end, window_start], [window_end, collect_list(CAST(c AS STRING)) AS items]
 *         +- Project [*, floor(ROWTIME to n s) AS window_start, ... + n s AS window_end]
 * }}}
 * `TABLE(COUNT_DISTINCT_ITEMS_TUMBLING(CURSOR(query), 'c', n))` is the same aggregation with the
 * window's set of values of `c`, giving `NUMBER_OF_DISTINCT_ITEMS`.
 *
 * The columns get new ids (nothing has resolved against the marker yet). The query's `ROWTIME`
 * (or a window's end) keeps its event-time mark above the operator, so the block that reads it uses
 * the query's watermark (a second one above it would hold back what it gates).
 */
object RewriteCursorFunctions extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!OverjoinNode.mayExist) return plan
    if (!plan.exists(_.isInstanceOf[CursorFunctionInput])) return plan
    plan.transformUp {
      case f: CursorFunctionInput if f.child.resolved => f.call match {
        case call: RcfCall => randomCutForest(call, f.child)
        case call: HotspotsCall => hotspots(call, f.child)
        case call: TopKCall => topKItems(call, f.child)
        case call: CountDistinctCall => countDistinctItems(call, f.child)
      }
    }
  }

  private def refuse(call: CursorCall, problem: String, fix: String): Nothing =
    throw OverjoinErrors.cursorFunctionInput(call.text, problem, fix)

  /** The position of the query's ROWTIME column. */
  private def rowtimeOf(call: CursorCall, child: LogicalPlan): Int = {
    val at = child.output.indexWhere(a => a.name.equalsIgnoreCase("ROWTIME") &&
      (a.dataType == TimestampType || a.dataType == TimestampNTZType))
    if (at < 0) refuse(call, "its query has no ROWTIME column", "select ROWTIME in the query of CURSOR(...)")
    at
  }

  /** The positions of the query's numeric columns, which make a row's point; DECIMAL is refused. */
  private def numericColumns(call: CursorCall, fields: Seq[Attribute]): Array[Int] = {
    fields.find(_.dataType.isInstanceOf[DecimalType]).foreach { a =>
      refuse(call, s"its column ${a.name} is ${a.dataType.sql}, which it does not take",
        s"cast it in the query: CAST(${a.name} AS DOUBLE)")
    }
    val numeric = fields.indices.filter(i => fields(i).dataType match {
      case ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType => true
      case _ => false
    }).toArray
    if (numeric.isEmpty) {
      refuse(call, "its query has no numeric column to score", "select the numeric columns the score should use")
    }
    numeric
  }

  private def randomCutForest(call: RcfCall, child: LogicalPlan): LogicalPlan = {
    val fields = child.output
    val rowtime = rowtimeOf(call, child)
    val numeric = numericColumns(call, fields)
    val added = Seq(StructField("ANOMALY_SCORE", DoubleType, nullable = true)) ++
      (if (call.explanation) Seq(StructField("ANOMALY_EXPLANATION", StringType, nullable = true)) else Nil)
    def state(rows: StructType) = StructType(Seq(StructField("forest", BinaryType), StructField("waiting", ArrayType(rows)),
      StructField("shingle", ArrayType(ArrayType(DoubleType, containsNull = false)))))
    oneGroup(child, rowtime, added, state,
      new RandomCutForestScoring(call, rowtime, numeric, numeric.map(fields(_).name), child.isStreaming))
  }

  /**
   * `TABLE(HOTSPOTS(CURSOR(query), windowSize, scanRadius, minimumNumberOfPointsInAHotspot))`: the
   * query's rows with `HOTSPOTS_RESULT`, the hotspots of the last `windowSize` rows' points, in
   * `ROWTIME` order through one window ([[HotspotsScoring]]), as for `RANDOM_CUT_FOREST`.
   */
  private def hotspots(call: HotspotsCall, child: LogicalPlan): LogicalPlan = {
    val rowtime = rowtimeOf(call, child)
    val numeric = numericColumns(call, child.output)
    def state(rows: StructType) = StructType(Seq(
      StructField("window", ArrayType(ArrayType(DoubleType, containsNull = false))), StructField("waiting", ArrayType(rows))))
    oneGroup(child, rowtime, Seq(StructField("HOTSPOTS_RESULT", StringType, nullable = true)), state,
      new HotspotsScoring(call, rowtime, numeric, child.isStreaming))
  }

  /**
   * `child`'s rows through `function`, a `flatMapGroupsWithState` of one group (the whole stream),
   * which gives each row back with the `added` columns; `state` is the group's state schema given
   * the rows' own.
   */
  private def oneGroup(child: LogicalPlan, rowtime: Int, added: Seq[StructField], state: StructType => StructType,
      function: (Any, Iterator[Any], org.apache.spark.sql.catalyst.plans.logical.LogicalGroupState[Any]) => Iterator[Any])
      : LogicalPlan = {
    val fields = child.output
    val streaming = child.isStreaming
    val unmarked = WindowedJoin.withoutEventTime(_: Metadata)
    val key = Alias(Literal(0), "__overjoin_rcf_key")()
    // Spark asks an event-time timeout for one event-time column among the operator's inputs.
    val eventTime = Alias(fields(rowtime), "__overjoin_rcf_time")(explicitMetadata = Some(WindowedJoin.RowtimeMetadata))
    // New ids throughout: what reads the results resolves them by name once this rewrite is done.
    // Rows cross the operator as Rows whose fields are found by name: each column is named by its
    // position there, since the query's columns may share a name (`a.x, b.x`, or 'x' beside X).
    def inner(i: Int): String = s"__overjoin_c$i"
    val columns = fields.zipWithIndex.map { case (a, i) => Alias(a, inner(i))(explicitMetadata = Some(unmarked(a.metadata))) }
    val keyed = Project(columns ++ Seq(key) ++ (if (streaming) Seq(eventTime) else Nil), child)
    val schema = StructType(fields.zipWithIndex.map { case (a, i) => StructField(inner(i), a.dataType, a.nullable, unmarked(a.metadata)) })
    val outSchema = StructType(schema.fields ++ added)
    val rowEncoder: Encoder[Row] = ExpressionEncoder(schema)
    val scored = FlatMapGroupsWithState[Int, Row, Row, Row](
      function, Seq(key.toAttribute), columns.map(_.toAttribute), OutputMode.Append(), isMapGroupsWithState = false,
      if (streaming) GroupStateTimeout.EventTimeTimeout() else GroupStateTimeout.NoTimeout(), keyed)(
      Encoders.scalaInt, rowEncoder, ExpressionEncoder(state(schema)), ExpressionEncoder(outSchema))
    // The query's columns under their names and qualifiers (ROWTIME with its event-time mark), and
    // the added ones.
    Project(fields.indices.map { i =>
      val a = fields(i)
      Alias(scored.output(i), a.name)(qualifier = a.qualifier,
        explicitMetadata = Some(if (i == rowtime) a.metadata else unmarked(a.metadata)))
    } ++ added.indices.map { j =>
      Alias(scored.output(fields.size + j), added(j).name)(qualifier = fields.head.qualifier)
    }, scored)
  }

  /** The query's column named `name` (as the query names it; case-insensitively when one column matches). */
  private def columnOf(call: CursorCall, child: LogicalPlan, name: String): Attribute =
    child.output.find(_.name == name)
      .orElse(child.output.filter(_.name.equalsIgnoreCase(name)) match {
        case Seq(one) => Some(one)
        case _ => None
      })
      .getOrElse(refuse(call, s"its query has no column '$name' (it has ${child.output.map(_.name).mkString(", ")})",
        "name one of its columns, in single quotes, as the query names it"))

  /**
   * `child` grouped by tumbling windows of `seconds` of its ROWTIME (starting at whole multiples of
   * the size, as `STEP`), with `aggregate` per window: the window's end (marked as the event time)
   * first, then the aggregate.
   */
  private def perWindow(call: CursorCall, child: LogicalPlan, seconds: Int, aggregate: Alias): Aggregate = {
    val rt = child.output(rowtimeOf(call, child))
    val size = seconds * 1000000L
    val start = Alias(TimeFloor.stepStart(rt, size), RewriteTumblingAggregates.WindowStart)()
    val end = Alias(TimeFloor.stepEnd(rt, size), RewriteTumblingAggregates.WindowEnd)(
      explicitMetadata = Some(RewriteTumblingAggregates.eventTimeMetadata(rt, child)))
    val windowed = Project(child.output :+ start :+ end, child)
    Aggregate(Seq(end.toAttribute, start.toAttribute), Seq(end.toAttribute, aggregate), windowed)
  }

  private def asString(column: Attribute): Cast = Cast(column, StringType, Some(SQLConf.get.sessionLocalTimeZone))

  private def windowEnd(grouped: Aggregate): Alias =
    Alias(grouped.output.head, "ROWTIME")(explicitMetadata = Some(grouped.output.head.metadata))

  private def topKItems(call: TopKCall, child: LogicalPlan): LogicalPlan = {
    val column = columnOf(call, child, call.column)
    val items = Alias(CollectList(asString(column)).toAggregateExpression(), "__overjoin_items")()
    val grouped = perWindow(call, child, call.windowSeconds, items)
    val item = AttributeReference("ITEM", StringType, nullable = false)()
    val count = AttributeReference("ITEM_COUNT", LongType, nullable = false)()
    val ranked = Generate(Inline(TopKItems(items.toAttribute, call.k)), unrequiredChildIndex = Seq(1), outer = false,
      qualifier = None, generatorOutput = Seq(item, count), grouped)
    Project(Seq(windowEnd(grouped), item, count), ranked)
  }

  /**
   * `TABLE(COUNT_DISTINCT_ITEMS_TUMBLING(CURSOR(query), 'c', n))`: per tumbling window of `n`
   * seconds, the number of distinct values of `c` (exact; NULL is no value), as
   * `NUMBER_OF_DISTINCT_ITEMS`. Spark's streaming aggregation has no distinct aggregates: the
   * window's set of values is its state.
   */
  private def countDistinctItems(call: CountDistinctCall, child: LogicalPlan): LogicalPlan = {
    val column = columnOf(call, child, call.column)
    val values = Alias(CollectSet(column).toAggregateExpression(), "__overjoin_values")()
    val grouped = perWindow(call, child, call.windowSeconds, values)
    Project(Seq(windowEnd(grouped), Alias(Cast(Size(grouped.output(1)), LongType), "NUMBER_OF_DISTINCT_ITEMS")()), grouped)
  }
}
