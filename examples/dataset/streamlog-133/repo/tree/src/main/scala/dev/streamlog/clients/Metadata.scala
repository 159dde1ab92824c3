package dev.streamlog.clients

import com.typesafe.scalalogging.LazyLogging
import dev.streamlog.common.TopicPartition

/** One partition as metadata describes it. */
final case class PartitionInfo(tp: TopicPartition, leader: Option[Node], leaderEpoch: Int, replicas: Seq[Int], isr: Seq[Int])

/**
 * The client's cache of cluster metadata: brokers, and per partition its leader. Refreshed
 * every `metadata.max.age.ms`, and sooner when a request failed with a stale-leader error,
 * but never more often than `retry.backoff.ms`.
 */
final class Metadata(refreshBackoffMs: Long, metadataMaxAgeMs: Long) extends LazyLogging {
  private var partitions = Map.empty[TopicPartition, PartitionInfo]
  private var nodes = Map.empty[Int, Node]
  private var lastRefreshMs = 0L
  private var lastSuccessfulRefreshMs = 0L
  private var needUpdate = true
  private var version = 0

  def requestUpdate(reason: String): Unit = synchronized {
    if (!needUpdate) logger.debug(s"Requesting metadata update: $reason")
    needUpdate = true
  }

  /** Milliseconds until the next refresh should be sent (0 means now). */
  def timeToNextUpdate(nowMs: Long): Long = synchronized {
    val expiry = if (needUpdate) 0L else math.max(lastSuccessfulRefreshMs + metadataMaxAgeMs - nowMs, 0L)
    val backoff = math.max(lastRefreshMs + refreshBackoffMs - nowMs, 0L)
    math.max(expiry, backoff)
  }

  /**
   * Installs a metadata response. A partition whose leader epoch went backwards keeps its
   * cached entry: the response came from a broker with stale metadata.
   */
  def update(brokers: Seq[Node], infos: Seq[PartitionInfo], nowMs: Long): Unit = synchronized {
    nodes = brokers.map(n => n.id -> n).toMap
    partitions = infos.map { info =>
      partitions.get(info.tp) match {
        case Some(cached) if cached.leaderEpoch > info.leaderEpoch =>
          logger.debug(s"Not replacing cached metadata of ${info.tp}: epoch ${info.leaderEpoch} is older than ${cached.leaderEpoch}")
          info.tp -> cached
        case _ => info.tp -> info
      }
    }.toMap
    needUpdate = false
    lastRefreshMs = nowMs
    lastSuccessfulRefreshMs = nowMs
    version += 1
  }

  def failedUpdate(nowMs: Long): Unit = synchronized { lastRefreshMs = nowMs }

  def leaderFor(tp: TopicPartition): Option[Node] = synchronized(partitions.get(tp).flatMap(_.leader))

  def partitionCount(topic: String): Option[Int] = synchronized {
    val count = partitions.keys.count(_.topic == topic)
    if (count == 0) None else Some(count)
  }

  def node(id: Int): Option[Node] = synchronized(nodes.get(id))

  def updateVersion: Int = synchronized(version)
}
