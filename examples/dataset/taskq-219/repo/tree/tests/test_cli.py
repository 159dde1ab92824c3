from taskq.cli import build_parser, main


def test_enqueue_prints_the_task_id(capsys, monkeypatch):
    monkeypatch.delenv("TASKQ_STORE__DSN", raising=False)
    assert main(["enqueue", "invoices", '{"customer": 40417}']) == 0
    task_id = capsys.readouterr().out.strip()
    assert len(task_id) == 32


def test_configuration_errors_exit_2(tmp_path, capsys):
    config = tmp_path / "taskq.toml"
    config.write_text("[worker]\nconcurrency = 0\n")
    assert main(["--config", str(config), "stats"]) == 2
    assert "worker.concurrency" in capsys.readouterr().err


def test_payload_must_be_an_object(capsys):
    assert main(["enqueue", "q", "[1, 2]"]) == 2
    assert "JSON object" in capsys.readouterr().err


def test_worker_needs_a_registry_spec():
    args = build_parser().parse_args(["worker", "billing.tasks:registry", "-q", "invoices"])
    assert args.registry == "billing.tasks:registry" and args.queue == ["invoices"]
