package org.apache.spark.sql.overjoin

import org.apache.spark.sql.catalyst.analysis.{TypeCheckResult, UnresolvedException, UnresolvedFunction}
import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Cast, EvalMode, Expression, ImplicitCastInputTypes, InheritAnalysisRules, LeafExpression, MillisToTimestamp, Nondeterministic, RuntimeReplaceable, Subtract, TimeZoneAwareExpression, UnaryExpression, Unevaluable}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.trees.CurrentOrigin
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{AbstractDataType, ByteType, DataType, DateType, IntegerType, IntegralType, LongType, NullType, ShortType, StringType, TimestampNTZType, TimestampType}
import org.apache.spark.unsafe.types.UTF8String

// Kinesis Data Analytics' and s-Server's time functions: TSDIFF, the SimpleDateFormat conversions,
// CURRENT_ROW_TIMESTAMP and KDA's milliseconds in UNIX_TIMESTAMP/TO_TIMESTAMP.

/**
 * A TIMESTAMP (or TIMESTAMP_NTZ, its wall clock read as UTC) or a whole number of milliseconds, as
 * milliseconds since 1970-01-01 00:00:00 UTC: the arguments of `function` (KDA's `TSDIFF` takes both).
 */
case class EpochMillis(child: Expression, function: String) extends UnaryExpression with CodegenFallback {
  override def dataType: DataType = LongType
  override def nullIntolerant: Boolean = true

  override def checkInputDataTypes(): TypeCheckResult = child.dataType match {
    case TimestampType | TimestampNTZType | NullType | _: IntegralType => TypeCheckResult.TypeCheckSuccess
    case other => TypeCheckResult.TypeCheckFailure(
      s"$function takes TIMESTAMP values or BIGINT milliseconds since 1970-01-01 00:00:00 UTC, not ${other.sql}")
  }

  override protected def nullSafeEval(value: Any): Any = child.dataType match {
    case TimestampType | TimestampNTZType => Math.floorDiv(value.asInstanceOf[Long], 1000L)
    case ByteType => value.asInstanceOf[Byte].toLong
    case ShortType => value.asInstanceOf[Short].toLong
    case IntegerType => value.asInstanceOf[Int].toLong
    case _ => value.asInstanceOf[Long]
  }

  override def prettyName: String = "epoch_millis"
  override protected def withNewChildInternal(newChild: Expression): EpochMillis = copy(child = newChild)
}

/** KDA's `TSDIFF(start, end)`: `start - end` in milliseconds. */
case class TsDiff(start: Expression, end: Expression, replacement: Expression)
  extends RuntimeReplaceable with InheritAnalysisRules {
  def this(start: Expression, end: Expression) =
    this(start, end, Subtract(EpochMillis(start, "TSDIFF"), EpochMillis(end, "TSDIFF")))
  override def prettyName: String = "tsdiff"
  override def parameters: Seq[Expression] = Seq(start, end)
  override protected def withNewChildInternal(newChild: Expression): TsDiff = copy(replacement = newChild)
}

/**
 * KDA's date and time conversions, `CHAR_TO_TIMESTAMP`, `TIMESTAMP_TO_CHAR`, `CHAR_TO_DATE` and
 * `DATE_TO_CHAR`: `format` is a pattern of Java's `SimpleDateFormat`, as KDA's reference says, read
 * strictly (every field within its range: no 30 February), in the session's time zone. Java's
 * patterns are not Spark's: `z` reads a zone name or an offset such as `-0700` (Apache's log
 * format, `dd/MMM/yyyy:HH:mm:ss z`), which Spark's `to_timestamp` refuses.
 */
abstract class KdaDateTimeConversion extends BinaryExpression with TimeZoneAwareExpression
  with ImplicitCastInputTypes with CodegenFallback {
  def format: Expression
  override def left: Expression = format
  override def nullable: Boolean = true

  // One formatter per pattern in use, for this expression's task (SimpleDateFormat is not thread-safe).
  @transient private var lastFormat: UTF8String = _
  @transient private var lastFormatter: java.text.SimpleDateFormat = _

  protected def formatter(f: UTF8String, zone: java.util.TimeZone): java.text.SimpleDateFormat = {
    if (lastFormatter == null || lastFormat != f) {
      val fmt = try new java.text.SimpleDateFormat(f.toString, java.util.Locale.US) catch {
        case e: IllegalArgumentException => throw new IllegalArgumentException(
          s"$prettyName: '$f' is not a date and time pattern of Java's SimpleDateFormat: ${e.getMessage}")
      }
      fmt.setLenient(false)
      fmt.setTimeZone(zone)
      lastFormatter = fmt
      lastFormat = f.clone()
    }
    lastFormatter
  }

  protected def parse(f: UTF8String, text: UTF8String, zone: java.util.TimeZone): Option[Long] =
    try Some(formatter(f, zone).parse(text.toString).getTime) catch {
      case _: java.text.ParseException =>
        if (SQLConf.get.ansiEnabled) throw new IllegalArgumentException(
          s"$prettyName: '$text' does not match the pattern '$f' (Java's SimpleDateFormat, every field within its " +
            s"range); set spark.sql.ansi.enabled=false to get NULL for such values instead")
        None
    }
}

/** KDA's `CHAR_TO_TIMESTAMP(format, string)`. */
case class CharToTimestamp(format: Expression, right: Expression, timeZoneId: Option[String] = None)
  extends KdaDateTimeConversion {
  override def inputTypes: Seq[AbstractDataType] = Seq(StringType, StringType)
  override def dataType: DataType = TimestampType
  override def prettyName: String = "char_to_timestamp"
  override def withTimeZone(timeZoneId: String): CharToTimestamp = copy(timeZoneId = Option(timeZoneId))
  override protected def nullSafeEval(f: Any, s: Any): Any =
    parse(f.asInstanceOf[UTF8String], s.asInstanceOf[UTF8String], java.util.TimeZone.getTimeZone(zoneId))
      .map(_ * 1000L).orNull
  override protected def withNewChildrenInternal(l: Expression, r: Expression): CharToTimestamp =
    copy(format = l, right = r)
}

/** KDA's `CHAR_TO_DATE(format, string)`: the date of the time read, in UTC (a DATE has no zone). */
case class CharToDate(format: Expression, right: Expression, timeZoneId: Option[String] = None)
  extends KdaDateTimeConversion {
  override def inputTypes: Seq[AbstractDataType] = Seq(StringType, StringType)
  override def dataType: DataType = DateType
  override def prettyName: String = "char_to_date"
  override def withTimeZone(timeZoneId: String): CharToDate = copy(timeZoneId = Option(timeZoneId))
  override protected def nullSafeEval(f: Any, s: Any): Any =
    parse(f.asInstanceOf[UTF8String], s.asInstanceOf[UTF8String], CharToDate.Utc)
      .map(ms => Math.floorDiv(ms, 86400000L).toInt).orNull
  override protected def withNewChildrenInternal(l: Expression, r: Expression): CharToDate =
    copy(format = l, right = r)
}

object CharToDate {
  val Utc: java.util.TimeZone = java.util.TimeZone.getTimeZone("UTC")
}

/**
 * KDA's `TIMESTAMP_TO_CHAR(format, ts)`. A NULL timestamp gives the string 'null', as KDA's
 * reference says it does (a NULL format gives NULL).
 */
case class TimestampToChar(format: Expression, right: Expression, timeZoneId: Option[String] = None)
  extends KdaDateTimeConversion {
  override def inputTypes: Seq[AbstractDataType] = Seq(StringType, TimestampType)
  override def dataType: DataType = StringType
  override def prettyName: String = "timestamp_to_char"
  override def withTimeZone(timeZoneId: String): TimestampToChar = copy(timeZoneId = Option(timeZoneId))
  override def eval(input: org.apache.spark.sql.catalyst.InternalRow): Any = {
    val f = format.eval(input)
    if (f == null) return null
    val ts = right.eval(input)
    if (ts == null) return UTF8String.fromString("null")
    val fmt = formatter(f.asInstanceOf[UTF8String], java.util.TimeZone.getTimeZone(zoneId))
    UTF8String.fromString(fmt.format(new java.util.Date(Math.floorDiv(ts.asInstanceOf[Long], 1000L))))
  }
  override protected def withNewChildrenInternal(l: Expression, r: Expression): TimestampToChar =
    copy(format = l, right = r)
}

/** KDA's `DATE_TO_CHAR(format, date)`: the date at midnight UTC, written in `format`. */
case class DateToChar(format: Expression, right: Expression, timeZoneId: Option[String] = None)
  extends KdaDateTimeConversion {
  override def inputTypes: Seq[AbstractDataType] = Seq(StringType, DateType)
  override def dataType: DataType = StringType
  override def prettyName: String = "date_to_char"
  override def withTimeZone(timeZoneId: String): DateToChar = copy(timeZoneId = Option(timeZoneId))
  override protected def nullSafeEval(f: Any, d: Any): Any = {
    val fmt = formatter(f.asInstanceOf[UTF8String], CharToDate.Utc)
    UTF8String.fromString(fmt.format(new java.util.Date(d.asInstanceOf[Int].toLong * 86400000L)))
  }
  override protected def withNewChildrenInternal(l: Expression, r: Expression): DateToChar =
    copy(format = l, right = r)
}

/**
 * KDA's `CURRENT_ROW_TIMESTAMP`: the time at which the row is computed, read anew for every row
 * (Spark's `CURRENT_TIMESTAMP` is fixed per query or micro-batch).
 */
case class CurrentRowTimestamp() extends LeafExpression with Nondeterministic with CodegenFallback {
  override def dataType: DataType = TimestampType
  override def nullable: Boolean = false
  override def prettyName: String = "current_row_timestamp"
  override protected def initializeInternal(partitionIndex: Int): Unit = ()
  override protected def evalInternal(input: org.apache.spark.sql.catalyst.InternalRow): Any =
    { val now = java.time.Instant.now(); now.getEpochSecond * 1000000L + now.getNano / 1000L }
}

/**
 * `UNIX_TIMESTAMP(x)` or `TO_TIMESTAMP(x)` in a streaming query block, until `x`'s type is known
 * (docs/syntax.md, "KDA and s-Server functions"). Kinesis Data Analytics' and s-Server's
 * `UNIX_TIMESTAMP(timestamp)` is milliseconds since 1970-01-01 00:00:00 UTC and their
 * `TO_TIMESTAMP(bigint)` reads milliseconds, where Spark's functions of those names count seconds:
 * an application divides by 1000 and would silently be 1000 times off. `UNIX_TIMESTAMP` of a
 * string, a date or a number converts it to a TIMESTAMP first, as KDA does. With any other argument
 * type it is Spark's function (`original`, with the argument as analysed).
 */
case class KdaTimeCall(function: String, child: Expression, original: UnresolvedFunction)
  extends UnaryExpression with Unevaluable {
  override lazy val resolved: Boolean = false
  override def dataType: DataType = throw new UnresolvedException("dataType")
  override def nullable: Boolean = true
  override def sql: String = s"${function.toLowerCase}(${child.sql})"
  override def toString: String = s"${function.toLowerCase}($child)"

  /** KDA's meaning for the argument types KDA's function takes, else Spark's function, unresolved. */
  def decide: Expression = CurrentOrigin.withOrigin(original.origin) {
    (function, child.dataType) match {
      case ("UNIX_TIMESTAMP", TimestampType | TimestampNTZType) => new KdaUnixTimestamp(child)
      // KDA converts what it is given to a TIMESTAMP first: a string or a date as CAST does (NULL
      // where a string is no time), a number as milliseconds since the epoch (TO_TIMESTAMP's
      // reading), whose UNIX_TIMESTAMP is the number itself.
      case ("UNIX_TIMESTAMP", StringType | DateType) =>
        new KdaUnixTimestamp(Cast(child, TimestampType, Some(SQLConf.get.sessionLocalTimeZone), EvalMode.TRY))
      case ("UNIX_TIMESTAMP", _: IntegralType) => Cast(child, LongType)
      case ("TO_TIMESTAMP", _: IntegralType) => new KdaToTimestamp(child)
      case _ => original.copy(arguments = Seq(child))
    }
  }

  override protected def withNewChildInternal(newChild: Expression): KdaTimeCall = copy(child = newChild)
}

/** KDA's `UNIX_TIMESTAMP(timestamp)`: milliseconds since 1970-01-01 00:00:00 UTC. */
case class KdaUnixTimestamp(ts: Expression, replacement: Expression)
  extends RuntimeReplaceable with InheritAnalysisRules {
  def this(ts: Expression) = this(ts, EpochMillis(ts, "UNIX_TIMESTAMP"))
  override def prettyName: String = "unix_timestamp"
  override def parameters: Seq[Expression] = Seq(ts)
  override protected def withNewChildInternal(newChild: Expression): KdaUnixTimestamp = copy(replacement = newChild)
}

/** KDA's `TO_TIMESTAMP(bigint)`: the TIMESTAMP that many milliseconds after 1970-01-01 00:00:00 UTC. */
case class KdaToTimestamp(millis: Expression, replacement: Expression)
  extends RuntimeReplaceable with InheritAnalysisRules {
  def this(millis: Expression) = this(millis, MillisToTimestamp(Cast(millis, LongType)))
  override def prettyName: String = "to_timestamp"
  override def parameters: Seq[Expression] = Seq(millis)
  override protected def withNewChildInternal(newChild: Expression): KdaToTimestamp = copy(replacement = newChild)
}
