package io.overjoin.parser

import scala.collection.mutable.ArrayBuffer

import io.overjoin.errors.OverjoinErrors
import io.overjoin.model.{JoinInfo, JoinKind}
import io.overjoin.parser.Keywords.JoinWords

/**
 * The production `from_item` of docs/syntax.md: join inputs and the joins between them, with
 * their conditions and Lenses' `WITHIN`, left-deep.
 */
private[parser] final class JoinParser(c: TokenCursor, inputs: InputParser, intervals: IntervalParser) {
  import c.tokens

  def from(b: BlockBuilder, from: Int, to: Int): Unit = {
    var i = inputs.input(b, from, to)
    while (i > 0 && i < to) {
      val t = tokens(i)
      if (t.isSymbol(",")) {
        b.joins += JoinInfo(t.start, JoinKind.Comma, natural = false, asof = false, b.inputs.size, None)
        i = inputs.input(b, i + 1, to)
      } else {
        i = join(b, i, to)
      }
    }
  }

  /** One `<join words> JOIN input [ON ... | USING (...)] [WITHIN ...]`; returns the next index, -1 to stop. */
  private def join(b: BlockBuilder, opStart: Int, to: Int): Int = {
    var i = opStart
    val words = ArrayBuffer.empty[Token]
    while (i < to && tokens(i).isWordIn(JoinWords) && !tokens(i).isWord("JOIN") &&
      !(i + 1 < to && tokens(i + 1).isSymbol("("))) { words += tokens(i); i += 1 }
    if (i >= to || !tokens(i).isWord("JOIN")) return -1 // not a join we follow: Spark's business
    val kind = JoinKind.of(words.map(_.upper).toSeq)
    val asof = words.exists(_.isWord("ASOF"))
    if (asof) {
      b.dialect = true
      val w = words.find(_.isWord("ASOF")).get
      b.blanks += ((w.start, w.end))
    }
    val rightIndex = b.inputs.size
    if (asof) b.inputs.lastOption.flatMap(l => l.windowStart.map(ws => (l, ws))).foreach { case (l, ws) =>
      inputs.notAJoinInput(c.tokenAt(ws), l, "an ASOF join takes no window")
    }
    i = inputs.input(b, i + 1, to, asofRight = asof)
    if (i < 0) return -1
    val right = b.inputs(rightIndex)
    var within: Option[Long] = right.within.map(_._1)
    if (i < to && tokens(i).isWord("ON")) {
      val condEnd = c.findAtDepth0(i + 1, to)(k => endsCondition(k, to))
      b.onRanges += ((i + 1, condEnd))
      if (kind == JoinKind.Cross) { val on = tokens(i); b.pending += (() => crossCondition(on)) }
      if (asof) {
        // The inequality's columns are the inputs' rowtimes when they declare none.
        asofCondition(i, condEnd, right.displayName).foreach { case (q, col) =>
          Seq(b.inputs(rightIndex - 1), right).find(_.name.equalsIgnoreCase(q))
            .foreach(in => if (in.asofTime.isEmpty) in.asofTime = Some(col))
        }
      }
      i = condEnd
    } else if (i + 1 < to && tokens(i).isWord("USING") && tokens(i + 1).isSymbol("(")) {
      if (kind == JoinKind.Cross) { val using = tokens(i); b.pending += (() => crossCondition(using)) }
      if (asof) asofCondition(i, i, right.displayName)
      i = c.close(i + 1, to) + 1
    }
    if (i < to && inputs.isWithinClause(i, to)) {
      if (within.isDefined) c.syntax(i, "one WITHIN per join (this join has one already)")
      if (asof) inputs.notAJoinInput(tokens(i), right, "an ASOF join takes no window")
      val (micros, next) = intervals.duration(i + 1, to, WindowNames.join(right.displayName))
      b.blanks += ((tokens(i).start, tokens(next - 1).end))
      right.within = Some((micros, tokens(i).start))
      within = Some(micros)
      i = next
    }
    if (within.isDefined) b.dialect = true
    b.joins += JoinInfo(tokens(opStart).start, kind, words.exists(_.isWord("NATURAL")), asof, rightIndex, within)
    i
  }

  private def crossCondition(t: Token): Nothing =
    throw OverjoinErrors.crossJoinCondition(c.span(t), if (t.isWord("ON")) "an ON condition" else "a USING clause")

  private def endsCondition(k: Int, to: Int): Boolean = {
    val t = tokens(k)
    t.isSymbol(",") || inputs.isWithinClause(k, to) ||
      (t.isWordIn(JoinWords) && !(k + 1 < to && tokens(k + 1).isSymbol("(")))
  }

  /**
   * ASOF (docs/semantics.md §6): at least one `=` and exactly one of `<`, `<=`, `>`, `>=` among the
   * AND-ed terms of ON. Returns the `q.c` operands of the inequality as (qualifier, column).
   */
  private def asofCondition(onIdx: Int, end: Int, input: String): Seq[(String, String)] = {
    val terms = ArrayBuffer.empty[(Int, Int)]
    var s = onIdx + 1
    var i = s
    while (i < end) {
      if (tokens(i).isWord("AND")) { terms += ((s, i)); s = i + 1; i += 1 }
      else if (tokens(i).isSymbol("(")) i = c.close(i, end) + 1
      else i += 1
    }
    terms += ((s, end))
    def opsIn(f: Int, t: Int): Seq[String] = {
      val ops = ArrayBuffer.empty[String]
      var k = f
      while (k < t) {
        if (tokens(k).isSymbol("(")) k = c.close(k, t) + 1
        else { if (tokens(k).kind == TokenKind.Symbol) ops += tokens(k).text; k += 1 }
      }
      ops.toSeq
    }
    val inequality = Set("<", "<=", ">", ">=")
    val kinds = terms.toSeq.map { case (f, t) => opsIn(f, t) }
    val equalities = kinds.count(ops => ops.exists(o => o == "=" || o == "=="))
    val inequalities = kinds.count(ops => ops.exists(inequality.contains))
    if (equalities < 1 || inequalities != 1) {
      throw OverjoinErrors.asofCondition(c.span(tokens(onIdx)), input, equalities, inequalities)
    }
    terms.toSeq.zip(kinds).collect {
      case ((f, t), ops) if ops.exists(inequality.contains) =>
        (f until t - 2).collect {
          case k if c.isName(tokens(k)) && tokens(k + 1).isSymbol(".") && c.isName(tokens(k + 2)) &&
            !(k > f && tokens(k - 1).isSymbol(".")) && !(k + 3 < t && tokens(k + 3).isSymbol(".")) =>
            (tokens(k).identifier, tokens(k + 2).identifier)
        }
    }.flatten
  }
}
