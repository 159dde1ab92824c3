package dev.streamlog.config

import java.util.Properties

import org.scalatest.funsuite.AnyFunSuite

class BrokerConfigSpec extends AnyFunSuite {

  private def props(kv: (String, String)*): Properties = {
    val p = new Properties()
    p.setProperty("broker.id", "1")
    kv.foreach { case (k, v) => p.setProperty(k, v) }
    p
  }

  test("defaults apply to keys that are not set") {
    val config = new BrokerConfig(props())
    assert(config.logCleanerMinCleanableRatio == 0.5)
    assert(config.logIndexIntervalBytes == 4096)
    assert(config.logCleanupPolicy == List("delete"))
  }

  test("broker.id is required") {
    assertThrows[ConfigException](new BrokerConfig(new Properties()))
  }

  test("values are checked against their validators") {
    val e = intercept[ConfigException](new BrokerConfig(props("log.cleaner.min.cleanable.ratio" -> "1.5")))
    assert(e.getMessage.contains("between"))
    assertThrows[ConfigException](new BrokerConfig(props("log.cleanup.policy" -> "compact,archive")))
  }

  test("min.insync.replicas cannot exceed the default replication factor") {
    assertThrows[ConfigException](new BrokerConfig(props("min.insync.replicas" -> "2")))
    assert(new BrokerConfig(props("min.insync.replicas" -> "2", "default.replication.factor" -> "3")).minInsyncReplicas == 2)
  }

  test("topic overrides fall back to the broker defaults") {
    val broker = new BrokerConfig(props("log.retention.ms" -> "1000"))
    val topic = new Properties()
    topic.setProperty("cleanup.policy", "compact")
    val resolved = TopicConfig.resolve(broker, topic)
    assert(resolved.compact && !resolved.delete)
    assert(resolved.retentionMs == 1000L)
    topic.setProperty("retention.hours", "1")
    assertThrows[ConfigException](TopicConfig.resolve(broker, topic))
  }
}
