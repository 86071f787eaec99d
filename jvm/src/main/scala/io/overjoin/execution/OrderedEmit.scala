package io.overjoin.execution

import org.apache.spark.sql.{Encoder, Encoders, Row}
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{Alias, Ascending, Attribute, Expression, Literal, Murmur3Hash, Pmod, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{FlatMapGroupsWithState, LogicalGroupState, LogicalPlan, Project, Sort}
import org.apache.spark.sql.streaming.{GroupState, GroupStateTimeout, OutputMode}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructField, StructType}

import io.overjoin.catalyst.plans.logical.{OrderWithinBatch, WindowedJoin}

import io.overjoin.execution.RowTimes.micros

/**
 * `spark.overjoin.emit = ordered` (docs/semantics.md §8): rows are released in non-descending
 * ROWTIME across the whole stream, each once the watermark passes it.
 *
 * Every row a later micro-batch can still produce has a ROWTIME above the current watermark: a
 * matched row's ROWTIME is at least its later row's rowtime, which is not late, and a join that can
 * pad a row after the watermark has passed its ROWTIME holds back the watermark it passes up by as
 * much (`WindowedJoinExec.produceOutputWatermark`). So after each micro-batch
 * the rows with `ROWTIME <= watermark` are final and can go out, sorted; the others wait in state.
 * Spark has no operator for this. The waiting rows are spread over `n` = 16 groups per shuffle
 * partition by a hash of the row, each a `flatMapGroupsWithState` group with an event-time timeout
 * at its smallest waiting ROWTIME (so a batch without new rows releases too), which run in
 * parallel; then the batch's released rows, all between the previous watermark and this one, are
 * gathered into one task and sorted ([[io.overjoin.catalyst.plans.logical.OrderWithinBatch]]).
 * {{{
 *   OrderWithinBatch [ROWTIME ASC]
 *   +- SerializeFromObject
 *      +- FlatMapGroupsWithState release, key = pmod(hash(row), n), EventTimeTimeout, Append
 *         +- Project [*, pmod(hash(row), n) AS key] +- <the query>
 * }}}
 * Over tables (replay) the same mode is a sort by ROWTIME.
 */
object OrderedEmit {

  def apply(plan: LogicalPlan, rowtime: Attribute): LogicalPlan = release(plan, rowtime, Seq(SortOrder(rowtime, Ascending)))

  /**
   * `plan`'s rows, each released once the watermark reaches `releaseAt` (a column of `plan`, or an
   * expression over its columns, added as a column of its own), each batch's released rows sorted by
   * `order` (over `plan`'s columns). The caller keeps the columns it wants: with an expression, the
   * output has one column more than `plan`. A streaming `ORDER BY` ([[io.overjoin.catalyst.analysis.StreamOrderBy]])
   * releases a row at the end of its span of time.
   */
  def release(plan: LogicalPlan, releaseAt: Expression, order: Seq[SortOrder]): LogicalPlan = {
    if (!plan.isStreaming) return Sort(order, global = true, plan)
    val (input, position) = releaseAt match {
      case a: Attribute if plan.output.exists(_.exprId == a.exprId) => (plan, plan.output.indexWhere(_.exprId == a.exprId))
      case e => (Project(plan.output :+ Alias(e, "__overjoin_release_at")(), plan), plan.output.size)
    }
    // Any grouping is correct (each group releases what the watermark has passed); a hash of the
    // row spreads the waiting rows over the tasks. Map columns cannot be hashed: left out.
    def hasMap(t: DataType): Boolean = t match {
      case _: MapType => true
      case a: ArrayType => hasMap(a.elementType)
      case s: StructType => s.fields.exists(f => hasMap(f.dataType))
      case _ => false
    }
    val hashable = input.output.filterNot(a => hasMap(a.dataType))
    // Several groups per task: Spark hashes the groups onto its partitions again.
    val groups = 16 * math.max(1, SQLConf.get.numShufflePartitions)
    val key = Alias(if (hashable.isEmpty) Literal(0) else Pmod(Murmur3Hash(hashable, 42), Literal(groups)),
      "__overjoin_order_key")()
    // Spark asks an event-time timeout for an event-time column among the operator's inputs: the
    // release time, marked as one (its watermark is the query's, computed from the inputs).
    val eventTime = Alias(input.output(position), "__overjoin_order_time")(explicitMetadata = Some(WindowedJoin.RowtimeMetadata))
    // The query may select inputs' rowtimes beside ROWTIME (`B.ROWTIME AS bidTime`), and ROWTIME
    // itself may be marked as an event-time column: only `eventTime` may carry the mark into this
    // operator, which allows one (MULTIPLE_EVENT_TIME_COLUMNS otherwise). Every column is unmarked
    // explicitly, because a mark can reach a column during planning that its analyzed attribute
    // does not show.
    // Rows cross the operator as Rows whose fields are found by name: each column gets a name of
    // its own position, since a query's columns may share a name but for its case (`'Reading'`
    // beside a column READING) or wholly (`a.x, b.x`), and the right value must reach each.
    def inner(i: Int): String = s"__overjoin_c$i"
    val unmarked = input.output.zipWithIndex.map { case (a, i) =>
      Alias(a, inner(i))(exprId = a.exprId, qualifier = a.qualifier, explicitMetadata = Some(WindowedJoin.withoutEventTime(a.metadata)))
    }
    val keyed = Project(unmarked ++ Seq(key, eventTime), input)
    val schema = StructType(input.output.zipWithIndex.map { case (a, i) => StructField(inner(i), a.dataType, a.nullable,
      WindowedJoin.withoutEventTime(a.metadata)) })
    val rowEncoder: Encoder[Row] = ExpressionEncoder(schema)
    val stateEncoder: Encoder[Row] = ExpressionEncoder(StructType(Seq(StructField("waiting", ArrayType(schema)))))
    val released = FlatMapGroupsWithState[Int, Row, Row, Row](
      release(position),
      Seq(key.toAttribute), unmarked.map(_.toAttribute), OutputMode.Append(), isMapGroupsWithState = false,
      GroupStateTimeout.EventTimeTimeout(), keyed)(Encoders.scalaInt, rowEncoder, stateEncoder, rowEncoder)
    val byPosition = input.output.map(_.exprId).zip(released.output).toMap
    val rebound = order.map(_.transform { case a: Attribute if byPosition.contains(a.exprId) => byPosition(a.exprId) }.asInstanceOf[SortOrder])
    // The columns' own names back, by position.
    val sorted = OrderWithinBatch(rebound, released)
    Project(sorted.output.zip(input.output).map { case (at, a) => Alias(at, a.name)() }, sorted)
  }

  private def release(position: Int): (Any, Iterator[Any], LogicalGroupState[Any]) => Iterator[Any] = {
    (_, values, logicalState) =>
      val state = logicalState.asInstanceOf[GroupState[Row]]
      val waiting = if (state.exists) state.get.getSeq[Row](0) else Seq.empty[Row]
      val (ready, later) = RowTimes.dueAtWatermark(waiting ++ values.map(_.asInstanceOf[Row]), position, state)
      if (later.isEmpty) state.remove()
      else {
        state.update(Row(later))
        RowTimes.wakeAtEarliest(state, later, position)
      }
      ready.sortBy(r => micros(r.get(position))).iterator
  }
}
