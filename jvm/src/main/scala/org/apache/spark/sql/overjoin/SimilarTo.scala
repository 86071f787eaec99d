package org.apache.spark.sql.overjoin

import java.util.regex.{Pattern, PatternSyntaxException}

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Expression, ImplicitCastInputTypes}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{AbstractDataType, BooleanType, DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * `value SIMILAR TO pattern [ESCAPE 'c']` (Kinesis Data Analytics, s-Server and the SQL standard;
 * docs/syntax.md, "KDA and s-Server functions"): true when the whole of `value` matches `pattern`,
 * a SQL regular expression. `%` is any run of characters and `_` any one character (as in LIKE);
 * `|`, `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}`, `( )` and `[ ]` are as in regular expressions; every
 * other character, `.` `^` `$` and `\` included, is itself. With `ESCAPE 'c'`, `c` makes the
 * character after it itself. Matching is case-sensitive; NULL in, NULL out.
 *
 * overjoin's parser hands it to Spark's as `RLIKE` (same offsets), and
 * [[io.overjoin.catalyst.parser.StreamPlanBuilder]] swaps that node for this one.
 */
case class SimilarTo(left: Expression, right: Expression, escape: Option[Char] = None)
  extends BinaryExpression with ImplicitCastInputTypes with CodegenFallback {

  override def inputTypes: Seq[AbstractDataType] = Seq(StringType, StringType)
  override def dataType: DataType = BooleanType
  override def nullIntolerant: Boolean = true

  // A constant pattern is translated once; another is translated when it changes.
  @transient private lazy val constant: Option[Pattern] =
    if (right.foldable) Option(right.eval()).map(p => SimilarTo.compile(p.toString, escape)) else None
  @transient private var lastText: UTF8String = _
  @transient private var lastPattern: Pattern = _

  override def checkInputDataTypes(): TypeCheckResult = {
    val types = super.checkInputDataTypes()
    if (types.isFailure || !right.foldable) types
    else Option(right.eval()).flatMap(p => SimilarTo.problem(p.toString, escape)) match {
      case Some(problem) => TypeCheckResult.TypeCheckFailure(problem)
      case None => TypeCheckResult.TypeCheckSuccess
    }
  }

  override protected def nullSafeEval(value: Any, pattern: Any): Any = {
    val p = constant.getOrElse {
      val text = pattern.asInstanceOf[UTF8String]
      if (lastPattern == null || lastText != text) {
        lastPattern = SimilarTo.compile(text.toString, escape)
        lastText = text.clone()
      }
      lastPattern
    }
    p.matcher(value.toString).matches()
  }

  override def prettyName: String = "similar_to"
  override def toString: String = s"$left SIMILAR TO $right${escape.map(c => s" ESCAPE '$c'").getOrElse("")}"
  override def sql: String =
    s"(${left.sql} SIMILAR TO ${right.sql}${escape.map(c => s" ESCAPE '${if (c == '\'') "''" else c}'").getOrElse("")})"

  override protected def withNewChildrenInternal(newLeft: Expression, newRight: Expression): SimilarTo =
    copy(left = newLeft, right = newRight)
}

object SimilarTo {
  private val PosixClasses = Map(
    "ALPHA" -> "\\p{Alpha}", "DIGIT" -> "\\p{Digit}", "ALNUM" -> "\\p{Alnum}", "UPPER" -> "\\p{Upper}",
    "LOWER" -> "\\p{Lower}", "SPACE" -> "\\s", "WHITESPACE" -> "\\s", "PUNCT" -> "\\p{Punct}",
    "XDIGIT" -> "\\p{XDigit}")

  /** `pattern` as a Java regular expression that matches the same whole strings. */
  def toJavaRegex(pattern: String, escape: Option[Char]): String = {
    val out = new StringBuilder
    var inBracket = false
    var i = 0
    def literal(ch: Char): String =
      if (Character.isLetterOrDigit(ch) || ch == ' ' || ch == '_') ch.toString
      else if (ch < 128) "\\" + ch
      else Pattern.quote(ch.toString)
    while (i < pattern.length) {
      val ch = pattern.charAt(i)
      if (escape.contains(ch)) {
        if (i + 1 >= pattern.length) throw new IllegalArgumentException(s"it ends with the escape character '$ch'")
        out ++= literal(pattern.charAt(i + 1))
        i += 2
      } else if (inBracket) {
        if (ch == ']') { out += ']'; inBracket = false }
        else if (ch == '[' && pattern.startsWith("[:", i)) {
          val end = pattern.indexOf(":]", i + 2)
          val name = if (end < 0) "" else pattern.substring(i + 2, end).toUpperCase(java.util.Locale.ROOT)
          val cls = PosixClasses.getOrElse(name, throw new IllegalArgumentException(
            s"[:$name:] is not a character class (${PosixClasses.keys.toSeq.sorted.mkString(", ")})"))
          out ++= cls
          i = end + 1
        } else if (ch == '\\' || ch == '[' || ch == '&') out ++= "\\" + ch
        else out += ch
        i += 1
      } else {
        ch match {
          case '%' => out ++= ".*"
          case '_' => out += '.'
          case '(' => out ++= "(?:"
          case '|' | '*' | '+' | '?' | ')' | '{' | '}' => out += ch
          case '[' =>
            inBracket = true
            out += '['
            if (i + 1 < pattern.length && pattern.charAt(i + 1) == '^') { out += '^'; i += 1 }
            // A ']' right after '[' (or '[^') is a member, not the end.
            if (i + 1 < pattern.length && pattern.charAt(i + 1) == ']') { out ++= "\\]"; i += 1 }
          case other => out ++= literal(other)
        }
        i += 1
      }
    }
    if (inBracket) throw new IllegalArgumentException("a '[' is never closed by ']'")
    out.toString
  }

  /** Why `pattern` is not a SIMILAR TO pattern, or None. */
  def problem(pattern: String, escape: Option[Char]): Option[String] =
    try { compile(pattern, escape); None } catch {
      case e: IllegalArgumentException => Some(e.getMessage)
    }

  /** `pattern` compiled; an IllegalArgumentException naming the pattern and its problem if it is not one. */
  def compile(pattern: String, escape: Option[Char]): Pattern = {
    def bad(why: String) = new IllegalArgumentException(
      s"'$pattern' is not a SIMILAR TO pattern: $why. % and _ are wildcards; | * + ? {m,n} ( ) [ ] are " +
        "regular-expression operators; write ESCAPE 'c' and put c before any of them meant as itself")
    val regex = try toJavaRegex(pattern, escape) catch { case e: IllegalArgumentException => throw bad(e.getMessage) }
    try Pattern.compile(regex, Pattern.DOTALL) catch {
      case e: PatternSyntaxException => throw bad(e.getDescription.toLowerCase(java.util.Locale.ROOT))
    }
  }
}
