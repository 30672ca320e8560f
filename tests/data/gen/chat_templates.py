"""Golden observations for Beaker's built-in chat templates, rendered by transformers itself.

For every template in crates/beaker-templates/templates/ and every conversation below, transformers'
`render_jinja_template` (what `tokenizer.apply_chat_template` calls) renders:

- the prompt the model saw: the history with the generation prompt;
- the assistant turn: the history plus the assistant message, minus the prompt. The model's output is that turn
  up to its last stop token (what an inference server returns with stop tokens stripped);
- the whole conversation: history, assistant message, tool messages, generation prompt.

The expected observation is the whole conversation minus (prompt + model output): in text mode the end of the
assistant turn, the tool turn and the next turn's opening (checked against that literal difference wherever the
prompt is a prefix of the rendered turn; DeepSeek R1 opens the turn with `<think>`, which its rendered history
drops, so there it is the rendered turn's end plus what the tool messages and generation prompt add). The same is
written for a model output that kept its stop token, and for `messages` mode (whole conversation minus the
rendered assistant turn). A template that refuses a conversation (`raise_exception`) is recorded with its message.
Qwen3 renders an assistant turn without reasoning differently once tool results follow it (its empty `<think>`
block shows on the last message only); there the tool part is what follows the turn's longest tail found in the
whole rendering, and the case is marked `"incremental": false`.

    python3 -m venv /tmp/gen && /tmp/gen/bin/pip install transformers==5.24.0 jinja2==3.1.6
    /tmp/gen/bin/python tests/data/gen/chat_templates.py    # writes tests/data/templates/golden.json

The tool message contents are Beaker's (what `messages` requests answer for these calls); the tools offered are
the two tools' OpenAI entries from `beaker tools --format openai`, trimmed to name, description and params.
"""
import json
import pathlib

import transformers
from transformers.utils.chat_template_utils import render_jinja_template

ROOT = pathlib.Path(__file__).resolve().parents[3]
TEMPLATES = ROOT / "crates/beaker-templates/templates"
OUT = ROOT / "tests/data/templates/golden.json"

# name -> (bos_token, eos_token, stop tokens an inference server stops at), from each model's
# tokenizer_config.json and generation_config.json.
BUILTINS = {
    "qwen2.5": ("", "<|im_end|>", ["<|im_end|>", "<|endoftext|>"]),
    "qwen3": ("", "<|im_end|>", ["<|im_end|>", "<|endoftext|>"]),
    "llama3.1": ("<|begin_of_text|>", "<|eot_id|>", ["<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"]),
    "llama3.2": ("<|begin_of_text|>", "<|eot_id|>", ["<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"]),
    "mistral": ("<s>", "</s>", ["</s>"]),
    "hermes2pro": ("<|begin_of_text|>", "<|im_end|>", ["<|im_end|>", "<|end_of_text|>"]),
    "deepseek-r1": ("<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", ["<｜end▁of▁sentence｜>"]),
    "deepseek-v3": ("<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", ["<｜end▁of▁sentence｜>"]),
}

TOOLS = [
    {"type": "function", "function": {
        "name": "calculator",
        "description": "Evaluates a mathematical expression exactly.",
        "parameters": {"type": "object", "properties": {"expression": {"type": "string"}},
                       "required": ["expression"]}}},
    {"type": "function", "function": {
        "name": "unit_converter",
        "description": "Converts a value between units.",
        "parameters": {"type": "object", "properties": {
            "value": {"type": "number"}, "from_unit": {"type": "string"}, "to_unit": {"type": "string"}},
            "required": ["value", "from_unit", "to_unit"]}}},
]

RESULT_56 = '{"value":"56","exact":true}'
RESULT_SPEED = ('{"value":"27.7777777777778","unit":"m/s","from_unit":"km/h","dimension":"speed",'
                '"exact":false,"fraction":"250/9"}')
RESULT_ERROR = '{"error":"division by zero","error_kind":"domain_error"}'


def call(i, name, args):
    return {"id": f"call{i:05d}", "type": "function", "function": {"name": name, "arguments": args}}


def tool(i, name, content):
    return {"role": "tool", "tool_call_id": f"call{i:05d}", "name": name, "content": content}


SYSTEM = {"role": "system", "content": "You are a careful scientist. Use the tools."}
USER = {"role": "user", "content": "What is 7 * 8, and 100 km/h in m/s?"}

CONVERSATIONS = {
    "one_call": (
        [SYSTEM, USER],
        {"role": "assistant", "content": "Let me compute that.",
         "tool_calls": [call(0, "calculator", {"expression": "7 * 8"})]},
        [tool(0, "calculator", RESULT_56)],
    ),
    "parallel_calls": (
        [USER],
        {"role": "assistant", "content": "",
         "tool_calls": [call(0, "calculator", {"expression": "7 * 8"}),
                        call(1, "unit_converter", {"value": 100, "from_unit": "km/h", "to_unit": "m/s"})]},
        [tool(0, "calculator", RESULT_56), tool(1, "unit_converter", RESULT_SPEED)],
    ),
    "failed_call": (
        [SYSTEM, USER],
        {"role": "assistant", "content": "",
         "tool_calls": [call(0, "calculator", {"expression": "1/0"})]},
        [tool(0, "calculator", RESULT_ERROR)],
    ),
    "after_think": (
        [USER],
        {"role": "assistant", "content": "<think>\nThe product first.\n</think>\n\nComputing.",
         "tool_calls": [call(0, "calculator", {"expression": "7 * 8"})]},
        [tool(0, "calculator", RESULT_56)],
    ),
    "second_round": (
        [USER,
         {"role": "assistant", "content": "",
          "tool_calls": [call(0, "calculator", {"expression": "7 * 8"})]},
         tool(0, "calculator", RESULT_56)],
        {"role": "assistant", "content": "Now the speed.",
         "tool_calls": [call(1, "unit_converter", {"value": 100, "from_unit": "km/h", "to_unit": "m/s"})]},
        [tool(1, "unit_converter", RESULT_SPEED)],
    ),
}

# What the templates read besides messages and tools (Llama's date is otherwise today's).
KWARGS = {"date_string": "26 Jul 2024"}


def render(source, bos, eos, messages, add_generation_prompt):
    rendered, _ = render_jinja_template(
        conversations=[messages], tools=TOOLS, chat_template=source,
        add_generation_prompt=add_generation_prompt, bos_token=bos, eos_token=eos, **KWARGS)
    return rendered[0]


def common_prefix(a, b):
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def case(source, bos, eos, stops, history, assistant, tools):
    try:
        prompt = render(source, bos, eos, history, True)
        with_assistant = render(source, bos, eos, history + [assistant], False)
        whole_no_prompt = render(source, bos, eos, history + [assistant] + tools, False)
        whole = render(source, bos, eos, history + [assistant] + tools, True)
    except Exception as e:  # noqa: BLE001 - the template's own refusal is the expected outcome
        return {"error": str(e)}
    incremental = whole_no_prompt.startswith(with_assistant)
    if incremental:
        tool_start = len(with_assistant)
    else:
        # Qwen3 shows an empty `<think></think>` only on the last assistant message, so once tool results follow
        # it the turn renders differently: the tool part is what follows the turn's end there, the longest tail
        # of the rendered turn found after the point where the two renderings part.
        at = common_prefix(whole_no_prompt, with_assistant)
        tool_start = None
        for n in range(len(with_assistant) - at, 0, -1):
            found = whole_no_prompt.find(with_assistant[-n:], at)
            if found >= 0:
                tool_start = found + n
                break
        assert tool_start is not None
    assert whole.startswith(whole_no_prompt)
    # The assistant turn as rendered. Templates that open it with more than the rendered turn holds (DeepSeek
    # R1's generation prompt ends in `<think>`, which the rendered history drops) share only a prefix with it.
    turn = with_assistant[common_prefix(prompt, with_assistant):]
    cut = max(turn.rfind(s) for s in stops)
    assert cut >= 0, f"no stop token in the assistant turn {turn!r}"
    stop = next(s for s in stops if turn.startswith(s, cut))
    output, end = turn[:cut], turn[cut:]
    tool_part = whole_no_prompt[tool_start:]
    prompt_part = whole[len(whole_no_prompt):]
    observation = end + tool_part + prompt_part
    if incremental and with_assistant.startswith(prompt):
        # The literal definition: the whole conversation minus what the model has seen (prompt and output).
        assert observation == whole[len(prompt) + len(output):]
    return {
        "incremental": incremental,
        "model_output": output,
        "observation": observation,
        "parts": [["assistant_end", end], ["tool", tool_part], ["generation_prompt", prompt_part]],
        "model_output_with_stop": output + stop,
        "observation_after_stop": observation[len(stop):],
        "messages_observation": tool_part + prompt_part,
    }


def main():
    out = {
        "generator": f"tests/data/gen/chat_templates.py, transformers {transformers.__version__}",
        "tools": TOOLS,
        "kwargs": KWARGS,
        "cases": [],
    }
    for name, (bos, eos, stops) in BUILTINS.items():
        source = (TEMPLATES / f"{name}.jinja").read_text()
        for conv, (history, assistant, tools) in CONVERSATIONS.items():
            expected = case(source, bos, eos, stops, history, assistant, tools)
            out["cases"].append({"template": name, "conversation": conv, "history": history,
                                 "assistant": assistant, "tool_messages": tools, "expected": expected})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    errors = sum("error" in c["expected"] for c in out["cases"])
    odd = sum(not c["expected"].get("incremental", True) for c in out["cases"])
    print(f"wrote {OUT.relative_to(ROOT)}: {len(out['cases'])} cases, {errors} refused by their template, "
          f"{odd} not incremental")


if __name__ == "__main__":
    main()
