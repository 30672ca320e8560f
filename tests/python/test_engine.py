"""`import beaker` (crates/beaker-pymodule), run by tests/all/python_package.rs in the test clients' venv after
scripts/build-python-package.sh built the package there. Native tools only, plus the testing tool `_block`."""

import asyncio
import math
import threading
import time

import pytest

import beaker


@pytest.fixture(scope="module")
def engine():
    return beaker.Engine(python=False, workers=2, _test_tools=True)


def test_a_call_returns_its_envelope(engine):
    env = engine.call("calculator", {"expression": "2**100"}, id=7, meta={"k": [1]})
    assert env["success"] is True
    assert env["result"]["value"] == "1267650600228229401496703205376"
    assert env["id"] == 7 and env["meta"] == {"k": [1]}


def test_failures_are_envelopes_not_exceptions(engine):
    env = engine.call("calculator", {"expression": "1/0"})
    assert (env["success"], env["error_kind"], env["fault"], env["retryable"]) == (False, "domain_error", "model", False)
    assert engine.call("calculater", {"expression": "1"})["error_kind"] == "unknown_tool"
    assert engine.call("calculator", {"expresion": "1"})["error_kind"] == "invalid_params"
    assert engine.call("calculator", [1, 2])["error_kind"] == "invalid_params"
    nan = engine.call("calculator", {"expression": math.nan})
    assert nan["error_kind"] == "invalid_params" and "not JSON" in nan["error"]
    assert engine.call("calculator", {"expression": object()})["error_kind"] == "invalid_params"


def test_limits_are_honoured(engine):
    env = engine.call("_block", {}, limits={"timeout_ms": 50})
    assert env["error_kind"] == "timeout"
    assert engine.call("calculator", {"expression": "2**1000"}, limits={"max_digits": 10})["error_kind"] == "limit_exceeded"


def test_engine_options_are_checked():
    with pytest.raises(ValueError, match="unknown field"):
        beaker.Engine(python=False, limits={"timeout_msec": 5})
    with pytest.raises(ValueError, match="above the maximum"):
        beaker.Engine(python=False, limits={"timeout_ms": 10**6})
    e = beaker.Engine(python=False, limits={"timeout_ms": 30}, max_limits={"timeout_ms": 40}, _test_tools=True)
    assert e.call("_block", {})["error_kind"] == "timeout"
    # A call asking for more than the maximum gets the maximum.
    started = time.monotonic()
    assert e.call("_block", {}, limits={"timeout_ms": 600000})["error_kind"] == "timeout"
    assert time.monotonic() - started < 30


def test_acall_runs_many_calls_at_once(engine):
    async def main():
        return await asyncio.gather(*[engine.acall("calculator", {"expression": f"{i} * 3"}) for i in range(200)])

    envs = asyncio.run(main())
    assert [e["result"]["value"] for e in envs] == [str(i * 3) for i in range(200)]


def test_cancelling_a_task_cancels_its_call():
    # One worker: if the cancelled call kept it, the next call would wait ten minutes.
    e = beaker.Engine(python=False, workers=1, _test_tools=True)

    async def main():
        task = asyncio.ensure_future(e.acall("_block", {}, limits={"timeout_ms": 600000}))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return await asyncio.wait_for(e.acall("calculator", {"expression": "6 * 7"}), 60)

    assert asyncio.run(main())["result"]["value"] == "42"
    assert e.stats()["tools"][0]["tool"] == "calculator"


def test_cancelling_an_arun_text_task_cancels_its_calls():
    # One worker: if the cancelled text's call kept it, the next call would wait ten minutes.
    e = beaker.Engine(python=False, workers=1, _test_tools=True)
    text = '<tool_call>{"name": "_block", "arguments": {}}</tool_call>'

    async def main():
        task = asyncio.ensure_future(e.arun_text(text, limits={"timeout_ms": 600000}))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        out = await asyncio.wait_for(e.arun_text('<tool_call>{"name": "calculator", "arguments": {"expression": "6 * 7"}}</tool_call>'), 60)
        refused = await e.arun_text("x", dialect="klingon")
        return out, refused

    out, refused = asyncio.run(main())
    assert out["calls"][0]["result"]["value"] == "42"
    assert refused["success"] is False and "klingon" in refused["error"]


def test_arun_text_runs_many_texts_at_once(engine):
    texts = [f'<tool_call>{{"name": "calculator", "arguments": {{"expression": "{i} * 3"}}}}</tool_call>' for i in range(100)]

    async def main():
        return await asyncio.gather(*(engine.arun_text(t, template="qwen2.5") for t in texts))

    outs = asyncio.run(main())
    assert [o["calls"][0]["result"]["value"] for o in outs] == [str(i * 3) for i in range(100)]
    assert all(o["observation"].startswith("<|im_end|>") for o in outs)


def test_the_gil_is_released_while_the_engine_works(engine):
    # A call that blocks for 300 ms on an engine worker must not stop this thread counting.
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    env = engine.call("_block", {}, limits={"timeout_ms": 300})
    stop.set()
    t.join()
    assert env["error_kind"] == "timeout"
    assert len(ticks) > 50


def test_run_text_runs_the_calls_in_a_models_text(engine):
    out = engine.run_text('Let me check. <tool_call>{"tool": "calculator", "params": {"expression": "7 * 8"}}</tool_call>')
    assert out["dialect"] == "tagged"
    assert out["calls"][0]["result"]["value"] == "56"
    assert out["text"].startswith("<tool_result>")
    conv = [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "calculator", "arguments": '{"expression": "3*3"}'}}]}]
    out = engine.run_text(conv)
    assert out["messages"][0]["tool_call_id"] == "c1" and "9" in out["messages"][0]["content"]
    bad = engine.run_text("hi", dialect="klingon")
    assert bad["success"] is False and "klingon" in bad["error"]
    assert asyncio.run(engine.arun_text("no calls here"))["calls"] == []


def test_run_text_with_a_template_gives_the_observation(engine):
    text = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "7 * 8"}}\n</tool_call>'
    out = engine.run_text(text, template="qwen2.5")
    assert out["observation"] == ('<|im_end|>\n<|im_start|>user\n<tool_response>\n{"value":"56","exact":true}\n'
                                  '</tool_response><|im_end|>\n<|im_start|>assistant\n')
    assert [p["role"] for p in out["observation_parts"]] == ["assistant_end", "tool", "generation_prompt"]
    bad = engine.run_text(text, template="gpt-2")
    assert bad["success"] is False and "unknown template" in bad["error"]


def test_trajectory_budgets_and_stats(engine):
    assert engine.set_trajectory("py1", max_calls=1)["stats"]["remaining"] == {"calls": 1}
    assert engine.call("calculator", {"expression": "1+1"}, tag="py1")["success"] is True
    refused = engine.call("calculator", {"expression": "2+2"}, tag="py1")
    assert refused["error_kind"] == "limit_exceeded" and "max_calls" in refused["error"]
    stats = engine.trajectory_stats("py1")["stats"]
    assert stats["calls"] == 2 and stats["errors_by_kind"] == {"limit_exceeded": 1}
    assert engine.close_trajectory("py1")["stats"]["calls"] == 2
    assert engine.trajectory_stats("py1")["error_kind"] == "invalid_params"
    assert engine.set_trajectory("py2", max_call=1)["error_kind"] == "parse_error"


def test_run_plan_runs_steps_after_their_dependencies(engine):
    plan = {"strategy": "parallel", "steps": [
        {"step_id": "a", "tool": "calculator", "params": {"expression": "2**10"}},
        {"step_id": "b", "tool": "calculator", "params": {"expression": "1/0"}},
        {"step_id": "c", "tool": "calculator", "params": {"expression": "a"}, "depends_on": ["b"]},
    ]}
    out = engine.run_plan(plan)
    assert out["success"] is False
    assert [s["status"] for s in out["steps"]] == ["succeeded", "failed", "skipped"]
    assert out["steps"][0]["result"]["value"] == "1024"
    assert "c" not in out["order"]
    bad = engine.run_plan({"steps": [{"step_id": "x", "tool": "calculator", "depends_on": ["x"]}]})
    assert bad["success"] is False and "cycle" in bad["error"]
    assert asyncio.run(engine.arun_plan({"steps": []}))["success"] is True


def test_tools_in_every_format(engine):
    specs = engine.tools()
    names = [s["name"] for s in specs]
    assert "calculator" in names and "physics" in names and "execute_python" not in names
    assert engine.tools("openai")[0]["function"]["name"] == names[0]
    assert engine.tools("mcp")["tools"][0]["inputSchema"] == specs[0]["params_schema"]
    assert "<tools>" in engine.tools("hermes")
    with pytest.raises(ValueError, match="unknown format"):
        engine.tools("yaml")


def test_stats_count_the_calls(engine):
    before = {t["tool"]: t for t in engine.stats()["tools"]}["physics"]["succeeded"]
    engine.call("physics", {"operation": "ohm", "voltage": 12, "current": 2})
    after = {t["tool"]: t for t in engine.stats()["tools"]}["physics"]["succeeded"]
    assert after == before + 1
