package io.overjoin.parser

import scala.collection.mutable.ArrayBuffer

import io.overjoin.errors.OverjoinErrors
import io.overjoin.model.{Replacement, SimilarToCall}

/**
 * `value [NOT] SIMILAR TO pattern [ESCAPE 'c']` (Kinesis Data Analytics' and s-Server's pattern
 * match; docs/syntax.md, "KDA and s-Server functions"), anywhere in a statement. Spark SQL has no
 * `SIMILAR TO`, so a statement holding one is overjoin's to parse.
 *
 * Spark's parser reads it as `RLIKE`, the same length and at the same offsets, and the `ESCAPE`
 * clause (which `RLIKE` does not take) blanked:
 * {{{
 *   sector SIMILAR TO '%TECH%'               ==>   sector RLIKE      '%TECH%'
 *   code NOT SIMILAR TO 'a!%%' ESCAPE '!'    ==>   code NOT RLIKE      'a!%%'
 * }}}
 * Spark's `RLike` node starts where the predicate's keywords start (`NOT`, or `SIMILAR`), which is
 * how [[io.overjoin.catalyst.parser.StreamPlanBuilder]] finds it and swaps in
 * [[org.apache.spark.sql.overjoin.SimilarTo]]. The pattern itself is checked at analysis, when
 * its value is known.
 */
private[parser] final class SimilarToParser(c: TokenCursor) {
  import c.tokens

  /** What Spark's parser must read instead of the predicate's own syntax. */
  final case class Found(call: SimilarToCall, replacements: Seq[Replacement], blanks: Seq[(Int, Int)])

  /** Every `SIMILAR TO` of the statement. */
  def calls(): Seq[Found] = {
    val out = ArrayBuffer.empty[Found]
    var i = 0
    while (i + 1 < c.n) {
      if (tokens(i).isWord("SIMILAR") && tokens(i + 1).isWord("TO")) { out += call(i); i += 2 }
      else i += 1
    }
    out.toSeq
  }

  private def call(at: Int): Found = {
    val similar = tokens(at)
    val start = if (at > 0 && tokens(at - 1).isWord("NOT")) tokens(at - 1).start else similar.start
    if (at + 2 >= c.n || ends(at + 2)) c.syntax(at + 2, "a pattern after SIMILAR TO", atEnd = at + 2 >= c.n)
    val blanks = ArrayBuffer((tokens(at + 1).start, tokens(at + 1).end))
    val esc = c.findAtDepth0(at + 2, c.n)(k => tokens(k).isWord("ESCAPE") || ends(k))
    val escape = if (esc < c.n && tokens(esc).isWord("ESCAPE")) {
      if (esc + 1 >= c.n || tokens(esc + 1).kind != TokenKind.Str) {
        c.syntax(esc + 1, "one character in quotes after ESCAPE", atEnd = esc + 1 >= c.n)
      }
      val lit = tokens(esc + 1)
      val chars = escapeChars(lit.text)
      if (chars.length != 1) {
        throw OverjoinErrors.syntaxDetail(c.span(lit), lit.text, "ESCAPE takes exactly one character, such as ESCAPE '!'")
      }
      blanks += ((tokens(esc).start, lit.end))
      Some(chars.head)
    } else None
    Found(SimilarToCall(start, escape), Seq(Replacement(similar.start, "RLIKE" + " " * (similar.text.length - 5))),
      blanks.toSeq)
  }

  /** The characters of a quoted literal as Spark reads them: `''` is a quote, `\x` is x. */
  private def escapeChars(text: String): String = {
    val body = c.unquote(text)
    if (body == "''") "'" else if (body.length == 2 && body.charAt(0) == '\\') body.substring(1) else body
  }

  /** Whether token `k` ends the predicate (so no ESCAPE of this SIMILAR TO comes after it). */
  private def ends(k: Int): Boolean = {
    val t = tokens(k)
    t.isSymbol(",") || t.isSymbol(")") || t.isSymbol(";") || t.isWordIn(SimilarToParser.EndWords)
  }
}

private[parser] object SimilarToParser {
  val EndWords: Set[String] = Keywords.ClauseWords ++ Keywords.SetOperators ++ Set("AND", "OR", "THEN", "ELSE",
    "END", "WHEN", "FROM", "AS", "IS", "SELECT", "ON", "JOIN", "SIMILAR", "LIKE", "RLIKE", "IN", "BETWEEN")
}
