package io.overjoin.model

/**
 * What overjoin's parser found in one query block written in the streaming dialect
 * (docs/semantics.md §0): its join inputs, the joins between them, and its `ROWTIME` references.
 * Positions are character offsets into the user's statement; Spark's plan nodes for the same
 * text carry the same offsets, which is how the two are matched.
 *
 * `selectStart` is the offset of the block's `SELECT`; `selectStream` whether it says
 * `SELECT STREAM`; `timeFloors` its `STEP`, `FLOOR ... TO` and `CEIL ... TO` calls; `slidingSpecs` and
 * `slidingCalls` the windows of its window functions and the calls that use them (§12); `stagger` its
 * `WINDOWED BY STAGGER` clause (§13); `kdaTimeCalls` the offsets of its `UNIX_TIMESTAMP(` and
 * `TO_TIMESTAMP(` calls, which mean milliseconds here, as in Kinesis Data Analytics; `ownSpans` the
 * character ranges of its expressions, its subqueries left out (a division there is KDA's);
 * `groupWindows` its Calcite group window calls (`GROUP BY TUMBLE(...)`, `TUMBLE_END(...)`, §11).
 * `sortWithin` the microseconds of s-Server's t-sort, `ORDER BY key WITHIN interval` (§11): how late
 * a row may arrive and still be sorted into place.
 */
final case class StreamBlock(
    id: Int,
    selectStart: Int,
    selectStream: Boolean,
    inputs: Seq[StreamInput],
    joins: Seq[JoinInfo],
    rowtimeRefs: Seq[RowtimeRef],
    timeFloors: Seq[TimeFloorCall] = Nil,
    slidingSpecs: Seq[SlidingSpec] = Nil,
    slidingCalls: Seq[SlidingCall] = Nil,
    stagger: Option[StaggerWindowCall] = None,
    kdaTimeCalls: Seq[Int] = Nil,
    ownSpans: Seq[(Int, Int)] = Nil,
    groupWindows: Seq[GroupWindowCall] = Nil,
    sortWithin: Option[Long] = None)

/**
 * A join between the inputs before input `rightIndex` and input `rightIndex` (left-deep).
 * `start` is the offset of its first keyword; `within` the microseconds of a Lenses `WITHIN`.
 */
final case class JoinInfo(
    start: Int,
    kind: JoinKind,
    natural: Boolean,
    asof: Boolean,
    rightIndex: Int,
    within: Option[Long])

/** The kind of a join as written; `NATURAL` and `ASOF` are flags of [[JoinInfo]]. */
sealed abstract class JoinKind(val sql: String) {
  /** The kinds that keep unmatched rows of their left side (padded with NULLs). */
  def keepsLeft: Boolean = false
  def keepsRight: Boolean = false
}

object JoinKind {
  case object Inner extends JoinKind("INNER")
  case object LeftOuter extends JoinKind("LEFT") { override def keepsLeft = true }
  case object RightOuter extends JoinKind("RIGHT") { override def keepsRight = true }
  case object FullOuter extends JoinKind("FULL") { override def keepsLeft = true; override def keepsRight = true }
  case object Cross extends JoinKind("CROSS")
  case object LeftSemi extends JoinKind("LEFT SEMI")
  case object LeftAnti extends JoinKind("LEFT ANTI")
  /** `FROM a, b`: an inner join whose condition is in WHERE. */
  case object Comma extends JoinKind(",")

  /** The kind the words before `JOIN` name (`LEFT OUTER`, `NATURAL FULL`, `ASOF LEFT`, ...). */
  def of(words: Seq[String]): JoinKind = {
    val w = words.map(_.toUpperCase).filterNot(Set("NATURAL", "ASOF", "OUTER", "JOIN"))
    w match {
      case Seq("LEFT", "SEMI") | Seq("SEMI") => LeftSemi
      case Seq("LEFT", "ANTI") | Seq("ANTI") => LeftAnti
      case Seq("LEFT") => LeftOuter
      case Seq("RIGHT") => RightOuter
      case Seq("FULL") => FullOuter
      case Seq("CROSS") => Cross
      case _ => Inner
    }
  }
}

/**
 * A `ROWTIME` reference in the block. Unqualified, it is the join's output rowtime; qualified
 * (`o.ROWTIME`), input `o`'s own. `start` is the offset of the reference's first token (the
 * qualifier, when there is one): Spark's `UnresolvedAttribute` for it starts there too.
 */
final case class RowtimeRef(start: Int, qualifier: Option[String], spelling: String, selectItem: Boolean)

/**
 * A `TUMBLE(s, ts, size)` or `HOP(s, ts, slide, size)` input (docs/semantics.md §7): windows of
 * `size` every `slide` microseconds over the time column `timeColumn`.
 */
final case class WindowTvf(kind: String, timeColumn: String, sizeMicros: Long, slideMicros: Long)

/**
 * A Kinesis Data Analytics function of a cursor, read as a relation: `TABLE(f(CURSOR(query), ...))`
 * (docs/semantics.md §14). `start` is where `TABLE` is, `text` the call as written.
 */
sealed trait CursorCall {
  def start: Int
  def text: String
}

/**
 * `RANDOM_CUT_FOREST(CURSOR(query), numberOfTrees, subSampleSize, timeDecay, shingleSize)`: the
 * query's rows with an anomaly score each. The parameters the call leaves out have KDA's defaults.
 * `explanation`: `RANDOM_CUT_FOREST_WITH_EXPLANATION`, which adds each numeric column's part of the
 * score (and, with `directionality`, whether the column is high or low, and how clearly).
 */
final case class RcfCall(start: Int, text: String, trees: Int = 100, sampleSize: Int = 256,
    timeDecay: Long = 100000L, shingleSize: Int = 1, explanation: Boolean = false,
    directionality: Boolean = false) extends CursorCall

/**
 * `HOTSPOTS(CURSOR(query), windowSize, scanRadius, minimumNumberOfPointsInAHotspot)`: the query's
 * rows, each with the hotspots of the last `windowSize` rows' points.
 */
final case class HotspotsCall(start: Int, text: String, windowSize: Int, scanRadius: Double, minPoints: Int) extends CursorCall

/**
 * `TOP_K_ITEMS_TUMBLING(CURSOR(query), 'column', k, windowSeconds)`: per tumbling window of
 * `windowSeconds` of the query's `ROWTIME`, the `k` most frequent values of `column`.
 */
final case class TopKCall(start: Int, text: String, column: String, k: Int, windowSeconds: Int) extends CursorCall

/**
 * `COUNT_DISTINCT_ITEMS_TUMBLING(CURSOR(query), 'column', windowSeconds)`: per tumbling window of
 * `windowSeconds` of the query's `ROWTIME`, the number of distinct values of `column`.
 */
final case class CountDistinctCall(start: Int, text: String, column: String, windowSeconds: Int) extends CursorCall
