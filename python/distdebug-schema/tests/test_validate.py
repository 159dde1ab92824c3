import json

import pytest

from distdebug_schema import Problem, validate


def diagnosis(*blocks):
    return {"format": "distdebug.diagnosis/1", "incidentId": "zookeeper-2845", "blocks": list(blocks)}


@pytest.mark.parametrize(
    "name",
    ["examples/files/diagnosis.json", "examples/files/trajectory.json", "examples/dataset/dataset.json"],
)
def test_accepts_the_repository_examples(repository, name):
    assert validate(repository / name) == []


def test_accepts_a_run_config_yaml_when_pyyaml_is_there(repository):
    pytest.importorskip("yaml")
    assert validate(repository / "examples" / "files" / "config.yaml") == []


def test_names_start_line_with_the_key_it_means():
    problems = validate(diagnosis({"path": "src/A.java", "start_line": 129, "end_line": 135}))
    assert problems == [
        Problem("$.blocks[0].start_line", 'a known key (did you mean "startLine"?)', 'the unknown key "start_line"'),
        Problem("$.blocks[0].end_line", 'a known key (did you mean "endLine"?)', 'the unknown key "end_line"'),
    ]
    assert str(problems[0]) == (
        '$.blocks[0].start_line: expected a known key (did you mean "startLine"?), found the unknown key "start_line"'
    )


def test_lists_the_known_keys_when_none_is_close():
    (problem,) = validate(diagnosis({"path": "a.go", "confidence": 0.9}))
    assert problem.path == "$.blocks[0].confidence"
    assert problem.expected == 'one of the keys "path", "startLine", "endLine", "symbol", "reason"'


def test_gives_json_paths_for_wrong_values_and_missing_fields():
    problems = validate({"format": "distdebug.diagnosis/1", "blocks": [{"path": "a.go", "startLine": 0}]})
    assert Problem("$.incidentId", "a value (the field is required)", "nothing (the field is missing)") in problems
    assert Problem("$.blocks[0].startLine", "minimum 1", "the number 0") in problems


def test_a_block_needs_a_path_or_a_symbol():
    problems = validate(diagnosis({"startLine": 3}))
    assert problems and all(problem.path.startswith("$.blocks[0]") for problem in problems)
    assert validate(diagnosis({"symbol": "A.b"})) == []


def test_tells_the_kind_from_format_and_refuses_other_kinds(tmp_path):
    assert validate({"format": "distdebug.gold/1"}, kind="diagnosis") == [
        Problem("$.format", '"distdebug.diagnosis/1"', 'the string "distdebug.gold/1"')
    ]
    (newer,) = validate({"format": "distdebug.diagnosis/2"})
    assert "a newer DistDebug wrote this file" in newer.expected
    (none,) = validate({"incidentId": "x"})
    assert none.path == "$.format" and none.found == "nothing (the field is missing)"
    broken = tmp_path / "diagnosis.json"
    broken.write_text("{not json")
    (not_json,) = validate(broken)
    assert not_json.expected == "a JSON document" and "line 1, column 2" in not_json.found


def test_a_valid_value_passes_through_json_unchanged():
    value = diagnosis({"path": "a.go", "startLine": 1, "endLine": 2, "reason": "r"}, {"symbol": "A.b"})
    assert validate(json.loads(json.dumps(value))) == []
