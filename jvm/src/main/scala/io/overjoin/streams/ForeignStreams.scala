package io.overjoin.streams

import io.overjoin.errors.{OverjoinErrors, TextSpan}
import io.overjoin.parser.{Token, TokenKind}
import io.overjoin.streams.records.JsonPath

/**
 * s-Server's foreign streams over its file reader (docs/server.md, "s-Server's foreign streams"):
 * {{{
 *   CREATE OR REPLACE FOREIGN STREAM "readings" ("sensor" VARCHAR(8), "celsius" DOUBLE)
 *     SERVER "FILE_SERVER"
 *     OPTIONS ("DIRECTORY" '/data/in', "FILENAME_PATTERN" 'readings-.*\.csv', "PARSER" 'CSV', "SKIP_HEADER" 'true')
 * }}}
 * is the folder stream `CREATE STREAM "readings" (...) WITH (format = 'csv', path = '/data/in',
 * record_format = 'csv')` whose files are its records, read only when their name matches the
 * pattern (a Java regular expression, matching the whole name), each file's first line skipped.
 * `PARSER 'JSON'` reads JSON documents, `ROW_PATH` and `<column>_PATH` being KDA's row path and
 * mappings (the same JSONPath subset). Other servers (Kafka, Kinesis, AMQP, ...) are refused at
 * their name with the `CREATE STREAM ... WITH (...)` that declares such a source here; so is an
 * option this reading does not honour, at its name, rather than left without effect.
 */
object ForeignStreams {

  val FileServer = "FILE_SERVER"

  /** The options of FILE_SERVER overjoin reads (besides `<column>_PATH`). */
  val Known: Seq[String] = Seq("DIRECTORY", "FILENAME_PATTERN", "PARSER", "SEPARATOR", "ROW_SEPARATOR",
    "SKIP_HEADER", "QUOTE_CHARACTER", "CHARACTER_ENCODING", "ROW_PATH")
  private val CsvOnly = Set("SEPARATOR", "ROW_SEPARATOR", "SKIP_HEADER", "QUOTE_CHARACTER")

  /** What a FILE_SERVER foreign stream becomes: CREATE STREAM's options and mappings, and the file rules. */
  final case class FileRead(options: Seq[(String, String)], mappings: Seq[(String, JsonPath)],
      filePattern: Option[String], skipHeader: Boolean)

  /** Why a server other than FILE_SERVER is refused, and what to declare instead (the validator says the same). */
  def otherServer(server: String): String = {
    val upper = server.toUpperCase(java.util.Locale.ROOT)
    val instead =
      if (upper.contains("KAFKA")) "a Kafka topic is CREATE STREAM name (...) WITH (format = 'kafka', " +
        "`kafka.bootstrap.servers` = '...', subscribe = '...', value_format = 'json'), with the server started " +
        "with --packages org.apache.spark:spark-sql-kafka-0-10_2.13:<Spark's version>"
      else if (upper.contains("KINESIS")) "a Kinesis data stream is CREATE STREAM name (...) WITH " +
        "(format = 'kinesis', stream = '...', region = '...')"
      else "declare the source as CREATE STREAM name (...) WITH (format = ..., ...), a folder or a Spark streaming " +
        "source (docs/server.md)"
    s"overjoin reads s-Server's $FileServer (files arriving in a directory) and no other foreign server: $instead"
  }

  /**
   * The options of a FILE_SERVER foreign stream, checked in the order written: an unknown or
   * repeated option, a value overjoin does not read, an option of the other parser, and a path that
   * is not KDA's JSONPath are refused at their text; then DIRECTORY and PARSER must be there.
   */
  def fileOptions(sql: String, stream: String, server: Token, columns: StreamColumns,
      options: Seq[(Token, Token)], last: Token): FileRead = {
    def refuse(t: Token, detail: String): Nothing =
      throw OverjoinErrors.syntaxDetail(TextSpan(sql, t.start, t.end), s"'${t.text}'", detail)
    def value(t: Token): String = StreamStatementParser.unquote(t.text)
    val names = columnNames(columns)
    val parser = options.collectFirst { case (k, v) if k.identifier.equalsIgnoreCase("PARSER") => value(v).toUpperCase }
      .filter(p => p == "CSV" || p == "JSON")
    val seen = scala.collection.mutable.Set.empty[String]
    val given = scala.collection.mutable.LinkedHashMap.empty[String, (String, Token)]
    val paths = scala.collection.mutable.ArrayBuffer.empty[(String, JsonPath)]
    options.foreach { case (k, v) =>
      val key = k.identifier.toUpperCase(java.util.Locale.ROOT)
      val text = value(v)
      val column = if (Known.contains(key) || !key.endsWith("_PATH")) None
        else Some(k.identifier.dropRight(5)).map(c => names.find(_ == c).orElse(names.find(_.equalsIgnoreCase(c))).getOrElse(
          refuse(k, s"${k.identifier} names no column of the stream: write a declared column's name followed by _PATH")))
      if (column.isEmpty && !Known.contains(key)) refuse(k, s"$FileServer has no option ${k.identifier} that overjoin " +
        s"reads: leave it out (overjoin reads ${Known.mkString(", ")} and a column's name followed by _PATH)")
      if (!seen.add(column.map(_.toLowerCase + "_PATH").getOrElse(key))) refuse(k, s"${k.identifier} is given twice")
      key match {
        case "PARSER" if !Set("CSV", "JSON").contains(text.toUpperCase) =>
          refuse(v, s"PARSER '$text' is not one overjoin reads: write 'CSV' or 'JSON'")
        case "SKIP_HEADER" if !Set("TRUE", "FALSE").contains(text.toUpperCase) =>
          refuse(v, "SKIP_HEADER takes 'true' or 'false'")
        case "QUOTE_CHARACTER" if text != "\"" =>
          refuse(v, "overjoin reads fields quoted with \" only: drop QUOTE_CHARACTER")
        case "CHARACTER_ENCODING" if !text.equalsIgnoreCase("UTF-8") =>
          refuse(v, "overjoin reads UTF-8 files only: write 'UTF-8' or drop the option")
        case "SEPARATOR" | "ROW_SEPARATOR" if records.RecordSchema.unescape(text).isEmpty =>
          refuse(v, s"$key is empty: give the separator, such as ',' or '\\t' (a tab)")
        case _ =>
      }
      val csvOnly = CsvOnly(key)
      val jsonOnly = key == "ROW_PATH" || column.isDefined
      if (parser.contains("JSON") && csvOnly) refuse(k, s"${k.identifier} applies to PARSER 'CSV' only: drop it")
      if (parser.contains("CSV") && jsonOnly) refuse(k, s"${k.identifier} applies to PARSER 'JSON' only: drop it")
      if (jsonOnly) {
        JsonPath.parse(text) match {
          case Left((problem, offset)) =>
            val start = v.start + 1 + math.max(0, offset)
            throw OverjoinErrors.inputSchema(TextSpan(sql, start, math.max(start + 1, v.end - 1)), stream,
              s"the option ${k.identifier} '$text'", problem,
              "overjoin reads KDA's paths: $ (the document), .name steps and [0:] (every element of an array)")
          case Right(p) => column.foreach(c => paths += c -> p)
        }
      }
      given(key) = (text, v)
    }
    if (!given.contains("DIRECTORY")) refuse(server, s"$FileServer needs the option DIRECTORY '...': the folder the files arrive in")
    if (!given.contains("PARSER")) refuse(server, s"$FileServer needs the option PARSER 'CSV' or 'JSON'")
    val csv = parser.contains("CSV")
    def opt(key: String, as: String) = given.get(key).map { case (text, token) => RecordOptions.Option_(as, text, token) }
    val recordOptions = Seq(Some(RecordOptions.Option_("format", if (csv) "csv" else "json", given("PARSER")._2)),
      Some(RecordOptions.Option_(RecordOptions.Format, if (csv) "csv" else "json", given("PARSER")._2)),
      opt("SEPARATOR", RecordOptions.ColumnDelimiter), opt("ROW_SEPARATOR", RecordOptions.RowDelimiter),
      opt("ROW_PATH", RecordOptions.RowPath)).flatten
    val written = Map(RecordOptions.ColumnDelimiter -> "SEPARATOR", RecordOptions.RowDelimiter -> "ROW_SEPARATOR",
      RecordOptions.RowPath -> "ROW_PATH")
    RecordOptions.check(sql, stream, recordOptions, paths.toSeq,
      describe = o => s"the option ${written.getOrElse(o.key, o.key)} '${o.value}'",
      describeMapping = (c, p) => s"the option ${c}_PATH '$p'")
    FileRead(
      options = recordOptions.map(o => o.key -> o.value) :+ ("path" -> given("DIRECTORY")._1),
      mappings = paths.toSeq,
      filePattern = given.get("FILENAME_PATTERN").map(_._1),
      skipHeader = given.get("SKIP_HEADER").exists(_._1.equalsIgnoreCase("true")))
  }

  /** The declared columns' names, as written (quotes removed). */
  private def columnNames(columns: StreamColumns): Seq[String] = {
    val tokens = io.overjoin.parser.Lexer.tokenize(columns.sparkText).getOrElse(IndexedSeq.empty)
    var depth = 0
    var expectName = true
    val out = scala.collection.mutable.ArrayBuffer.empty[String]
    tokens.foreach { t =>
      if (t.isSymbol("(")) depth += 1
      else if (t.isSymbol(")")) depth -= 1
      else if (depth == 0 && t.isSymbol(",")) expectName = true
      else if (depth == 0 && expectName && (t.isIdentifier || t.kind == TokenKind.DoubleQuoted)) { out += t.identifier; expectName = false }
    }
    out.toSeq
  }
}
