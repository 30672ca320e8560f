"""Beaker tools and a Beaker-graded reward for TRL's GRPOTrainer.

What it shows: plain Python tool functions, with type hints and Google-style docstrings, that TRL's
`GRPOTrainer(tools=[...])` offers to the model (transformers' `get_json_schema` turns each into the
function schema the chat template shows), each running its call on one shared in-process `beaker.Engine`
(docs/PYTHON_API.md); and `correctness_reward`, a reward function in TRL's signature
(`completions` plus the dataset's columns as keyword arguments, here `answer`) that grades each completion's
final answer with Beaker's `grade` tool. A tool returns the result as compact JSON, or the error and its
kind, so the model reads what went wrong (a tool's failure is never an exception).

    from trl import GRPOConfig, GRPOTrainer
    trainer = GRPOTrainer(model=..., args=GRPOConfig(...), train_dataset=dataset,   # columns: prompt, answer
                          tools=[calculator, unit_converter], reward_funcs=[correctness_reward])

TRL calls tools without telling them which rollout they belong to, so there are no per-trajectory budgets
here (examples/asyncio_rollouts.py and examples/skyrl_env.py have them). `main()` replays recorded
completions (tests/data/examples/trl_tools.completions.json): it runs each recorded tool call through the
functions, as TRL's tool loop does, and prints the conversations and their rewards:

    python examples/trl_tools.py
"""

import json
import sys
from pathlib import Path

import beaker

RECORDING = Path(__file__).resolve().parent.parent / "tests" / "data" / "examples" / "trl_tools.completions.json"
ENGINE = beaker.Engine(python=False)  # python=True adds execute_python & co. (minutes to warm up, once)


def _run(tool, params):
    env = ENGINE.call(tool, params)
    shown = env["result"] if env["success"] else {"error": env["error"], "error_kind": env["error_kind"]}
    return json.dumps(shown, ensure_ascii=False, separators=(",", ":"))


def calculator(expression: str) -> str:
    """Evaluates an arithmetic expression exactly (big integers and fractions in full).

    Args:
        expression: The expression, e.g. "2**100", "1/3 + 1/6" or "sqrt(2) * 3".

    Returns:
        The result as JSON ({"value": ..., "exact": ...}), or the error and its kind.
    """
    return _run("calculator", {"expression": expression})


def unit_converter(value: float, from_unit: str, to_unit: str) -> str:
    """Converts a quantity between units of the same dimension.

    Args:
        value: The number to convert.
        from_unit: The unit it is given in, e.g. "km/h".
        to_unit: The unit wanted, e.g. "m/s".

    Returns:
        The converted value as JSON ({"value": ..., "unit": ...}), or the error and its kind.
    """
    return _run("unit_converter", {"value": value, "from_unit": from_unit, "to_unit": to_unit})


TOOLS = {tool.__name__: tool for tool in (calculator, unit_converter)}


def final_text(completion):
    """The text to grade: a plain completion, or the last assistant message's content of a conversation."""
    if isinstance(completion, str):
        return completion
    contents = [m.get("content") or "" for m in completion if m.get("role", "assistant") == "assistant"]
    return contents[-1] if contents else ""


def correctness_reward(completions, answer, **kwargs) -> list[float]:
    """1.0 for each completion whose final answer Beaker grades equal to its reference answer, else 0.0."""
    rewards = []
    for completion, reference in zip(completions, answer):
        env = ENGINE.call("grade", {"answer": final_text(completion), "reference": str(reference)})
        rewards.append(1.0 if env["success"] and env["result"]["correct"] else 0.0)
    return rewards


def replay(turns):
    """A completion as TRL's tool loop builds it: each recorded assistant turn, then a `tool` message with the
    result of each of its calls."""
    completion = []
    for turn in turns:
        completion.append(turn)
        for call in turn.get("tool_calls", []):
            function = call["function"]
            result = TOOLS[function["name"]](**function["arguments"])
            completion.append({"role": "tool", "name": function["name"], "content": result})
    return completion


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0] if argv else RECORDING, encoding="utf-8") as f:
        samples = json.load(f)
    completions = [replay(sample["turns"]) for sample in samples]
    rewards = correctness_reward(completions, answer=[sample["answer"] for sample in samples])
    for sample, completion, reward in zip(samples, completions, rewards):
        print(json.dumps({"prompt": sample["prompt"], "answer": sample["answer"], "reward": reward,
                          "completion": completion}))
    # Completions as plain strings (a dataset without a chat template) are graded the same way.
    print(json.dumps({"plain": correctness_reward(["7 * 8 = \\boxed{56}", "It is 54."], answer=["56", "56"])}))


if __name__ == "__main__":
    main()
