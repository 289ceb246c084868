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
        <message>
            <source>the reply ended after {n} tokens: {why}</source>
            <translation>die Antwort endete nach {n} Tokens: {why}</translation>
        </message>
        <message>
            <source>the reply is finished: {n} tokens</source>
            <translation>die Antwort ist fertig: {n} Tokens</translation>
        </message>
    </context>
    <context>
        <name>WindowMenus</name>
        <message>
            <source>Larger text</source>
            <translation>Größerer Text</translation>
        </message>
        <message>
            <source>Smaller text</source>
            <translation>Kleinerer Text</translation>
        </message>
        <message>
            <source>Normal text size</source>
            <translation>Normale Textgröße</translation>
        </message>
        <message>
            <source>text size {percent} %</source>
            <translation>Textgröße {percent} %</translation>
        </message>
    </context>
    <context>
        <name>ChatController</name>
        <message>
            <source>the reply failed: {error}</source>
            <translation>die Antwort ist fehlgeschlagen: {error}</translation>
        </message>
    </context>
    <context>
        <name>ServerSwitch</name>
        <message>
            <source>Keep serving when the window closes</source>
            <translation>Nach dem Schließen weiter bereitstellen</translation>
        </message>
        <message>
            <source>closing the window leaves the server running (a tray icon, or the task bar, brings it back); File → Quit stops it</source>
            <translation>Schließen des Fensters lässt den Server laufen (ein Symbol im Infobereich oder die Taskleiste holt es zurück); Datei → Beenden stoppt ihn</translation>
        </message>
    </context>
    <context>
        <name>BackgroundServing</name>
        <message>
            <source>Tandem keeps serving on {url} with the window closed</source>
            <translation>Tandem stellt bei geschlossenem Fenster weiter auf {url} bereit</translation>
        </message>
        <message>
            <source>Show Tandem</source>
            <translation>Tandem anzeigen</translation>
        </message>
        <message>
            <source>Stop serving and quit</source>
            <translation>Server stoppen und beenden</translation>
        </message>
    </context>
    <context>
        <name>McpBox</name>
        <message>
            <source>Tool-call format</source>
            <translation>Format der Tool-Aufrufe</translation>
        </message>
        <message>
            <source>How the model writes tool calls; applies when a model is next loaded</source>
            <translation>Wie das Modell Tool-Aufrufe schreibt; gilt ab dem nächsten Laden eines Modells</translation>
        </message>
        <message>
            <source>From the model's template</source>
            <translation>Aus der Vorlage des Modells</translation>
        </message>
    </context>
</TS>
