package dev.streamlog.storage

import java.nio.ByteBuffer
import java.util.zip.CRC32C

import dev.streamlog.common.{ApiException, ErrorCode}

/** One record inside a batch; offsets and timestamps are stored as deltas from the batch's. */
final case class BatchRecord(offset: Long, timestamp: Long, key: Array[Byte], value: Option[Array[Byte]]) {
  def isTombstone: Boolean = value.isEmpty
}

/**
 * The on-disk and on-the-wire unit of records (magic 2). Layout:
 *
 * {{{
 * baseOffset: int64, batchLength: int32, partitionLeaderEpoch: int32, magic: int8, crc: uint32,
 * attributes: int16, lastOffsetDelta: int32, baseTimestamp: int64, maxTimestamp: int64,
 * producerId: int64, producerEpoch: int16, baseSequence: int32, recordCount: int32, records...
 * }}}
 *
 * The CRC (CRC-32C) covers everything from the attributes to the end, so the broker can
 * rewrite the base offset and the leader epoch without recomputing it. Positions are
 * absolute: the buffer holds exactly one batch starting at index 0.
 */
final class RecordBatch(val buffer: ByteBuffer) {
  import RecordBatch._

  def baseOffset: Long = buffer.getLong(BaseOffsetPos)
  def sizeInBytes: Int = LogOverhead + buffer.getInt(LengthPos)
  def partitionLeaderEpoch: Int = buffer.getInt(LeaderEpochPos)
  def magic: Byte = buffer.get(MagicPos)
  def checksum: Long = Integer.toUnsignedLong(buffer.getInt(CrcPos))
  def attributes: Short = buffer.getShort(AttributesPos)
  def lastOffset: Long = baseOffset + buffer.getInt(LastOffsetDeltaPos)
  def nextOffset: Long = lastOffset + 1
  def baseTimestamp: Long = buffer.getLong(BaseTimestampPos)
  def maxTimestamp: Long = buffer.getLong(MaxTimestampPos)
  def producerId: Long = buffer.getLong(ProducerIdPos)
  def producerEpoch: Short = buffer.getShort(ProducerEpochPos)
  def baseSequence: Int = buffer.getInt(BaseSequencePos)
  def recordCount: Int = buffer.getInt(RecordCountPos)
  def isControl: Boolean = (attributes & ControlFlag) != 0
  def isTransactional: Boolean = (attributes & TransactionalFlag) != 0
  def hasProducerId: Boolean = producerId >= 0

  def computeChecksum: Long = {
    val crc = new CRC32C
    val view = buffer.duplicate()
    view.limit(sizeInBytes).position(AttributesPos)
    crc.update(view)
    crc.getValue
  }

  def isValid: Boolean = sizeInBytes >= HeaderSize && magic == CurrentMagic && checksum == computeChecksum

  def ensureValid(): Unit = {
    if (sizeInBytes < HeaderSize)
      throw new ApiException(ErrorCode.CORRUPT_MESSAGE, s"batch size $sizeInBytes is smaller than the header ($HeaderSize)")
    if (magic != CurrentMagic)
      throw new ApiException(ErrorCode.CORRUPT_MESSAGE, s"unsupported magic $magic at offset $baseOffset")
    if (checksum != computeChecksum)
      throw new ApiException(ErrorCode.CORRUPT_MESSAGE, s"batch at offset $baseOffset is corrupt (stored crc = $checksum, computed crc = $computeChecksum)")
  }

  /** Assigns offsets on the leader: only the base offset changes, the CRC stays valid. */
  def setBaseOffset(offset: Long): Unit = buffer.putLong(BaseOffsetPos, offset)

  def setPartitionLeaderEpoch(epoch: Int): Unit = buffer.putInt(LeaderEpochPos, epoch)

  def records: Iterator[BatchRecord] = {
    val view = buffer.duplicate()
    view.position(HeaderSize)
    val base = baseOffset
    val baseTs = baseTimestamp
    Iterator.fill(recordCount) {
      val offsetDelta = view.getInt()
      val timestampDelta = view.getLong()
      val key = new Array[Byte](view.getInt())
      view.get(key)
      val valueLength = view.getInt()
      val value =
        if (valueLength < 0) None
        else {
          val bytes = new Array[Byte](valueLength)
          view.get(bytes)
          Some(bytes)
        }
      BatchRecord(base + offsetDelta, baseTs + timestampDelta, key, value)
    }
  }

  override def toString: String =
    s"RecordBatch(baseOffset=$baseOffset, lastOffset=$lastOffset, count=$recordCount, size=$sizeInBytes, " +
      s"producerId=$producerId, epoch=$partitionLeaderEpoch)"
}

object RecordBatch {
  val CurrentMagic: Byte = 2
  val NoProducerId: Long = -1L
  val NoSequence: Int = -1
  val ControlFlag: Int = 0x20
  val TransactionalFlag: Int = 0x10

  private[storage] val BaseOffsetPos = 0
  private[storage] val LengthPos = 8
  val LogOverhead = 12
  private val LeaderEpochPos = 12
  private val MagicPos = 16
  private val CrcPos = 17
  private val AttributesPos = 21
  private val LastOffsetDeltaPos = 23
  private val BaseTimestampPos = 27
  private val MaxTimestampPos = 35
  private val ProducerIdPos = 43
  private val ProducerEpochPos = 51
  private val BaseSequencePos = 53
  private val RecordCountPos = 57
  val HeaderSize = 61

  /** Builds a batch of (key, value, timestamp) records with offsets from `baseOffset`. */
  def build(
      baseOffset: Long,
      records: Seq[(Array[Byte], Option[Array[Byte]], Long)],
      producerId: Long = NoProducerId,
      producerEpoch: Short = -1,
      baseSequence: Int = NoSequence,
      leaderEpoch: Int = -1
  ): RecordBatch = {
    require(records.nonEmpty, "a batch holds at least one record")
    val bodySize = records.map { case (k, v, _) => 4 + 8 + 4 + k.length + 4 + v.map(_.length).getOrElse(0) }.sum
    val buffer = ByteBuffer.allocate(HeaderSize + bodySize)
    val baseTimestamp = records.map(_._3).min
    buffer.putLong(baseOffset)
    buffer.putInt(HeaderSize + bodySize - LogOverhead)
    buffer.putInt(leaderEpoch)
    buffer.put(CurrentMagic)
    buffer.putInt(0) // crc, filled in below
    buffer.putShort(0)
    buffer.putInt(records.size - 1)
    buffer.putLong(baseTimestamp)
    buffer.putLong(records.map(_._3).max)
    buffer.putLong(producerId)
    buffer.putShort(producerEpoch)
    buffer.putInt(baseSequence)
    buffer.putInt(records.size)
    for (((key, value, timestamp), i) <- records.zipWithIndex) {
      buffer.putInt(i)
      buffer.putLong(timestamp - baseTimestamp)
      buffer.putInt(key.length)
      buffer.put(key)
      value match {
        case Some(v) => buffer.putInt(v.length); buffer.put(v)
        case None => buffer.putInt(-1)
      }
    }
    buffer.flip()
    val batch = new RecordBatch(buffer)
    buffer.putInt(CrcPos, batch.computeChecksum.toInt)
    batch
  }
}
