package io.overjoin.streams.records

import java.math.{BigDecimal => JBigDecimal}
import java.time.{LocalDate, LocalDateTime, LocalTime, ZoneOffset}

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * What a record holds where a column's mapping points (or what a CSV field is), before it is read
 * as the column's type.
 */
sealed trait SourceValue
object SourceValue {
  /** No element at the mapping, JSON `null`, or an empty CSV field of a non-string column. */
  case object Null extends SourceValue
  final case class Bool(value: Boolean) extends SourceValue
  /** A JSON number, exactly as written. */
  final case class Number(value: JBigDecimal) extends SourceValue
  final case class Text(value: String) extends SourceValue
  /** A JSON array or object, as compact JSON text. */
  final case class Container(json: String, isArray: Boolean) extends SourceValue
}

/**
 * Kinesis Data Analytics' conversions of a record's values into SQL types (its developer guide,
 * "Mapping JSON Data Types to SQL Data Types"), as overjoin reads them (docs/server.md, "Input
 * schemas"):
 *
 * | value     | numbers                  | BOOLEAN              | CHAR/VARCHAR(n)      | DATE/TIME/TIMESTAMP |
 * |-----------|--------------------------|----------------------|----------------------|---------------------|
 * | null      | NULL                     | NULL                 | NULL                 | NULL                |
 * | boolean   | 1 or 0                   | itself               | 'true'/'false'       | error               |
 * | number    | itself if it fits exactly| false if 0, else true| its text             | error               |
 * | string    | read as a number         | 'true' (any case), else false | itself     | read as a time      |
 * | array/obj | error                    | error                | its JSON text        | error               |
 *
 * Strings longer than a CHAR/VARCHAR's length are cut to it, without error (KDA does so). A number
 * that does not fit exactly (123.4 into INTEGER, 1.005 into DECIMAL(5,2), 300 into TINYINT) is an
 * error, as in KDA: the record's row goes to `error_stream` ("Coercion error"), never a rounded
 * value. Times are UTC, kept to the millisecond (KDA's TIMESTAMP precision).
 */
object ValueReader {
  import SourceValue._

  /** The value for `column` as Spark stores it, or Left(why it cannot be read). */
  def read(v: SourceValue, column: RecordColumn): Either[String, Any] = (v, column.dataType) match {
    case (Null, _) => Right(null)
    case (_, BooleanType) => v match {
      case Bool(b) => Right(b)
      case Number(n) => Right(n.signum != 0)
      case Text(s) => Right(s.trim.equalsIgnoreCase("true"))
      case c: Container => Left(s"${describe(c)} cannot be read as BOOLEAN")
    }
    case (_, _: StringType | _: CharType | _: VarcharType) =>
      val text = v match {
        case Bool(b) => b.toString
        case Number(n) => n.toString
        case Text(s) => s
        case Container(json, _) => json
      }
      Right(UTF8String.fromString(column.maxLength.filter(_ < text.length).map(n => text.substring(0, n)).getOrElse(text)))
    case (_, t @ (ByteType | ShortType | IntegerType | LongType)) =>
      number(v, t).flatMap { n =>
        val whole = try Some(n.toBigIntegerExact) catch { case _: ArithmeticException => None }
        whole match {
          case None => Left(s"${describe(v)} is not a whole number, so it cannot be read as ${t.sql}")
          case Some(b) =>
            val (lo, hi) = t match {
              case ByteType => (Byte.MinValue.toLong, Byte.MaxValue.toLong)
              case ShortType => (Short.MinValue.toLong, Short.MaxValue.toLong)
              case IntegerType => (Int.MinValue.toLong, Int.MaxValue.toLong)
              case _ => (Long.MinValue, Long.MaxValue)
            }
            if (b.bitLength > 63 || b.longValue < lo || b.longValue > hi) Left(s"${describe(v)} is out of the range of ${t.sql}")
            else Right(t match {
              case ByteType => b.byteValue
              case ShortType => b.shortValue
              case IntegerType => b.intValue
              case _ => b.longValue
            })
        }
      }
    case (_, t @ (FloatType | DoubleType)) =>
      val d: Either[String, Double] = v match {
        case Bool(b) => Right(if (b) 1.0 else 0.0)
        case Number(n) => Right(n.doubleValue)
        case Text(s) => try Right(java.lang.Double.parseDouble(s.trim)) catch {
          case _: NumberFormatException => Left(s"${describe(v)} cannot be read as ${t.sql}")
        }
        case c: Container => Left(s"${describe(c)} cannot be read as ${t.sql}")
      }
      d.flatMap { x =>
        if (t == FloatType) {
          if (!x.isInfinite && x.toFloat.isInfinite) Left(s"${describe(v)} is out of the range of ${t.sql}") else Right(x.toFloat)
        } else if (x.isInfinite && (v match { case Number(_) => true; case _ => false })) {
          Left(s"${describe(v)} is out of the range of ${t.sql}")
        } else Right(x)
      }
    case (_, t: DecimalType) =>
      number(v, t).flatMap { n =>
        val scaled = try Some(n.setScale(t.scale)) catch { case _: ArithmeticException => None }
        scaled match {
          case Some(s) if s.precision <= t.precision => Right(Decimal(s, t.precision, t.scale))
          case Some(_) => Left(s"${describe(v)} has too many digits for ${t.sql}")
          case None => Left(s"${describe(v)} has more decimal places than ${t.sql} keeps")
        }
      }
    case (_, BinaryType) => v match {
      case Bool(b) => Right(Array[Byte](if (b) 1 else 0))
      case Text(s) if s.trim.matches("(?i)X'([0-9A-F]{2})*'") =>
        val hex = s.trim.substring(2, s.trim.length - 1)
        Right(hex.grouped(2).map(h => Integer.parseInt(h, 16).toByte).toArray)
      case _ => Left(s"${describe(v)} cannot be read as BINARY (KDA reads a binary literal such as X'3F67A23A')")
    }
    case (_, t @ (DateType | TimestampType | TimestampNTZType | _: TimeType)) => v match {
      case Text(s) => time(s.trim, t).toRight(s"${describe(v)} cannot be read as ${t.sql} " + formats(t))
      case Number(_) if t != DateType && !t.isInstanceOf[TimeType] => Left(s"${describe(v)} cannot be read as ${t.sql}: " +
        "KDA reads a time from a string such as '2024-01-31 12:00:00.000'; read epoch milliseconds into a BIGINT " +
        "column and convert it with TO_TIMESTAMP")
      case other => Left(s"${describe(other)} cannot be read as ${t.sql} " + formats(t))
    }
    case (_, t) => Left(s"${describe(v)}: columns of type ${t.sql} are not read from records")
  }

  private def number(v: SourceValue, t: DataType): Either[String, JBigDecimal] = v match {
    case Number(n) => Right(n)
    case Bool(b) => Right(if (b) JBigDecimal.ONE else JBigDecimal.ZERO)
    case Text(s) => try Right(new JBigDecimal(s.trim)) catch {
      case _: NumberFormatException => Left(s"${describe(v)} cannot be read as ${t.sql}")
    }
    case c: Container => Left(s"${describe(c)} cannot be read as ${t.sql}")
    case Null => Right(null)
  }

  private def formats(t: DataType): String = t match {
    case DateType => "(write it as 2024-01-31)"
    case _: TimeType => "(write it as 12:00:00 or 12:00:00.000)"
    case _ => "(write it as 2024-01-31, 2024-01-31 12:00:00.000 or 2024-01-31T12:00:00Z)"
  }

  /** How a value is named in an error message: its text, cut short. */
  def describe(v: SourceValue): String = v match {
    case Null => "null"
    case Bool(b) => b.toString
    case Number(n) => n.toString
    case Text(s) => "'" + (if (s.length > 60) s.substring(0, 57) + "..." else s) + "'"
    case Container(json, isArray) =>
      (if (isArray) "an array " else "an object ") + (if (json.length > 60) json.substring(0, 57) + "..." else json)
  }

  private val DatePattern = """(\d{4})-(\d{2})-(\d{2})""".r
  private val TimePattern = """(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?""".r
  private val TimestampPattern =
    """(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?""".r

  /**
   * KDA's time strings: a date `1992-02-14`, a timestamp `1992-02-14 18:35:44.0` (also with `T`,
   * any fraction up to nanoseconds, and `Z` or an offset, which are converted to UTC), a time
   * `18:35:44`. Internal values: days (DATE), microseconds (TIMESTAMP, kept to the millisecond),
   * nanoseconds of the day (TIME).
   */
  def time(s: String, t: DataType): Option[Any] = try {
    def nanos(fraction: String): Int = if (fraction == null) 0 else (fraction + "000000000").take(9).toInt
    t match {
      case DateType => s match {
        case DatePattern(y, m, d) => Some(LocalDate.of(y.toInt, m.toInt, d.toInt).toEpochDay.toInt)
        case _ => None
      }
      case tt: TimeType => s match {
        case TimePattern(h, mi, sec, f) =>
          val n = LocalTime.of(h.toInt, mi.toInt, Option(sec).map(_.toInt).getOrElse(0), nanos(f)).toNanoOfDay
          val unit = math.pow(10, 9 - math.min(9, tt.precision)).toLong
          Some(n / unit * unit)
        case _ => None
      }
      case _ =>
        val local: Option[(LocalDateTime, Option[String])] = s match {
          case DatePattern(y, m, d) => Some((LocalDate.of(y.toInt, m.toInt, d.toInt).atStartOfDay, None))
          case TimestampPattern(y, m, d, h, mi, sec, f, zone) =>
            Some((LocalDateTime.of(y.toInt, m.toInt, d.toInt, h.toInt, mi.toInt, Option(sec).map(_.toInt).getOrElse(0),
              nanos(f)), Option(zone)))
          case _ => None
        }
        local.map { case (ldt, zone) =>
          val offset = zone.map { z =>
            if (z == "Z") ZoneOffset.UTC
            else ZoneOffset.of(if (z.length == 5 && !z.contains(":")) z.substring(0, 3) + ":" + z.substring(3) else z)
          }.getOrElse(ZoneOffset.UTC)
          val instant = ldt.toInstant(offset)
          // Kept to the millisecond: KDA's TIMESTAMP precision.
          instant.toEpochMilli * 1000L
        }
    }
  } catch {
    case _: java.time.DateTimeException => None
  }
}
