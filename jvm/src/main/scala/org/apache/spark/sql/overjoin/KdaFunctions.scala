package org.apache.spark.sql.overjoin

import java.util.regex.Pattern

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry.FunctionBuilder
import org.apache.spark.sql.catalyst.analysis.{TypeCheckResult, UnresolvedException, UnresolvedFunction}
import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Cast, Expression, ExpressionInfo, GenericInternalRow, ImplicitCastInputTypes, InheritAnalysisRules, LeafExpression, MillisToTimestamp, Nondeterministic, RuntimeReplaceable, Subtract, TimeZoneAwareExpression, UnaryExpression, Unevaluable}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.trees.CurrentOrigin
import org.apache.spark.sql.errors.QueryCompilationErrors
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{AbstractDataType, ByteType, DataType, DateType, IntegerType, IntegralType, LongType, NullType, ShortType, StringType, StructField, StructType, TimestampNTZType, TimestampType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * The scalar functions of Kinesis Data Analytics SQL and s-Server that Spark SQL lacks, under
 * their own names (docs/syntax.md, "KDA and s-Server functions"), so that an application's SQL
 * runs as it was written. Each is registered with Spark's function registry by
 * [[io.overjoin.OverjoinExtensions]]; none has the name of one of Spark's own functions, so plain
 * Spark SQL is unchanged.
 */
object KdaFunctions {

  /** (name, usage, arguments, builder) of each function. */
  private val functions: Seq[(String, String, Seq[Int], FunctionBuilder)] = Seq(
    ("TSDIFF", "TSDIFF(start, end) - `start` minus `end` in milliseconds; each a TIMESTAMP or BIGINT " +
      "milliseconds since 1970-01-01 00:00:00 UTC. NULL if either is NULL.", Seq(2),
      args => new TsDiff(args(0), args(1))),
    ("CHAR_TO_TIMESTAMP", "CHAR_TO_TIMESTAMP(format, string) - `string` read as a TIMESTAMP in `format`, " +
      "a pattern of Java's SimpleDateFormat (such as 'yyyy-MM-dd HH:mm:ss'), every field within its range.", Seq(2),
      args => CharToTimestamp(args(0), args(1))),
    ("TIMESTAMP_TO_CHAR", "TIMESTAMP_TO_CHAR(format, timestamp) - `timestamp` written in `format`, a pattern " +
      "of Java's SimpleDateFormat; a NULL timestamp gives 'null'.", Seq(2),
      args => TimestampToChar(args(0), args(1))),
    ("CHAR_TO_DATE", "CHAR_TO_DATE(format, string) - `string` read as a DATE in `format`, a pattern of " +
      "Java's SimpleDateFormat.", Seq(2),
      args => CharToDate(args(0), args(1))),
    ("DATE_TO_CHAR", "DATE_TO_CHAR(format, date) - `date` written in `format`, a pattern of Java's " +
      "SimpleDateFormat.", Seq(2),
      args => DateToChar(args(0), args(1))),
    ("REGEX_REPLACE", "REGEX_REPLACE(original, regex, replacement, startPosition, occurrence) - `original` " +
      "with the `occurrence`-th match of the Java regular expression `regex` (every match when 0) at or " +
      "after character `startPosition` (from 1) replaced by `replacement` (as Java's replaceAll reads it).",
      Seq(5), args => RegexReplace(args)),
    ("CURRENT_ROW_TIMESTAMP", "CURRENT_ROW_TIMESTAMP - the time when the row is computed (CURRENT_TIMESTAMP " +
      "is the time the query or micro-batch started); also written without parentheses.", Seq(0),
      _ => CurrentRowTimestamp()),
    ("REGEX_LOG_PARSE", "REGEX_LOG_PARSE(string, regex) - a row of the groups of the Java regular expression " +
      "`regex` (a constant), COLUMN1 to COLUMNn, when it matches the whole string; NULL when it does not.", Seq(2),
      args => RegexLogParse(args(0), args(1))),
    ("VARIABLE_COLUMN_LOG_PARSE", "VARIABLE_COLUMN_LOG_PARSE(string, columns, delimiter [, escape [, quote]]) - " +
      "`string` split at `delimiter` into a row: `columns` is a count (COLUMN1 to COLUMNn) or a list " +
      "'name TYPE type, ...'.", Seq(3, 4, 5),
      args => VariableColumnLogParse(args)),
    ("MONOTONIC", "MONOTONIC(expr) - `expr` itself (Kinesis Data Analytics declares with it that `expr` " +
      "only grows; Spark needs no such declaration).", Seq(1),
      args => args.head)
  )

  /** What `SparkSessionExtensions.injectFunction` takes, one per function. */
  def registrations: Seq[(FunctionIdentifier, ExpressionInfo, FunctionBuilder)] = functions.map {
    case (name, usage, arities, build) =>
      val info = new ExpressionInfo(classOf[KdaFunctions.type].getName.stripSuffix("$"), null, name.toLowerCase,
        usage, "", "", "", "", "", "", "built-in")
      val checked: FunctionBuilder = args => {
        if (!arities.contains(args.size)) throw QueryCompilationErrors.wrongNumArgsError(name, arities, args.size)
        build(args)
      }
      (FunctionIdentifier(name.toLowerCase), info, checked)
  }
}

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
 * KDA's `REGEX_REPLACE(original, regex, replacement, startPosition, occurrence)`: Java's
 * `replaceAll` from character `startPosition` (1-based; past the end, `original` is returned) of
 * every match (`occurrence` 0) or of the `occurrence`-th match only. A position below 1 or a
 * negative occurrence is an error naming the value; NULL in any argument gives NULL.
 */
case class RegexReplace(children: Seq[Expression]) extends Expression with ImplicitCastInputTypes with CodegenFallback {
  override def inputTypes: Seq[AbstractDataType] = Seq(StringType, StringType, StringType, IntegerType, IntegerType)
  override def dataType: DataType = StringType
  override def nullable: Boolean = true
  override def prettyName: String = "regex_replace"

  @transient private var lastRegex: UTF8String = _
  @transient private var lastPattern: Pattern = _

  override def eval(input: org.apache.spark.sql.catalyst.InternalRow): Any = {
    val values = children.map(_.eval(input))
    if (values.contains(null)) return null
    val original = values(0).toString
    val start = values(3).asInstanceOf[Int]
    val occurrence = values(4).asInstanceOf[Int]
    if (start < 1) throw new IllegalArgumentException(
      s"REGEX_REPLACE: the start position is $start; it must be 1 (the first character) or more")
    if (occurrence < 0) throw new IllegalArgumentException(
      s"REGEX_REPLACE: the occurrence is $occurrence; it must be 0 (every match) or more")
    if (start > original.length) return values(0)
    val regex = values(1).asInstanceOf[UTF8String]
    if (lastPattern == null || lastRegex != regex) {
      lastPattern = Pattern.compile(regex.toString)
      lastRegex = regex.clone()
    }
    val m = lastPattern.matcher(original)
    m.region(start - 1, original.length)
    val replacement = values(2).toString
    // appendReplacement copies the text since the last replaced match (skipped matches included),
    // then the replacement; appendTail the rest.
    val out = new java.lang.StringBuilder(original.length)
    var count = 0
    var more = m.find()
    while (more) {
      count += 1
      if (occurrence == 0 || count == occurrence) m.appendReplacement(out, replacement)
      more = (occurrence == 0 || count < occurrence) && m.find()
    }
    m.appendTail(out)
    UTF8String.fromString(out.toString)
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): RegexReplace =
    copy(children = newChildren)
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
 * an application divides by 1000 and would silently be 1000 times off. With any other argument
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

/**
 * `a / b` in a streaming query block, until the operands' types are known. KDA's reference
 * ("Streaming SQL Operators"): operands of one type give that type, so `5/2` is 2, not 2.5; of
 * different types, the more precise one. Two whole numbers divide to a whole number (truncated
 * toward zero, as Java divides), of the wider operand's type; anything else is Spark's division.
 */
case class KdaDivide(left: Expression, right: Expression) extends BinaryExpression with Unevaluable {
  override lazy val resolved: Boolean = false
  override def dataType: DataType = throw new UnresolvedException("dataType")
  override def nullable: Boolean = true
  override def sql: String = s"(${left.sql} / ${right.sql})"
  override def toString: String = s"($left / $right)"

  def decide: Expression = CurrentOrigin.withOrigin(origin) {
    (left.dataType, right.dataType) match {
      case (l: IntegralType, r: IntegralType) =>
        val wider = if (l.defaultSize >= r.defaultSize) l else r
        new KdaIntegerDivide(left, right, wider)
      case _ => org.apache.spark.sql.catalyst.expressions.Divide(left, right)
    }
  }

  override protected def withNewChildrenInternal(l: Expression, r: Expression): KdaDivide = copy(left = l, right = r)
}

/** KDA's division of two whole numbers: Spark's `div`, in the wider operand's type. */
case class KdaIntegerDivide(left: Expression, right: Expression, replacement: Expression)
  extends RuntimeReplaceable with InheritAnalysisRules {
  def this(left: Expression, right: Expression, resultType: DataType) = this(left, right,
    Cast(org.apache.spark.sql.catalyst.expressions.IntegralDivide(Cast(left, LongType), Cast(right, LongType)), resultType))
  override def parameters: Seq[Expression] = Seq(left, right)
  override def makeSQLString(childrenSQL: Seq[String]): String = childrenSQL.mkString("(", " / ", ")")
  override protected def withNewChildInternal(newChild: Expression): KdaIntegerDivide = copy(replacement = newChild)
}

/** Analysis of [[KdaTimeCall]]s and [[KdaDivide]]s: each decided once its arguments are resolved. */
object ResolveKdaCalls extends org.apache.spark.sql.catalyst.rules.Rule[org.apache.spark.sql.catalyst.plans.logical.LogicalPlan] {
  override def apply(plan: org.apache.spark.sql.catalyst.plans.logical.LogicalPlan)
      : org.apache.spark.sql.catalyst.plans.logical.LogicalPlan =
    plan.resolveExpressions {
      case k: KdaTimeCall if k.child.resolved => k.decide
      case d: KdaDivide if d.left.resolved && d.right.resolved => d.decide
    }
}

/**
 * KDA's `REGEX_LOG_PARSE(string, regex)`: a row of the regular expression's groups, `COLUMN1` to
 * `COLUMNn` (VARCHAR), when the whole string matches the Java regular expression `regex`; NULL
 * when it does not. `regex` must be a constant: it decides the row's columns.
 */
case class RegexLogParse(left: Expression, right: Expression)
  extends BinaryExpression with ImplicitCastInputTypes with CodegenFallback {
  override def inputTypes: Seq[AbstractDataType] = Seq(StringType, StringType)
  override def nullable: Boolean = true
  override def prettyName: String = "regex_log_parse"

  @transient private lazy val pattern: Pattern = Pattern.compile(right.eval().toString)

  override def checkInputDataTypes(): TypeCheckResult = {
    val types = super.checkInputDataTypes()
    if (types.isFailure) types
    else if (!right.foldable || right.eval() == null) TypeCheckResult.TypeCheckFailure(
      "REGEX_LOG_PARSE takes its regular expression as a constant string: its groups are the row's columns")
    else try { Pattern.compile(right.eval().toString); TypeCheckResult.TypeCheckSuccess } catch {
      case e: java.util.regex.PatternSyntaxException => TypeCheckResult.TypeCheckFailure(
        s"REGEX_LOG_PARSE: '${right.eval()}' is not a Java regular expression: ${e.getDescription}")
    }
  }

  override def dataType: DataType =
    StructType((1 to pattern.matcher("").groupCount()).map(i => StructField(s"COLUMN$i", StringType)))

  override protected def nullSafeEval(s: Any, r: Any): Any = {
    val m = pattern.matcher(s.toString)
    if (!m.matches()) null
    else new GenericInternalRow((1 to m.groupCount()).map(i => UTF8String.fromString(m.group(i)): Any).toArray)
  }

  override protected def withNewChildrenInternal(l: Expression, r: Expression): RegexLogParse = copy(left = l, right = r)
}

/**
 * KDA's `VARIABLE_COLUMN_LOG_PARSE(string, columns, delimiter [, escape [, quote]])`: `string` split
 * at each `delimiter` (a string, taken literally) into a row. `columns` is a count (`COLUMN1` to
 * `COLUMNn`, VARCHAR) or a constant list `'name TYPE type [NOT NULL], ...'`, each field cast to its
 * type. `escape` before a delimiter keeps it in the field; text between the `quote` characters (one:
 * the same opens and closes; two: begin and end) is one field, delimiters and all, without its
 * quotes. Missing fields are NULL; fields past the last column are dropped.
 */
case class VariableColumnLogParse(children: Seq[Expression], timeZoneId: Option[String] = None)
  extends Expression with TimeZoneAwareExpression with CodegenFallback {
  override def nullable: Boolean = true
  override def prettyName: String = "variable_column_log_parse"
  override def withTimeZone(timeZoneId: String): VariableColumnLogParse = copy(timeZoneId = Option(timeZoneId))

  private def constant(i: Int): Option[Any] =
    if (children.size > i && children(i).foldable) Option(children(i).eval()) else None

  @transient private lazy val columns: Seq[StructField] = constant(1) match {
    case Some(n: Int) => (1 to n).map(i => StructField(s"COLUMN$i", StringType))
    case Some(n: Long) => (1 to n.toInt).map(i => StructField(s"COLUMN$i", StringType))
    case Some(list: UTF8String) => VariableColumnLogParse.columnList(list.toString)
    case _ => Nil
  }

  override def checkInputDataTypes(): TypeCheckResult = {
    val fail = (m: String) => TypeCheckResult.TypeCheckFailure(s"VARIABLE_COLUMN_LOG_PARSE: $m")
    if (children.size < 3 || children.size > 5) fail("takes (string, columns, delimiter [, escape [, quote]])")
    else if (!children.zipWithIndex.forall { case (c, i) => i == 1 || c.dataType == StringType || c.dataType == NullType })
      fail("the string, the delimiter, the escape and the quote are strings")
    else if (constant(1).isEmpty) fail("the columns must be a constant: a count, or a list such as 'A TYPE VARCHAR(8), B TYPE INTEGER'")
    else try { columns; TypeCheckResult.TypeCheckSuccess } catch { case e: IllegalArgumentException => fail(e.getMessage) }
  }

  override def dataType: DataType = StructType(columns)

  @transient private lazy val casts: Seq[Expression] = columns.zipWithIndex.map { case (f, i) =>
    val ref = org.apache.spark.sql.catalyst.expressions.BoundReference(i, StringType, nullable = true)
    if (f.dataType == StringType) ref else Cast(ref, f.dataType, timeZoneId)
  }

  override def eval(input: org.apache.spark.sql.catalyst.InternalRow): Any = {
    val s = children.head.eval(input)
    if (s == null) return null
    def str(i: Int): Option[String] = if (children.size > i) Option(children(i).eval(input)).map(_.toString) else None
    val delimiter = str(2).getOrElse(return null)
    val fields = VariableColumnLogParse.split(s.toString, delimiter, str(3).filter(_.nonEmpty).map(_.charAt(0)),
      str(4).filter(_.nonEmpty))
    val strings = new GenericInternalRow(columns.indices.map(i =>
      if (i < fields.size) UTF8String.fromString(fields(i)) else null).toArray[Any])
    new GenericInternalRow(casts.map(_.eval(strings)).toArray)
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): VariableColumnLogParse =
    copy(children = newChildren)
}

object VariableColumnLogParse {
  private val Description = """(?is)\s*(?:"([^"]+)"|([^\s"]+))\s+TYPE\s+(.+?)(\s+NOT\s+NULL)?\s*""".r

  /** `'name TYPE type [NOT NULL], ...'` as fields (CHAR and VARCHAR as Spark's STRING). */
  def columnList(list: String): Seq[StructField] = {
    val parts = new scala.collection.mutable.ArrayBuffer[String]()
    var depth = 0
    var start = 0
    list.indices.foreach { i =>
      list.charAt(i) match {
        case '(' => depth += 1
        case ')' => depth -= 1
        case ',' if depth == 0 => parts += list.substring(start, i); start = i + 1
        case _ =>
      }
    }
    parts += list.substring(start)
    parts.toSeq.map {
      case Description(quoted, plain, typ, notNull) =>
        val t = try org.apache.spark.sql.catalyst.parser.CatalystSqlParser.parseDataType(typ.trim) catch {
          case _: Exception => throw new IllegalArgumentException(
            s"'${typ.trim}' is not a data type (such as VARCHAR(16), INTEGER, DOUBLE or TIMESTAMP)")
        }
        StructField(Option(quoted).getOrElse(plain), org.apache.spark.sql.catalyst.util.CharVarcharUtils
          .replaceCharVarcharWithString(t), nullable = true)
      case other => throw new IllegalArgumentException(
        s"'${other.trim}' is not a column description: write name TYPE type [NOT NULL]")
    }
  }

  /** `s` split at `delimiter`, honouring `escape` and `quote` (one or two characters). */
  def split(s: String, delimiter: String, escape: Option[Char], quote: Option[String]): Seq[String] = {
    val out = new scala.collection.mutable.ArrayBuffer[String]()
    val field = new java.lang.StringBuilder
    val open = quote.map(_.charAt(0))
    val close = quote.map(q => q.charAt(q.length - 1))
    var quoted = false
    var i = 0
    while (i < s.length) {
      val ch = s.charAt(i)
      if (escape.contains(ch) && i + 1 < s.length) { field.append(s.charAt(i + 1)); i += 2 }
      else if (quoted) { if (close.contains(ch)) quoted = false else field.append(ch); i += 1 }
      else if (open.contains(ch)) { quoted = true; i += 1 }
      else if (delimiter.nonEmpty && s.startsWith(delimiter, i)) { out += field.toString; field.setLength(0); i += delimiter.length }
      else { field.append(ch); i += 1 }
    }
    out += field.toString
    out.toSeq
  }
}
