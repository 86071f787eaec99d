package io.overjoin.parser

import scala.collection.mutable.ArrayBuffer

import io.overjoin.errors.OverjoinErrors
import io.overjoin.model.RowtimeRef

/**
 * What the parser looks for in a block's expressions, which Spark's parser reads: `ROWTIME`
 * references (docs/semantics.md §4), and window names used as input qualifiers (OJ119).
 * Subqueries are other blocks and are skipped.
 */
private[parser] final class ExpressionScanner(c: TokenCursor) {
  import c.tokens

  /** `ROWTIME` and `q.ROWTIME` (q an input of the block) in tokens [from, to). */
  def rowtimeRefs(from: Int, to: Int, inputNames: Set[String], listStart: Int, fromIdx: Int): Seq[RowtimeRef] = {
    val out = ArrayBuffer.empty[RowtimeRef]
    var i = from
    while (i < to) {
      val t = tokens(i)
      if (c.opensSubquery(i, to)) {
        i = c.close(i, to) + 1
      } else {
        if (c.isName(t) && t.identifier.equalsIgnoreCase("ROWTIME") &&
          (t.kind != TokenKind.DoubleQuoted || t.identifier == "ROWTIME") &&
          !(i > 0 && tokens(i - 1).isWord("AS")) &&
          !(i + 1 < to && (tokens(i + 1).isSymbol(".") || tokens(i + 1).isSymbol("(")))) {
          val qualified = i >= 2 && tokens(i - 1).isSymbol(".") && c.isName(tokens(i - 2)) &&
            !(i >= 3 && tokens(i - 3).isSymbol("."))
          val startIdx = if (qualified) i - 2 else i
          val unqualifiedOk = !(i > 0 && tokens(i - 1).isSymbol("."))
          val selectItem = startIdx > 0 && startIdx >= listStart && startIdx < fromIdx &&
            (startIdx == listStart || tokens(startIdx - 1).isSymbol(",") ||
              tokens(startIdx - 1).isWordIn(Set("DISTINCT", "ALL"))) &&
            (i + 1 >= to || i + 1 == fromIdx || tokens(i + 1).isSymbol(","))
          if (qualified && inputNames.contains(tokens(i - 2).identifier.toLowerCase)) {
            out += RowtimeRef(tokens(startIdx).start, Some(tokens(i - 2).identifier), t.identifier, selectItem)
          } else if (!qualified && unqualifiedOk) {
            out += RowtimeRef(t.start, None, t.identifier, selectItem)
          }
        }
        i += 1
      }
    }
    out.toSeq
  }

  /**
   * `JOIN TradeStream OVER t ... WHERE t.amount > 0`: `t` names a window, not an input, though the
   * Kinesis Data Analytics guide prints a query written so. Said before Spark's "cannot resolve".
   */
  def checkWindowNamesAsQualifiers(from: Int, to: Int, b: BlockBuilder, windowNames: Set[String],
      inputNames: Set[String]): Unit = {
    if (windowNames.isEmpty) return
    var i = from
    while (i + 2 < to) {
      val t = tokens(i)
      if (c.opensSubquery(i, to)) {
        i = c.close(i, to) + 1
      } else {
        val name = t.identifier.toLowerCase
        if (c.isName(t) && tokens(i + 1).isSymbol(".") && c.isName(tokens(i + 2)) &&
          !(i > from && tokens(i - 1).isSymbol(".")) && windowNames.contains(name) && !inputNames.contains(name)) {
          val user = b.inputs.find(_.windowName.exists(_.identifier.equalsIgnoreCase(name))).get
          throw OverjoinErrors.windowNameAsInput(c.span(t, tokens(i + 2)), t.text, c.text(i, i + 3), user.source,
            tokens(i + 2).text)
        }
        i += 1
      }
    }
  }
}
