package dev.streamlog.admin

import java.io.PrintStream

import dev.streamlog.common.{ErrorCode, TopicPartition}

/**
 * `streamlog-consumer-groups`: describe a group's members and lag, and reset its committed
 * offsets. Offsets can only be reset while the group is empty, otherwise the members would
 * overwrite them with their next commit.
 *
 * {{{
 * streamlog-consumer-groups --describe --group orders-consumers
 * streamlog-consumer-groups --reset-offsets --group orders-consumers --topic orders --to-earliest --execute
 * }}}
 */
final class ConsumerGroupCommand(admin: AdminClient, out: PrintStream) {
  import ConsumerGroupCommand._

  def run(args: Seq[String]): Int = {
    def value(flag: String): Option[String] = args.indexOf(flag) match {
      case -1 => None
      case i => args.lift(i + 1)
    }
    val group = value("--group").getOrElse(throw new IllegalArgumentException("--group is required"))
    if (args.contains("--describe")) { describe(group); 0 }
    else if (args.contains("--reset-offsets")) {
      val topic = value("--topic").getOrElse(throw new IllegalArgumentException("--topic is required to reset offsets"))
      val target =
        if (args.contains("--to-earliest")) Earliest
        else if (args.contains("--to-latest")) Latest
        else value("--to-offset").map(o => Exact(o.toLong)).getOrElse(throw new IllegalArgumentException("one of --to-earliest, --to-latest or --to-offset is required"))
      resetOffsets(group, topic, target, execute = args.contains("--execute"))
    } else throw new IllegalArgumentException("one of --describe or --reset-offsets is required")
  }

  /** Lag per partition: log end offset minus committed offset ("-" when nothing is committed). */
  def describe(groupId: String): Unit = {
    val group = admin.describeGroup(groupId)
    val committed = admin.committedOffsets(groupId)
    val owners = group.members.flatMap(m => m.partitions.map(_ -> m)).toMap
    val partitions = (committed.keySet ++ owners.keySet).toSeq.sortBy(tp => (tp.topic, tp.partition))
    val ends = admin.logEndOffsets(partitions)
    out.println(s"Consumer group '$groupId' is ${group.state} (generation ${group.generation}, ${group.members.size} members)")
    out.println(f"${"TOPIC"}%-20s ${"PARTITION"}%9s ${"CURRENT-OFFSET"}%15s ${"LOG-END-OFFSET"}%15s ${"LAG"}%8s  CONSUMER-ID")
    for (tp <- partitions) {
      val current = committed.get(tp)
      val end = ends.getOrElse(tp, -1L)
      val lag = current.filter(_ => end >= 0).map(c => (end - c).toString).getOrElse("-")
      val owner = owners.get(tp).map(m => s"${m.memberId} /${m.host}").getOrElse("-")
      out.println(f"${tp.topic}%-20s ${tp.partition}%9d ${current.map(_.toString).getOrElse("-")}%15s $end%15d $lag%8s  $owner")
    }
  }

  def resetOffsets(groupId: String, topic: String, target: ResetTarget, execute: Boolean): Int = {
    val group = admin.describeGroup(groupId)
    if (group.state != "Empty" && group.state != "Dead") {
      out.println(s"Error: Assignments can only be reset if the group '$groupId' is inactive, but the current state is ${group.state}.")
      return 1
    }
    val partitions = admin.describeTopics(Seq(topic)).flatMap(_.partitions).map(p => TopicPartition(topic, p.partition))
    val starts = admin.logStartOffsets(partitions)
    val ends = admin.logEndOffsets(partitions)
    val offsets = partitions.map { tp =>
      val offset = target match {
        case Earliest => starts(tp)
        case Latest => ends(tp)
        // an offset outside the log would make the consumers reset on their own; clamp it
        case Exact(o) => math.max(starts(tp), math.min(ends(tp), o))
      }
      tp -> offset
    }.toMap
    offsets.toSeq.sortBy(_._1.partition).foreach { case (tp, o) => out.println(s"$tp -> $o") }
    if (!execute) {
      out.println("Dry run only; add --execute to apply.")
      0
    } else {
      val failed = admin.alterCommittedOffsets(groupId, offsets).filter(_._2 != ErrorCode.NONE)
      failed.foreach { case (tp, e) => out.println(s"Error: could not reset $tp: ${e.message}") }
      if (failed.isEmpty) 0 else 1
    }
  }
}

object ConsumerGroupCommand {
  sealed trait ResetTarget
  case object Earliest extends ResetTarget
  case object Latest extends ResetTarget
  final case class Exact(offset: Long) extends ResetTarget
}
