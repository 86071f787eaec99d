package org.apache.spark.sql.overjoin

import java.util.regex.Pattern

import org.apache.spark.sql.catalyst.expressions.{Expression, ImplicitCastInputTypes}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{AbstractDataType, DataType, IntegerType, StringType}
import org.apache.spark.unsafe.types.UTF8String

// Kinesis Data Analytics' string functions: REGEX_REPLACE.

/**
 * KDA's `REGEX_REPLACE(original, regex, replacement, startPosition, occurrence)`: Java's
 * `replaceAll` from character `startPosition` (1-based; past the end, `original` is returned) of
 * every match (`occurrence` 0) or of the `occurrence`-th match only. A position below 1 or a
 * negative occurrence is an error naming the value; NULL in any argument gives NULL.
 */
case class RegexReplace(children: Seq[Expression]) extends Expression with ImplicitCastInputTypes with CodegenFallback {
  override def inputTypes: Seq[AbstractDataType] = Seq(StringType, StringType, StringType, IntegerType, IntegerType)
  override def dataType: DataType = StringType
  override def nullable: Boolean = true
  override def prettyName: String = "regex_replace"

  @transient private var lastRegex: UTF8String = _
  @transient private var lastPattern: Pattern = _

  override def eval(input: org.apache.spark.sql.catalyst.InternalRow): Any = {
    val values = children.map(_.eval(input))
    if (values.contains(null)) return null
    val original = values(0).toString
    val start = values(3).asInstanceOf[Int]
    val occurrence = values(4).asInstanceOf[Int]
    if (start < 1) throw new IllegalArgumentException(
      s"REGEX_REPLACE: the start position is $start; it must be 1 (the first character) or more")
    if (occurrence < 0) throw new IllegalArgumentException(
      s"REGEX_REPLACE: the occurrence is $occurrence; it must be 0 (every match) or more")
    if (start > original.length) return values(0)
    val regex = values(1).asInstanceOf[UTF8String]
    if (lastPattern == null || lastRegex != regex) {
      lastPattern = Pattern.compile(regex.toString)
      lastRegex = regex.clone()
    }
    val m = lastPattern.matcher(original)
    m.region(start - 1, original.length)
    val replacement = values(2).toString
    // appendReplacement copies the text since the last replaced match (skipped matches included),
    // then the replacement; appendTail the rest.
    val out = new java.lang.StringBuilder(original.length)
    var count = 0
    var more = m.find()
    while (more) {
      count += 1
      if (occurrence == 0 || count == occurrence) m.appendReplacement(out, replacement)
      more = (occurrence == 0 || count < occurrence) && m.find()
    }
    m.appendTail(out)
    UTF8String.fromString(out.toString)
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): RegexReplace =
    copy(children = newChildren)
}
