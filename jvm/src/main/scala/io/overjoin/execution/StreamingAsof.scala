package io.overjoin.execution

import org.apache.spark.sql.{Encoder, Row}
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Cast, CreateStruct, Expression, GetStructField, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{FlatMapGroupsWithState, LogicalGroupState, LogicalPlan, Project, Union}
import org.apache.spark.sql.streaming.{GroupState, GroupStateTimeout, OutputMode}
import org.apache.spark.sql.types._

import io.overjoin.catalyst.plans.logical.WindowedJoin
import io.overjoin.execution.RowTimes.micros

/**
 * `X ASOF [LEFT] JOIN Y` on two streams (docs/semantics.md §6): each `x` is emitted once, when
 * the watermark guarantees that no closer `y` can still arrive. Spark has no operator for it: the
 * two streams are merged, tagged, and a `flatMapGroupsWithState` per equality key keeps the `x`s
 * that wait and the `y`s that can still be the closest to a future `x`.
 * {{{
 *   Project [x.*, y.*]                      (the inputs' own attributes again)
 *   +- SerializeFromObject [x, y]
 *      +- FlatMapGroupsWithState closest, keys, EventTimeTimeout, Append
 *         +- Union
 *            :- Project [keys(x), 0 AS tag, struct(x.*) AS x, NULL AS y, x.t AS tx, NULL AS ty, x.t AS event]
 *            +- Project [keys(y), 1 AS tag, NULL AS x, struct(y.*) AS y, NULL AS tx, y.t AS ty, y.t AS event]
 * }}}
 * `op` is the inequality written as `y.t op x.t`: `<=`/`<` look back for the latest `y`, `>=`/`>`
 * forward for the earliest; ties go to the latest arrival.
 *
 * State stays bounded for the backward directions: an `x` waits only until the watermark passes
 * it, and of the `y`s at or below the watermark only the latest is kept. Forward, an `x` waits for
 * a `y` after it; with no such `y` yet it waits (an `ASOF LEFT` that looks forward cannot know
 * that none will come).
 */
object StreamingAsof {

  def apply(x: LogicalPlan, y: LogicalPlan, keys: Seq[(Expression, Expression)], xTime: Expression,
      yTime: Expression, op: String, left: Boolean, xEvent: Attribute, yEvent: Attribute): LogicalPlan = {
    val xStruct = StructType(x.output.map(a => StructField(a.name, a.dataType, a.nullable)))
    val yStruct = StructType(y.output.map(a => StructField(a.name, a.dataType, a.nullable)))
    val keyTypes = keys.map(_._1.dataType)
    val timeType = xTime.dataType
    val eventMeta = WindowedJoin.RowtimeMetadata

    // Only `event` may carry the event-time mark (Spark allows one event-time column per stream).
    def col(e: Expression, name: String) = Alias(e, name)(explicitMetadata = Some(Metadata.empty))
    def side(plan: LogicalPlan, tag: Int, keyExprs: Seq[Expression], mine: Expression, event: Attribute) =
      // The value columns come first: Spark reads the group's values by position from the start.
      Project(
        Seq(
          col(Literal(tag), "tag"),
          col(if (tag == 0) mine else Literal(null, xStruct), "x"),
          col(if (tag == 1) mine else Literal(null, yStruct), "y"),
          col(if (tag == 0) Cast(xTime, timeType) else Literal(null, timeType), "tx"),
          col(if (tag == 1) Cast(yTime, timeType) else Literal(null, timeType), "ty")) ++
          keyExprs.zip(keyTypes).zipWithIndex.map { case ((k, t), i) => col(Cast(k, t), s"k$i") } :+
          Alias(event, "event")(explicitMetadata = Some(eventMeta)),
        plan)

    // Struct fields keep their columns' metadata: a rowtime's event-time mark would make a second
    // event-time column, which Spark refuses. The one event-time column is `event`.
    def plain(attrs: Seq[Attribute]) =
      CreateStruct(attrs.map(a => Alias(a, a.name)(explicitMetadata = Some(Metadata.empty))))
    val union = Union(Seq(
      side(x, 0, keys.map(_._1), plain(x.output), xEvent),
      side(y, 1, keys.map(_._2), plain(y.output), yEvent)))
    val dataAttrs = union.output.take(5)
    val keyAttrs = union.output.slice(5, 5 + keys.size)
    val dataSchema = StructType(dataAttrs.map(a => StructField(a.name, a.dataType, nullable = true)))
    val entry = (name: String, struct: StructType) =>
      StructType(Seq(StructField(name, struct), StructField("t", timeType), StructField("arrival", LongType)))
    val stateSchema = StructType(Seq(
      StructField("xs", ArrayType(entry("x", xStruct))),
      StructField("ys", ArrayType(entry("y", yStruct))),
      StructField("counter", LongType, nullable = false)))
    val outSchema = StructType(Seq(StructField("x", xStruct), StructField("y", yStruct)))
    val keyEncoder: Encoder[Row] = ExpressionEncoder(StructType(keyAttrs.map(a => StructField(a.name, a.dataType))))
    val matched = FlatMapGroupsWithState[Row, Row, Row, Row](
      new Closest(closest(op, left)),
      keyAttrs, dataAttrs, OutputMode.Append(), isMapGroupsWithState = false, GroupStateTimeout.EventTimeTimeout(),
      union)(keyEncoder, ExpressionEncoder(dataSchema), ExpressionEncoder(stateSchema), ExpressionEncoder(outSchema))
    val Seq(xOut, yOut) = matched.output
    // The join's output as the inputs' own attributes, so the query above still resolves.
    Project(
      x.output.zipWithIndex.map { case (a, i) =>
        Alias(GetStructField(xOut, i, Some(a.name)), a.name)(exprId = a.exprId, qualifier = a.qualifier) } ++
      y.output.zipWithIndex.map { case (a, i) =>
        Alias(GetStructField(yOut, i, Some(a.name)), a.name)(exprId = a.exprId, qualifier = a.qualifier) },
      matched)
  }


  private final case class Entry(row: Row, t: Long, raw: Any, arrival: Long)

  /**
   * The function of the operator that runs an ASOF join of two streams, in a class of its own so
   * that a plan shows which of its `flatMapGroupsWithState` operators is one (ordered mode cannot
   * follow it; a tag on the plan node does not survive analysis).
   */
  final class Closest(body: (Any, Iterator[Any], LogicalGroupState[Any]) => Iterator[Any])
      extends ((Any, Iterator[Any], LogicalGroupState[Any]) => Iterator[Any]) with Serializable {
    override def apply(key: Any, values: Iterator[Any], state: LogicalGroupState[Any]): Iterator[Any] =
      body(key, values, state)
  }

  private def closest(op: String, left: Boolean): (Any, Iterator[Any], LogicalGroupState[Any]) => Iterator[Any] = {
    (key, values, logicalState) =>
      if (key.asInstanceOf[Row].anyNull) {
        // An equality with NULL is never true (docs/semantics.md §4, §6): such an x meets no y
        // (ASOF LEFT emits it with NULLs at once), and such a y is never any x's closest.
        val xs = values.map(_.asInstanceOf[Row]).filter(_.getInt(0) == 0).map(r => Row(r.getStruct(1), null))
        if (left) xs else Iterator.empty
      } else {
      val state = logicalState.asInstanceOf[GroupState[Row]]
      val saved = if (state.exists) Some(state.get) else None
      var counter = saved.map(_.getLong(2)).getOrElse(0L)
      def entries(i: Int): Seq[Entry] = saved.map(_.getSeq[Row](i).map(e =>
        Entry(e.getStruct(0), micros(e.get(1)), e.get(1), e.getLong(2)))).getOrElse(Nil)
      var xs = entries(0)
      var ys = entries(1)
      values.map(_.asInstanceOf[Row]).foreach { r =>
        counter += 1
        if (r.getInt(0) == 0) xs :+= Entry(r.getStruct(1), micros(r.get(3)), r.get(3), counter)
        else ys :+= Entry(r.getStruct(2), micros(r.get(4)), r.get(4), counter)
      }
      val watermark = state.getCurrentWatermarkMs() * 1000L
      val backward = op == "<=" || op == "<"
      def allowed(yt: Long, xt: Long): Boolean = op match {
        case "<=" => yt <= xt
        case "<" => yt < xt
        case ">=" => yt >= xt
        case _ => yt > xt
      }
      def best(x: Entry): Option[Entry] = {
        val candidates = ys.filter(y => allowed(y.t, x.t))
        if (candidates.isEmpty) None
        else if (backward) Some(candidates.maxBy(y => (y.t, y.arrival)))
        else {
          val t = candidates.map(_.t).min
          Some(candidates.filter(_.t == t).maxBy(_.arrival))
        }
      }
      // When an x's answer is final: no y that is not late (t >= watermark) can still beat it.
      def readyAt(x: Entry): Option[Long] = if (backward) Some(x.t) else best(x).map(_.t)
      // Spark drops rows at or below its watermark, so every y still to come has t > watermark.
      def ready(x: Entry): Boolean = readyAt(x).exists(t => watermark >= t)
      val (done, waiting) = xs.partition(ready)
      val out = done.flatMap { x =>
        best(x) match {
          case Some(y) => Some(Row(x.row, y.row))
          case None if left => Some(Row(x.row, null))
          case None => None
        }
      }
      // Keep the y's a future x (rowtime >= watermark) could still choose.
      ys = if (backward) {
        val (old, recent) = ys.partition(_.t <= watermark)
        (if (old.isEmpty) Nil else Seq(old.maxBy(y => (y.t, y.arrival)))) ++ recent
      } else ys.filter(_.t >= watermark) ++ waiting.flatMap(best).distinct
      ys = ys.distinct
      if (waiting.isEmpty && ys.isEmpty) state.remove()
      else {
        def toRow(e: Entry) = Row(e.row, e.raw, e.arrival)
        state.update(Row(waiting.map(toRow), ys.map(toRow), counter))
        // Wake up when the watermark reaches the first waiting answer, even without new rows.
        val next = waiting.flatMap(readyAt)
        if (next.nonEmpty) {
          state.setTimeoutTimestamp(math.max(watermark / 1000L + 1, Math.floorDiv(next.min + 999L, 1000L)))
        }
      }
      out.iterator
      }
  }
}
