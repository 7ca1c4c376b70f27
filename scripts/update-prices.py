#!/usr/bin/env python3
"""Builds crates/core/data/prices.json, the price table the app estimates costs with, from LiteLLM's
maintained catalogue (model_prices_and_context_window_backup.json inside the `litellm` wheel on PyPI).

    scripts/update-prices.py [VERSION]     # default: the version pinned below

Kept: chat/responses models with an input and an output price. Names without a provider prefix are
the first-party prices; a model listed only under a prefix is kept under its bare name when the
prefix is the model maker's own API (FIRST_PARTY), so `gemini/gemini-2.5-pro` is found as the
`gemini-2.5-pro` an agent records; Anthropic models listed only under Bedrock's names
(retired ones) are kept under Anthropic's. Prices are USD per million tokens:
[input, output, cache_read, cache_write] (a missing cache price is null: the input price applies).
"""
import datetime
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import zipfile

VERSION = "1.110.2"
MEMBER = "litellm/model_prices_and_context_window_backup.json"
FIRST_PARTY = ["anthropic", "openai", "gemini", "dashscope", "qwen_ai_platform", "deepseek",
               "xai", "mistral", "moonshot", "zai", "github_copilot"]
OUT = pathlib.Path(__file__).resolve().parent.parent / "crates/core/data/prices.json"


def per_million(value):
    return None if value is None else round(float(value) * 1_000_000, 6)


def price(entry):
    return [per_million(entry.get("input_cost_per_token")),
            per_million(entry.get("output_cost_per_token")),
            per_million(entry.get("cache_read_input_token_cost")),
            per_million(entry.get("cache_creation_input_token_cost"))]


def priced(entry):
    return (isinstance(entry, dict) and entry.get("mode") in ("chat", "responses")
            and entry.get("input_cost_per_token") is not None
            and entry.get("output_cost_per_token") is not None)


def main():
    version = sys.argv[1] if len(sys.argv) > 1 else VERSION
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "-d", tmp, f"litellm=={version}"], check=True)
        wheel = next(pathlib.Path(tmp).glob("litellm-*.whl"))
        catalogue = json.loads(zipfile.ZipFile(wheel).read(MEMBER))
    models = {k: price(v) for k, v in catalogue.items() if "/" not in k and priced(v)}
    for prefix in FIRST_PARTY:
        for key, entry in catalogue.items():
            head, _, bare = key.partition("/")
            if head == prefix and "/" not in bare and bare not in models and priced(entry):
                models[bare] = price(entry)
    # Anthropic's retired models stay listed only under Bedrock's names
    # (`anthropic.claude-sonnet-4-20250514-v1:0`), at the same list price.
    for key, entry in catalogue.items():
        m = re.fullmatch(r"anthropic\.(claude-[a-z0-9.-]+?)(-v\d+:\d+)?", key)
        if m and m.group(1) not in models and priced(entry):
            models[m.group(1)] = price(entry)
    table = {
        "source": f"LiteLLM {version}, {MEMBER}",
        "date": datetime.date.today().isoformat(),
        "unit": "USD per million tokens: [input, output, cache_read, cache_write]",
        "models": dict(sorted(models.items())),
    }
    # One model a line, so an update's diff shows which prices moved.
    head = {k: v for k, v in table.items() if k != "models"}
    lines = [f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'))}" for k, v in table["models"].items()]
    text = json.dumps(head, indent=1)[:-2] + ',\n "models":{\n' + ",\n".join(lines) + "\n}}\n"
    json.loads(text)
    OUT.write_text(text)
    print(f"{OUT}: {len(models)} models from LiteLLM {version}")


if __name__ == "__main__":
    main()
