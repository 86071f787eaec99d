// overjoin's JVM module, for people who have sbt and the internet.
//
// The project's own build does not use this file: `pip install .` compiles the same sources
// with the Scala compiler that ships in pyspark's wheel (see build_backend/overjoin_build.py).
// Keep the versions here in step with that build: Scala 2.13.18, Spark 4.3.0.

ThisBuild / organization := "io.overjoin"
ThisBuild / version      := "0.1.0"
ThisBuild / scalaVersion := "2.13.18"

val sparkVersion = "4.3.0"

lazy val overjoin = (project in file("jvm"))
  .settings(
    name := "overjoin",
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql"       % sparkVersion % Provided,
      "org.apache.spark" %% "spark-catalyst"  % sparkVersion % Provided,
      "org.apache.spark" %% "spark-core"      % sparkVersion % Provided
    ),
    // The error catalogue is shared with the Python validator: one file, two readers.
    Compile / unmanagedResourceDirectories += baseDirectory.value / ".." / "python" / "overjoin" / "resources",
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release", "17"),
    // The jar name the Python package looks for.
    artifactName := { (_: ScalaVersion, _: ModuleID, _: Artifact) => "overjoin.jar" }
  )
