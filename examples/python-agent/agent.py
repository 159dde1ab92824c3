#!/usr/bin/env python3
"""A DistDebug `command` agent in plain Python (standard library only).

Run inside the sandbox by `distdebug run` with configs/command/python-agent.yaml. It:
  1. reads /task/task.json and the report and artifacts it lists;
  2. greps the workspace (/workspace, the working directory) for the file names and
     identifiers the report and logs mention, and ranks the hits;
  3. when the config has a model, asks it through the DistDebug gateway (OPENAI_BASE_URL or
     ANTHROPIC_BASE_URL, a placeholder key: the real key never enters the sandbox) to pick the
     causal blocks among the candidates;
  4. writes /output/diagnosis.json and /output/trajectory.json.
Exit 0 when the diagnosis is written; any other exit makes the attempt an `agent-error`.
"""
import json
import os
import re
import sys
import time
import urllib.request

TASK = os.environ.get("DISTDEBUG_TASK", "/task")
WORKSPACE = os.environ.get("DISTDEBUG_WORKSPACE", "/workspace")
OUTPUT = os.environ.get("DISTDEBUG_OUTPUT", "/output")
SOURCE_SUFFIXES = (".go", ".java", ".py", ".rs", ".c", ".h", ".cc", ".cpp", ".hpp", ".scala")
MAX_BLOCKS = 8
# A definition line and the name it defines (Go, Python, Rust, C-like and JVM languages).
DEFINITION = re.compile(r"\b(?:func|def|fn|class|void|public|private|static)\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)")
STOP_WORDS = {"with", "that", "this", "from", "have", "when", "then", "there", "what", "will", "were", "info", "debug", "level", "true", "false", "null"}
steps = []


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())


def record(step):
    step["at"] = now()
    steps.append(step)


def read_task():
    with open(os.path.join(TASK, "task.json"), encoding="utf-8") as handle:
        task = json.load(handle)
    texts = [open(os.path.join(TASK, task["report"]), encoding="utf-8", errors="replace").read()]
    for artifact in task["artifacts"]:
        with open(os.path.join(TASK, artifact["path"]), encoding="utf-8", errors="replace") as handle:
            texts.append(handle.read())
    return task, "\n".join(texts)


def clues(text):
    """File names (with an optional line) and CamelCase or snake_case identifiers in the text."""
    files = {}
    for name, line in re.findall(r"([A-Za-z0-9_]+\.(?:go|java|py|rs|c|h|cc|cpp|hpp|scala))(?::(\d+))?", text):
        files.setdefault(name, set())
        if line:
            files[name].add(int(line))
    words = {word.lower() for word in re.findall(r"[A-Za-z][A-Za-z0-9_]{3,}", text)} - STOP_WORDS
    return files, words


def source_files():
    for folder, dirs, names in os.walk(WORKSPACE):
        dirs[:] = [name for name in dirs if not name.startswith(".")]
        for name in names:
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.relpath(os.path.join(folder, name), WORKSPACE)


def grep(files, words):
    """Candidate blocks: lines named by a stack trace, then lines defining a mentioned identifier."""
    candidates = []
    for path in source_files():
        base = os.path.basename(path)
        for line in sorted(files.get(base, ())):
            candidates.append({"path": path, "startLine": max(1, line - 2), "endLine": line + 2, "score": 3})
        if not words:
            continue
        try:
            with open(os.path.join(WORKSPACE, path), encoding="utf-8", errors="replace") as handle:
                lines = handle.read().split("\n")
        except OSError:
            continue
        for number, text in enumerate(lines, start=1):
            definition = DEFINITION.search(text)
            hits = [word for word in words if definition and word in definition.group(1).lower()]
            if hits:
                candidates.append({"path": path, "startLine": number, "endLine": min(len(lines), number + 4), "score": 1 + len(hits)})
    candidates.sort(key=lambda block: -block["score"])
    record({"type": "command", "command": "grep the workspace for the report's clues", "exitCode": 0,
            "output": "\n".join(f"{c['path']}:{c['startLine']}-{c['endLine']}" for c in candidates[:40])})
    return candidates


def ask_model(prompt):
    """One call through the gateway, OpenAI Chat Completions or Anthropic Messages, by the config's provider."""
    provider = os.environ.get("DISTDEBUG_MODEL_PROVIDER")
    if provider == "anthropic":
        url = os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages"
        body = {"model": os.environ["DISTDEBUG_MODEL_NAME"], "max_tokens": 1024, "messages": [{"role": "user", "content": prompt}]}
        headers = {"x-api-key": os.environ["ANTHROPIC_API_KEY"], "anthropic-version": "2023-06-01"}
    else:
        url = os.environ["OPENAI_BASE_URL"] + "/chat/completions"
        body = {"model": os.environ["DISTDEBUG_MODEL_NAME"], "max_tokens": 1024, "messages": [{"role": "user", "content": prompt}]}
        headers = {"authorization": "Bearer " + os.environ["OPENAI_API_KEY"]}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json", **headers})
    record({"type": "message", "role": "user", "content": prompt})
    with urllib.request.urlopen(request, timeout=600) as response:
        reply = json.load(response)
    text = reply["content"][0]["text"] if provider == "anthropic" else reply["choices"][0]["message"]["content"]
    # The gateway's measured call replaces this one in the merged trajectory.
    record({"type": "model-call", "model": body["model"], "inputTokens": 0, "outputTokens": 0})
    record({"type": "message", "role": "assistant", "content": text})
    return text


def choose(task, candidates):
    """The model's pick among the candidates (a JSON list of indexes), or the grep's top ranks."""
    top = candidates[:20]
    if not os.environ.get("DISTDEBUG_MODEL_PROVIDER") or not top:
        return top[:MAX_BLOCKS]
    listing = "\n".join(f"{index}: {c['path']}:{c['startLine']}-{c['endLine']}" for index, c in enumerate(top))
    prompt = (f"Incident {task['id']}: {task['title']}\nCandidate code blocks:\n{listing}\n"
              "Answer with a JSON list of the indexes of the blocks that cause the failure, most likely first.")
    try:
        picked = json.loads(re.search(r"\[[\d,\s]*\]", ask_model(prompt)).group(0))
        return [top[index] for index in picked if isinstance(index, int) and 0 <= index < len(top)][:MAX_BLOCKS]
    except (AttributeError, ValueError, OSError) as error:
        record({"type": "message", "role": "tool", "content": f"model unusable ({error}); keeping the grep's ranking"})
        return top[:MAX_BLOCKS]


def write_json(name, value):
    with open(os.path.join(OUTPUT, name), "w", encoding="utf-8") as handle:
        json.dump(value, handle, indent=2)


def main():
    started = now()
    task, text = read_task()
    files, words = clues(text)
    blocks = [{key: c[key] for key in ("path", "startLine", "endLine")} for c in choose(task, grep(files, words))]
    write_json("diagnosis.json", {"format": "distdebug.diagnosis/1", "incidentId": task["id"], "blocks": blocks,
                                  "summary": f"{len(blocks)} blocks named by the report's clues"})
    write_json("trajectory.json", {
        "format": "distdebug.trajectory/1", "incidentId": task["id"], "agent": {"name": "python-agent", "version": "1"},
        "exitStatus": "submitted", "usage": {"inputTokens": 0, "outputTokens": 0, "cachedTokens": 0, "calls": 0, "costUsd": None},
        "steps": steps, "startedAt": started, "endedAt": now()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
