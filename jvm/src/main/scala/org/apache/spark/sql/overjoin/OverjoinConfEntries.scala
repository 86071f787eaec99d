package org.apache.spark.sql.overjoin

import org.apache.spark.internal.config.ConfigEntry
import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.unsafe.types.UTF8String

/**
 * overjoin's settings as Spark SQL config entries. They live in this package because Spark's
 * config builder is internal to Spark; everything else reads them through
 * `io.overjoin.config.OverjoinConf`. Registering them with SQLConf makes `SET -v` list them with
 * their documentation and makes `SET` refuse a bad value at once, naming the setting.
 */
object OverjoinConfEntries {

  /** Microseconds of a lateness such as `10 seconds` or `1 minute 30 seconds`, or None. */
  def latenessMicros(text: String): Option[Long] = {
    val interval = try IntervalUtils.stringToInterval(UTF8String.fromString(text)) catch { case _: Exception => null }
    if (interval == null || interval.months != 0 || interval.days < 0 || interval.microseconds < 0) None
    else Some(interval.days * 86400000000L + interval.microseconds)
  }

  val Lateness: ConfigEntry[String] = SQLConf.buildConf("spark.overjoin.lateness")
    .doc("How far behind the latest rowtime seen a row of a stream input may arrive and still be " +
      "joined, for inputs that declare no watermark of their own (docs/semantics.md §8). A row is late " +
      "when its rowtime is strictly older than the watermark, the smallest over the inputs of " +
      "(latest rowtime seen - lateness); late rows are dropped and counted. An interval such as " +
      "'10 seconds' or '1 minute'.")
    .version("0.1.0")
    .stringConf
    .checkValue(v => latenessMicros(v).isDefined,
      "spark.overjoin.lateness takes a fixed, non-negative interval such as '0 seconds', '10 seconds' or '2 minutes'")
    .createWithDefault("0 seconds")

  val Emit: ConfigEntry[String] = SQLConf.buildConf("spark.overjoin.emit")
    .doc("'unordered' (the default): rows are emitted as soon as they are known. 'ordered': rows are " +
      "released in non-descending ROWTIME order across the whole stream, each once the watermark " +
      "passes it (docs/semantics.md §8); the query must select ROWTIME.")
    .version("0.1.0")
    .stringConf
    .transform(_.trim.toLowerCase(java.util.Locale.ROOT))
    .checkValues(Set("unordered", "ordered"))
    .createWithDefault("unordered")

  val ParserEnabled: ConfigEntry[Boolean] = SQLConf.buildConf("spark.overjoin.parser.enabled")
    .doc("When false, overjoin's parser hands every statement to the parser it wraps, as if overjoin " +
      "were not loaded: the streaming dialect is then a syntax error. For ruling overjoin out quickly.")
    .version("0.2.0")
    .booleanConf
    .createWithDefault(true)

  val JoinOperator: ConfigEntry[String] = SQLConf.buildConf("spark.overjoin.join.operator")
    .doc("Which operator runs a join of two streams. 'overjoin' (the default): overjoin's own " +
      "stateful operator, which runs every window and join type, chained outer joins included, and " +
      "measured faster than Spark's (bench/RESULTS.md). 'spark': Spark's stream-stream join with time " +
      "conditions, for RANGE windows only; an outer join whose result is joined again is refused (OJ301). " +
      "A query keeps the operator it was started with: its checkpoint holds that operator's state.")
    .version("0.2.0")
    .stringConf
    .transform(_.trim.toLowerCase(java.util.Locale.ROOT))
    .checkValues(Set("overjoin", "spark"))
    .createWithDefault("overjoin")

  val SlidingEvaluation: ConfigEntry[String] = SQLConf.buildConf("spark.overjoin.sliding.evaluation")
    .doc("How a sliding window (docs/semantics.md §12) computes the values of the rows it emits. " +
      "'incremental' (the default): when every window expression is an aggregate over a frame with " +
      "constant bounds, only the emitted rows' frames are aggregated; a frame whose functions give the " +
      "same result however its rows are grouped (COUNT, MIN, MAX, FIRST_VALUE, LAST_VALUE, SUM and AVG " +
      "of TINYINT/SMALLINT/INT) keeps partial buffers from row to row, the others aggregate their rows " +
      "in order; otherwise as 'spark'. 'due': the emitted rows' frames, every one in order. 'spark': " +
      "Spark's window evaluation over every row the key holds. All three give Spark's values; 'due' and " +
      "'spark' are there to compare them (bench/bench_sliding.py).")
    .version("0.2.0")
    .stringConf
    .transform(_.trim.toLowerCase(java.util.Locale.ROOT))
    .checkValues(Set("incremental", "due", "spark"))
    .createWithDefault("incremental")

  /** Every entry, so that loading this object registers them all. */
  val All: Seq[ConfigEntry[_]] = Seq(Lateness, Emit, ParserEnabled, JoinOperator, SlidingEvaluation)
}
