package io.overjoin.catalyst

import java.util.UUID

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.{Cross, Inner, InnerLike, JoinType, LeftOuter, NaturalJoin, RightOuter, UsingJoin, FullOuter}
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{CalendarIntervalType, TimestampNTZType, TimestampType}
import org.apache.spark.unsafe.types.CalendarInterval

import io.overjoin.config.OverjoinConf
import io.overjoin.errors.OverjoinErrors
import io.overjoin.parser.StreamBlock

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
    plan.transformUp {
      case root @ StreamJoinRoot(_, false, child) if inputsResolved(child) => prepare(root)
      case root @ StreamJoinRoot(_, true, child) if child.resolved => finish(root)
      case p if !p.isInstanceOf[StreamJoinRoot] && hasRowtimeReference(p) => bindReferences(p)
    }
  }

  private def inputsResolved(plan: LogicalPlan): Boolean =
    plan.collect { case w: WindowedInput => w.child.resolved }.forall(identity)

  private def hasRowtimeReference(p: LogicalPlan): Boolean =
    p.expressions.exists(_.exists(_.isInstanceOf[RowtimeReference]))

  // ---------------------------------------------------------------------------------------------
  // Step 1.

  private def prepare(root: StreamJoinRoot): LogicalPlan = {
    val block = root.block
    block.unsupported.headOption.foreach { u =>
      throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_SYNTAX", "feature" -> u.feature,
        "alternative" -> u.alternative)
    }
    val windowed = root.child.collect { case w: WindowedInput => w }
    // Replay: over tables only, every input is treated as a stream and runs as a batch join.
    val anyStream = windowed.exists(_.child.isStreaming)
    val lateness = OverjoinConf.latenessMicros()
    val withInputs = root.child.transformUp {
      case w: WindowedInput => rowtimeInput(w, isStream = w.child.isStreaming || !anyStream, lateness)
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
    val byName = inputRowtimes(inputs)
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

  private def describe(p: LogicalPlan): String = p.collect { case r: RowtimeInput => r.input.name }.mkString(" JOIN ")

  private def inputRowtimes(inputs: Seq[RowtimeInput]): Map[String, Attribute] =
    inputs.map(i => i.input.name.toLowerCase -> i.rowtime).toMap

  /** Chooses the rowtime of one input (SEMANTICS.md section 1) and gives a stream its watermark. */
  private def rowtimeInput(w: WindowedInput, isStream: Boolean, latenessMicros: Long): RowtimeInput = {
    val child = w.child
    val resolver = SQLConf.get.resolver
    val delayKey = EventTimeWatermark.delayKey
    val input = w.input
    val source = if (input.alias.isDefined) s"${input.name} (${input.source})" else input.source
    val rowtime: Attribute = input.window.orderBy match {
      case Some(parts) =>
        child.resolve(parts, resolver) match {
          case Some(a: Attribute) => a
          case _ => throw OverjoinErrors.analysis("OVERJOIN_WINDOW_ORDER_BY", "input" -> source,
            "expression" -> s"${parts.mkString(".")}, which is not one of its columns (${child.output.map(_.name).mkString(", ")})")
        }
      case None =>
        child.output.find(_.metadata.contains(delayKey))
          .orElse(child.output.find(_.name.equalsIgnoreCase("ROWTIME")))
          .getOrElse(throw OverjoinErrors.analysis("OVERJOIN_NO_ROWTIME", "input" -> input.name,
            "source" -> input.source, "column" -> "ts"))
    }
    rowtime.dataType match {
      case TimestampType | TimestampNTZType =>
      case other => throw OverjoinErrors.analysis("OVERJOIN_ROWTIME_NOT_TIMESTAMP", "column" -> rowtime.name,
        "input" -> source, "type" -> other.sql)
    }
    if (!w.input.window.frame.isInstanceOf[RangeFrame]) {
      throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_SYNTAX", "feature" -> s"The ROWS window of $source",
        "alternative" -> "ROWS windows are planned; until then use a RANGE window.")
    }
    if (w.input.window.partitionBy.nonEmpty) {
      // A RANGE window is the same per partition: the rows in it depend on time only.
      logDebug(s"PARTITION BY of ${input.name} has no effect on a RANGE window")
    }

    val watermarked: LogicalPlan = if (child.isStreaming) {
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
    RowtimeInput(w.block, input, rt, isStream, Filter(IsNotNull(rt), watermarked))
  }

  // ---------------------------------------------------------------------------------------------
  // Step 2.

  /**
   * The life interval of a (partial) join row: `start` and `end` are null exactly when the row
   * has no stream part (null-padded). `present` is true when the row has a stream part.
   */
  private case class Life(start: Expression, end: Expression, present: Expression, leaves: Seq[RowtimeInput])

  private def plus(t: Expression, micros: Long): Expression =
    if (micros == 0) t
    else TimestampAddInterval(t, Literal(new CalendarInterval(0, 0, micros), CalendarIntervalType),
      Some(SQLConf.get.sessionLocalTimeZone))

  private def finish(root: StreamJoinRoot): LogicalPlan = {
    val (plan, _, rowtimeExpr) = build(root.child)
    val inputs = root.child.collect { case r: RowtimeInput => r }
    val rowtime = Alias(rowtimeExpr.getOrElse(
      throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_STREAMING_JOIN",
        "combination" -> "a streaming query block without a stream input",
        "detail" -> "ROWTIME needs at least one stream", "alternative" -> "Join at least one stream.")),
      "ROWTIME")()
    val project = Project(rowtime +: plan.output, plan)
    // Built by hand: an Alias gives no typed attribute until Spark has resolved what it wraps.
    val rowtimeType = if (inputs.forall(_.rowtime.dataType == TimestampNTZType)) TimestampNTZType else TimestampType
    val attr = AttributeReference("ROWTIME", rowtimeType, nullable = true)(exprId = rowtime.exprId)
    StreamJoinOutput(root.block.id, attr, inputRowtimes(inputs), project)
  }

  /**
   * Rebuilds `plan` (a join tree of [[RowtimeInput]]s, maybe under Spark's USING projections)
   * with time conditions. Returns the plan, the life interval of its rows (None for tables) and
   * the ROWTIME its rows would have as the query's output (SEMANTICS.md section 4).
   */
  private def build(plan: LogicalPlan): (LogicalPlan, Option[Life], Option[Expression]) = plan match {
    case r: RowtimeInput if r.isStream =>
      val f = r.input.window.frame.asInstanceOf[RangeFrame]
      val life = Life(plus(r.rowtime, f.bMicros), plus(r.rowtime, f.aMicros), IsNotNull(r.rowtime), Seq(r))
      (r.child, Some(life), Some(life.start))
    case r: RowtimeInput =>
      (r.child, None, None)
    case p @ Project(_, child) =>
      val (c, life, rowtime) = build(child)
      (p.copy(child = c), life, rowtime)
    case Join(l, r, tpe, cond, hint) =>
      val (lp, ll, lrt) = build(l)
      val (rp, rl, rrt) = build(r)
      (ll, rl) match {
        case (Some(a), Some(b)) =>
          val newCond = (cond.toSeq :+ intersects(a, b)).reduce(And)
          val life = Life(Greatest(Seq(a.start, b.start)), Least(Seq(a.end, b.end)), Or(a.present, b.present),
            a.leaves ++ b.leaves)
          // Matched: the first moment both rows are in their windows. Null-padded: the moment the
          // last possible match left the preserved row's window.
          val rowtime = CaseWhen(Seq(
            And(a.present, b.present) -> Greatest(Seq(a.start, b.start)),
            a.present -> a.end), Some(b.end))
          (Join(lp, rp, tpe, Some(newCond), hint), Some(life), Some(rowtime))
        case (Some(a), None) =>
          checkStreamTable(tpe, streamOnLeft = true, a, r)
          (Join(lp, rp, tpe, cond, hint), Some(a), lrt)
        case (None, Some(b)) =>
          checkStreamTable(tpe, streamOnLeft = false, b, l)
          (Join(lp, rp, tpe, cond, hint), Some(b), rrt)
        case (None, None) =>
          (Join(lp, rp, tpe, cond, hint), None, None)
      }
    case other =>
      throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_STREAMING_JOIN",
        "combination" -> s"a ${other.nodeName} inside the FROM clause of a streaming join",
        "detail" -> "overjoin follows joins of relations and subqueries only",
        "alternative" -> "Move that part into a subquery or view and join the result.")
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
        "stream" -> stream.leaves.map(_.input.name).mkString(", "),
        "table" -> table.collect { case r: RowtimeInput => r.input.name }.mkString(", "))
    }
  }

  /**
   * `L(a) ∩ L(b)` is non-empty: `start(a) <= end(b) AND start(b) <= end(a)`. Between two inputs
   * this is written `x.t + c1 <= y.t` and `y.t <= x.t + c2`, Spark's state-eviction shape.
   */
  private def intersects(a: Life, b: Life): Expression = (a.leaves, b.leaves) match {
    case (Seq(x), Seq(y)) =>
      val fx = x.input.window.frame.asInstanceOf[RangeFrame]
      val fy = y.input.window.frame.asInstanceOf[RangeFrame]
      And(
        LessThanOrEqual(plus(x.rowtime, fx.bMicros - fy.aMicros), y.rowtime),
        LessThanOrEqual(y.rowtime, plus(x.rowtime, fx.aMicros - fy.bMicros)))
    case _ =>
      And(LessThanOrEqual(a.start, b.end), LessThanOrEqual(b.start, a.end))
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
    plan.foreach {
      case r: StreamJoinRoot if r.child.resolved || r.child.collect { case w: WindowedInput => w }.isEmpty =>
        throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_STREAMING_JOIN",
          "combination" -> s"the FROM clause of block ${r.block.id}", "detail" -> "overjoin could not rewrite it",
          "alternative" -> "Please report this query.")
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
