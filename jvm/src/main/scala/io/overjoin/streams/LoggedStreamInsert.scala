package io.overjoin.streams

import java.util.concurrent.ConcurrentHashMap

import org.apache.spark.sql.{Row, SaveMode}
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.command.{DataWritingCommand, DataWritingCommandExec}
import org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand
import org.apache.spark.sql.execution.metric.SQLMetric

/**
 * `INSERT INTO` a durable stream, with Spark's own writer, and then the files it wrote logged in
 * the stream's [[StreamLog]], so that the pumps reading the stream see them. The files are the
 * ones the insert added to the folder (named `part-...` by Spark's writer; a pump's are named
 * after the pump and logged by the pump); one insert into a stream at a time in this JVM. An
 * `INSERT OVERWRITE` empties the folder, log included: the log is made again from what it wrote,
 * and the stream's readers read it from its start.
 *
 * Between the files landing and their entries there is no rename to make it one step: a server
 * killed in between has the insert's rows in the folder (a plain `SELECT` returns them) but not in
 * the log (pumps do not read them). The statement failed as far as its client knows; an insert
 * that ends returns only after its files are logged.
 */
case class LoggedStreamInsert(insert: InsertIntoHadoopFsRelationCommand) extends DataWritingCommand {
  override def query: LogicalPlan = insert.query
  override def outputColumnNames: Seq[String] = insert.outputColumnNames
  override lazy val metrics: Map[String, SQLMetric] = insert.metrics

  override def run(session: SparkSession, child: SparkPlan): Seq[Row] = {
    val folder = insert.outputPath
    val conf = session.sessionState.newHadoopConf()
    val fs = folder.getFileSystem(conf)
    val log = StreamLog(folder.toString, conf)
    def names(): Set[String] =
      if (fs.exists(folder)) fs.listStatus(folder).filter(StreamLog.isData).map(_.getPath.getName).toSet else Set.empty
    LoggedStreamInsert.oneAtATime(log) {
      log.visible // the log exists before the insert's files do
      val before = names()
      val out = insert.run(session, child)
      if (insert.mode == SaveMode.Overwrite) log.rebuild() // from the folder as the insert left it
      else {
        val added = fs.listStatus(folder).filter(s => StreamLog.isData(s) && !before(s.getPath.getName) &&
          s.getPath.getName.startsWith("part-")).sortBy(s => (s.getModificationTime, s.getPath.getName))
        log.append(added.map(_.getPath.getName).toSeq)
      }
      out
    }
  }

  override protected def withNewChildInternal(newChild: LogicalPlan): LoggedStreamInsert =
    copy(insert = insert.withNewChildren(Seq(newChild)).asInstanceOf[InsertIntoHadoopFsRelationCommand])
}

object LoggedStreamInsert {
  private val locks = new ConcurrentHashMap[StreamLog, Object]()

  private def oneAtATime[T](log: StreamLog)(body: => T): T = {
    val lock = locks.computeIfAbsent(log, _ => new Object)
    lock.synchronized(body)
  }

  /** Whether `c` writes a durable stream's folder, as a whole (no partitions). */
  def writesDurableStream(c: InsertIntoHadoopFsRelationCommand): Boolean =
    c.catalogTable.exists(Streams.isDurable) && c.partitionColumns.isEmpty &&
      (c.mode == SaveMode.Append || c.mode == SaveMode.Overwrite)
}

/** Plans an insert into a durable stream as a [[LoggedStreamInsert]]; every other write as Spark does. */
object LogDurableStreamInserts extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case c: InsertIntoHadoopFsRelationCommand if LoggedStreamInsert.writesDurableStream(c) =>
      DataWritingCommandExec(LoggedStreamInsert(c), planLater(c.query)) :: Nil
    case _ => Nil
  }
}
