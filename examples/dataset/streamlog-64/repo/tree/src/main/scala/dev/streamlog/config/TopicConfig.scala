package dev.streamlog.config

import java.util.Properties

import dev.streamlog.config.ConfigType._
import dev.streamlog.config.Validator.{atLeast, between, in}

/**
 * Per-topic overrides of log settings. A key that is not overridden takes the broker's
 * `log.`-prefixed default, so topic configs are resolved against a BrokerConfig.
 */
final case class TopicConfig(
    cleanupPolicy: List[String],
    retentionMs: Long,
    retentionBytes: Long,
    segmentBytes: Int,
    segmentMs: Long,
    deleteRetentionMs: Long,
    minCleanableDirtyRatio: Double,
    minInsyncReplicas: Int
) {
  def compact: Boolean = cleanupPolicy.contains("compact")
  def delete: Boolean = cleanupPolicy.contains("delete")
}

object TopicConfig {
  private val overrides = new ConfigDef()
    .define("cleanup.policy", ListType, null, in("delete", "compact"), "delete, compact or both.")
    .define("retention.ms", LongType, null, "Age after which segments are deleted.")
    .define("retention.bytes", LongType, null, "Size above which old segments are deleted.")
    .define("segment.bytes", IntType, null, atLeast(14), "Segment size.")
    .define("segment.ms", LongType, null, atLeast(1), "Segment age before rolling.")
    .define("delete.retention.ms", LongType, null, atLeast(0), "How long tombstones survive compaction.")
    .define("min.cleanable.dirty.ratio", DoubleType, null, between(0, 1), "Dirty ratio above which the log is cleaned.")
    .define("min.insync.replicas", IntType, null, atLeast(1), "Replicas that must acknowledge an acks=all write.")

  def validNames: Set[String] = overrides.names

  /** Resolves overrides against the broker defaults; unknown keys are rejected. */
  def resolve(broker: BrokerConfig, topicProps: Properties): TopicConfig = {
    val unknown = topicProps.stringPropertyNames().toArray.map(_.toString).filterNot(validNames)
    if (unknown.nonEmpty) throw new ConfigException(s"Unknown topic config name: ${unknown.mkString(", ")}")
    val v = overrides.parse(topicProps)
    def get[T](name: String, default: T): T = Option(v(name)).map(_.asInstanceOf[T]).getOrElse(default)
    TopicConfig(
      cleanupPolicy = get("cleanup.policy", broker.logCleanupPolicy),
      retentionMs = get("retention.ms", broker.logRetentionMs),
      retentionBytes = get("retention.bytes", broker.logRetentionBytes),
      segmentBytes = get("segment.bytes", broker.logSegmentBytes),
      segmentMs = get("segment.ms", broker.logRollMs),
      deleteRetentionMs = get("delete.retention.ms", broker.logCleanerDeleteRetentionMs),
      minCleanableDirtyRatio = get("min.cleanable.dirty.ratio", broker.logCleanerMinCleanableRatio),
      minInsyncReplicas = get("min.insync.replicas", broker.minInsyncReplicas)
    )
  }
}
