package io.overjoin.streams.records

/**
 * A column mapping or record row path of a Kinesis Data Analytics input schema
 * (docs/server.md, "Input schemas"): KDA's JSONPath subset, `$` followed by `.name` steps and
 * `[0:]` ("every element of this array"):
 * {{{
 *   $                   the whole document
 *   $.ticker            a field (names are case-sensitive)
 *   $.trade.price       a nested field, any depth
 *   $.orders[0:]        a whole array (into a VARCHAR column: its JSON text)
 *   $.orders[0:].item   flattened: one row per element of `orders`
 * }}}
 * KDA documents no other form (`[0]`, `[1:3]`, `[*]`, `..`, filters): those are refused where the
 * mapping is declared, naming the form that works, rather than read in some other engine's way.
 */
final case class JsonPath(text: String, steps: Seq[JsonPath.Step]) {
  import JsonPath._

  /** The number of `[0:]` steps. */
  def arrays: Int = steps.count(_ == Elements)

  /** The path up to and including its `[0:]` when more steps follow it: the array it flattens. */
  def flattened: Option[JsonPath] = {
    val at = steps.indexOf(Elements)
    if (at >= 0 && at < steps.length - 1) Some(JsonPath(render(steps.take(at + 1)), steps.take(at + 1))) else None
  }

  /** `Some(rest)` when this path starts with `prefix`'s steps. */
  def after(prefix: JsonPath): Option[Seq[Step]] =
    if (steps.startsWith(prefix.steps)) Some(steps.drop(prefix.steps.length)) else None

  override def toString: String = text
}

object JsonPath {
  sealed trait Step
  final case class Field(name: String) extends Step
  case object Elements extends Step

  val Root: JsonPath = JsonPath("$", Nil)

  /** `$.name` for a column without a mapping (KDA's discovery maps a field to the column of its name). */
  def ofName(name: String): JsonPath = JsonPath("$." + name, Seq(Field(name)))

  def render(steps: Seq[Step]): String = "$" + steps.map {
    case Field(n) => "." + n
    case Elements => "[0:]"
  }.mkString

  /**
   * Reads `text`; Left(problem, offset of the problem in `text`). The problem says what KDA reads
   * instead, for the message of `OVERJOIN_INPUT_SCHEMA.MAPPING`.
   */
  def parse(text: String): Either[(String, Int), JsonPath] = {
    if (!text.startsWith("$")) return Left(("a mapping starts with $ (the record), as in '$.ticker'", 0))
    val steps = Seq.newBuilder[Step]
    var i = 1
    val n = text.length
    while (i < n) {
      text.charAt(i) match {
        case '.' =>
          val start = i + 1
          var j = start
          while (j < n && text.charAt(j) != '.' && text.charAt(j) != '[') j += 1
          val name = text.substring(start, j)
          if (name.isEmpty) return Left(("a field name is missing after '.'", i))
          if (name.exists(c => Character.isWhitespace(c) || c == ']' || c == '\'' || c == '"' || c == '*')) {
            return Left((s"'$name' is not a field name KDA reads ($$.name steps hold no spaces, quotes, * or ])", start))
          }
          steps += Field(name)
          i = j
        case '[' =>
          val close = text.indexOf(']', i)
          val inside = if (close < 0) text.substring(i + 1) else text.substring(i + 1, close)
          if (close < 0 || inside.trim != "0:") {
            return Left((s"'[${inside}${if (close < 0) "" else "]"}' is not an array form KDA reads: write [0:] " +
              "(every element; KDA has no [n], [*] or other slices)", i))
          }
          steps += Elements
          i = close + 1
        case c => return Left((s"'$c' cannot follow ${text.substring(0, i)}: write .name or [0:]", i))
      }
    }
    val path = JsonPath(text, steps.result())
    if (path.arrays > 1) {
      Left(("only one [0:] per mapping: KDA reads one level of array (such as $.orders[0:].item)", text.indexOf("[0:]", text.indexOf("[0:]") + 1)))
    } else Right(path)
  }
}
