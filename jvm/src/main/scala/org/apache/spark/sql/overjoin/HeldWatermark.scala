package org.apache.spark.sql.overjoin

import java.nio.charset.StandardCharsets

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import org.apache.spark.internal.Logging
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager
import org.apache.spark.sql.execution.streaming.operators.stateful.StatefulOperatorStateInfo
import org.apache.spark.util.SerializableConfiguration

import io.overjoin.execution.join.JoinPartition

/**
 * The watermark a `holdUntilFinal` windowed join passes up (docs/operator.md, "ROWS windows joined
 * again").
 *
 * Such a join lets a matched row out only once its life interval is final, which can be long after
 * the watermark has passed the row's ROWTIME; the join above must neither drop it as late nor evict
 * the rows it should meet. So at the end of each micro-batch every partition task records a
 * **bound**: no row it emits in a later batch can have a life starting (or a ROWTIME) before it.
 * Such a row is one of three kinds:
 *
 *  - made of rows the task holds now: a pair waiting for its life to be final, which starts at its
 *    intersection's start, or an unmatched row of a preserved side, padded with its own life;
 *  - a held row with a row still to come: the intersection starts no earlier than the new row;
 *  - rows still to come only.
 *
 * A row still to come starts after the eviction watermark less the inputs' lag. So the bound is
 * the earliest start of the first kind (`heldMin`, from the keys' `held` fields) or that, whichever
 * is smaller. A held row whose `ROWS` window is still open does not lower it by itself: whatever it
 * still meets arrives later (docs/operator.md, "ROWS windows joined again"). The watermark passed
 * up is the input watermark, capped below the smallest bound of the partitions; so the join above
 * sees this join's output with a lag of 0.
 *
 * Spark computes the watermarks of a micro-batch's operators on the driver, from the plan, before
 * the batch runs (and again after a restart), so the bounds go through the checkpoint: one small
 * file per partition and batch under `<checkpoint>/overjoin/held/<operator id>/`, written before the
 * task commits its state. A bound of an earlier batch is always safe to use (a later row was held, or
 * decided, after it too), so a batch whose files are incomplete (a crash between a task's write and
 * the batch's end) is skipped in favour of an older one; only the last few batches are kept.
 */
object HeldWatermark extends Logging {

  /**
   * The bound (us) of a partition: the earliest start of an output row its held rows alone can still
   * make (`heldMin`), or the earliest start of a row still to come, after the eviction watermark
   * less the larger of the sides' lags.
   */
  def bound(heldMin: Long, evictUs: Long, inputLag: Long): Long = {
    val lag = math.max(0L, inputLag)
    val next = if (evictUs == JoinPartition.NoWatermark || lag == Long.MaxValue) Long.MinValue
      else JoinPartition.plus(evictUs, -lag) + 1
    math.min(heldMin, next)
  }

  private def folder(info: StatefulOperatorStateInfo): Path =
    new Path(new Path(new Path(info.checkpointLocation).getParent, "overjoin/held"), info.operatorId.toString)

  /** What a partition task needs to record its bound; shipped with the task. */
  final class Writer(dir: String, conf: SerializableConfiguration) extends Serializable {
    def write(batchId: Long, partition: Int, boundUs: Long): Unit = {
      val path = new Path(dir, s"$batchId-$partition")
      val fm = CheckpointFileManager.create(path.getParent, conf.value)
      fm.mkdirs(path.getParent)
      val out = fm.createAtomic(path, true)
      try out.write(boundUs.toString.getBytes(StandardCharsets.UTF_8))
      catch { case NonFatal(e) => out.cancel(); throw e }
      out.close()
    }
  }

  def writer(session: SparkSession, info: StatefulOperatorStateInfo): Writer =
    new Writer(folder(info).toString, new SerializableConfiguration(session.sessionState.newHadoopConf()))

  /**
   * The watermark (ms) the join may pass up after batch `upTo`: below the bound of every partition
   * in the latest batch up to `upTo` whose every partition recorded one. `Long.MaxValue` (no cap)
   * before the first batch; 0 (no watermark: nothing late, nothing evicted above) when no complete
   * batch is found, which is always safe.
   */
  def read(session: SparkSession, info: StatefulOperatorStateInfo, upTo: Long): Long = {
    if (upTo < 0) return Long.MaxValue
    val dir = folder(info)
    val fm = CheckpointFileManager.create(dir, session.sessionState.newHadoopConf())
    val files = if (fm.exists(dir)) fm.list(dir).toSeq.map(_.getPath) else Nil
    val byBatch = files.flatMap { p =>
      p.getName.split('-') match {
        case Array(b, part) if b.forall(_.isDigit) && part.forall(_.isDigit) && b.nonEmpty => Some(b.toLong -> p)
        case _ => None
      }
    }.groupBy(_._1)
    val complete = byBatch.collect { case (b, ps) if b <= upTo && ps.size >= info.numPartitions => b }
    if (complete.isEmpty) {
      logWarning(s"overjoin: operator ${info.operatorId} has no recorded bound up to batch $upTo; " +
        "holding its output watermark at 0 for this batch")
      return 0L
    }
    val batch = complete.max
    val boundUs = byBatch(batch).map { case (_, p) =>
      val in = fm.open(p)
      try new String(in.readAllBytes(), StandardCharsets.UTF_8).trim.toLong finally in.close()
    }.min
    byBatch.keys.filter(_ < batch - 2).foreach { old =>
      byBatch(old).foreach { case (_, p) => try fm.delete(p) catch { case NonFatal(_) => } }
    }
    if (boundUs == Long.MinValue) 0L else math.max(0L, Math.floorDiv(boundUs - 1, 1000L))
  }
}
