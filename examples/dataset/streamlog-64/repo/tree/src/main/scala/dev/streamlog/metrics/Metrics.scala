package dev.streamlog.metrics

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.DoubleAdder
import scala.jdk.CollectionConverters._

import dev.streamlog.common.Time

/**
 * A named group of statistics recorded together, e.g. request latency as avg and max, or
 * bytes in as a rate and a total.
 */
final class Sensor(val name: String, time: Time, samples: Int, windowMs: Long) {
  private val avg = new Avg(samples, windowMs)
  private val max = new Max(samples, windowMs)
  private val rate = new Rate(samples, windowMs)
  private val total = new DoubleAdder

  def record(value: Double): Unit = {
    val now = time.milliseconds
    avg.record(value, now)
    max.record(value, now)
    rate.record(value, now)
    total.add(value)
  }

  def values: Map[String, Double] = {
    val now = time.milliseconds
    Map(s"$name-avg" -> avg.measure(now), s"$name-max" -> max.measure(now), s"$name-rate" -> rate.measure(now),
      s"$name-total" -> total.sum())
  }
}

/** The registry of a broker or client: sensors and gauges by name, exported by reporters. */
final class Metrics(time: Time, samples: Int = 2, windowMs: Long = 30000L) {
  private val sensors = new ConcurrentHashMap[String, Sensor]()
  private val gauges = new ConcurrentHashMap[String, () => Double]()

  def sensor(name: String): Sensor = sensors.computeIfAbsent(name, n => new Sensor(n, time, samples, windowMs))

  def gauge(name: String, value: () => Double): Unit = gauges.put(name, value)

  def removeSensor(name: String): Unit = sensors.remove(name)

  /** Every current value, sorted by name. */
  def snapshot: Seq[(String, Double)] = {
    val fromSensors = sensors.values().asScala.flatMap(_.values)
    val fromGauges = gauges.asScala.map { case (n, g) => n -> g() }
    (fromSensors ++ fromGauges).toSeq.sortBy(_._1)
  }

  /** The Prometheus text format; NaN (no samples yet) is written as Prometheus spells it. */
  def prometheusText(prefix: String): String = {
    val sb = new StringBuilder
    for ((name, value) <- snapshot) {
      val metric = s"${prefix}_${name.replace('-', '_')}"
      sb.append(metric).append(' ').append(if (value.isNaN) "NaN" else value.toString).append('\n')
    }
    sb.toString
  }
}
