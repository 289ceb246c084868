"""`tandem serve` given an image the way OpenAI's chat API sends it (an ``image_url`` part with a data URL), driven by
the official `openai` client on the real SmolLM2 pair with the SYNTHETIC projector of
``tests/fixtures/synthetic_projector.py`` (random weights: what the reply says of the picture is noise).

The image goes through the same adapter as every front end's (``app.engine.llama.vision``): its
positions count in the prompt, the reply is the target's, and a bad image is a 400 in one line.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.server.http import RunningServer
from app.engine.server.scheduler import ServerEngine
from tests.fixtures.synthetic_projector import N_PATCHES, png_bytes, write_projector_for


@pytest.fixture(scope="module")
def client(small_pair: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[openai.OpenAI]:
    target, draft = small_pair
    projector = write_projector_for(target, tmp_path_factory.mktemp("serve-vision") / "mmproj-synthetic.gguf")
    config = PairConfig(target, draft, DrafterKind.HYBRID, n_ctx=1024, n_threads=1, projector=projector)
    engine = ServerEngine(config, draft_length=3)
    engine.start()
    server = RunningServer(engine).start()
    yield openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=600)
    server.stop()


def _data_url(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _ask(client: openai.OpenAI, *images: bytes, max_tokens: int = 8):
    content: list[dict] = [{"type": "text", "text": "What is in this picture?"}]
    content += [{"type": "image_url", "image_url": {"url": _data_url(data)}} for data in images]
    return client.chat.completions.create(
        model="any", messages=[{"role": "user", "content": content}], max_tokens=max_tokens, temperature=0
    )


def test_an_image_is_read_into_the_prompt_and_answered(client):
    without = _ask(client)
    with_image = _ask(client, png_bytes(48, 36, seed=4))
    again = _ask(client, png_bytes(48, 36, seed=4))
    other = _ask(client, png_bytes(48, 36, seed=5), max_tokens=1)
    assert without.usage is not None and with_image.usage is not None and other.usage is not None
    # The image takes the projector's positions in the prompt (its marker itself adds no text).
    assert with_image.usage.prompt_tokens == without.usage.prompt_tokens + N_PATCHES
    assert other.usage.prompt_tokens == with_image.usage.prompt_tokens
    assert with_image.choices[0].finish_reason in ("stop", "length")
    assert with_image.choices[0].message.content
    # Greedy: the same picture, the same reply (read again from the cache or anew).
    assert again.choices[0].message.content == with_image.choices[0].message.content


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (png_bytes(8, 8)[:50], "could not be read as an image: it is damaged or truncated"),
        (b"GIF89a" + b"\x00" * 30, "is not a PNG or JPEG image"),
    ],
    ids=["truncated", "gif"],
)
def test_a_bad_image_is_a_400_in_one_line(client, data, words):
    with pytest.raises(openai.BadRequestError) as caught:
        _ask(client, data)
    error = caught.value.body
    assert isinstance(error, dict) and error["param"] == "messages"
    assert words in error["message"] and "\n" not in error["message"]
    assert error["message"].startswith("image 1 ")


def test_an_http_image_url_is_refused_and_nothing_is_fetched(client):
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model="any",
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Look."},
                        {"type": "image_url", "image_url": {"url": "http://127.0.0.1:9/cat.png"}},
                    ],
                }
            ],
            max_tokens=2,
        )
    error = caught.value.body
    assert isinstance(error, dict) and error["param"] == "messages[0].content[1]"
    assert "this server fetches nothing" in error["message"]


def test_a_message_of_an_image_alone_is_answered(client):
    reply = client.chat.completions.create(
        model="any",
        messages=[
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": _data_url(png_bytes(20, 20))}}]}
        ],
        max_tokens=2,
        temperature=0,
    )
    assert reply.usage is not None and reply.usage.prompt_tokens > N_PATCHES
    assert reply.choices[0].finish_reason in ("stop", "length")
