"""A SkyRL-gym text environment whose tools are Beaker's.

What it shows: `BeakerEnv`, a `BaseTextEnv` (skyrl_gym/envs/base_text_env.py: `init(prompt) -> (prompt,
metadata)`, `step(action) -> BaseTextEnvStepOutput(observations, reward, done, metadata)`, `close()`),
built as SkyRL builds environments, `BeakerEnv(env_config, extras)`, with the ground truth in
`extras["reward_spec"]["ground_truth"]`. Each environment is one Beaker trajectory on a shared in-process
`beaker.Engine` (docs/PYTHON_API.md):

- `init` opens the trajectory with a call budget (`extras["max_calls"]`);
- `step` runs every tool call in the model's action (`engine.run_text(action, tag=...)`: `<tool_call>`
  tags, Hermes/Qwen JSON, Svend tokens, fenced JSON), and returns the results rendered in the model's own
  dialect as a `user` message, as SkyRL's search and SQL environments do; a call past the budget is answered
  `limit_exceeded` in that message, so the model reads it;
- an action without calls ends the episode, rewarded 1.0 when Beaker's `grade` finds its final answer equal
  to the ground truth; an episode still calling tools at `max_turns` ends with reward 0.0;
- `close` closes the trajectory and returns its stats (calls, errors by kind, what is left of the budget).

Register it with `skyrl_gym.envs.register(id="beaker", entry_point="examples.skyrl_env:BeakerEnv")` and set
`environment.env_class=beaker`. Without skyrl_gym installed, a minimal stand-in with the same names is used.
`main()` replays recorded episodes (tests/data/examples/skyrl_env.episodes.json) and prints every step:

    python examples/skyrl_env.py
"""

import json
import sys
import uuid
from pathlib import Path

import beaker

try:
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput
except ImportError:  # a stand-in with skyrl_gym's names and signatures
    class BaseTextEnv:
        def __init__(self):
            self.turns = 0
            self.max_turns = 1

        def init(self, prompt):
            return prompt, {}

        def close(self):
            pass

    BaseTextEnvStepOutput = dict  # a TypedDict: a plain dict at run time

RECORDING = Path(__file__).resolve().parent.parent / "tests" / "data" / "examples" / "skyrl_env.episodes.json"
ENGINE = beaker.Engine(python=False)  # python=True adds execute_python & co. (minutes to warm up, once)


class BeakerEnv(BaseTextEnv):
    def __init__(self, env_config=None, extras=None):
        super().__init__()
        extras = extras or {}
        self.ground_truth = str(extras["reward_spec"]["ground_truth"])
        self.max_turns = int(extras.get("max_turns", 5))
        self.max_calls = int(extras.get("max_calls", 16))
        self.tag = extras.get("tag") or str(uuid.uuid4())

    def init(self, prompt):
        ENGINE.set_trajectory(self.tag, max_calls=self.max_calls)
        return prompt, {}

    def step(self, action):
        self.turns += 1
        out = ENGINE.run_text(action, tag=self.tag)
        calls = [{"tool": c.get("tool"), "success": c["success"], "error_kind": c.get("error_kind")}
                 for c in out["calls"]]
        if not calls:  # the final answer
            grade = ENGINE.call("grade", {"answer": action, "reference": self.ground_truth})["result"]
            return BaseTextEnvStepOutput(observations=[], reward=1.0 if grade["correct"] else 0.0, done=True,
                                         metadata={"stop": "answer", "method": grade["method"],
                                                   "extracted": grade.get("extracted")})
        if self.turns >= self.max_turns:
            return BaseTextEnvStepOutput(observations=[], reward=0.0, done=True,
                                         metadata={"stop": "max_turns", "calls": calls})
        return BaseTextEnvStepOutput(observations=[{"role": "user", "content": out["text"]}], reward=0.0,
                                     done=False, metadata={"calls": calls})

    def close(self):
        return ENGINE.close_trajectory(self.tag).get("stats")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0] if argv else RECORDING, encoding="utf-8") as f:
        episodes = json.load(f)
    for episode in episodes:
        env = BeakerEnv({}, {"reward_spec": {"method": "rule", "ground_truth": episode["ground_truth"]},
                             "max_turns": episode["max_turns"], "max_calls": episode["max_calls"],
                             "tag": episode["tag"]})
        prompt, _ = env.init(episode["prompt"])
        conversation = list(prompt)
        for action in episode["actions"]:
            out = env.step(action)
            conversation += [{"role": "assistant", "content": action}] + out["observations"]
            print(json.dumps({"tag": env.tag, "turn": env.turns, **out}))
            if out["done"]:
                break
        stats = env.close()
        print(json.dumps({"tag": env.tag, "messages": len(conversation), "calls": stats["calls"],
                          "errors_by_kind": stats["errors_by_kind"], "remaining": stats["remaining"]}))


if __name__ == "__main__":
    main()
