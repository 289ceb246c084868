"""OpenAI content parts in a chat request: text joined, documents (base64 ``file`` parts) read as attachments,
images and bad files refused with a 400 naming the part. Real PDFs and text, no server needed."""

from __future__ import annotations

import base64

import pytest

from app.core.attachments.record import AttachmentKind
from app.engine.server.protocol import RequestError, parse_chat_request
from tests.engine.attachments.pdfs import image_pdf, text_pdf


def _ask(*parts: dict, role: str = "user") -> dict:
    return {"messages": [{"role": role, "content": list(parts)}]}


def _file(data: bytes, filename: str | None = "report.pdf", url: str | None = "application/pdf") -> dict:
    encoded = base64.b64encode(data).decode("ascii")
    file: dict = {"file_data": f"data:{url};base64,{encoded}" if url else encoded}
    if filename is not None:
        file["filename"] = filename
    return {"type": "file", "file": file}


def _refused(body: dict, param: str, words: str) -> RequestError:
    with pytest.raises(RequestError) as caught:
        parse_chat_request(body)
    assert caught.value.status == 400 and caught.value.param == param
    assert words in caught.value.message and "\n" not in caught.value.message, caught.value.message
    return caught.value


def test_text_and_a_pdf_part_make_one_message_with_its_attachment():
    pdf = text_pdf(["Revenue grew 12%.", "Costs fell."])
    parts = ({"type": "text", "text": "Summarise "}, _file(pdf), {"type": "text", "text": "it."})
    request = parse_chat_request(_ask(*parts))
    (message,) = request.messages
    assert message.content == "Summarise it."
    (attachment,) = message.attachments
    assert (attachment.name, attachment.kind, attachment.size) == ("report.pdf", AttachmentKind.PDF, len(pdf))
    assert [s.label for s in attachment.sections] == ["p. 1", "p. 2"]


def test_raw_base64_without_a_data_url_and_without_a_filename_is_read_too():
    request = parse_chat_request(_ask(_file(b"def f():\n    return 1\n", filename="util.py", url=None)))
    assert request.messages[0].attachments[0].kind is AttachmentKind.CODE
    unnamed = parse_chat_request(_ask(_file(b"just some notes", filename=None, url="text/plain")))
    assert unnamed.messages[0].attachments[0].name == "attachment"
    assert unnamed.messages[0].content == ""


def test_an_image_part_with_a_data_url_becomes_the_message_image():
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    request = parse_chat_request(_ask({"type": "text", "text": "What is this?"}, image))
    (message,) = request.messages
    assert message.content == "What is this?"
    (sent,) = message.images
    assert (sent.name, sent.mime, sent.data) == ("image 1", "image/png", b"\x89PNG\r\n\x1a\n")
    assert sent.data_url() == image["image_url"]["url"]


@pytest.mark.parametrize(
    ("part", "words"),
    [
        ({"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}, "this server fetches nothing"),
        ({"type": "image_url", "image_url": {"url": "data:image/png;base64,%%%"}}, "is not valid base64"),
        ({"type": "image_url", "image_url": {"url": "data:text/plain;base64,aGk="}}, "must be a data:image/"),
        ({"type": "image_url", "image_url": {}}, "must be an object with a 'url'"),
        ({"type": "input_image", "image_url": "x"}, "send an image as an 'image_url' part"),
    ],
    ids=["http", "bad-base64", "not-an-image-type", "no-url", "other-image-part"],
)  # fmt: skip
def test_an_image_part_that_is_not_a_data_url_is_a_400_and_nothing_is_fetched(part, words):
    _refused(_ask({"type": "text", "text": "What is this?"}, part), "messages[0].content[1]", words)


@pytest.mark.parametrize(
    ("part", "words"),
    [
        (_file(image_pdf(), "scan.pdf"), "cannot attach scan.pdf: the PDF has no text layer"),
        (_file(text_pdf(["locked"], password="pw"), "locked.pdf"), "the PDF is encrypted"),
        (_file(b"\x00\x01binary\x00", "blob.bin", "application/octet-stream"), "looks binary"),
        (_file(b"plain words", "fake.pdf"), "not a PDF"),
        ({"type": "file", "file": {"file_data": "data:text/plain;base64,%%%not base64", "filename": "a.txt"}},
         "not valid base64"),
        ({"type": "file", "file": {"file_id": "file-abc123"}}, "keeps no uploaded files"),
        ({"type": "file", "file": "report.pdf"}, "must be an object"),
        ({"type": "input_audio", "input_audio": {}}, "must be a text, file or image_url part"),
    ],
    ids=["image-only-pdf", "encrypted-pdf", "binary", "not-a-pdf", "bad-base64", "file-id", "not-object", "audio"],
)  # fmt: skip
def test_a_bad_part_is_a_400_naming_it(part, words):
    _refused(_ask({"type": "text", "text": "Read this."}, part), "messages[0].content[1]", words)


def test_files_belong_to_user_messages():
    body = {"messages": [{"role": "system", "content": [_file(b"rules")]}, {"role": "user", "content": "hi"}]}
    _refused(body, "messages[0].content[0]", "only be attached to a user message")


def test_a_read_called_off_by_the_server_ends_in_the_reader_and_refuses_the_part() -> None:
    asked: list[bool] = []

    def client_left() -> bool:
        asked.append(True)
        return True

    body = _ask({"type": "text", "text": "Read this."}, _file(text_pdf(["one", "two", "three"])))
    with pytest.raises(RequestError) as caught:
        parse_chat_request(body, client_left)
    assert asked and caught.value.param == "messages[0].content[1]"
    assert "called off" in caught.value.message
    assert parse_chat_request(body, lambda: False).messages[0].attachments  # not called off: read as usual
