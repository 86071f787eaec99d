package io.overjoin.parser

import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.catalyst.trees.Origin

import io.overjoin.errors.OverjoinErrors

/**
 * Parsers recurse once per level of parentheses: overjoin's scanner, and Spark's own parser on
 * the text overjoin hands it. Neither may end in a `StackOverflowError`.
 */
object DeepStack {
  private val StackBytes = 64L * 1024 * 1024

  /**
   * Spark's parser gives up near 1,500 levels, and spends seconds before it does (measured on this
   * version): a statement of overjoin's nested deeper than this is refused at once.
   */
  private val MaxOwnedDepth = 1000

  /**
   * `f` (overjoin's own scanning), retried on a thread with a large stack when the caller's is too
   * small, so that overjoin never refuses a statement Spark could read; one still too deep is OJ002.
   */
  def run[T](sql: String)(f: => T): T = {
    try f
    catch {
      case _: StackOverflowError =>
        @volatile var result: Either[Throwable, T] = Left(new IllegalStateException("not run"))
        val worker = new Thread(null, () => { result = try Right(f) catch { case e: Throwable => Left(e) } },
          "overjoin-deep-parse", StackBytes)
        worker.start()
        worker.join()
        result match {
          case Right(value) => value
          case Left(_: StackOverflowError) =>
            throw OverjoinErrors.tooComplex(sql, depth(sql))
          case Left(e) => throw e
        }
    }
  }

  /**
   * `f` (Spark's parser on the text overjoin hands it): ANTLR's prediction can overflow the stack
   * where Spark does not catch it, and a larger stack only trades that for heap. OJ002 instead.
   */
  def refuse[T](sql: String)(f: => T): T =
    if (depth(sql) > MaxOwnedDepth) {
      throw OverjoinErrors.tooComplex(sql, depth(sql))
    } else try f
    catch {
      case _: StackOverflowError =>
        throw OverjoinErrors.tooComplex(sql, depth(sql))
    }

  /**
   * `f` (Spark's parser on a plain statement): where Spark lets a `StackOverflowError` out of its
   * parser, give Spark's own error for a statement too complex to parse instead.
   */
  def sparks[T](sql: String)(f: => T): T =
    try f
    catch {
      case _: StackOverflowError =>
        throw new ParseException(Some(sql), Origin(), "FAILED_TO_PARSE_TOO_COMPLEX", Map.empty[String, String])
    }

  /** The deepest nesting of parentheses in `sql`, for the error message. */
  def depth(sql: String): Int = {
    var d = 0
    var deepest = 0
    sql.foreach { c => if (c == '(') { d += 1; deepest = math.max(deepest, d) } else if (c == ')') d -= 1 }
    deepest
  }
}
