package io.overjoin.catalyst

import java.util.UUID

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate.Max
import org.apache.spark.sql.catalyst.plans.{Cross, FullOuter, Inner, InnerLike, JoinType, LeftOuter, NaturalJoin, RightOuter, UsingJoin}
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{CalendarIntervalType, MetadataBuilder, TimestampNTZType, TimestampType}
import org.apache.spark.unsafe.types.CalendarInterval

import io.overjoin.config.OverjoinConf
import io.overjoin.errors.OverjoinErrors
import io.overjoin.execution.{LateRows, OrderedEmit, StreamingAsof}

/**
 * Rewrites the FROM clause of a streaming-dialect query block into a join Spark can run as a
 * bounded-state stream (or, over tables, as the batch join that returns the same rows).
 *
 * {{{
 *   SELECT STREAM ROWTIME, o.orderId FROM Shipments AS s
 *     JOIN Orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON o.orderId = s.orderId
 * }}}
 * becomes, with `s.t`/`o.t` the inputs' rowtimes (SEMANTICS.md sections 1-4):
 * {{{
 *   Project [ROWTIME#9, orderId]
 *   +- Project [CASE ... greatest(s.t, o.t) ... END AS ROWTIME#9, s.*, o.*]
 *      +- Join Inner, (o.orderId = s.orderId) AND (s.t + 0 - 1h <= o.t) AND (o.t <= s.t + 0 - 0)
 *         :- Filter isnotnull(s.t) +- EventTimeWatermark s.t, 1 ms +- ...
 *         +- Filter isnotnull(o.t) +- EventTimeWatermark o.t, 1 ms +- ...
 * }}}
 *
 * Every time condition has the shape `leftTime + c1 <= rightTime + c2`, the only one from which
 * Spark's `StreamingJoinHelper` derives when it may drop a row from the join state; any other
 * shape would keep state forever.
 *
 * It runs in two steps, because Spark's own rules must resolve the join conditions in between:
 *  1. when every input is resolved, choose each input's rowtime, give stream inputs their
 *     watermark, and turn NATURAL joins into USING joins that leave rowtime columns out;
 *  2. when the whole join is resolved, add the time conditions and the output ROWTIME column.
 * Finally, `ROWTIME` references in the block's other clauses are bound to the new column.
 */
object RewriteWindowedJoins extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    val rewritten = plan.transformUp {
      case root @ StreamJoinRoot(_, false, child) if inputsResolved(child) => prepare(root)
      case root @ StreamJoinRoot(_, true, child) if child.resolved => finish(root)
      case p if !p.isInstanceOf[StreamJoinRoot] && hasRowtimeReference(p) => bindReferences(p)
    }
    orderedEmit(rewritten)
  }

  private val OrderedTag = TreeNodeTag[Boolean]("overjoin.orderedEmit")

  /**
   * `spark.overjoin.emit = ordered`: once the whole query is resolved, release its rows in ROWTIME
   * order (see [[OrderedEmit]]). Done inside the resolution batch so that Spark resolves the
   * encoders of the operator it adds.
   */
  private def orderedEmit(plan: LogicalPlan): LogicalPlan = {
    if (!plan.resolved || plan.isInstanceOf[Command] || plan.exists(_.getTagValue(OrderedTag).isDefined)) return plan
    val outputs = plan.collect { case o: StreamJoinOutput => o }
    if (outputs.isEmpty || !OverjoinConf.orderedEmit()) return plan
    val rowtime = plan.output.find(a => outputs.exists(_.rowtime.exprId == a.exprId))
      .orElse(plan.output.find(_.name.equalsIgnoreCase("ROWTIME")))
      .getOrElse(throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_SYNTAX",
        "feature" -> s"${OverjoinConf.Emit} = ordered without ROWTIME in the query's output",
        "alternative" -> "select ROWTIME: rows are released in its order."))
    val ordered = OrderedEmit(plan, rowtime)
    ordered.setTagValue(OrderedTag, true)
    ordered
  }

  private def inputsResolved(plan: LogicalPlan): Boolean =
    plan.collect { case w: WindowedInput => w.child.resolved }.forall(identity)

  private def hasRowtimeReference(p: LogicalPlan): Boolean =
    p.expressions.exists(_.exists(_.isInstanceOf[RowtimeReference]))

  // ---------------------------------------------------------------------------------------------
  // Step 1.

  private def prepare(root: StreamJoinRoot): LogicalPlan = {
    val block = root.block
    val windowed = root.child.collect { case w: WindowedInput => w }
    // Replay: over tables only, every input is treated as a stream and runs as a batch join.
    val anyStream = windowed.exists(w => w.child.isStreaming && !w.input.lookup)
    val lateness = OverjoinConf.latenessMicros()
    OverjoinConf.orderedEmit() // an unknown emit mode fails here, before anything runs
    val withInputs = root.child.transformUp {
      case w: WindowedInput if w.input.lookup => tableInput(w)
      case w: WindowedInput if w.child.isStreaming || !anyStream => rowtimeInput(w, isStream = true, lateness)
      case w: WindowedInput => tableInput(w)
    }
    val inputs = withInputs.collect { case r: RowtimeInput => r }
    val rowtimeNames = inputs.map(_.rowtime.name.toLowerCase).toSet

    val joined = withInputs.transformUp {
      case j @ Join(l, r, NaturalJoin(tpe), cond, hint) if l.resolved && r.resolved =>
        val common = l.output.map(_.name).filter(n => r.output.exists(_.name.equalsIgnoreCase(n)))
          .filterNot(n => rowtimeNames.contains(n.toLowerCase)).distinct
        if (common.isEmpty) {
          throw OverjoinErrors.analysis("OVERJOIN_NATURAL_NO_COMMON_COLUMN",
            "left" -> describe(l), "right" -> describe(r))
        }
        Join(l, r, UsingJoin(tpe, common), cond, hint)
      case j @ Join(l, r, UsingJoin(_, cols), _, _) =>
        cols.find(c => rowtimeNames.contains(c.toLowerCase)).foreach { c =>
          val owner = inputs.find(_.rowtime.name.equalsIgnoreCase(c)).map(_.input.name).getOrElse("?")
          throw OverjoinErrors.analysis("OVERJOIN_USING_ROWTIME", "column" -> c, "input" -> owner)
        }
        j
    }
    val byName = inputRowtimes(withInputs)
    val bound = joined.transformUp {
      case j: Join => j.transformExpressions {
        case RowtimeReference(b, Some(q), _) if b == block.id && byName.contains(q.toLowerCase) => byName(q.toLowerCase)
        case RowtimeReference(b, None, spelling) if b == block.id =>
          throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_SYNTAX",
            "feature" -> s"An unqualified $spelling inside a join condition",
            "alternative" -> s"the output $spelling exists only after the join: qualify it with an input, e.g. o.$spelling.")
      }
    }
    root.copy(prepared = true, child = bound)
  }

  private def describe(p: LogicalPlan): String =
    p.collect { case r: RowtimeInput => r.input.name; case t: TableInput => t.input.name }.mkString(" JOIN ")

  /** Each input's rowtime by its name in lower case, for `o.ROWTIME`; tables only if they have one. */
  private def inputRowtimes(plan: LogicalPlan): Map[String, Attribute] = plan.collect {
    case r: RowtimeInput => Seq(r.input.name.toLowerCase -> r.rowtime)
    case t: TableInput => t.rowtime.map(t.input.name.toLowerCase -> _).toSeq
  }.flatten.toMap

  /** A static input of a streaming query: a table, which has no window (SEMANTICS.md section 5). */
  private def tableInput(w: WindowedInput): TableInput = {
    if (w.input.lookup && w.child.isStreaming) {
      throw OverjoinErrors.analysisAt(w.input.origin, "OVERJOIN_WINDOW_NOT_A_JOIN_INPUT", "input" -> w.input.name,
        "detail" -> ("FOR SYSTEM_TIME AS OF PROCTIME() looks rows up in a table, and this input is a stream: " +
          "join the two streams with windows instead"))
    }
    if (w.input.window.explicit) {
      val at = w.input.windowStart.map(_ => "OVER").getOrElse("WITHIN")
      throw OverjoinErrors.analysisAt(w.input.origin, "OVERJOIN_WINDOW_NOT_A_JOIN_INPUT", "input" -> w.input.name,
        "detail" -> s"it is a table (a static relation) joined with a stream, and tables have no window: drop its $at")
    }
    TableInput(w.block, w.input, declaredRowtime(w.child.output), w.child)
  }

  /** Rules 2 and 3 of SEMANTICS.md section 1: the watermark column, else a column named ROWTIME. */
  private def declaredRowtime(output: Seq[Attribute]): Option[Attribute] =
    output.find(_.metadata.contains(EventTimeWatermark.delayKey))
      .orElse(output.find(_.name.equalsIgnoreCase("ROWTIME")))

  /** Chooses the rowtime of one input (SEMANTICS.md section 1) and gives a stream its watermark. */
  private def rowtimeInput(w: WindowedInput, isStream: Boolean, latenessMicros: Long): RowtimeInput = {
    val child = w.child
    val resolver = SQLConf.get.resolver
    val delayKey = EventTimeWatermark.delayKey
    val input = w.input
    val source = if (input.alias.isDefined) s"${input.name} (${input.source})" else input.source
    val rowtime: Attribute = input.tvf.map(_.timeColumn) match {
      case Some(col) => child.resolve(Seq(col), resolver).collect { case a: Attribute => a }.getOrElse(
        throw OverjoinErrors.analysisAt(w.input.origin, "OVERJOIN_NO_ROWTIME", "input" -> input.name,
          "source" -> input.source, "column" -> col))
      case None => input.window.orderBy match {
      case Some(parts) =>
        child.resolve(parts, resolver) match {
          case Some(a: Attribute) => a
          case _ => throw OverjoinErrors.analysisAt(w.input.origin, "OVERJOIN_WINDOW_ORDER_BY", "input" -> source,
            "expression" -> s"${parts.mkString(".")}, which is not one of its columns (${child.output.map(_.name).mkString(", ")})")
        }
      case None =>
        declaredRowtime(child.output)
          .orElse(input.asofTime.flatMap(c => child.output.find(_.name.equalsIgnoreCase(c))))
          .getOrElse(throw OverjoinErrors.analysisAt(w.input.origin, "OVERJOIN_NO_ROWTIME", "input" -> input.name,
            "source" -> input.source, "column" -> "ts"))
      }
    }
    rowtime.dataType match {
      case TimestampType | TimestampNTZType =>
      case other => throw OverjoinErrors.analysisAt(w.input.origin, "OVERJOIN_ROWTIME_NOT_TIMESTAMP", "column" -> rowtime.name,
        "input" -> source, "type" -> other.sql)
    }
    if (w.input.window.frame.isInstanceOf[RowsFrame] && child.isStreaming) {
      throw OverjoinErrors.analysisAt(w.input.origin, "OVERJOIN_UNSUPPORTED_SYNTAX",
        "feature" -> s"The ROWS window of stream $source",
        "alternative" -> "ROWS windows run over tables (replay); on streams they are planned: use a RANGE window.")
    }
    if (w.input.window.partitionBy.nonEmpty) {
      // A RANGE window is the same per partition: the rows in it depend on time only.
      logDebug(s"PARTITION BY of ${input.name} has no effect on a RANGE window")
    }

    val watermarked: LogicalPlan = if (child.isStreaming) {
      SparkSession.getActiveSession.foreach(LateRows.ensureInstalled)
      val declared = child.output.filter(_.metadata.contains(delayKey))
      if (declared.exists(_.exprId == rowtime.exprId)) {
        // Spark drops a row whose event time is <= the watermark; overjoin's contract only drops rows
        // strictly older than it. A millisecond more delay (the watermark's unit) gives that rule.
        child.transformUp {
          case e: EventTimeWatermark if e.eventTime.exprId == rowtime.exprId =>
            e.copy(delay = new CalendarInterval(e.delay.months, e.delay.days, e.delay.microseconds + 1000L))
        }
      } else if (declared.nonEmpty) {
        throw OverjoinErrors.analysis("OVERJOIN_WINDOW_ORDER_BY", "input" -> source,
          "expression" -> (s"${rowtime.name}, while the input's watermark is on " +
            s"${declared.map(_.name).mkString(", ")} (a stream can have only one event-time column)"))
      } else {
        EventTimeWatermark(UUID.randomUUID(), rowtime, new CalendarInterval(0, 0, latenessMicros + 1000L), child)
      }
    } else child
    val rt = watermarked.output.find(_.exprId == rowtime.exprId).get
    // A row without a rowtime is in no window at any time: it can neither match nor be emitted.
    val present = Filter(IsNotNull(rt), watermarked)
    (input.tvf, input.window.frame) match {
      case (Some(tvf), _) => windowFunctionInput(w, rt, tvf, present)
      case (None, RowsFrame(n)) => rowsInput(w, rt, n, present)
      case _ => RowtimeInput(w.block, input, rt, isStream, present)
    }
  }

  /**
   * `TUMBLE(s, ts, size)` / `HOP(s, ts, slide, size)` (SEMANTICS.md section 7): `s` with
   * `window_start` and `window_end` added (one row per window it falls in, through Spark's own
   * window function); its rows' ROWTIME is `window_end`.
   * {{{
   *   Project [s.*, window(ts, size, slide).start AS window_start, window(ts, size, slide).end AS window_end]
   * }}}
   */
  private def windowFunctionInput(w: WindowedInput, rt: Attribute, tvf: io.overjoin.parser.WindowTvf,
      child: LogicalPlan): RowtimeInput = {
    val window = TimeWindow(rt, tvf.sizeMicros, tvf.slideMicros, 0L)
    val start = Alias(GetStructField(window, 0, Some("start")), "window_start")()
    val end = Alias(GetStructField(window, 1, Some("end")), "window_end")()
    val endAttr = AttributeReference("window_end", rt.dataType, nullable = true)(exprId = end.exprId)
    // Under the input's name, so that `s1.window_start` resolves as RisingWave writes it.
    val named = SubqueryAlias(w.input.name, Project(child.output ++ Seq(start, end), child))
    RowtimeInput(w.block, w.input, rt, isStream = true, named, windowEnd = Some(endAttr))
  }

  /**
   * A ROWS window over a table: row `x`'s life interval is `[x.t, s.t)`, `s` the `(n+1)`-th row
   * after `x` in (rowtime, arrival) order, per partition (SEMANTICS.md section 3). Arrival is the
   * table's row order.
   * {{{
   *   Window [lead(t, n + 1) OVER (PARTITION BY ... ORDER BY t, arrival) AS rows_end]
   *   +- Project [*, monotonically_increasing_id() AS arrival]
   * }}}
   */
  private def rowsInput(w: WindowedInput, rt: Attribute, n: Long, child: LogicalPlan): RowtimeInput = {
    val parser = SparkSession.active.sessionState.sqlParser
    val partition = w.input.window.partitionBy.map(parser.parseExpression)
    val arrival = Alias(MonotonicallyIncreasingID(), "__overjoin_arrival")()
    val withArrival = Project(child.output :+ arrival, child)
    val order = Seq(SortOrder(rt, Ascending), SortOrder(arrival.toAttribute, Ascending))
    val lead = Lead(rt, Literal((n + 1).toInt), Literal(null, rt.dataType), ignoreNulls = false)
    val end = Alias(WindowExpression(lead, WindowSpecDefinition(partition, order, lead.frame)), RowsEndColumn)()
    val windowed = Window(Seq(end), partition, order, withArrival)
    val endAttr = AttributeReference(RowsEndColumn, rt.dataType, nullable = true)(exprId = end.exprId)
    val plan = Project(child.output :+ endAttr, windowed)
    RowtimeInput(w.block, w.input, rt, isStream = true, plan, rowsEnd = Some(endAttr))
  }

  // ---------------------------------------------------------------------------------------------
  // Step 2.

  /**
   * What step 2 knows about a (partial) join row of stream inputs. `start`/`end` are its life
   * interval (SEMANTICS.md sections 3-4): the intersection of its rows' intervals, or the non-null
   * side's for a null-padded row; Spark's `greatest`/`least` skip NULLs, which gives exactly that.
   * `present` is true when the row has any stream row. `leaves` are its inputs, each with whether
   * it can be NULL here (under the null-supplying side of an outer join). `eventTime` is the one
   * column Spark treats as its event time, for a row made by a join: its start.
   */
  private case class Life(start: Expression, end: Expression, present: Expression,
      leaves: Seq[(RowtimeInput, Boolean)], eventTime: Option[Attribute], widthMicros: Long)

  private def plus(t: Expression, micros: Long): Expression =
    if (micros == 0) t
    else TimestampAddInterval(t, Literal(new CalendarInterval(0, 0, micros), CalendarIntervalType),
      Some(SQLConf.get.sessionLocalTimeZone))

  /**
   * The RANGE frame a leaf's time conditions are written with. A TUMBLE/HOP row meets rows of the
   * same window, whose times are less than its size apart: that bound, implied by the user's
   * window condition, lets Spark evict state.
   */
  private def frame(r: RowtimeInput): RangeFrame =
    r.input.tvf.map(t => io.overjoin.catalyst.RangeFrame(t.sizeMicros, 0)).getOrElse(r.input.window.frame.asInstanceOf[RangeFrame])

  private def isRange(r: RowtimeInput): Boolean = r.rowsEnd.isEmpty

  private def leafStart(r: RowtimeInput): Expression =
    r.windowEnd.getOrElse(if (isRange(r)) plus(r.rowtime, frame(r).bMicros) else r.rowtime)

  /** The end of a leaf's life interval, and whether the end is included (RANGE) or not (ROWS). */
  private def leafEnd(r: RowtimeInput): (Expression, Boolean) = r.windowEnd.map(e => (e: Expression, true))
    .getOrElse(if (isRange(r)) (plus(r.rowtime, frame(r).aMicros), true) else (r.rowsEnd.get, false))

  private def widthOf(r: RowtimeInput): Long = if (isRange(r)) frame(r).aMicros - frame(r).bMicros else 0L

  private def finish(root: StreamJoinRoot): LogicalPlan = {
    val asofRights = root.block.joins.filter(_.asof).map(j => root.block.inputs(j.rightIndex).start).toSet
    val (plan, _, rowtimeExpr) = build(root.child, asofRights)
    val inputs = root.child.collect { case r: RowtimeInput => r }
    val rowtime = Alias(rowtimeExpr.getOrElse(
      throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_STREAMING_JOIN",
        "combination" -> "a streaming query block without a stream input",
        "detail" -> "ROWTIME needs at least one stream", "alternative" -> "Join at least one stream.")),
      "ROWTIME")()
    val rowtimeValue = if (inputs.exists(!isRange(_))) {
      // SEMANTICS.md section 4: for a ROWS window that never closed in a finite input, ROWTIME is
      // the largest rowtime of the inputs. Only a null-padded row's ROWTIME can be NULL here.
      val largest = Greatest(inputs.map(r => ScalarSubquery(
        Aggregate(Nil, Seq(Alias(Max(r.rowtime).toAggregateExpression(), "max_rowtime")()), r.child)): Expression))
      Coalesce(Seq(rowtime.child, largest))
    } else rowtime.child
    val rowtimeCol = Alias(rowtimeValue, "ROWTIME")(exprId = rowtime.exprId)
    val visible = plan.output.filterNot(a => InternalColumns.contains(a.name))
    val project = Project(rowtimeCol +: visible, plan)
    // USING joins keep the merged-away key columns as hidden output (`sp.ticker` after
    // `USING (ticker)`); keep them reachable through the new projection.
    project.setTagValue(Project.hiddenOutputTag, plan.metadataOutput)
    // Built by hand: an Alias gives no typed attribute until Spark has resolved what it wraps.
    val rowtimeType = if (inputs.forall(_.rowtime.dataType == TimestampNTZType)) TimestampNTZType else TimestampType
    val attr = AttributeReference("ROWTIME", rowtimeType, nullable = true)(exprId = rowtime.exprId)
    StreamJoinOutput(root.block.id, attr, inputRowtimes(root.child), project)
  }

  private val EventTimeColumn = "__overjoin_event_time"
  private val CrossKeyColumn = "__overjoin_cross_key"
  private val RowsEndColumn = "__overjoin_rows_end"
  private val InternalColumns = Set(EventTimeColumn, CrossKeyColumn, RowsEndColumn)

  /**
   * Rebuilds `plan` (a join tree of [[RowtimeInput]]s, maybe under Spark's USING projections)
   * with time conditions. Returns the plan, the life interval of its rows (None for tables) and
   * the ROWTIME its rows would have as the query's output (SEMANTICS.md section 4).
   */
  private def build(plan: LogicalPlan, asof: Set[Int]): (LogicalPlan, Option[Life], Option[Expression]) = plan match {
    case r: RowtimeInput if r.isStream =>
      val life = Life(leafStart(r), leafEnd(r)._1, IsNotNull(r.rowtime), Seq(r -> false), None, widthOf(r))
      (r.child, Some(life), Some(life.start))
    case r: RowtimeInput =>
      (r.child, None, None)
    case t: TableInput =>
      (t.child, None, None)
    case p @ Project(_, child) =>
      val (c, life, rowtime) = build(child, asof)
      val rebuilt = p.copy(child = c)
      rebuilt.copyTagsFrom(p) // USING's hidden key columns live in a tag
      (rebuilt, life, rowtime)
    case j @ Join(l, r, _, _, _) if inputStart(r).exists(asof.contains) =>
      asofJoin(j, build(l, asof), build(r, asof))
    case Join(l, r, tpe, cond, hint) =>
      val (lp0, ll0, lrt) = build(l, asof)
      val (rp0, rl0, rrt) = build(r, asof)
      (ll0, rl0) match {
        case (Some(a0), Some(b0)) =>
          // A side that is itself a join gets one event-time column (Spark allows only one per
          // stream); the others stop being event-time columns.
          val (lp1, a) = withEventTime(lp0, a0)
          val (rp1, b) = withEventTime(rp0, b0)
          val (lp, rp, keyCond) = crossKey(lp1, rp1, cond)
          val time = intersects(a, b)
          val newCond = (cond.toSeq ++ keyCond ++ nullKeyGuards(cond, lp, rp) :+ time).reduce(And)
          val (aNull, bNull) = tpe match {
            case LeftOuter => (false, true)
            case RightOuter => (true, false)
            case FullOuter => (true, true)
            case _ => (false, false)
          }
          val life = Life(Greatest(Seq(a.start, b.start)), Least(Seq(a.end, b.end)), Or(a.present, b.present),
            a.leaves.map { case (x, n) => x -> (n || aNull) } ++ b.leaves.map { case (x, n) => x -> (n || bNull) },
            None, math.min(a.widthMicros, b.widthMicros))
          // Matched: the first moment both rows are in their windows. Null-padded: the moment the
          // last possible match left the preserved row's window.
          val matched = Greatest(Seq(a.start, b.start))
          val rowtime = tpe match {
            case _: InnerLike => matched // both sides are always there
            case _ => CaseWhen(Seq(And(a.present, b.present) -> matched, a.present -> a.end), Some(b.end))
          }
          // With the constant key a CROSS join is an inner join, which Spark can stream.
          val joinType = if (keyCond.isDefined && tpe == Cross) Inner else tpe
          (Join(lp, rp, joinType, Some(newCond), hint), Some(life), Some(rowtime))
        case (Some(a), None) =>
          checkStreamTable(tpe, streamOnLeft = true, a, r)
          (Join(lp0, rp0, tpe, cond, hint), Some(a), lrt)
        case (None, Some(b)) =>
          checkStreamTable(tpe, streamOnLeft = false, b, l)
          (Join(lp0, rp0, tpe, cond, hint), Some(b), rrt)
        case (None, None) =>
          (Join(lp0, rp0, tpe, cond, hint), None, None)
      }
    case other =>
      throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_STREAMING_JOIN",
        "combination" -> s"a ${other.nodeName} inside the FROM clause of a streaming join",
        "detail" -> "overjoin follows joins of relations and subqueries only",
        "alternative" -> "Move that part into a subquery or view and join the result.")
  }

  private def inputStart(p: LogicalPlan): Option[Int] = p match {
    case r: RowtimeInput => Some(r.input.start)
    case t: TableInput => Some(t.input.start)
    case _ => None
  }

  /**
   * `X ASOF [LEFT] JOIN Y ON <equalities> AND <one inequality>` over tables (SEMANTICS.md
   * section 6): each `x` meets the one `y` whose time is closest to `x`'s in the allowed direction,
   * ties going to the latest arrival; `ROWTIME = x.t`.
   * {{{
   *   Project [x.*, y.*]
   *   +- Filter rank = 1
   *      +- Window [row_number() OVER (PARTITION BY x_id ORDER BY y.t DESC, y_arrival DESC) AS rank]
   *         +- Join Inner|LeftOuter, cond
   *            :- Project [x.*, monotonically_increasing_id() AS x_id]
   *            +- Project [y.*, monotonically_increasing_id() AS y_arrival]
   * }}}
   * Two streams go to [[StreamingAsof]], which holds each `x` until the watermark rules out a closer
   * `y`: Spark has no such operator.
   */
  private def asofJoin(j: Join, left: (LogicalPlan, Option[Life], Option[Expression]),
      right: (LogicalPlan, Option[Life], Option[Expression])): (LogicalPlan, Option[Life], Option[Expression]) = {
    val (lp, ll, lrt) = left
    val (rp, rl, _) = right
    if ((lp.isStreaming || rp.isStreaming) && !(lp.isStreaming && rp.isStreaming && rl.isDefined)) {
      throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_SYNTAX", "feature" -> "ASOF JOIN of a stream with a table",
        "alternative" -> "join two streams ASOF, or two tables (replay).")
    }
    if (ll.isEmpty || ll.get.leaves.size != 1) {
      throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_SYNTAX", "feature" -> "ASOF JOIN after another join",
        "alternative" -> "join one input ASOF another: put the other joins in a subquery.")
    }
    val cond = j.condition.getOrElse(throw OverjoinErrors.analysis("OVERJOIN_ASOF_CONDITION",
      "input" -> "the right input", "equalities" -> "0", "inequalities" -> "0"))
    val (l, r) = (j.left.outputSet, j.right.outputSet)
    def on(e: Expression, side: AttributeSet) = e.references.nonEmpty && e.references.subsetOf(side)
    // The inequality as `y.t op x.t`, with both sides' expressions.
    val (xTime, yTime, op) = splitConjunctivePredicates(cond).collectFirst {
      case LessThanOrEqual(y, x) if on(y, r) && on(x, l) => (x, y, "<=")
      case LessThan(y, x) if on(y, r) && on(x, l) => (x, y, "<")
      case GreaterThanOrEqual(x, y) if on(y, r) && on(x, l) => (x, y, "<=")
      case GreaterThan(x, y) if on(y, r) && on(x, l) => (x, y, "<")
      case GreaterThanOrEqual(y, x) if on(y, r) && on(x, l) => (x, y, ">=")
      case GreaterThan(y, x) if on(y, r) && on(x, l) => (x, y, ">")
      case LessThanOrEqual(x, y) if on(y, r) && on(x, l) => (x, y, ">=")
      case LessThan(x, y) if on(y, r) && on(x, l) => (x, y, ">")
    }.getOrElse(throw OverjoinErrors.analysis("OVERJOIN_ASOF_CONDITION", "input" -> "the right input",
      "equalities" -> "?", "inequalities" -> "0 comparing the two inputs"))
    // Looking back, the closest y is the latest; looking forward, the earliest.
    val latestFirst = op == "<=" || op == "<"
    if (lp.isStreaming) {
      val keys = splitConjunctivePredicates(cond).collect {
        case EqualTo(a, b) if on(a, l) && on(b, r) => (a, b)
        case EqualTo(b, a) if on(a, l) && on(b, r) => (a, b)
      }
      if (keys.size + 1 != splitConjunctivePredicates(cond).size) {
        throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_SYNTAX",
          "feature" -> "An ASOF join of streams with conditions other than equalities and the one inequality",
          "alternative" -> "filter the inputs in subqueries, or the result in WHERE.")
      }
      val x = ll.get.leaves.head._1
      val y = rl.get.leaves.head._1
      val joined = StreamingAsof(lp, rp, keys, xTime, yTime, op, j.joinType == LeftOuter, x.rowtime, y.rowtime)
      return (joined, ll, Some(x.rowtime))
    }
    val xId = Alias(MonotonicallyIncreasingID(), "__overjoin_asof_x")()
    val yArrival = Alias(MonotonicallyIncreasingID(), "__overjoin_asof_arrival")()
    val (lx, ry) = (Project(lp.output :+ xId, lp), Project(rp.output :+ yArrival, rp))
    val joinType = if (j.joinType == LeftOuter) LeftOuter else Inner
    val joined = Join(lx, ry, joinType, Some(cond), j.hint)
    val order = Seq(SortOrder(yTime, if (latestFirst) Descending else Ascending),
      SortOrder(yArrival.toAttribute, Descending))
    val rank = Alias(WindowExpression(RowNumber(),
      WindowSpecDefinition(Seq(xId.toAttribute), order, SpecifiedWindowFrame(RowFrame, UnboundedPreceding, CurrentRow))),
      "__overjoin_asof_rank")()
    val ranked = Window(Seq(rank), Seq(xId.toAttribute), order, joined)
    val closest = Project(lp.output ++ rp.output, Filter(EqualTo(rank.toAttribute, Literal(1)), ranked))
    val x = ll.get.leaves.head._1
    (closest, ll, Some(x.rowtime))
  }

  /**
   * For a side made by a join of streams: strip the event-time mark from its inputs' rowtimes and
   * add one event-time column, the start of its rows' life interval. Every start is `t + b` with
   * `b >= 0`, so that column is never smaller than any input's rowtime: a bound Spark derives for
   * one input's rowtime is safe to apply to it.
   */
  private def withEventTime(plan: LogicalPlan, life: Life): (LogicalPlan, Life) = {
    if (life.leaves.size < 2 || !plan.isStreaming) return (plan, life)
    if (life.leaves.exists(_._2)) {
      // A null-padded row leaves an outer join only once the watermark has passed the end of its
      // window, long after its life interval began: the next join has dropped the rows it should
      // meet, and Spark would count it late. Replay runs it; a stream must not silently differ.
      val padded = life.leaves.collect { case (r, true) => r.input.name }
      throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_STREAMING_JOIN",
        "combination" -> s"an outer join whose result (with null-padded ${padded.mkString(", ")}) is joined again",
        "detail" -> ("its null-padded rows come out only after the watermark has passed their rowtime, " +
          "so the next stream-stream join could no longer match them"),
        "alternative" -> ("Put the outer join last (X JOIN Y LEFT JOIN Z), run the query over tables (replay), " +
          "or write the inner result to a stream and outer-join that in a second query."))
    }
    val delayKey = EventTimeWatermark.delayKey
    val leafIds = life.leaves.map(_._1.rowtime.exprId).toSet
    val stripped = plan.output.map { a =>
      if (leafIds.contains(a.exprId) && a.metadata.contains(delayKey)) {
        Alias(a, a.name)(exprId = a.exprId, qualifier = a.qualifier,
          explicitMetadata = Some(new MetadataBuilder().withMetadata(a.metadata).remove(delayKey).build()))
      } else a
    }
    val delayMs = life.leaves.map(_._1.rowtime.metadata).collectFirst {
      case m if m.contains(delayKey) => m.getLong(delayKey)
    }.getOrElse(0L)
    val eventTime = Alias(life.start, EventTimeColumn)(
      explicitMetadata = Some(new MetadataBuilder().putLong(delayKey, delayMs).build()))
    val projected = Project(stripped :+ eventTime, plan)
    val current = AttributeMap(projected.output.map(a => a -> a))
    def rebind(e: Expression): Expression = e.transform { case a: Attribute if current.contains(a) => current(a) }
    val newLeaves = life.leaves.map { case (r, n) => r.copy(rowtime = rebind(r.rowtime).asInstanceOf[Attribute]) -> n }
    (projected, life.copy(start = rebind(life.start), end = rebind(life.end), present = rebind(life.present),
      leaves = newLeaves, eventTime = Some(projected.output.last)))
  }

  /**
   * Spark runs a stream-stream join only with an equality between the two sides. A CROSS join,
   * or a comma join whose condition is in WHERE, gets a constant key that the optimizer cannot
   * fold away (`spark_partition_id() * 0`); Spark's own pushed-down equalities join it.
   */
  private def crossKey(l: LogicalPlan, r: LogicalPlan, cond: Option[Expression])
      : (LogicalPlan, LogicalPlan, Option[Expression]) = {
    val hasKey = cond.exists(c => splitConjunctivePredicates(c).exists {
      case EqualTo(x, y) => sides(x, y, l, r)
      case EqualNullSafe(x, y) => sides(x, y, l, r)
      case _ => false
    })
    if (hasKey || !(l.isStreaming && r.isStreaming)) return (l, r, None)
    def keyed(p: LogicalPlan) = Project(p.output :+ Alias(Multiply(SparkPartitionID(), Literal(0)), CrossKeyColumn)(), p)
    val (kl, kr) = (keyed(l), keyed(r))
    (kl, kr, Some(EqualTo(kl.output.last, kr.output.last)))
  }

  /**
   * Spark's stream-stream join looks rows up by their key, and a NULL key finds the other side's
   * NULL keys: `a.k = b.k` would match two NULLs. SQL equality is never true for NULL, so each
   * key of an equality also gets an IS NOT NULL test, kept with the join's other conditions.
   */
  private def nullKeyGuards(cond: Option[Expression], l: LogicalPlan, r: LogicalPlan): Seq[Expression] = {
    if (!(l.isStreaming && r.isStreaming)) return Nil
    cond.toSeq.flatMap(splitConjunctivePredicates).collect {
      case EqualTo(x, y) if sides(x, y, l, r) => And(IsNotNull(x), IsNotNull(y))
    }
  }

  private def sides(x: Expression, y: Expression, l: LogicalPlan, r: LogicalPlan): Boolean = {
    val (xr, yr) = (x.references, y.references)
    xr.nonEmpty && yr.nonEmpty &&
      ((xr.subsetOf(l.outputSet) && yr.subsetOf(r.outputSet)) || (xr.subsetOf(r.outputSet) && yr.subsetOf(l.outputSet)))
  }

  private def splitConjunctivePredicates(e: Expression): Seq[Expression] = e match {
    case And(a, b) => splitConjunctivePredicates(a) ++ splitConjunctivePredicates(b)
    case other => Seq(other)
  }

  private def checkStreamTable(tpe: JoinType, streamOnLeft: Boolean, stream: Life, table: LogicalPlan): Unit = {
    val ok = tpe match {
      case _: InnerLike => true
      case LeftOuter => streamOnLeft
      case RightOuter => !streamOnLeft
      case _ => false
    }
    if (!ok) {
      throw OverjoinErrors.analysis("OVERJOIN_STREAM_TABLE_OUTER", "joinType" -> tpe.sql,
        "stream" -> stream.leaves.map(_._1.input.name).mkString(", "),
        "table" -> table.collect { case t: TableInput => t.input.name }.mkString(", "))
    }
  }

  /**
   * The rows of `a` and `b` share a point of their life intervals. On a line, intervals that
   * intersect pairwise share a point, so this is: every input of `a` intersects every input of
   * `b`, `x.t + c1 <= y.t AND y.t <= x.t + c2`, the shape Spark derives state eviction from. An
   * input that can be NULL here (null-padded) is left out of the test. A side made by a join also
   * bounds its event-time column, so Spark can evict that side's rows too.
   */
  private def intersects(a: Life, b: Life): Expression = {
    val pairs = for ((x, xn) <- a.leaves; (y, yn) <- b.leaves) yield {
      val test = if (isRange(x) && isRange(y)) {
        val (fx, fy) = (frame(x), frame(y))
        And(
          LessThanOrEqual(plus(x.rowtime, fx.bMicros - fy.aMicros), y.rowtime),
          LessThanOrEqual(y.rowtime, plus(x.rowtime, fx.aMicros - fy.bMicros)))
      } else {
        // A ROWS interval is half-open and may be empty or never end (NULL end): exact, unshaped
        // conditions, which only replay needs.
        def startsBefore(s: Expression, end: (Expression, Boolean)): Expression = end match {
          case (e, true) => LessThanOrEqual(s, e)
          case (e, false) => Or(IsNull(e), LessThan(s, e))
        }
        val nonEmpty = Seq(x, y).filterNot(isRange).map(r => startsBefore(r.rowtime, leafEnd(r)))
        (Seq(startsBefore(leafStart(x), leafEnd(y)), startsBefore(leafStart(y), leafEnd(x))) ++ nonEmpty).reduce(And)
      }
      val skip = Seq(xn -> x.rowtime, yn -> y.rowtime).collect { case (true, t) => IsNull(t): Expression }
      if (skip.isEmpty) test else Or(skip.reduce(Or), test)
    }
    // start(a) <= end(b) and start(b) <= end(a), with end <= start + width, in event-time terms.
    def bounds(side: Life, other: Life): Seq[Expression] = side.eventTime.toSeq.flatMap { e =>
      other.leaves.collect { case (y, false) if isRange(y) =>
        val fy = frame(y)
        Seq(LessThanOrEqual(e, plus(y.rowtime, fy.aMicros)),
          LessThanOrEqual(plus(y.rowtime, fy.bMicros - side.widthMicros), e))
      }.flatten
    }
    (pairs ++ bounds(a, b) ++ bounds(b, a)).reduce(And)
  }

  // ---------------------------------------------------------------------------------------------
  // Step 3: ROWTIME in the block's other clauses.

  private def bindReferences(p: LogicalPlan): LogicalPlan = {
    val outputs = p.children.flatMap(_.collect { case o: StreamJoinOutput => o })
    if (outputs.isEmpty) return p
    p.transformExpressions {
      case ref @ RowtimeReference(b, q, _) =>
        outputs.find(_.block == b) match {
          case Some(o) => q match {
            case None => o.rowtime
            case Some(name) => o.inputRowtimes.getOrElse(name.toLowerCase, ref)
          }
          case None => ref
        }
    }
  }
}

/**
 * Removes the [[StreamJoinOutput]] markers once analysis has bound every `ROWTIME`, and turns any
 * overjoin node still unresolved into an error that says what is wrong, instead of Spark's
 * generic "unresolved plan" message.
 */
object RemoveStreamJoinMarkers extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    // A FROM clause still waiting for its rewrite has something unresolved below it (an unknown
    // column in ON, say): Spark's own check reports that, with its position, before it reaches
    // this node. Only a resolved one left behind would be overjoin's fault.
    plan.foreach {
      case r: StreamJoinRoot if r.child.resolved =>
        throw OverjoinErrors.analysis("OVERJOIN_INTERNAL_ERROR",
          "detail" -> s"the FROM clause of query block ${r.block.id} was resolved but not rewritten")
      case _ =>
    }
    plan.foreach { p =>
      p.expressions.foreach(_.foreach {
        case RowtimeReference(_, None, spelling) if p.childrenResolved && !p.isInstanceOf[StreamJoinRoot] =>
          throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_SYNTAX",
            "feature" -> s"$spelling outside the query block of a streaming join",
            "alternative" -> s"select $spelling in the streaming query block and refer to it by name outside it.")
        case RowtimeReference(_, Some(q), spelling) if p.childrenResolved && !p.isInstanceOf[StreamJoinRoot] =>
          throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_SYNTAX",
            "feature" -> s"$q.$spelling here",
            "alternative" -> s"refer to $q.$spelling in the query block that joins $q.")
        case _ =>
      })
    }
    if (!plan.exists(_.isInstanceOf[StreamJoinOutput])) plan
    else plan.transformUp { case o: StreamJoinOutput => o.child }
  }
}
