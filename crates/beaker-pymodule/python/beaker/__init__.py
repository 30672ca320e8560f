"""Beaker in-process: sandboxed scientific tools for language models, from Python and asyncio (docs/PYTHON_API.md).

    import beaker
    engine = beaker.Engine()
    engine.call("calculator", {"expression": "2**100"})["result"]["value"]   # '1267650600228229401496703205376'
    await engine.acall("execute_python", {"code": "import numpy as np; print(np.arange(5).sum())"})

Every call returns the protocol's envelope as a dict (docs/PROTOCOL.md): `success`, then `result`, or `error`,
`error_kind`, `fault` and `retryable`; a tool's failure is an envelope, never an exception. The engine works
without the GIL, so threads and asyncio tasks run calls in parallel on its worker pools.
"""

import asyncio
import json
from typing import Any, Dict, List, Optional, Union

from beaker._beaker import NativeEngine, __version__

__all__ = ["Engine", "__version__"]

Envelope = Dict[str, Any]


def _not_json(tool: str, e: Exception) -> Envelope:
    """The envelope of a call whose params cannot be written as JSON, as the engine would answer it."""
    return {"id": None, "tool": tool, "success": False, "error": f"params are not JSON: {e}",
            "error_kind": "invalid_params", "fault": "model", "retryable": False, "elapsed_us": 0}


def _settle(fut: "asyncio.Future[str]", answer: str) -> None:
    if not fut.done():
        fut.set_result(answer)


async def _submitted(submit: Any, request: str) -> Any:
    """Submits a request to the engine and awaits its answer without blocking the loop; cancelling the awaiting
    task cancels what the request runs."""
    loop = asyncio.get_running_loop()
    fut: "asyncio.Future[str]" = loop.create_future()

    def done(answer: str) -> None:
        # On an engine thread: hand the answer to the loop's own thread.
        try:
            loop.call_soon_threadsafe(_settle, fut, answer)
        except RuntimeError:
            pass  # the loop is closed: nobody waits for this answer any more

    handle = submit(request, done)
    try:
        return json.loads(await fut)
    except asyncio.CancelledError:
        if handle is not None:
            handle.cancel()
        raise


def _text_request(text: Union[str, List[Dict[str, Any]]], dialect: str, options: Dict[str, Any]) -> str:
    """The protocol's text request (a model's text, or an OpenAI conversation) as JSON."""
    request: Dict[str, Any] = dict(options)
    request["dialect"] = dialect
    request["messages" if isinstance(text, list) else "text"] = text
    return json.dumps(request)


class Engine:
    """Runs tool calls. One per process is typical; it is thread-safe, and every method may be called from any
    thread or task.

    python: serve execute_python, code_test, symbolic_math and latex_render (the sandboxed CPython; the first
        engine of a machine snapshots it, minutes, cached afterwards in ~/.cache/beaker).
    limits: default limits of every call (`{"timeout_ms": 5000}`; docs/TOOLS.md lists them).
    max_limits: what a call may ask for at most.
    workers, sandbox_workers: threads of the native and the sandbox pools (default: the number of cores).
    guest_dirs: folders of operator tools (NAME.wasm + NAME.toml).
    output_dir: also write returned images there (results gain `output_path`).
    """

    def __init__(
        self,
        *,
        python: bool = True,
        limits: Optional[Dict[str, int]] = None,
        max_limits: Optional[Dict[str, int]] = None,
        workers: Optional[int] = None,
        sandbox_workers: Optional[int] = None,
        guest_dirs: Optional[List[str]] = None,
        output_dir: Optional[str] = None,
        _test_tools: bool = False,
    ) -> None:
        options: Dict[str, Any] = {"python": python, "test_tools": _test_tools}
        for key, value in [("limits", limits), ("max_limits", max_limits), ("workers", workers),
                           ("sandbox_workers", sandbox_workers), ("output_dir", output_dir)]:
            if value is not None:
                options[key] = value
        if guest_dirs is not None:
            options["guest_dirs"] = [str(d) for d in guest_dirs]
        self._native = NativeEngine(json.dumps(options))

    @staticmethod
    def _request(tool: str, params: Optional[Dict[str, Any]], limits: Optional[Dict[str, int]], id: Any,
                 seed: Optional[int], tag: Optional[str], meta: Any) -> str:
        call: Dict[str, Any] = {"tool": tool, "params": {} if params is None else params}
        for key, value in [("limits", limits), ("id", id), ("seed", seed), ("tag", tag), ("meta", meta)]:
            if value is not None:
                call[key] = value
        # allow_nan=False: NaN and infinities are not JSON (ValueError; TypeError for objects JSON has not).
        return json.dumps(call, allow_nan=False)

    def call(self, tool: str, params: Optional[Dict[str, Any]] = None, *, limits: Optional[Dict[str, int]] = None,
             id: Any = None, seed: Optional[int] = None, tag: Optional[str] = None, meta: Any = None) -> Envelope:
        """Runs one call and returns its envelope (blocking this thread, not the others)."""
        try:
            request = self._request(tool, params, limits, id, seed, tag, meta)
        except (TypeError, ValueError) as e:
            return _not_json(tool, e)
        return json.loads(self._native.answer(request))

    async def acall(self, tool: str, params: Optional[Dict[str, Any]] = None, *,
                    limits: Optional[Dict[str, int]] = None, id: Any = None, seed: Optional[int] = None,
                    tag: Optional[str] = None, meta: Any = None) -> Envelope:
        """Runs one call without blocking the event loop; cancelling the awaiting task cancels the call."""
        try:
            request = self._request(tool, params, limits, id, seed, tag, meta)
        except (TypeError, ValueError) as e:
            return _not_json(tool, e)
        return await _submitted(self._native.submit, request)

    def run_text(self, text: Union[str, List[Dict[str, Any]]], *, dialect: str = "auto",
                 **options: Any) -> Dict[str, Any]:
        """Runs every tool call in a model's text (a str) or the pending `tool_calls` of an OpenAI conversation
        (a list of messages); returns the envelopes and the text (or `tool` messages) to append. With
        `template="qwen2.5"` (or `chat_template=SOURCE`, `template_kwargs={...}`) the answer also has
        `observation`: the text to append after the model's output, as its chat template renders it."""
        return json.loads(self._native.answer(_text_request(text, dialect, options)))

    async def arun_text(self, text: Union[str, List[Dict[str, Any]]], *, dialect: str = "auto",
                        **options: Any) -> Dict[str, Any]:
        """`run_text` without blocking the event loop (no thread of the loop's executor is held); cancelling the
        awaiting task cancels every call of the text still running."""
        return await _submitted(self._native.submit, _text_request(text, dialect, options))

    def set_trajectory(self, tag: str, **limits: int) -> Dict[str, Any]:
        """Sets the budgets of trajectory `tag` (`max_calls`, `max_total_ms`, `max_output_bytes`), opening it when
        new: a call with `tag=` past a budget is answered `limit_exceeded`. Returns `{"success", "stats"}`."""
        return json.loads(self._native.answer(json.dumps({"trajectory": tag, "limits": limits})))

    def trajectory_stats(self, tag: str) -> Dict[str, Any]:
        """What trajectory `tag` has used: calls, successes, errors by kind, time, fuel, result bytes, per tool,
        and what is left of its budgets (`{"success", "stats"}`; a failed envelope when it is not open)."""
        return json.loads(self._native.answer(json.dumps({"stats": tag})))

    def close_trajectory(self, tag: str) -> Dict[str, Any]:
        """Closes trajectory `tag` and returns its final figures, as `trajectory_stats`."""
        return json.loads(self._native.answer(json.dumps({"close": tag})))

    def run_plan(self, plan: Dict[str, Any], **options: Any) -> Dict[str, Any]:
        """Executes a tool plan (seed 004's `tool_plan`: `strategy`, `steps` with `step_id`, `tool`, `params`,
        `depends_on`, `order`): steps run as soon as their dependencies succeed, a failed step skips its
        dependants. Options: `limits`, `tag`, `seed`. Returns `{"success", "order", "steps"}`; a plan that
        cannot run (a cycle, an unknown dependency) returns a failed envelope."""
        request: Dict[str, Any] = dict(options)
        request["plan"] = plan
        return json.loads(self._native.answer(json.dumps(request)))

    async def arun_plan(self, plan: Dict[str, Any], **options: Any) -> Dict[str, Any]:
        """`run_plan` on a worker thread, so the event loop goes on."""
        return await asyncio.get_running_loop().run_in_executor(
            None, lambda: self.run_plan(plan, **options))

    def tools(self, format: str = "json") -> Any:
        """The catalog: `json` (every spec), `openai` (a chat request's `tools`), `mcp` (a `tools/list` result);
        `markdown` or a dialect (`svend`, `tagged`, `hermes`, `fenced`) give a system-prompt section as text."""
        out = self._native.tools(format)
        return json.loads(out) if format in ("json", "openai", "mcp") else out

    def stats(self) -> Dict[str, Any]:
        """Calls, failures and latency per tool since the engine started, and how busy its pools are."""
        return json.loads(self._native.stats())
