"""Many RL rollouts at once over one `beaker serve` process, with asyncio.

What it shows: the rollout loop of a tool-using policy (Qwen2.5-style `<tool_call>` text) against Beaker's
JSON Lines protocol (docs/PROTOCOL.md), with every trajectory in flight at the same time:

- one subprocess, one reader task that hands each answer to the future waiting for its `id` (answers come
  back in the order calls finish, not the order they were sent);
- per trajectory (a `tag`): a call budget (`{"trajectory": tag, "limits": {"max_calls": N}}`); a loop that
  asks the policy for its next output, sends it as `{"text": output, "template": "qwen2.5", "tag": tag}` and
  appends the output and Beaker's `observation` (the exact bytes Qwen2.5's chat template puts after the
  output: end of turn, tool results, next generation prompt) to the transcript; the loop ends when an
  output has no calls;
- an early stop: a turn whose tools run past TURN_TIMEOUT_S abandons the trajectory and cancels its calls
  with `{"cancel_tag": tag}` (a Beaker-side alternative is the `max_total_ms` budget);
- the reward, `{"grade": {"answer": final_output, "reference": ...}}` (1.0 when correct); the grade is sent
  without the tag, so it neither counts as a tool call nor is refused once the budget is spent;
- `{"stats": tag}` for logging, then `{"close": tag}` to free the trajectory.

The policy here is a stub that replays recorded outputs (tests/data/examples/asyncio_rollouts.policy.jsonl);
swap `ReplayPolicy.generate` for your inference client (vLLM, SGLang) and `render_prompt` for
`tokenizer.apply_chat_template(messages, tools=..., add_generation_prompt=True)`. Prints one JSON line per
trajectory, in prompt order, without timings, so the same recording prints the same bytes.

Run it (from the repository root, with a built `beaker`):

    python examples/asyncio_rollouts.py --beaker target/release/beaker
"""

import argparse
import asyncio
import itertools
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORDING = ROOT / "tests" / "data" / "examples" / "asyncio_rollouts.policy.jsonl"
SYSTEM = "You are a careful assistant with tools. Put the final answer in \\boxed{}."
MAX_TURNS = 6
TURN_TIMEOUT_S = 2.0


class BeakerServer:
    """One `beaker serve` subprocess speaking JSON Lines; requests get ids, answers find their futures."""

    async def start(self, binary):
        # `--workers`: more threads than a small machine's cores, so one slow solver call holds up no other
        # rollout. `limit`: asyncio's default 64 KiB line limit is too small for answers carrying plots.
        self.proc = await asyncio.create_subprocess_exec(
            binary, "serve", "--no-python", "--workers", "4", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, limit=1 << 26)
        self.ids = itertools.count(1)
        self.pending = {}
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self):
        async for line in self.proc.stdout:
            answer = json.loads(line)
            future = self.pending.pop(answer.get("id"), None)
            if future is not None and not future.done():
                future.set_result(answer)
        for future in self.pending.values():  # the server is gone: nobody else will answer these
            if not future.done():
                future.set_exception(EOFError("beaker serve exited"))

    async def send(self, request):
        """Writes the request with a fresh id and returns the future of its answer."""
        request_id = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        self.proc.stdin.write((json.dumps({"id": request_id, **request}) + "\n").encode())
        await self.proc.stdin.drain()
        return future

    async def ask(self, request):
        return await (await self.send(request))

    async def close(self):
        self.proc.stdin.close()  # at EOF the server answers what is in flight, then exits
        await self.reader
        await self.proc.wait()


class ReplayPolicy:
    """A stand-in for the model: replays each trajectory's recorded outputs in order."""

    def __init__(self, rows):
        self.outputs = {row["tag"]: list(row["outputs"]) for row in rows}

    async def generate(self, tag, transcript):
        await asyncio.sleep(0)  # a real policy awaits its inference server here
        return self.outputs[tag].pop(0)


def render_prompt(question):
    return (f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{question}<|im_end|>\n"
            "<|im_start|>assistant\n")


async def rollout(beaker, policy, row):
    tag = row["tag"]
    await beaker.ask({"trajectory": tag, "limits": {"max_calls": row["max_calls"]}})
    transcript = render_prompt(row["question"])
    stop, cancelled = "max_turns", 0
    for _ in range(MAX_TURNS):
        output = await policy.generate(tag, transcript)
        transcript += output
        pending = await beaker.send({"text": output, "template": "qwen2.5", "tag": tag})
        try:
            answer = await asyncio.wait_for(asyncio.shield(pending), TURN_TIMEOUT_S)
        except asyncio.TimeoutError:  # stop condition: the tools took too long; abandon the trajectory
            cancelled = (await beaker.ask({"cancel_tag": tag}))["cancelled"]
            await pending  # still answered, its calls now `cancelled`
            stop = "timeout"
            break
        if "observation" not in answer:  # no call ran (none, or only one cut off): the final output
            stop = "answer"
            break
        if answer["observation"] is None:  # the template refused the turn
            raise RuntimeError(answer["observation_error"])
        transcript += answer["observation"]

    reward, method = 0.0, None
    if stop == "answer":
        grade = (await beaker.ask({"grade": {"answer": output, "reference": row["reference"]}}))["result"]
        reward, method = (1.0 if grade["correct"] else 0.0), grade["method"]
    stats = (await beaker.ask({"stats": tag}))["stats"]
    await beaker.ask({"close": tag})
    return {"tag": tag, "stop": stop, "reward": reward, "method": method, "calls": stats["calls"],
            "errors_by_kind": stats["errors_by_kind"], "cancelled": cancelled, "transcript": transcript}


async def main_async(binary, recording):
    with open(recording, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    policy, beaker = ReplayPolicy(rows), BeakerServer()
    await beaker.start(binary)
    try:
        results = await asyncio.gather(*(rollout(beaker, policy, row) for row in rows))
    finally:
        await beaker.close()
    for result in results:
        print(json.dumps(result))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beaker", default=os.environ.get("BEAKER_BIN", "beaker"), help="the beaker binary")
    parser.add_argument("--policy", default=str(RECORDING), help="recorded outputs (JSON Lines)")
    args = parser.parse_args(argv)
    asyncio.run(main_async(args.beaker, args.policy))


if __name__ == "__main__":
    main()
