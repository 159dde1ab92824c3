package dev.streamlog.storage

import java.io.{File, IOException}
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, StandardCopyOption}
import scala.jdk.CollectionConverters._

import dev.streamlog.common.TopicPartition

/**
 * Offsets per partition in a text file: a version line, a count line, then
 * `topic partition offset` per line. Used for the recovery point and the replication
 * high watermark of every partition in a log directory. Writes replace the file
 * atomically, so a crash leaves either the old or the new checkpoint.
 */
final class OffsetCheckpointFile(val file: File) {
  import OffsetCheckpointFile.CurrentVersion

  private val lock = new Object

  def write(offsets: Map[TopicPartition, Long]): Unit = lock.synchronized {
    val lines = Seq(CurrentVersion.toString, offsets.size.toString) ++
      offsets.toSeq.sortBy { case (tp, _) => (tp.topic, tp.partition) }.map { case (tp, o) => s"${tp.topic} ${tp.partition} $o" }
    val tmp = new File(file.getAbsolutePath + ".tmp")
    Files.write(tmp.toPath, lines.mkString("", "\n", "\n").getBytes(StandardCharsets.UTF_8))
    Files.move(tmp.toPath, file.toPath, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
  }

  def read(): Map[TopicPartition, Long] = lock.synchronized {
    if (!file.exists()) return Map.empty
    val lines = Files.readAllLines(file.toPath, StandardCharsets.UTF_8).asScala.toList
    def malformed(detail: String) = new IOException(s"Malformed line in checkpoint file (${file.getAbsolutePath}): $detail")
    lines match {
      case version :: count :: entries =>
        if (version.trim.toIntOption.getOrElse(-1) != CurrentVersion)
          throw new IOException(s"Unrecognized version of the checkpoint file (${file.getAbsolutePath}): $version")
        val parsed = entries.filter(_.nonEmpty).map { line =>
          line.split(' ') match {
            case Array(topic, partition, offset) =>
              TopicPartition(topic, partition.toIntOption.getOrElse(throw malformed(line))) ->
                offset.toLongOption.getOrElse(throw malformed(line))
            case _ => throw malformed(line)
          }
        }
        if (count.trim.toIntOption.getOrElse(-1) != parsed.size)
          throw new IOException(s"Expected $count entries in checkpoint file (${file.getAbsolutePath}), but found only ${parsed.size}")
        parsed.toMap
      case _ => throw malformed("missing version or count")
    }
  }
}

object OffsetCheckpointFile {
  val CurrentVersion = 0
  val RecoveryPointFile = "recovery-point-offset-checkpoint"
  val HighWatermarkFile = "replication-offset-checkpoint"
}
