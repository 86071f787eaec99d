package io.overjoin.streams

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.spark.SparkContext
import org.apache.spark.internal.Logging

/**
 * YARN's defaults taken out of a server's Hadoop configuration when it does not run on YARN.
 *
 * Spark's Hadoop configuration holds the defaults of every Hadoop module it has loaded: in a
 * local session 1,123 entries, 527 of them from `yarn-default.xml`. Every micro-batch of every pump
 * copies that configuration several times and serializes it into broadcasts (each file scan, each
 * state store), and readers and writers walk all of it (Parquet's per-column settings, the line
 * reader's prefixes): a tenth of a pump's CPU at an application's rates. Only a YARN client reads
 * `yarn.*` defaults, so on a local, standalone or Kubernetes master they are dropped; a value that
 * was set (by `--conf spark.hadoop.yarn...` or `yarn-site.xml`) stays.
 *
 * Hadoop reloads a configuration from its resources when a module adds a default resource (the
 * first `JobConf`, `YarnConfiguration`, ...), which would bring the entries back: [[apply]] is
 * called again before each pump starts, and costs a pass over the keys.
 */
object HadoopDefaults extends Logging {

  /**
   * `spark.overjoin.server.trimHadoopDefaults` (a server setting, default true); false keeps every
   * entry, for comparison.
   */
  val Trim = "spark.overjoin.server.trimHadoopDefaults"

  private val YarnDefaults = "yarn-default.xml"

  /** Drops YARN's defaults from `sc`'s Hadoop configuration unless it runs on YARN or is told not to; how many. */
  def apply(sc: SparkContext): Int =
    if (sc.master.startsWith("yarn") || !sc.getConf.getBoolean(Trim, defaultValue = true)) 0
    else trim(sc.hadoopConfiguration)

  /** Drops the entries of `conf` whose only source is YARN's defaults; how many. */
  def trim(conf: Configuration): Int = conf.synchronized {
    val defaults = conf.iterator().asScala.map(_.getKey).filter { k =>
      val sources = conf.getPropertySources(k)
      sources != null && sources.nonEmpty && sources.forall(_ == YarnDefaults)
    }.toList
    defaults.foreach(conf.unset)
    if (defaults.nonEmpty) logInfo(s"took ${defaults.size} of YARN's defaults out of the Hadoop configuration (not on YARN)")
    defaults.size
  }
}
