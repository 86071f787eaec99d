package io.overjoin.streams

import java.util.concurrent.atomic.AtomicLong

import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.spark.internal.Logging
import org.apache.spark.sql.{DataFrame, Observation, SparkSession}
import org.apache.spark.sql.execution.streaming.Sink
import org.apache.spark.sql.functions.{col, count, lit, max}
import org.apache.spark.sql.overjoin.{PumpFiles, ZeroDivisionRows}

/** What a pump's micro-batches are written with; `SHOW PUMPS` reads its counters. */
trait PumpOutput extends ((DataFrame, Long) => Unit) with Serializable {
  /** Rows written since the pump started. */
  def rowsOut: Long

  /** For the last batch that wrote rows, the milliseconds from their latest ROWTIME to their being visible, if known. */
  def lastLagMillis: Option[Long]
}

/**
 * Where a pump's micro-batches go: one parquet file per non-empty batch, named after the pump, its
 * generation and the batch id, put into the target stream's folder by one rename.
 *
 * Exactly once: a batch Spark replays after a crash (its offsets were logged, its commit was not)
 * finds its file already there and writes nothing; a batch whose file is not there was not
 * written, and a replayed batch holds the same rows (same offsets, same state). Readers never see
 * part of a batch: the file is written under `_staging/` (hidden from readers) and renamed. A
 * batch is written by [[direct]] (from the micro-batch's own plan) when the pump's projection allows,
 * else by [[apply]] (`foreachBatch`'s query of its own).
 *
 * Unlike Spark's file sink, there is no `_spark_metadata` log in the folder, so batch ids are per
 * pump, not per folder: several pumps (and `INSERT INTO`) can write one stream. Each file goes into
 * the stream's [[StreamLog]] as it is put in place, which is how the stream's readers find it.
 */
final class PumpSink(
    pump: String,
    filePrefix: String,
    location: String,
    project: DataFrame => DataFrame,
    onWritten: () => Unit = () => (),
    errorFolder: Option[String] = None) extends PumpOutput with Logging {

  private val written = new AtomicLong()
  @volatile private var lag: Option[Long] = None

  override def rowsOut: Long = written.get

  /**
   * For the last batch that wrote rows: the milliseconds from its latest ROWTIME to the moment its
   * rows became visible in the target. When ROWTIME is the rows' arrival (KDA's default for a
   * source stream), this is the pump's input-to-output delay; otherwise its event-time lag.
   */
  override def lastLagMillis: Option[Long] = lag

  /**
   * The sink a pump's query writes its batches into directly, the projection and Parquet writer
   * prepared once ([[PumpFiles]]): no second query per batch. `prepared` is [[PumpFiles.prepare]]'s
   * for the query's columns.
   */
  def direct(prepared: PumpFiles.Prepared): Sink = new PumpFiles.RowsSink((batchId, session, rows) => {
    val (fs, dir, target) = place(session, batchId)
    if (!fs.exists(target)) {
      val staging = new Path(new Path(dir, "_staging"), s"$filePrefix$batchId")
      val out = PumpFiles.write(prepared, rows, staging.toString)
      publishErrors(batchId, session)
      out.file.map(new Path(_)).foreach(f => publish(fs, batchId, f, target, out.rows, out.latestMicros.map(_ / 1000L)))
      // A task that was tried again: what the failed attempts wrote aside goes.
      if (out.attempt > 0) Option(fs.globStatus(new Path(s"$staging-*.parquet"))).toSeq.flatten.foreach(s => fs.delete(s.getPath, false))
    } else {
      publishErrors(batchId, session)
      logInfo(s"pump $pump: batch $batchId is already in $target")
    }
  })

  /** The general way, from `foreachBatch`: the batch written by a query of its own. */
  override def apply(batch: DataFrame, batchId: Long): Unit = {
    val (fs, dir, target) = place(batch.sparkSession, batchId)
    if (fs.exists(target)) {
      publishErrors(batchId, batch.sparkSession)
      logInfo(s"pump $pump: batch $batchId is already in $target")
      return
    }
    // One job: the rows are written, and counted and their latest ROWTIME (the target's last
    // column) found on the way (an observation), not in a job of their own over a cached copy.
    val stats = Observation(s"pump-$pump-$batchId")
    val rows = project(batch).observe(stats, count(lit(1)).as("n"), max(col(Streams.Rowtime)).as("latest"))
    val staging = new Path(new Path(dir, "_staging"), s"$filePrefix$batchId")
    fs.delete(staging, true)
    rows.coalesce(1).write.mode("overwrite").parquet(staging.toString)
    val observed = stats.get
    val n = observed.get("n").map(_.asInstanceOf[Long]).getOrElse(0L)
    publishErrors(batchId, batch.sparkSession)
    if (n > 0) {
      val parts = fs.listStatus(staging).map(_.getPath).filter(p => p.getName.startsWith("part-"))
      if (parts.length != 1) throw new IllegalStateException(s"pump $pump: expected one file in $staging, found ${parts.length}")
      publish(fs, batchId, parts.head, target, n, observed.get("latest").flatMap(PumpSink.epochMillis))
    }
    fs.delete(staging, true)
  }

  @transient @volatile private var fileSystem: FileSystem = _
  @transient @volatile private var streamLog: StreamLog = _

  /**
   * The batch's rows that divided by zero, into the pump's error folder (where `error_stream`
   * reads them): before the batch's own file, so a replay that finds that file finds them too.
   */
  private def publishErrors(batchId: Long, session: SparkSession): Unit = errorFolder.foreach { folder =>
    val n = ZeroDivisionRows.publish(folder, filePrefix, batchId, session, fileSystem.getConf)
    if (n > 0) logInfo(s"pump $pump: batch $batchId put $n file(s) of rows that divided by zero into $folder")
  }

  private def place(session: SparkSession, batchId: Long): (FileSystem, Path, Path) = {
    val dir = new Path(location)
    if (fileSystem == null) {
      val conf = session.sessionState.newHadoopConf()
      fileSystem = dir.getFileSystem(conf)
      streamLog = StreamLog(location, conf)
    }
    (fileSystem, dir, new Path(dir, f"$filePrefix$batchId%012d.parquet"))
  }

  /**
   * Puts a batch's written file into place by one rename, logged in the stream's [[StreamLog]]
   * (its entry first): its rows are visible from then on, to the stream's readers too.
   */
  private def publish(fs: FileSystem, batchId: Long, file: Path, target: Path, n: Long, latestMillis: Option[Long]): Unit = {
    val entry = streamLog.publish(file, target, () => PumpSink.crashPoint(PumpSink.haltBeforeRename, "logged", pump, batchId))
    PumpSink.crashPoint(PumpSink.haltAfterRename, "wrote", pump, batchId)
    written.addAndGet(n)
    val visible = System.currentTimeMillis()
    lag = latestMillis.map(visible - _)
    logInfo(s"pump $pump: batch $batchId wrote $n rows to $target (entry $entry of its log)" +
      lag.map(l => s" ($l ms after their latest ROWTIME)").getOrElse(""))
    onWritten()
  }
}

object PumpSink {
  private def epochMillis(v: Any): Option[Long] = v match {
    case t: java.sql.Timestamp => Some(t.getTime)
    case i: java.time.Instant => Some(i.toEpochMilli)
    case _ => None
  }

  /**
   * Fault injection for the exactly-once tests: with `OVERJOIN_TEST_HALT_AFTER_RENAME=pump:batch`
   * in the server's environment, the JVM halts (as under kill -9) right after that batch's file is
   * in place and before Spark records the batch as committed: the one moment a replay meets a
   * batch that was already written. `OVERJOIN_TEST_HALT_BEFORE_RENAME=pump:batch` halts after the
   * batch's entry in the stream's log and before its rename: the log has an entry without its file.
   */
  private def haltAt(variable: String): Option[(String, Long)] =
    sys.env.get(variable).flatMap { v =>
      v.split(":") match {
        case Array(p, b) => scala.util.Try(b.toLong).toOption.map(p.toLowerCase(java.util.Locale.ROOT) -> _)
        case _ => None
      }
    }

  private val haltAfterRename: Option[(String, Long)] = haltAt("OVERJOIN_TEST_HALT_AFTER_RENAME")
  private val haltBeforeRename: Option[(String, Long)] = haltAt("OVERJOIN_TEST_HALT_BEFORE_RENAME")

  private def crashPoint(at: Option[(String, Long)], what: String, pump: String, batchId: Long): Unit = at.foreach { case (p, b) =>
    if (p == pump.toLowerCase(java.util.Locale.ROOT) && b == batchId) {
      System.err.println(s"overjoin server: halting after pump $pump $what batch $batchId (fault injection)")
      Runtime.getRuntime.halt(137)
    }
  }
}
