"""A llama.cpp model behind the core's :class:`~app.core.decoding.model_port.CausalLM` port.

``llama_cpp.Llama`` is used only to load the model and hold the tokenizer and
chat template. Decoding runs on a batch this class owns: positions and
output flags are written through numpy views, logits are read as zero-copy
views of llama.cpp's output buffer, and only the rows the decoder needs are
flagged (``logits_all`` stays off: it allocates n_ctx x n_vocab floats, about
1.2 GB per model at 2048 tokens with a 152k vocabulary). Every call must come from
one thread; the GUI's worker thread owns all models.
"""

from __future__ import annotations

import ctypes
import errno
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import llama_cpp
import numpy as np
import numpy.typing as npt

from app.core.decoding.model_port import Outputs
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.core.errors import ContextSizeError, OutOfMemoryError, TandemError
from app.core.memory.devices import choose_offload_device
from app.engine.cpu import capped_threads, max_useful_threads
from app.engine.gguf.header import GGUFHeader, ModelFileError, read_header
from app.engine.llama.hidden_rows import HiddenRows
from app.engine.llama.rollback import RecurrentRollback, has_recurrent_state
from app.engine.memory.ggml_devices import GgmlUnavailableError, named_gpu_device, read_devices

# What could not get its memory, and why llama.cpp refused a file: said in the window's language.
_LOADING = QT_TRANSLATE_NOOP("LlamaModel", "loading {name}")
_NOT_LOADED = QT_TRANSLATE_NOOP("LlamaModel", "llama.cpp could not load {name}: {error}")
_IMAGE_NOT_REREAD = QT_TRANSLATE_NOOP(
    "LlamaModel",
    "this model keeps a recurrent state, and an image earlier in the chat cannot be read into it again: "
    "start a new chat for another question about it",
)

# Llama(verbose=False) redirects the process's stdout/stderr while loading;
# serialise loads (a projector's too: app/engine/llama/vision.py) so two never interleave their redirections.
LOAD_LOCK = threading.Lock()


class DecodeError(TandemError):
    """llama.cpp refused a batch."""


class ContextFullError(TandemError):
    """The KV cache has no room for the tokens to decode."""


# Flash attention on, as llama.cpp's own tools default to ("auto" turns it on for the CPU and CUDA):
# measured on the 2-core CPU with the Q4_K_M 1.5B target, a 4,096-token prefill read 84 tok/s with it
# against 79 without (512 tokens: the same); the memory estimate and the prefix cache's entries follow it.
FLASH_ATTENTION = True


@dataclass(frozen=True, slots=True)
class LoadOptions:
    """How to load one model."""

    n_ctx: int = 4096
    n_batch: int = 512
    n_threads: int | None = None
    n_gpu_layers: int = 0
    flash_attn: bool = FLASH_ATTENTION


# How llama.cpp and ggml say an allocation failed: a CPU or GPU buffer ("failed to allocate buffer",
# "cudaMalloc failed: out of memory"), or the weights' mapping ("mmap failed: Cannot allocate memory").
_OUT_OF_MEMORY_WORDS = (
    "out of memory",
    "insufficient memory",
    "failed to allocate",
    "unable to allocate",
    "cannot allocate memory",
)
# ggml.h's GGML_LOG_LEVEL_ERROR (NONE, DEBUG, INFO, WARN, ERROR, CONT); llama-cpp-python's own table is older.
_GGML_LOG_LEVEL_ERROR = 4


def _out_of_memory(exc: BaseException, log_errors: Sequence[str]) -> bool:
    """Whether a failed load ran out of memory: ENOMEM, or an allocation failure in the error or llama.cpp's log."""
    if isinstance(exc, OSError) and exc.errno == errno.ENOMEM:
        return True
    text = " ".join([str(exc), *log_errors]).lower()
    return any(words in text for words in _OUT_OF_MEMORY_WORDS)


class _ErrorLog:
    """llama.cpp's error lines during one load, every line still passed on to the callback set before.

    llama.cpp's log callback is process-global and others listen too (the
    window records the load log to measure memory); this one chains to
    whatever it found and puts it back afterwards, so it nests inside them.
    Used under ``LOAD_LOCK``: the swap itself is not thread-safe.
    """

    def __init__(self) -> None:
        self.errors: list[str] = []
        self._previous = llama_cpp.llama_log_callback()
        self._user_data = ctypes.c_void_p()
        self._record = llama_cpp.llama_log_callback(self._line)  # kept referenced while llama.cpp holds it

    def _line(self, level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        if level == _GGML_LOG_LEVEL_ERROR:
            self.errors.append(text.decode("utf-8", errors="replace"))
        if self._previous:
            self._previous(level, text, user_data)

    def __enter__(self) -> _ErrorLog:
        llama_cpp.llama_log_get(ctypes.byref(self._previous), ctypes.byref(self._user_data))
        llama_cpp.llama_log_set(self._record, self._user_data)
        return self

    def __exit__(self, *exc_info: object) -> None:
        llama_cpp.llama_log_set(self._previous, self._user_data)


def default_threads() -> int:
    """Physical cores, the best thread count for llama.cpp's CPU kernels on a quiet machine."""
    return max_useful_threads()


def _device_options(n_gpu_layers: int) -> tuple[int, int]:
    """The loader's split mode and ``main_gpu``: the device TANDEM_GPU_DEVICE names alone, else llama.cpp's default.

    llama.cpp splits layers over all its GPUs by default; one named device takes them
    alone (split mode "none", ``main_gpu`` its place in llama.cpp's list). A name the
    build does not list changes nothing: ``memory`` says so.
    """
    default = (llama_cpp.LLAMA_SPLIT_MODE_LAYER, 0)
    named = named_gpu_device()
    if not named or n_gpu_layers == 0:
        return default
    try:
        choice = choose_offload_device(read_devices(), named)
    except GgmlUnavailableError:
        return default
    if choice.device is None or not choice.found:
        return default
    return llama_cpp.LLAMA_SPLIT_MODE_NONE, choice.index


class LlamaModel:
    """One loaded GGUF model with its own context, KV cache and batch."""

    def __init__(self, path: str | Path, options: LoadOptions | None = None, header: GGUFHeader | None = None) -> None:
        self.path = Path(path).expanduser()
        self.options = options or LoadOptions()
        # A caller that already read the header (to check a pair) passes it on: Qwen's takes a second to parse.
        self.header: GGUFHeader = header if header is not None else read_header(self.path)
        # The cap (TANDEM_MAX_THREADS) holds for a count asked for, too: it is how processes share cores.
        threads = capped_threads(self.options.n_threads or default_threads())
        log = _ErrorLog()
        split_mode, main_gpu = _device_options(self.options.n_gpu_layers)
        try:
            with LOAD_LOCK, log:
                self._llm = llama_cpp.Llama(
                    model_path=str(self.path),
                    n_ctx=self.options.n_ctx,
                    n_batch=self.options.n_batch,
                    n_ubatch=self.options.n_batch,
                    n_threads=threads,
                    n_threads_batch=threads,
                    n_gpu_layers=self.options.n_gpu_layers,
                    flash_attn=self.options.flash_attn,
                    logits_all=False,
                    verbose=False,
                    split_mode=split_mode,
                    main_gpu=main_gpu,
                )
        except MemoryError as exc:  # Python's own allocations while loading (the binding's buffers)
            raise OutOfMemoryError(_LOADING.fill(name=self.path.name)) from exc
        except (ValueError, RuntimeError, OSError) as exc:
            # The binding's exception says only which step failed; llama.cpp's log says why.
            out_of_memory = _out_of_memory(exc, log.errors)
            if "llama_context" in str(exc):  # the weights loaded; the context of this size could not be made
                trained = self.header.get(f"{self.header.architecture}.context_length")
                n_ctx_train = int(trained) if isinstance(trained, int) and trained > 0 else None
                raise ContextSizeError(self.path.name, self.options.n_ctx, n_ctx_train, out_of_memory) from exc
            if out_of_memory:
                raise OutOfMemoryError(_LOADING.fill(name=self.path.name)) from exc
            raise ModelFileError(_NOT_LOADED.fill(name=self.path.name, error=str(exc))) from exc
        self._ctx = self._llm.ctx
        self._vocab = llama_cpp.llama_model_get_vocab(self._llm.model)
        self._memory = llama_cpp.llama_get_memory(self._ctx)
        self._n_vocab = int(llama_cpp.llama_vocab_n_tokens(self._vocab))
        self._n_ctx = int(llama_cpp.llama_n_ctx(self._ctx))
        self._n_batch = min(self.options.n_batch, self._n_ctx)
        self._batch = llama_cpp.llama_batch_init(self._n_batch, 0, 1)
        self._batch_tokens = np.ctypeslib.as_array(self._batch.token, shape=(self._n_batch,))
        self._batch_pos = np.ctypeslib.as_array(self._batch.pos, shape=(self._n_batch,))
        self._batch_logits = np.ctypeslib.as_array(self._batch.logits, shape=(self._n_batch,))
        np.ctypeslib.as_array(self._batch.n_seq_id, shape=(self._n_batch,))[:] = 1
        for i in range(self._n_batch):
            self._batch.seq_id[i][0] = 0
        self._tokens: list[int] = []
        self._pieces: dict[int, bytes] = {}
        self._closed = False
        self._hidden: HiddenRows | None = None
        # A model with a recurrent state is cut back through saved states (app.engine.llama.rollback); after such a
        # cut the last ``_unread`` of ``_tokens`` are kept but not in the context yet, and are read before a decode.
        self._rollback = RecurrentRollback(self._ctx, self._memory) if has_recurrent_state(self._llm.model) else None
        self._unread = 0
        # Positions written from outside a token batch (images), as [start, end): a cut cannot read them again.
        self._written: list[tuple[int, int]] = []

    def keep_hidden_rows(self) -> HiddenRows:
        """From now on keep each position's last hidden state (what the model's own MTP layers draft from)."""
        if self._hidden is None:
            self._hidden = HiddenRows(self._ctx, self._n_ctx, int(llama_cpp.llama_model_n_embd(self._llm.model)))
        return self._hidden

    # -- the CausalLM port ------------------------------------------------

    @property
    def n_vocab(self) -> int:
        """Logits per row."""
        return self._n_vocab

    @property
    def vocab(self) -> llama_cpp.llama_vocab_p:
        """llama.cpp's vocabulary handle (the grammar tokenizer reads it: app.engine.llama.grammar)."""
        return self._vocab

    @property
    def n_ctx(self) -> int:
        """KV cache capacity in positions."""
        return self._n_ctx

    @property
    def n_layer(self) -> int:
        """Repeating blocks in the model (the GPU-layer slots are these plus the output layer)."""
        return int(llama_cpp.llama_model_n_layer(self._llm.model))

    @property
    def kv_tokens(self) -> Sequence[int]:
        """Tokens currently in the KV cache."""
        return self._tokens

    def decode(self, tokens: Sequence[int], outputs: Outputs) -> npt.NDArray[np.float32]:
        """Append ``tokens`` in chunks of ``n_batch``; logits only for the rows asked for."""
        n = len(tokens)
        if n == 0:
            return np.empty((0, self._n_vocab), dtype=np.float32)
        if outputs == "all" and n > self._n_batch:
            raise ValueError(f"cannot return logits for {n} rows in one batch of {self._n_batch}")
        if len(self._tokens) + n > self._n_ctx:
            raise ContextFullError(
                f"the context is full: {len(self._tokens)} + {n} tokens exceed its {self._n_ctx} positions"
            )
        if self._rollback is not None:
            self._read_kept()
            self._rollback.save(len(self._tokens))
        self._read(tokens, outputs)
        if outputs == "none":
            return np.empty((0, self._n_vocab), dtype=np.float32)
        if outputs == "all":
            pointer = llama_cpp.llama_get_logits(self._ctx)
            return np.ctypeslib.as_array(pointer, shape=(n, self._n_vocab))
        pointer = llama_cpp.llama_get_logits_ith(self._ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(1, self._n_vocab))

    def _read_kept(self) -> None:
        """Read again the kept tokens a cut back through a saved recurrent state left out of the context."""
        if self._unread == 0:
            return
        held = len(self._tokens) - self._unread
        kept = self._tokens[held:]
        del self._tokens[held:]
        self._unread = 0
        lost = [start for start, end in self._written if end > held]
        if lost:
            # Their ids are stand-ins: read as text they would give wrong states, so the cache stops before them.
            self._written = [(start, end) for start, end in self._written if end <= held]
            self._read(kept[: max(0, min(lost) - held)], "none")
            raise DecodeError(_IMAGE_NOT_REREAD)
        self._read(kept, "none")

    def _read(self, tokens: Sequence[int], outputs: Outputs) -> None:
        """Decode ``tokens`` after the context in batches of ``n_batch``, marking the rows ``outputs`` asks for."""
        n = len(tokens)
        for start in range(0, n, self._n_batch):
            chunk = tokens[start : start + self._n_batch]
            m = len(chunk)
            n_past = len(self._tokens)
            self._batch_tokens[:m] = chunk
            self._batch_pos[:m] = np.arange(n_past, n_past + m, dtype=np.int32)
            self._batch_logits[:m] = 1 if outputs == "all" else 0
            if outputs == "last" and start + m == n:
                self._batch_logits[m - 1] = 1
            self._batch.n_tokens = m
            rc = llama_cpp.llama_decode(self._ctx, self._batch)
            if rc != 0:
                self._resync_after_failure()
                if rc == 1:
                    raise ContextFullError("llama.cpp found no free slot in the KV cache for this batch")
                raise DecodeError(f"llama_decode failed with code {rc}")
            if self._hidden is not None:
                self._hidden.record(n_past, m)
            self._tokens.extend(int(t) for t in chunk)

    def append_written(self, stand_in: Sequence[int], write: Callable[[llama_cpp.llama_context_p, int], int]) -> None:
        """Append positions that ``write`` fills from outside the batch (an image's embeddings, written by mtmd).

        ``write(ctx, n_past)`` writes ``len(stand_in)`` positions from ``n_past``
        into the context and returns 0 on success; ``stand_in`` are the ids the
        cache's token list records for them, so a later prompt holding the same
        ids at the same place reuses them.
        """
        n = len(stand_in)
        if self._hidden is not None:
            # The hidden rows an MTP drafter reads are kept per token batch; an image's rows are not.
            raise DecodeError("an image cannot be read while the model's own MTP layers draft")
        if len(self._tokens) + n > self._n_ctx:
            raise ContextFullError(
                f"the context is full: {len(self._tokens)} + {n} positions exceed its {self._n_ctx} positions"
            )
        if self._rollback is not None:
            self._read_kept()
            self._rollback.save(len(self._tokens))
        rc = write(self._ctx, len(self._tokens))
        if rc != 0:
            self._resync_after_failure()
            raise DecodeError(f"llama.cpp could not read the image into the context (code {rc})")
        if self._rollback is not None:
            self._written.append((len(self._tokens), len(self._tokens) + n))
        self._tokens.extend(int(t) for t in stand_in)

    def one_token_seconds(self, repeats: int = 3) -> float:
        """How long decoding one token takes now: the fastest of ``repeats`` timed decodes after a warm-up one.

        ``repeats=0`` only warms up (and says 0).

        Each decode goes after the cached tokens and is removed again, so the
        cache is as it was. The warm-up decode pays what only a first one does
        (mapped weights paged in, buffers allocated), as llama.cpp's own tools
        do at load.
        """
        n_keep = len(self._tokens)
        token = [0]  # any id in the vocabulary: the cost does not depend on which
        self.decode(token, "last")
        self.truncate(n_keep)
        best = 0.0 if repeats < 1 else float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            self.decode(token, "last")
            best = min(best, time.perf_counter() - start)
            self.truncate(n_keep)
        return best

    def truncate(self, n_keep: int) -> None:
        """Remove cached positions ``n_keep`` and later."""
        if n_keep >= len(self._tokens):
            return
        if self._rollback is None:
            llama_cpp.llama_memory_seq_rm(self._memory, 0, n_keep, -1)
        else:
            held = len(self._tokens) - self._unread
            if n_keep < held:
                held = self._rollback.cut(n_keep)
            self._unread = n_keep - held
            self._written = [(start, end) for start, end in self._written if start < n_keep]
        del self._tokens[n_keep:]
        if self._hidden is not None:
            self._hidden.cut(n_keep)

    def state_bytes(self) -> bytearray:
        """The KV state of the cached tokens (sequence 0) as llama.cpp serialises it: the prefix cache's payload."""
        self._read_kept()
        size = int(llama_cpp.llama_state_seq_get_size(self._ctx, 0))
        data = bytearray(size)
        if size == 0:
            return data
        buffer = (ctypes.c_uint8 * size).from_buffer(data)
        written = int(llama_cpp.llama_state_seq_get_data(self._ctx, buffer, size, 0))
        del buffer  # the bytearray cannot shrink while a ctypes view exports it
        del data[written:]
        return data

    def state_size_limit(self, n_tokens: int) -> int:
        """More bytes than :meth:`state_bytes` can give for ``n_tokens`` tokens: a larger claim is not this model's.

        Each token's keys and values in every layer, counted as 32-bit floats
        (the widest type a KV cache holds) over the widest of the embedding and
        the key and value heads, twice over, plus 64 MiB for what does not grow
        with the tokens (the state's own header, a recurrent layer's state).
        """
        model = self._llm.model
        arch = self.header.architecture
        n_head_kv = int(llama_cpp.llama_model_n_head_kv(model))
        widths = [int(llama_cpp.llama_model_n_embd(model))]
        for key in ("key_length", "value_length"):
            length = self.header.get(f"{arch}.attention.{key}")
            if isinstance(length, int) and length > 0:
                widths.append(n_head_kv * length)
        per_token = int(llama_cpp.llama_model_n_layer(model)) * 2 * max(widths) * 4 * 2
        return max(0, n_tokens) * per_token + 64 * 1024 * 1024

    def load_state(self, data: bytearray, tokens: Sequence[int]) -> bool:
        """Replace the cache with a state :meth:`state_bytes` gave for ``tokens``; False (cache empty) if refused.

        llama.cpp checks the state against this context (layers, sizes, V layout)
        and the cell count is checked against ``tokens``, so a state it would
        read differently leaves an empty cache rather than a wrong one.
        """
        llama_cpp.llama_memory_seq_rm(self._memory, 0, -1, -1)
        self._tokens = []
        self._unread = 0
        self._written = []
        if self._rollback is not None:
            self._rollback.forget()
        if self._hidden is not None:
            self._hidden.cut(0)  # a loaded state brings no hidden rows
        if not data or len(tokens) > self._n_ctx:
            return False
        buffer = (ctypes.c_uint8 * len(data)).from_buffer(data)
        read = int(llama_cpp.llama_state_seq_set_data(self._ctx, buffer, len(data), 0))
        del buffer
        top = int(llama_cpp.llama_memory_seq_pos_max(self._memory, 0))
        if read == 0 or top != len(tokens) - 1:
            llama_cpp.llama_memory_seq_rm(self._memory, 0, -1, -1)
            return False
        self._tokens = [int(t) for t in tokens]
        return True

    def token_bytes(self, token: int) -> bytes:
        """The token's piece, never cut at 32 bytes (llama-cpp-python issue 2362); a control token's is empty."""
        piece = self._pieces.get(token)
        if piece is None:
            piece = self._piece(token, special=False)
            self._pieces[token] = piece
        return piece

    def special_bytes(self, token: int) -> bytes:
        """The token's piece with a control token rendered as its text (``<|python_tag|>``, ``[TOOL_CALLS]``)."""
        return self._piece(token, special=True)

    def is_control(self, token: int) -> bool:
        """Whether the vocabulary holds ``token`` as a control token (plain detokenising shows nothing of it)."""
        return bool(llama_cpp.llama_vocab_get_attr(self._vocab, token) & llama_cpp.LLAMA_TOKEN_ATTR_CONTROL)

    def _piece(self, token: int, special: bool) -> bytes:
        size = 64
        buffer = ctypes.create_string_buffer(size)
        n = llama_cpp.llama_token_to_piece(self._vocab, token, buffer, size, 0, special)
        if n < 0:
            size = -n
            buffer = ctypes.create_string_buffer(size)
            n = llama_cpp.llama_token_to_piece(self._vocab, token, buffer, size, 0, special)
        return buffer.raw[: max(n, 0)]

    def is_eog(self, token: int) -> bool:
        """End-of-generation tokens as llama.cpp defines them for this vocabulary."""
        return bool(llama_cpp.llama_vocab_is_eog(self._vocab, token))

    # -- beyond the port ---------------------------------------------------

    @property
    def llama(self) -> llama_cpp.Llama:
        """The underlying ``Llama`` object (tokenizer, metadata, chat template)."""
        return self._llm

    @property
    def name(self) -> str:
        """The file name, for messages."""
        return self.path.name

    @property
    def threads(self) -> int:
        """The CPU threads llama.cpp decodes this context with (one token and batches alike)."""
        return int(llama_cpp.llama_n_threads(self._ctx))

    def set_threads(self, n_threads: int) -> None:
        """Decode with ``n_threads`` from the next call on, without reloading (``llama_set_n_threads``)."""
        if n_threads < 1:
            raise ValueError("the thread count must be >= 1")
        # Verify batches run on n_threads_batch: both must change, or a busy core still stalls the verify.
        llama_cpp.llama_set_n_threads(self._ctx, n_threads, n_threads)

    def tokenize(self, text: str, add_special: bool = False, parse_special: bool = True) -> list[int]:
        """Token ids for ``text``."""
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=add_special, special=parse_special))

    def token_text(self, token: int) -> str:
        """The vocabulary entry of ``token`` (its raw text, special tokens included)."""
        raw = llama_cpp.llama_vocab_get_text(self._vocab, token)
        return raw.decode("utf-8", errors="replace") if raw else ""

    def close(self) -> None:
        """Free the batch, the context and the weights (idempotent)."""
        if self._closed:
            return
        self._closed = True
        llama_cpp.llama_batch_free(self._batch)
        self._llm.close()

    def __enter__(self) -> LlamaModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _resync_after_failure(self) -> None:
        """After a failed decode, drop whatever llama.cpp may have kept of the batch."""
        llama_cpp.llama_memory_seq_rm(self._memory, 0, len(self._tokens) - self._unread, -1)


def gpu_offload_supported() -> bool:
    """Whether this llama-cpp-python build can put layers on a GPU."""
    return bool(llama_cpp.llama_supports_gpu_offload())
