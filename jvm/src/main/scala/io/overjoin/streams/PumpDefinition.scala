package io.overjoin.streams

import java.io.{File, FileInputStream, FileOutputStream}
import java.nio.file.{Files, StandardCopyOption}
import java.util.Properties

import scala.jdk.CollectionConverters._

/**
 * A pump as the server keeps it, in `<state>/pumps/<key>.properties`.
 *
 * A pump is named within its schema (database): two applications may each have a `STREAM_PUMP`.
 * Its `key` names its files: the name in lower case, as every pump had before pumps were named per
 * schema (so existing state keeps its layout), or, when a pump of another schema holds that key
 * already, the schema and the name ([[PumpDefinition.qualifiedKey]]). A pump keeps its key for life.
 *
 * `generation` names the pump's checkpoint (`<state>/checkpoints/<key>-g<generation>`) and its
 * files in the target stream (`pump-<key>-g<generation>-b<batch>.parquet`): a pump replaced by a
 * different query gets a new generation, so the new query's batch ids never meet the old ones.
 */
final case class PumpDefinition(
    name: String,
    database: String,
    target: String,
    columns: Seq[String],
    query: String,
    conf: Map[String, String],
    running: Boolean,
    generation: Long,
    schema: Option[String] = None,
    storedKey: Option[String] = None) {

  def key: String = storedKey.getOrElse(PumpDefinition.key(name))
  /**
   * The schema (database) the pump belongs to: the one its name was qualified with
   * (`CREATE PUMP "s"."p"`), else the one it was created in (which its query's names resolve in).
   */
  def member: String = schema.getOrElse(database)
  def checkpointName: String = s"$key-g$generation"
  def filePrefix: String = s"pump-$key-g$generation-b"
  /**
   * The name its Spark query runs under (logs, the Spark UI, bad-record counts): the pump's name,
   * or `schema.name` when its key says another schema's pump has the name too.
   */
  def queryName: String = if (key == PumpDefinition.key(name)) name else s"$member.$name"
  /** Whether this is pump `name` of schema (database) `db`. */
  def is(db: String, name: String): Boolean = member.equalsIgnoreCase(db) && this.name.equalsIgnoreCase(name)
}

object PumpDefinition {
  def key(name: String): String = name.toLowerCase(java.util.Locale.ROOT)

  /**
   * The key of pump `name` of database `db` when the plain key is another schema's: both names in
   * lower case joined by `~`, each character that is not a letter, digit, `_` or `-` written as
   * `~` and its hex code (a file name on any file system, and no `%` for Hadoop's paths to decode).
   */
  def qualifiedKey(db: String, name: String): String = {
    def safe(s: String) = key(s).flatMap { c =>
      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-') c.toString
      else f"~${c.toInt}%x~"
    }
    s"${safe(db)}~${safe(name)}"
  }

  def load(f: File): PumpDefinition = {
    val p = new Properties()
    val in = new FileInputStream(f)
    try p.load(in) finally in.close()
    val conf = p.stringPropertyNames().asScala.toSeq.filter(_.startsWith("conf."))
      .map(k => k.stripPrefix("conf.") -> p.getProperty(k)).toMap
    PumpDefinition(
      name = p.getProperty("name"),
      database = p.getProperty("database", "default"),
      target = p.getProperty("target"),
      columns = Option(p.getProperty("columns")).filter(_.nonEmpty).map(_.split("\u0001").toSeq).getOrElse(Nil),
      query = p.getProperty("query"),
      conf = conf,
      running = p.getProperty("running") == "true",
      generation = p.getProperty("generation", "1").toLong,
      schema = Option(p.getProperty("schema")),
      storedKey = Option(p.getProperty("key")))
  }

  /** Written to a temporary file, synced, then renamed: a crash leaves the old or the new file. */
  def save(d: PumpDefinition, dir: File): Unit = {
    val p = new Properties()
    p.setProperty("name", d.name)
    p.setProperty("database", d.database)
    p.setProperty("target", d.target)
    p.setProperty("columns", d.columns.mkString("\u0001"))
    p.setProperty("query", d.query)
    p.setProperty("running", d.running.toString)
    p.setProperty("generation", d.generation.toString)
    d.schema.foreach(p.setProperty("schema", _))
    d.storedKey.foreach(p.setProperty("key", _))
    d.conf.foreach { case (k, v) => p.setProperty("conf." + k, v) }
    val tmp = new File(dir, s".${d.key}.properties.tmp")
    val out = new FileOutputStream(tmp)
    try { p.store(out, "overjoin pump"); out.getFD.sync() } finally out.close()
    Files.move(tmp.toPath, new File(dir, s"${d.key}.properties").toPath,
      StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING)
  }
}
