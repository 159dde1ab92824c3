import random

from taskq.retry import RetryPolicy


def test_delay_is_capped():
    policy = RetryPolicy(base=1.0, cap=10.0)
    rng = random.Random(7)
    assert all(policy.next_delay(n, rng) <= 10.0 for n in range(1, 20))


def test_value_errors_are_not_retried():
    policy = RetryPolicy()
    assert not policy.should_retry(ValueError("bad payload"), 1)
    assert policy.should_retry(ConnectionError("reset"), 1)
    assert not policy.should_retry(ConnectionError("reset"), 5)
