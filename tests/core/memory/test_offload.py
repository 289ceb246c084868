"""GPU layers "auto": the offload planner on hand-built VRAM figures, and its costs from the estimate."""

from __future__ import annotations

from app.core.memory.estimate import GPU_RUNTIME_BYTES, Device, ModelShape, estimate_pair
from app.core.memory.offload import AUTO_GPU_LAYERS, OffloadCost, is_auto, offload_cost, plan_offload

MIB = 2**20

# A 28-block target (29 slots) at 100 MiB a slot with 200 MiB of compute buffers: 3,100 MiB in full.
TARGET = OffloadCost((100 * MIB,) * 29, 200 * MIB)
# A 24-block draft (25 slots) at 20 MiB a slot with 60 MiB of compute buffers: 560 MiB in full.
DRAFT = OffloadCost((20 * MIB,) * 25, 60 * MIB)
RUNTIME = 300 * MIB


def test_costs_add_up_slot_by_slot() -> None:
    assert TARGET.bytes_for(0) == 0
    assert TARGET.bytes_for(1) == 300 * MIB
    assert TARGET.bytes_for(29) == TARGET.bytes_for(99) == 3100 * MIB
    assert TARGET.most_that_fit(299 * MIB) == 0  # the compute buffers come with the first slot
    assert TARGET.most_that_fit(1000 * MIB) == 8


def test_everything_on_a_large_gpu_and_the_meter_line() -> None:
    plan = plan_offload(24 * 1024 * MIB, TARGET, DRAFT, runtime_bytes=RUNTIME)
    assert (plan.target_layers, plan.draft_layers) == (29, 25)
    assert plan.gpu_bytes == RUNTIME + 3100 * MIB + 560 * MIB
    assert plan.describe() == "auto: 29 of 29 target layers, 25 of 25 draft layers on the GPU"


def test_the_draft_goes_fully_on_the_gpu_before_the_target() -> None:
    # 2 GiB: runtime 300 + draft 560 leaves 1,188 MiB, so 200 + 9 x 100 = 1,100 MiB of target.
    plan = plan_offload(2048 * MIB, TARGET, DRAFT, runtime_bytes=RUNTIME)
    assert (plan.target_layers, plan.draft_layers) == (9, 25)
    assert plan.gpu_bytes == RUNTIME + 560 * MIB + 1100 * MIB <= 2048 * MIB
    assert plan.describe() == "auto: 9 of 29 target layers, 25 of 25 draft layers on the GPU"


def test_too_little_vram_for_the_whole_draft_puts_part_of_it_and_no_target() -> None:
    plan = plan_offload(RUNTIME + 60 * MIB + 10 * 20 * MIB + 5 * MIB, TARGET, DRAFT, runtime_bytes=RUNTIME)
    assert (plan.target_layers, plan.draft_layers) == (0, 10)


def test_nothing_fits_means_the_cpu_and_no_runtime_charged() -> None:
    plan = plan_offload(RUNTIME + 50 * MIB, TARGET, DRAFT, runtime_bytes=RUNTIME)
    assert (plan.target_layers, plan.draft_layers, plan.gpu_bytes) == (0, 0, 0)
    assert plan_offload(0, TARGET, DRAFT).gpu_bytes == 0


def test_a_count_the_user_set_is_kept_and_charged_first() -> None:
    # Target forced to 29 slots (3,100 MiB) in 3,800 MiB: the draft gets the 400 MiB left, 60 + 17 x 20.
    plan = plan_offload(3800 * MIB, TARGET, DRAFT, runtime_bytes=RUNTIME, target_layers=29)
    assert (plan.target_layers, plan.draft_layers) == (29, 17)
    # A set draft count stays even when it leaves the target nothing.
    plan = plan_offload(RUNTIME + 560 * MIB, TARGET, DRAFT, runtime_bytes=RUNTIME, draft_layers=3)
    assert (plan.draft_layers, plan.target_layers) == (3, 2)  # 560 - 120 = 440: 200 + 2 x 100
    # -1 is llama.cpp's "every layer", kept as such.
    assert plan_offload(RUNTIME, TARGET, DRAFT, runtime_bytes=RUNTIME, draft_layers=-1).draft_layers == 25


def test_without_a_draft_the_line_names_the_target_only() -> None:
    plan = plan_offload(1200 * MIB, TARGET, None, runtime_bytes=RUNTIME)
    assert (plan.target_layers, plan.draft_slots) == (7, 0)
    assert plan.describe() == "auto: 7 of 29 target layers on the GPU"


def test_auto_is_not_minus_one_which_means_every_layer() -> None:
    assert is_auto(AUTO_GPU_LAYERS) and not is_auto(-1) and not is_auto(0)


def test_costs_from_a_shape_match_the_estimate_the_meter_shows() -> None:
    shape = ModelShape(n_layers=30, n_embd=576, n_head=9, n_head_kv=3, head_dim=64, n_vocab=49152, n_ff=1536,
                       file_size=98_362_432, n_params=134_515_008, name="smol")  # fmt: skip
    cost = offload_cost(shape, 2048)
    assert cost.slots == 31 and cost.fixed_bytes > 0 and all(b > 0 for b in cost.slot_bytes)
    for layers in (1, 10, 31):
        gpu = estimate_pair(shape, None, 2048, layers, 0).bytes_on(Device.GPU)
        assert cost.bytes_for(layers) + GPU_RUNTIME_BYTES == gpu
