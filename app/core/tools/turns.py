"""Tool calls as turns of a conversation: the user's answer to a call, what one call gave, and how both are stored.

A reply that calls tools is an assistant message whose ``meta`` holds the
calls (:func:`calls_meta`, in OpenAI's ``tool_calls`` shape); each call's
result is a message with role ``tool`` whose content is the result's text
(so the chats' search finds it, and exports carry it) and whose ``meta``
holds the rest of :class:`ToolOutcome` (the call, the user's answer, whether
it is an error's line). :func:`prompt_message` turns a stored turn back into
the :class:`~app.core.conversation.chat.Message` a chat template renders. Reading is
tolerant (a hand-edited file loses the call, never the message).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.attachments.record import Attachment
from app.core.conversation.chat import Message, Role
from app.core.conversation.images import ImageInput
from app.core.display.wording import QT_TRANSLATE_NOOP, Words
from app.core.tools.records import ToolCall, ToolError, ToolResult

DENIED_TEXT = "the user did not allow this call"  # what the model reads for a call the user refused

# Said on a reply in place of a call the loop did not run (the window renders them translated).
_MALFORMED = QT_TRANSLATE_NOOP("ToolNote", "the model answered with a malformed call: {excerpt}")
_REPEATED = QT_TRANSLATE_NOOP(
    "ToolNote", "the model asked for {names} again with the same arguments; not run twice, answered without tools"
)
_AFTER_END = QT_TRANSLATE_NOOP("ToolNote", "the model asked for {names} after its tool calls ended; not run")
NOTE_KEY = "tool_note"


class Approval(enum.StrEnum):
    """The user's answer to one call: run it this once, run this tool for the rest of the chat, or do not run it."""

    ALLOW_ONCE = "allow_once"
    ALWAYS_IN_CHAT = "always_in_chat"
    DENY = "deny"

    @property
    def allows(self) -> bool:
        """True when the call runs."""
        return self is not Approval.DENY


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """One call as it ended: what the model asked, the user's answer, and what went back to the model."""

    call: ToolCall
    approval: Approval
    result: ToolResult

    @property
    def allowed(self) -> bool:
        """True when the call ran."""
        return self.approval.allows

    def to_json(self) -> dict[str, Any]:
        """The entry of ``chat --json``'s ``tool_calls``."""
        return {
            "id": self.call.id,
            "name": self.call.name,
            "arguments": self.call.arguments,
            "allowed": self.allowed,
            "approval": self.approval.value,
            "result": self.result.text,
            "is_error": self.result.is_error,
        }

    def to_meta(self) -> dict[str, Any]:
        """The ``meta`` of the ``tool`` message that holds this outcome (its content is the result's text)."""
        return {
            "tool_result": {
                "call": self.call.to_openai(),
                "approval": self.approval.value,
                "is_error": self.result.is_error,
            }
        }

    @classmethod
    def from_message(cls, content: str, meta: Mapping[str, Any]) -> ToolOutcome | None:
        """A stored ``tool`` message's outcome; None when its meta does not hold one that reads."""
        raw = meta.get("tool_result")
        if not isinstance(raw, Mapping):
            return None
        try:
            call = ToolCall.from_openai(raw.get("call"), "tool_result.call")
            approval = Approval(str(raw.get("approval")))
        except (ToolError, ValueError):
            return None
        return cls(call, approval, ToolResult(call.id, content, is_error=bool(raw.get("is_error"))))


def calls_meta(calls: Sequence[ToolCall]) -> dict[str, Any]:
    """The ``meta`` an assistant reply that made ``calls`` adds."""
    return {"tool_calls": [call.to_openai() for call in calls]}


def calls_of_meta(meta: Mapping[str, Any]) -> tuple[ToolCall, ...]:
    """The calls a stored reply made (``()`` for none); an entry that does not read is left out."""
    raw = meta.get("tool_calls")
    if not isinstance(raw, list):
        return ()
    calls = []
    for n, entry in enumerate(raw):
        try:
            calls.append(ToolCall.from_openai(entry, f"tool_calls[{n}]"))
        except ToolError:
            continue
    return tuple(calls)


def prompt_message(
    role: str,
    content: str,
    meta: Mapping[str, Any],
    attachments: tuple[Attachment, ...] = (),
    images: tuple[ImageInput, ...] = (),
) -> Message:
    """A stored turn as the prompt's message: a reply's calls and a result's call id read back from ``meta``."""
    if role == Role.ASSISTANT:
        return Message(role, content, attachments, tool_calls=calls_of_meta(meta), images=images)
    if role == Role.TOOL:
        outcome = ToolOutcome.from_message(content, meta)
        call_id = outcome.call.id if outcome is not None else ""
        return Message(role, content, attachments, tool_call_id=call_id, images=images)
    return Message(role, content, attachments, images=images)


@dataclass(frozen=True, slots=True)
class ChatTools:
    """One chat's choices about tools: those it offers, and those allowed for the rest of the chat.

    Kept in the chat's settings under :data:`CHAT_TOOLS_KEY`, beside (not inside)
    :class:`~app.core.conversation.chat_settings.ChatSettings`, so chats without tools are untouched.
    ``on`` names the tools offered; older chats stored the tools switched ``off``
    instead (``on`` None: every tool but those), which still reads as it meant.
    A chat with nothing stored offers the tools marked for new chats (none by default).
    """

    on: frozenset[str] | None = frozenset()
    off: frozenset[str] = frozenset()
    always: frozenset[str] = frozenset()

    def offers(self, name: str) -> bool:
        """True when the chat offers the tool ``name``."""
        return name in self.on if self.on is not None else name not in self.off

    def with_on(self, on: frozenset[str]) -> ChatTools:
        """The same choices offering exactly ``on`` (stored in the newer form from then on)."""
        return ChatTools(on=on, always=self.always)

    def to_dict(self) -> dict[str, list[str]]:
        """The stored form (names sorted, so a file does not change when nothing did)."""
        if self.on is None:
            return {"off": sorted(self.off), "always": sorted(self.always)}
        return {"on": sorted(self.on), "always": sorted(self.always)}

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any], new_chat: frozenset[str] = frozenset()) -> ChatTools:
        """A chat's choices from its stored settings (``new_chat``: what a chat with none offers); never refused."""
        raw = settings.get(CHAT_TOOLS_KEY)
        if not isinstance(raw, Mapping):
            return cls(on=new_chat)

        def names(key: str) -> frozenset[str]:
            value = raw.get(key)
            return frozenset(v for v in value if isinstance(v, str)) if isinstance(value, list) else frozenset()

        if isinstance(raw.get("on"), list):
            return cls(on=names("on"), always=names("always"))
        return cls(on=None, off=names("off"), always=names("always"))


CHAT_TOOLS_KEY = "tools"


class NoteKind(enum.StrEnum):
    """Why a reply's call was not run: it did not read as a call, it repeated one answered, or tools had ended."""

    MALFORMED = "malformed"
    REPEATED = "repeated"
    AFTER_END = "after_end"


@dataclass(frozen=True, slots=True)
class ToolNote:
    """A line a reply carries about a call the loop did not run, stored in the reply's meta under :data:`NOTE_KEY`."""

    kind: NoteKind
    names: tuple[str, ...] = ()  # the tools asked for (REPEATED, AFTER_END)
    excerpt: str = ""  # the broken call's start (MALFORMED)

    def words(self) -> Words:
        """The line, in English as ``str``, translated by the window."""
        if self.kind is NoteKind.MALFORMED:
            return _MALFORMED.fill(excerpt=self.excerpt)
        names = ", ".join(self.names)
        return (_REPEATED if self.kind is NoteKind.REPEATED else _AFTER_END).fill(names=names)

    def to_meta(self) -> dict[str, Any]:
        """The reply's meta entry."""
        return {NOTE_KEY: {"kind": self.kind.value, "names": list(self.names), "excerpt": self.excerpt}}

    @classmethod
    def from_meta(cls, meta: Mapping[str, Any]) -> ToolNote | None:
        """A stored reply's note; None when it has none that reads."""
        raw = meta.get(NOTE_KEY)
        if not isinstance(raw, Mapping):
            return None
        try:
            kind = NoteKind(str(raw.get("kind")))
        except ValueError:
            return None
        names = raw.get("names")
        excerpt = raw.get("excerpt")
        return cls(
            kind=kind,
            names=tuple(n for n in names if isinstance(n, str)) if isinstance(names, list) else (),
            excerpt=excerpt if isinstance(excerpt, str) else "",
        )
