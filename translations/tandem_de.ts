<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de" sourcelanguage="en">
<context>
    <name>AttachmentChip</name>
    <message>
        <source>{name}: show the text that will be sent</source>
        <translation>{name}: den Text zeigen, der gesendet wird</translation>
    </message>
    <message>
        <source>whole</source>
        <translation>ganz</translation>
    </message>
    <message>
        <source>send the whole document, not only the passages retrieved for each question</source>
        <translation>das ganze Dokument senden, nicht nur die zu jeder Frage gefundenen Passagen</translation>
    </message>
    <message>
        <source>remove this attachment</source>
        <translation>diesen Anhang entfernen</translation>
    </message>
    <message>
        <source>attachment {label}</source>
        <translation>Anhang {label}</translation>
    </message>
    <message>
        <source>Remove {name}</source>
        <translation>{name} entfernen</translation>
    </message>
    <message>
        <source>Send all of {name}</source>
        <translation>{name} vollständig senden</translation>
    </message>
    <message>
        <source>{name} does not fit the context whole: passages will be used instead</source>
        <translation>{name} passt nicht ganz in den Kontext: Stattdessen werden Passagen verwendet</translation>
    </message>
    <message>
        <source>{name} does not fit: passages will be retrieved per question</source>
        <translation>{name} passt nicht: Passagen werden je Frage gesucht</translation>
    </message>
</context>
<context>
    <name>AttachmentDialog</name>
    <message>
        <source>{name} — attached text</source>
        <translation>{name} — angehängter Text</translation>
    </message>
    <message>
        <source>{kind} · {size} · {count} characters</source>
        <translation>{kind} · {size} · {count} Zeichen</translation>
    </message>
    <message>
        <source>Attachment notes</source>
        <translation>Hinweise zum Anhang</translation>
    </message>
    <message>
        <source>Sections</source>
        <translation>Abschnitte</translation>
    </message>
    <message>
        <source>Attached text</source>
        <translation>Angehängter Text</translation>
    </message>
    <message>
        <source>Find in the text (Enter: next, Shift+Enter: previous)</source>
        <translation>Im Text suchen (Enter: weiter, Umschalt+Enter: zurück)</translation>
    </message>
    <message>
        <source>Find in attachment</source>
        <translation>Im Anhang suchen</translation>
    </message>
    <message>
        <source>wrapped round</source>
        <translation>von vorn begonnen</translation>
    </message>
    <message>
        <source>not found</source>
        <translation>nicht gefunden</translation>
    </message>
</context>
<context>
    <name>AttachmentFlow</name>
    <message>
        <source>Attach files</source>
        <translation>Dateien anhängen</translation>
    </message>
    <message>
        <source>Documents, code and images (*);;Text (*.txt *.md);;PDF (*.pdf);;Images (*.png *.jpg *.jpeg)</source>
        <translation>Dokumente, Code und Bilder (*);;Text (*.txt *.md);;PDF (*.pdf);;Bilder (*.png *.jpg *.jpeg)</translation>
    </message>
    <message>
        <source>Attach a folder</source>
        <translation>Einen Ordner anhängen</translation>
    </message>
    <message>
        <source>reading {names}…</source>
        <translation>lese {names}…</translation>
    </message>
    <message>
        <source>reading…</source>
        <translation>lese…</translation>
    </message>
    <message>
        <source>could not read the file: {error}</source>
        <translation>die Datei ließ sich nicht lesen: {error}</translation>
    </message>
    <message>
        <source>could not attach the file: {error}</source>
        <translation>die Datei ließ sich nicht anhängen: {error}</translation>
    </message>
    <message>
        <source>{name}: {tokens} tokens, does not fit, and the {left} tokens left may hold no passage of it</source>
        <translation>{name}: {tokens} Tokens, passt nicht, und die restlichen {left} Tokens fassen womöglich keine Passage davon</translation>
    </message>
    <message>
        <source>⚠ {name}: {tokens} tokens, does not fit whole in the {n_ctx}-token context: the passages that best answer will be used instead</source>
        <translation>⚠ {name}: {tokens} Tokens, passt nicht ganz in den Kontext von {n_ctx} Tokens: Stattdessen werden die Passagen verwendet, die am besten antworten</translation>
    </message>
    <message numerus="yes">
        <source>{name}: {tokens} tokens, does not fit: %n passage(s) will be retrieved per question</source>
        <translation>
            <numerusform>{name}: {tokens} Tokens, passt nicht: %n Passage wird je Frage gesucht</numerusform>
            <numerusform>{name}: {tokens} Tokens, passt nicht: %n Passagen werden je Frage gesucht</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>AttachmentLines</name>
    <message>
        <source>attached: </source>
        <translation>angehängt: </translation>
    </message>
    <message>
        <source>from </source>
        <translation>aus </translation>
    </message>
</context>
<context>
    <name>AttachmentRow</name>
    <message>
        <source>Attachments</source>
        <translation>Anhänge</translation>
    </message>
    <message>
        <source>Attachment status</source>
        <translation>Status der Anhänge</translation>
    </message>
</context>
<context>
    <name>Attachments</name>
    <message>
        <source>{count} tokens</source>
        <translation>{count} Tokens</translation>
    </message>
</context>
<context>
    <name>ChatController</name>
    <message>
        <source>loading {pair}…</source>
        <translation>lade {pair}…</translation>
    </message>
    <message>
        <source>({n_ctx} tokens of context, {seconds} s)</source>
        <translation>({n_ctx} Tokens Kontext, {seconds} s)</translation>
    </message>
    <message>
        <source>ready: {pair}</source>
        <translation>bereit: {pair}</translation>
    </message>
    <message>
        <source>No model pair is loaded yet: pick one in the Model tab and press Load.</source>
        <translation>Noch ist kein Modellpaar geladen: Wählen Sie eines im Reiter Modell und drücken Sie Laden.</translation>
    </message>
    <message>
        <source>This window shows your chats read-only, so nothing new can be saved: close the other Tandem window (or repair the database) and restart to chat.</source>
        <translation>Dieses Fenster zeigt Ihre Chats schreibgeschützt, daher kann nichts Neues gespeichert werden: Schließen Sie das andere Tandem-Fenster (oder reparieren Sie die Datenbank) und starten Sie neu, um zu chatten.</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>Neuer Chat</translation>
    </message>
    <message>
        <source>thinking…</source>
        <translation>denke nach…</translation>
    </message>
    <message>
        <source>stopping…</source>
        <translation>halte an…</translation>
    </message>
    <message numerus="yes">
        <source>%n older message(s) did not fit in the {n_ctx}-token context and were left out of this reply</source>
        <translation>
            <numerusform>%n ältere Nachricht passte nicht in den Kontext von {n_ctx} Tokens und wurde für diese Antwort weggelassen</numerusform>
            <numerusform>%n ältere Nachrichten passten nicht in den Kontext von {n_ctx} Tokens und wurden für diese Antwort weggelassen</numerusform>
        </translation>
    </message>
    <message>
        <source>generating ({prompt} prompt tokens, {reused} already in the cache)…</source>
        <translation>erzeuge ({prompt} Prompt-Token, {reused} schon im Cache)…</translation>
    </message>
    <message>
        <source>not saved: {error}</source>
        <translation>nicht gespeichert: {error}</translation>
    </message>
    <message>
        <source>the reply that could not be saved is now saved</source>
        <translation>die Antwort, die nicht gespeichert werden konnte, ist jetzt gespeichert</translation>
    </message>
    <message>
        <source>stopped: {error}</source>
        <translation>angehalten: {error}</translation>
    </message>
    <message>
        <source>{n} tokens at {rate} tok/s</source>
        <translation>{n} Tokens mit {rate} Tok./s</translation>
    </message>
    <message>
        <source>acceptance {share}</source>
        <translation>Annahme {share}</translation>
    </message>
    <message>
        <source>failed: {error}</source>
        <translation>fehlgeschlagen: {error}</translation>
    </message>
    <message>
        <source>error: {error}</source>
        <translation>Fehler: {error}</translation>
    </message>
</context>
<context>
    <name>ChatExtras</name>
    <message>
        <source>this chat&apos;s next replies draft {n} tokens every step, to show speculation</source>
        <translation>die nächsten Antworten dieses Chats entwerfen in jedem Schritt {n} Tokens, um die Spekulation zu zeigen</translation>
    </message>
    <message>
        <source>this chat&apos;s replies let the adaptive controller choose the draft length again</source>
        <translation>die Antworten dieses Chats lassen die Draft-Länge wieder vom adaptiven Regler wählen</translation>
    </message>
    <message>
        <source>back to adaptive</source>
        <translation>zurück zu adaptiv</translation>
    </message>
    <message>
        <source>next reply drafts anyway (undo)</source>
        <translation>nächste Antwort entwirft trotzdem (rückgängig)</translation>
    </message>
    <message>
        <source>show speculation anyway</source>
        <translation>Spekulation trotzdem zeigen</translation>
    </message>
</context>
<context>
    <name>ChatPanel</name>
    <message>
        <source>Send</source>
        <translation>Senden</translation>
    </message>
    <message>
        <source>Enter (Shift+Enter adds a line)</source>
        <translation>Enter (Umschalt+Enter fügt eine Zeile ein)</translation>
    </message>
    <message>
        <source>Send message</source>
        <translation>Nachricht senden</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Stopp</translation>
    </message>
    <message>
        <source>Esc</source>
        <translation>Esc</translation>
    </message>
    <message>
        <source>Stop reply</source>
        <translation>Antwort anhalten</translation>
    </message>
    <message>
        <source>Ctrl+Enter (Enter adds a line)</source>
        <translation>Strg+Enter (Enter fügt eine Zeile ein)</translation>
    </message>
    <message>
        <source>Resend</source>
        <translation>Erneut senden</translation>
    </message>
</context>
<context>
    <name>ChatSearch</name>
    <message>
        <source>Search all chats  (Ctrl+K)</source>
        <translation>Alle Chats durchsuchen  (Strg+K)</translation>
    </message>
    <message>
        <source>Search all chats</source>
        <translation>Alle Chats durchsuchen</translation>
    </message>
    <message>
        <source>Search results</source>
        <translation>Suchergebnisse</translation>
    </message>
    <message>
        <source>search failed: {error}</source>
        <translation>Suche fehlgeschlagen: {error}</translation>
    </message>
    <message>
        <source>nothing found</source>
        <translation>nichts gefunden</translation>
    </message>
    <message numerus="yes">
        <source>%n message(s)</source>
        <translation>
            <numerusform>%n Nachricht</numerusform>
            <numerusform>%n Nachrichten</numerusform>
        </translation>
    </message>
    <message>
        <source>(the first ones)</source>
        <translation>(die ersten)</translation>
    </message>
    <message>
        <source>You</source>
        <translation>Sie</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>Assistent</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>copy code</source>
        <translation>Code kopieren</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>Unterhaltung</translation>
    </message>
    <message>
        <source>Alt+Right and Alt+Left move from token to token and show each token&apos;s card; Alt+Return shows the card of the token at the caret</source>
        <translation>Alt+Rechts und Alt+Links springen von Token zu Token und zeigen die Karte jedes Tokens; Alt+Eingabe zeigt die Karte des Tokens an der Schreibmarke</translation>
    </message>
    <message>
        <source>Copy code block</source>
        <translation>Codeblock kopieren</translation>
    </message>
    <message>
        <source>Copy message as Markdown</source>
        <translation>Nachricht als Markdown kopieren</translation>
    </message>
    <message>
        <source>Export steps as HTML…</source>
        <translation>Schritte als HTML exportieren…</translation>
    </message>
</context>
<context>
    <name>ContextGauge</name>
    <message>
        <source>Context used</source>
        <translation>Belegter Kontext</translation>
    </message>
    <message>
        <source>context: no model loaded</source>
        <translation>Kontext: kein Modell geladen</translation>
    </message>
    <message>
        <source>Context tokens</source>
        <translation>Token im Kontext</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>Kontext</translation>
    </message>
    <message>
        <source>Context notice</source>
        <translation>Hinweis zum Kontext</translation>
    </message>
    <message>
        <source>Attachments notice</source>
        <translation>Hinweis zu den Anhängen</translation>
    </message>
    <message>
        <source>{used} / {total} tokens</source>
        <translation>{used} / {total} Tokens</translation>
    </message>
    <message>
        <source>replying</source>
        <translation>antwortet</translation>
    </message>
    <message>
        <source>, from “{text}”</source>
        <translation>, ab „{text}“</translation>
    </message>
    <message numerus="yes">
        <source>⚠ the %n oldest message(s){start} were left out to fit the {total}-token context</source>
        <translation>
            <numerusform>⚠ die älteste Nachricht{start} wurde weggelassen, damit der Kontext von {total} Tokens reicht</numerusform>
            <numerusform>⚠ die %n ältesten Nachrichten{start} wurden weggelassen, damit der Kontext von {total} Tokens reicht</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>⚠ the %n oldest message(s){start} would be left out to fit the {total}-token context</source>
        <translation>
            <numerusform>⚠ die älteste Nachricht{start} würde weggelassen, damit der Kontext von {total} Tokens reicht</numerusform>
            <numerusform>⚠ die %n ältesten Nachrichten{start} würden weggelassen, damit der Kontext von {total} Tokens reicht</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ConversationList</name>
    <message>
        <source>Pinned</source>
        <translation>Angeheftet</translation>
    </message>
    <message>
        <source>Today</source>
        <translation>Heute</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>Gestern</translation>
    </message>
    <message>
        <source>Previous 7 days</source>
        <translation>Letzte 7 Tage</translation>
    </message>
    <message>
        <source>Previous 30 days</source>
        <translation>Letzte 30 Tage</translation>
    </message>
    <message>
        <source>Older</source>
        <translation>Älter</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>Neuer Chat</translation>
    </message>
    <message>
        <source>Chats</source>
        <translation>Chats</translation>
    </message>
    <message>
        <source>{title} ({count} messages)</source>
        <translation>{title} ({count} Nachrichten)</translation>
    </message>
    <message>
        <source>Unpin</source>
        <translation>Lösen</translation>
    </message>
    <message>
        <source>Pin</source>
        <translation>Anheften</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>Umbenennen…</translation>
    </message>
    <message>
        <source>Export as Markdown…</source>
        <translation>Als Markdown exportieren…</translation>
    </message>
    <message>
        <source>Export as JSON…</source>
        <translation>Als JSON exportieren…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
</context>
<context>
    <name>EditBar</name>
    <message>
        <source>Editing a message: sending makes a new branch from it; the old one is kept.</source>
        <translation>Sie bearbeiten eine Nachricht: Senden legt einen neuen Zweig an, der alte bleibt erhalten.</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Cancel editing</source>
        <translation>Bearbeiten abbrechen</translation>
    </message>
</context>
<context>
    <name>EngineWorker</name>
    <message>
        <source>a server is chosen: A/B, the sweep and pre-flight measure a local pair; load one in the Model tab</source>
        <translation>ein Server ist gewählt: A/B, Sweep und Vorabtest messen ein lokales Paar; laden Sie eines im Reiter Modell</translation>
    </message>
    <message>
        <source>target only</source>
        <translation>nur Zielmodell</translation>
    </message>
    <message>
        <source>{kind} drafter</source>
        <translation>Drafter {kind}</translation>
    </message>
    <message>
        <source>run {i} of {n}: {label}, temperature {t}</source>
        <translation>Lauf {i} von {n}: {label}, Temperatur {t}</translation>
    </message>
    <message>
        <source>no model pair is loaded yet: pick one and press Load</source>
        <translation>noch ist kein Modellpaar geladen: Wählen Sie eines und drücken Sie Laden</translation>
    </message>
</context>
<context>
    <name>ErrorBanner</name>
    <message>
        <source>dismiss</source>
        <translation>schließen</translation>
    </message>
    <message>
        <source>Dismiss message</source>
        <translation>Meldung schließen</translation>
    </message>
</context>
<context>
    <name>LanguageBox</name>
    <message>
        <source>System</source>
        <translation>System</translation>
    </message>
    <message>
        <source>applies when Tandem starts again; System follows the desktop&apos;s language</source>
        <translation>gilt ab dem nächsten Start von Tandem; System folgt der Sprache des Desktops</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Sprache</translation>
    </message>
</context>
<context>
    <name>Legend</name>
    <message>
        <source>{meaning} (with Underlines on: {underline})</source>
        <translation>{meaning} (mit Unterstreichen an: {underline})</translation>
    </message>
    <message>
        <source>legend: {origin}</source>
        <translation>Legende: {origin}</translation>
    </message>
    <message>
        <source>Origins</source>
        <translation>Herkunft</translation>
    </message>
    <message>
        <source>on: tokens tinted by origin; off: the plain reading view (Markdown kept)</source>
        <translation>an: Token nach Herkunft getönt; aus: die schlichte Leseansicht (Markdown bleibt)</translation>
    </message>
    <message>
        <source>Show token origins</source>
        <translation>Herkunft der Token zeigen</translation>
    </message>
    <message>
        <source>Underlines</source>
        <translation>Unterstreichen</translation>
    </message>
    <message>
        <source>mark each origin with its own underline style too: the cue that needs no colour</source>
        <translation>jede Herkunft auch mit eigener Unterstreichung kennzeichnen: der Hinweis, der ohne Farbe auskommt</translation>
    </message>
    <message>
        <source>Underline tokens by origin</source>
        <translation>Token nach Herkunft unterstreichen</translation>
    </message>
    <message>
        <source>Rejected drafts</source>
        <translation>Abgelehnte Drafts</translation>
    </message>
    <message>
        <source>show each rejected draft proposal inline, struck through</source>
        <translation>jeden abgelehnten Draft-Vorschlag durchgestrichen im Text zeigen</translation>
    </message>
    <message>
        <source>Show rejected drafts</source>
        <translation>Abgelehnte Drafts zeigen</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>measured here</source>
        <translation>hier gemessen</translation>
    </message>
    <message>
        <source>pre-flight</source>
        <translation>Vorabtest</translation>
    </message>
    <message>
        <source>&lt;b&gt;Memory&lt;/b&gt;</source>
        <translation>&lt;b&gt;Speicher&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;Local server&lt;/b&gt;</source>
        <translation>&lt;b&gt;Lokaler Server&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Stats</source>
        <translation>Statistik</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Discover</source>
        <translation>Entdecken</translation>
    </message>
    <message>
        <source>no pair loaded</source>
        <translation>kein Paar geladen</translation>
    </message>
    <message>
        <source>no models yet: install or add a pair to start</source>
        <translation>noch keine Modelle: Installieren Sie ein Paar oder fügen Sie eines hinzu, um zu beginnen</translation>
    </message>
    <message>
        <source>loading a pair…</source>
        <translation>lade ein Paar…</translation>
    </message>
    <message>
        <source>loading {pair}…</source>
        <translation>lade {pair}…</translation>
    </message>
    <message>
        <source>a server is chosen: the local server serves a local pair</source>
        <translation>ein Server ist gewählt: Der lokale Server bedient ein lokales Paar</translation>
    </message>
    <message>
        <source>switching to {server}…</source>
        <translation>wechsle zu {server}…</translation>
    </message>
    <message>
        <source>load a local pair first</source>
        <translation>laden Sie zuerst ein lokales Paar</translation>
    </message>
    <message>
        <source>loaded in {seconds} s</source>
        <translation>geladen in {seconds} s</translation>
    </message>
    <message>
        <source>chatting with {server}</source>
        <translation>im Chat mit {server}</translation>
    </message>
    <message>
        <source>a server is chosen (Server above): load a pair to use this computer again</source>
        <translation>ein Server ist gewählt (Server oben): Laden Sie ein Paar, um wieder diesen Computer zu nutzen</translation>
    </message>
    <message>
        <source>a server is chosen: the memory meter is for a local pair</source>
        <translation>ein Server ist gewählt: Die Speicheranzeige gilt einem lokalen Paar</translation>
    </message>
    <message>
        <source>the models run on the server, not on this computer</source>
        <translation>die Modelle laufen auf dem Server, nicht auf diesem Computer</translation>
    </message>
    <message>
        <source>{model} did not load: see the message above the chat</source>
        <translation>{model} wurde nicht geladen: siehe die Meldung über dem Chat</translation>
    </message>
    <message>
        <source>no estimate: {error}</source>
        <translation>keine Schätzung: {error}</translation>
    </message>
    <message>
        <source>context, threads and GPU layers apply when the pair is reloaded</source>
        <translation>Kontext, Threads und GPU-Schichten gelten, sobald das Paar neu geladen wird</translation>
    </message>
    <message>
        <source>another Tandem was started on this data folder: it shows the chats read-only</source>
        <translation>ein weiteres Tandem wurde mit diesem Datenordner gestartet: Es zeigt die Chats schreibgeschützt</translation>
    </message>
</context>
<context>
    <name>MessageLines</name>
    <message>
        <source>Generate</source>
        <translation>Erzeugen</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>Bearbeiten</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>Neu erzeugen</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>Info</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>Schritte</translation>
    </message>
    <message>
        <source>Fork into new chat</source>
        <translation>In neuen Chat abzweigen</translation>
    </message>
    <message>
        <source>You</source>
        <translation>Sie</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>Assistent</translation>
    </message>
    <message>
        <source>System</source>
        <translation>System</translation>
    </message>
    <message>
        <source>copy</source>
        <translation>kopieren</translation>
    </message>
</context>
<context>
    <name>PaperclipButton</name>
    <message>
        <source>Attach</source>
        <translation>Anhängen</translation>
    </message>
    <message>
        <source>attach files (text, code, PDF, HTML, PNG or JPEG images) or a folder of code; you can also drop or paste them</source>
        <translation>Dateien (Text, Code, PDF, HTML, PNG- oder JPEG-Bilder) oder einen Code-Ordner anhängen; Sie können sie auch hineinziehen oder einfügen</translation>
    </message>
    <message>
        <source>Attach files</source>
        <translation>Dateien anhängen</translation>
    </message>
    <message>
        <source>Files…</source>
        <translation>Dateien…</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>Ordner…</translation>
    </message>
</context>
<context>
    <name>PromptBox</name>
    <message>
        <source>Message</source>
        <translation>Nachricht</translation>
    </message>
    <message>
        <source>Ctrl+Enter to send</source>
        <translation>Strg+Enter sendet</translation>
    </message>
    <message>
        <source>Enter to send</source>
        <translation>Enter sendet</translation>
    </message>
    <message>
        <source>Enter for a new line</source>
        <translation>Enter für eine neue Zeile</translation>
    </message>
    <message>
        <source>Shift+Enter for a new line</source>
        <translation>Umschalt+Enter für eine neue Zeile</translation>
    </message>
    <message>
        <source>Ask something…   ({keys})</source>
        <translation>Fragen Sie etwas…   ({keys})</translation>
    </message>
    <message>
        <source>Esc stops the reply; Up in an empty box edits the last message</source>
        <translation>Esc hält die Antwort an; Pfeil nach oben in einem leeren Feld bearbeitet die letzte Nachricht</translation>
    </message>
</context>
<context>
    <name>ReplyInfo</name>
    <message>
        <source>Output format</source>
        <translation>Ausgabeformat</translation>
    </message>
    <message>
        <source>prompt lookup (n-gram)</source>
        <translation>Prompt-Lookup (N-Gramm)</translation>
    </message>
    <message>
        <source>none (target only)</source>
        <translation>keiner (nur Zielmodell)</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>Zielmodell</translation>
    </message>
    <message>
        <source>Drafter</source>
        <translation>Drafter</translation>
    </message>
    <message>
        <source>draft model {name}</source>
        <translation>Draft-Modell {name}</translation>
    </message>
    <message>
        <source>Draft length</source>
        <translation>Draft-Länge</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Temperatur</translation>
    </message>
    <message>
        <source>greedy</source>
        <translation>greedy</translation>
    </message>
    <message>
        <source>Sampling</source>
        <translation>Sampling</translation>
    </message>
    <message>
        <source>top-k {k}, top-p {p}, min-p {m}, repeat penalty {r}</source>
        <translation>top-k {k}, top-p {p}, min-p {m}, Wiederholungsstrafe {r}</translation>
    </message>
    <message>
        <source>Max tokens</source>
        <translation>Höchstzahl Token</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Seed</translation>
    </message>
    <message>
        <source>fresh random (not recorded)</source>
        <translation>neu ausgelost (nicht gespeichert)</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>Systemprompt</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>(keiner)</translation>
    </message>
    <message>
        <source>{prompt} tokens: {reused} reused from the cache, {read} read</source>
        <translation>{prompt} Tokens: {reused} aus dem Cache, {read} gelesen</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>Prompt</translation>
    </message>
    <message>
        <source>{rate} prompt tokens/s</source>
        <translation>{rate} Prompt-Token/s</translation>
    </message>
    <message>
        <source>Prefill</source>
        <translation>Prefill</translation>
    </message>
    <message>
        <source>First token</source>
        <translation>Erstes Token</translation>
    </message>
    <message>
        <source>{n}× (the numbers are the last part&apos;s)</source>
        <translation>{n}× (die Zahlen gelten für den letzten Teil)</translation>
    </message>
    <message>
        <source>Continued</source>
        <translation>Fortgesetzt</translation>
    </message>
    <message>
        <source>What produced this reply</source>
        <translation>Was diese Antwort erzeugt hat</translation>
    </message>
</context>
<context>
    <name>ReplyWords</name>
    <message>
        <source>stopped at the token limit</source>
        <translation>am Token-Limit angehalten</translation>
    </message>
    <message>
        <source>the context is full: start a new chat or raise the context size</source>
        <translation>der Kontext ist voll: Beginnen Sie einen neuen Chat oder vergrößern Sie den Kontext</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>angehalten</translation>
    </message>
    <message>
        <source>acceptance {share}</source>
        <translation>Annahme {share}</translation>
    </message>
    <message>
        <source>mean accepted {length}</source>
        <translation>im Mittel angenommen {length}</translation>
    </message>
    <message>
        <source>target only</source>
        <translation>nur Zielmodell</translation>
    </message>
    <message>
        <source>{drafter}: no draft statistics reported</source>
        <translation>{drafter}: keine Draft-Statistik gemeldet</translation>
    </message>
    <message>
        <source>speculation demo: {n} drafted tokens every step</source>
        <translation>Spekulations-Demo: {n} entworfene Token in jedem Schritt</translation>
    </message>
    <message>
        <source>lookup off for now: recent proposals were rejected or nothing repeated</source>
        <translation>Nachschlagen vorerst aus: Die letzten Vorschläge wurden abgelehnt oder nichts wiederholte sich</translation>
    </message>
    <message>
        <source>draft off: it would slow this machine down, and no trusted repeat to look up</source>
        <translation>Draft aus: Er würde diesen Rechner ausbremsen, und keine verlässliche Wiederholung zum Nachschlagen</translation>
    </message>
    <message>
        <source>draft off: it would slow this machine down</source>
        <translation>Draft aus: Er würde diesen Rechner ausbremsen</translation>
    </message>
    <message>
        <source>measured in {drafting} of {steps} steps, acceptance {share}</source>
        <translation>gemessen in {drafting} von {steps} Schritten, Annahme {share}</translation>
    </message>
    <message>
        <source>no drafts in this reply</source>
        <translation>keine Drafts in dieser Antwort</translation>
    </message>
    <message>
        <source>(draft length 0 in Settings)</source>
        <translation>(Draft-Länge 0 in den Einstellungen)</translation>
    </message>
    <message>
        <source>drafter: {drafter}</source>
        <translation>Drafter: {drafter}</translation>
    </message>
    <message>
        <source>{n} tokens</source>
        <translation>{n} Tokens</translation>
    </message>
    <message>
        <source>{rate} tok/s</source>
        <translation>{rate} Tok./s</translation>
    </message>
    <message>
        <source>first token —</source>
        <translation>erstes Token —</translation>
    </message>
    <message>
        <source>older messages left out of this reply to fit the context: {n}</source>
        <translation>ältere Nachrichten, die für diese Antwort weggelassen wurden, damit der Kontext reicht: {n}</translation>
    </message>
    <message>
        <source>interrupted: the app closed while this reply was being written</source>
        <translation>unterbrochen: Die App wurde geschlossen, während diese Antwort entstand</translation>
    </message>
    <message>
        <source>stopped: {error}</source>
        <translation>angehalten: {error}</translation>
    </message>
    <message>
        <source>the chat could not be saved</source>
        <translation>der Chat konnte nicht gespeichert werden</translation>
    </message>
    <message>
        <source>failed: {error}</source>
        <translation>fehlgeschlagen: {error}</translation>
    </message>
    <message>
        <source>unknown error</source>
        <translation>unbekannter Fehler</translation>
    </message>
    <message>
        <source>continued {n} times</source>
        <translation>{n}-mal fortgesetzt</translation>
    </message>
    <message>
        <source>continued</source>
        <translation>fortgesetzt</translation>
    </message>
</context>
<context>
    <name>SidebarActions</name>
    <message>
        <source>wait for the reply to finish (or press Esc) before switching chats</source>
        <translation>warten Sie, bis die Antwort fertig ist (oder drücken Sie Esc), bevor Sie den Chat wechseln</translation>
    </message>
    <message>
        <source>Rename chat</source>
        <translation>Chat umbenennen</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>Titel</translation>
    </message>
    <message>
        <source>this chat is being written to: stop the reply first</source>
        <translation>in diesen Chat wird gerade geschrieben: Halten Sie zuerst die Antwort an</translation>
    </message>
    <message>
        <source>that chat is gone</source>
        <translation>dieser Chat ist nicht mehr da</translation>
    </message>
    <message>
        <source>Deleted &apos;{title}&apos;</source>
        <translation>„{title}“ gelöscht</translation>
    </message>
    <message>
        <source>the chat is back</source>
        <translation>der Chat ist wieder da</translation>
    </message>
    <message>
        <source>wait for the reply to finish (or press Esc) before jumping</source>
        <translation>warten Sie, bis die Antwort fertig ist (oder drücken Sie Esc), bevor Sie springen</translation>
    </message>
    <message>
        <source>that message is gone</source>
        <translation>diese Nachricht ist nicht mehr da</translation>
    </message>
    <message>
        <source>that message is on another branch of the chat</source>
        <translation>diese Nachricht liegt auf einem anderen Zweig des Chats</translation>
    </message>
    <message>
        <source>nothing to export yet</source>
        <translation>noch nichts zu exportieren</translation>
    </message>
    <message>
        <source>Export chat</source>
        <translation>Chat exportieren</translation>
    </message>
    <message>
        <source>not exported: {error}</source>
        <translation>nicht exportiert: {error}</translation>
    </message>
    <message>
        <source>exported to {path}</source>
        <translation>exportiert nach {path}</translation>
    </message>
</context>
<context>
    <name>StoreGuard</name>
    <message>
        <source>Tandem is already open on this data folder ({folder}): that window was brought to the front.</source>
        <translation>Tandem ist bereits mit diesem Datenordner geöffnet ({folder}): Jenes Fenster wurde nach vorn geholt.</translation>
    </message>
    <message>
        <source>Tandem is already open on this data folder ({folder}).</source>
        <translation>Tandem ist bereits mit diesem Datenordner geöffnet ({folder}).</translation>
    </message>
    <message>
        <source>This window shows your chats read-only; nothing new is saved here.</source>
        <translation>Dieses Fenster zeigt Ihre Chats schreibgeschützt; hier wird nichts Neues gespeichert.</translation>
    </message>
    <message>
        <source>Close this window</source>
        <translation>Dieses Fenster schließen</translation>
    </message>
    <message>
        <source>Until you choose, chats in this window are not kept.</source>
        <translation>Bis Sie sich entscheiden, werden Chats in diesem Fenster nicht behalten.</translation>
    </message>
    <message>
        <source>Tandem has not changed it. You can recover what can still be read into a new file (the damaged one is kept beside it), move it aside and start with an empty history, or open it read-only to look.</source>
        <translation>Tandem hat sie nicht verändert. Sie können retten, was noch lesbar ist, in eine neue Datei (die beschädigte bleibt daneben liegen), sie beiseitelegen und mit leerem Verlauf beginnen oder sie schreibgeschützt öffnen, um nachzusehen.</translation>
    </message>
    <message>
        <source>Recover what can be read</source>
        <translation>Retten, was lesbar ist</translation>
    </message>
    <message>
        <source>Move it aside and start fresh</source>
        <translation>Beiseitelegen und neu beginnen</translation>
    </message>
    <message>
        <source>Open read-only</source>
        <translation>Schreibgeschützt öffnen</translation>
    </message>
    <message>
        <source>You can move it aside (nothing in it is deleted) and start with an empty history.</source>
        <translation>Sie können sie beiseitelegen (nichts darin wird gelöscht) und mit einem leeren Verlauf beginnen.</translation>
    </message>
    <message>
        <source>You can open your chats read-only, or make the file and its folder writable and restart.</source>
        <translation>Sie können Ihre Chats schreibgeschützt öffnen oder die Datei und ihren Ordner beschreibbar machen und neu starten.</translation>
    </message>
    <message>
        <source>Set TANDEM_DATA_DIR to a folder you can write (or unset it) and restart.</source>
        <translation>Setzen Sie TANDEM_DATA_DIR auf einen beschreibbaren Ordner (oder entfernen Sie die Variable) und starten Sie neu.</translation>
    </message>
    <message>
        <source>Your chats could not be opened: {error}.</source>
        <translation>Ihre Chats ließen sich nicht öffnen: {error}.</translation>
    </message>
    <message>
        <source>Recovery did not work: {error}. The original file was not changed.</source>
        <translation>Die Wiederherstellung ist fehlgeschlagen: {error}. Die ursprüngliche Datei wurde nicht verändert.</translation>
    </message>
    <message>
        <source>Your chats were recovered: {summary}.</source>
        <translation>Ihre Chats wurden wiederhergestellt: {summary}.</translation>
    </message>
    <message>
        <source>OK</source>
        <translation>OK</translation>
    </message>
    <message>
        <source>Could not start fresh: {error}.</source>
        <translation>Neubeginn nicht möglich: {error}.</translation>
    </message>
    <message>
        <source>The old one is kept as {path}.</source>
        <translation>Die alte Datei liegt jetzt unter {path}.</translation>
    </message>
    <message>
        <source>Started with an empty history.</source>
        <translation>Mit einem leeren Verlauf begonnen.</translation>
    </message>
    <message>
        <source>It cannot be opened read-only either: {error}.</source>
        <translation>Sie lässt sich auch schreibgeschützt nicht öffnen: {error}.</translation>
    </message>
    <message>
        <source>Your chats are shown read-only: nothing new is saved. Restart Tandem to repair the file or start fresh.</source>
        <translation>Ihre Chats werden schreibgeschützt gezeigt: Nichts Neues wird gespeichert. Starten Sie Tandem neu, um die Datei zu reparieren oder neu zu beginnen.</translation>
    </message>
    <message>
        <source>wait for the reply to finish first</source>
        <translation>warten Sie zuerst, bis die Antwort fertig ist</translation>
    </message>
    <message>
        <source>Retry saving</source>
        <translation>Erneut speichern</translation>
    </message>
    <message>
        <source>Export the reply…</source>
        <translation>Antwort exportieren…</translation>
    </message>
    <message>
        <source>nothing is waiting to be saved</source>
        <translation>nichts wartet darauf, gespeichert zu werden</translation>
    </message>
    <message>
        <source>Export the unsaved reply</source>
        <translation>Die nicht gespeicherte Antwort exportieren</translation>
    </message>
    <message>
        <source>not exported: {error}</source>
        <translation>nicht exportiert: {error}</translation>
    </message>
    <message>
        <source>exported to {path}</source>
        <translation>exportiert nach {path}</translation>
    </message>
    <message>
        <source>A reply was not saved</source>
        <translation>Eine Antwort wurde nicht gespeichert</translation>
    </message>
    <message>
        <source>The chat could not be saved.</source>
        <translation>Der Chat konnte nicht gespeichert werden.</translation>
    </message>
    <message>
        <source>Export the reply before quitting?</source>
        <translation>Die Antwort vor dem Beenden exportieren?</translation>
    </message>
</context>
<context>
    <name>TokenCards</name>
    <message>
        <source>the draft model</source>
        <translation>das Draft-Modell</translation>
    </message>
    <message>
        <source>prompt lookup (copied from earlier text)</source>
        <translation>Prompt-Lookup (aus früherem Text kopiert)</translation>
    </message>
    <message>
        <source>Rejected draft proposal</source>
        <translation>Abgelehnter Draft-Vorschlag</translation>
    </message>
    <message>
        <source>the draft proposed this; the target said no</source>
        <translation>der Draft schlug dies vor; das Zielmodell lehnte ab</translation>
    </message>
    <message>
        <source>proposal</source>
        <translation>Vorschlag</translation>
    </message>
    <message>
        <source>target p</source>
        <translation>Ziel p</translation>
    </message>
    <message>
        <source>draft q</source>
        <translation>Draft q</translation>
    </message>
    <message>
        <source>token</source>
        <translation>Token</translation>
    </message>
    <message>
        <source>not reported by the server</source>
        <translation>vom Server nicht gemeldet</translation>
    </message>
    <message>
        <source>proposed by</source>
        <translation>vorgeschlagen von</translation>
    </message>
    <message>
        <source>copied from</source>
        <translation>kopiert aus</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>abgelehnt</translation>
    </message>
</context>
<context>
    <name>TreeActions</name>
    <message>
        <source>editing: send makes a new branch, the old one is kept (Cancel leaves it as it was)</source>
        <translation>Bearbeitung: Senden legt einen neuen Zweig an, der alte bleibt (Abbrechen lässt alles, wie es war)</translation>
    </message>
    <message>
        <source>Deleted a message and the {n} after it</source>
        <translation>Eine Nachricht und die {n} danach gelöscht</translation>
    </message>
    <message>
        <source>Deleted a message</source>
        <translation>Eine Nachricht gelöscht</translation>
    </message>
    <message>
        <source>a reply is being written: the message waits in the trash (tandem chats restore)</source>
        <translation>eine Antwort wird gerade geschrieben: Die Nachricht wartet im Papierkorb (tandem chats restore)</translation>
    </message>
    <message>
        <source>that message is gone</source>
        <translation>diese Nachricht ist nicht mehr da</translation>
    </message>
    <message>
        <source>the message is back</source>
        <translation>die Nachricht ist wieder da</translation>
    </message>
    <message>
        <source>forked into a new chat; the original is unchanged</source>
        <translation>in einen neuen Chat abgezweigt; das Original ist unverändert</translation>
    </message>
    <message>
        <source>What produced this reply</source>
        <translation>Was diese Antwort erzeugt hat</translation>
    </message>
</context>
<context>
    <name>UndoBar</name>
    <message>
        <source>Undo</source>
        <translation>Rückgängig</translation>
    </message>
</context>
<context>
    <name>WindowMenus</name>
    <message>
        <source>Undo</source>
        <translation>Rückgängig</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>Wiederholen</translation>
    </message>
    <message>
        <source>Cut</source>
        <translation>Ausschneiden</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
    <message>
        <source>Paste</source>
        <translation>Einfügen</translation>
    </message>
    <message>
        <source>Select All</source>
        <translation>Alles auswählen</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>Die Nachricht senden</translation>
    </message>
    <message>
        <source>Enter (Ctrl+Enter in both modes)</source>
        <translation>Enter (Strg+Enter in beiden Modi)</translation>
    </message>
    <message>
        <source>New line in the message</source>
        <translation>Neue Zeile in der Nachricht</translation>
    </message>
    <message>
        <source>Shift+Enter (Enter with “Send with Ctrl+Enter”)</source>
        <translation>Umschalt+Enter (Enter mit „Mit Strg+Enter senden“)</translation>
    </message>
    <message>
        <source>Edit the last message</source>
        <translation>Letzte Nachricht bearbeiten</translation>
    </message>
    <message>
        <source>Up, in an empty prompt box</source>
        <translation>Pfeil nach oben in einem leeren Eingabefeld</translation>
    </message>
    <message>
        <source>Stop the reply</source>
        <translation>Die Antwort anhalten</translation>
    </message>
    <message>
        <source>Esc</source>
        <translation>Esc</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>Neuer Chat</translation>
    </message>
    <message>
        <source>Export chat as Markdown…</source>
        <translation>Chat als Markdown exportieren…</translation>
    </message>
    <message>
        <source>Export chat as JSON…</source>
        <translation>Chat als JSON exportieren…</translation>
    </message>
    <message>
        <source>Close chat</source>
        <translation>Chat schließen</translation>
    </message>
    <message>
        <source>leave this chat for a new one (it stays in the list)</source>
        <translation>diesen Chat für einen neuen verlassen (er bleibt in der Liste)</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>Beenden</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>&amp;Bearbeiten</translation>
    </message>
    <message>
        <source>Find in chats…</source>
        <translation>In Chats suchen…</translation>
    </message>
    <message>
        <source>Preferences…</source>
        <translation>Einstellungen…</translation>
    </message>
    <message>
        <source>&amp;Chat</source>
        <translation>&amp;Chat</translation>
    </message>
    <message>
        <source>Regenerate the last reply</source>
        <translation>Letzte Antwort neu erzeugen</translation>
    </message>
    <message>
        <source>Copy the last reply</source>
        <translation>Letzte Antwort kopieren</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>Colour tokens by origin</source>
        <translation>Token nach Herkunft einfärben</translation>
    </message>
    <message>
        <source>Show rejected drafts</source>
        <translation>Abgelehnte Drafts zeigen</translation>
    </message>
    <message>
        <source>Side panel</source>
        <translation>Seitenleiste</translation>
    </message>
    <message>
        <source>show or hide the Model / Stats / Settings / Discover panel</source>
        <translation>die Leiste Modell / Statistik / Einstellungen / Entdecken zeigen oder verbergen</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>Erscheinungsbild</translation>
    </message>
    <message>
        <source>&amp;Tools</source>
        <translation>&amp;Werkzeuge</translation>
    </message>
    <message>
        <source>Get models…</source>
        <translation>Modelle holen…</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Tastenkürzel</translation>
    </message>
    <message>
        <source>About Tandem</source>
        <translation>Über Tandem</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>Haupt</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Stopp</translation>
    </message>
    <message>
        <source>stop the reply (Esc)</source>
        <translation>die Antwort anhalten (Esc)</translation>
    </message>
    <message>
        <source>A/B</source>
        <translation>A/B</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>Sweep</translation>
    </message>
    <message>
        <source>Pre-flight</source>
        <translation>Vorabtest</translation>
    </message>
    <message>
        <source>reply copied</source>
        <translation>Antwort kopiert</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>Tasten</translation>
    </message>
</context>
<context>
    <name>theme</name>
    <message>
        <source>solid underline</source>
        <translation>durchgezogene Unterstreichung</translation>
    </message>
    <message>
        <source>wavy underline</source>
        <translation>gewellte Unterstreichung</translation>
    </message>
    <message>
        <source>dotted underline</source>
        <translation>gepunktete Unterstreichung</translation>
    </message>
    <message>
        <source>no underline</source>
        <translation>keine Unterstreichung</translation>
    </message>
    <message>
        <source>draft, accepted</source>
        <translation>Draft, angenommen</translation>
    </message>
    <message>
        <source>target correction</source>
        <translation>Korrektur des Zielmodells</translation>
    </message>
    <message>
        <source>target bonus</source>
        <translation>Bonus des Zielmodells</translation>
    </message>
    <message>
        <source>target only</source>
        <translation>nur Zielmodell</translation>
    </message>
    <message>
        <source>proposed by the drafter and accepted by the target</source>
        <translation>vom Drafter vorgeschlagen und vom Zielmodell angenommen</translation>
    </message>
    <message>
        <source>sampled by the target after it rejected the draft&apos;s proposal</source>
        <translation>vom Zielmodell gezogen, nachdem es den Vorschlag des Drafts abgelehnt hatte</translation>
    </message>
    <message>
        <source>sampled by the target for free after it accepted the whole draft</source>
        <translation>vom Zielmodell gratis gezogen, nachdem es den ganzen Draft angenommen hatte</translation>
    </message>
    <message>
        <source>decoded by the target alone (no draft this step)</source>
        <translation>vom Zielmodell allein erzeugt (kein Draft in diesem Schritt)</translation>
    </message>
    <message>
        <source>System</source>
        <translation>System</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Hell</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Dunkel</translation>
    </message>
</context>
<context>
    <name>ThinkingFold</name>
    <message>
        <source>Thinking…</source>
        <translation>Denkt nach…</translation>
    </message>
    <message>
        <source>Thinking (not finished)</source>
        <translation>Gedankengang (nicht abgeschlossen)</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>Gedankengang</translation>
    </message>
    <message>
        <source>Thinking ({duration})</source>
        <translation>Gedankengang ({duration})</translation>
    </message>
</context>
</TS>
