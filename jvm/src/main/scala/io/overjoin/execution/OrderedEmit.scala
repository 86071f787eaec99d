package io.overjoin.execution

import org.apache.spark.sql.{Encoder, Encoders, Row}
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{Alias, Ascending, Attribute, Literal, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{EventTimeWatermark, FlatMapGroupsWithState, LogicalGroupState, LogicalPlan, Project, Sort}
import org.apache.spark.sql.streaming.{GroupState, GroupStateTimeout, OutputMode}
import org.apache.spark.sql.types.{ArrayType, MetadataBuilder, StructField, StructType}

import io.overjoin.execution.RowTimes.micros

/**
 * `spark.overjoin.emit = ordered` (docs/semantics.md §8): rows are released in non-descending
 * ROWTIME across the whole stream, each once the watermark passes it.
 *
 * Every row a later micro-batch can still produce has a ROWTIME above the current watermark: a
 * matched row's ROWTIME is at least its later row's rowtime, which is not late, and a null-padded
 * row leaves the join only once the watermark has reached its ROWTIME. So after each micro-batch
 * the rows with `ROWTIME <= watermark` are final and can go out, sorted; the others wait in state.
 * Spark has no operator for this; it is a `flatMapGroupsWithState` over one key with an
 * event-time timeout at the smallest waiting ROWTIME, so a batch without new rows releases too.
 * {{{
 *   SerializeFromObject
 *   +- FlatMapGroupsWithState release, key = 0, EventTimeTimeout, Append
 *      +- Project [*, 0 AS key] +- <the query>
 * }}}
 * Over tables (replay) the same mode is a sort by ROWTIME.
 */
object OrderedEmit {

  def apply(plan: LogicalPlan, rowtime: Attribute): LogicalPlan = {
    if (!plan.isStreaming) return Sort(Seq(SortOrder(rowtime, Ascending)), global = true, plan)
    val key = Alias(Literal(0), "__overjoin_order_key")()
    // Spark asks an event-time timeout for an event-time column among the operator's inputs: the
    // ROWTIME, marked as one (its watermark is the query's, computed from the inputs).
    val eventTime = Alias(rowtime, "__overjoin_order_time")(explicitMetadata = Some(
      new MetadataBuilder().putLong(EventTimeWatermark.delayKey, 0L).build()))
    // The query may select inputs' rowtimes beside ROWTIME (`B.ROWTIME AS bidTime`), and ROWTIME
    // itself may be marked as an event-time column: only `eventTime` may carry the mark into this
    // operator, which allows one (MULTIPLE_EVENT_TIME_COLUMNS otherwise). Every column is unmarked
    // explicitly, because a mark can reach a column during planning that its analyzed attribute
    // does not show.
    val unmarked = plan.output.map { a =>
      Alias(a, a.name)(exprId = a.exprId, qualifier = a.qualifier,
        explicitMetadata = Some(new MetadataBuilder().withMetadata(a.metadata).remove(EventTimeWatermark.delayKey).build()))
    }
    val keyed = Project(unmarked ++ Seq(key, eventTime), plan)
    val schema = StructType(plan.output.map(a => StructField(a.name, a.dataType, a.nullable,
      new MetadataBuilder().withMetadata(a.metadata).remove(EventTimeWatermark.delayKey).build())))
    val position = plan.output.indexWhere(_.exprId == rowtime.exprId)
    val rowEncoder: Encoder[Row] = ExpressionEncoder(schema)
    val stateEncoder: Encoder[Row] = ExpressionEncoder(StructType(Seq(StructField("waiting", ArrayType(schema)))))
    FlatMapGroupsWithState[Int, Row, Row, Row](
      release(position),
      Seq(key.toAttribute), plan.output, OutputMode.Append(), isMapGroupsWithState = false,
      GroupStateTimeout.EventTimeTimeout(), keyed)(Encoders.scalaInt, rowEncoder, stateEncoder, rowEncoder)
  }


  private def release(position: Int): (Any, Iterator[Any], LogicalGroupState[Any]) => Iterator[Any] = {
    (_, values, logicalState) =>
      val state = logicalState.asInstanceOf[GroupState[Row]]
      val waiting = if (state.exists) state.get.getSeq[Row](0) else Seq.empty[Row]
      val all = waiting ++ values.map(_.asInstanceOf[Row])
      val watermarkMicros = state.getCurrentWatermarkMs() * 1000L
      val (ready, later) = all.partition(r => micros(r.get(position)) <= watermarkMicros)
      if (later.isEmpty) state.remove()
      else {
        state.update(Row(later))
        // The timeout fires once the watermark is past it: at the earliest waiting ROWTIME.
        val earliest = later.map(r => micros(r.get(position))).min
        state.setTimeoutTimestamp(Math.floorDiv(earliest + 999L, 1000L))
      }
      ready.sortBy(r => micros(r.get(position))).iterator
  }
}
