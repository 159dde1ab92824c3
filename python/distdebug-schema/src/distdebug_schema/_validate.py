"""``validate``: a DistDebug file or value checked against its JSON Schema, problems by JSON path."""

import json
import os
import re
from dataclasses import dataclass
from difflib import get_close_matches
from pathlib import Path
from typing import Any, Iterable, List, Optional, Sequence, Union

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from ._schemas import KINDS, schema_of

_TAG = re.compile(r"^distdebug\.([a-z_]+)/(\d+)$")
_MAJOR = 1


@dataclass(frozen=True)
class Problem:
    """One problem of a file: where (a JSON path such as ``$.blocks[0].startLine``), what the
    format expects there, and what the file has."""

    path: str
    expected: str
    found: str

    def __str__(self) -> str:
        return f"{self.path}: expected {self.expected}, found {self.found}"


def _json_path(parts: Iterable[Any]) -> str:
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.match(r"^[A-Za-z_$][\w$]*$", str(part)):
            out += f".{part}"
        else:
            out += f"[{json.dumps(str(part))}]"
    return out


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the string {json.dumps(shown)}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, list):
        return f"an array of {len(value)} item{'' if len(value) == 1 else 's'}"
    return "an object"


def _spelling(word: str) -> str:
    return re.sub(r"[-_\s]", "", word.lower())


def closest(word: str, candidates: Sequence[str]) -> Optional[str]:
    """The candidate ``word`` most plausibly misspells (``start_line`` -> ``startLine``), if any."""
    for candidate in candidates:
        if _spelling(candidate) == _spelling(word):
            return candidate
    found = get_close_matches(word, list(candidates), n=1, cutoff=0.75)
    return found[0] if found else None


def _unknown_keys(error: ValidationError) -> List[Problem]:
    instance = error.instance if isinstance(error.instance, dict) else {}
    known = list(error.schema.get("properties", {}).keys())
    problems = []
    for key in instance:
        if key in known:
            continue
        match = closest(key, known)
        expected = (
            f"a known key (did you mean {json.dumps(match)}?)"
            if match
            else "one of the keys " + ", ".join(json.dumps(name) for name in known)
        )
        problems.append(
            Problem(_json_path([*error.absolute_path, key]), expected, f"the unknown key {json.dumps(key)}")
        )
    return problems


def _problems_of(error: ValidationError) -> List[Problem]:
    if error.validator == "additionalProperties" and error.schema.get("additionalProperties") is False:
        return _unknown_keys(error)
    if error.validator in ("anyOf", "oneOf") and error.context:
        deepest = max(error.context, key=lambda inner: len(inner.absolute_path))
        if len(deepest.absolute_path) > len(error.absolute_path):
            return _problems_of(deepest)
    path = _json_path(error.absolute_path)
    if error.validator == "required":
        missing = re.search(r"'([^']+)' is a required property", error.message)
        name = missing.group(1) if missing else "?"
        return [Problem(_json_path([*error.absolute_path, name]), "a value (the field is required)", "nothing (the field is missing)")]
    expected = error.message
    if error.validator == "const":
        expected = json.dumps(error.validator_value)
    elif error.validator == "enum":
        expected = "one of " + ", ".join(json.dumps(value) for value in error.validator_value)
    elif error.validator == "type":
        expected = f"a value of type {error.validator_value}"
    elif error.validator in ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "pattern"):
        expected = f"{error.validator} {json.dumps(error.validator_value)}"
    return [Problem(path, expected, _describe(error.instance))]


def _read(source: Union[str, "os.PathLike[str]"]) -> Any:
    path = Path(source)
    text = path.read_text("utf-8")
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml  # type: ignore[import-untyped]
        except ImportError as error:  # pragma: no cover - depends on the environment
            raise ImportError("reading a YAML run config needs PyYAML: pip install 'distdebug-schema[yaml]'") from error
        value = yaml.safe_load(text)
        if isinstance(value, dict):
            value.setdefault("format", "distdebug.config/1")
        return value
    return json.loads(text)


def _kind_of(value: Any, kind: Optional[str]) -> Union[str, Problem]:
    tag = value.get("format") if isinstance(value, dict) else None
    match = _TAG.match(tag) if isinstance(tag, str) else None
    known = ", ".join(f"distdebug.{name}/{_MAJOR}" for name in KINDS)
    if match is None:
        if kind is not None:
            return kind
        return Problem("$.format", f"one of {known}", _describe(tag) if tag is not None else "nothing (the field is missing)")
    found, major = match.group(1), int(match.group(2))
    if kind is not None and found != kind:
        return Problem("$.format", json.dumps(f"distdebug.{kind}/{_MAJOR}"), _describe(tag))
    if found not in KINDS:
        return Problem("$.format", f"one of {known}", _describe(tag))
    if major > _MAJOR:
        return Problem("$.format", f"{json.dumps(f'distdebug.{found}/{_MAJOR}')} (a newer DistDebug wrote this file: upgrade distdebug-schema)", _describe(tag))
    return found


def validate(path_or_obj: Any, kind: Optional[str] = None) -> List[Problem]:
    """Checks a DistDebug file (a path: ``.json``, or ``.yaml`` run configs with PyYAML) or an
    already loaded value against the JSON Schema of its kind, told by its ``format`` field (or
    ``kind``). Returns every problem with its JSON path; an empty list means valid.

    Unknown keys are problems, with the key they most likely mean (``start_line`` ->
    ``startLine``). Two rules JSON Schema cannot say are left to ``distdebug validate``: a gold
    block's ``endLine >= startLine`` and the order of a repository history's commits.

    >>> validate({"format": "distdebug.diagnosis/1", "incidentId": "x", "blocks": []})
    []
    """
    if isinstance(path_or_obj, (str, os.PathLike)):
        try:
            value = _read(path_or_obj)
        except json.JSONDecodeError as error:
            return [Problem("$", "a JSON document", f"text that is not JSON (line {error.lineno}, column {error.colno}: {error.msg})")]
    else:
        value = path_or_obj
    chosen = _kind_of(value, kind)
    if isinstance(chosen, Problem):
        return [chosen]
    validator = Draft202012Validator(schema_of(chosen))
    errors = sorted(validator.iter_errors(value), key=lambda error: [str(part) for part in error.absolute_path])
    problems: List[Problem] = []
    for error in errors:
        for problem in _problems_of(error):
            if problem not in problems:
                problems.append(problem)
    return problems
