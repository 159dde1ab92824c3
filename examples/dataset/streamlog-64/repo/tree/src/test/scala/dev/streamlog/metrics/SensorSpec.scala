package dev.streamlog.metrics

import dev.streamlog.common.MockTime
import org.scalatest.funsuite.AnyFunSuite

class SensorSpec extends AnyFunSuite {

  test("a sensor keeps avg, max and total of what it recorded") {
    val time = new MockTime()
    val metrics = new Metrics(time, samples = 2, windowMs = 1000L)
    val sensor = metrics.sensor("bytes-in")
    for (i <- 1 to 10) {
      sensor.record(i * 10.0)
      time.advance(50L)
    }
    val values = sensor.values
    assert(values("bytes-in-total") == 550.0)
    assert(values("bytes-in-max") == 100.0)
    assert(values("bytes-in-avg") == 55.0)
  }

  test("samples older than the whole window are forgotten") {
    val time = new MockTime()
    val sensor = new Metrics(time, samples = 2, windowMs = 1000L).sensor("latency")
    sensor.record(500.0)
    time.advance(5000L)
    sensor.record(20.0)
    assert(sensor.values("latency-max") == 20.0)
  }
}
