"""The DistDebug file formats for Python: JSON Schemas, a validator, and command-agent helpers.

>>> from distdebug_schema import validate
>>> [problem.path for problem in validate({"format": "distdebug.diagnosis/1", "incidentId": "x",
...     "blocks": [{"path": "a.py", "start_line": 3}]})]
['$.blocks[0].start_line']
"""

from ._agent import InvalidFile, Task, load_task, write_diagnosis
from ._schemas import KINDS, schema_of
from ._validate import Problem, validate

__all__ = [
    "KINDS",
    "InvalidFile",
    "Problem",
    "Task",
    "load_task",
    "schema_of",
    "validate",
    "write_diagnosis",
]
__version__ = "0.1.0"
