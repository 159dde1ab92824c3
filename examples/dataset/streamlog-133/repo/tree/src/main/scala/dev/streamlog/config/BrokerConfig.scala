package dev.streamlog.config

import java.io.{File, FileInputStream}
import java.util.Properties

import dev.streamlog.config.ConfigType._
import dev.streamlog.config.Validator.{atLeast, between, in}

/** The broker's `server.properties`, parsed and validated. */
final class BrokerConfig(props: Properties) {
  private val values: Map[String, Any] = BrokerConfig.definition.parse(props)

  private def int(name: String): Int = values(name).asInstanceOf[Int]
  private def long(name: String): Long = values(name).asInstanceOf[Long]
  private def double(name: String): Double = values(name).asInstanceOf[Double]
  private def bool(name: String): Boolean = values(name).asInstanceOf[Boolean]
  private def string(name: String): String = values(name).asInstanceOf[String]
  private def list(name: String): List[String] = values(name).asInstanceOf[List[String]]

  val brokerId: Int = int("broker.id")
  val listeners: List[String] = list("listeners")
  val logDirs: List[File] = list("log.dirs").map(new File(_))
  val numNetworkThreads: Int = int("num.network.threads")
  val numIoThreads: Int = int("num.io.threads")
  val queuedMaxRequests: Int = int("queued.max.requests")
  val socketRequestMaxBytes: Int = int("socket.request.max.bytes")
  val maxConnectionsPerIp: Int = int("max.connections.per.ip")
  val connectionsMaxIdleMs: Long = long("connections.max.idle.ms")

  val logSegmentBytes: Int = int("log.segment.bytes")
  val logRollMs: Long = long("log.roll.ms")
  val logIndexIntervalBytes: Int = int("log.index.interval.bytes")
  val logIndexSizeMaxBytes: Int = int("log.index.size.max.bytes")
  val logRetentionMs: Long = long("log.retention.ms")
  val logRetentionBytes: Long = long("log.retention.bytes")
  val logRetentionCheckIntervalMs: Long = long("log.retention.check.interval.ms")
  val logCleanupPolicy: List[String] = list("log.cleanup.policy")
  val logFlushIntervalMessages: Long = long("log.flush.interval.messages")

  val logCleanerEnable: Boolean = bool("log.cleaner.enable")
  val logCleanerThreads: Int = int("log.cleaner.threads")
  val logCleanerDedupeBufferSize: Long = long("log.cleaner.dedupe.buffer.size")
  val logCleanerMinCleanableRatio: Double = double("log.cleaner.min.cleanable.ratio")
  val logCleanerDeleteRetentionMs: Long = long("log.cleaner.delete.retention.ms")
  val logCleanerBackoffMs: Long = long("log.cleaner.backoff.ms")

  val defaultReplicationFactor: Int = int("default.replication.factor")
  val minInsyncReplicas: Int = int("min.insync.replicas")
  val replicaLagTimeMaxMs: Long = long("replica.lag.time.max.ms")
  val replicaFetchMaxBytes: Int = int("replica.fetch.max.bytes")
  val replicaFetchBackoffMs: Long = long("replica.fetch.backoff.ms")
  val numReplicaFetchers: Int = int("num.replica.fetchers")
  val uncleanLeaderElectionEnable: Boolean = bool("unclean.leader.election.enable")

  val groupMinSessionTimeoutMs: Int = int("group.min.session.timeout.ms")
  val groupMaxSessionTimeoutMs: Int = int("group.max.session.timeout.ms")
  val groupInitialRebalanceDelayMs: Int = int("group.initial.rebalance.delay.ms")
  val offsetsRetentionMinutes: Int = int("offsets.retention.minutes")
  val interBrokerProtocolVersion: String = string("inter.broker.protocol.version")

  validateRelations()

  /** Checks that need more than one key. */
  private def validateRelations(): Unit = {
    if (groupMinSessionTimeoutMs > groupMaxSessionTimeoutMs)
      throw new ConfigException(s"group.min.session.timeout.ms ($groupMinSessionTimeoutMs) must not be larger than group.max.session.timeout.ms ($groupMaxSessionTimeoutMs)")
    if (minInsyncReplicas > defaultReplicationFactor)
      throw new ConfigException(s"min.insync.replicas ($minInsyncReplicas) is larger than default.replication.factor ($defaultReplicationFactor): acks=all produce could never succeed")
    if (replicaFetchMaxBytes < 1024)
      throw new ConfigException("replica.fetch.max.bytes must hold at least one batch header")
    if (logCleanerEnable && logCleanerDedupeBufferSize / logCleanerThreads < 1024 * 1024)
      throw new ConfigException(s"log.cleaner.dedupe.buffer.size ($logCleanerDedupeBufferSize) must give each of the $logCleanerThreads cleaner threads at least 1 MB")
    if (logIndexSizeMaxBytes % 8 != 0)
      throw new ConfigException(s"log.index.size.max.bytes ($logIndexSizeMaxBytes) must be a multiple of the index entry size (8)")
  }
}

object BrokerConfig {
  val definition: ConfigDef = new ConfigDef()
    .defineRequired("broker.id", IntType, "The id of this broker, unique in the cluster.")
    .define("listeners", ListType, List("PLAINTEXT://:9092"), "Listener URIs to bind.")
    .define("log.dirs", ListType, List("/tmp/streamlog-logs"), "Directories holding the partition logs.")
    .define("num.network.threads", IntType, 3, atLeast(1), "Threads reading requests and writing responses.")
    .define("num.io.threads", IntType, 8, atLeast(1), "Threads handling requests.")
    .define("queued.max.requests", IntType, 500, atLeast(1), "Requests queued for the handlers before network threads block.")
    .define("socket.request.max.bytes", IntType, 100 * 1024 * 1024, atLeast(1), "Largest request accepted.")
    .define("max.connections.per.ip", IntType, Int.MaxValue, atLeast(0), "Connections allowed from one address.")
    .define("connections.max.idle.ms", LongType, 10 * 60 * 1000L, "Idle connections are closed after this long.")
    .define("log.segment.bytes", IntType, 1024 * 1024 * 1024, atLeast(14), "Size at which a segment is rolled.")
    .define("log.roll.ms", LongType, 7 * 24 * 60 * 60 * 1000L, atLeast(1), "Age at which a segment is rolled.")
    .define("log.index.interval.bytes", IntType, 4096, atLeast(0), "Bytes between offset index entries.")
    .define("log.index.size.max.bytes", IntType, 10 * 1024 * 1024, atLeast(8), "Maximum size of an offset index.")
    .define("log.retention.ms", LongType, 7 * 24 * 60 * 60 * 1000L, "Age after which segments are deleted; -1 keeps them.")
    .define("log.retention.bytes", LongType, -1L, "Size per partition above which old segments are deleted; -1 for no limit.")
    .define("log.retention.check.interval.ms", LongType, 5 * 60 * 1000L, atLeast(1), "How often retention runs.")
    .define("log.cleanup.policy", ListType, List("delete"), in("delete", "compact"), "delete, compact or both.")
    .define("log.flush.interval.messages", LongType, Long.MaxValue, atLeast(1), "Messages between forced flushes.")
    .define("log.cleaner.enable", BooleanType, true, "Run the cleaner for compacted topics.")
    .define("log.cleaner.threads", IntType, 1, atLeast(1), "Cleaner threads.")
    .define("log.cleaner.dedupe.buffer.size", LongType, 128 * 1024 * 1024L, "Memory for the offset maps of all cleaner threads.")
    .define("log.cleaner.min.cleanable.ratio", DoubleType, 0.5, between(0, 1), "Dirty ratio above which a log is cleaned.")
    .define("log.cleaner.delete.retention.ms", LongType, 24 * 60 * 60 * 1000L, atLeast(0), "How long tombstones are kept after cleaning.")
    .define("log.cleaner.backoff.ms", LongType, 15 * 1000L, atLeast(0), "Sleep when there is nothing to clean.")
    .define("default.replication.factor", IntType, 1, atLeast(1), "Replication factor of automatically created topics.")
    .define("min.insync.replicas", IntType, 1, atLeast(1), "Replicas that must acknowledge an acks=all write.")
    .define("replica.lag.time.max.ms", LongType, 30000L, atLeast(1), "A follower not caught up for this long leaves the ISR.")
    .define("replica.fetch.max.bytes", IntType, 1024 * 1024, atLeast(0), "Bytes fetched per partition by followers.")
    .define("replica.fetch.backoff.ms", LongType, 1000L, atLeast(0), "Sleep after a fetch error.")
    .define("num.replica.fetchers", IntType, 1, atLeast(1), "Fetcher threads per source broker.")
    .define("unclean.leader.election.enable", BooleanType, false, "Allow out-of-sync replicas to become leader, losing data.")
    .define("group.min.session.timeout.ms", IntType, 6000, "Smallest session timeout a consumer may ask for.")
    .define("group.max.session.timeout.ms", IntType, 1800000, "Largest session timeout a consumer may ask for.")
    .define("group.initial.rebalance.delay.ms", IntType, 3000, atLeast(0), "Delay of the first rebalance of an empty group.")
    .define("offsets.retention.minutes", IntType, 7 * 24 * 60, atLeast(1), "Committed offsets of empty groups are kept this long.")
    .define("inter.broker.protocol.version", StringType, "0.14", in("0.12", "0.13", "0.14"), "Protocol version between brokers.")

  def fromFile(file: File): BrokerConfig = {
    val props = new Properties()
    val in = new FileInputStream(file)
    try props.load(in)
    finally in.close()
    new BrokerConfig(props)
  }
}
