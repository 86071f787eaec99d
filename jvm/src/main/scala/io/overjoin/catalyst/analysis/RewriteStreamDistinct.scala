package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute}
import org.apache.spark.sql.catalyst.expressions.aggregate.Min
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Deduplicate, EventTimeWatermark, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{Metadata, MetadataBuilder}

import io.overjoin.catalyst.expressions.TimeFloor
import io.overjoin.catalyst.plans.logical.{OverjoinNode, StreamDistinct}
import io.overjoin.errors.OverjoinErrors

/**
 * Kinesis Data Analytics' `SELECT STREAM DISTINCT` (docs/semantics.md §15): a row is a duplicate
 * when its select items other than `ROWTIME` equal an earlier row's; the first is kept, with its
 * own `ROWTIME`. On a stream, Spark's deduplication, which emits each first row at once; a key
 * that is a `STEP`/`FLOOR` of `ROWTIME` bounds its state, through a hidden key, the end of that
 * window, carrying the watermark's event-time metadata (its values are forgotten once the watermark
 * passes the end, when no row of the window can come any more):
 * {{{
 *   StreamDistinct block=0 rowtime items=0            Project [ROWTIME, k, w]
 *   +- Project [ROWTIME, k, step(ROWTIME) AS w]  ==>  +- Deduplicate [k, w, end]
 *                                                        +- Project [ROWTIME, k, w, w + 1m AS end]
 * }}}
 * Over tables (replay): an aggregation by the same keys keeping the earliest `ROWTIME`, which is
 * the row a stream whose rows arrive in `ROWTIME` order keeps.
 */
object RewriteStreamDistinct extends Rule[LogicalPlan] {

  val WindowEnd = "__overjoin_distinct_end"

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!OverjoinNode.mayExist || !plan.exists(_.isInstanceOf[StreamDistinct])) return plan
    plan.transformUp { case d: StreamDistinct if d.child.resolved => rewrite(d) }
  }

  private def rewrite(d: StreamDistinct): LogicalPlan = {
    val out = d.child.output
    if (d.rowtimeItems.isEmpty && d.floorItems.isEmpty && d.monotonicItems.isEmpty) {
      throw OverjoinErrors.distinctWithoutTime(d.child.origin, out.map(_.name).mkString(", "))
    }
    val rowtimes = d.rowtimeItems.map(out).map(_.exprId).toSet
    val others = out.filterNot(a => rowtimes.contains(a.exprId))
    // Every item is ROWTIME: the distinct rowtimes.
    val keys = if (others.isEmpty) out else others
    if (!d.child.isStreaming) {
      val list = out.map { a =>
        if (rowtimes.contains(a.exprId) && others.nonEmpty) Alias(Min(a).toAggregateExpression(), a.name)(a.exprId) else a
      }
      return Aggregate(keys, list, d.child)
    }
    val tz = SQLConf.get.sessionLocalTimeZone
    val end = d.floorItems.toSeq.sortBy(_._1).collectFirst {
      case (i, call) if call.origin.isEmpty && call.stepNumber.isEmpty && !rowtimes.contains(out(i).exprId) =>
        Alias(TimeFloor(d.block, call, out(i)).endOf(out(i), tz), WindowEnd)(explicitMetadata = watermarkOf(d.child))
    }
    end match {
      case Some(e) if e.metadata.contains(EventTimeWatermark.delayKey) =>
        // Below the deduplication the end is the only event-time column (Spark allows one there);
        // above it, the columns get their metadata back, for what reads ROWTIME downstream.
        val key = EventTimeWatermark.delayKey
        val plain = out.map { a =>
          if (a.metadata.contains(key)) {
            Alias(a, a.name)(explicitMetadata = Some(new MetadataBuilder().withMetadata(a.metadata).remove(key).build()))
          } else a
        }
        val inner = plain.map(_.toAttribute)
        val byId = out.map(_.exprId).zip(inner).toMap
        val dedup = Deduplicate(keys.map(k => byId(k.exprId)) :+ e.toAttribute, Project(plain :+ e, d.child))
        Project(out.zip(inner).map { case (a, b) =>
          if (a.exprId == b.exprId) b else Alias(b, a.name)(exprId = a.exprId, explicitMetadata = Some(a.metadata))
        }, dedup)
      case _ => Deduplicate(keys, d.child)
    }
  }

  /** The watermark's event-time metadata: a column of `child` that carries it, or its watermark node's. */
  private def watermarkOf(child: LogicalPlan): Option[Metadata] = {
    val key = EventTimeWatermark.delayKey
    val carriers: Seq[Attribute] = child.output ++ child.collect { case w: EventTimeWatermark => w.output }.flatten
    carriers.find(_.metadata.contains(key)).map(a => new MetadataBuilder().putLong(key, a.metadata.getLong(key)).build())
  }
}
