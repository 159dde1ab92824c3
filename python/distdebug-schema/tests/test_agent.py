import json
import os

import pytest

from distdebug_schema import InvalidFile, load_task, validate, write_diagnosis


@pytest.fixture
def task_folder(tmp_path, repository):
    manifest = json.loads((repository / "packages/schema/fixtures/valid/task.json").read_text())
    (tmp_path / "task.json").write_text(json.dumps(manifest))
    (tmp_path / "report.md").write_text("Tasks run twice after a worker pause.\n")
    return tmp_path


def test_load_task_reads_the_manifest_and_the_report(task_folder):
    task = load_task(task_folder)
    assert task.id == "taskq-219"
    assert task.report == "Tasks run twice after a worker pause.\n"
    assert task.artifacts[0]["path"] == str(task_folder / "logs/worker-1.log")
    assert str(task.output) == "/output" and str(task.workspace) == "/workspace"


def test_load_task_refuses_an_invalid_manifest(task_folder):
    manifest = json.loads((task_folder / "task.json").read_text())
    manifest["reportPath"] = "report.md"
    (task_folder / "task.json").write_text(json.dumps(manifest))
    with pytest.raises(InvalidFile) as caught:
        load_task(task_folder)
    assert caught.value.problems[0].path == "$.reportPath"
    assert str(caught.value).startswith(f"{task_folder / 'task.json'}: 1 problem:")


def test_write_diagnosis_writes_a_valid_file_atomically(tmp_path):
    path = write_diagnosis(
        "taskq-219",
        [{"path": "taskq/worker.py", "startLine": 40, "endLine": 52}, {"symbol": "Worker.ack"}],
        summary="the ack is sent after the lease expires",
        output=tmp_path,
    )
    assert path == tmp_path / "diagnosis.json"
    assert validate(path) == []
    assert json.loads(path.read_text())["blocks"][1] == {"symbol": "Worker.ack"}
    assert os.listdir(tmp_path) == ["diagnosis.json"]


def test_write_diagnosis_refuses_before_writing(tmp_path):
    (tmp_path / "diagnosis.json").write_text("previous")
    with pytest.raises(InvalidFile) as caught:
        write_diagnosis("taskq-219", [{"path": "a.py", "start_line": 3}], output=tmp_path)
    assert [problem.path for problem in caught.value.problems] == ["$.blocks[0].start_line"]
    assert (tmp_path / "diagnosis.json").read_text() == "previous"
    assert os.listdir(tmp_path) == ["diagnosis.json"]
