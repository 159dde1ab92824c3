package dev.streamlog.clients.producer

import java.util.concurrent.ConcurrentHashMap
import scala.collection.mutable
import scala.jdk.CollectionConverters._

import dev.streamlog.common.{ApiException, ErrorCode, TopicPartition}

/** A record waiting in a batch, with the callback to complete when the batch is acknowledged. */
final case class PendingRecord(key: Option[Array[Byte]], value: Option[Array[Byte]], timestamp: Long,
    callback: Either[Exception, Long] => Unit)

/** Records of one partition that are sent together. */
final class ProducerBatch(val topicPartition: TopicPartition, val createdMs: Long, maxBytes: Int) {
  val records = mutable.ArrayBuffer.empty[PendingRecord]
  var sizeInBytes = 61
  var attempts = 0
  var lastAttemptMs: Long = createdMs
  var baseSequence: Int = -1

  def tryAppend(record: PendingRecord): Boolean = {
    val size = 24 + record.key.map(_.length).getOrElse(0) + record.value.map(_.length).getOrElse(0)
    if (records.nonEmpty && sizeInBytes + size > maxBytes) false
    else {
      records += record
      sizeInBytes += size
      true
    }
  }

  /** Completes every record: with its offset (base + index) or with the error. */
  def done(baseOffset: Long, error: Option[Exception]): Unit =
    records.zipWithIndex.foreach { case (r, i) => r.callback(error.toLeft(baseOffset + i)) }
}

/**
 * Collects records into per-partition batches. A batch is ready to send when it is full,
 * when it waited `linger.ms`, or when the producer is flushing. Failed batches are put
 * back at the head of their partition's queue after `retry.backoff.ms`, so order within a
 * partition is kept; a batch older than `delivery.timeout.ms` fails instead.
 */
final class RecordAccumulator(batchSize: Int, lingerMs: Long, retryBackoffMs: Long, deliveryTimeoutMs: Long) {
  private val batches = new ConcurrentHashMap[TopicPartition, mutable.ArrayDeque[ProducerBatch]]()
  @volatile private var flushing = false

  private def dequeFor(tp: TopicPartition) = batches.computeIfAbsent(tp, _ => mutable.ArrayDeque.empty[ProducerBatch])

  /** Appends a record; returns true if a new batch was created (the partitioner may switch). */
  def append(tp: TopicPartition, record: PendingRecord, nowMs: Long): Boolean = {
    val deque = dequeFor(tp)
    deque.synchronized {
      if (deque.lastOption.exists(_.tryAppend(record))) false
      else {
        val batch = new ProducerBatch(tp, nowMs, batchSize)
        batch.tryAppend(record)
        deque.append(batch)
        true
      }
    }
  }

  /** Partitions with a batch that may be sent now. */
  def ready(nowMs: Long): Set[TopicPartition] = batches.asScala.collect {
    case (tp, deque) if deque.synchronized(deque.headOption.exists(b => isSendable(b, deque.size > 1, nowMs))) => tp
  }.toSet

  private def isSendable(batch: ProducerBatch, full: Boolean, nowMs: Long): Boolean = {
    val backingOff = batch.attempts > 0 && nowMs - batch.lastAttemptMs < retryBackoffMs
    !backingOff && (full || flushing || batch.sizeInBytes >= batchSize || nowMs - batch.createdMs >= lingerMs)
  }

  /** Takes the head batch of each ready partition, up to `maxBytes` in total. */
  def drain(partitions: Set[TopicPartition], maxBytes: Int, nowMs: Long): Seq[ProducerBatch] = {
    var size = 0
    partitions.toSeq.flatMap { tp =>
      val deque = dequeFor(tp)
      deque.synchronized {
        deque.headOption match {
          case Some(b) if size == 0 || size + b.sizeInBytes <= maxBytes =>
            size += b.sizeInBytes
            b.attempts += 1
            b.lastAttemptMs = nowMs
            Some(deque.removeHead())
          case _ => None
        }
      }
    }
  }

  /** Puts a batch that failed with a retriable error back at the head of its queue. */
  def reenqueue(batch: ProducerBatch, nowMs: Long): Unit = {
    batch.lastAttemptMs = nowMs
    val deque = dequeFor(batch.topicPartition)
    deque.synchronized(deque.prepend(batch))
  }

  /** Fails and removes batches that have waited longer than the delivery timeout. */
  def expireBatches(nowMs: Long): Seq[ProducerBatch] = batches.values().asScala.toSeq.flatMap { deque =>
    deque.synchronized {
      val expired = deque.takeWhile(b => nowMs - b.createdMs >= deliveryTimeoutMs).toSeq
      expired.foreach { b =>
        deque.removeHead()
        b.done(-1L, Some(new ApiException(ErrorCode.REQUEST_TIMED_OUT,
          s"Expiring ${b.records.size} record(s) for ${b.topicPartition}: ${nowMs - b.createdMs} ms has passed since batch creation")))
      }
      expired
    }
  }

  def beginFlush(): Unit = flushing = true
  def endFlush(): Unit = flushing = false
  def hasUndrained: Boolean = batches.values().asScala.exists(d => d.synchronized(d.nonEmpty))
}
