"""A llama-server that Tandem starts and stops itself, to draft with a model's own drafter through llama.cpp.

MTP layers inside the target, an EAGLE-3 head or a DFlash drafter beside it:
llama.cpp implements each (``--spec-type draft-mtp``, ``draft-eagle3``,
``draft-dflash``). :class:`ManagedServer` reads the files' headers first, so a
file without such a drafter, or a head built for another target, is refused
in one line before any process starts; then it runs the
:class:`~app.engine.remote.llama_server.LlamaServerProcess` and talks to it
through the :class:`~app.engine.remote.client.RemoteEngine`, whose step
events carry the server's drafted and accepted counts, as for any remote
server. A server that dies mid-reply is named as such, with the partial reply
kept.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from app.core.conversation.chat import Message
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.sampling import SamplingParams
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.core.errors import TandemError
from app.core.pairing.compatibility import joined
from app.core.pairing.own_drafter import OwnDrafter, head_problems
from app.engine.gguf.architecture import read_architecture
from app.engine.gguf.header import read_header
from app.engine.gguf.own_drafter import read_own_drafter
from app.engine.remote.client import RemoteEngine
from app.engine.remote.errors import RemoteError
from app.engine.remote.llama_server import LlamaServerProcess

NO_OWN_DRAFTER = QT_TRANSLATE_NOOP(
    "ManagedServer", "{name} carries no drafter of its own (no MTP layers): choose its EAGLE-3 or DFlash file"
)
OWN_DRAFTER_UNUSABLE = QT_TRANSLATE_NOOP("ManagedServer", "{name}: {why}")
NOT_A_HEAD = QT_TRANSLATE_NOOP("ManagedServer", "{name} is not an EAGLE-3 head or a DFlash drafter")
HEAD_MISFITS = QT_TRANSLATE_NOOP("ManagedServer", "{head} cannot draft for {target}: {problems}")
SERVER_DIED = QT_TRANSLATE_NOOP(
    "ManagedServer", "the llama-server Tandem started for {name} stopped (exit code {code}): the partial reply is kept"
)

# How long a server whose stream broke may take to exit before it counts as alive.
DEATH_WAIT_S = 2.0


def own_drafter_for(target: Path, head: Path | None = None) -> OwnDrafter:
    """The drafter a managed server would run for ``target`` (its MTP layers, or ``head``); raise when there is none."""
    target_header = read_header(target)
    if head is None:
        own = read_own_drafter(target_header)
        if own is None or own.kind.needs_head_file:
            raise TandemError(NO_OWN_DRAFTER.fill(name=target.name))
        if not own.usable:
            raise TandemError(OWN_DRAFTER_UNUSABLE.fill(name=target.name, why=own.explanation()))
        return own
    drafter = read_own_drafter(read_header(head))
    if drafter is None or not drafter.kind.needs_head_file or not drafter.usable:
        raise TandemError(NOT_A_HEAD.fill(name=head.name))
    shape = read_architecture(target_header)
    problems = head_problems(drafter, shape.n_embd, shape.n_layers)
    if problems:
        listed = joined(
            [
                QT_TRANSLATE_NOOP("PairingRules", "{rule}: {detail}").fill(rule=p.rule_words, detail=p.detail_words)
                for p in problems
            ]
        )
        raise TandemError(HEAD_MISFITS.fill(head=head.name, target=target.name, problems=listed))
    return drafter


class ManagedEngine(RemoteEngine):
    """The remote engine for a managed server: a reply the server's death cut short says the server stopped."""

    def __init__(self, process: LlamaServerProcess, name: str, model: str | None = None) -> None:
        super().__init__(process.url, None, model)
        self.process = process
        self.name = name  # the target's file name, for the line that says the server stopped

    def generate(
        self,
        messages: Sequence[Message],
        params: SamplingParams,
        max_tokens: int,
        stop: Sequence[str] = (),
        should_stop: Callable[[], bool] = lambda: False,
    ) -> Iterator[StepEvent | FinishedEvent]:
        """The remote engine's reply; a server that died on the way is named as such, the partial reply kept."""
        try:
            yield from super().generate(messages, params, max_tokens, stop, should_stop)
        except RemoteError as exc:
            process = self.process.process
            if process is None:
                raise
            try:
                # A crashing server closes its socket a moment before it has exited: wait that moment.
                code = process.wait(timeout=DEATH_WAIT_S)
            except subprocess.TimeoutExpired:
                raise exc from None  # alive: the remote engine's own words say what went wrong
            raise RemoteError(SERVER_DIED.fill(name=self.name, code=str(code)), exc.partial, exc.stats) from exc


class ManagedServer:
    """One llama-server for ``target`` (and ``head``), drafting with the model's own drafter; a context manager.

    Nothing runs until :meth:`start`; :meth:`stop` ends the process, and so does leaving the ``with`` block.
    """

    def __init__(
        self,
        target: Path,
        head: Path | None = None,
        *,
        draft_max: int = 3,
        n_ctx: int = 2048,
        threads: int = 2,
        binary: Path | None = None,
    ) -> None:
        self.target = target
        self.drafter = own_drafter_for(target, head)
        self.process = LlamaServerProcess(
            target,
            head,
            spec_type=self.drafter.kind.value,
            draft_max=draft_max,
            n_ctx=n_ctx,
            threads=threads,
            binary=binary,
        )
        self.engine: ManagedEngine | None = None

    def start(self, timeout_s: float = 300.0) -> ManagedServer:
        """Start the server and wait until its models are loaded."""
        self.process.start(timeout_s)
        self.engine = ManagedEngine(self.process, self.target.name)
        return self

    def stop(self) -> None:
        """End the server (nothing happens when it is not running)."""
        self.process.stop()
        self.engine = None

    def __enter__(self) -> ManagedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
