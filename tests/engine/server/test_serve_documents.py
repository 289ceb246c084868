"""`tandem serve` given documents the way OpenAI's chat API sends them, driven by the official `openai` client
on the real SmolLM2 pair: a PDF and a text file as ``file`` parts answered, an image refused for want of a
projector, a bad file a 400 naming its part, and the base64 held to the request body's limit."""

from __future__ import annotations

import base64
import importlib.util
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from app.engine.llama.session import DrafterKind, PairConfig
from app.engine.server.edge import EdgeLimits
from app.engine.server.http import RunningServer
from app.engine.server.scheduler import ServerEngine
from tests.engine.attachments.pdfs import image_pdf, text_pdf

BODY_LIMIT = 256 * 1024  # small, so the test can pass it with an upload of a few hundred kB
REPORT = ["The Tandem report. Revenue grew by twelve percent.", "Costs fell by three percent."]


@pytest.fixture(scope="module")
def client(small_pair: tuple[Path, Path]) -> Iterator[openai.OpenAI]:
    target, draft = small_pair
    engine = ServerEngine(PairConfig(target, draft, DrafterKind.MODEL, n_ctx=1024, n_threads=1), draft_length=3)
    engine.start()
    server = RunningServer(engine, limits=EdgeLimits(max_body_bytes=BODY_LIMIT)).start()
    yield openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=600)
    server.stop()


def _pdf_part(data: bytes, filename: str = "report.pdf") -> dict:
    encoded = base64.b64encode(data).decode("ascii")
    return {"type": "file", "file": {"file_data": f"data:application/pdf;base64,{encoded}", "filename": filename}}


def _ask(client: openai.OpenAI, *parts: dict):
    content = [{"type": "text", "text": "What does the document say?"}, *parts]
    return client.chat.completions.create(
        model="any", messages=[{"role": "user", "content": content}], max_tokens=4, temperature=0
    )


def test_a_pdf_and_a_raw_base64_text_file_are_answered(client):
    reply = _ask(client, _pdf_part(text_pdf(REPORT)))
    assert reply.choices[0].finish_reason in ("stop", "length") and reply.usage is not None
    notes = {"type": "file", "file": {"file_data": base64.b64encode(b"leeks, bread").decode(), "filename": "a.txt"}}
    assert _ask(client, notes).usage is not None


@pytest.mark.skipif(
    importlib.util.find_spec("app.core.attachments.context") is None,
    reason="how attachments enter the prompt is the context planner's (issue 26, item 3), not merged yet",
)
def test_the_document_reaches_the_prompt(client):
    without = _ask(client).usage
    with_pdf = _ask(client, _pdf_part(text_pdf(REPORT))).usage
    assert without is not None and with_pdf is not None
    assert with_pdf.prompt_tokens > without.prompt_tokens + 10


def test_an_image_part_is_a_400_saying_the_target_has_no_projector(client):
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    with pytest.raises(openai.BadRequestError) as caught:
        _ask(client, image)
    error = caught.value.body
    assert isinstance(error, dict) and error["param"] == "messages"
    assert "cannot read images: no projector (mmproj*.gguf)" in error["message"]
    assert "\n" not in error["message"]


@pytest.mark.parametrize(
    ("data", "words"),
    [(image_pdf(), "the PDF has no text layer"), (text_pdf(["secret"], password="pw"), "the PDF is encrypted")],
    ids=["image-only", "encrypted"],
)
def test_a_pdf_without_readable_text_is_a_400_naming_the_part_and_the_file(client, data, words):
    with pytest.raises(openai.BadRequestError) as caught:
        _ask(client, _pdf_part(data, "scan.pdf"))
    error = caught.value.body
    assert isinstance(error, dict) and error["param"] == "messages[0].content[1]"
    assert "cannot attach scan.pdf" in error["message"] and words in error["message"]


def test_base64_past_the_body_limit_is_refused_before_it_is_read(client):
    big = text_pdf(["x" * 60] * 10) + b"%" + b"0" * BODY_LIMIT  # still a PDF's start; over the limit as base64
    with pytest.raises(openai.APIStatusError) as caught:
        _ask(client, _pdf_part(big))
    assert caught.value.status_code == 413
    assert _ask(client, _pdf_part(text_pdf(REPORT))).usage is not None, "the server still answers"
