package dev.streamlog.admin

import java.io.PrintStream

import dev.streamlog.common.ErrorCode
import dev.streamlog.config.TopicConfig

/**
 * `streamlog-topics`: create, list, describe, alter and delete topics.
 *
 * {{{
 * streamlog-topics --create --topic orders --partitions 12 --replication-factor 3 --config cleanup.policy=compact
 * streamlog-topics --describe [--topic orders] [--under-replicated-partitions]
 * streamlog-topics --alter --topic orders --partitions 24
 * }}}
 */
final class TopicCommand(admin: AdminClient, out: PrintStream) {
  import TopicCommand.Options

  def parse(args: Seq[String]): Options = {
    val actions = Seq("--create", "--list", "--describe", "--alter", "--delete").filter(args.contains)
    if (actions.size != 1) throw new IllegalArgumentException("Command must include exactly one action: --list, --describe, --create, --alter or --delete")
    def value(flag: String): Option[String] = args.indexOf(flag) match {
      case -1 => None
      case i if i + 1 < args.size => Some(args(i + 1))
      case _ => throw new IllegalArgumentException(s"Option $flag requires a value")
    }
    val configs = args.sliding(2).collect { case Seq("--config", kv) =>
      kv.split("=", 2) match {
        case Array(k, v) if TopicConfig.validNames(k) => k -> v
        case Array(k, _) => throw new IllegalArgumentException(s"Unknown topic config $k")
        case _ => throw new IllegalArgumentException(s"Invalid config $kv, expected key=value")
      }
    }.toMap
    Options(actions.head, value("--topic"), value("--partitions").map(_.toInt), value("--replication-factor").map(_.toInt),
      configs, args.contains("--under-replicated-partitions"))
  }

  def run(args: Seq[String]): Int = {
    val opts = parse(args)
    opts.action match {
      case "--list" => admin.listTopics().sorted.foreach(out.println); 0
      case "--describe" => describe(opts); 0
      case "--create" => create(opts)
      case "--alter" => alter(opts)
      case "--delete" => report(admin.deleteTopic(required(opts.topic, "--topic")), s"Deleted topic ${opts.topic.get}.")
    }
  }

  private def required[T](value: Option[T], flag: String): T =
    value.getOrElse(throw new IllegalArgumentException(s"Missing required argument $flag"))

  private def report(error: ErrorCode, success: String): Int = error match {
    case ErrorCode.NONE => out.println(success); 0
    case e => out.println(s"Error: ${e.message}"); 1
  }

  private def create(opts: Options): Int = {
    val topic = required(opts.topic, "--topic")
    val partitions = required(opts.partitions, "--partitions")
    val replicationFactor = required(opts.replicationFactor, "--replication-factor")
    val assignment = TopicCommand.assignReplicas(admin.brokerIds(), partitions, replicationFactor, startIndex = topic.hashCode.abs)
    report(admin.createTopic(topic, assignment, opts.configs), s"Created topic $topic.")
  }

  private def alter(opts: Options): Int = {
    val topic = required(opts.topic, "--topic")
    val wanted = required(opts.partitions, "--partitions")
    val current = admin.describeTopics(Seq(topic)).headOption.getOrElse(throw new IllegalArgumentException(s"Topic '$topic' does not exist"))
    if (wanted <= current.partitions.size)
      throw new IllegalArgumentException(s"The number of partitions for a topic can only be increased. Topic $topic currently has ${current.partitions.size} partitions, $wanted would not be an increase.")
    val rf = current.partitions.head.replicas.size
    val added = TopicCommand.assignReplicas(admin.brokerIds(), wanted, rf, startIndex = topic.hashCode.abs)
      .filter { case (p, _) => p >= current.partitions.size }
    report(admin.createPartitions(topic, added), s"Added ${added.size} partitions to $topic.")
  }

  private def describe(opts: Options): Unit = {
    val names = opts.topic.map(Seq(_)).getOrElse(admin.listTopics().sorted)
    for (t <- admin.describeTopics(names)) {
      val rf = t.partitions.headOption.map(_.replicas.size).getOrElse(0)
      if (!opts.underReplicatedOnly)
        out.println(s"Topic: ${t.name}\tPartitionCount: ${t.partitions.size}\tReplicationFactor: $rf\tConfigs: ${t.configs.map { case (k, v) => s"$k=$v" }.mkString(",")}")
      for (p <- t.partitions if !opts.underReplicatedOnly || p.isr.size < p.replicas.size)
        out.println(s"\tTopic: ${t.name}\tPartition: ${p.partition}\tLeader: ${if (p.leader < 0) "none" else p.leader}\t" +
          s"Replicas: ${p.replicas.mkString(",")}\tIsr: ${p.isr.mkString(",")}")
    }
  }
}

object TopicCommand {

  final case class Options(action: String, topic: Option[String], partitions: Option[Int], replicationFactor: Option[Int],
      configs: Map[String, String], underReplicatedOnly: Boolean)

  /**
   * Spreads leaders round-robin over the brokers from `startIndex`, and each partition's
   * followers after its leader with a shift that grows every full round, so that replicas
   * of consecutive partitions do not all land on the same broker pairs.
   */
  def assignReplicas(brokers: Seq[Int], partitions: Int, replicationFactor: Int, startIndex: Int): Map[Int, Seq[Int]] = {
    if (replicationFactor <= 0) throw new IllegalArgumentException("Replication factor must be larger than 0.")
    if (replicationFactor > brokers.size)
      throw new IllegalArgumentException(s"Replication factor: $replicationFactor larger than available brokers: ${brokers.size}.")
    val sorted = brokers.sorted.toIndexedSeq
    val n = sorted.size
    val span = math.max(1, n - 1)
    (0 until partitions).map { p =>
      val first = (startIndex + p) % n
      val secondShift = (startIndex + p / n) % span
      // offsets 1..n-1 from the leader, all different, so no broker holds two replicas
      val followers = (0 until replicationFactor - 1).map(j => sorted((first + 1 + (secondShift + j) % span) % n))
      p -> (sorted(first) +: followers)
    }.toMap
  }
}
