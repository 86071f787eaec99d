package io.overjoin.streams

import java.io.File
import java.util.concurrent.{Callable, ExecutionException, ExecutorService, Executors}

import scala.collection.mutable

import org.apache.spark.internal.Logging
import org.apache.spark.sql.{Column, DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.expressions.Cast
import org.apache.spark.sql.functions.{col, lit}
import org.apache.spark.sql.streaming.{StreamingQuery, Trigger}
import org.apache.spark.sql.types.{StringType, StructType, TimestampType}

import org.apache.spark.sql.overjoin.{DivertedRow, ImplicitRowtime, PumpClock, PumpFiles, PumpQueries, ZeroDivisionRows}

import io.overjoin.streaming.LateRows

/**
 * The owner of every pump in the JVM: `overjoin server` initialises it with its root session and
 * state dir before any port opens. Pumps run in sessions made from the root session (never in a
 * client's), started from the manager's own thread, so they outlive the client that created them
 * and carry nothing of its thread. Definitions are in `<state>/pumps`, checkpoints in
 * `<state>/checkpoints`; [[restore]] restarts the running ones.
 *
 * Without a server (a plain `spark.sql`), pump statements fail with a message saying so.
 */
object PumpManager extends Logging {

  /**
   * A running pump: its query and sink, the catalog tables its query reads as tables (for
   * [[restartReaders]]) and whether it reads a source over a service (for [[awaitFirstBatch]]),
   * both read off the query's plan as it was analyzed when the pump started.
   */
  private final class Running(val query: StreamingQuery, val sink: PumpOutput, val tables: Set[String],
      val readsService: Boolean)

  val ShufflePartitions = "spark.sql.shuffle.partitions"

  @volatile private var root: SparkSession = _
  @volatile private var stateDir: File = _
  @volatile private var triggerMillis: Long = 1000L
  @volatile private var graceMillis: Long = 10000L
  @volatile private var starter: ExecutorService = _
  private val running = mutable.Map.empty[String, Running]
  private val startErrors = mutable.Map.empty[String, String]

  /**
   * `spark.overjoin.server.wakeReaders` (a server setting, default true): a pump that writes a
   * batch into a stream wakes the running pumps that read it ([[PumpClock]]). False: every pump
   * waits for its next trigger, as Spark's own trigger does (kept to measure the difference).
   */
  val WakeReaders = "spark.overjoin.server.wakeReaders"

  /**
   * `spark.overjoin.server.interpretedProjections` (a server setting, default true): a pump's
   * session builds the projections, predicates and orderings of its tasks interpreted
   * (`spark.sql.codegen.factoryMode=NO_CODEGEN`; whole stages are still compiled) instead of
   * generating their code again for each task of each micro-batch. At the rates of an application
   * (tens to thousands of rows a second) that generation is a tenth of a pump's CPU and the rows are
   * few; a batch of millions of rows takes about half as long again (docs/operator.md, "An
   * application's pumps on one server"). A pump's own `SET` of the factory mode wins.
   */
  val InterpretedProjections = "spark.overjoin.server.interpretedProjections"

  /**
   * `spark.overjoin.server.directWrites` (a server setting, default true): a pump writes each
   * micro-batch into its target from the batch's own plan, its projection and Parquet writer
   * prepared once ([[org.apache.spark.sql.overjoin.PumpFiles]]), rather than through
   * `foreachBatch` and a write query of its own per batch. False keeps the second way (kept to
   * measure the difference; a pump whose projection the first cannot take uses it anyway).
   */
  val DirectWrites = "spark.overjoin.server.directWrites"

  /**
   * `spark.overjoin.server.streamLogs` (a server setting, default true): a pump reads a durable
   * stream from the stream's log of its files ([[StreamLog]]), finding a new file without listing
   * the folder. False: Spark's file source, which lists the whole folder at every trigger (kept to
   * measure the difference). A pump whose checkpoint Spark's file source began keeps it either way.
   */
  val StreamLogs = "spark.overjoin.server.streamLogs"
  private val FactoryMode = "spark.sql.codegen.factoryMode"

  /**
   * The running pumps' clocks, by pump key, with the streams each reads (qualified, lower case).
   * A pump's sink reads it when it has written a batch, in its query's thread, so it is kept apart
   * from `running` and this object's lock: a caller that stops a pump holds that lock while it
   * waits for the pump's batch to end, and a sink that took it would never end.
   */
  private val clocks = new java.util.concurrent.ConcurrentHashMap[String, (Set[String], PumpClock)]()

  def isInitialized: Boolean = root != null

  def init(session: SparkSession, state: File, trigger: Long, grace: Long): Unit = synchronized {
    root = session; stateDir = state; triggerMillis = trigger; graceMillis = grace
    pumpsDir.mkdirs(); checkpointsDir.mkdirs()
    HadoopDefaults(session.sparkContext)
    // Created by the caller (the server's main thread), not lazily by a client's handler thread,
    // whose local properties (job group, tags) a new thread would inherit.
    starter = Executors.newSingleThreadExecutor { (r: Runnable) =>
      val t = new Thread(r, "overjoin-pumps"); t.setDaemon(true); t
    }
    starter.submit(new Runnable { def run(): Unit = () }).get()
  }

  private def pumpsDir = new File(stateDir, "pumps")
  private def checkpointsDir = new File(stateDir, "checkpoints")
  private def defFile(key: String) = new File(pumpsDir, s"$key.properties")
  private def checkpoint(d: PumpDefinition) = new File(checkpointsDir, d.checkpointName)

  /**
   * Where the rows that divide by zero of schema `member`'s pumps go, as rows of its `error_stream`
   * ([[org.apache.spark.sql.overjoin.ZeroDivisionRows]]): a folder of files with a stream log, one
   * per schema (file names carry the pump, its generation and its checkpoint's query).
   */
  def errorFolder(member: String): File =
    new File(new File(stateDir, "errors"), member.toLowerCase(java.util.Locale.ROOT))

  private def requireServer(): Unit =
    if (!isInitialized) throw new IllegalArgumentException(
      "pumps run in `overjoin server` (a pump outlives the session that creates it, so it needs a server to own it)")

  /** The pump whose files are named `key` ([[PumpDefinition.key]]). */
  private def byKey(key: String): Option[PumpDefinition] =
    if (!isInitialized) None else Some(defFile(key)).filter(_.isFile).map(PumpDefinition.load)

  /** Pump `name` of database `db`. */
  private def find(db: String, name: String): Option[PumpDefinition] = all().find(_.is(db, name))

  /**
   * The pump a statement names (docs/server.md, "Pump names"): `schema.name` is that schema's pump;
   * a bare name is the current database's pump of that name, else the one pump of that name in any
   * schema (pumps were the server's before they were the schema's, and a client of another database
   * still names them so); a name several other schemas have is an error that asks for the schema.
   */
  def resolve(client: SparkSession, name: String, schema: Option[String]): Option[PumpDefinition] = schema match {
    case Some(db) => find(db, name)
    case None =>
      find(client.catalog.currentDatabase, name).orElse {
        all().filter(_.name.equalsIgnoreCase(name)) match {
          case Seq() => None
          case Seq(one) => Some(one)
          case several => throw new IllegalArgumentException(
            s"pump $name is in several schemas (${several.map(d => SchemaNames.shown(root, d.member)).sorted.mkString(", ")}) " +
              s"and none is the current one: name it with its schema, as \"schema\".\"${name.replace("\"", "\"\"")}\"")
        }
      }
  }

  private def mustResolve(client: SparkSession, name: String, schema: Option[String]): PumpDefinition =
    resolve(client, name, schema).getOrElse(throw new IllegalArgumentException(
      s"pump ${schema.map(db => SchemaNames.shown(root, db) + ".").getOrElse("")}$name does not exist"))

  /**
   * The key a new pump `name` of database `db` gets: its name in lower case, as before pumps were
   * named per schema, unless another schema's pump has that key; then the schema's and the name's.
   */
  private def newKey(db: String, name: String): String = {
    val plain = PumpDefinition.key(name)
    if (!defFile(plain).exists()) plain
    else Iterator.from(1).map(i => PumpDefinition.qualifiedKey(db, name) + (if (i == 1) "" else s"~$i"))
      .find(k => !defFile(k).exists()).get
  }

  def all(): Seq[PumpDefinition] =
    if (!isInitialized) Nil
    else Option(pumpsDir.listFiles()).toSeq.flatten.filter(_.getName.endsWith(".properties"))
      .map(PumpDefinition.load).sortBy(_.key)

  /**
   * Stream `table` (qualified) has a new batch: the running pumps that read it trigger now rather
   * than at their next interval. Called from a pump's sink, in its query's thread.
   */
  def written(table: String): Unit = {
    val t = table.toLowerCase(java.util.Locale.ROOT)
    clocks.values().forEach { case (streams, clock) => if (streams(t)) clock.wake() }
  }

  /** Pumps whose target is `table` (a qualified name), by name. */
  def writersOf(table: String): Seq[String] = all().filter(_.target.equalsIgnoreCase(table)).map(_.name)

  private def onStarter[T](body: => T): T = {
    val f = starter.submit(new Callable[T] { def call(): T = body })
    try f.get() catch { case e: ExecutionException => throw e.getCause }
  }

  // ---- statements ---------------------------------------------------------------------------

  def create(client: SparkSession, name: String, targetName: String, columns: Seq[String], query: String,
      started: Boolean, replace: Boolean, conf: Map[String, String], schema: Option[String] = None): Unit = synchronized {
    requireServer()
    val targetId = Streams.identifier(client, targetName)
    val target = Streams.lookup(client, targetId).getOrElse(
      throw new IllegalArgumentException(s"pump $name: the target ${Streams.shown(client, targetId)} does not exist (CREATE STREAM it first)"))
    val writable = Streams.isDurable(target) || ExternalStreams.isExternal(target)
    if (!writable) throw new IllegalArgumentException(
      s"pump $name: the target ${Streams.shown(client, targetId)} is not a stream a pump can write " +
        "(it must be made by CREATE STREAM without WITH, or over a source such as kinesis)")
    val member = schema.map(s => Streams.database(client, s))
    val database = client.catalog.currentDatabase
    val qualifiedTarget = Streams.qualified(targetId)
    val fresh = PumpDefinition(name, database, qualifiedTarget, columns, query.trim, conf, started, 1L, member)
    // A pump is named within its schema: CREATE OR REPLACE PUMP "STREAM_PUMP" of a second
    // application is a pump of its own, beside the first one's (docs/server.md, "Pump names").
    val old = find(fresh.member, name)
    if (old.isDefined && !replace) throw new IllegalArgumentException(
      s"pump $name already exists in ${SchemaNames.shown(root, fresh.member)} (use CREATE OR REPLACE PUMP, or DROP PUMP $name)")
    val same = old.exists(o => o.database == fresh.database && o.target.equalsIgnoreCase(fresh.target) &&
      o.columns == fresh.columns && o.query == fresh.query && o.conf == fresh.conf)
    val key = old.map(_.key).getOrElse(newKey(fresh.member, name))
    val d = fresh.copy(
      name = old.map(_.name).filter(_ => same).getOrElse(name),
      generation = old.map(o => if (same) o.generation else o.generation + 1).getOrElse(1L),
      storedKey = Some(key).filter(_ != PumpDefinition.key(name)))
    // Analysis errors reach the client here, before anything changes.
    val (planned, _, _) = try onStarter(plan(d)) catch {
      case e: IllegalArgumentException => throw e
      case e: Exception => throw new IllegalArgumentException(s"pump $name: ${e.getMessage}", e)
    }
    // A pump whose rows can divide by zero sends them to its schema's error_stream, as KDA's did:
    // the schema has one from then on, even without a source stream that decodes records.
    if (divides(planned)) ErrorStream.ensure(client, d.member)
    old.foreach { o =>
      stopQuery(o.key)
      if (!same) deleteRecursively(checkpoint(o))
    }
    startErrors.remove(d.key)
    if (d.running) {
      running(d.key) = onStarter(start(d))
      if (!same) awaitFirstBatch(d.name, running(d.key))
    }
    PumpDefinition.save(d, pumpsDir)
    logInfo(s"pump ${d.name} ${if (old.isDefined) "replaced" else "created"} (generation ${d.generation}, " +
      s"${if (d.running) "started" else "stopped"}): INSERT INTO ${d.target} ${d.query}")
  }

  /**
   * Waits until a new pump's query has run its first micro-batch, when it reads a source over a
   * service (Kinesis, Firehose, ...): that batch fixes where the pump starts reading (`LATEST` is
   * the time of that batch), so a record sent after CREATE PUMP returns is one the pump reads.
   * Files in a folder need no wait (the pump reads every file there). At most a minute; a query
   * that fails first is reported by SHOW PUMPS, as any failure.
   */
  private def awaitFirstBatch(name: String, r: Running): Unit = {
    val q = r.query
    val readsService = r.readsService
    if (readsService) {
      val deadline = System.currentTimeMillis() + 60000L
      while (q.isActive && q.lastProgress == null && System.currentTimeMillis() < deadline) Thread.sleep(50)
      if (q.isActive && q.lastProgress == null) logWarning(s"pump $name: no micro-batch within a minute of its start")
    }
  }

  /**
   * The pumps a list of s-Server's names stands for (`p`, `"s"."p"`, `"s".*`), each once, in the
   * order written; a named pump that does not exist, or is not of the schema it is qualified with,
   * is an error before anything changes.
   */
  def named(client: SparkSession, items: Seq[ObjectRef]): Seq[PumpDefinition] = synchronized {
    requireServer()
    val out = scala.collection.mutable.LinkedHashMap.empty[String, PumpDefinition]
    items.foreach { item =>
      val db = item.schema.map(s => Streams.database(client, s))
      item.name match {
        case None => all().filter(_.member.equalsIgnoreCase(db.get)).foreach(d => out(d.key) = d)
        case Some(n) =>
          val d = resolve(client, n, db).getOrElse(throw new IllegalArgumentException(s"pump ${item.shown} does not exist"))
          out(d.key) = d
      }
    }
    out.values.toSeq
  }

  /** Starts or stops pump `d` (the server's own retries), as it is defined now. */
  def alter(d: PumpDefinition, start: Boolean): Unit = synchronized {
    requireServer()
    alterOne(byKey(d.key).getOrElse(throw new IllegalArgumentException(s"pump ${d.name} does not exist")), start)
  }

  /** `ALTER PUMP item {, item} START | STOP` (s-Server's list: names, `"s"."p"`, `"s".*`). */
  def alter(client: SparkSession, items: Seq[ObjectRef], start: Boolean): Unit = synchronized {
    named(client, items).foreach(alterOne(_, start))
  }

  private def alterOne(d: PumpDefinition, start: Boolean): Unit = {
    if (start) {
      if (!running.get(d.key).exists(_.query.isActive)) {
        running.remove(d.key)
        startErrors.remove(d.key)
        running(d.key) = onStarter(this.start(d))
      }
    } else stopQuery(d.key)
    PumpDefinition.save(d.copy(running = start), pumpsDir)
    logInfo(s"pump ${d.name} ${if (start) "started" else "stopped"}")
  }

  /** `DROP PUMP [IF EXISTS] [schema.]name`; `schema` is a database. */
  def drop(client: SparkSession, name: String, ifExists: Boolean, schema: Option[String]): Unit = synchronized {
    requireServer()
    resolve(client, name, schema) match {
      case None => if (!ifExists) mustResolve(client, name, schema)
      case Some(d) => drop(d)
    }
  }

  /** Stops pump `d` and removes it with its checkpoint; the rows it wrote stay. */
  def drop(d: PumpDefinition): Unit = synchronized {
    stopQuery(d.key)
    startErrors.remove(d.key)
    defFile(d.key).delete()
    deleteRecursively(checkpoint(d))
    logInfo(s"pump ${d.queryName} dropped")
  }

  /** Whether pump `d`'s query runs now. */
  def isRunning(d: PumpDefinition): Boolean = synchronized { running.get(d.key).exists(_.query.isActive) }

  /**
   * The catalog tables pump `d`'s query reads (streams and tables, qualified and in lower case), from
   * its plan as analyzed now; empty when it no longer analyzes (its inputs are gone).
   */
  def readsOf(d: PumpDefinition): Set[String] = synchronized {
    try onStarter {
      val (df, _, _) = plan(d)
      val analyzed = df.queryExecution.analyzed
      val tables = analyzed.collect {
        case r: org.apache.spark.sql.execution.datasources.LogicalRelation => r.catalogTable.toSeq
        case r: org.apache.spark.sql.execution.streaming.runtime.StreamingRelation => r.dataSource.catalogTable.toSeq
        case p => Streams.readBy(p).toSeq
      }.flatten
      tables.map(t => Streams.qualified(t.identifier).toLowerCase).toSet
    } catch { case _: Exception => Set.empty }
  }

  /**
   * Pump `d` starts over at its next start: a new generation, without the checkpoint of the last
   * (its state, watermark and offsets), as after `CREATE OR REPLACE PUMP` with another query. Used
   * by `ALTER STREAM ... RESET` for the pumps that read the streams it resets; `d` is stopped.
   */
  def startOver(d: PumpDefinition): Unit = synchronized {
    requireServer()
    if (running.get(d.key).exists(_.query.isActive)) throw new IllegalStateException(s"pump ${d.name} is running")
    running.remove(d.key)
    startErrors.remove(d.key)
    deleteRecursively(checkpoint(d))
    PumpDefinition.save(d.copy(generation = d.generation + 1), pumpsDir)
    logInfo(s"pump ${d.name} starts over (generation ${d.generation + 1}): a stream it reads was reset")
  }

  /**
   * Restarts the running pumps whose query reads `table` (a reference table just reloaded): a
   * running query lists a table's files when it starts, so it sees new rows only when started
   * again. Each stops at a batch boundary and resumes from its checkpoint: no row lost or repeated.
   */
  def restartReaders(table: String): Seq[String] = synchronized {
    if (!isInitialized) return Nil
    val id = Streams.identifier(root, table)
    val wanted = Streams.qualified(id).toLowerCase
    val readers = running.toSeq.filter { case (_, r) => r.query.isActive && r.tables(wanted) }.flatMap { case (key, _) =>
      byKey(key).toSeq
    }
    readers.foreach { d =>
      stopQuery(d.key)
      running(d.key) = onStarter(start(d))
      logInfo(s"pump ${d.name} restarted: the reference table $table it reads was reloaded")
    }
    readers.map(_.name)
  }

  /** Starts every pump whose definition says it runs; a pump that fails is reported, the others start. */
  def restore(): Seq[String] = synchronized {
    all().filter(_.running).map { d =>
      try { running(d.key) = onStarter(start(d)); d.name }
      catch {
        case e: Throwable =>
          startErrors(d.key) = message(e)
          logError(s"pump ${d.name} failed to start", e)
          s"${d.name} (FAILED)"
      }
    }
  }

  /** Server shutdown: stops every pump, keeping their definitions as they are (a restart resumes them). */
  def stopAll(): Seq[String] = synchronized {
    val names = running.keys.toSeq.sorted
    names.foreach(n => try stopQuery(n) catch { case e: Throwable => logWarning(s"stopping pump $n", e) })
    names
  }

  // ---- status -------------------------------------------------------------------------------

  final case class Status(d: PumpDefinition, state: String, idle: Boolean, rowsOut: Long, lateRows: Long,
      watermark: String, batch: java.lang.Long, error: String, lastBatchMillis: java.lang.Long,
      outputLagMillis: java.lang.Long, sink: String = null, sources: String = null)

  def status(): Seq[Status] = synchronized { all().map(statusOf) }

  /** `DESCRIBE PUMP [schema.]name`; `schema` is a database. */
  def status(client: SparkSession, name: String, schema: Option[String]): Status = synchronized {
    requireServer()
    statusOf(mustResolve(client, name, schema))
  }

  /** Pump `d`'s status now (the server's own retries). */
  def status(d: PumpDefinition): Status = synchronized { statusOf(byKey(d.key).getOrElse(d)) }

  private def statusOf(d: PumpDefinition): Status = {
    val r = running.get(d.key)
    val q = r.map(_.query)
    val failure = q.flatMap(_.exception).map(message).orElse(startErrors.get(d.key))
    val state =
      if (q.exists(_.isActive)) "RUNNING"
      else if (failure.isDefined) "FAILED"
      else "STOPPED"
    val idle = q.exists(x => x.isActive && !x.status.isDataAvailable && !x.status.isTriggerActive)
    val progress = q.flatMap(x => Option(x.lastProgress))
    Status(d, state, idle,
      rowsOut = r.map(_.sink.rowsOut).getOrElse(0L),
      lateRows = q.map(x => LateRows.total(x.id.toString)).getOrElse(0L),
      watermark = progress.flatMap(p => Option(p.eventTime.get("watermark"))).orNull,
      batch = progress.map(p => java.lang.Long.valueOf(p.batchId)).orNull,
      error = failure.orNull,
      lastBatchMillis = progress.map(p => java.lang.Long.valueOf(p.batchDuration)).orNull,
      outputLagMillis = r.flatMap(_.sink.lastLagMillis).map(java.lang.Long.valueOf).orNull,
      sink = progress.flatMap(p => Option(p.sink)).map(_.description).orNull,
      sources = progress.map(_.sources.map(_.description).mkString("; ")).orNull)
  }

  // ---- queries ------------------------------------------------------------------------------

  /** The pump's query in a session of its own, and the projection of its rows onto the target. */
  private def plan(d: PumpDefinition, pumpErrorRows: Boolean = true,
      keepZeroDivisions: Boolean = true): (DataFrame, DataFrame => DataFrame, CatalogTable) = {
    val s = root.newSession()
    // Sized for latency: Spark's default of 200 shuffle partitions means 200 state stores per
    // stateful operator, each loaded and committed every micro-batch (seconds per batch on a small
    // machine). A pump's own setting, or the server's --conf, wins; a checkpoint keeps its count.
    s.conf.set(ShufflePartitions, defaultShufflePartitions.toString)
    if (root.sparkContext.getConf.getBoolean(InterpretedProjections, defaultValue = true)) s.conf.set(FactoryMode, "NO_CODEGEN")
    d.conf.foreach { case (k, v) => s.conf.set(k, v) }
    if (keepZeroDivisions) {
      s.conf.set(ZeroDivisionRows.FolderKey, errorFolder(d.member).getAbsolutePath)
      s.conf.set(ZeroDivisionRows.PrefixKey, d.filePrefix)
      s.conf.set(ZeroDivisionRows.PumpKey, d.name)
    }
    if (!pumpErrorRows) s.conf.set(ErrorStream.PumpRowsKey, "false")
    if (root.sparkContext.getConf.getBoolean(StreamLogs, defaultValue = true))
      s.conf.set(org.apache.spark.sql.overjoin.ReadDurableStreamsFromLogs.Key, "true")
    s.catalog.setCurrentDatabase(d.database)
    val targetId = Streams.identifier(s, d.target)
    val target = Streams.lookup(s, targetId).getOrElse(
      throw new IllegalArgumentException(s"pump ${d.name}: the target ${d.target} does not exist"))
    val query = streamingQuery(s, d)
    // A pump that reads error_stream keeps its own rows that divide by zero out of it (left out and
    // counted only): they would be rows it reads again, and may divide by zero again, for ever.
    if (keepZeroDivisions && divides(query) && readsPumpErrorRows(d, query)) {
      logInfo(s"pump ${d.name}: reads error_stream, so its own rows that divide by zero are left out of it")
      return plan(d, pumpErrorRows, keepZeroDivisions = false)
    }
    // The query's output ROWTIME, as one more column after its own, where the plan tells it.
    val withRowtime = ImplicitRowtime.add(s, query)
    val df = withRowtime.getOrElse(query)
    (df, projection(d, query.schema, withRowtime.isDefined, Streams.writeSchema(target)), target)
  }

  /**
   * The pump's query, read as a stream. A pump runs until it is stopped, so KDA read its query's
   * streams as streams whether or not it says `STREAM`: a query written as a plain `SELECT`
   * (`INSERT INTO s SELECT * FROM t`, as AWS's IoT monitoring template fans a stream out) whose
   * top block then reads no stream is read as `SELECT STREAM` (docs/semantics.md §10).
   */
  private def streamingQuery(s: SparkSession, d: PumpDefinition): DataFrame = {
    val query = s.sql(d.query)
    if (query.isStreaming) return query
    def noStream = new IllegalArgumentException(
      s"pump ${d.name}: the query reads no stream (write SELECT STREAM ... FROM STREAM name)")
    val tokens = io.overjoin.parser.Lexer.tokenize(d.query).toOption.getOrElse(IndexedSeq.empty)
    tokens.headOption match {
      case Some(t) if t.isWord("SELECT") && !tokens.lift(1).exists(_.isWord("STREAM")) =>
        val asStream = d.query.substring(0, t.end) + " STREAM" + d.query.substring(t.end)
        // A query of tables only fails as SELECT STREAM (no rowtime): it is told it reads no stream.
        val again = try Some(s.sql(asStream)) catch { case _: Exception => None }
        again.filter(_.isStreaming).getOrElse(throw noStream)
      case _ => throw noStream
    }
  }

  private def start(d: PumpDefinition): Running = {
    HadoopDefaults(root.sparkContext)
    val planned = plan(d)
    val (df, project, target) = errorStreamCheckpoint(d, planned._1) match {
      case ErrorStreamCheckpoint.Current => planned
      case ErrorStreamCheckpoint.EarlierRelease =>
        logWarning(s"pump ${d.name}: its checkpoint reads error_stream as a release before pumps' rows that divide " +
          "by zero were rows of it did; it goes on reading it so (without those rows) until it is started over " +
          s"($StartOver)")
        plan(d, pumpErrorRows = false)
      case ErrorStreamCheckpoint.Changed(was, now) =>
        throw new IllegalArgumentException(s"pump ${d.name} reads error_stream, whose sources have changed since its " +
          s"checkpoint began ($was then, $now now: a source stream that decodes records was created or dropped in " +
          s"${SchemaNames.shown(root, d.member)}), and Spark cannot go on from that checkpoint: start the pump over ($StartOver)")
    }
    val targetName = Streams.qualified(target.identifier)
    // Only a pump whose rows can divide by zero has error rows to put in place after its batches.
    val errors = Some(errorFolder(d.member).getAbsolutePath).filter(_ => divides(df))
    errors.foreach(ZeroDivisionRows.ensureFolder(_, df.sparkSession.sessionState.newHadoopConf()))
    val sink: PumpOutput =
      if (ExternalStreams.isExternal(target)) new ExternalSink(d.queryName, target, project, errors.map(_ -> d.filePrefix))
      else new PumpSink(d.queryName, d.filePrefix, target.location.toString, project, () => written(targetName), errors)
    val clock = new PumpClock
    val trigger = Trigger.ProcessingTime(triggerMillis)
    val direct = sink match {
      case p: PumpSink if root.sparkContext.getConf.getBoolean(DirectWrites, defaultValue = true) =>
        PumpFiles.prepare(df.sparkSession, df.schema, project, Streams.Rowtime).map(p.direct)
      case _ => None
    }
    val q = direct match {
      case Some(rows) =>
        logInfo(s"pump ${d.name}: writes its micro-batches into ${d.target} from their own plan")
        PumpQueries.startWith(df, d.queryName, checkpoint(d).getAbsolutePath, trigger, clock, rows)
      case None => PumpQueries.start(df, d.queryName, checkpoint(d).getAbsolutePath, trigger, clock, sink)
    }
    val analyzed = df.queryExecution.analyzed
    val tables = analyzed.collect {
      case r: org.apache.spark.sql.execution.datasources.LogicalRelation if !r.isStreaming => r.catalogTable.toSeq
    }.flatten.map(t => Streams.qualified(t.identifier).toLowerCase).toSet
    val streams = analyzed.collect { case p if p.isStreaming => Streams.readBy(p).toSeq }.flatten
      .map(t => Streams.qualified(t.identifier).toLowerCase).toSet
    if (wakeReaders) clocks.put(d.key, (streams, clock))
    def service(name: String) = !ExternalStreams.FileFormats(name.toLowerCase) && name.toLowerCase != "text"
    val readsService = analyzed.exists {
      case r: org.apache.spark.sql.execution.streaming.runtime.StreamingRelation => service(r.sourceName)
      case r: org.apache.spark.sql.catalyst.streaming.StreamingRelationV2 => service(r.sourceName)
      case _ => false
    }
    new Running(q, sink, tables, readsService)
  }

  /** Whether a pump's query leaves out rows that divide by zero, keeping them for `error_stream` ([[DivertedRow]]). */
  private def divides(df: DataFrame): Boolean =
    df.queryExecution.analyzed.exists(_.expressions.exists(_.exists(_.isInstanceOf[DivertedRow])))

  private def wakeReaders: Boolean = root.sparkContext.getConf.getBoolean(WakeReaders, defaultValue = true)

  /**
   * The shuffle partitions a pump without a setting of its own gets: the cores Spark runs tasks
   * on (`local[N]`: N; a cluster: its executors' cores when the pump is created), at least 1.
   */
  def defaultShufflePartitions: Int = serverShufflePartitions.getOrElse(math.max(1, root.sparkContext.defaultParallelism))

  /** `--conf spark.sql.shuffle.partitions=N` given to the server, which every pump then gets. */
  private def serverShufflePartitions: Option[Int] =
    root.sparkContext.getConf.getOption(ShufflePartitions).flatMap(v => scala.util.Try(v.trim.toInt).toOption)

  /**
   * The shuffle partitions a pump runs with, and where that number comes from: its checkpoint's
   * (Spark keeps the count a checkpoint was created with for the checkpoint's life), else its own
   * setting, else the server's default.
   */
  def shufflePartitions(d: PumpDefinition): (String, String) =
    PumpManager.checkpointConf(checkpoint(d), ShufflePartitions).map(_ -> "the pump's checkpoint (fixed for its life)")
      .orElse(d.conf.get(ShufflePartitions).map(_ -> "the pump's settings"))
      .getOrElse(defaultShufflePartitions.toString -> (if (serverShufflePartitions.isDefined) "the server's --conf"
        else "the server's default (the cores tasks run on)"))

  /**
   * The lines of the latest offset log entry of a checkpoint, if there is one: line 1 is the log's
   * version, line 2 the batch's metadata (watermark, timestamp, conf), then one line per source.
   */
  private def latestOffsets(dir: File): Option[List[String]] = {
    val logs = Option(new File(dir, "offsets").listFiles()).toSeq.flatten
      .filter(f => f.isFile && f.getName.forall(_.isDigit))
    if (logs.isEmpty) None
    else {
      val src = scala.io.Source.fromFile(logs.maxBy(_.getName.toLong), "UTF-8")
      Some(try src.getLines().toList finally src.close())
    }
  }

  /** A SQL setting recorded in the latest offset log entry of a checkpoint, if there is one. */
  private[streams] def checkpointConf(dir: File, key: String): Option[String] =
    latestOffsets(dir).flatMap(_.lift(1)).flatMap { json =>
      scala.util.Try {
        val node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json)
        Option(node.path("conf").get(key)).map(_.asText())
      }.toOption.flatten
    }

  private val StartOver = "CREATE OR REPLACE PUMP with its query changed, or DROP PUMP and CREATE PUMP"

  /** How a checkpoint of a pump that reads `error_stream` fits the sources `error_stream` has now. */
  private sealed trait ErrorStreamCheckpoint
  private object ErrorStreamCheckpoint {
    /** No checkpoint yet, the same sources, or the pump does not read `error_stream`. */
    case object Current extends ErrorStreamCheckpoint
    /** Begun by a release before the pumps' rows were a source of it: one source fewer, not that one. */
    case object EarlierRelease extends ErrorStreamCheckpoint
    /** Its sources have changed in number since: Spark refuses the checkpoint. */
    final case class Changed(was: Int, now: Int) extends ErrorStreamCheckpoint
  }

  /**
   * Pump `d`'s checkpoint against `df` (its query now), when it reads `error_stream` (whose sources
   * are the schema's decoding source streams and, last, its pumps' rows that divide by zero).
   * Spark refuses a checkpoint whose sources differ in number. One fewer, the last recorded offset
   * not the pumps' rows' log's, is a checkpoint an earlier release began: such a pump goes on
   * without that source. Any other difference (a decoding source stream created or dropped) is
   * told as such, with what to do, rather than as Spark's assertion.
   */
  private def errorStreamCheckpoint(d: PumpDefinition, df: DataFrame): ErrorStreamCheckpoint = {
    if (!readsPumpErrorRows(d, df)) return ErrorStreamCheckpoint.Current
    val now = df.queryExecution.analyzed.collect {
      case r: org.apache.spark.sql.execution.streaming.runtime.StreamingRelation => r: AnyRef
      case r: org.apache.spark.sql.catalyst.streaming.StreamingRelationV2 => r: AnyRef
    }.distinct.size
    latestOffsets(checkpoint(d)) match {
      case Some(lines) if lines.size - 2 != now =>
        val was = lines.size - 2
        val last = lines.last.trim
        if (was == now - 1 && last != "-" && !last.contains("\"streamLog\"")) ErrorStreamCheckpoint.EarlierRelease
        else ErrorStreamCheckpoint.Changed(was, now)
      case _ => ErrorStreamCheckpoint.Current
    }
  }

  /** Whether `df` (pump `d`'s query) reads its schema's pumps' rows that divide by zero (`error_stream`). */
  private def readsPumpErrorRows(d: PumpDefinition, df: DataFrame): Boolean = {
    val folder = errorFolder(d.member).getAbsolutePath
    df.queryExecution.analyzed.exists {
      case r: org.apache.spark.sql.execution.streaming.runtime.StreamingRelation =>
        r.dataSource.className == classOf[org.apache.spark.sql.overjoin.StreamLogProvider].getName &&
          r.dataSource.options.get("path").exists(p => new File(p).getAbsolutePath == folder)
      case _ => false
    }
  }

  /**
   * KDA's rule for filling the target (docs/semantics.md §10): the select list fills the listed
   * columns (or all the stream's columns but ROWTIME) in order, whatever its items are named. Only
   * when it has exactly one item more, and one item is named ROWTIME, is that item left out. The
   * row's ROWTIME is the query's output ROWTIME (`implicitRowtime`: the column after the query's
   * own), unless ROWTIME is a listed column; without one, the item named ROWTIME, else the query's
   * one event-time column. Unlisted columns are NULL.
   */
  private def projection(d: PumpDefinition, out: StructType, implicitRowtime: Boolean,
      target: StructType): DataFrame => DataFrame = {
    val rt = Streams.Rowtime
    val targetNames = target.fieldNames
    d.columns.foreach { c =>
      if (!targetNames.exists(_.equalsIgnoreCase(c))) throw new IllegalArgumentException(
        s"pump ${d.name}: the target ${d.target} has no column $c (it has ${targetNames.mkString(", ")})")
    }
    val listed = if (d.columns.nonEmpty) d.columns else targetNames.toSeq.filterNot(_.equalsIgnoreCase(rt))
    val items = out.fields.indices
    val named = items.filter(i => out.fields(i).name.equalsIgnoreCase(rt))
    val valueIdx =
      if (items.size == listed.size) items
      else if (items.size == listed.size + 1 && named.size == 1) items.filterNot(_ == named.head)
      else throw new IllegalArgumentException(
        s"pump ${d.name}: the query returns ${items.size} column(s) (${out.fieldNames.mkString(", ")}) but " +
          s"${d.target} takes ${listed.size} (${listed.mkString(", ")}): select one value per column, in order " +
          s"(and, if you like, one item more named ROWTIME, which becomes the rows' ROWTIME)")
    val rowtimeIdx: Option[Int] =
      if (listed.exists(_.equalsIgnoreCase(rt))) None
      else if (implicitRowtime) Some(out.size)
      else named.headOption.orElse {
        val byWatermark = items.filter(i => out.fields(i).metadata.contains("spark.watermarkDelayMs"))
        if (byWatermark.size == 1) byWatermark.headOption
        else throw new IllegalArgumentException(
          s"pump ${d.name}: the query's rows have no ROWTIME to give ${d.target}'s rows: select ROWTIME")
      }
    val cols: Seq[Column] = target.fields.toSeq.map { f =>
      val to = if (f.name.equalsIgnoreCase(rt)) TimestampType else f.dataType
      val at = listed.indexWhere(_.equalsIgnoreCase(f.name))
      val source =
        if (at >= 0) Some(valueIdx(at))
        else if (f.name.equalsIgnoreCase(rt)) rowtimeIdx
        else None
      // Filled by position, so a value of the wrong kind is refused as Spark's INSERT refuses it
      // (its ANSI store assignment: a TIMESTAMP is not an INT), not converted. A string is read
      // as the column's type, as KDA reads a record's text ('101' into an INTEGER column); one
      // that does not read fails the pump, which SHOW PUMPS reports.
      source.filter(_ < out.size).foreach { i =>
        val from = out.fields(i)
        val fits = Cast.canANSIStoreAssign(from.dataType, to) ||
          (from.dataType == StringType && Cast.canCast(StringType, to))
        if (!fits) throw new IllegalArgumentException(
          s"pump ${d.name}: ${d.target}.${f.name} (${to.sql}) cannot take the query's column ${i + 1}, " +
            s"${from.name} (${from.dataType.sql}): the select list fills the target's columns in order; " +
            s"select a value of type ${to.sql} there")
      }
      source.map(i => col(s"_c$i").cast(to)).getOrElse(lit(null).cast(f.dataType)).as(f.name)
    }
    val positional = (0 until out.size + (if (implicitRowtime) 1 else 0)).map(i => s"_c$i")
    df => df.toDF(positional: _*).select(cols: _*)
  }

  /** Stops a pump at a batch boundary when one comes within the grace period, else interrupts it. */
  private def stopQuery(key: String): Unit = running.remove(key).foreach { r =>
    clocks.remove(key)
    val q = r.query
    val deadline = System.currentTimeMillis() + graceMillis
    while (q.isActive && q.status.isTriggerActive && System.currentTimeMillis() < deadline) Thread.sleep(20)
    q.stop()
  }

  private def message(e: Throwable): String = {
    val m = Option(e.getMessage).getOrElse(e.toString).trim
    // A Python data source's error (Kinesis): the line that says it, not the traceback's first lines.
    val traceback = m.indexOf("Traceback (most recent call last)")
    val said = if (traceback < 0) None else m.substring(traceback).linesIterator.map(_.trim)
      .filter(_.matches("""^[A-Za-z_][\w.]*(Error|Exception): .*""")).toSeq.lastOption
    said.map(l => m.substring(0, traceback).trim + " " + l).getOrElse(m).linesIterator.take(3).mkString(" ").take(500)
  }

  private def deleteRecursively(f: File): Unit = {
    if (f.isDirectory) Option(f.listFiles()).toSeq.flatten.foreach(deleteRecursively)
    f.delete()
  }
}
