package org.apache.spark.sql.overjoin

import java.util.regex.Pattern

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Cast, Expression, GenericInternalRow, ImplicitCastInputTypes, TimeZoneAwareExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{AbstractDataType, DataType, NullType, StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

// Kinesis Data Analytics' log parsers: REGEX_LOG_PARSE, VARIABLE_COLUMN_LOG_PARSE and W3C_LOG_PARSE.

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

/**
 * KDA's `W3C_LOG_PARSE(string, format)`: a web server's log line read by its Apache log format
 * into a row, one VARCHAR column per format specifier, `COLUMN1` to `COLUMNn`, each the field's
 * text as the log holds it (`%t` with its brackets, `-` where the server wrote one); NULL when
 * the line does not follow the format. `format` is a constant: a predefined name (COMMON,
 * COMMON WITH VHOST, NCSA EXTENDED, REFERER, AGENT) or the Apache format itself
 * (`'%h %l %u %t "%r" %>s %b'`). docs/syntax.md, "KDA and s-Server functions".
 */
case class W3cLogParse(left: Expression, right: Expression)
  extends BinaryExpression with ImplicitCastInputTypes with CodegenFallback {
  override def inputTypes: Seq[AbstractDataType] = Seq(StringType, StringType)
  override def nullable: Boolean = true
  override def prettyName: String = "w3c_log_parse"

  @transient private lazy val compiled: (Pattern, Int) = W3cLogParse.compile(right.eval().toString)

  override def checkInputDataTypes(): TypeCheckResult = {
    val types = super.checkInputDataTypes()
    if (types.isFailure) types
    else if (!right.foldable || right.eval() == null) TypeCheckResult.TypeCheckFailure(
      "W3C_LOG_PARSE takes its format as a constant string ('COMMON', or an Apache log format such as " +
        "'%h %l %u %t \"%r\" %>s %b'): its specifiers are the row's columns")
    else try { W3cLogParse.compile(right.eval().toString); TypeCheckResult.TypeCheckSuccess } catch {
      case e: IllegalArgumentException => TypeCheckResult.TypeCheckFailure(s"W3C_LOG_PARSE: ${e.getMessage}")
    }
  }

  override def dataType: DataType = StructType((1 to compiled._2).map(i => StructField(s"COLUMN$i", StringType)))

  override protected def nullSafeEval(s: Any, f: Any): Any = {
    val m = compiled._1.matcher(s.toString.trim)
    if (!m.matches()) null
    else new GenericInternalRow((1 to m.groupCount()).map(i => UTF8String.fromString(m.group(i)): Any).toArray)
  }

  override protected def withNewChildrenInternal(l: Expression, r: Expression): W3cLogParse = copy(left = l, right = r)
}

object W3cLogParse {
  /** KDA's predefined formats (its SQL reference, "W3C Predefined Formats"), by name. */
  val Predefined: Map[String, String] = Map(
    "COMMON" -> "%h %l %u %t \"%r\" %>s %b",
    "COMMON WITH VHOST" -> "%v %h %l %u %t \"%r\" %>s %b",
    "NCSA EXTENDED" -> "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-agent}i\"",
    "REFERER" -> "%{Referer}i -> %U",
    "AGENT" -> "%{User-agent}i")

  /** The specifier letters of Apache's mod_log_config that KDA lists. */
  private val Letters = "aABbCDefhHilmnopPqrsTtuUvVXIO".toSet

  /**
   * `format` (a predefined name or an Apache format) as a regular expression with one group per
   * specifier, and the number of groups. A field between double quotes in the format is the text up
   * to the closing quote (a `\"` inside it included); `%t` is `[...]`; a specifier with an
   * argument (`%{User-agent}i`, `%{...}t`: text that may hold spaces) is as short as lets the rest
   * of the line match (so, last, the rest of the line); any other field is text without spaces. A
   * space in the format is one or more spaces in the line.
   */
  def compile(format: String): (Pattern, Int) = {
    val name = format.trim.replaceAll("\\s+", " ").toUpperCase(java.util.Locale.ROOT)
    if (name == "IIS") throw new IllegalArgumentException(
      "the IIS format is not supported: an IIS log names its fields in its #Fields line, so read its lines with " +
        "VARIABLE_COLUMN_LOG_PARSE(line, n, ' '), n the number of fields")
    // `\"` is a quote, as Apache's LogFormat lines write the format ("%h %l %u %t \"%r\" %>s %b").
    val spec = Predefined.getOrElse(name, format.replace("\\\"", "\""))
    if (!spec.contains("%")) throw new IllegalArgumentException(
      s"'$format' is not a log format: name one of ${Predefined.keys.toSeq.sorted.mkString(", ")}, or write an " +
        "Apache log format such as '%h %l %u %t \"%r\" %>s %b'")
    val re = new StringBuilder
    var groups = 0
    var i = 0
    def literal(c: Char): Unit = if (c == ' ') re.append(" +") else re.append(Pattern.quote(c.toString))
    while (i < spec.length) {
      val c = spec.charAt(i)
      if (c != '%') { literal(c); i += 1 }
      else if (i + 1 < spec.length && spec.charAt(i + 1) == '%') { literal('%'); i += 2 }
      else {
        val start = i
        i += 1
        while (i < spec.length && "<>!,0123456789".indexOf(spec.charAt(i)) >= 0) i += 1
        var argument = false
        if (i < spec.length && (spec.charAt(i) == '{' || spec.charAt(i) == '[')) {
          val close = if (spec.charAt(i) == '{') '}' else ']'
          val end = spec.indexOf(close, i)
          if (end < 0) throw new IllegalArgumentException(
            s"the specifier at position ${start + 1} of '$spec' opens ${spec.charAt(i)} and does not close it")
          argument = true
          i = end + 1
        }
        if (i >= spec.length || !Letters(spec.charAt(i))) throw new IllegalArgumentException(
          s"'${spec.substring(start, math.min(i + 1, spec.length))}' at position ${start + 1} of '$spec' is not a " +
            "format specifier of Apache's log formats (such as %h, %t, %r, %>s, %b or %{User-agent}i)")
        val letter = spec.charAt(i)
        i += 1
        val quoted = start > 0 && spec.charAt(start - 1) == '"' && i < spec.length && spec.charAt(i) == '"'
        re.append(
          if (quoted) "((?:[^\"\\\\]|\\\\.)*)"
          else if (letter == 't' && !argument) "(\\[[^\\]]*\\])"
          else if (argument) "(.*?)"
          else "(\\S*)")
        groups += 1
      }
    }
    (Pattern.compile(re.toString, Pattern.DOTALL), groups)
  }
}
