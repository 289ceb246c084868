"""`chat --chat ID` with one option: that option, and only it, overrides the stored chat's setting for the reply.

The help promises that options given with ``--chat`` override the chat's
settings for this reply; each case gives one option on the real SmolLM2 pair
and reads what produced the reply (``produced_by`` of ``--json``, the same
record the store keeps): the option's setting is the option's, every other
one is still the chat's, and the chat's stored settings are unchanged.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.drafters import DrafterKind
from app.engine.store.conversations import ChatStore
from tests.cli.helpers import one_line_error, run_cli
from tests.fixtures.synthetic_drafters import SMOLLM2_FILE, Tokenizer, write_glm4moe_mtp

# Every setting an option can override, each away from both its default and the option's value below.
STORED = ChatSettings(
    system_prompt="You are a ship's cook.",
    temperature=0.3,
    top_k=20,
    top_p=0.8,
    min_p=0.1,
    repeat_penalty=1.2,
    seed=5,
    max_tokens=5,
    drafter=DrafterKind.HYBRID,
    draft_length=4,
    adaptive=True,
)


def _stored_produced(settings: ChatSettings, draft_name: str) -> dict[str, Any]:
    """What ``produced_by`` says of a reply made with ``settings`` alone (the draft model loaded as ``draft_name``)."""
    uses_draft = settings.drafter in (DrafterKind.HYBRID, DrafterKind.MODEL)
    return {
        "system_prompt": settings.system_prompt,
        "seed": settings.seed,
        "drafter": settings.drafter.value,
        "draft": draft_name if uses_draft else None,
        "temperature": settings.temperature,
        "top_k": settings.top_k,
        "top_p": settings.top_p,
        "min_p": settings.min_p,
        "repeat_penalty": settings.repeat_penalty,
        "max_tokens": settings.max_tokens,
    }


def _flat(produced: dict[str, Any]) -> dict[str, Any]:
    sampling = produced["sampling"]
    flat = {key: produced[key] for key in ("system_prompt", "seed", "drafter", "draft")}
    flat.update({key: sampling[key] for key in ("temperature", "top_k", "top_p", "min_p", "repeat_penalty")})
    flat["max_tokens"] = sampling["max_tokens"]
    return flat


# (the stored chat's drafter, the option, what produced_by then says differently from the stored chat)
CASES: list[tuple[DrafterKind, list[str], dict[str, Any]]] = [
    (DrafterKind.HYBRID, ["--temperature", "0.9"], {"temperature": 0.9}),
    (DrafterKind.HYBRID, ["--temperature", "0"], {"temperature": 0.0}),
    (DrafterKind.HYBRID, ["--top-k", "7"], {"top_k": 7}),
    (DrafterKind.HYBRID, ["--top-p", "0.5"], {"top_p": 0.5}),
    (DrafterKind.HYBRID, ["--min-p", "0.02"], {"min_p": 0.02}),
    (DrafterKind.HYBRID, ["--repeat-penalty", "1.05"], {"repeat_penalty": 1.05}),
    (DrafterKind.HYBRID, ["--seed", "77"], {"seed": 77}),
    (DrafterKind.HYBRID, ["--max-tokens", "3"], {"max_tokens": 3}),
    (DrafterKind.HYBRID, ["--system", "Answer in French."], {"system_prompt": "Answer in French."}),
    (DrafterKind.HYBRID, ["--system", ""], {"system_prompt": ""}),
    (DrafterKind.HYBRID, ["--drafter", "none"], {"drafter": "none", "draft": None}),
    (DrafterKind.HYBRID, ["--drafter", "ngram"], {"drafter": "ngram", "draft": None}),
    (DrafterKind.HYBRID, ["--drafter", "model"], {"drafter": "model"}),
    (DrafterKind.NONE, ["--drafter", "hybrid"], {"drafter": "hybrid", "draft": "DRAFT"}),
    (DrafterKind.HYBRID, ["--ngram"], {"drafter": "ngram", "draft": None}),
    (DrafterKind.HYBRID, ["--no-draft"], {"drafter": "none", "draft": None}),
    (DrafterKind.HYBRID, ["--draft-max", "0"], {"drafter": "none", "draft": None}),
]


@pytest.mark.parametrize(("stored_drafter", "option", "changed"), CASES, ids=[" ".join(c[1]) for c in CASES])
def test_each_option_overrides_the_stored_setting_for_the_reply(data_dir, small_pair, stored_drafter, option, changed):
    path = data_dir / "conversations.sqlite3"
    stored = STORED.with_changes(drafter=stored_drafter)
    store = ChatStore(path)
    try:
        cid = store.create_conversation("Galley", stored.to_dict())
    finally:
        store.close()
    # argparse refuses --ngram and --no-draft beside --draft, so those cases name the target alone.
    pair = ["--target", str(small_pair[0]), "--ctx", "512", "--threads", "1"]
    if option[0] not in ("--ngram", "--no-draft"):
        pair += ["--draft", str(small_pair[1])]
    result = run_cli("chat", "--chat", str(cid), *pair, *option, "--json", "Soup?", data=data_dir)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)

    draft_name = small_pair[1].name
    expected = _stored_produced(stored, draft_name)
    expected.update({key: draft_name if value == "DRAFT" else value for key, value in changed.items()})
    if option[0] in ("--ngram", "--no-draft"):  # no draft file given: the stored hybrid could not have used one
        expected["draft"] = None
    assert _flat(payload["produced_by"]) == expected
    assert payload["drafter"] == expected["drafter"]
    store = ChatStore(path, read_only=True)
    try:
        assert ChatSettings.from_dict(store.conversation_settings(cid)) == stored  # for this reply only
    finally:
        store.close()


def test_draft_max_fixes_the_draft_length_for_the_reply(data_dir, small_pair):
    path = data_dir / "conversations.sqlite3"
    store = ChatStore(path)
    try:
        cid = store.create_conversation("Galley", STORED.to_dict())
    finally:
        store.close()
    pair = ["--target", str(small_pair[0]), "--draft", str(small_pair[1]), "--ctx", "512", "--threads", "1"]
    result = run_cli("chat", "--chat", str(cid), *pair, "--draft-max", "2", "--json", "Soup?", data=data_dir)
    assert result.returncode == 0, result.stderr
    produced = json.loads(result.stdout)["produced_by"]
    assert produced["draft_policy"] == "fixed 2" and produced["drafter"] == "hybrid"


def test_a_draft_model_drafter_without_a_draft_file_is_one_line(data_dir, small_pair):
    path = data_dir / "conversations.sqlite3"
    store = ChatStore(path)
    try:
        cid = store.create_conversation("Galley", STORED.to_dict())
    finally:
        store.close()
    target_only = ["--target", str(small_pair[0]), "--ctx", "512", "--threads", "1"]
    result = run_cli("chat", "--chat", str(cid), *target_only, "--drafter", "model", "Soup?", data=data_dir)
    one_line_error(result, "--drafter model needs a draft model")


def test_a_chat_stored_with_the_mtp_layers_reopens_with_them_and_falls_back_where_the_target_has_none(
    data_dir, small_pair, models_folder, tmp_path
):
    """The MTP target is the SYNTHETIC glm4moe file of tests/fixtures/synthetic_drafters.py (random weights,
    SmolLM2's tokenizer): no small real model with MTP layers exists."""
    mtp_target = write_glm4moe_mtp(
        tmp_path / "synthetic-glm4moe-mtp.gguf", Tokenizer.from_file(models_folder / SMOLLM2_FILE)
    )
    path = data_dir / "conversations.sqlite3"
    store = ChatStore(path)
    try:
        cid = store.create_conversation("Galley", STORED.with_changes(drafter=DrafterKind.MTP).to_dict())
    finally:
        store.close()
    options = ["--ctx", "512", "--threads", "1", "--json"]
    result = run_cli("chat", "--chat", str(cid), "--target", str(mtp_target), *options, "Soup?", data=data_dir)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["produced_by"]["drafter"] == "mtp"
    # A target without MTP layers: prompt lookup stands in, as for a draft-model chat without a draft file.
    result = run_cli("chat", "--chat", str(cid), "--target", str(small_pair[0]), *options, "More?", data=data_dir)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["produced_by"]["drafter"] == "ngram"
    # Asked for on the command line, it is refused there in one line.
    result = run_cli(
        "chat", "--chat", str(cid), "--target", str(small_pair[0]), "--drafter", "mtp", "More?", data=data_dir
    )
    one_line_error(result, "has no MTP layers to draft with")
