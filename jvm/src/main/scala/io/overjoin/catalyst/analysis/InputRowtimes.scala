package io.overjoin.catalyst.analysis

import java.util.UUID

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{Metadata, MetadataBuilder, TimestampNTZType, TimestampType}
import org.apache.spark.unsafe.types.CalendarInterval

import io.overjoin.catalyst.plans.logical.{RowsWindow, RowtimeInput, StreamJoinOutput, TableInput, WatermarkFence, WindowedInput}
import io.overjoin.config.OverjoinConf
import io.overjoin.errors.OverjoinErrors
import io.overjoin.model.{RowsFrame, WindowTvf}
import io.overjoin.streams.Streams

/**
 * Each join input's rowtime (docs/semantics.md §1) and what a stream input needs beside it: a
 * watermark, the `TUMBLE`/`HOP` window columns (§7), or, over tables, the end of each ROWS-window
 * row's life interval (§3).
 */
private[analysis] object InputRowtimes {

  /** A static input of a streaming query: a table, which has no window (docs/semantics.md §5). */
  def tableInput(w: WindowedInput): TableInput = {
    if (w.input.lookup && w.child.isStreaming) {
      throw OverjoinErrors.tableInput(w.input.origin, w.input.name,
        "FOR SYSTEM_TIME AS OF PROCTIME() looks rows up in a table, and this input is a stream: " +
          "join the two streams with windows instead")
    }
    if (w.input.window.explicit) {
      val at = w.input.windowStart.map(_ => "OVER").getOrElse("WITHIN")
      throw OverjoinErrors.tableInput(w.input.origin, w.input.name,
        s"it is a table (a static relation) joined with a stream, and tables have no window: drop its $at")
    }
    TableInput(w.block, w.input, declaredRowtime(w.child.output), w.child)
  }

  /** Rules 2 and 3 of docs/semantics.md §1: the watermark column, else a column named ROWTIME. */
  def declaredRowtime(output: Seq[Attribute]): Option[Attribute] =
    output.find(_.metadata.contains(EventTimeWatermark.delayKey))
      .orElse(output.find(_.name.equalsIgnoreCase("ROWTIME")))

  /**
   * Chooses the rowtime of one input (docs/semantics.md §1) and gives a stream its watermark: the
   * lateness of its block's t-sort (`ORDER BY key WITHIN interval`, §11) when it has one, else the
   * stream's own (`CREATE STREAM ... WITH (lateness = ...)`), else `latenessMicros`.
   */
  def rowtimeInput(w0: WindowedInput, isStream: Boolean, latenessMicros: Long, sortWithin: Option[Long] = None): RowtimeInput = {
    val w = withViewRowtime(w0)
    val child = w.child
    val input = w.input
    val source = if (input.alias.isDefined) s"${input.name} (${input.source})" else input.source
    val stream = Streams.readBy(child)
    val rowtime = chooseRowtime(w, source)
    rowtime.dataType match {
      case TimestampType | TimestampNTZType =>
      case other => throw OverjoinErrors.rowtimeNotTimestamp(input.origin, rowtime.name, source, other.sql)
    }
    if (input.window.frame.isInstanceOf[RowsFrame] && child.isStreaming && !OverjoinConf.ownJoinOperator()) {
      throw OverjoinErrors.rowsWindowOnStream(input.origin, source)
    }
    // A stream of CREATE STREAM ... WITH (lateness = '...') keeps its own (docs/semantics.md §10),
    // unless the query says how late a row may be (a t-sort's WITHIN, §11).
    val lateness = sortWithin.orElse(stream.flatMap(Streams.latenessMicros)).getOrElse(latenessMicros)
    val watermarked = if (child.isStreaming) watermark(child, rowtime, source, lateness, input.window.monotonic) else child
    val rt = watermarked.output.find(_.exprId == rowtime.exprId).get
    // A row without a rowtime is in no window at any time: it can neither match nor be emitted.
    val present = Filter(IsNotNull(rt), watermarked)
    (input.tvf, input.window.frame) match {
      case (Some(tvf), _) => windowFunctionInput(w, rt, tvf, present)
      case (None, RowsFrame(n)) if child.isStreaming =>
        RowtimeInput(w.block, input, rt, isStream, present, streamRows = Some(RowsWindow(n, streamPartition(w, present, source))))
      case (None, RowsFrame(n)) => rowsInput(w, rt, n, present)
      case _ => RowtimeInput(w.block, input, rt, isStream, present)
    }
  }

  /**
   * A view of a `SELECT STREAM` query whose select list names no `ROWTIME` has one all the same,
   * its query's (docs/semantics.md §10): Spark parsed the view's stored text with that `ROWTIME`
   * as a last column (the parser's implicit ROWTIME), and the view's stored columns leave it out.
   * An input that has no rowtime of its own and is such a view gets it back, for this block only:
   * `SELECT *` of the view elsewhere is its stored columns.
   * {{{
   *   SubqueryAlias v                               SubqueryAlias v
   *   +- View v [k, n]                              +- View v [k, n, ROWTIME]
   *      +- Project [k, n]                  ==>        +- Project [k, n, ROWTIME]
   *         +- Project [k, n, ROWTIME]                    +- Project [k, n, ROWTIME]
   * }}}
   */
  private def withViewRowtime(w: WindowedInput): WindowedInput = {
    def lift(p: LogicalPlan): Option[LogicalPlan] = p match {
      case s: SubqueryAlias => lift(s.child).map(c => s.copy(child = c))
      case v @ View(_, _, proj @ Project(list, inner), _) =>
        inner.output.find(a => a.name == "ROWTIME" && !list.exists(_.references.contains(a)))
          .map(rt => v.copy(child = proj.copy(projectList = list :+ rt)))
      case _ => None
    }
    if (declaredRowtime(w.child.output).isDefined) w else lift(w.child).map(c => w.copy(child = c)).getOrElse(w)
  }

  private def chooseRowtime(w: WindowedInput, source: String): Attribute = {
    val (child, input) = (w.child, w.input)
    val resolver = SQLConf.get.resolver
    input.tvf.map(_.timeColumn) match {
      case Some(col) => child.resolve(Seq(col), resolver).collect { case a: Attribute => a }.getOrElse(
        throw OverjoinErrors.noTimeColumn(input.origin, input.name, input.source, col))
      case None => input.window.orderBy match {
        case Some(parts) =>
          child.resolve(parts, resolver) match {
            case Some(a: Attribute) => a
            case _ => throw OverjoinErrors.orderByNotAColumnOf(input.origin, source,
              s"${parts.mkString(".")}, which is not one of its columns (${child.output.map(_.name).mkString(", ")})")
          }
        case None =>
          // Rule 2 of §1 also covers a stream's declared rowtime: CREATE STREAM ... WITH (rowtime = 'col').
          val declaredByStream = Streams.readBy(child).flatMap(Streams.declaredRowtime)
            .filterNot(_ => child.output.exists(_.metadata.contains(EventTimeWatermark.delayKey)))
            .flatMap(c => child.output.find(_.name.equalsIgnoreCase(c)))
          declaredByStream.orElse(declaredRowtime(child.output))
            .orElse(input.asofTime.flatMap(c => child.output.find(_.name.equalsIgnoreCase(c))))
            .getOrElse(throw noRowtime(w))
      }
    }
  }

  /**
   * OJ203, or OJ207 where the input is a view or a subquery whose select list left out a rowtime
   * its own input has (`CREATE VIEW v AS SELECT STREAM "item" FROM s`, read by a window or a
   * `TOP_K_ITEMS_TUMBLING`): KDA's rows carried it anyway, so the fix is to select it.
   */
  private def noRowtime(w: WindowedInput): Throwable = {
    val input = w.input
    def below(p: LogicalPlan): Boolean = p.children.exists(_.exists(n => declaredRowtime(n.output).isDefined))
    val named = w.child match {
      case SubqueryAlias(_, v: View) if below(v) => Some(("the view " + v.desc.identifier.unquotedString, "CREATE OR REPLACE VIEW " +
        v.desc.identifier.unquotedString + " AS SELECT STREAM ROWTIME, ..."))
      case SubqueryAlias(id, child) if !child.isInstanceOf[View] && below(child) =>
        Some((s"the subquery ${id.name}", "(SELECT STREAM ROWTIME, ... ) AS " + id.name))
      case _ => None
    }
    named match {
      case Some((what, fix)) => OverjoinErrors.rowtimeNotSelected(input.origin, input.name, what, fix)
      case None => OverjoinErrors.noRowtime(input.origin, input.name, input.source)
    }
  }

  /**
   * The stream's watermark on `rowtime`: its own declared one, or one with the session's lateness;
   * fenced ([[WatermarkFence]]) so that no filter of the query is pushed below it.
   */
  private def watermark(child: LogicalPlan, rowtime: Attribute, source: String, latenessMicros: Long,
      monotonic: Boolean): LogicalPlan = {
    val delayKey = EventTimeWatermark.delayKey
    val declared = child.output.filter(_.metadata.contains(delayKey))
    if (declared.exists(_.exprId == rowtime.exprId)) {
      // Spark drops a row whose event time is <= the watermark; overjoin's contract only drops rows
      // strictly older than it (docs/semantics.md §8). A millisecond more delay (the watermark's
      // unit) gives that rule.
      child.transformUp {
        case e: EventTimeWatermark if e.eventTime.exprId == rowtime.exprId =>
          WatermarkFence(e.copy(delay = new CalendarInterval(e.delay.months, e.delay.days, e.delay.microseconds + 1000L)))
      }
    } else if (declared.nonEmpty && monotonic) {
      // Spark allows one watermark per stream, and this input's rows have theirs already: a query
      // that only projects and filters them gives it up to the column declared MONOTONIC
      // (docs/semantics.md §11); one that holds state by it (a window, a join) keeps it.
      val delay = new CalendarInterval(0, 0, latenessMicros + 1000L)
      withoutWatermarks(child) match {
        case Some(plain) => WatermarkFence(EventTimeWatermark(UUID.randomUUID(), rowtime, delay, plain))
        case None => timedBelowDistinct(child, rowtime, delay).getOrElse(
          throw OverjoinErrors.monotonicAfterWatermark(source, rowtime.name, declared.map(_.name).mkString(", ")))
      }
    } else if (declared.nonEmpty) {
      throw OverjoinErrors.orderByNotAColumnOf(org.apache.spark.sql.catalyst.trees.Origin(), source,
        s"${rowtime.name}, while the input's watermark is on ${declared.map(_.name).mkString(", ")} " +
          "(a stream can have only one event-time column)")
    } else {
      // The input's rows may be timed below it already, by a query that only projects and filters
      // them (a view of a SELECT STREAM query, s-Server's `CREATE VIEW v AS SELECT STREAM ...
      // WHERE ...`, whose stored columns carry no event-time mark; a subquery whose ROWTIME
      // reference was bound before its watermark was set): Spark allows one watermark per stream
      // (two fail as a redefinition once rows flow), so this one replaces it. One that holds state
      // keeps its own, and Spark says so.
      val plain = withoutWatermarks(child).getOrElse(child)
      WatermarkFence(EventTimeWatermark(UUID.randomUUID(), rowtime, new CalendarInterval(0, 0, latenessMicros + 1000L), plain))
    }
  }

  /**
   * A `SELECT STREAM DISTINCT` subquery one of whose keys is the column declared monotonic (AWS's web
   * analytics application: `GROUP BY window_time` of `(SELECT STREAM DISTINCT MONOTONIC(STEP(...)) AS
   * window_time, STEP(ROWTIME BY ...), "clientid" ...)`, docs/semantics.md §11): the column times the
   * distinct's state as well as the groups above it, so the watermark moves below the deduplication,
   * onto that column, when nothing under it but projections and filters holds the stream's own.
   * Every other column loses its event-time mark (the stream's ROWTIME, the distinct's hidden window
   * end), so that Spark sees one event time. None where the subquery is anything else.
   * {{{
   *   Project [..., w, ...]                          Project [..., w-T, ...]
   *   +- Deduplicate [w, k, end]                     +- Deduplicate [w-T, k, end]
   *      +- Project [..., end-T]               ==>      +- WatermarkFence
   *         +- Project [ROWTIME-T, w, k]                   +- EventTimeWatermark w
   *            +- EventTimeWatermark ROWTIME                  +- Project [..., end]
   *                                                              +- Project [ROWTIME, w, k]
   * }}}
   */
  private def timedBelowDistinct(p: LogicalPlan, rowtime: Attribute, delay: CalendarInterval): Option[LogicalPlan] = {
    def below(p: LogicalPlan): Option[LogicalPlan] = p match {
      case d: Deduplicate if d.keys.exists(_.exprId == rowtime.exprId) =>
        withoutWatermarks(d.child).filter(_.output.exists(_.exprId == rowtime.exprId)).map { plain =>
          // The watermark node takes every other column's mark off its output.
          val timed = EventTimeWatermark(UUID.randomUUID(), plain.output.find(_.exprId == rowtime.exprId).get, delay, plain)
          d.copy(child = WatermarkFence(timed))
        }
      case _: Project | _: Filter | _: SubqueryAlias | _: View => below(p.children.head).map(c => p.withNewChildren(Seq(c)))
      case _ => None
    }
    below(p).map { moved =>
      val mark = moved.collectFirst { case e: EventTimeWatermark => e.output.find(_.exprId == rowtime.exprId).get.metadata }.get
      // Above the new watermark: the declared column carries its mark, no other column one.
      def above(q: LogicalPlan): LogicalPlan = q match {
        case f: WatermarkFence => f
        case other => plainColumns(other.withNewChildren(other.children.map(above)), rowtime, mark)
      }
      above(moved)
    }
  }

  /** `p`'s own expressions without event-time marks, but `rowtime`'s, which gets `mark`. */
  private def plainColumns(p: LogicalPlan, rowtime: Attribute, mark: Metadata): LogicalPlan = {
    val key = EventTimeWatermark.delayKey
    def without(m: Metadata): Metadata = new MetadataBuilder().withMetadata(m).remove(key).build()
    p.transformExpressions {
      case a: AttributeReference if a.exprId == rowtime.exprId => a.withMetadata(mark)
      case a: AttributeReference if a.metadata.contains(key) => a.withMetadata(without(a.metadata))
      case al @ Alias(c, n) if al.explicitMetadata.exists(_.contains(key)) =>
        Alias(c, n)(al.exprId, al.qualifier, al.explicitMetadata.map(without), al.nonInheritableMetadataKeys)
    }
  }

  /** `p` without its watermarks, when nothing between them and `p`'s top keeps state; else None. */
  private def withoutWatermarks(p: LogicalPlan): Option[LogicalPlan] = p match {
    case e: EventTimeWatermark => Some(e.child)
    case f: WatermarkFence => withoutWatermarks(f.child)
    case _: Project | _: Filter | _: SubqueryAlias | _: StreamJoinOutput | _: View =>
      val children = p.children.map(withoutWatermarks)
      if (children.forall(_.isDefined)) Some(p.withNewChildren(children.map(_.get))) else None
    case other if !other.exists(_.isInstanceOf[EventTimeWatermark]) => Some(other)
    case _ => None
  }

  /**
   * `TUMBLE(s, ts, size)` / `HOP(s, ts, slide, size)` (docs/semantics.md §7): `s` with
   * `window_start` and `window_end` added (one row per window it falls in, through Spark's own
   * window function); its rows' ROWTIME is `window_end`.
   * {{{
   *   Project [s.*, window(ts, size, slide).start AS window_start, window(ts, size, slide).end AS window_end]
   * }}}
   */
  private def windowFunctionInput(w: WindowedInput, rt: Attribute, tvf: WindowTvf, child: LogicalPlan): RowtimeInput = {
    val window = TimeWindow(rt, tvf.sizeMicros, tvf.slideMicros, 0L)
    val start = Alias(GetStructField(window, 0, Some("start")), "window_start")()
    val end = Alias(GetStructField(window, 1, Some("end")), "window_end")()
    val endAttr = AttributeReference("window_end", rt.dataType, nullable = true)(exprId = end.exprId)
    // Under the input's name, so that `s1.window_start` resolves as RisingWave writes it.
    val named = SubqueryAlias(w.input.name, Project(child.output ++ Seq(start, end), child))
    RowtimeInput(w.block, w.input, rt, isStream = true, named, windowEnd = Some(endAttr))
  }

  /**
   * The `PARTITION BY` of a stream's ROWS window, resolved against the input's columns by Spark's
   * analyzer (functions, casts and operators as anywhere else): the join's operator evaluates these
   * expressions on each row. Each must be deterministic, read at least one column of the input, and
   * be a row-level expression (no aggregate, window or generator function, no subquery).
   * {{{
   *   Project [<partition> AS p]          analyzed; the child stands for the input's columns
   *   +- LocalRelation <input's output>
   * }}}
   */
  private def streamPartition(w: WindowedInput, child: LogicalPlan, source: String): Seq[Expression] = {
    val session = SparkSession.active
    val columns = LocalRelation(child.output)
    w.input.window.partitionBy.map { text =>
      def refuse = OverjoinErrors.rowsPartitionNotOfTheInput(w.input.origin, source, text)
      val parsed = try session.sessionState.sqlParser.parseExpression(text) catch { case _: Exception => throw refuse }
      val analyzed = try session.sessionState.analyzer.execute(Project(Seq(Alias(parsed, "p")()), columns))
      catch { case _: Exception => throw refuse }
      val resolved = analyzed match {
        case Project(Seq(Alias(e, _)), r: LocalRelation) if r.output == columns.output => e
        case _ => throw refuse
      }
      if (!resolved.resolved || !resolved.deterministic || resolved.references.isEmpty ||
          !resolved.references.subsetOf(child.outputSet) || SubqueryExpression.hasSubquery(resolved)) {
        throw refuse
      }
      resolved
    }
  }

  /**
   * A ROWS window over a table: row `x`'s life interval is `[x.t, s.t)`, `s` the `(n+1)`-th row
   * after `x` in (rowtime, arrival) order, per partition (docs/semantics.md §3). Arrival is the
   * table's row order.
   * {{{
   *   Window [lead(t, n + 1) OVER (PARTITION BY ... ORDER BY t, arrival) AS rows_end]
   *   +- Project [*, monotonically_increasing_id() AS arrival]
   * }}}
   */
  private def rowsInput(w: WindowedInput, rt: Attribute, n: Long, child: LogicalPlan): RowtimeInput = {
    val parser = SparkSession.active.sessionState.sqlParser
    val partition = w.input.window.partitionBy.map(parser.parseExpression)
    val arrival = Alias(MonotonicallyIncreasingID(), InternalColumns.Arrival)()
    val withArrival = Project(child.output :+ arrival, child)
    val order = Seq(SortOrder(rt, Ascending), SortOrder(arrival.toAttribute, Ascending))
    val lead = Lead(rt, Literal((n + 1).toInt), Literal(null, rt.dataType), ignoreNulls = false)
    val end = Alias(WindowExpression(lead, WindowSpecDefinition(partition, order, lead.frame)), InternalColumns.RowsEnd)()
    val windowed = Window(Seq(end), partition, order, withArrival)
    val endAttr = AttributeReference(InternalColumns.RowsEnd, rt.dataType, nullable = true)(exprId = end.exprId)
    val plan = Project(child.output :+ endAttr, windowed)
    RowtimeInput(w.block, w.input, rt, isStream = true, plan, rowsEnd = Some(endAttr))
  }
}
