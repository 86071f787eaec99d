package io.overjoin.parser

import scala.collection.mutable.ArrayBuffer

import io.overjoin.model.{JoinInfo, JoinWindow, CursorCall, StreamInput, WindowTvf}

/** What the parser collects about one query block while it reads it. */
private[parser] final class BlockBuilder(val sel: Int, val end: Int) {
  val inputs = ArrayBuffer.empty[InputBuilder]
  val joins = ArrayBuffer.empty[JoinInfo]
  val blanks = ArrayBuffer.empty[(Int, Int)]
  val onRanges = ArrayBuffer.empty[(Int, Int)]
  var dialect = false
  /** s-Server's t-sort, `ORDER BY key WITHIN interval`: the interval's microseconds. */
  var sortWithin: Option[Long] = None
  /** Errors that only count when the block turns out to be overjoin's (CROSS JOIN ... ON is Spark's own otherwise). */
  val pending = ArrayBuffer.empty[() => Nothing]
}

/** What the parser collects about one join input while it reads it. */
private[parser] final class InputBuilder(val relStart: Int, val relEnd: Int, val source: String) {
  var alias: Option[String] = None
  var window: Option[JoinWindow] = None
  var windowName: Option[Token] = None
  var windowStart: Option[Int] = None
  var overAt: Option[Int] = None
  var specRange: Option[(Int, Int)] = None
  var streamKeyword = false
  var within: Option[(Long, Int)] = None
  var lookup = false
  var windowFunction = false
  var asofRight = false
  var asofTime: Option[String] = None
  var tvf: Option[WindowTvf] = None
  var cursorCall: Option[CursorCall] = None

  /** How the query calls the input: its alias, else the last part of its name. */
  def name: String = alias.getOrElse(
    Lexer.tokenize(source).toOption.flatMap(_.lastOption)
      .filter(t => t.isIdentifier || t.kind == TokenKind.DoubleQuoted).map(_.identifier)
      .getOrElse(source))

  /** How errors name the input: `alias (source)`, or its source when it has no other name. */
  def displayName: String = StreamInput.display(alias, source)
}
