package io.overjoin.execution.hotspots

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.plans.logical.LogicalGroupState
import org.apache.spark.sql.streaming.GroupState

import io.overjoin.execution.RowTimes
import io.overjoin.model.HotspotsCall

/**
 * `HOTSPOTS` (docs/semantics.md §14), as the function of a `flatMapGroupsWithState` with one group:
 * the whole stream has one window, its last `windowSize` points.
 *
 * As for `RANDOM_CUT_FOREST`, on a stream a row waits until the watermark has reached its `ROWTIME`,
 * so the rows go through in `ROWTIME` order (rows of one `ROWTIME` in the order of their values),
 * whatever the micro-batches, and a stream's results are those of the same rows as a table. Each
 * row's numeric values (at `numeric`) are its point: it joins the window (the oldest point leaves
 * once the window is full), and the row gets the hotspots of the window as it then is
 * ([[Hotspots]]). A row with a NULL value there gets NULL and leaves the window as it was.
 *
 * The state is the window's points and the waiting rows.
 */
private[overjoin] final class HotspotsScoring(call: HotspotsCall, rowtime: Int, numeric: Array[Int], streaming: Boolean)
  extends ((Any, Iterator[Any], LogicalGroupState[Any]) => Iterator[Any]) with Serializable {

  override def apply(key: Any, values: Iterator[Any], logicalState: LogicalGroupState[Any]): Iterator[Any] = {
    val state = logicalState.asInstanceOf[GroupState[Row]]
    val saved = if (state.exists) Some(state.get) else None
    // Arrays come back from the state as Spark's own Seqs: read each as any Seq.
    var window: Vector[Array[Double]] = saved.map(_.getSeq[scala.collection.Seq[Double]](0).map(_.toArray).toVector)
      .getOrElse(Vector.empty)
    val waiting = saved.map(_.getSeq[Row](1)).getOrElse(Seq.empty)
    val (ready, later) = RowTimes.dueInOrder(waiting, values, rowtime, state, streaming)
    val out = ready.map { r =>
      val result: Any = if (numeric.exists(r.isNullAt)) null else {
        window = (window :+ numeric.map(i => r.get(i).asInstanceOf[Number].doubleValue())).takeRight(call.windowSize)
        Hotspots.json(Hotspots.find(window, call.scanRadius, call.minPoints))
      }
      Row.fromSeq(r.toSeq :+ result)
    }
    if (streaming) {
      state.update(Row(window.map(_.toSeq), later))
      if (later.nonEmpty) RowTimes.wakeAtEarliest(state, later, rowtime)
    }
    out.iterator
  }
}
