package io.overjoin.streams

import java.nio.charset.StandardCharsets.UTF_8

import scala.util.Try

import org.apache.spark.sql.SparkSession

/**
 * s-Server's schema names as Spark database names (docs/server.md, "Schema names").
 *
 * s-Server takes any quoted name for a schema (`"fpp-test-score-0.1"`); Spark's catalog takes
 * letters, digits and `_` only. A name of those characters is its own database (Spark folds it to
 * lower case, as it folds every name); any other is written in an escaped form: letters and digits
 * stay, `_` becomes `__`, and every other character becomes `_` and the two hex digits of each of
 * its UTF-8 bytes:
 * {{{
 *   "fpp-test-score-0.1"      fpp_2dtest_2dscore_2d0_2e1
 *   "fpp-test-score-0.1_v2"   fpp_2dtest_2dscore_2d0_2e1__v2
 * }}}
 * The escaped form reads back without ambiguity (after `_` come `_` or two hex digits), so two
 * names never share one. A database made for a schema keeps the name as written in its property
 * [[Property]]: `SHOW PUMPS` and errors show it, and a schema whose database another schema (or
 * Spark's own `CREATE DATABASE` of the same spelling) holds already is refused.
 */
object SchemaNames {

  /** The database property that keeps the s-Server name the database was made for. */
  val Property = "overjoin.schema"

  /** Spark's and Hive's limit on a database name. */
  val MaxLength = 128

  /** Whether Spark's catalog takes `name` as it is. */
  def isPlain(name: String): Boolean =
    name.nonEmpty && name.forall(c => c < 128 && (c.isLetterOrDigit || c == '_'))

  /**
   * The names written for escaped databases, by database in lower case: how a message names a
   * schema that has no database (yet), which keeps no property to read the name back from.
   */
  private val written = new java.util.concurrent.ConcurrentHashMap[String, String]()

  /** The database of schema `name` (not folded to lower case: Spark does that). */
  def database(name: String): String =
    if (isPlain(name)) name
    else {
      val db = name.getBytes(UTF_8).iterator.map { b =>
        val c = (b & 0xff).toChar
        if (c < 128 && c.isLetterOrDigit) c.toString else if (c == '_') "__" else f"_${b & 0xff}%02x"
      }.mkString
      written.put(db.toLowerCase(java.util.Locale.ROOT), name)
      db
    }

  /**
   * The database of schema `name`, checked: within Spark's length limit, and not a database that
   * another schema name (or Spark's own `CREATE DATABASE` of the escaped form) made.
   */
  def checkedDatabase(session: SparkSession, name: String): String = {
    val db = database(name)
    if (db.length > MaxLength) throw new IllegalArgumentException(
      s"schema ${quoted(name)}: its database name $db (the name with its characters other than letters, digits " +
        s"and _ escaped) is longer than the $MaxLength characters Spark's catalog takes: give the schema a shorter name")
    val catalog = session.sessionState.catalog
    if (catalog.databaseExists(db)) {
      val owner = Try(catalog.getDatabaseMetadata(db).properties.get(Property)).toOption.flatten
      val clash = owner match {
        case Some(o) => !o.equalsIgnoreCase(name)
        case None => !isPlain(name)
      }
      if (clash) throw new IllegalArgumentException(
        s"schema ${quoted(name)} would be the database $db, which is ${owner.map(o => s"schema ${quoted(o)}'s")
          .getOrElse("a database of Spark's own")}: give the schema another name")
    }
    db
  }

  /** `name` with `_` for each character Spark's catalog does not take: what an error suggests. */
  def plainSpelling(name: String): String =
    name.map(c => if (c < 128 && (c.isLetterOrDigit || c == '_')) c else '_')

  /** `name` as s-Server writes it, in double quotes. */
  def quoted(name: String): String = "\"" + name.replace("\"", "\"\"") + "\""

  /**
   * How a database is shown: the schema name it was made for, in double quotes, when it was made
   * from an escaped name (or, with no database yet, the name last written for it); else the
   * database's own name.
   */
  def shown(session: SparkSession, db: String): String = {
    val kept = Try(session.sessionState.catalog.getDatabaseMetadata(db)).toOption match {
      case Some(meta) => meta.properties.get(Property)
      case None => Option(written.get(db.toLowerCase(java.util.Locale.ROOT)))
    }
    kept.filterNot(isPlain).map(quoted).getOrElse(db)
  }
}
