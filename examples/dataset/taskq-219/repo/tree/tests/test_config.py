import pytest

from taskq.config import ConfigError, env_overrides, from_dict, load


def test_defaults_and_queue_settings():
    config = from_dict({"queues": {"invoices": {"max_attempts": 3, "retry_base": 2.0}}})
    assert config.worker.lease_ttl == 30.0
    assert config.queue("invoices").retry_policy().max_attempts == 3
    assert config.queue("unknown").max_attempts == 5


def test_environment_overrides_the_file(tmp_path):
    path = tmp_path / "taskq.toml"
    path.write_text('[worker]\nlease_ttl = 20.0\nconcurrency = 4\n')
    config = load(path, environ={"TASKQ_WORKER__LEASE_TTL": "60", "TASKQ_METRICS__ENABLED": "yes", "HOME": "/root"})
    assert config.worker.lease_ttl == 60.0
    assert config.worker.concurrency == 4
    assert config.metrics.enabled is True
    assert env_overrides({"TASKQ_NOPE__X": "1", "TASKQ_STORE__DSN": "sqlite:///tmp/q.db"}) == {"store": {"dsn": "sqlite:///tmp/q.db"}}


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"worker": {"lease_tll": 30}}, "unknown key"),
        ({"workers": {}}, "unknown section"),
        ({"worker": {"concurrency": "many"}}, "expected int"),
        ({"worker": {"lease_ttl": 4.0}, "reaper": {"interval": 5.0}}, "reaper.interval"),
        ({"store": {"dsn": "mysql://db/taskq"}}, "unsupported scheme"),
        ({"queues": {"q": {"retry_base": 10.0, "retry_cap": 5.0}}}, "retry_base"),
    ],
)
def test_invalid_configurations_name_the_key(raw, message):
    with pytest.raises(ConfigError, match=message):
        from_dict(raw)


def test_bad_toml_is_a_config_error(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[worker\nlease_ttl = 1")
    with pytest.raises(ConfigError):
        load(path, environ={})
