package io.overjoin.model

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

/**
 * The data of the interval and duration grammar (docs/syntax.md), read from
 * `overjoin-lexicon.json`, the file the Python validator reads too: units and their lengths, the
 * units whose length varies, the number forms, and the words of the errors about them.
 */
object Lexicon {
  private val Resource = "overjoin-lexicon.json"

  private lazy val root: JsonNode = {
    val in = Option(getClass.getClassLoader.getResourceAsStream(Resource)).getOrElse(
      throw new IllegalStateException(s"$Resource is missing from overjoin's jar: the jar is broken, rebuild it"))
    try new ObjectMapper().readTree(in) finally in.close()
  }

  private def strings(key: String): Seq[String] = root.get(key).elements().asScala.map(_.asText()).toSeq
  private def longs(key: String): Map[String, Long] =
    root.get(key).fields().asScala.map(e => e.getKey -> e.getValue.asLong()).toMap

  /** Microseconds in one of each fixed-length unit, by its singular name. */
  lazy val unitMicros: Map[String, Long] = longs("unitMicros")
  /** MONTH, YEAR, QUARTER: units a join window cannot use. */
  lazy val variableUnits: Set[String] = strings("variableUnits").toSet
  /** Units whose value may have a fraction (SECOND). */
  lazy val fractionalUnits: Set[String] = strings("fractionalUnits").toSet
  lazy val integer: String = root.get("integer").asText()
  lazy val decimal: String = root.get("decimal").asText()
  lazy val duration: scala.util.matching.Regex = ("(?i)^" + root.get("durationPattern").asText() + "$").r
  lazy val durationMicros: Map[String, Long] = longs("durationMicros")
  lazy val multiUnitPair: scala.util.matching.Regex = root.get("multiUnitPair").asText().r
  lazy val fieldOrder: Seq[String] = strings("fieldOrder")
  lazy val fieldLimits: Map[String, Long] = longs("fieldLimits")
  lazy val fieldShown: Map[String, String] =
    root.get("fieldShown").fields().asScala.map(e => e.getKey -> e.getValue.asText()).toMap
  lazy val maxPrecision: Int = root.get("maxPrecision").asInt()
  /** How the number of `STEP(ts BY n)` is written, and the largest it can be (a BIGINT, or a DECIMAL's digits). */
  lazy val stepNumber: scala.util.matching.Regex = ("^(?:" + root.get("stepNumber").asText() + ")$").r
  lazy val maxStepInteger: String = root.get("maxStepInteger").asText()
  lazy val maxStepDigits: Int = root.get("maxStepDigits").asInt()
  /** The units of `FLOOR(ts TO unit)` (docs/semantics.md §11). */
  lazy val floorUnits: Seq[String] = strings("floorUnits")

  /** An `expected` message of the lexicon with its `<name>` placeholders filled. */
  def expected(key: String, params: (String, String)*): String =
    params.foldLeft(root.get("expected").get(key).asText()) { case (t, (k, v)) => t.replace(s"<$k>", v) }

  /** A unit word as its singular name: `SECONDS` -> `SECOND`; other words upper-cased as they are. */
  def baseUnit(word: String): String = {
    val u = word.toUpperCase
    if (u.endsWith("S") && (unitMicros.contains(u.dropRight(1)) || variableUnits.contains(u.dropRight(1)))) u.dropRight(1)
    else u
  }

  /** Every word that names a unit, fixed or variable, singular or plural. */
  lazy val unitWords: Set[String] = (unitMicros.keySet ++ variableUnits).flatMap(u => Set(u, u + "S"))
}
