ThisBuild / organization := "dev.streamlog"
ThisBuild / scalaVersion := "2.13.14"
ThisBuild / version      := "0.12.0"

lazy val core = (project in file("."))
  .settings(
    name := "streamlog-core",
    libraryDependencies ++= Seq(
      "com.typesafe.scala-logging" %% "scala-logging"   % "3.9.5",
      "ch.qos.logback"              % "logback-classic" % "1.5.6",
      "org.scalatest"              %% "scalatest"       % "3.2.18" % Test
    ),
    scalacOptions ++= Seq("-deprecation", "-feature", "-Xlint")
  )
