package io.overjoin.server

import java.io.{File, IOException}
import java.net.{InetSocketAddress, ServerSocket, Socket}
import java.util.concurrent.{CountDownLatch, TimeUnit}

import org.apache.hadoop.util.ShutdownHookManager
import org.apache.hive.service.server.HiveServer2
import org.apache.spark.internal.Logging
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.connect.service.SparkConnectService
import org.apache.spark.sql.hive.thriftserver.HiveThriftServer2

import io.overjoin.streams.PumpManager

/**
 * `overjoin server`: one JVM serving HiveServer2 Thrift (JDBC/ODBC, beeline, PyHive) and Spark
 * Connect on one root SparkSession with overjoin loaded, and owning the pumps.
 *
 * Order of start-up: both ports checked free; root session built (Hive catalog, Derby metastore and
 * warehouse under the state dir); catalog touched; pumps restored; shutdown hook registered;
 * Thrift started; Connect started; both ports probed; then the one ready line on stdout.
 *
 * Started by the Python launcher with overjoin.jar on the driver class path (not only on
 * `spark.jars`: HiveServer2 closes a session's class loaders when the session closes, and classes of
 * a jar loaded through them stop loading).
 */
object OverjoinServer extends Logging {

  @volatile private var thrift: HiveServer2 = _
  @volatile private var connectStarted = false

  def main(args: Array[String]): Unit = {
    val opts = try ServerOptions.parse(args.toSeq, sys.env) catch {
      case e: IllegalArgumentException => fail(2, e.getMessage)
      case e: IOException => fail(2, s"cannot read the token file: ${e.getMessage}")
    }
    if (!opts.isLoopback && opts.token.isEmpty) {
      fail(2, s"refusing to listen on ${opts.host} without authentication: give --token-file " +
        s"(or set ${ServerOptions.TokenEnv}), or use a loopback host such as 127.0.0.1")
    }
    for ((what, port) <- Seq("thrift" -> opts.thriftPort, "connect" -> opts.connectPort)) {
      checkBindable(opts.host, port).foreach(msg => fail(3, s"$what port ${opts.host}:$port is not free: $msg"))
    }
    if (opts.thriftPort == opts.connectPort) fail(2, "--thrift-port and --connect-port must differ")

    val state = opts.stateDir
    new File(state, "tmp/local-scratch").mkdirs()
    // derby.log goes to the state dir. NOT derby.system.home: that breaks the in-memory Derby of
    // Spark's execution Hive client (new JDBC sessions then fail to open).
    System.setProperty("derby.stream.error.file", new File(state, "derby.log").getPath)

    val spark = buildSession(opts)
    spark.catalog.currentDatabase // the metastore starts here, not in the first client's session
    spark.sql("SHOW DATABASES").collect()

    PumpManager.init(spark, state, opts.triggerMillis, opts.graceMillis)
    val restored = PumpManager.restore()
    logInfo(s"overjoin server: pumps restored: ${restored.mkString(", ")}")

    val stopped = new CountDownLatch(1)
    // Hadoop runs higher priorities first; Spark's own hooks (SparkContext.stop) run at 40.
    ShutdownHookManager.get().addShutdownHook(() => {
      try shutdown() finally stopped.countDown()
    }, 100, 120, TimeUnit.SECONDS)

    try {
      thrift = HiveThriftServer2.startWithSparkSession(spark, false)
      SparkConnectService.start(spark.sparkContext)
      connectStarted = true
      waitForPort(opts.host, opts.thriftPort)
      waitForPort(opts.host, opts.connectPort)
    } catch {
      case e: Throwable =>
        System.err.println(s"overjoin server: failed to start: $e")
        logError("overjoin server: failed to start", e)
        // Free when checked above, taken since (by another process, or by one of this JVM's own
        // ports, which the system picks from its ephemeral range): the same status as taken before.
        val taken = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).exists(_.isInstanceOf[java.net.BindException])
        if (taken) fail(3, "a port was taken while the server started (see the line above); choose ports " +
          s"outside the system's ephemeral range (${ephemeralRange.getOrElse("see ip_local_port_range")}) or start again")
        System.exit(1)
    }
    val shown = if (opts.host.contains(":")) s"[${opts.host}]" else opts.host
    // uiWebUrl names the machine's host name; the UI listens on SPARK_LOCAL_IP (loopback) only.
    val ui = spark.sparkContext.uiWebUrl.flatMap(u => sys.env.get("SPARK_LOCAL_IP").map { ip =>
      val host = if (ip.contains(":")) s"[$ip]" else ip
      s" ui=http://$host:${new java.net.URI(u).getPort}"
    }).getOrElse("")
    println(s"overjoin server ready thrift=$shown:${opts.thriftPort} connect=$shown:${opts.connectPort}$ui")
    System.out.flush()
    System.err.println(s"overjoin server: state in $state, log in ${new File(state, "server.log")}")
    stopped.await()
  }

  /** Linux's range of ports the system hands out to `bind(0)`, as "low-high". */
  private def ephemeralRange: Option[String] =
    scala.util.Try {
      val src = scala.io.Source.fromFile("/proc/sys/net/ipv4/ip_local_port_range")
      try src.mkString.trim.split("\\s+").mkString("-") finally src.close()
    }.toOption

  private def fail(code: Int, message: String): Nothing = {
    System.err.println(s"overjoin server: $message")
    System.exit(code)
    throw new IllegalStateException(message)
  }

  private def buildSession(opts: ServerOptions): SparkSession = {
    val state = opts.stateDir
    def path(p: String) = new File(state, p).getPath
    val b = SparkSession.builder()
      .appName("overjoin-server")
      .config("spark.sql.extensions", "io.overjoin.OverjoinExtensions")
      .config("spark.sql.warehouse.dir", path("warehouse"))
      .config("spark.hadoop.javax.jdo.option.ConnectionURL",
        s"jdbc:derby:;databaseName=${path("metastore_db")};create=true")
      .config("spark.hadoop.hive.exec.scratchdir", path("tmp/hive-scratch"))
      .config("spark.hadoop.hive.exec.local.scratchdir", path("tmp/local-scratch"))
      .config("spark.hadoop.hive.server2.logging.operation.log.location", path("tmp/operation_logs"))
      .config("spark.hadoop.hive.downloaded.resources.dir", path("tmp/resources"))
      // Streams are written by pumps in other sessions: no session may keep a stale file listing.
      .config("spark.sql.metadataCacheTTLSeconds", "2")
      .config("spark.sql.streaming.stopTimeout", "30000")
      // HiveServer2 takes its HiveConf from the root session's conf.
      .config("hive.server2.thrift.bind.host", opts.host)
      .config("hive.server2.thrift.port", opts.thriftPort.toString)
      .config("hive.server2.thrift.max.worker.threads", "64")
      // Spark Connect reads SparkConf; without an address it would listen on every interface.
      .config("spark.connect.grpc.binding.address", opts.host)
      .config("spark.connect.grpc.binding.port", opts.connectPort.toString)
      .enableHiveSupport()
    // The Spark UI has no authentication: it binds to SPARK_LOCAL_IP (0.0.0.0 without it), so it
    // runs only when that is a loopback address (the launcher sets 127.0.0.1), whatever --host says.
    val localIp = sys.env.get("SPARK_LOCAL_IP")
    if (!localIp.exists(ServerOptions.isLoopback)) {
      b.config("spark.ui.enabled", "false")
      logWarning(s"the Spark UI is off: SPARK_LOCAL_IP (${localIp.getOrElse("unset")}) is not a loopback address")
    }
    opts.token.foreach { token =>
      b.config("spark.connect.authenticate.token", token)
      b.config("hive.server2.authentication", "CUSTOM")
      System.setProperty(TokenAuthenticator.TokenProperty, token)
      // Hive reads the class name from a new HiveConf (system properties), not the server's conf.
      System.setProperty("hive.server2.custom.authentication.class", classOf[TokenAuthenticator].getName)
    }
    b.getOrCreate()
  }

  /** Stops pumps (at a batch boundary when possible), then Connect, then Thrift. Safe to call once any step failed. */
  private def shutdown(): Unit = {
    val t0 = System.currentTimeMillis()
    System.err.println("overjoin server: stopping")
    try PumpManager.stopAll() catch { case e: Throwable => logWarning("stopping pumps", e) }
    if (connectStarted) {
      try SparkConnectService.stop(Some(10L), Some(TimeUnit.SECONDS))
      catch { case e: Throwable => logWarning("stopping Spark Connect", e) }
    }
    if (thrift != null) {
      try thrift.stop() catch { case e: Throwable => logWarning("stopping the Thrift server", e) }
    }
    System.err.println(s"overjoin server: stopped in ${System.currentTimeMillis() - t0} ms")
  }

  private def checkBindable(host: String, port: Int): Option[String] = {
    if (port == 0) return None
    val s = new ServerSocket()
    try { s.setReuseAddress(true); s.bind(new InetSocketAddress(host, port)); None }
    catch { case e: IOException => Some(e.getMessage) }
    finally s.close()
  }

  private def waitForPort(host: String, port: Int): Unit = {
    val deadline = System.currentTimeMillis() + 60000
    var ok = false
    while (!ok) {
      val s = new Socket()
      try { s.connect(new InetSocketAddress(host, port), 500); ok = true }
      catch { case e: IOException => if (System.currentTimeMillis() > deadline) throw e; Thread.sleep(50) }
      finally s.close()
    }
  }
}
