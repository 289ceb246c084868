"""Telling a screen reader what happened without moving the focus: Qt's accessible announcements.

A reply streams into a read-only view while the focus stays in the prompt
box, so a screen reader user would otherwise not learn that the reply has
ended, or failed, until they went looking. Qt (6.8 and later) forwards an
announcement event to the platform's accessibility bus (AT-SPI, UI
Automation, NSAccessibility); where no assistive technology listens, it
costs nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent


def announce(source: QObject, text: str, urgent: bool = False) -> QAccessibleAnnouncementEvent:
    """Announce ``text`` on behalf of ``source``; ``urgent`` interrupts what is being read (a failure)."""
    event = QAccessibleAnnouncementEvent(source, text)
    politeness = QAccessible.AnnouncementPoliteness
    event.setPoliteness(politeness.Assertive if urgent else politeness.Polite)
    QAccessible.updateAccessibility(event)
    return event
