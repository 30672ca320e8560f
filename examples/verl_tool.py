"""A Beaker tool for verl's multi-turn rollouts, and a verl reward function that grades with Beaker.

What it shows: `BeakerTool`, a verl `BaseTool` (verl/tools/base_tool.py: `create`, `execute`, `calc_reward`,
`release`, with verl's signatures) whose calls run in-process on one shared `beaker.Engine`
(docs/PYTHON_API.md), without blocking the event loop (`engine.acall`). Each instance is a Beaker trajectory:
`create` opens it with a call budget (`config["max_calls"]`), `execute` tags its calls with the instance id
(a call past the budget is answered `limit_exceeded`, which the model reads), `calc_reward` grades an answer
against the instance's ground truth with Beaker's `grade` tool, and `release` closes the trajectory (it
returns the final stats; verl ignores them). `compute_score` is the same grade as a verl custom reward
function (`custom_reward_function.path=examples/verl_tool.py`, `name=compute_score`).

In verl, list the tool in the tool config YAML:

    tools:
      - class_name: examples.verl_tool.BeakerTool
        config: {type: native, max_calls: 8}
        tool_schema: {type: function, function: {name: calculator, description: ..., parameters: ...}}

The schema is Beaker's own (`beaker tools --format openai`), except that verl requires a `type` on every
property: unit_converter, statistics, logic_solver, chemistry and physics have enum-only or anyOf properties
that need one added. verl's `ToolAgentLoop` creates and releases an instance around every single call (so a
trajectory budget covers one call there); the SGLang multi-turn rollout keeps one instance per request and
calls `calc_reward` at its end, with no final response: then the instance's last tool value is graded (a loop
that has the final response passes it as `answer=`).

Without verl installed, a minimal stand-in with verl's signatures is used, so this file runs anywhere
`import beaker` works. `main()` replays a recorded episode (tests/data/examples/verl_tool.episode.json):

    python examples/verl_tool.py
"""

import asyncio
import json
import sys
import uuid
from pathlib import Path
from types import SimpleNamespace

import beaker

try:
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse
except ImportError:  # a stand-in with verl's signatures (verl/tools/base_tool.py, verl/tools/schemas.py)
    class ToolResponse:
        def __init__(self, text=None):
            self.text = text

    class OpenAIFunctionToolSchema:
        def __init__(self, spec):
            self.type, self.function = spec["type"], SimpleNamespace(**spec["function"])

        @classmethod
        def model_validate(cls, spec):
            return cls(spec)

    class BaseTool:
        def __init__(self, config, tool_schema):
            self.config = config
            self.tool_schema = tool_schema or self.get_openai_tool_schema()
            self.name = self.tool_schema.function.name

        def get_openai_tool_schema(self):
            return self.tool_schema

RECORDING = Path(__file__).resolve().parent.parent / "tests" / "data" / "examples" / "verl_tool.episode.json"
_engine = None


def engine():
    """One engine per process, shared by every tool and reward call (it is thread-safe)."""
    global _engine
    if _engine is None:
        _engine = beaker.Engine(python=False)  # True adds execute_python & co. (minutes to warm up, once)
    return _engine


async def grade(answer, reference):
    """1.0 when Beaker's grader finds `answer` equal to `reference`, else 0.0. Untagged: never refused by a
    trajectory's budget, and not counted among its tool calls."""
    env = await engine().acall("grade", {"answer": str(answer), "reference": str(reference)})
    return 1.0 if env["success"] and env["result"]["correct"] else 0.0


class BeakerTool(BaseTool):
    """One Beaker tool (the schema's function name) with a trajectory per instance."""

    def __init__(self, config, tool_schema):
        super().__init__(config, tool_schema)
        self.instances = {}

    async def create(self, instance_id=None, ground_truth=None, **kwargs):
        if instance_id is None:
            instance_id = str(uuid.uuid4())
        if ground_truth is None:
            ground_truth = kwargs.get("create_kwargs", {}).get("ground_truth")
        self.instances[instance_id] = {"ground_truth": ground_truth, "last_value": None}
        engine().set_trajectory(instance_id, max_calls=int(self.config.get("max_calls", 16)))
        return instance_id, ToolResponse()

    async def execute(self, instance_id, parameters, **kwargs):
        env = await engine().acall(self.name, parameters, tag=instance_id)
        if env["success"]:
            shown = env["result"]
            self.instances[instance_id]["last_value"] = shown.get("value")
        else:
            shown = {"error": env["error"], "error_kind": env["error_kind"]}
        metrics = {"success": env["success"], "error_kind": env.get("error_kind"), "elapsed_us": env["elapsed_us"]}
        return ToolResponse(text=json.dumps(shown, ensure_ascii=False, separators=(",", ":"))), 0.0, metrics

    async def calc_reward(self, instance_id, answer=None, **kwargs):
        state = self.instances[instance_id]
        if answer is None:
            answer = state["last_value"]
        if answer is None or state["ground_truth"] is None:
            return 0.0
        return await grade(answer, state["ground_truth"])

    async def release(self, instance_id, **kwargs):
        self.instances.pop(instance_id, None)
        return engine().close_trajectory(instance_id).get("stats")


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    """verl's custom reward function signature: the final response graded against the ground truth."""
    env = engine().call("grade", {"answer": solution_str, "reference": str(ground_truth)})
    return 1.0 if env["success"] and env["result"]["correct"] else 0.0


async def replay(episode):
    schema = next(s for s in engine().tools("openai") if s["function"]["name"] == episode["tool"])
    tool = BeakerTool({"type": "native", "max_calls": episode["max_calls"]},
                      OpenAIFunctionToolSchema.model_validate(schema))
    instance_id, _ = await tool.create(episode["instance_id"], ground_truth=episode["ground_truth"])
    lines = [{"event": "create", "instance_id": instance_id, "tool": tool.name}]
    for parameters in episode["calls"]:
        response, reward, metrics = await tool.execute(instance_id, parameters)
        metrics.pop("elapsed_us")  # timings vary from run to run
        lines.append({"event": "execute", "parameters": parameters, "response": response.text, "reward": reward,
                      "metrics": metrics})
    lines.append({"event": "calc_reward", "answer": episode["final"],
                  "reward": await tool.calc_reward(instance_id, answer=episode["final"])})
    lines.append({"event": "calc_reward", "answer": None, "reward": await tool.calc_reward(instance_id)})
    stats = await tool.release(instance_id)
    lines.append({"event": "release", "calls": stats["calls"], "errors_by_kind": stats["errors_by_kind"],
                  "remaining": stats["remaining"]})
    lines.append({"event": "compute_score", "reward": compute_score("beaker", episode["final"],
                                                                    episode["ground_truth"])})
    return lines


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0] if argv else RECORDING, encoding="utf-8") as f:
        episode = json.load(f)
    for line in asyncio.run(replay(episode)):
        print(json.dumps(line))


if __name__ == "__main__":
    main()
