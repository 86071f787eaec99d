package io.overjoin.parser

import scala.collection.mutable.ArrayBuffer

import io.overjoin.errors.{OverjoinErrors, TextSpan}

/**
 * One statement's tokens, with what every production of the parser needs to walk them: the
 * matching parenthesis of each `(`, depth-0 searches, and errors positioned on the user's text.
 */
private[parser] final class TokenCursor(val sql: String, val tokens: IndexedSeq[Token]) {
  val n: Int = tokens.length

  private val closeOf: Array[Int] = {
    val a = Array.fill(n)(-1)
    val stack = scala.collection.mutable.Stack.empty[Int]
    tokens.indices.foreach { i =>
      if (tokens(i).isSymbol("(")) stack.push(i)
      else if (tokens(i).isSymbol(")") && stack.nonEmpty) a(stack.pop()) = i
    }
    a
  }

  private val openOf: Array[Int] = {
    val a = Array.fill(n)(-1)
    closeOf.indices.foreach(i => if (closeOf(i) >= 0) a(closeOf(i)) = i)
    a
  }

  def apply(i: Int): Token = tokens(i)

  /** The index of the `(` matching the `)` at `i`, or -1. */
  def opening(i: Int): Int = openOf(i)

  /** Every parenthesis has its match: otherwise the text is not SQL, and Spark's parser says so. */
  def balanced: Boolean = {
    var depth = 0
    tokens.forall { t =>
      if (t.isSymbol("(")) depth += 1 else if (t.isSymbol(")")) depth -= 1
      depth >= 0
    } && depth == 0
  }

  /** The index of the `)` matching the `(` at `i`, or `limit` when it is not before `limit`. */
  def close(i: Int, limit: Int): Int = {
    val c = closeOf(i)
    if (c < 0 || c >= limit) limit else c
  }

  /** The index of the `)` matching the `(` at `i`, or -1. */
  def matching(i: Int): Int = closeOf(i)

  /** Whether token `i` is a `(` that opens a subquery (another query block) before `to`. */
  def opensSubquery(i: Int, to: Int): Boolean =
    tokens(i).isSymbol("(") && i + 1 < to && tokens(i + 1).isWordIn(Keywords.QueryStarts)

  /** Index of the first depth-0 token in [from, to) satisfying `p`, or `to`. */
  def findAtDepth0(from: Int, to: Int)(p: Int => Boolean): Int = {
    var i = from
    while (i < to) {
      if (p(i)) return i
      if (tokens(i).isSymbol("(")) i = close(i, to) + 1 else i += 1
    }
    to
  }

  /** The ranges between depth-0 commas of [from, to). */
  def splitAtCommas(from: Int, to: Int): Seq[(Int, Int)] = {
    val out = ArrayBuffer.empty[(Int, Int)]
    var s = from
    var i = from
    while (i < to) {
      if (tokens(i).isSymbol(",")) { if (i > s) out += ((s, i)); s = i + 1; i += 1 }
      else if (tokens(i).isSymbol("(")) i = close(i, to) + 1
      else i += 1
    }
    if (to > s) out += ((s, to))
    out.toSeq
  }

  def isName(t: Token): Boolean =
    t.kind == TokenKind.Word || t.kind == TokenKind.BackQuoted || t.kind == TokenKind.DoubleQuoted

  def tokenAt(offset: Int): Token = tokens.find(_.start == offset).get

  /** The user's text of tokens [from, to). */
  def text(from: Int, to: Int): String = sql.substring(tokens(from).start, tokens(to - 1).end)

  def span(t: Token): TextSpan = TextSpan(sql, t.start, t.end)
  def span(from: Token, to: Token): TextSpan = TextSpan(sql, from.start, to.end)

  /** A syntax error at token `i` (or at the end of the statement): `expected ...`. */
  def syntax(i: Int, expected: String, atEnd: Boolean = false): Nothing = {
    if (i >= n) throw OverjoinErrors.syntax(TextSpan(sql, sql.length, sql.length), "end of input", expected)
    val t = tokens(i)
    throw OverjoinErrors.syntax(span(t), shown(t), expected)
  }

  /** A token as an error names it: a string literal as written (it has its quotes already), else quoted. */
  def shown(t: Token): String = if (t.kind == TokenKind.Str) t.text else s"'${t.text}'"


  /** The contents of a quoted literal, without its prefix and quotes. */
  def unquote(s: String): String = {
    val q = s.indexWhere(c => c == '\'' || c == '"')
    s.substring(q + 1, s.length - 1)
  }
}

/** The words the parser decides by. */
private[parser] object Keywords {
  val SetOperators: Set[String] = Set("UNION", "INTERSECT", "EXCEPT", "MINUS")
  val ClauseWords: Set[String] = Set("WHERE", "GROUP", "HAVING", "QUALIFY", "ORDER", "SORT", "CLUSTER",
    "DISTRIBUTE", "LIMIT", "OFFSET", "LATERAL", "WINDOW")
  val AfterWindowClause: Set[String] = Set("ORDER", "SORT", "CLUSTER", "DISTRIBUTE", "LIMIT", "OFFSET", "QUALIFY")
  val JoinWords: Set[String] = Set("JOIN", "INNER", "CROSS", "LEFT", "RIGHT", "FULL", "OUTER", "SEMI", "ANTI",
    "NATURAL", "ASOF")
  /** Words that end a relation rather than alias it. */
  val NotAnAlias: Set[String] = JoinWords ++ ClauseWords ++ SetOperators ++ Set("ON", "USING",
    "OVER", "AS", "FOR", "WATERMARK", "TABLESAMPLE", "PIVOT", "UNPIVOT", "SELECT", "FROM",
    "WITH", "VALUES", "STREAM", "JOIN")
  /** Words that open a subquery after `(`. */
  val QueryStarts: Set[String] = Set("SELECT", "WITH", "VALUES", "FROM", "TABLE")
}
