package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate.Count
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Window}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.types.{DayTimeIntervalType, TimestampNTZType, TimestampType}

import io.overjoin.catalyst.expressions.{SlidingFunction, SlidingLag}
import io.overjoin.catalyst.plans.logical.{OverjoinNode, SlidingWindow, StreamJoinOutput}
import io.overjoin.errors.OverjoinErrors
import io.overjoin.execution.sliding.DueRowAggregates
import io.overjoin.model.{SlidingCall, SlidingSpec}

/**
 * Kinesis Data Analytics' sliding windows (docs/semantics.md §12): window functions over a
 * stream's rows, `AVG(p) OVER (PARTITION BY k RANGE INTERVAL '1' MINUTE PRECEDING)`.
 *
 * Two steps, once Spark has resolved what they need:
 *
 *  1. `LAG` over a window with a frame ([[SlidingLag]], put there by the parser) gets KDA's meaning,
 *     the k-th row before the current one within its window, in Spark's own window functions
 *     (over tables too, where Spark's `lag` would refuse the frame). With `rt` the window's order
 *     (the rowtime) and `d` the default:
 *     {{{
 *       RANGE BETWEEN a PRECEDING AND b PRECEDING:
 *         s = lag(named_struct('v', x, 't', rt), k)  [IGNORE NULLS: the struct is NULL where x is]
 *         CASE WHEN s IS NOT NULL AND s.t >= rt - a AND s.t <= rt - b THEN s.v ELSE d END
 *       ROWS n PRECEDING:      k <= n ? lag(x, k, d) : d
 *       ... IGNORE NULLS:      k <= n AND count(x) OVER (ROWS BETWEEN n PRECEDING AND 1 PRECEDING) >= k
 *                                ? lag(x, k) IGNORE NULLS : d
 *     }}}
 *  2. Spark's `Window` over a stream, which Spark cannot run, becomes overjoin's [[SlidingWindow]]
 *     (planned as [[org.apache.spark.sql.overjoin.SlidingWindowExec]]), after the checks a stream
 *     needs: no ranking function (OJ122), no UNBOUNDED PRECEDING (OJ120), nothing FOLLOWING
 *     (OJ121), each at its place in the user's text.
 *     {{{
 *       Window [min(p) windowspecdefinition(k, ROWTIME ASC, RANGE -1m..0) AS m], [k], [ROWTIME ASC]
 *       +- Project [ROWTIME, k, p]  (a stream)
 *       ==>
 *       SlidingWindow [min(p) ... AS m], [k], [ROWTIME ASC] keep=60000000us/-1 rows
 *       +- Project [ROWTIME, k, p]
 *     }}}
 *
 * Over tables (replay) Spark's `Window` stays: it has the order the parser gave it (the block's
 * rowtime), and returns the same rows as the stream. A `Window` that is not ordered by one
 * timestamp column is left to Spark, which refuses it on a stream.
 */
object RewriteSlidingWindows extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!OverjoinNode.mayExist) return plan
    val hasLag = plan.exists(_.expressions.exists(_.exists(_.isInstanceOf[SlidingLag])))
    val hasStreamWindow = plan.exists { case w: Window => w.child.isStreaming; case _ => false }
    if (!hasLag && !hasStreamWindow) return plan
    plan.transformUp {
      case p if hasLag && p.childrenResolved && p.expressions.exists(_.exists(isReadyLag)) =>
        p.transformExpressions { case we @ WindowExpression(l: SlidingLag, spec) if isReadyLag(we) => kdaLag(l, spec) }
      case w: Window if w.resolved && w.child.isStreaming && orderedByTime(w) => sliding(w)
    }
  }

  private def isReadyLag(e: Expression): Boolean = e match {
    case WindowExpression(l: SlidingLag, spec) =>
      l.children.forall(_.resolved) && spec.partitionSpec.forall(_.resolved) && spec.orderSpec.forall(_.resolved) &&
        spec.orderSpec.size == 1
    case _ => false
  }

  private val Interval = DayTimeIntervalType(DayTimeIntervalType.DAY, DayTimeIntervalType.SECOND)

  private def kdaLag(l: SlidingLag, spec: WindowSpecDefinition): Expression = {
    val x = l.children.head
    val k = l.children.lift(1).map { e =>
      if (!e.foldable) throw OverjoinErrors.internal(s"the offset of LAG must be a constant, not ${e.sql}")
      e.eval().asInstanceOf[Number].longValue
    }.getOrElse(1L)
    val default = l.children.lift(2).getOrElse(Literal(null, x.dataType))
    val rt = spec.orderSpec.head.child
    val own = spec.copy(frameSpecification = UnspecifiedFrame)
    def lag(e: Expression, ignoreNulls: Boolean, d: Expression) =
      WindowExpression(Lag(e, Literal(k.toInt), d, ignoreNulls), own)
    spec.frameSpecification match {
      case f @ SpecifiedWindowFrame(RangeFrame, _, _) =>
        val a = -SlidingFrames.offset(f.lower).get
        val b = -SlidingFrames.offset(f.upper).get
        val struct = CreateNamedStruct(Seq(Literal("v"), x, Literal("t"), rt))
        val item = if (l.ignoreNulls) If(IsNull(x), Literal(null, struct.dataType), struct) else struct
        val s = lag(item, l.ignoreNulls, Literal(null, struct.dataType))
        val t = GetStructField(s, 1, Some("t"))
        val inWindow = Seq(IsNotNull(s), GreaterThanOrEqual(t, TimestampAddInterval(rt, Literal(-a, Interval)))) ++
          (if (b > 0) Seq(LessThanOrEqual(t, TimestampAddInterval(rt, Literal(-b, Interval)))) else Nil)
        CaseWhen(Seq(inWindow.reduce(And) -> GetStructField(s, 0, Some("v"))), default)
      case f @ SpecifiedWindowFrame(RowFrame, _, _) =>
        val n = -SlidingFrames.offset(f.lower).get
        if (k > n || k < 1) default
        else if (!l.ignoreNulls) lag(x, ignoreNulls = false, default)
        else {
          val before = spec.copy(frameSpecification = SpecifiedWindowFrame(RowFrame, Literal(-n.toInt), Literal(-1)))
          val count = WindowExpression(Count(Seq(x)).toAggregateExpression(), before)
          CaseWhen(Seq(GreaterThanOrEqual(count, Literal(k)) -> lag(x, ignoreNulls = true, Literal(null, x.dataType))),
            default)
        }
      case other => throw OverjoinErrors.internal(s"LAG over the frame $other")
    }
  }

  private def orderedByTime(w: Window): Boolean = w.orderSpec match {
    case Seq(SortOrder(a: Attribute, Ascending, _, _)) => a.dataType == TimestampType || a.dataType == TimestampNTZType
    case _ => false
  }

  /** A stream's window functions as overjoin's operator, once refused what a stream cannot run. */
  private def sliding(w: Window): LogicalPlan = {
    val block = w.child.collectFirst { case o: StreamJoinOutput => o }
    val calls = block.map(_.slidingCalls).getOrElse(Nil)
    val specs = block.map(_.slidingSpecs).getOrElse(Nil)
    var keepMicros = -1L
    var keepRows = -1L
    w.windowExpressions.foreach { named =>
      named.foreach {
        case we @ WindowExpression(fn, spec) =>
          val call = we.origin.startIndex.flatMap(s => calls.find(_.start == s))
          val windowSpec = call.flatMap(c => specs.find(_.open == c.spec))
          check(we, fn, spec, call, windowSpec)
          spec.frameSpecification match {
            // A running frame (UNBOUNDED PRECEDING) keeps aggregation buffers, not rows.
            case f: SpecifiedWindowFrame if SlidingFrames.isUnboundedPreceding(f) =>
            case f @ SpecifiedWindowFrame(RangeFrame, _, _) =>
              keepMicros = math.max(keepMicros, -SlidingFrames.offset(f.lower).get)
            case f @ SpecifiedWindowFrame(RowFrame, _, _) =>
              keepRows = math.max(keepRows, -SlidingFrames.offset(f.lower).get)
            case _ =>
          }
        case _ =>
      }
    }
    val functions = w.windowExpressions.map {
      case a: Alias => SlidingFunction.of(a.child)
      case other => throw OverjoinErrors.internal(s"a window expression without a name: ${other.sql}")
    }
    SlidingWindow(functions, w.windowExpressions.map(_.toAttribute), w.partitionSpec, w.orderSpec, keepMicros,
      keepRows, -1, w.child)
  }

  private def check(we: WindowExpression, fn: Expression, spec: WindowSpecDefinition, call: Option[SlidingCall],
      windowSpec: Option[SlidingSpec]): Unit = {
    val text = call.map(_.text).getOrElse(we.sql)
    fn match {
      case _: RowNumberLike | _: RankLike =>
        throw OverjoinErrors.slidingRanking(call.map(_.position), fn.prettyName.toUpperCase, text)
      case _ =>
    }
    spec.frameSpecification match {
      case f: SpecifiedWindowFrame if SlidingFrames.isFollowing(f) =>
        val at = windowSpec.flatMap(_.following).orElse(call.map(_.position))
        throw OverjoinErrors.slidingFollowing(at, text, f.sql)
      // KDA's running aggregate, written as such: every row of the partition up to the current
      // one, its state an aggregation buffer per key (docs/semantics.md §12).
      case f: SpecifiedWindowFrame if SlidingFrames.isUnboundedPreceding(f) && f.upper == CurrentRow &&
          windowSpec.exists(_.unbounded.isDefined) && DueRowAggregates.evaluable(Alias(we, "running")()) =>
      case f: SpecifiedWindowFrame if SlidingFrames.isUnboundedPreceding(f) =>
        // Without a frame of its own, an aggregate's window is everything up to the current row.
        val at = windowSpec.flatMap(_.unbounded).orElse(windowSpec.map(_.position)).orElse(call.map(_.position))
        throw OverjoinErrors.slidingUnbounded(at, text, if (windowSpec.exists(_.unbounded.isDefined)) f.sql
          else s"no frame, so ${f.sql}")
      case f: SpecifiedWindowFrame if SlidingFrames.offset(f.lower).isEmpty || SlidingFrames.offset(f.upper).isEmpty =>
        throw OverjoinErrors.slidingUnbounded(windowSpec.map(_.position).orElse(call.map(_.position)), text, f.sql)
      case _ =>
    }
  }
}
