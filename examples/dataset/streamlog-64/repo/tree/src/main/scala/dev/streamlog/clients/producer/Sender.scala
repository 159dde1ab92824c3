package dev.streamlog.clients.producer

import com.typesafe.scalalogging.LazyLogging
import dev.streamlog.clients.{Metadata, Node}
import dev.streamlog.common.{ApiException, ErrorCode, Time, TopicPartition}

/** Sends produce requests for drained batches; implemented over the NetworkClient. */
trait ProduceChannel {
  def ready(node: Node, nowMs: Long): Boolean
  def send(node: Node, acks: Short, timeoutMs: Int, batches: Seq[ProducerBatch],
      onResponse: Map[TopicPartition, (ErrorCode, Long)] => Unit, onDisconnect: () => Unit): Unit
  def poll(timeoutMs: Long): Unit
}

/**
 * The producer's I/O thread: drains ready batches per leader, sends them, and completes
 * or retries them from the response. Retriable errors put the batch back in the
 * accumulator (at most `retries` times); errors that mean the leader moved also request a
 * metadata refresh.
 */
final class Sender(
    accumulator: RecordAccumulator,
    metadata: Metadata,
    channel: ProduceChannel,
    acks: Short,
    retries: Int,
    requestTimeoutMs: Int,
    maxRequestSize: Int,
    time: Time
) extends Runnable with LazyLogging {

  @volatile private var running = true

  override def run(): Unit = {
    while (running || accumulator.hasUndrained) {
      try runOnce()
      catch { case e: Exception => logger.error("Uncaught error in the producer sender thread", e) }
    }
  }

  def initiateClose(): Unit = running = false

  private[producer] def runOnce(): Unit = {
    val now = time.milliseconds
    val ready = accumulator.ready(now)
    val byLeader = ready.groupBy(tp => metadata.leaderFor(tp))
    byLeader.get(None).foreach { unknown =>
      metadata.requestUpdate(s"no leader for ${unknown.mkString(", ")}")
    }
    for ((Some(leader), partitions) <- byLeader if channel.ready(leader, now)) {
      val batches = accumulator.drain(partitions, maxRequestSize, now)
      if (batches.nonEmpty) {
        channel.send(leader, acks, requestTimeoutMs, batches,
          results => handleResponse(batches, results),
          () => batches.foreach(b => completeOrRetry(b, ErrorCode.NETWORK_EXCEPTION, -1L)))
      }
    }
    accumulator.expireBatches(now).foreach { b =>
      logger.warn(s"Expired batch of ${b.records.size} records for ${b.topicPartition}")
    }
    channel.poll(if (ready.isEmpty) 100L else 0L)
  }

  private def handleResponse(batches: Seq[ProducerBatch], results: Map[TopicPartition, (ErrorCode, Long)]): Unit =
    for (batch <- batches) {
      val (error, baseOffset) = results.getOrElse(batch.topicPartition, (ErrorCode.UNKNOWN_SERVER_ERROR, -1L))
      completeOrRetry(batch, error, baseOffset)
    }

  private def completeOrRetry(batch: ProducerBatch, error: ErrorCode, baseOffset: Long): Unit = {
    val now = time.milliseconds
    error match {
      case ErrorCode.NONE =>
        batch.done(baseOffset, None)
      case ErrorCode.DUPLICATE_SEQUENCE_NUMBER =>
        // the broker already has this batch from an earlier attempt whose response was lost
        batch.done(baseOffset, None)
      case e if e.retriable && batch.attempts <= retries =>
        logger.warn(s"Got error produce response on topic-partition ${batch.topicPartition}, retrying " +
          s"(${retries - batch.attempts + 1} attempts left). Error: $e")
        if (e == ErrorCode.NOT_LEADER_OR_FOLLOWER || e == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || e == ErrorCode.NETWORK_EXCEPTION)
          metadata.requestUpdate(s"produce to ${batch.topicPartition} failed with $e")
        accumulator.reenqueue(batch, now)
      case e =>
        batch.done(-1L, Some(new ApiException(e, s"${batch.topicPartition} after ${batch.attempts} attempt(s)")))
    }
  }
}
