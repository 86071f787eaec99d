package io.overjoin.parser

import scala.collection.mutable.ArrayBuffer

/** The kinds of token overjoin's structural parser needs to tell apart. */
sealed trait TokenKind
object TokenKind {
  /** An unquoted word: identifier or keyword. */
  case object Word extends TokenKind
  /** `back-quoted` identifier. */
  case object BackQuoted extends TokenKind
  /** "double-quoted": a string for Spark by default, an identifier for s-Server. */
  case object DoubleQuoted extends TokenKind
  /** 'single-quoted' string (also r'raw', X'hex' and other prefixed forms). */
  case object Str extends TokenKind
  /** A number, with any letters glued to it: `10`, `1.5e3`, `10L`, `5s`, `500ms`. */
  case object Number extends TokenKind
  /** A parameter marker: `?` or `:name`. */
  case object Param extends TokenKind
  /** Punctuation and operators. */
  case object Symbol extends TokenKind
}

/**
 * One token of the user's SQL text. `start` and `end` are character offsets into that text
 * (end exclusive), so a token always points back at what the user wrote.
 */
final case class Token(kind: TokenKind, text: String, start: Int, end: Int) {
  def isWord(w: String): Boolean = kind == TokenKind.Word && text.equalsIgnoreCase(w)
  def isWordIn(ws: Set[String]): Boolean = kind == TokenKind.Word && ws.contains(text.toUpperCase)
  def isSymbol(s: String): Boolean = kind == TokenKind.Symbol && text == s
  def isIdentifier: Boolean = kind == TokenKind.Word || kind == TokenKind.BackQuoted
  def upper: String = text.toUpperCase

  /** The identifier this token names, without quotes. */
  def identifier: String = kind match {
    case TokenKind.BackQuoted => text.substring(1, text.length - 1).replace("``", "`")
    case TokenKind.DoubleQuoted => text.substring(1, text.length - 1).replace("\"\"", "\"")
    case _ => text
  }
}

/**
 * A small SQL lexer for Spark's lexical rules: enough to find words, parentheses and commas while
 * never looking inside string literals, comments or quoted identifiers.
 *
 * It is deliberately forgiving: text it does not understand becomes a one-character symbol and is
 * left for Spark's own parser to judge. Only an unterminated string, quoted identifier or comment
 * is reported, because what follows it cannot be tokenized.
 */
object Lexer {

  final case class Unterminated(what: String, start: Int)

  def tokenize(sql: String): Either[Unterminated, IndexedSeq[Token]] = {
    val out = ArrayBuffer.empty[Token]
    val n = sql.length
    var i = 0

    def quoted(q: Char, kind: TokenKind, backslashEscapes: Boolean, what: String): Option[Unterminated] = {
      val s = i
      i += 1
      var closed = false
      while (i < n && !closed) {
        val c = sql.charAt(i)
        if (backslashEscapes && c == '\\' && i + 1 < n) i += 2
        else if (c == q) {
          if (i + 1 < n && sql.charAt(i + 1) == q) i += 2 else { i += 1; closed = true }
        } else i += 1
      }
      if (!closed) Some(Unterminated(what, s))
      else { out += Token(kind, sql.substring(s, i), s, i); None }
    }

    while (i < n) {
      val c = sql.charAt(i)
      if (Character.isWhitespace(c)) {
        i += 1
      } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        while (i < n && sql.charAt(i) != '\n') i += 1
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        // Spark's bracketed comments nest.
        val s = i
        var depth = 0
        var done = false
        while (i < n && !done) {
          if (sql.startsWith("/*", i)) { depth += 1; i += 2 }
          else if (sql.startsWith("*/", i)) { depth -= 1; i += 2; if (depth == 0) done = true }
          else i += 1
        }
        if (!done) return Left(Unterminated("comment", s))
      } else if (c == '\'' || c == '"') {
        val kind = if (c == '\'') TokenKind.Str else TokenKind.DoubleQuoted
        val what = if (c == '\'') "string literal" else "double-quoted string or identifier"
        quoted(c, kind, backslashEscapes = true, what) match {
          case Some(u) => return Left(u)
          case None =>
        }
      } else if (c == '`') {
        quoted('`', TokenKind.BackQuoted, backslashEscapes = false, "back-quoted identifier") match {
          case Some(u) => return Left(u)
          case None =>
        }
      } else if (Character.isLetter(c) || c == '_') {
        val s = i
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) i += 1
        val word = sql.substring(s, i)
        // Prefixed string literals: r'raw' (no escapes), X'hex', and the like.
        if (i < n && (sql.charAt(i) == '\'' || sql.charAt(i) == '"') && word.length == 1) {
          val raw = word.equalsIgnoreCase("r")
          val q = sql.charAt(i)
          val qs = i
          i = qs
          quoted(q, TokenKind.Str, backslashEscapes = !raw, "string literal") match {
            case Some(u) => return Left(u)
            case None =>
              val t = out.remove(out.length - 1)
              out += Token(TokenKind.Str, sql.substring(s, t.end), s, t.end)
          }
        } else {
          out += Token(TokenKind.Word, word, s, i)
        }
      } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(sql.charAt(i + 1)))) {
        val s = i
        def exponentSign: Boolean = {
          val ch = sql.charAt(i)
          (ch == '-' || ch == '+') && i + 1 < n && Character.isDigit(sql.charAt(i + 1)) &&
            (sql.charAt(i - 1) == 'e' || sql.charAt(i - 1) == 'E') &&
            sql.substring(s, i - 1).forall(d => Character.isDigit(d) || d == '.')
        }
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '.' ||
          sql.charAt(i) == '_' || exponentSign)) i += 1
        out += Token(TokenKind.Number, sql.substring(s, i), s, i)
      } else if (c == '?') {
        out += Token(TokenKind.Param, "?", i, i + 1); i += 1
      } else if (c == ':' && i + 1 < n && (Character.isLetter(sql.charAt(i + 1)) || sql.charAt(i + 1) == '_') &&
        !(out.nonEmpty && out.last.isSymbol(":") && out.last.end == i)) {
        val s = i
        i += 1
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) i += 1
        out += Token(TokenKind.Param, sql.substring(s, i), s, i)
      } else {
        val op = Operators.find(o => sql.startsWith(o, i)).getOrElse(c.toString)
        out += Token(TokenKind.Symbol, op, i, i + op.length)
        i += op.length
      }
    }
    Right(out.toIndexedSeq)
  }

  // Longest first, so that `<=>` wins over `<=`.
  private val Operators: Seq[String] =
    Seq("<=>", "|>", "::", "<=", ">=", "<>", "!=", "==", "||", "->", "=>", "<<", ">>")
}
