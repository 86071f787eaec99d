package io.overjoin.server

import java.io.File
import java.net.InetAddress
import java.nio.charset.StandardCharsets
import java.nio.file.Files

/**
 * The command line of [[OverjoinServer]] (normally built by `overjoin server`, the Python launcher).
 *
 * The token is never taken from the command line (it would show in `ps`): it comes from
 * `--token-file` or the environment variable `OVERJOIN_SERVER_TOKEN`.
 */
final case class ServerOptions(
    stateDir: File,
    host: String,
    thriftPort: Int,
    connectPort: Int,
    token: Option[String],
    triggerMillis: Long,
    graceMillis: Long) {

  def isLoopback: Boolean = ServerOptions.isLoopback(host)
}

object ServerOptions {
  val TokenEnv = "OVERJOIN_SERVER_TOKEN"

  def isLoopback(host: String): Boolean =
    try InetAddress.getByName(host).isLoopbackAddress catch { case _: java.net.UnknownHostException => false }

  /** Parses `--key value` pairs; throws IllegalArgumentException with a user-facing message. */
  def parse(args: Seq[String], env: Map[String, String]): ServerOptions = {
    val known = Set("state-dir", "host", "thrift-port", "connect-port", "token-file", "trigger-ms", "grace-ms")
    var opts = Map.empty[String, String]
    var rest = args.toList
    while (rest.nonEmpty) rest match {
      case k :: v :: tail if k.startsWith("--") && known(k.stripPrefix("--")) =>
        opts += k.stripPrefix("--") -> v; rest = tail
      case k :: _ => throw new IllegalArgumentException(s"unknown or incomplete option: $k")
      case Nil => ()
    }
    def port(key: String, default: Int): Int = {
      val p = opts.get(key).map(v => scala.util.Try(v.toInt).getOrElse(-1)).getOrElse(default)
      if (p < 1 || p > 65535) throw new IllegalArgumentException(s"--$key must be a port number (1-65535)")
      p
    }
    val token = opts.get("token-file").map { f =>
      new String(Files.readAllBytes(new File(f).toPath), StandardCharsets.UTF_8).trim
    }.orElse(env.get(TokenEnv).map(_.trim)).filter(_.nonEmpty)
    ServerOptions(
      stateDir = new File(opts.getOrElse("state-dir", "overjoin-state")).getAbsoluteFile,
      host = opts.getOrElse("host", "127.0.0.1"),
      thriftPort = port("thrift-port", 10000),
      connectPort = port("connect-port", 15002),
      token = token,
      triggerMillis = opts.get("trigger-ms").map(_.toLong).getOrElse(1000L),
      graceMillis = opts.get("grace-ms").map(_.toLong).getOrElse(10000L))
  }
}
