package io.overjoin.streams

import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import io.overjoin.errors.{OverjoinErrors, TextSpan}
import io.overjoin.parser.{Lexer, Token, TokenKind}

/**
 * The statements of SQL-only streaming applications (docs/semantics.md §10, KDA and s-Server):
 * {{{
 *   CREATE [OR REPLACE] STREAM name (col type [NOT NULL], ...) [DESCRIPTION '...'] [WITH (key = 'value', ...)]
 *   CREATE [OR REPLACE] FOREIGN STREAM name (col type, ...) SERVER server [OPTIONS (...)] [DESCRIPTION '...']
 *   CREATE [OR REPLACE] PUMP [schema.]name [STARTED | STOPPED] AS INSERT INTO stream [(cols)] SELECT STREAM ...
 *   ALTER PUMP item {, item} START | STOP      ALTER STREAM item {, item} RESET     (item: name, schema.name, schema.*)
 *   CREATE OR REPLACE SCHEMA name [DESCRIPTION '...']     SET SCHEMA 'name'     SET PATH 'name {, name}'
 *   DROP SCHEMA [IF EXISTS] "name" [CASCADE | RESTRICT]   (a double-quoted name: Spark's own DROP SCHEMA otherwise)
 *   DROP PUMP [IF EXISTS] [schema.]name          DROP STREAM [IF EXISTS] [schema.]name
 *   SHOW STREAMS     SHOW PUMPS         DESCRIBE PUMP [schema.]name
 *   CREATE [OR REPLACE] REFERENCE TABLE name (col type [MAPPING '...'], ...) WITH (key = 'value', ...)
 *   REFRESH REFERENCE TABLE name
 * }}}
 * overjoin's parser asks [[StreamStatementParser.parse]] first: each of these becomes a command of
 * this package, and every other statement (None) goes on through overjoin's dialect and Spark's
 * parser untouched. `INSERT INTO stream ...` needs nothing here: a stream is a table, and Spark's
 * INSERT appends to it.
 */
object StreamStatementParser {

  /** The command for `sqlText` when it is one of this package's statements, else None (not ours). */
  def parse(sqlText: String): Option[LogicalPlan] = {
    // Cheap test first: every statement of ours names STREAM(S), PUMP(S), SCHEMA, REFERENCE or PATH.
    val upper = sqlText.toUpperCase(java.util.Locale.ROOT)
    if (!upper.contains("STREAM") && !upper.contains("PUMP") && !upper.contains("SCHEMA") &&
      !upper.contains("REFERENCE") && !upper.contains("PATH") && !upper.contains("SERVER") &&
      !upper.contains("FOREIGN") && !upper.contains("JAR") && !upper.contains("JAVA")) return None
    val tokens = Lexer.tokenize(sqlText) match {
      case Right(ts) => ts.reverse.dropWhile(_.isSymbol(";")).reverse
      case Left(_) => return None // Spark reports the unterminated string
    }
    if (tokens.isEmpty) return None
    val c = new Cursor(sqlText, tokens)
    def w(i: Int, word: String) = c.at(i).exists(_.isWord(word))
    if (w(0, "CREATE")) {
      val replace = w(1, "OR") && w(2, "REPLACE")
      val k = if (replace) 3 else 1
      if (w(k, "STREAM") && c.at(k + 1).exists(t => t.isIdentifier || t.kind == TokenKind.DoubleQuoted)) {
        c.pos = k + 1; Some(createStream(c, replace))
      } else if (w(k, "FOREIGN") && w(k + 1, "STREAM")) { c.pos = k + 2; Some(createForeignStream(c, replace)) }
      else if (w(k, "PUMP")) { c.pos = k + 1; Some(createPump(c, replace)) }
      else if (w(k, "REFERENCE") && w(k + 1, "TABLE")) { c.pos = k + 2; Some(createReferenceTable(c, replace)) }
      // s-Server's first statement; Spark's own CREATE SCHEMA (without OR REPLACE) stays Spark's.
      else if (replace && w(k, "SCHEMA")) { c.pos = k + 1; Some(createSchema(c)) }
      else refusedAdapter(tokens, k).map(detail => c.refuse(tokens(k), detail))
    } else if (w(0, "REFRESH") && w(1, "REFERENCE") && w(2, "TABLE")) {
      c.pos = 3
      val name = c.qualifiedName("reference table name")
      c.end(); Some(RefreshReferenceTableCommand(name))
    } else if (w(0, "SET") && w(1, "SCHEMA") && c.at(2).exists(_.kind == TokenKind.Str) && tokens.length == 3) {
      c.pos = 2
      val literal = c.next("a quoted schema name")
      Some(SetSchemaCommand(schemaNameIn(c, literal)))
    } else if (w(0, "SET") && w(1, "PATH") && c.at(2).exists(_.kind == TokenKind.Str) && tokens.length == 3) {
      c.pos = 2
      val literal = c.next("a quoted path")
      Some(SetPathCommand(pathIn(c, literal), unquote(literal.text)))
    } else if (w(0, "ALTER") && (w(1, "PUMP") || w(1, "STREAM"))) {
      // s-Server's lists: `ALTER PUMP "s".* START`, `ALTER PUMP p1, "s"."p2" STOP`,
      // `ALTER STREAM "s"."x" RESET`, `ALTER STREAM "s".* RESET`.
      val pump = w(1, "PUMP")
      c.pos = 2
      val items = objects(c, if (pump) "pump" else "stream")
      val action = c.next(if (pump) "START or STOP" else "RESET")
      val statement = if (pump) {
        if (!action.isWord("START") && !action.isWord("STOP")) c.fail(action, "START or STOP")
        AlterPumpCommand(items, action.isWord("START"))
      } else {
        if (action.isWord("PAUSE") || action.isWord("RESUME")) c.refuse(action, StreamStatementParser.PauseDetail)
        if (!action.isWord("RESET")) c.fail(action, "RESET")
        ResetStreamCommand(items)
      }
      c.end()
      Some(statement)
    } else if (w(0, "DROP") && w(1, "SCHEMA") && isSchemaDrop(c)) {
      val ifExists = w(2, "IF") && w(3, "EXISTS")
      c.pos = if (ifExists) 4 else 2
      val name = c.name("schema name")
      val cascade = c.peek match {
        case Some(t) if t.isWord("CASCADE") => c.pos += 1; true
        case Some(t) if t.isWord("RESTRICT") => c.pos += 1; false
        case _ => false
      }
      c.end(); Some(DropSchemaCommand(name, ifExists, cascade))
    } else if (w(0, "DROP") && (w(1, "PUMP") || w(1, "STREAM"))) {
      val pump = w(1, "PUMP")
      c.pos = 2
      val ifExists = w(2, "IF") && w(3, "EXISTS")
      if (ifExists) c.pos = 4
      val statement = if (pump) {
        val (schema, name) = c.schemaAndName("pump name")
        DropPumpCommand(name, ifExists, schema)
      } else DropStreamCommand(c.qualifiedName("stream name"), ifExists)
      c.end()
      Some(statement)
    } else if (w(0, "SHOW") && (w(1, "PUMPS") || w(1, "STREAMS")) && tokens.length == 2) {
      Some(if (w(1, "PUMPS")) ShowPumpsCommand() else ShowStreamsCommand())
    } else if ((w(0, "DESCRIBE") || w(0, "DESC")) && w(1, "PUMP") && tokens.length > 2) { // `DESC pump`: a table
      c.pos = 2
      val (schema, name) = c.schemaAndName("pump name")
      c.end(); Some(DescribePumpCommand(name, schema))
    } else None
  }

  /** `CREATE OR REPLACE SCHEMA name [DESCRIPTION '...']`. */
  private def createSchema(c: Cursor): LogicalPlan = {
    val name = c.name("schema name")
    var description: Option[String] = None
    if (c.peek.exists(t => t.isWord("DESCRIPTION") || t.isWord("COMMENT"))) {
      c.pos += 1
      description = Some(c.string("a quoted description"))
    }
    c.end()
    CreateSchemaCommand(name, description)
  }

  /**
   * The schema a `SET SCHEMA 'name'` literal names: s-Server writes `'"name"'` (a quoted identifier
   * inside the string, kept as written) or `'name'`.
   */
  private def schemaNameIn(c: Cursor, literal: Token): String = {
    val inner = unquote(literal.text).trim
    Lexer.tokenize(inner) match {
      case Right(Seq(t)) if t.kind == TokenKind.DoubleQuoted || t.isIdentifier => t.identifier
      case _ => c.fail(literal, "a schema name in quotes, such as '\"name\"'")
    }
  }

  /**
   * `SET PATH '"a", b'`: s-Server's path, a list of schema names in one string (each quoted as an
   * identifier, or not).
   */
  private def pathIn(c: Cursor, literal: Token): Seq[String] = {
    val inner = unquote(literal.text)
    def bad = c.fail(literal, "a list of schema names in quotes, such as '\"name\"' or '\"a\", \"b\"'")
    val ts = Lexer.tokenize(inner).getOrElse(bad)
    if (ts.isEmpty) bad
    val names = scala.collection.mutable.ArrayBuffer.empty[String]
    var i = 0
    while (i < ts.length) {
      val t = ts(i)
      if (!(t.kind == TokenKind.DoubleQuoted || t.isIdentifier)) bad
      names += t.identifier
      i += 1
      if (i < ts.length) { if (!ts(i).isSymbol(",") || i + 1 >= ts.length) bad; i += 1 }
    }
    names.toSeq
  }

  /** `DROP SCHEMA [IF EXISTS] "name"`: s-Server's spelling (a double-quoted name); else Spark's statement. */
  private def isSchemaDrop(c: Cursor): Boolean = {
    val at = if (c.at(2).exists(_.isWord("IF")) && c.at(3).exists(_.isWord("EXISTS"))) 4 else 2
    c.at(at).exists(_.kind == TokenKind.DoubleQuoted)
  }

  /** `item {, item}`, each `name`, `schema.name` or `schema.*` (s-Server's lists of pumps and streams). */
  private def objects(c: Cursor, kind: String): Seq[ObjectRef] = {
    val out = scala.collection.mutable.ArrayBuffer.empty[ObjectRef]
    var more = true
    while (more) {
      val first = c.name(s"$kind name")
      out += (if (c.peek.exists(_.isSymbol("."))) {
        c.pos += 1
        if (c.peek.exists(_.isSymbol("*"))) { c.pos += 1; ObjectRef(Some(first), None) }
        else ObjectRef(Some(first), Some(c.name(s"$kind name or *")))
      } else ObjectRef(None, Some(first)))
      more = c.peek.exists(_.isSymbol(","))
      if (more) c.pos += 1
    }
    out.toSeq
  }

  private def createStream(c: Cursor, replace: Boolean): LogicalPlan = {
    val name = c.qualifiedName("stream name")
    val open = c.next("(")
    if (!open.isSymbol("(")) c.fail(open, "( and the stream's columns")
    val first = c.pos
    val close = c.skipToClose()
    val columns = StreamColumns.parse(c.text, c.tokens.slice(first, c.pos - 1), open.end, close.start, name)
    var description: Option[String] = None
    val options = withOptions(c, allowDescription = true, d => description = Some(d))
    RecordOptions.check(c.text, name, options, columns.mappings)
    CreateStreamCommand(name, columns.sparkText, description, options.map(o => o.key -> o.value), replace,
      columns.mappings.map { case (col, path) => col -> path.text })
  }

  /**
   * s-Server's `CREATE [OR REPLACE] FOREIGN STREAM name (cols) SERVER "FILE_SERVER" OPTIONS (...)
   * [DESCRIPTION '...']`: files arriving in a directory, read as a folder stream whose files are
   * records (docs/server.md, "s-Server's foreign streams"). Other servers are refused at their name,
   * saying what to declare instead; options overjoin does not read are refused at their name.
   */
  private def createForeignStream(c: Cursor, replace: Boolean): LogicalPlan = {
    val name = c.qualifiedName("stream name")
    val open = c.next("(")
    if (!open.isSymbol("(")) c.fail(open, "( and the stream's columns")
    val first = c.pos
    val close = c.skipToClose()
    val columns = StreamColumns.parse(c.text, c.tokens.slice(first, c.pos - 1), open.end, close.start, name)
    val serverWord = c.next("SERVER")
    if (!serverWord.isWord("SERVER")) c.fail(serverWord, "SERVER and the foreign server's name")
    val server = c.next("a server name")
    if (!(server.isIdentifier || server.kind == TokenKind.DoubleQuoted)) c.fail(server, "a server name")
    if (!server.identifier.equalsIgnoreCase(ForeignStreams.FileServer)) c.refuse(server, ForeignStreams.otherServer(server.identifier))
    val options = scala.collection.mutable.ArrayBuffer.empty[(Token, Token)]
    if (c.peek.exists(_.isWord("OPTIONS"))) {
      c.pos += 1
      val o = c.next("(")
      if (!o.isSymbol("(")) c.fail(o, "( after OPTIONS")
      var done = false
      while (!done) {
        val key = c.next("an option name")
        if (!(key.isIdentifier || key.kind == TokenKind.DoubleQuoted)) c.fail(key, "an option name")
        val value = c.next("a quoted value")
        if (value.kind != TokenKind.Str) c.fail(value, "a quoted value")
        options += key -> value
        val sep = c.next(", or )")
        if (sep.isSymbol(")")) done = true else if (!sep.isSymbol(",")) c.fail(sep, ", or )")
      }
    }
    var description: Option[String] = None
    if (c.peek.exists(_.isWord("DESCRIPTION"))) { c.pos += 1; description = Some(c.string("a quoted description")) }
    c.end()
    val read = ForeignStreams.fileOptions(c.text, name, server, columns, options.toSeq, c.tokens.last)
    CreateStreamCommand(name, columns.sparkText, description, read.options, replace,
      read.mappings.map { case (col, path) => col -> path.text }, filePattern = read.filePattern,
      skipHeader = read.skipHeader)
  }

  /** `CREATE [OR REPLACE] REFERENCE TABLE name (cols [MAPPING '...']) WITH (...)`: KDA's reference data. */
  private def createReferenceTable(c: Cursor, replace: Boolean): LogicalPlan = {
    val name = c.qualifiedName("reference table name")
    val open = c.next("(")
    if (!open.isSymbol("(")) c.fail(open, "( and the table's columns")
    val first = c.pos
    val close = c.skipToClose()
    val columns = StreamColumns.parse(c.text, c.tokens.slice(first, c.pos - 1), open.end, close.start, name)
    if (!c.more) c.failAtEnd("WITH (bucket = '...', key = '...', record_format = '...') or WITH (path = '...', ...)")
    val options = withOptions(c, allowDescription = false, _ => ())
    RecordOptions.check(c.text, name, options, columns.mappings)
    CreateReferenceTableCommand(name, columns.sparkText, options.map(o => o.key -> o.value),
      columns.mappings.map { case (col, path) => col -> path.text }, replace)
  }

  /**
   * `[DESCRIPTION '...'] [WITH (key = 'value', ...)]`, in either order: the options, each with the
   * token of its value (for errors at it).
   */
  private def withOptions(c: Cursor, allowDescription: Boolean, describe: String => Unit): Seq[RecordOptions.Option_] = {
    var options = Seq.empty[RecordOptions.Option_]
    while (c.more) {
      val t = c.next(if (allowDescription) "DESCRIPTION or WITH" else "WITH")
      if (allowDescription && (t.isWord("DESCRIPTION") || t.isWord("COMMENT"))) describe(c.string("a quoted description"))
      else if (t.isWord("WITH")) {
        val o = c.next("(")
        if (!o.isSymbol("(")) c.fail(o, "( after WITH")
        var done = false
        while (!done) {
          val key = c.next("an option name")
          if (!key.isIdentifier && key.kind != TokenKind.Str) c.fail(key, "an option name")
          val eq = c.next("=")
          if (!eq.isSymbol("=")) c.fail(eq, "= after the option name")
          val value = c.next("a quoted value")
          val v = value.kind match {
            case TokenKind.Str => unquote(value.text)
            case TokenKind.Number | TokenKind.Word => value.text
            case _ => c.fail(value, "a quoted value")
          }
          options :+= RecordOptions.Option_(key.identifier.stripPrefix("'").stripSuffix("'").toLowerCase, v, value)
          val sep = c.next(", or )")
          if (sep.isSymbol(")")) done = true else if (!sep.isSymbol(",")) c.fail(sep, ", or )")
        }
      } else c.fail(t, if (allowDescription) "DESCRIPTION or WITH" else "WITH")
    }
    options
  }

  private def createPump(c: Cursor, replace: Boolean): LogicalPlan = {
    val (schema, name) = c.schemaAndName("pump name")
    var started = true
    c.peek.foreach { t =>
      if (t.isWord("STARTED")) { c.pos += 1 } else if (t.isWord("STOPPED")) { started = false; c.pos += 1 }
    }
    for (kw <- Seq("AS", "INSERT", "INTO")) {
      val t = c.next(kw)
      if (kw == "INSERT" && t.isWord("MERGE")) c.refuse(t, MergeDetail)
      if (!t.isWord(kw)) c.fail(t, kw)
    }
    val target = c.qualifiedName("target stream name")
    var columns = Seq.empty[String]
    if (c.peek.exists(_.isSymbol("("))) {
      // A column list, not a parenthesized query.
      val after = c.at(c.pos + 1)
      // Quoted names as KDA writes them (`INSERT INTO "S" (\n\t"orderId", ...)`) included.
      if (after.exists(t => (t.isIdentifier || t.kind == TokenKind.DoubleQuoted) &&
          !t.isWord("SELECT") && !t.isWord("WITH"))) {
        c.pos += 1
        var done = false
        while (!done) {
          columns :+= c.name("column name")
          val sep = c.next(", or )")
          if (sep.isSymbol(")")) done = true else if (!sep.isSymbol(",")) c.fail(sep, ", or )")
        }
      }
    }
    val q = c.peek.getOrElse(c.fail(c.tokens.last, "the pump's query (SELECT STREAM ...)"))
    val query = c.text.substring(q.start, c.tokens.last.end)
    CreatePumpCommand(name, target, columns, query, started, replace, schema)
  }

  private[streams] def unquote(s: String): String = {
    val q = s.charAt(0)
    s.substring(1, s.length - 1).replace(s"$q$q", q.toString)
  }

  /** A position in the statement's tokens, with the helpers the statements above need. */
  private final class Cursor(val text: String, val tokens: IndexedSeq[Token]) {
    var pos = 0
    def at(i: Int): Option[Token] = if (i >= 0 && i < tokens.length) Some(tokens(i)) else None
    def peek: Option[Token] = at(pos)
    def more: Boolean = pos < tokens.length
    def next(expected: String): Token = {
      val t = at(pos).getOrElse(failAtEnd(expected))
      pos += 1; t
    }
    def name(expected: String): String = {
      val t = next(expected)
      if (!(t.isIdentifier || t.kind == TokenKind.DoubleQuoted)) fail(t, expected)
      t.identifier
    }
    /** `[schema.]name` as Spark SQL: the schema as its database (s-Server's names, [[SchemaNames]]). */
    def qualifiedName(expected: String): String = schemaAndName(expected) match {
      case (Some(schema), n) => quoteIfNeeded(SchemaNames.database(schema)) + "." + quoteIfNeeded(n)
      case (None, n) => quoteIfNeeded(n)
    }
    /** `[schema.]name`, as written. */
    def schemaAndName(expected: String): (Option[String], String) = {
      val first = name(expected)
      if (peek.exists(_.isSymbol("."))) { pos += 1; (Some(first), name(expected)) } else (None, first)
    }
    def string(expected: String): String = {
      val t = next(expected)
      if (t.kind != TokenKind.Str && t.kind != TokenKind.DoubleQuoted) fail(t, expected)
      unquote(t.text)
    }
    /** After an opening parenthesis: moves past its matching `)` and returns it. */
    def skipToClose(): Token = {
      var depth = 1
      var t: Token = null
      while (depth > 0) {
        t = next(")")
        if (t.isSymbol("(")) depth += 1 else if (t.isSymbol(")")) depth -= 1
      }
      t
    }
    def end(): Unit = peek.foreach(t => fail(t, "the end of the statement"))
    def fail(t: Token, expected: String): Nothing = syntaxError(text, s"'${t.text}'", s": expected $expected", t.start)
    /** OJ001 at `t`, saying what is wrong with it and what to write instead. */
    def refuse(t: Token, detail: String): Nothing =
      throw OverjoinErrors.syntaxDetail(TextSpan(text, t.start, t.end), s"'${t.text}'", detail)
    def failAtEnd(expected: String): Nothing = syntaxError(text, "end of input", s": expected $expected", text.length)
  }

  /** Spark's own PARSE_SYNTAX_ERROR: "Syntax error at or near 'x': expected ...". */
  private def syntaxError(sql: String, near: String, hint: String, at: Int): Nothing = {
    val line = sql.substring(0, math.min(at, sql.length)).count(_ == '\n') + 1
    val col = at - (sql.lastIndexOf('\n', math.max(0, at - 1)) + 1)
    throw new ParseException(Some(sql),
      org.apache.spark.sql.catalyst.trees.Origin(line = Some(line), startPosition = Some(col),
        startIndex = Some(at), stopIndex = Some(at), sqlText = Some(sql)),
      "PARSE_SYNTAX_ERROR", Map("error" -> near, "hint" -> hint))
  }

  /**
   * s-Server's statements of adapters and Java code (`CREATE SERVER`, `CREATE FOREIGN TABLE`,
   * `CREATE FOREIGN DATA WRAPPER`, `CREATE JAR`, `CREATE FUNCTION ... LANGUAGE JAVA`), which have no
   * overjoin form: why, and what to write instead, for the statement whose object word is token `k`.
   * The validator says the same.
   */
  private def refusedAdapter(tokens: IndexedSeq[Token], k: Int): Option[String] = {
    def w(i: Int, word: String) = tokens.lift(i).exists(_.isWord(word))
    if (w(k, "SERVER")) Some(ServerDetail)
    else if (w(k, "FOREIGN") && w(k + 1, "TABLE")) Some(ForeignTableDetail)
    else if ((w(k, "FOREIGN") && w(k + 1, "DATA") && w(k + 2, "WRAPPER")) || w(k, "JAR")) Some(JavaCodeDetail)
    else if (w(k, "FUNCTION") && tokens.indices.exists(i => w(i, "LANGUAGE") && w(i + 1, "JAVA"))) Some(JavaCodeDetail)
    else None
  }

  val ServerDetail: String = "s-Server's CREATE SERVER (a connection through a foreign data wrapper) has no overjoin " +
    "form: declare what it connects to as a stream (CREATE STREAM name (cols) WITH (format = 'kinesis' | 'kafka' | " +
    "'json', ...)) or, for a database, as a Spark table (CREATE TABLE name USING jdbc OPTIONS (...))"
  val ForeignTableDetail: String = "s-Server's CREATE FOREIGN TABLE has no overjoin form: read the table as a Spark " +
    "table (CREATE TABLE name USING jdbc OPTIONS (url '...', dbtable '...')) and join a stream with it"
  val JavaCodeDetail: String = "s-Server's CREATE JAR, CREATE FOREIGN DATA WRAPPER and Java functions load Java code " +
    "into s-Server: overjoin runs Spark's, so give the jar to the server (overjoin server --jars) and register each " +
    "function with Spark's CREATE FUNCTION name AS 'class'"

  /** Why s-Server's `CREATE PUMP ... AS MERGE INTO table ...` is refused (the validator says the same). */
  val MergeDetail: String = "a pump inserts into a stream; s-Server's MERGE INTO (an upsert into a foreign table) " +
    "has no overjoin form: write INSERT INTO a stream, and merge that stream's rows into the table with Spark " +
    "(MERGE INTO a Delta or Iceberg table)"

  /** Why `ALTER STREAM ... PAUSE | RESUME` is refused, and what to write (the validator says the same). */
  val PauseDetail: String = "overjoin does not pause a stream's rows (s-Server's PAUSE and RESUME): stop the pumps " +
    "that write or read it with ALTER PUMP ... STOP, and start them with ALTER PUMP ... START (a pump resumes where it stopped)"

  private[streams] def quoteIfNeeded(name: String): String =
    if (name.matches("[A-Za-z_][A-Za-z0-9_]*")) name else "`" + name.replace("`", "``") + "`"
}
