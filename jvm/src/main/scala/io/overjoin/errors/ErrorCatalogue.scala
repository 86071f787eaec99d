package io.overjoin.errors

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

/**
 * One condition of `overjoin-error-conditions.json`, the catalogue shared with the Python
 * validator. A sub-condition is named `PARENT.SUB` and has its parent's code and SQLSTATE.
 */
final case class ErrorCondition(name: String, code: String, sqlState: String, message: String, hint: String) {

  /** Fill the `<param>` placeholders of the message and hint. */
  def render(params: Map[String, String]): (String, String) = {
    def fill(t: String) = params.foldLeft(t) { case (acc, (k, v)) => acc.replace(s"<$k>", v) }
    (fill(message), fill(hint))
  }
}

object ErrorCatalogue {
  private val Resource = "overjoin-error-conditions.json"

  lazy val conditions: Map[String, ErrorCondition] = {
    val in = Option(getClass.getClassLoader.getResourceAsStream(Resource)).getOrElse(
      throw new IllegalStateException(s"$Resource is missing from overjoin's jar: the jar is broken, rebuild it"))
    val root: JsonNode = try new ObjectMapper().readTree(in) finally in.close()
    root.fields().asScala.filterNot(_.getKey.startsWith("_")).flatMap { e =>
      val v = e.getValue
      val (code, state) = (v.get("code").asText(), v.get("sqlState").asText())
      val parent = e.getKey -> ErrorCondition(e.getKey, code, state, v.get("message").asText(), v.get("hint").asText())
      val subs = Option(v.get("subClass")).toSeq.flatMap(_.fields().asScala).map { s =>
        val name = s"${e.getKey}.${s.getKey}"
        name -> ErrorCondition(name, code, state, s.getValue.get("message").asText(), s.getValue.get("hint").asText())
      }
      parent +: subs
    }.toMap
  }

  def apply(name: String): ErrorCondition = conditions.getOrElse(name,
    throw new IllegalArgumentException(s"unknown overjoin error condition $name"))
}
