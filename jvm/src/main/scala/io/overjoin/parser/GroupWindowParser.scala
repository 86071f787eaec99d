package io.overjoin.parser

import scala.collection.mutable.ArrayBuffer

import io.overjoin.errors.OverjoinErrors
import io.overjoin.model.GroupWindowCall

/**
 * The production `group_window` of docs/syntax.md: Calcite's group window functions,
 * `TUMBLE(ts, size [, TIME 'align'])`, `HOP(ts, slide, size [, TIME 'align'])` and
 * `SESSION(ts, gap)` as items of `GROUP BY`, and their auxiliary functions (`TUMBLE_START`,
 * `TUMBLE_END`, `HOP_START`, `HOP_END`, `SESSION_START`, `SESSION_END`) in the select list. None
 * is Spark SQL, so each makes its query block overjoin's (`TUMBLE`/`HOP` in `FROM` are the
 * window table functions of docs/semantics.md §7, read by [[InputParser]]).
 *
 * Spark's parser reads each call with its time argument only; the intervals and the alignment are
 * blanked (same length, so every offset stays) and kept in a [[GroupWindowCall]]:
 * {{{
 *   GROUP BY TUMBLE(o.rowtime, INTERVAL '1' HOUR), productId
 *   GROUP BY TUMBLE(o.rowtime                   ), productId
 * }}}
 * and [[io.overjoin.catalyst.parser.StreamPlanBuilder]] swaps that call for overjoin's expression.
 */
private[parser] final class GroupWindowParser(c: TokenCursor, intervals: IntervalParser) {
  import c.tokens

  /** A call, with where its name and closing parenthesis are and what Spark's parser must not read. */
  final case class Found(call: GroupWindowCall, at: Int, close: Int, blanks: Seq[(Int, Int)], args: Seq[(Int, Int)],
      values: Seq[Long])

  /** Every call in tokens [from, to) (subqueries, which are other blocks, skipped), its arguments checked. */
  def calls(from: Int, to: Int): Seq[Found] = {
    val out = ArrayBuffer.empty[Found]
    var i = from
    while (i < to) {
      val t = tokens(i)
      if (c.opensSubquery(i, to)) {
        i = c.close(i, to) + 1
      } else if (t.isWordIn(GroupWindowCall.Functions) && i + 1 < to && tokens(i + 1).isSymbol("(") &&
        !(i > 0 && tokens(i - 1).isSymbol("."))) {
        out += call(i, c.close(i + 1, to))
        // A call inside the time argument is found as the scan goes on (and refused: it is not in GROUP BY).
        i += 2
      } else i += 1
    }
    out.toSeq
  }

  private def call(at: Int, close: Int): Found = {
    val name = tokens(at).upper
    val kind = GroupWindowCall.Kinds.find(k => name == k || name.startsWith(k + "_")).get
    val role = name.stripPrefix(kind).stripPrefix("_")
    val text = c.text(at, close + 1)
    val usage = GroupWindowParser.usage(name, kind)
    val args = c.splitAtCommas(at + 2, close)
    val (min, max) = GroupWindowParser.arity(kind)
    if (args.size < min) c.syntax(close, usage)
    if (args.size > max) c.syntax(args(max)._1, usage)

    def interval(arg: (Int, Int), what: String): Long = {
      val (from, to) = arg
      val (micros, next) = intervals.duration(from, to, text)
      if (next < to) c.syntax(next, "',' or ')' after the interval")
      if (micros <= 0) throw OverjoinErrors.syntaxDetail(c.span(tokens(from), tokens(to - 1)), c.text(from, to),
        s"the $what of $name must be longer than zero")
      micros
    }
    val sizes = kind match {
      case "HOP" => Seq(interval(args(1), "slide"), interval(args(2), "size"))
      case "SESSION" => Seq(interval(args(1), "gap"))
      case _ => Seq(interval(args(1), "size"))
    }
    val (slide, size) = kind match {
      case "HOP" => (sizes.head, sizes(1))
      case "SESSION" => (0L, sizes.head)
      case _ => (sizes.head, sizes.head)
    }
    if (slide > size) {
      throw OverjoinErrors.groupWindow(c.span(tokens(args(1)._1), tokens(args(1)._2 - 1)), text,
        s"its slide ${c.text(args(1)._1, args(1)._2)} is longer than its size ${c.text(args(2)._1, args(2)._2)}, " +
          "so the rows between two windows would be in none",
        "HOP takes the slide first, then the size, as in HOP(rowtime, INTERVAL '1' HOUR, INTERVAL '3' HOUR), " +
          "which puts each row in three windows of three hours")
    }
    val align = if (args.size == max && kind != "SESSION") Some(alignment(args.last)) else None
    val offset = align.map(a => Math.floorMod(a, slide)).getOrElse(0L)
    val (first, last) = (args.head._2, close - 1)
    val found = GroupWindowCall(tokens(at).start, kind, role, text, c.text(args.head._1, args.head._2), size, slide, offset,
      args.tail.map(a => tokens(a._1).start))
    Found(found, at, close, Seq((tokens(first).start, tokens(last).end)), args, sizes ++ align.map(_ => offset))
  }

  /** `TIME 'h:mm[:ss[.f]]'`: the time of day the windows are aligned to, in microseconds. */
  private def alignment(arg: (Int, Int)): Long = {
    val (from, to) = arg
    if (!tokens(from).isWord("TIME")) c.syntax(from, GroupWindowParser.AlignmentExpected)
    if (from + 1 >= to || tokens(from + 1).kind != TokenKind.Str) c.syntax(from + 1, GroupWindowParser.AlignmentExpected)
    if (from + 2 < to) c.syntax(from + 2, "',' or ')' after the TIME literal")
    val literal = tokens(from + 1)
    GroupWindowParser.timeOfDay(c.unquote(literal.text)).getOrElse(throw OverjoinErrors.syntaxDetail(c.span(literal),
      literal.text, "a time of day such as '0:12' or '00:12:30' (the time the windows are aligned to)"))
  }

  /**
   * Where each call may be: a group function is an item of its own of the block's `GROUP BY`
   * (items [from, to) token ranges); an auxiliary function is in the select list [`selectFrom`,
   * `selectTo`) and names a window the block groups by: the same function and the same intervals
   * (its time is compared after analysis, when columns are resolved).
   */
  def checkPlaces(found: Seq[Found], selectFrom: Int, selectTo: Int, groupItems: Seq[(Int, Int)],
      sorted: Boolean): Unit = {
    val groups = found.filter(_.call.isGroup)
    groups.foreach { f =>
      if (!groupItems.contains((f.at, f.close + 1))) {
        val k = f.call.kind
        throw OverjoinErrors.groupWindow(c.span(tokens(f.at)), f.call.text,
          s"$k groups the rows of its query block, so it can only be an item of GROUP BY",
          s"Group by it (GROUP BY ${f.call.text}) and select its window with ${k}_START(...) or ${k}_END(...) " +
            "and the same arguments")
      }
    }
    // Not yet: a streaming ORDER BY reads a window's start and end columns, which a session has not.
    groups.find(f => f.call.kind == "SESSION" && sorted).foreach { f =>
      throw OverjoinErrors.groupWindow(c.span(tokens(f.at)), f.call.text,
        "its query block sorts its groups (ORDER BY), which overjoin does not do after a session window yet",
        "Sort in an outer query: SELECT * FROM (this query without ORDER BY) ORDER BY ROWTIME, ...")
    }
    found.filterNot(_.call.isGroup).foreach { f =>
      val fn = f.call.function
      val k = f.call.kind
      if (f.at < selectFrom || f.close >= selectTo) {
        throw OverjoinErrors.groupWindow(c.span(tokens(f.at)), f.call.text,
          s"$fn is the ${f.call.role.toLowerCase} of the window of a group, which only the select list can read",
          s"Select it (${f.call.text} AS window_${f.call.role.toLowerCase}) and filter or sort by that name in an outer query")
      }
      val same = groups.filter(_.call.kind == k)
      if (same.isEmpty) {
        throw OverjoinErrors.groupWindow(c.span(tokens(f.at)), f.call.text, s"its query block has no GROUP BY $k(...)",
          s"Group the block by $k${arguments(f)}, or remove $fn")
      }
      if (!same.exists(_.call.sameWindow(f.call))) {
        val g = same.head
        val differs = f.values.indices.find(i => i >= g.values.size || f.values(i) != g.values(i))
        val at = differs.map(i => c.span(tokens(f.args(i + 1)._1), tokens(f.args(i + 1)._2 - 1))).getOrElse(c.span(tokens(f.at)))
        throw OverjoinErrors.groupWindow(at, f.call.text, s"its window is not that of GROUP BY ${g.call.text}",
          s"Write the arguments of the GROUP BY's $k: $fn${arguments(g)}")
      }
    }
  }

  /** A call's text after its name: `(rowtime, INTERVAL '1' HOUR)`. */
  private def arguments(f: Found): String = f.call.text.substring(tokens(f.at).text.length)
}

private[parser] object GroupWindowParser {
  val AlignmentExpected = "a TIME literal such as TIME '0:12' (the time of day the windows are aligned to)"

  /** How many arguments each function takes, the time included. */
  def arity(kind: String): (Int, Int) = kind match {
    case "TUMBLE" => (2, 3)
    case "HOP" => (3, 4)
    case _ => (2, 2)
  }

  /** What a call of `name` takes, said when its arguments do not fit. */
  def usage(name: String, kind: String): String = kind match {
    case "TUMBLE" => s"$name(time, size [, TIME 'alignment'])"
    case "HOP" => s"$name(time, slide, size [, TIME 'alignment'])"
    case _ => s"$name(time, gap)"
  }

  private val TimeOfDay = """(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?""".r

  /** `h:mm[:ss[.f]]` as microseconds since midnight; None when it is not a time of day. */
  def timeOfDay(s: String): Option[Long] = s.trim match {
    case TimeOfDay(h, m, sec, f) if h.toInt < 24 && m.toInt < 60 && Option(sec).forall(_.toInt < 60) =>
      val fraction = Option(f).map(x => (x + "000000").take(6).toLong).getOrElse(0L)
      Some(((h.toLong * 60 + m.toLong) * 60 + Option(sec).map(_.toLong).getOrElse(0L)) * 1000000L + fraction)
    case _ => None
  }
}
