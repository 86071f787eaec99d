package io.overjoin.config

import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.overjoin.OverjoinConfEntries

/**
 * Every `spark.overjoin.*` setting, read per query from the session's SQL configuration, so
 * `SET spark.overjoin.lateness = 5 seconds` works between queries. The entries themselves (docs,
 * versions, checks) are in [[OverjoinConfEntries]]; Spark refuses a bad value at `SET` time.
 */
object OverjoinConf {
  val Lateness: String = OverjoinConfEntries.Lateness.key
  val Emit: String = OverjoinConfEntries.Emit.key
  val ParserEnabled: String = OverjoinConfEntries.ParserEnabled.key
  val JoinOperator: String = OverjoinConfEntries.JoinOperator.key

  /** Registers the entries with Spark (once; called from the extension's entry point). */
  def register(): Unit = OverjoinConfEntries.All.size

  /** The lateness of stream inputs without a watermark of their own, in microseconds. */
  def latenessMicros(conf: SQLConf = SQLConf.get): Long =
    OverjoinConfEntries.latenessMicros(conf.getConf(OverjoinConfEntries.Lateness)).get

  /** True for `spark.overjoin.emit = ordered`. */
  def orderedEmit(conf: SQLConf = SQLConf.get): Boolean = conf.getConf(OverjoinConfEntries.Emit) == "ordered"

  /** False when `spark.overjoin.parser.enabled = false`: every statement goes to Spark's parser. */
  def parserEnabled(conf: SQLConf = SQLConf.get): Boolean = conf.getConf(OverjoinConfEntries.ParserEnabled)

  /** True when joins of two streams run on overjoin's own operator (`spark.overjoin.join.operator`). */
  def ownJoinOperator(conf: SQLConf = SQLConf.get): Boolean = conf.getConf(OverjoinConfEntries.JoinOperator) == "overjoin"
}
