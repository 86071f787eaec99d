package io.overjoin.parser

import io.overjoin.catalyst.JoinWindow

/**
 * What overjoin's structural parser found in one statement: the query blocks written in the
 * streaming dialect, and the character ranges that must be blanked out before the text goes to
 * Spark's own parser.
 *
 * Blanking (replacing characters by spaces, keeping newlines) instead of rewriting keeps every
 * other character at its place, so Spark's positions, error messages and plan origins all point at
 * the user's own text, and plan nodes can be matched to what we parsed by their start offset.
 */
final case class ScanResult(
    blocks: Seq[StreamBlock],
    blanks: Seq[(Int, Int)],
    replacements: Seq[Replacement] = Nil) {
  def isOurs: Boolean = blocks.nonEmpty

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

/** Text Spark's parser reads at `start` instead of the user's, of the same length. */
final case class Replacement(start: Int, text: String)

object Replacement {

  /**
   * `"a""b"` as Spark's `` `a"b` ``, padded with spaces to the original length; None when the
   * back-quoted form would be longer (a name holding back quotes).
   */
  def backQuoted(t: Token): Option[Replacement] = {
    val name = t.identifier
    val quoted = "`" + name.replace("`", "``") + "`"
    if (quoted.length > t.text.length) None
    else Some(Replacement(t.start, quoted + " " * (t.text.length - quoted.length)))
  }
}

/** A query block in the streaming dialect. `selectStart` is the offset of its SELECT. */
final case class StreamBlock(
    id: Int,
    selectStart: Int,
    selectStream: Boolean,
    inputs: Seq[StreamInput],
    joins: Seq[JoinInfo],
    rowtimeRefs: Seq[RowtimeRef])

/**
 * One input of the block's FROM clause. `start` is the offset of the relation's first token (a
 * table name, the `(` of a subquery, or a function name): Spark's plan node for the relation has
 * that same offset as its origin.
 */
final case class StreamInput(
    start: Int,
    end: Int,
    source: String,
    alias: Option[String],
    window: JoinWindow,
    windowStart: Option[Int],
    streamKeyword: Boolean,
    line: Int = 0,
    column: Int = 0,
    lookup: Boolean = false,
    asofTime: Option[String] = None,
    tvf: Option[WindowTvf] = None) {
  /** Where the input is in the user's text, for errors found after parsing. */
  def origin: org.apache.spark.sql.catalyst.trees.Origin =
    if (line <= 0) org.apache.spark.sql.catalyst.trees.Origin()
    else org.apache.spark.sql.catalyst.trees.Origin(line = Some(line), startPosition = Some(column - 1))

  /** How errors name the input: `alias (source)`, or the source alone. */
  def display: String = StreamInput.display(alias, source)

  /** How the input is called in messages and in `o.ROWTIME`: its alias, else its last name part. */
  def name: String = alias.getOrElse(
    Lexer.tokenize(source).toOption.flatMap(_.lastOption)
      .filter(t => t.isIdentifier || t.kind == TokenKind.DoubleQuoted).map(_.identifier)
      .getOrElse(source))
}

object StreamInput {
  /** `alias (source)` when the alias says something the source does not; a subquery is "subquery". */
  def display(alias: Option[String], source: String): String = {
    val shown = if (source.startsWith("(")) "subquery" else source
    alias.filterNot(_.equalsIgnoreCase(shown)).map(a => s"$a ($shown)").getOrElse(shown)
  }
}

/** A join operator between inputs `leftIndex` (the nearest input on its left) and `rightIndex`. */
final case class JoinInfo(
    start: Int,
    kind: String,
    rightIndex: Int,
    within: Option[Long],
    asof: Boolean)

/**
 * A `ROWTIME` reference in the block. Unqualified, it is the join's output rowtime; qualified
 * (`o.ROWTIME`), input `o`'s own. `start` is the offset of the reference's first token (the
 * qualifier, when there is one): Spark's `UnresolvedAttribute` for it starts there too.
 */
final case class RowtimeRef(start: Int, qualifier: Option[String], spelling: String, selectItem: Boolean)

/**
 * A `TUMBLE(s, ts, size)` or `HOP(s, ts, slide, size)` input (SEMANTICS.md section 7): windows of
 * `size` every `slide` microseconds over the time column `timeColumn`.
 */
final case class WindowTvf(kind: String, timeColumn: String, sizeMicros: Long, slideMicros: Long)
