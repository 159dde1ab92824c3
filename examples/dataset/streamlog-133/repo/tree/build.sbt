ThisBuild / organization := "dev.streamlog"
ThisBuild / scalaVersion := "2.13.14"
ThisBuild / version      := "0.14.0"

lazy val coordinator = (project in file("."))
  .settings(
    name := "streamlog-coordinator",
    libraryDependencies ++= Seq(
      "com.typesafe.scala-logging" %% "scala-logging"   % "3.9.5",
      "ch.qos.logback"              % "logback-classic" % "1.5.6",
      "org.scalatest"              %% "scalatest"       % "3.2.18" % Test
    )
  )
