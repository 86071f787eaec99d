package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.{FunctionRegistry, UnresolvedFunction, UnresolvedHaving}
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Expression, GetStructField, Literal, NamedExpression, SessionWindow}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, EventTimeWatermark, Filter, LogicalPlan, Project, Sort}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{CalendarIntervalType, Metadata, MetadataBuilder, TimestampType}
import org.apache.spark.unsafe.types.CalendarInterval

import io.overjoin.catalyst.expressions.{GroupWindow, RowtimeReference, TimeFloor}
import io.overjoin.catalyst.plans.logical.{OverjoinNode, StaggerInput, StreamJoinOutput}
import io.overjoin.errors.OverjoinErrors

/**
 * Tumbling and hopping windows (docs/semantics.md §11): an aggregation grouped by KDA's and
 * s-Server's `STEP(ROWTIME BY interval)` or `FLOOR(ROWTIME TO unit)`, Calcite's `CEIL(ROWTIME TO
 * unit)`, or Calcite's group windows `TUMBLE(ROWTIME, size)` and `HOP(ROWTIME, slide, size)`,
 * becomes Spark's streaming aggregation, grouped by the window's end (which carries the watermark,
 * so each group is emitted once the watermark passes the end, in append mode) and start.
 * `ROWTIME` in the select list is the group's end (`CEIL`'s value: its window `(end - 1 unit,
 * end]` holds it); the `STEP`/`FLOOR`/`CEIL` expression itself is the call's value (its start for
 * `STEP`/`FLOOR`), `TUMBLE_START`/`HOP_START` the start and `TUMBLE_END`/`HOP_END` the end.
 * {{{
 *   Aggregate [k, STEP(ROWTIME BY 1m)], [rowtime_ref(ROWTIME) AS ROWTIME, k, count(1)]
 *   +- StreamJoinOutput block=0 t#1
 * ==>
 *   Aggregate [k, __overjoin_window_end, __overjoin_window_start], [__overjoin_window_end AS ROWTIME, k, count(1)]
 *   +- Project [t#1, k, v, <floor of t#1> AS __overjoin_window_start, <floor + 1m> AS __overjoin_window_end]
 *      +- StreamJoinOutput block=0 t#1
 * }}}
 * A hopping window's start and end are Spark's own `window(t#1, size, slide)`, whose rows Spark's
 * analyzer then makes one per window (`TimeWindowing`: an `Expand` and a filter under the
 * projection). Calcite's `SESSION(ROWTIME, gap)` groups by Spark's own `session_window(t#1, gap)`
 * (Spark's session aggregation), `SESSION_START`/`SESSION_END` its fields, `ROWTIME` its end.
 *
 * Everywhere else `STEP`, `FLOOR ... TO` and `CEIL ... TO` are scalar functions: replaced by Spark's
 * expressions once their argument is resolved. Over tables (replay) the same rewrite gives the
 * same groups.
 */
object RewriteTumblingAggregates extends Rule[LogicalPlan] {

  val WindowStart = "__overjoin_window_start"
  val WindowEnd = "__overjoin_window_end"
  val SessionTime = "__overjoin_session_time"

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!OverjoinNode.mayExist) return plan
    // A resolved plan holds no STEP/FLOOR call of ours (they are never resolved); it may hold a
    // streaming block's ORDER BY over a stream, which a stream cannot run as Spark's sort.
    val sorts = plan.exists {
      case s: Sort => StreamOrderBy.decides(s) && (!s.resolved || s.child.isStreaming)
      case _ => false
    }
    if (!sorts && (plan.resolved || !plan.exists(_.expressions.exists(_.exists(isOurs))))) return plan
    plan.transformUp {
      case a: Aggregate if waiting(a) && a.child.resolved => decide(a)
      case s: Sort if !waiting(s) && StreamOrderBy.applies(s) => StreamOrderBy.rewrite(s)
      case p if !waiting(p) && p.childrenResolved && p.expressions.exists(_.exists(isScalarReady)) =>
        p.transformExpressions(scalars)
    }
  }

  private def isOurs(e: Expression): Boolean = e.isInstanceOf[TimeFloor] || e.isInstanceOf[GroupWindow]

  /**
   * An aggregation grouped by a `STEP`/`FLOOR`/`CEIL` of time that may be a tumbling window, or by
   * a group window, not decided yet: its `ROWTIME`s wait for the decision
   * ([[BindRowtimeReferences]] leaves them alone).
   */
  def waiting(p: LogicalPlan): Boolean = p match {
    // A stagger window's keys are plain values (docs/semantics.md §13), whatever they floor.
    case a: Aggregate if a.child.isInstanceOf[StaggerInput] => false
    case a: Aggregate => a.groupingExpressions.exists {
      case f: TimeFloor => f.call.stepNumber.isEmpty
      case g: GroupWindow => g.call.isGroup
      case _ => false
    }
    // An ORDER BY over such an aggregation reads its window ([[StreamOrderBy]]).
    case s: Sort => aggregateBelow(s.child).exists(waiting)
    case _ => false
  }

  /** The aggregation a sort reads, through HAVING's filter and Spark's projections. */
  private def aggregateBelow(p: LogicalPlan): Option[Aggregate] = p match {
    case a: Aggregate => Some(a)
    case Project(_, child) => aggregateBelow(child)
    case Filter(_, child) => aggregateBelow(child)
    case h: UnresolvedHaving => aggregateBelow(h.child)
    case _ => None
  }

  private def isScalarReady(e: Expression): Boolean = e match {
    case f: TimeFloor => f.child.resolved
    case _ => false
  }

  private def scalars: PartialFunction[Expression, Expression] = {
    case f: TimeFloor if f.child.resolved => f.floorOf(f.child, SQLConf.get.sessionLocalTimeZone)
  }

  /**
   * A window is tumbling (or hopping) when its argument is a rowtime of the block: `ROWTIME`,
   * `s.ROWTIME`, or the column that is an input's rowtime (`STEP(s.ts BY ...)` where `ts` is `s`'s
   * rowtime). Otherwise a `STEP`/`FLOOR`/`CEIL` aggregation groups by the plain value, and a
   * group window's windows are over that time, which only tables can have: over a stream no
   * watermark would ever close them.
   */
  private def decide(a: Aggregate): LogicalPlan = {
    val floors = a.groupingExpressions.collect { case f: TimeFloor if f.call.stepNumber.isEmpty => f }
    val groups = a.groupingExpressions.collect { case g: GroupWindow if g.call.isGroup => g }
    val auxiliaries = a.aggregateExpressions.flatMap(_.collect { case g: GroupWindow if !g.call.isGroup => g })
    def ready(e: Expression): Boolean = e.resolved || e.isInstanceOf[RowtimeReference]
    if (!(floors ++ groups ++ auxiliaries).forall(f => ready(f.child))) return a
    val outputs = a.child.collect { case o: StreamJoinOutput => o }
    def rowtimeOf(child: Expression): Option[Attribute] = child match {
      case _: RowtimeReference => BindRowtimeReferences.bindIn(child, outputs) match {
        case attr: Attribute => Some(attr)
        case _ => None
      }
      case attr: Attribute if outputs.exists(o => (o.rowtime +: o.inputRowtimes.values.toSeq).exists(_.semanticEquals(attr))) =>
        Some(attr)
      case _ => None
    }
    val bind: Expression => Expression = e => BindRowtimeReferences.bindIn(e, outputs) match {
      case attr: Attribute => canonical(attr, outputs)
      case other => other
    }
    val floorWindows = floors.flatMap(f => rowtimeOf(f.child).map(rt => Window(f, canonical(rt, outputs), rowtime = true)))
    val groupWindows = groups.map { g =>
      rowtimeOf(g.child) match {
        case Some(rt) => Window(g, canonical(rt, outputs), rowtime = true)
        case None if a.child.isStreaming =>
          throw OverjoinErrors.groupWindowOf(g.origin, g.call.text,
            s"its time ${g.call.time} is not the rowtime of the block's stream input, so no watermark would close its windows",
            s"Group by a window of ROWTIME (${g.call.kind}(ROWTIME, ...)), or make ${g.call.time} the input's rowtime: " +
              s"OVER (ORDER BY ${g.call.time} RANGE CURRENT ROW) or WATERMARK ${g.call.time} DELAY OF INTERVAL '0' SECOND after it")
        case None => Window(g, bind(g.child), rowtime = false)
      }
    }
    val windows = floorWindows ++ groupWindows
    if (windows.isEmpty) {
      // A plain time column: its STEP/FLOOR is a value to group by.
      a.transformExpressions { case ref: RowtimeReference => BindRowtimeReferences.bindIn(ref, outputs) }
        .transformExpressions(scalars)
    } else rewrite(a, windows, bind)
  }

  /** A window the aggregation groups by: its call, and the time it windows (a rowtime of the block, or not). */
  private final case class Window(call: Expression, time: Expression, rowtime: Boolean) {
    def text: String = call match {
      case f: TimeFloor => f.call.text
      case g: GroupWindow => g.call.text
    }

    /** The same window as `other`: the same call over the same time. */
    def same(other: Window): Boolean = other.time.semanticEquals(time) && ((call, other.call) match {
      case (f: TimeFloor, g: TimeFloor) => f.call.copy(start = 0, text = "") == g.call.copy(start = 0, text = "")
      case (f: GroupWindow, g: GroupWindow) => f.call.sameWindow(g.call)
      case _ => false
    })
  }

  /**
   * The same rowtime under its two names: with one input, the block's `ROWTIME` is an alias of the
   * input's rowtime column (`GROUP BY STEP(s.ts ...)`, `SELECT STEP(ROWTIME ...)`).
   */
  private[analysis] def canonical(attr: Attribute, outputs: Seq[StreamJoinOutput]): Attribute =
    outputs.filter(_.rowtime.exprId == attr.exprId).flatMap { o =>
      o.child.collectFirst { case Project(list, _) => list }.toSeq.flatten.collectFirst {
        case al @ Alias(inner: Attribute, _) if al.exprId == attr.exprId &&
          o.inputRowtimes.values.exists(_.exprId == inner.exprId) => inner
      }
    }.headOption.getOrElse(attr)

  private def rewrite(a: Aggregate, windows: Seq[Window], bind: Expression => Expression): LogicalPlan = {
    val w = windows.head
    windows.find(o => !o.same(w)).foreach(o => throw OverjoinErrors.twoTumblingWindows(w.text, o.text))
    val rt = w.time
    if (rt.dataType != TimestampType) {
      val name = rt match {
        case attr: Attribute => attr.name
        case other => other.sql
      }
      throw OverjoinErrors.rowtimeNotTimestamp(a.origin, name, w.text, rt.dataType.sql)
    }
    val metadata = rt match {
      case attr: Attribute if w.rowtime => eventTimeMetadata(attr, a.child)
      case _ => Metadata.empty
    }
    val tz = SQLConf.get.sessionLocalTimeZone
    w.call match {
      case g: GroupWindow if g.call.kind == "SESSION" => return session(a, g, rt, metadata, bind)
      case _ =>
    }
    val (startOf, endOf) = w.call match {
      case f: TimeFloor => (f.startOf(rt, tz), f.groupRowtime(rt, tz))
      case g: GroupWindow => g.startAndEnd(rt)
    }
    val start = Alias(startOf, WindowStart)()
    val end = Alias(endOf, WindowEnd)(explicitMetadata = Some(metadata))
    val project = Project(a.child.output :+ start :+ end, a.child)
    val (startAttr, endAttr) = (start.toAttribute, end.toAttribute)

    val groupings = a.groupingExpressions.filterNot {
      case g: TimeFloor => windows.exists(_.call eq g)
      case g: GroupWindow => g.call.isGroup
      case _ => false
    } ++ Seq(endAttr, startAttr)
    def auxiliary(g: GroupWindow): Expression = auxiliaries(g, w, rt, bind, startAttr, endAttr)
    val aggregates = a.aggregateExpressions.map { e =>
      val outside = outsideAggregates(e) {
        // The window's STEP/FLOOR/CEIL in the select list is its value (the start of a STEP/FLOOR
        // window); KDA's FLOOR((ts - TIMESTAMP ...) SECOND / n TO SECOND) is its number of steps
        // since the origin, an interval.
        case g: TimeFloor if w.call.isInstanceOf[TimeFloor] &&
          g.call.copy(start = 0, text = "") == w.call.asInstanceOf[TimeFloor].call.copy(start = 0, text = "") &&
          bind(g.child).semanticEquals(rt) => if (g.call.origin.isDefined) g.floorOf(startAttr, tz) else startAttr
        case g: GroupWindow if !g.call.isGroup => auxiliary(g)
        case r: RowtimeReference if r.block == blockOf(w) => endAttr
      }
      // TUMBLE_START(...) and the like name the window in aggregate functions too (a constant of the group).
      outside.transformDown { case g: GroupWindow if !g.call.isGroup => auxiliary(g) }.asInstanceOf[NamedExpression]
    }
    val rewritten = Aggregate(groupings, aggregates, project, a.hint)
    rewritten.copyTagsFrom(a)
    rewritten
  }

  private def blockOf(w: Window): Int = w.call match {
    case f: TimeFloor => f.block
    case g: GroupWindow => g.block
  }

  /**
   * `e` with each auxiliary group window function (`TUMBLE_END(...)`, ...) replaced by the start
   * or end of the group's window `w` over `rt`: the parser made sure it names `w`'s function and
   * intervals; its time must be `w`'s too.
   */
  private def auxiliaries(e: Expression, w: Window, rt: Expression, bind: Expression => Expression,
      start: Expression, end: Expression): Expression = e.transformDown {
    case g: GroupWindow if !g.call.isGroup =>
      val group = w.call match {
        case x: GroupWindow => x.call
        case _ => throw OverjoinErrors.internal(s"${g.call.text} without its group window")
      }
      if (!bind(g.child).semanticEquals(rt)) {
        throw OverjoinErrors.groupWindowOf(g.origin, g.call.text,
          s"its time ${g.call.time} is not that of GROUP BY ${group.text}",
          s"Write the arguments of the GROUP BY's ${group.kind}: ${g.call.function}${group.text.substring(group.text.indexOf('('))}")
      }
      if (g.call.role == "START") start else end
  }

  /**
   * Calcite's `SESSION(ROWTIME, gap)`: Spark's own session window, `session_window(t#1, gap)`, as
   * the group (Spark's analyzer and planner make it a session aggregation); `SESSION_START`/
   * `SESSION_END` its fields; `ROWTIME` its end, with the rowtime's event-time metadata so that
   * what reads the groups finds their time.
   * {{{
   *   Aggregate [k, SESSION(ROWTIME, 5m)], [rowtime_ref(ROWTIME) AS ROWTIME, SESSION_START(...) AS s, k, count(1)]
   * ==>
   *   Aggregate [k, session_window(__overjoin_session_time, 5m)], [session_window(...).end AS ROWTIME, session_window(...).start AS s, k, count(1)]
   *   +- Project [t#1, k, v, t#1 AS __overjoin_session_time]
   * }}}
   */
  private def session(a: Aggregate, g: GroupWindow, rt: Expression, metadata: Metadata,
      bind: Expression => Expression): LogicalPlan = {
    // The time under a name of its own that carries the watermark's metadata, which Spark's session
    // window passes on to the group (a streaming aggregation finds its event time there).
    val time = Alias(rt, SessionTime)(explicitMetadata = Some(metadata))
    val project = Project(a.child.output :+ time, a.child)
    val window = SessionWindow(time.toAttribute, Literal(new CalendarInterval(0, 0, g.call.sizeMicros), CalendarIntervalType))
    val start = GetStructField(window, 0, Some("start"))
    val end = GetStructField(window, 1, Some("end"))
    val groupings = a.groupingExpressions.map {
      case x: GroupWindow if x.call.isGroup => window
      case other => other
    }
    def auxiliary(x: GroupWindow): Expression = auxiliaries(x, Window(g, rt, rowtime = true), rt, bind, start, end)
    val aggregates = a.aggregateExpressions.map { e =>
      val outside = outsideAggregates(e) {
        case x: GroupWindow if !x.call.isGroup => auxiliary(x)
        case r: RowtimeReference if r.block == g.block => end
      }
      outside.transformDown { case x: GroupWindow if !x.call.isGroup => auxiliary(x) } match {
        // The group's ROWTIME carries the watermark's metadata, as a tumbling window's end does.
        case al @ Alias(child, name) if child eq end =>
          Alias(child, name)(al.exprId, al.qualifier, Some(metadata), al.nonInheritableMetadataKeys)
        case other => other.asInstanceOf[NamedExpression]
      }
    }
    val rewritten = Aggregate(groupings, aggregates, project, a.hint)
    rewritten.copyTagsFrom(a)
    rewritten
  }

  /** `e` with `pf` applied, top-down, except inside aggregate functions (`MAX(ROWTIME)` is the input's). */
  private[analysis] def outsideAggregates(e: Expression)(pf: PartialFunction[Expression, Expression]): Expression = e match {
    case agg: AggregateExpression => agg
    case call: UnresolvedFunction if isAggregateCall(call) => call
    case x if pf.isDefinedAt(x) => pf(x)
    case x => x.withNewChildren(x.children.map(outsideAggregates(_)(pf)))
  }

  /**
   * An aggregate function not yet resolved (it waits for the `ROWTIME` in its argument): one with
   * DISTINCT, FILTER or WITHIN GROUP, or a built-in of Spark's aggregate group.
   */
  private def isAggregateCall(u: UnresolvedFunction): Boolean =
    u.isDistinct || u.filter.isDefined || u.orderingWithinGroup.nonEmpty || (u.nameParts.size == 1 &&
      FunctionRegistry.builtin.lookupFunction(FunctionIdentifier(u.nameParts.head.toLowerCase))
        .exists(_.getGroup == "agg_funcs"))

  /**
   * Spark finds a streaming aggregation's event time by the watermark delay in a grouping
   * column's metadata: the window end gets the rowtime's, or any watermarked column's (after a
   * join, the query's watermark is one for all its inputs).
   */
  private[analysis] def eventTimeMetadata(rt: Attribute, child: LogicalPlan): Metadata = {
    val key = EventTimeWatermark.delayKey
    if (rt.metadata.contains(key)) rt.metadata
    else child.output.find(_.metadata.contains(key)) match {
      case Some(w) => new MetadataBuilder().withMetadata(rt.metadata).putLong(key, w.metadata.getLong(key)).build()
      case None => rt.metadata
    }
  }
}
