"""A small store-room inventory for the harbour: parts, their counts, and what to reorder."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Part:
    """One kind of spare part kept in a store room."""

    number: str
    name: str
    count: int
    minimum: int

    def needs_reorder(self) -> bool:
        """Whether the count has fallen to the minimum or below."""
        return self.count <= self.minimum


@dataclass
class StoreRoom:
    """A room full of parts, looked up by part number."""

    name: str
    parts: dict[str, Part] = field(default_factory=dict)

    def add_part(self, part: Part) -> None:
        """Keep a new kind of part, or add to the count of one already kept."""
        if part.number in self.parts:
            self.parts[part.number].count += part.count
        else:
            self.parts[part.number] = part

    def take_part(self, number: str, how_many: int = 1) -> Part:
        """Take parts out of the room; raises ValueError when there are not enough."""
        part = self.parts[number]
        if part.count < how_many:
            raise ValueError(f"only {part.count} of {part.name} left in {self.name}")
        part.count -= how_many
        return part

    def reorder_list(self) -> list[Part]:
        """The parts to order again, lowest count first."""
        low = [part for part in self.parts.values() if part.needs_reorder()]
        return sorted(low, key=lambda part: part.count)


def total_count(rooms: list[StoreRoom]) -> int:
    """How many parts all the rooms hold together."""
    return sum(part.count for room in rooms for part in room.parts.values())


def find_part(rooms: list[StoreRoom], number: str) -> tuple[StoreRoom, Part] | None:
    """The first room that keeps a part with this number, and the part."""
    for room in rooms:
        if number in room.parts:
            return room, room.parts[number]
    return None
