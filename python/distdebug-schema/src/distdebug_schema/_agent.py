"""Helpers for command agents: read ``/task/task.json``, write ``/output/diagnosis.json``."""

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ._validate import Problem, validate

PathLike = Union[str, "os.PathLike[str]"]


class InvalidFile(ValueError):
    """A file or value that is not valid for its DistDebug format; ``problems`` lists why."""

    def __init__(self, source: str, problems: List[Problem]):
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  - {problem}" for problem in problems)
        super().__init__(f"{source}: {len(problems)} problem{'' if len(problems) == 1 else 's'}:\n{lines}")


@dataclass(frozen=True)
class Task:
    """The task of one attempt, as ``/task/task.json`` describes it."""

    folder: Path
    """The task folder (``/task`` inside the sandbox)."""
    manifest: Dict[str, Any]
    """``task.json`` as written."""
    id: str = field(init=False)
    title: str = field(init=False)
    report: str = field(init=False)
    """The incident report (``report.md``) as text."""
    artifacts: List[Dict[str, Any]] = field(init=False)
    """Each artifact with ``path`` (absolute), ``kind`` and ``description``."""
    workspace: Path = field(init=False)
    output: Path = field(init=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "id", self.manifest["id"])
        set_(self, "title", self.manifest["title"])
        set_(self, "report", (self.folder / self.manifest["report"]).read_text("utf-8"))
        set_(
            self,
            "artifacts",
            [{**artifact, "path": str(self.folder / artifact["path"])} for artifact in self.manifest["artifacts"]],
        )
        set_(self, "workspace", Path(self.manifest["workspace"]))
        set_(self, "output", Path(self.manifest["output"]))


def load_task(folder: PathLike = "/task") -> Task:
    """Reads and validates ``task.json`` of the task folder (default ``/task``, where the
    sandbox puts it); raises :class:`InvalidFile` listing its problems."""
    path = Path(folder) / "task.json"
    manifest = json.loads(path.read_text("utf-8"))
    problems = validate(manifest, kind="task")
    if problems:
        raise InvalidFile(str(path), problems)
    return Task(Path(folder), manifest)


def write_diagnosis(
    incident_id: str,
    blocks: Sequence[Mapping[str, Any]],
    summary: Optional[str] = None,
    output: PathLike = "/output",
) -> Path:
    """Validates a diagnosis and writes ``diagnosis.json`` into ``output`` (default ``/output``)
    atomically: a temporary file beside it, flushed, then renamed over it, so the harness never
    reads half a file. Each block is ``{"path", "startLine", "endLine"}``, ``{"path"}`` or
    ``{"symbol"}`` (see the diagnosis format). Raises :class:`InvalidFile` before writing anything
    when the diagnosis is not valid (a ``start_line`` key, a block without path or symbol).
    Returns the path written."""
    diagnosis: Dict[str, Any] = {
        "format": "distdebug.diagnosis/1",
        "incidentId": incident_id,
        "blocks": [dict(block) for block in blocks],
    }
    if summary is not None:
        diagnosis["summary"] = summary
    target = Path(output) / "diagnosis.json"
    problems = validate(diagnosis, kind="diagnosis")
    if problems:
        raise InvalidFile(str(target), problems)
    _write_atomic(target, json.dumps(diagnosis, indent=2) + "\n")
    return target


def _write_atomic(target: Path, text: str) -> None:
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
