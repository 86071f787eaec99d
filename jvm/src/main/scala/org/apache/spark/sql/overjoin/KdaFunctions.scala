package org.apache.spark.sql.overjoin

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry.FunctionBuilder
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo
import org.apache.spark.sql.errors.QueryCompilationErrors

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
    ("W3C_LOG_PARSE", "W3C_LOG_PARSE(string, format) - a web server's log line read by its Apache log " +
      "`format` (a constant: COMMON, COMMON WITH VHOST, NCSA EXTENDED, REFERER, AGENT, or the format itself, " +
      "such as '%h %l %u %t \"%r\" %>s %b') into a row, COLUMN1 to COLUMNn, one per specifier; NULL when it " +
      "does not follow the format.", Seq(2),
      args => W3cLogParse(args(0), args(1))),
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
