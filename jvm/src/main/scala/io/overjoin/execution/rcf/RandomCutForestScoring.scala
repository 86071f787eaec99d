package io.overjoin.execution.rcf

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.plans.logical.LogicalGroupState
import org.apache.spark.sql.streaming.GroupState

import io.overjoin.execution.RowTimes
import io.overjoin.execution.RowTimes.micros
import io.overjoin.model.RcfCall

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
 * The state is the forest's bytes ([[Forest.toBytes]]), the waiting rows and the shingle's last
 * `k - 1` points.
 */
private[overjoin] final class RandomCutForestScoring(call: RcfCall, rowtime: Int, numeric: Array[Int], streaming: Boolean)
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
    val all = waiting ++ values.map(_.asInstanceOf[Row])
    val (ready, later) = if (streaming) RowTimes.dueAtWatermark(all, rowtime, state) else (all, Seq.empty[Row])
    val out = ready.sortBy(r => (micros(r.get(rowtime)), r.toString)).map { r =>
      val score: Any = if (numeric.exists(r.isNullAt)) null else {
        val point = numeric.map(i => r.get(i).asInstanceOf[Number].doubleValue())
        shingle = (shingle :+ point).takeRight(call.shingleSize)
        if (shingle.size < call.shingleSize) 0.0
        else {
          val p = shingle.flatten.toArray
          val s = forest.score(p)
          forest.update(p)
          s
        }
      }
      Row.fromSeq(r.toSeq :+ score)
    }
    if (streaming) {
      state.update(Row(forest.toBytes, later, shingle.takeRight(call.shingleSize - 1).map(_.toSeq)))
      if (later.nonEmpty) RowTimes.wakeAtEarliest(state, later, rowtime)
    }
    out.iterator
  }
}
