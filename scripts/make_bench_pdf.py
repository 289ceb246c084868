"""Write the benchmark's long PDF, resources/bench_documents/harbour_handbook.pdf, from text made here.

The "documents" category of the benchmark asks questions whose answer is on
one page of a long PDF. The handbook is fiction written for it (a harbour's
maintenance handbook, one topic per page, with a few facts to look up), set
as a plain PDF 1.4 file: Helvetica text on US-letter pages, one content
stream per page, no compression, so any PDF text extractor reads it back
page by page. The output is deterministic (no dates, no random ids), so the
committed file only changes when this script does.

    python scripts/make_bench_pdf.py [--out resources/bench_documents/harbour_handbook.pdf]
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "resources" / "bench_documents" / "harbour_handbook.pdf"

_TOPICS = [
    ("Pier 1 bollards", "bollards", "inspected for cracks", "every 30 days", "the dock foreman"),
    ("Pier 2 fenders", "rubber fenders", "checked for tears", "every 21 days", "the fender crew"),
    ("Harbour lights", "navigation lights", "cleaned and tested", "every 14 days", "the lamp keeper"),
    ("Crane number 3", "crane cables", "greased and measured", "every 10 days", "the crane engineer"),
    ("Fuel jetty", "fuel hoses", "pressure tested", "every 7 days", "the fuel officer"),
    ("Slipway winch", "winch brakes", "adjusted", "every 60 days", "the slipway mechanic"),
    ("Breakwater", "breakwater stones", "surveyed from a boat", "every 90 days", "the harbour surveyor"),
    ("Tide gauge", "tide gauge on Pier 4", "recalibrated", "every 45 days", "the hydrographer"),
    ("Fire pumps", "fire pumps", "run for twenty minutes", "every 7 days", "the duty watch"),
    ("Mooring chains", "mooring chains", "lifted and measured for wear", "every 180 days", "the diving team"),
    ("Storm shutters", "storm shutters of the harbour office", "closed and opened", "every 30 days", "the caretaker"),
    ("Radio mast", "radio mast guy wires", "tensioned", "every 120 days", "the radio officer"),
    ("Ice house", "ice house compressors", "serviced", "every 50 days", "the refrigeration fitter"),
    ("Gangways", "passenger gangways", "load tested", "every 28 days", "the ferry supervisor"),
    ("Dredging", "channel depth", "sounded along the leading line", "every 40 days", "the pilot boat crew"),
    ("Waste barge", "waste barge pumps", "flushed", "every 5 days", "the barge master"),
    (
        "Lifebuoys",
        "lifebuoys and throwing lines",
        "counted and replaced where worn",
        "every 14 days",
        "the safety officer",
    ),
    ("Rail track", "quay rail track", "checked for gauge and loose bolts", "every 35 days", "the rail fitter"),
    ("Warehouse roofs", "warehouse roof gutters", "cleared", "every 75 days", "the buildings team"),
    ("Pilot ladders", "pilot ladders", "inspected rung by rung", "every 20 days", "the pilot station"),
    ("Diesel generators", "standby diesel generators", "started under load", "every 15 days", "the electrician"),
    ("Oil booms", "oil spill booms", "unrolled and inspected", "every 100 days", "the environment officer"),
    ("Signal flags", "signal flags", "aired and repaired", "every 60 days", "the signal clerk"),
    ("Weighbridge", "weighbridge", "checked against test weights", "every 25 days", "the gate office"),
]


def page_text(number: int, topic: tuple[str, str, str, str, str]) -> str:
    """One page of the handbook: a heading and four paragraphs about one thing the harbour maintains."""
    title, thing, action, interval, who = topic
    paragraphs = [
        f"Section {number}. {title}",
        f"The {thing} are {action} {interval}. The work is done by {who}, who signs the maintenance log "
        f"kept in the harbour office and notes anything found that needs a repair before the next round.",
        f"Before the work starts, {who} tells the harbour master and raises the yellow flag at the end of "
        f"the pier, so that no vessel comes alongside while the {thing} are out of service. Work stops if "
        f"the wind rises above force six, and it is finished on the next calm day instead.",
        f"A fault that cannot wait is reported on channel 12 at once. Spare parts for the {thing} are kept "
        f"in store room {number + 3}, and each use of a spare part is written in the stores book with the "
        f"date, the part number and the name of the person who took it.",
        f"Once a year the harbour engineer reviews the log for the {thing} and decides whether the interval "
        f"of {interval.removeprefix('every ')} still suits the traffic the harbour sees. Any change is "
        f"announced in the weekly notice to mariners and copied into this handbook.",
    ]
    return "\n\n".join(paragraphs)


def handbook_pages() -> list[str]:
    """Every page's text, the cover first."""
    cover = (
        "Harbour Works Maintenance Handbook\n\nThis handbook lists the routine maintenance of the harbour, "
        "one topic per page. It is fiction written for Tandem's benchmark."
    )
    return [cover, *(page_text(i + 1, topic) for i, topic in enumerate(_TOPICS))]


def _escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _content_stream(text: str) -> bytes:
    lines: list[str] = []
    for paragraph in text.split("\n\n"):
        lines.extend(textwrap.wrap(paragraph, 95) or [""])
        lines.append("")
    ops = ["BT", "/F1 10 Tf", "13 TL", "50 750 Td"]
    ops.extend(f"({_escape(line)}) Tj T*" for line in lines)
    ops.append("ET")
    return "\n".join(ops).encode("latin-1")


def build_pdf(pages: list[str]) -> bytes:
    """A PDF 1.4 file with one page per text, set in Helvetica."""
    objects: list[bytes] = []
    n = len(pages)
    page_ids = [4 + 2 * i for i in range(n)]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{pid} 0 R" for pid in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    for i, text in enumerate(pages):
        stream = _content_stream(text)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {page_ids[i] + 1} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def main() -> None:
    """Write the PDF."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(build_pdf(handbook_pages()))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
