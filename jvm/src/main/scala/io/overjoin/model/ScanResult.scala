package io.overjoin.model

/**
 * What overjoin's parser found in one statement: the query blocks written in the streaming
 * dialect, the character ranges to blank out and the same-length replacements to make before the
 * text goes to Spark's own parser.
 *
 * Blanking (replacing characters by spaces, keeping newlines) instead of rewriting keeps every
 * other character at its place, so Spark's positions, error messages and plan origins all point at
 * the user's own text, and plan nodes can be matched to what was parsed by their start offset.
 */
final case class ScanResult(
    blocks: Seq[StreamBlock],
    blanks: Seq[(Int, Int)],
    replacements: Seq[Replacement] = Nil,
    similars: Seq[SimilarToCall] = Nil) {
  def isOurs: Boolean = blocks.nonEmpty || similars.nonEmpty

  /**
   * The text Spark's parser gets: overjoin's clauses blanked, and the few s-Server spellings Spark
   * reads differently replaced by Spark's own (a double-quoted identifier by a back-quoted one,
   * `DESCRIPTION` by `COMMENT`). Every replacement has the length of what it replaces.
   */
  def blank(sql: String): String = {
    val chars = sql.toCharArray
    replacements.foreach { r => r.text.copyToArray(chars, r.start) }
    blanks.foreach { case (s, e) =>
      var i = s
      while (i < e) { if (chars(i) != '\n' && chars(i) != '\r') chars(i) = ' '; i += 1 }
    }
    new String(chars)
  }
}

object ScanResult {
  val NotOurs: ScanResult = ScanResult(Nil, Nil)
}

/**
 * A `[NOT] SIMILAR TO` predicate, which Spark's parser reads as `RLIKE`: `start` is the offset of
 * its first keyword (`NOT` or `SIMILAR`), where Spark's `RLike` node starts too; `escape` its
 * `ESCAPE` character.
 */
final case class SimilarToCall(start: Int, escape: Option[Char])

/** Text Spark's parser reads at `start` instead of the user's, of the same length. */
final case class Replacement(start: Int, text: String)
