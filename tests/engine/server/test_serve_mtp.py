"""`serve` with the target's own MTP layers as its drafter, through the official `openai` client.

On the SYNTHETIC glm4moe file of ``tests/fixtures/synthetic_drafters.py`` (random
weights, SmolLM2's tokenizer and chat template): no small real model with MTP
layers exists. What is proved is that the served pair drafts with them and says
so (greedy equality with the target alone is shown through the same reply path
in ``tests/engine/llama/test_mtp_drafter.py``); not acceptance or speed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.server.http import RunningServer
from app.engine.server.scheduler import ServerEngine
from tests.fixtures.synthetic_drafters import SMOLLM2_FILE, Tokenizer, write_glm4moe_mtp

PROMPT = [{"role": "user", "content": "Tell me about the sea."}]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, models_folder: Path) -> Iterator[openai.OpenAI]:
    folder = tmp_path_factory.mktemp("synthetic")
    path = write_glm4moe_mtp(folder / "synthetic-glm4moe-mtp.gguf", Tokenizer.from_file(models_folder / SMOLLM2_FILE))
    engine = ServerEngine(PairConfig(path, None, DrafterKind.MTP, n_ctx=512, n_threads=1), draft_length=3)
    engine.start()
    running = RunningServer(engine).start()
    yield openai.OpenAI(base_url=running.url, api_key="unused", max_retries=0, timeout=600)
    running.stop()


def test_serve_drafts_with_the_models_own_mtp_layers_and_names_them(client: openai.OpenAI) -> None:
    models = client.models.list().data
    assert models[0].model_extra["tandem"]["drafter"] == "mtp"
    assert models[0].model_extra["tandem"]["draft"] is None
    drafted = client.chat.completions.create(model="m", messages=PROMPT, max_tokens=24, temperature=0)
    extra = drafted.model_extra
    assert extra["tandem"]["drafted"] > 0 and "draft" in {t["origin"] for t in extra["tandem"]["tokens"]}
    text = drafted.choices[0].message.content
    assert text and "".join(t["text"] for t in extra["tandem"]["tokens"]) == text
