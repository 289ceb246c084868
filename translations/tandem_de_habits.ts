<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
    <context>
        <name>ReplyEditDialog</name>
        <message>
            <source>Edit reply</source>
            <translation>Antwort bearbeiten</translation>
        </message>
        <message>
            <source>Saving keeps the model's reply and adds yours beside it (‹ › switch between them). Later replies read your text as the assistant's.</source>
            <translation>Beim Speichern bleibt die Antwort des Modells erhalten und Ihre kommt daneben (‹ › wechselt zwischen beiden). Spätere Antworten lesen Ihren Text als den des Assistenten.</translation>
        </message>
    </context>
    <context>
        <name>TreeActions</name>
        <message>
            <source>your edit of the reply is saved beside it; ‹ › shows the model's own text</source>
            <translation>Ihre Bearbeitung der Antwort ist daneben gespeichert; ‹ › zeigt den Text des Modells</translation>
        </message>
    </context>
    <context>
        <name>ReplyWords</name>
        <message>
            <source>edited by you: this text is yours, not the model's; later replies read it as its turn</source>
            <translation>von Ihnen bearbeitet: dieser Text ist Ihrer, nicht der des Modells; spätere Antworten lesen ihn als seinen Beitrag</translation>
        </message>
    </context>
</TS>
