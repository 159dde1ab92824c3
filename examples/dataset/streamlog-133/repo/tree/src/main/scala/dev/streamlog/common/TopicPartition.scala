package dev.streamlog.common

/** A partition of a topic; printed and parsed as `topic-partition`, the form used in file names. */
final case class TopicPartition(topic: String, partition: Int) {
  require(partition >= 0, s"negative partition $partition for topic $topic")

  override def toString: String = s"$topic-$partition"
}

object TopicPartition {

  /** Parses `orders-11`; the topic itself may contain dashes, the partition is after the last one. */
  def parse(text: String): TopicPartition = {
    val dash = text.lastIndexOf('-')
    if (dash <= 0 || dash == text.length - 1)
      throw new IllegalArgumentException(s"'$text' is not of the form topic-partition")
    TopicPartition(text.substring(0, dash), text.substring(dash + 1).toInt)
  }
}
