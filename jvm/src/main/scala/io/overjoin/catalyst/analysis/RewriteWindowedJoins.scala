package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate.Max
import org.apache.spark.sql.catalyst.plans.{Cross, FullOuter, Inner, InnerLike, JoinType, LeftOuter, RightOuter}
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.types.TimestampNTZType

import io.overjoin.catalyst.plans.logical.{OverjoinNode, PreparedStreamJoin, RowtimeInput, StreamJoinOutput, TableInput, WindowedJoin}
import io.overjoin.config.OverjoinConf
import io.overjoin.errors.OverjoinErrors

/**
 * Rewrites the FROM clause of a streaming-dialect query block into a join Spark can run as a
 * bounded-state stream (or, over tables, as the batch join that returns the same rows), once Spark
 * has resolved the join conditions of its [[PreparedStreamJoin]].
 *
 * {{{
 *   SELECT STREAM ROWTIME, o.orderId FROM Shipments AS s
 *     JOIN Orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON o.orderId = s.orderId
 * }}}
 * becomes, with `s.t`/`o.t` the inputs' rowtimes (docs/semantics.md §1-4):
 * {{{
 *   StreamJoinOutput block=0 ROWTIME#9
 *   +- Project [greatest(s.t, o.t) AS ROWTIME#9, s.*, o.*]
 *      +- Join Inner, (o.orderId = s.orderId) AND (s.t + 0 - 1h <= o.t) AND (o.t <= s.t + 0 - 0)
 *         :- Filter isnotnull(s.t) +- EventTimeWatermark s.t, 1 ms +- ...
 *         +- Filter isnotnull(o.t) +- EventTimeWatermark o.t, 1 ms +- ...
 * }}}
 *
 * Every time condition has the shape `leftTime + c1 <= rightTime + c2`, the only one from which
 * Spark's `StreamingJoinHelper` derives when it may drop a row from the join state; any other
 * shape would keep state forever.
 */
object RewriteWindowedJoins extends Rule[LogicalPlan] with PredicateHelper {
  import LifeIntervals._

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!OverjoinNode.mayExist) return plan
    if (!plan.exists(_.isInstanceOf[PreparedStreamJoin])) return plan
    plan.transformUp {
      case p: PreparedStreamJoin if p.child.resolved => finish(p)
    }
  }

  /** Each input's rowtime by its name in lower case, for `o.ROWTIME`; tables only if they have one. */
  def inputRowtimes(plan: LogicalPlan): Map[String, Attribute] = plan.collect {
    case r: RowtimeInput => Seq(r.input.name.toLowerCase -> r.rowtime)
    case t: TableInput => t.rowtime.map(t.input.name.toLowerCase -> _).toSeq
  }.flatten.toMap

  private def finish(root: PreparedStreamJoin): LogicalPlan = {
    val asofRights = root.block.joins.filter(_.asof).map(j => root.block.inputs(j.rightIndex).start).toSet
    val inputs = root.child.collect { case r: RowtimeInput => r }
    // docs/semantics.md §4: the end of a ROWS window that never closed in a finite input counts as
    // the largest rowtime of the inputs. Only replay meets such a window.
    val largest = if (inputs.exists(_.rowsEnd.isDefined)) {
      Some(Greatest(inputs.map(r => ScalarSubquery(
        Aggregate(Nil, Seq(Alias(Max(r.rowtime).toAggregateExpression(), "max_rowtime")()), r.child)): Expression)))
    } else None
    val (plan, _, rowtimeExpr) = build(root.child, asofRights, largest)
    val time = rowtimeExpr.getOrElse(throw OverjoinErrors.noStreamInput())
    // A block that reads one stream and joins nothing, whose rowtime is that stream's own ROWTIME
    // column: the column is the output ROWTIME, with its qualifier, so that `*` and
    // `s.*` give ROWTIME once, as a KDA stream's do (docs/semantics.md §4); `s.ROWTIME` is the same.
    val ownRowtime: Option[Attribute] = (inputs, time) match {
      case (Seq(only), a: Attribute) if a.exprId == only.rowtime.exprId && a.name.equalsIgnoreCase("ROWTIME") &&
          !joinsOrTables(root.child) => Some(a)
      case _ => None
    }
    val qualifier = ownRowtime.map(_.qualifier).getOrElse(Nil)
    val rowtime = Alias(time, "ROWTIME")(qualifier = qualifier)
    def isOwnRowtime(a: Attribute): Boolean = ownRowtime.exists(_.exprId == a.exprId)
    val visible = plan.output.filterNot(a => InternalColumns.Hidden.contains(a.name) || isOwnRowtime(a))
    val project = Project(rowtime +: visible, plan)
    // USING joins keep the merged-away key columns as hidden output (`sp.ticker` after
    // `USING (ticker)`); keep them reachable through the new projection.
    project.setTagValue(Project.hiddenOutputTag, plan.metadataOutput)
    // Built by hand: an Alias gives no typed attribute until Spark has resolved what it wraps.
    val rowtimeType = if (inputs.forall(_.rowtime.dataType == TimestampNTZType)) TimestampNTZType else TimestampType
    val attr = AttributeReference("ROWTIME", rowtimeType, nullable = true)(exprId = rowtime.exprId, qualifier = qualifier)
    val rowtimes = inputRowtimes(root.child).map { case (name, a) => name -> (if (isOwnRowtime(a)) attr else a) }
    StreamJoinOutput(root.block.id, attr, rowtimes, project, root.block.slidingCalls,
      root.block.slidingSpecs)
  }

  private val TimestampType = org.apache.spark.sql.types.TimestampType

  /** Whether the block's own FROM clause joins or reads a table: not what its inputs' queries do inside. */
  private def joinsOrTables(p: LogicalPlan): Boolean = p match {
    case _: TableInput | _: Join => true
    case _: RowtimeInput => false
    case other => other.children.exists(joinsOrTables)
  }

  /**
   * Rebuilds `plan` (a join tree of [[RowtimeInput]]s, maybe under Spark's USING projections)
   * with time conditions. Returns the plan, the life interval of its rows (None for tables) and
   * the ROWTIME its rows would have as the query's output (docs/semantics.md §4).
   */
  private def build(plan: LogicalPlan, asof: Set[Int], largest: Option[Expression])
      : (LogicalPlan, Option[Life], Option[Expression]) = plan match {
    case r: RowtimeInput if r.isStream =>
      val life = leaf(r)
      (r.child, Some(life), Some(life.start))
    case r: RowtimeInput => (r.child, None, None)
    case t: TableInput => (t.child, None, None)
    case p @ Project(list, child) =>
      val (c, life, rowtime) = build(child, asof, largest)
      // Spark's USING projection was made before the rewrite: keep what the rewrite added below it.
      val added = c.output.filter(a => InternalColumns.Hidden.contains(a.name) && !list.exists(_.exprId == a.exprId))
      val rebuilt = p.copy(projectList = list ++ added, child = c)
      rebuilt.copyTagsFrom(p) // USING's hidden key columns live in a tag
      (rebuilt, life, rowtime)
    case j @ Join(_, r, _, _, _) if inputStart(r).exists(asof.contains) =>
      AsofJoins.rewrite(j, build(j.left, asof, largest), build(r, asof, largest))
    case Join(l, r, tpe, cond, hint) =>
      val (lp0, ll0, lrt) = build(l, asof, largest)
      val (rp0, rl0, rrt) = build(r, asof, largest)
      (ll0, lrt, rl0, rrt) match {
        case (Some(a0), Some(lt), Some(b0), Some(rt)) => joinOfStreams(lp0, a0, lt, rp0, b0, rt, tpe, cond, hint, largest)
        case (Some(a), _, None, _) =>
          checkStreamTable(tpe, streamOnLeft = true, a, r)
          (Join(lp0, rp0, tpe, cond, hint), Some(a), lrt)
        case (None, _, Some(b), _) =>
          checkStreamTable(tpe, streamOnLeft = false, b, l)
          (Join(lp0, rp0, tpe, cond, hint), Some(b), rrt)
        case _ => (Join(lp0, rp0, tpe, cond, hint), None, None)
      }
    case other => throw OverjoinErrors.unsupportedFromItem(other.nodeName)
  }

  /**
   * `p` with the windowed join that produced `life` marked `holdUntilFinal` when that join has a
   * `ROWS` window: the join above needs the final life interval of each row it receives. Such a
   * join holds back the watermark it passes up below the life start of every row it may still emit
   * ([[org.apache.spark.sql.overjoin.HeldWatermark]]), so its output reaches the join above with a
   * lag of 0.
   */
  private def holdUntilFinal(p: LogicalPlan, life: Life): (LogicalPlan, Life) = {
    val producedBy = life.eventTime.map(_.exprId)
    if (life.leaves.size < 2 || !life.leaves.exists(_._1.streamRows.isDefined) || producedBy.isEmpty) return (p, life)
    var held = false
    val marked = p.transformUp {
      case w: WindowedJoin if w.produced.head.exprId == producedBy.get &&
          (w.leftRowsN.isDefined || w.rightRowsN.isDefined) =>
        held = true
        w.copy(holdUntilFinal = true)
    }
    if (!held) (p, life)
    else (marked, life.copy(side = life.side.map(s => s.copy(bounds = s.bounds.copy(lag = 0L)))))
  }

  /**
   * Joins two sides with life intervals `a`, `b` and ROWTIMEs `lrt`, `rrt` (docs/semantics.md §4):
   * a matched row's ROWTIME is `max(ROWTIME(l), ROWTIME(r))` (for an input row, ROWTIME is the
   * start of its life, so for two inputs this is the start of the intersection); a null-padded
   * row's is `max(ROWTIME(side), end L(side))`, the moment its last possible match left.
   */
  private def joinOfStreams(lp0: LogicalPlan, a0: Life, lrt: Expression, rp0: LogicalPlan, b0: Life,
      rrt: Expression, tpe: JoinType, cond: Option[Expression], hint: JoinHint, largest: Option[Expression])
      : (LogicalPlan, Option[Life], Option[Expression]) = {
    if (lp0.isStreaming && rp0.isStreaming && OverjoinConf.ownJoinOperator()) {
      // A ROWS row's life ends only when later rows of its input arrive; a join below with a ROWS
      // window therefore lets a matched row out only once its life is final, and holds back the
      // watermark it passes up (docs/operator.md, "ROWS windows joined again").
      val ((lpH, a), (rpH, b)) = (holdUntilFinal(lp0, a0), holdUntilFinal(rp0, b0))
      val (lp, rp, keyCond) = crossKey(lpH, rpH, cond)
      return WindowedJoins.plan(lp, a, rp, b, tpe, (cond.toSeq ++ keyCond).reduceOption(And))
    }
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
    // An end that is NULL here is a ROWS window that never closed (replay only).
    def end(x: Life): Expression = largest.map(l => Coalesce(Seq(x.end, l)): Expression).getOrElse(x.end)
    val matched = Greatest(Seq(lrt, rrt))
    val rowtime = tpe match {
      case _: InnerLike => matched // both sides are always there
      case _ => CaseWhen(Seq(And(a.present, b.present) -> matched, a.present -> Greatest(Seq(lrt, end(a)))),
        Some(Greatest(Seq(rrt, end(b)))))
    }
    // With the constant key a CROSS join is an inner join, which Spark can stream.
    val joinType = if (keyCond.isDefined && tpe == Cross) Inner else tpe
    (Join(lp, rp, joinType, Some(newCond), hint), Some(life), Some(rowtime))
  }

  private def inputStart(p: LogicalPlan): Option[Int] = p match {
    case r: RowtimeInput => Some(r.input.start)
    case t: TableInput => Some(t.input.start)
    case _ => None
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
    def keyed(p: LogicalPlan) = Project(p.output :+ Alias(Multiply(SparkPartitionID(), Literal(0)), InternalColumns.CrossKey)(), p)
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

  private def checkStreamTable(tpe: JoinType, streamOnLeft: Boolean, stream: Life, table: LogicalPlan): Unit = {
    val ok = tpe match {
      case _: InnerLike => true
      case LeftOuter => streamOnLeft
      case RightOuter => !streamOnLeft
      case _ => false
    }
    if (!ok) {
      throw OverjoinErrors.streamTableOuter(tpe.sql, stream.leaves.map(_._1.input.name).mkString(", "),
        table.collect { case t: TableInput => t.input.name }.mkString(", "))
    }
  }
}
