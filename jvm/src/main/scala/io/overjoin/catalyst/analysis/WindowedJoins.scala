package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.{Cross, Inner, JoinType}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.{BooleanType, TimestampNTZType, TimestampType}

import io.overjoin.catalyst.plans.logical.{JoinSide, SideBounds, WindowedJoin}

/**
 * A join of two streams on overjoin's own operator ([[WindowedJoin]]), the default
 * (`spark.overjoin.join.operator = overjoin`). Instead of time conditions for Spark's join, each
 * side says how its rows' life intervals and ROWTIMEs are computed ([[JoinSide]]): from an input's
 * window, or, for a side that is itself such a join, from the columns that join adds. That is what
 * lets a null-padded row be joined again (docs/semantics.md §4, multi-way joins).
 */
private[analysis] object WindowedJoins extends PredicateHelper {
  import LifeIntervals._

  def plan(lp: LogicalPlan, a: Life, rp: LogicalPlan, b: Life, tpe: JoinType, cond: Option[Expression])
      : (LogicalPlan, Option[Life], Option[Expression]) = {
    val conjuncts = cond.toSeq.flatMap(splitConjunctivePredicates)
    def on(e: Expression, p: LogicalPlan) = e.references.nonEmpty && e.references.subsetOf(p.outputSet) && e.deterministic
    val keys = conjuncts.map {
      case e @ EqualTo(x, y) if on(x, lp) && on(y, rp) => Some((e, x, y, false))
      case e @ EqualTo(y, x) if on(x, lp) && on(y, rp) => Some((e, x, y, false))
      case e @ EqualNullSafe(x, y) if on(x, lp) && on(y, rp) => Some((e, x, y, true))
      case e @ EqualNullSafe(y, x) if on(x, lp) && on(y, rp) => Some((e, x, y, true))
      case _ => None
    }.flatten
    val (ls, rs) = (sideOf(a), sideOf(b))
    // A ROWS window counts rows per partition: all rows of one partition must meet in one task,
    // so only the equalities on partition columns of every ROWS side shuffle the rows; the
    // others are tested with the rest of the condition. None left: one task (a constant key).
    def onPartition(e: Expression, side: JoinSide) = side.rows.forall(_.partition.exists(_.semanticEquals(e)))
    val (shuffled, tested) = keys.partition { case (_, x, y, _) => onPartition(x, ls) && onPartition(y, rs) }
    val residual = (conjuncts.filterNot(c => keys.exists(_._1 eq c)) ++ tested.map(_._1)).reduceOption(And)
    val (leftKeys, rightKeys, nullSafe) =
      if (shuffled.isEmpty && keys.nonEmpty) (Seq(Literal(0)), Seq(Literal(0)), Seq(true))
      else (shuffled.map(_._2), shuffled.map(_._3), shuffled.map(_._4))
    val timeType = if ((a.leaves ++ b.leaves).forall(_._1.rowtime.dataType == TimestampNTZType)) TimestampNTZType
      else TimestampType
    val produced = Seq(
      AttributeReference(InternalColumns.JoinRowtime, timeType, nullable = false, WindowedJoin.RowtimeMetadata)(),
      AttributeReference(InternalColumns.JoinStart, timeType, nullable = false)(),
      AttributeReference(InternalColumns.JoinEnd, timeType, nullable = true)(),
      AttributeReference(InternalColumns.JoinEndInclusive, BooleanType, nullable = false)())
    val joinType = if (tpe == Cross) Inner else tpe
    val join = WindowedJoin(lp, rp, joinType, leftKeys, rightKeys, nullSafe, residual,
      ls.times, rs.times, ls.bounds, rs.bounds, produced,
      ls.rows.map(_.n), ls.rows.map(_.partition).getOrElse(Nil), rs.rows.map(_.n), rs.rows.map(_.partition).getOrElse(Nil))
    val (aNull, bNull) = WindowedJoin.nullableSides(joinType)
    val out = join.outputBounds
    val side = JoinSide(Seq(produced(0), produced(1), produced(2), produced(3), produced(0)), out)
    val life = Life(produced(1), produced(2), Literal(true),
      a.leaves.map { case (x, n) => x -> (n || aNull) } ++ b.leaves.map { case (x, n) => x -> (n || bNull) },
      Some(produced(0)), out.width, Some(side))
    (join, Some(life), Some(produced(0)))
  }

  /** How the rows of one side get their life interval and ROWTIME (docs/semantics.md §3-4). */
  private def sideOf(life: Life): JoinSide = life.side.getOrElse {
    val r = life.leaves.head._1
    val start = leafStart(r)
    val (end, inclusive) = leafEnd(r)
    if (r.streamRows.isDefined) {
      // The operator finds each row's end (docs/semantics.md §3); it starts at the row's rowtime.
      return JoinSide(Seq(r.rowtime, r.rowtime, end, Literal(false), r.rowtime),
        SideBounds(lag = 0L, width = Long.MaxValue, rowtimeLag = 0L), r.streamRows)
    }
    val bounds = r.input.tvf match {
      // A TUMBLE/HOP row lives at its window's end, after its rowtime.
      case Some(_) => SideBounds(lag = 0L, width = 0L, rowtimeLag = 0L)
      case None =>
        val f = frame(r)
        SideBounds(lag = -f.bMicros, width = f.aMicros - f.bMicros, rowtimeLag = 0L)
    }
    // Times are compared as microseconds, as Spark's watermark does (TIMESTAMP_NTZ read as UTC).
    JoinSide(Seq(r.rowtime, start, end, Literal(inclusive), start), bounds)
  }
}
