package io.overjoin.streams.records

import java.nio.charset.StandardCharsets

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Expression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types.{ArrayType, DataType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * The rows of a record (`value`: its bytes or text) under an input schema, as an array of structs
 * that `explode` turns into rows: the columns, then `_error_name`, `_error_message` and
 * `_data_row`, which are NULL for a row of the stream and say why for an error row
 * ([[RecordDecoder]]). `failure` is a Lambda preprocessor's answer for a record it could not
 * process (NULL otherwise): such a record is one error row, its bytes as they came.
 * {{{
 *   Generate explode(decode_records(value, processing_error))  =>  one row per decoded row
 * }}}
 */
case class DecodeRecords(value: Expression, failure: Expression, schema: RecordSchema)
  extends BinaryExpression with CodegenFallback {

  override def left: Expression = value
  override def right: Expression = failure
  override def dataType: DataType = ArrayType(schema.rowType, containsNull = false)
  override def nullable: Boolean = false
  override def prettyName: String = "decode_records"

  @transient private lazy val decoder = new RecordDecoder(schema)
  private def width: Int = schema.columns.length

  override def eval(input: InternalRow): Any = {
    val raw = value.eval(input)
    val text: String = raw match {
      case null => null
      case b: Array[Byte] => new String(b, StandardCharsets.UTF_8)
      case s: UTF8String => s.toString
      case other => other.toString
    }
    val failed = failure.eval(input)
    val rows: Seq[InternalRow] =
      if (failed != null) Seq(errorRow(RecordDecoder.ProcessingFailed, failed.toString, Option(text).getOrElse("")))
      else if (text == null) Nil
      else decoder.decode(text).map {
        case decoder.Values(vs) => InternalRow.fromSeq(vs.toSeq ++ Seq(null, null, null))
        case decoder.Failed(name, message, row) => errorRow(name, message, row)
      }
    new GenericArrayData(rows.toArray[Any])
  }

  private def errorRow(name: String, message: String, row: String): InternalRow =
    InternalRow.fromSeq(Seq.fill[Any](width)(null) ++ Seq(UTF8String.fromString(name),
      UTF8String.fromString(message.take(4096)), UTF8String.fromString(RecordDecoder.hex(row).take(49152))))

  override protected def withNewChildrenInternal(l: Expression, r: Expression): DecodeRecords =
    copy(value = l, failure = r)
}
