"""The offload device and GPU layers "auto" planned from made-up ggml device lists."""

from __future__ import annotations

from app.core.memory.devices import (
    BackendDevice,
    DeviceKind,
    cap_free_memory,
    device_budget_bytes,
    kind_of_ggml_type,
    offload_device,
    place_model,
    plan_for_device,
)
from app.core.memory.offload import OffloadCost

MIB = 2**20
GIB = 2**30

# A 28-block target (29 slots) at 100 MiB a slot with 200 MiB of compute buffers: 3,100 MiB in full.
TARGET = OffloadCost((100 * MIB,) * 29, 200 * MIB)
# A 24-block draft (25 slots) at 20 MiB a slot with 60 MiB of compute buffers: 560 MiB in full.
DRAFT = OffloadCost((20 * MIB,) * 25, 60 * MIB)

CPU = BackendDevice(
    name="CPU", description="AMD Ryzen 7 7700", kind=DeviceKind.CPU, free_bytes=30 * GIB, total_bytes=32 * GIB
)
BLAS = BackendDevice(name="BLAS", description="OpenBLAS", kind=DeviceKind.ACCEL, free_bytes=0, total_bytes=0)
# An 8 GiB Vulkan card with 1.5 GiB free (a game is running): ggml lists GPUs before the CPU.
VULKAN = BackendDevice(
    name="Vulkan0",
    description="AMD Radeon RX 7600",
    kind=DeviceKind.GPU,
    free_bytes=1536 * MIB,
    total_bytes=8 * GIB,
)
# Apple silicon: Metal lists one GPU whose memory is the unified memory it may use.
METAL = BackendDevice(
    name="MTL0", description="Apple M2", kind=DeviceKind.GPU, free_bytes=16 * GIB, total_bytes=16 * GIB
)
INTEL_IGPU = BackendDevice(
    name="Vulkan1",
    description="Intel(R) UHD Graphics 770",
    kind=DeviceKind.IGPU,
    free_bytes=12 * GIB,
    total_bytes=16 * GIB,
)


def test_ggml_type_numbers_follow_the_enum_and_unknown_ones_are_none() -> None:
    assert [kind_of_ggml_type(n) for n in range(4)] == [
        DeviceKind.CPU,
        DeviceKind.GPU,
        DeviceKind.IGPU,
        DeviceKind.ACCEL,
    ]
    assert kind_of_ggml_type(4) is None
    assert kind_of_ggml_type(-1) is None


def test_an_8_gib_vulkan_gpu_is_planned_from_its_free_memory() -> None:
    devices = (VULKAN, CPU)
    assert offload_device(devices) is VULKAN
    assert device_budget_bytes(VULKAN) == 1536 * MIB
    plan = plan_for_device(VULKAN, TARGET, DRAFT)
    assert plan is not None
    # 1,536 MiB less 5 % is 1,459.2 MiB; less the 300 MiB runtime, the 560 MiB draft goes whole,
    # and 599.2 MiB holds the target's 200 MiB buffers and 3 slots of 100 MiB, not a fourth.
    assert (plan.target_layers, plan.draft_layers) == (3, 25)
    assert plan.budget_bytes == int(1536 * MIB * 0.95)


def test_what_this_process_holds_on_the_gpu_counts_back() -> None:
    assert device_budget_bytes(VULKAN, held_bytes=2 * GIB) == 1536 * MIB + 2 * GIB
    plan = plan_for_device(VULKAN, TARGET, DRAFT, held_bytes=2 * GIB)
    assert plan is not None
    # 3,584 MiB less 5 % is 3,404.8; less 300 and 560 leaves 2,544.8: 200 + 23 x 100 fits, a 24th does not.
    assert (plan.target_layers, plan.draft_layers) == (23, 25)


def test_apple_unified_memory_is_the_metal_figure_once() -> None:
    assert offload_device((METAL, CPU)) is METAL
    assert device_budget_bytes(METAL) == 16 * GIB
    plan = plan_for_device(METAL, TARGET, DRAFT)
    assert plan is not None
    assert (plan.target_layers, plan.draft_layers) == (29, 25)
    assert plan.budget_bytes == int(16 * GIB * 0.95)


def test_no_gpu_plans_nothing() -> None:
    devices = (CPU, BLAS)
    assert offload_device(devices) is None
    assert offload_device(()) is None
    assert device_budget_bytes(None) is None
    assert device_budget_bytes(CPU) is None  # the CPU device is RAM, never a GPU budget
    assert plan_for_device(None, TARGET, DRAFT) is None
    assert plan_for_device(CPU, TARGET, DRAFT) is None


def test_integrated_gpus_only_when_no_discrete_one() -> None:
    assert offload_device((INTEL_IGPU, CPU)) is INTEL_IGPU
    assert offload_device((INTEL_IGPU, VULKAN, CPU)) is VULKAN


def test_records_round_trip_and_a_bad_one_reads_as_none() -> None:
    assert BackendDevice.from_json(VULKAN.to_json()) == VULKAN
    assert VULKAN.to_json()["kind"] == "gpu"
    assert VULKAN.label == "Vulkan0: AMD Radeon RX 7600"
    assert BackendDevice(name="CPU", description="", kind=DeviceKind.CPU, free_bytes=0, total_bytes=0).label == "CPU"
    assert BackendDevice.from_json({"name": "X", "kind": "quantum", "free_bytes": 1, "total_bytes": 1}) is None
    assert BackendDevice.from_json({"name": "X", "kind": "gpu", "free_bytes": "lots", "total_bytes": 1}) is None
    assert BackendDevice.from_json({"kind": "gpu"}) is None


def test_a_model_is_placed_on_the_gpu_only_with_layers_there() -> None:
    # 29 slots: 28 blocks and the output layer; -1 is llama.cpp's "every layer", more than there are is every layer.
    assert place_model(-1, 29, VULKAN, CPU).to_json() == {
        "device": "Vulkan0",
        "description": "AMD Radeon RX 7600",
        "gpu_layers": 29,
    }
    assert place_model(99, 29, METAL, CPU).gpu_layers == 29
    assert place_model(12, 29, METAL, CPU).gpu_layers == 12
    on_cpu = {"device": "CPU", "description": "AMD Ryzen 7 7700", "gpu_layers": 0}
    assert place_model(0, 29, VULKAN, CPU).to_json() == on_cpu
    assert place_model(99, 29, None, CPU).to_json() == on_cpu  # a CPU build ignores the count
    assert place_model(99, 29, None, None).description == ""


def test_a_budget_cap_leaves_the_gpu_without_room_and_the_cpu_as_read() -> None:
    capped = cap_free_memory((VULKAN, CPU, INTEL_IGPU), 16 * MIB)
    assert [d.free_bytes for d in capped] == [16 * MIB, CPU.free_bytes, 16 * MIB]
    assert [d.total_bytes for d in capped] == [VULKAN.total_bytes, CPU.total_bytes, INTEL_IGPU.total_bytes]
    assert cap_free_memory((VULKAN,), 4 * GIB) == (VULKAN,)  # a cap above the free memory changes nothing
    assert cap_free_memory((VULKAN, CPU), None) == (VULKAN, CPU)
    plan = plan_for_device(offload_device(capped), TARGET, DRAFT)
    assert plan is not None and (plan.target_layers, plan.draft_layers) == (0, 0)
    assert plan.describe() == "auto: too little free GPU memory for any layer, so every layer stays on the CPU"
