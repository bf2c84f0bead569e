"""The official openai Python SDK as a client of `replio serve` (tests/serve_openai_python_test.ts).

Usage: python3 openai_python_client.py BASE_URL
Prints one JSON object: for each scenario, what the SDK returned or the error it raised.
"""
import json
import sys

import openai

HI = [{"role": "user", "content": "hi"}]


def raised(error):
    return {
        "class": type(error).__name__,
        "status": getattr(error, "status_code", None),
        "type": error.type,
        "code": error.code,
        "param": error.param,
        "message": error.message,
    }


def attempt(run):
    try:
        return {"value": run()}
    except openai.APIError as error:
        return {"error": raised(error)}


def streamed():
    content = ""
    for chunk in client.chat.completions.create(model="replio/default", messages=HI, stream=True):
        if chunk.choices:
            content += chunk.choices[0].delta.content or ""
    return content


client = openai.OpenAI(base_url=sys.argv[1], api_key="unused", max_retries=0)
tool = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}
print(json.dumps({
    "stream": attempt(streamed),
    "plain": attempt(lambda: client.chat.completions.create(
        model="replio/default", messages=HI).choices[0].message.content),
    "tools": attempt(lambda: client.chat.completions.create(
        model="replio/default", messages=HI, tools=[tool]).id),
    "n": attempt(lambda: client.chat.completions.create(
        model="replio/default", messages=HI, n=2).id),
    "model": attempt(lambda: client.models.retrieve("replio/agent/explore").id),
    "unknown_model": attempt(lambda: client.models.retrieve("gpt-4o").id),
}))
