package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.{Inner, LeftOuter}
import org.apache.spark.sql.catalyst.plans.logical._

import io.overjoin.catalyst.plans.logical.{AsofLookup, RowtimeInput, TableInput}
import io.overjoin.errors.OverjoinErrors
import io.overjoin.execution.StreamingAsof

/**
 * `X ASOF [LEFT] JOIN Y ON <equalities> AND <one inequality>` (docs/semantics.md §6): each `x`
 * meets the one `y` whose time is closest to `x`'s in the allowed direction, ties going to the
 * latest arrival; `ROWTIME = x.t`. Over tables:
 * {{{
 *   Project [x.*, y.*]
 *   +- Filter rank = 1
 *      +- Window [row_number() OVER (PARTITION BY x_id ORDER BY y.t DESC, y_arrival DESC) AS rank]
 *         +- Join Inner|LeftOuter, cond
 *            :- Project [x.*, monotonically_increasing_id() AS x_id]
 *            +- Project [y.*, monotonically_increasing_id() AS y_arrival]
 * }}}
 * Two streams go to [[StreamingAsof]], which holds each `x` until the watermark rules out a closer
 * `y`: Spark has no such operator. A stream with a table goes to [[AsofLookup]], which answers each
 * `x` from the table as it is in the micro-batch; a table with a stream is refused.
 */
private[analysis] object AsofJoins extends PredicateHelper {

  type Side = (LogicalPlan, Option[Life], Option[Expression])

  def rewrite(j: Join, left: Side, right: Side): Side = {
    val (lp, ll, _) = left
    val (rp, rl, _) = right
    // A table on the row side would have to be answered again whenever the stream brings a closer
    // row: its rows have no moment at which they are final.
    if (rp.isStreaming && !lp.isStreaming) throw OverjoinErrors.asofStreamWithTable(names(j.right), names(j.left))
    if (lp.isStreaming && rp.isStreaming && rl.isEmpty) throw OverjoinErrors.asofStreamWithTable(names(j.left), names(j.right))
    if (ll.isEmpty || ll.get.leaves.size != 1) throw OverjoinErrors.asofAfterJoin(names(j.left))
    val cond = j.condition.getOrElse(throw OverjoinErrors.asofConditionOf("the right input", "0", "0"))
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
    }.getOrElse(throw OverjoinErrors.asofConditionOf("the right input", "?", "0 comparing the two inputs"))
    // Looking back, the closest y is the latest; looking forward, the earliest.
    val latestFirst = op == "<=" || op == "<"
    val x = ll.get.leaves.head._1
    if (lp.isStreaming) {
      val conjuncts = splitConjunctivePredicates(cond)
      val keys = conjuncts.collect {
        case EqualTo(a, b) if on(a, l) && on(b, r) => (a, b)
        case EqualTo(b, a) if on(a, l) && on(b, r) => (a, b)
      }
      if (keys.size + 1 != conjuncts.size) throw OverjoinErrors.asofExtraConditions(cond.sql)
      if (!rp.isStreaming) {
        // A table: looked up as it is in each micro-batch, every x answered at once.
        return (AsofLookup(lp, rp, keys.map(_._1), keys.map(_._2), xTime, yTime, op, j.joinType == LeftOuter), ll, Some(x.rowtime))
      }
      val y = rl.get.leaves.head._1
      val joined = StreamingAsof(lp, rp, keys, xTime, yTime, op, j.joinType == LeftOuter, x.rowtime, y.rowtime)
      return (joined, ll, Some(x.rowtime))
    }
    val xId = Alias(MonotonicallyIncreasingID(), InternalColumns.AsofRow)()
    val yArrival = Alias(MonotonicallyIncreasingID(), InternalColumns.AsofArrival)()
    val (lx, ry) = (Project(lp.output :+ xId, lp), Project(rp.output :+ yArrival, rp))
    val joinType = if (j.joinType == LeftOuter) LeftOuter else Inner
    val joined = Join(lx, ry, joinType, Some(cond), j.hint)
    val order = Seq(SortOrder(yTime, if (latestFirst) Descending else Ascending),
      SortOrder(yArrival.toAttribute, Descending))
    val rank = Alias(WindowExpression(RowNumber(),
      WindowSpecDefinition(Seq(xId.toAttribute), order, SpecifiedWindowFrame(RowFrame, UnboundedPreceding, CurrentRow))),
      InternalColumns.AsofRank)()
    val ranked = Window(Seq(rank), Seq(xId.toAttribute), order, joined)
    val closest = Project(lp.output ++ rp.output, Filter(EqualTo(rank.toAttribute, Literal(1)), ranked))
    (closest, ll, Some(x.rowtime))
  }

  /** The inputs in `p` (the join as the previous step left it), for messages. */
  private def names(p: LogicalPlan): String = p.collect {
    case r: RowtimeInput => r.input.name
    case t: TableInput => t.input.name
  }.mkString(", ")
}
