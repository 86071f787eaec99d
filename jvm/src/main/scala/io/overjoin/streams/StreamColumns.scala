package io.overjoin.streams

import io.overjoin.errors.{OverjoinErrors, TextSpan}
import io.overjoin.parser.{Token, TokenKind}
import io.overjoin.streams.records.JsonPath

/**
 * A stream's (or reference table's) column list as KDA and s-Server write it, read into what
 * Spark's schema parser takes and the columns' mappings (docs/server.md, "Input schemas"):
 * {{{
 *   ("ticker" VARCHAR(4) MAPPING '$.ticker_symbol', "price" DECIMAL(8,2), "note" VARCHAR)
 *     ==>  `ticker` VARCHAR(4), `price` DECIMAL(8,2), `note` STRING     mappings: ticker -> $.ticker_symbol
 * }}}
 * `"name"` is an identifier (docs/semantics.md §0); KDA's type spellings Spark lacks become Spark's:
 * `VARCHAR` without a length is `STRING`, `VARBINARY(n)`/`BINARY(n)` are `BINARY`, `CHARACTER
 * VARYING(n)` is `VARCHAR(n)`, `DOUBLE PRECISION` is `DOUBLE`. Every other word goes to Spark as
 * written, so a type Spark does not know is refused by Spark at the user's text.
 */
final case class StreamColumns(sparkText: String, mappings: Seq[(String, JsonPath)])

object StreamColumns {

  /**
   * The columns between `(` and `)` of `sql` (`tokens` are those between them; `from`/`to` the
   * offsets just inside the parentheses). A bad mapping is OVERJOIN_INPUT_SCHEMA at its text.
   */
  def parse(sql: String, tokens: Seq[Token], from: Int, to: Int, stream: String): StreamColumns = {
    val out = new StringBuilder
    val mappings = Seq.newBuilder[(String, JsonPath)]
    var at = from
    var column: Option[String] = None // the name of the column being read
    var typeWords = 0 // tokens of the column's type read so far, at depth 0
    var depth = 0
    var i = 0
    def emit(t: Token, text: String): Unit = { out ++= sql.substring(at, t.start); out ++= text; at = t.end }
    def skip(t: Token): Unit = { out ++= sql.substring(at, t.start); at = t.end }
    def next(k: Int): Option[Token] = if (i + k < tokens.length) Some(tokens(i + k)) else None
    while (i < tokens.length) {
      val t = tokens(i)
      if (t.isSymbol("(")) { depth += 1; emit(t, t.text); i += 1 }
      else if (t.isSymbol(")")) { depth -= 1; emit(t, t.text); i += 1 }
      else if (depth == 0 && t.isSymbol(",")) { column = None; typeWords = 0; emit(t, t.text); i += 1 }
      else if (depth == 0 && column.isEmpty && (t.isIdentifier || t.kind == TokenKind.DoubleQuoted)) {
        column = Some(t.identifier)
        emit(t, if (t.kind == TokenKind.DoubleQuoted) "`" + t.identifier.replace("`", "``") + "`" else t.text)
        i += 1
      } else if (depth == 0 && t.isWord("MAPPING") && column.isDefined) {
        val literal = next(1).filter(_.kind == TokenKind.Str).getOrElse(throw OverjoinErrors.inputSchema(
          TextSpan(sql, t.start, t.end), stream, s"the MAPPING of column ${column.get}",
          "is not followed by a quoted path", "write MAPPING '$.field' after the column's type"))
        val path = StreamStatementParser.unquote(literal.text)
        JsonPath.parse(path) match {
          case Right(p) => mappings += column.get -> p
          case Left((problem, offset)) =>
            val start = literal.start + 1 + math.max(0, offset)
            throw OverjoinErrors.inputSchema(TextSpan(sql, start, math.max(start + 1, literal.end - 1)), stream,
              s"the MAPPING '$path' of column ${column.get}", problem,
              "KDA reads $ (the record), .name steps and [0:] (every element of an array)")
        }
        skip(t); skip(literal); i += 2
      } else if (depth == 0 && column.isDefined && t.kind == TokenKind.Word) {
        val rewritten: Option[(String, Int)] = t.upper match {
          case "VARCHAR" | "STRING" if typeWords == 0 && !next(1).exists(_.isSymbol("(")) => Some(("STRING", 1))
          case "CHARACTER" | "CHAR" if typeWords == 0 && next(1).exists(_.isWord("VARYING")) => Some(("VARCHAR", 2))
          case "VARBINARY" | "BINARY" if typeWords == 0 =>
            // The length: BINARY values are read whole.
            if (next(1).exists(_.isSymbol("(")) && next(3).exists(_.isSymbol(")"))) Some(("BINARY", 4)) else Some(("BINARY", 1))
          case "DOUBLE" if typeWords == 0 && next(1).exists(_.isWord("PRECISION")) => Some(("DOUBLE", 2))
          case _ => None
        }
        rewritten match {
          case Some((text, count)) =>
            emit(t, text)
            (1 until count).foreach(k => skip(tokens(i + k)))
            i += count
          case None => emit(t, t.text); i += 1
        }
        typeWords += 1
      } else { emit(t, t.text); i += 1; if (column.isDefined) typeWords += 1 }
    }
    out ++= sql.substring(at, to)
    StreamColumns(out.toString, mappings.result())
  }
}
