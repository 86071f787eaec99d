package io.overjoin.execution.rcf

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.plans.logical.LogicalGroupState
import org.apache.spark.sql.streaming.GroupState

import io.overjoin.execution.RowTimes
import io.overjoin.model.RcfCall

/**
 * A row's explanation: the forest's attribution ([[Forest.attribution]]), the row's own values, and
 * each column's median among the forest's recent points before the row (null where the score is 0
 * or directionality is not asked for).
 */
private final case class Explained(parts: Array[Double], point: Array[Double], typical: Array[Double])

/**
 * The scoring of `RANDOM_CUT_FOREST` (docs/semantics.md §14), as the function of a
 * `flatMapGroupsWithState` with one group: the whole stream has one forest.
 *
 * On a stream a row waits until the watermark has reached its `ROWTIME` (every earlier row has
 * arrived by then), so the rows are scored in `ROWTIME` order whatever the micro-batches (rows of
 * one `ROWTIME` in the order of their values): the scores are those of the same rows as a table.
 * Each row's numeric values (at `numeric`) are its point, or with a shingle of `k` the last `k`
 * rows' points one after the other; it is scored against the forest, then offered to it. A row
 * with a NULL value there scores NULL and changes nothing; a row before the first full shingle, or
 * before the forest is ready, scores 0.
 *
 * With `call.explanation` each row also gets its explanation, a JSON text of each numeric column's
 * part of the score ([[Forest.attribution]]); NULL where the score is.
 *
 * The state is the forest's bytes ([[Forest.toBytes]]), the waiting rows and the shingle's last
 * `k - 1` points.
 */
private[overjoin] final class RandomCutForestScoring(call: RcfCall, rowtime: Int, numeric: Array[Int], names: Array[String],
    streaming: Boolean)
  extends ((Any, Iterator[Any], LogicalGroupState[Any]) => Iterator[Any]) with Serializable {

  /** The forest's seed: a fixed one, so that every run of a query gives the same scores. */
  private val Seed = 0x4F4A52434646L

  override def apply(key: Any, values: Iterator[Any], logicalState: LogicalGroupState[Any]): Iterator[Any] = {
    val state = logicalState.asInstanceOf[GroupState[Row]]
    val saved = if (state.exists) Some(state.get) else None
    val forest = saved.flatMap(s => Option(s.getAs[Array[Byte]](0))).map(Forest.fromBytes)
      .getOrElse(Forest(call.trees, call.sampleSize, call.timeDecay.toDouble, numeric.length * call.shingleSize, Seed))
    val waiting = saved.map(_.getSeq[Row](1)).getOrElse(Seq.empty)
    // An array of arrays comes back from the state as a Seq of Spark's own (mutable) Seqs: read each
    // as any Seq, not Scala's default immutable one (a cast that failed from the second micro-batch).
    var shingle: Vector[Array[Double]] = saved.map(_.getSeq[scala.collection.Seq[Double]](2)
      .map(_.toArray).toVector).getOrElse(Vector.empty)
    val (ready, later) = RowTimes.dueInOrder(waiting, values, rowtime, state, streaming)
    val out = ready.map { r =>
      val (score, parts): (Any, Explained) = if (numeric.exists(r.isNullAt)) (null, null) else {
        val point = numeric.map(i => r.get(i).asInstanceOf[Number].doubleValue())
        shingle = (shingle :+ point).takeRight(call.shingleSize)
        if (shingle.size < call.shingleSize) (0.0, Explained(new Array[Double](2 * forest.dimensions), point, null))
        else {
          val p = shingle.flatten.toArray
          val s = forest.score(p)
          val a = if (call.explanation) forest.attribution(p) else null
          // Each column's typical value, before the row is offered: what the row is high or low against.
          val typical = if (call.explanation && call.directionality && forest.ready) {
            Array.tabulate(point.length)(c => forest.median(p.length - point.length + c))
          } else null
          forest.update(p)
          (s, if (a == null) null else Explained(a, point, typical))
        }
      }
      if (call.explanation) Row.fromSeq(r.toSeq :+ score :+ Option(parts).map(explanation).orNull)
      else Row.fromSeq(r.toSeq :+ score)
    }
    if (streaming) {
      state.update(Row(forest.toBytes, later, shingle.takeRight(call.shingleSize - 1).map(_.toSeq)))
      if (later.nonEmpty) RowTimes.wakeAtEarliest(state, later, rowtime)
    }
    out.iterator
  }

  /**
   * `ANOMALY_EXPLANATION` (docs/semantics.md §14): a JSON object with a member per numeric column,
   * named as the query names it, in the query's order; each holds the column's `ATTRIBUTION_SCORE`
   * (its part of the score, over every position of the shingle), and with directionality first
   * `DIRECTION` (`HIGH` when the row's value is above the column's median among the forest's
   * recent points, else `LOW`) and `STRENGTH` (how far from that median, in the column's units; 0
   * while the forest learns). Numbers are strings with four decimals, as KDA wrote them.
   */
  private def explanation(e: Explained): String = {
    val columns = names.length
    val parts = e.parts
    val out = new StringBuilder("{")
    names.indices.foreach { c =>
      var attribution = 0.0
      var at = c
      while (at < parts.length / 2) { attribution += parts(2 * at) + parts(2 * at + 1); at += columns }
      if (c > 0) out.append(',')
      appendString(out, names(c))
      out.append(":{")
      if (call.directionality) {
        val off = if (e.typical == null || e.typical(c).isNaN) 0.0 else e.point(c) - e.typical(c)
        out.append("\"DIRECTION\":\"").append(if (off > 0) "HIGH" else "LOW").append("\",")
        out.append("\"STRENGTH\":\"").append(fixed(math.abs(off))).append("\",")
      }
      out.append("\"ATTRIBUTION_SCORE\":\"").append(fixed(attribution)).append("\"}")
    }
    out.append('}').toString
  }

  private def fixed(x: Double): String = String.format(java.util.Locale.ROOT, "%.4f", Double.box(x))

  private def appendString(out: StringBuilder, s: String): Unit = {
    out.append('"')
    s.foreach {
      case '"' => out.append("\\\"")
      case '\\' => out.append("\\\\")
      case ch if ch < ' ' => out.append(f"\\u${ch.toInt}%04x")
      case ch => out.append(ch)
    }
    out.append('"')
  }
}
