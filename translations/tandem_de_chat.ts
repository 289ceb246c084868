<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="de_DE">
<context>
    <name>AttachmentContext</name>
    <message>
        <location filename="../app/core/attachments/context.py" line="40" />
        <source>{name} does not fit whole ({tokens:,} tokens, {free:,} free in the context): the passages that best answer were used instead</source>
        <translation>{name} passt nicht vollständig ({tokens:,} Tokens, {free:,} frei im Kontext): Stattdessen wurden die Passagen verwendet, die am besten antworten</translation>
    </message>
</context>
<context>
    <name>AttachmentRead</name>
    <message>
        <location filename="../app/engine/attachments/kinds.py" line="34" />
        <source>not valid {encoding} despite its byte-order mark</source>
        <translation>kein gültiges {encoding} trotz seiner Byte-Order-Markierung</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/kinds.py" line="35" />
        <source>looks binary: it holds NUL bytes</source>
        <translation>sieht binär aus: sie enthält NUL-Bytes</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/kinds.py" line="36" />
        <source>looks binary: its bytes are not text in any encoding</source>
        <translation>sieht binär aus: ihre Bytes sind in keiner Kodierung Text</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/kinds.py" line="37" />
        <source>looks binary: it holds NUL characters</source>
        <translation>sieht binär aus: sie enthält NUL-Zeichen</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/limits.py" line="33" />
        <source>cannot attach {name}: {problem}</source>
        <translation>{name} kann nicht angehängt werden: {problem}</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/limits.py" line="34" />
        <source>{size} bytes</source>
        <translation>{size} Bytes</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/limits.py" line="35" />
        <source>{value:.0f} {unit}</source>
        <translation>{value:.0f} {unit}</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/limits.py" line="36" />
        <source>{value:.1f} {unit}</source>
        <translation>{value:.1f} {unit}</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/limits.py" line="37" />
        <source>the text is cut at {limit:,} characters (of {length:,})</source>
        <translation>der Text ist nach {limit:,} Zeichen abgeschnitten (von {length:,})</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/pdf.py" line="26" />
        <source>not a PDF: it does not start with %PDF-</source>
        <translation>kein PDF: sie beginnt nicht mit %PDF-</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/pdf.py" line="46" />
        <source>a damaged PDF (its page tree is nested deeper than {limit} levels)</source>
        <translation>ein beschädigtes PDF (sein Seitenbaum ist tiefer als {limit} Ebenen verschachtelt)</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/pdf.py" line="27" />
        <source>the PDF is encrypted in a way that cannot be read here ({error})</source>
        <translation>das PDF ist auf eine Weise verschlüsselt, die hier nicht gelesen werden kann ({error})</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/pdf.py" line="30" />
        <source>the PDF is encrypted: it needs a password (save an unencrypted copy to attach it)</source>
        <translation>das PDF ist verschlüsselt: Es braucht ein Passwort (speichern Sie eine unverschlüsselte Kopie, um es anzuhängen)</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/pdf.py" line="33" />
        <source>a damaged PDF ({error})</source>
        <translation>ein beschädigtes PDF ({error})</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/pdf.py" line="34" />
        <source>the PDF has no text layer (its {pages} hold only images or scans): Tandem reads no images; run it through OCR first</source>
        <translation>das PDF hat keine Textebene (seine {pages} enthalten nur Bilder oder Scans): Tandem liest keine Bilder; lassen Sie zuerst eine Texterkennung (OCR) darüber laufen</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/pdf.py" line="39" />
        <source>the PDF has no pages</source>
        <translation>das PDF hat keine Seiten</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/pdf.py" line="41" />
        <source>{n} page</source>
        <translation>{n} Seite</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/pdf.py" line="42" />
        <source>{n} pages</source>
        <translation>{n} Seiten</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/read.py" line="25" />
        <source>it is a broken symbolic link</source>
        <translation>sie ist ein defekter symbolischer Link</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/read.py" line="51" />
        <source>reading it was stopped: it took longer than {seconds:.0f} s (or was called off)</source>
        <translation>das Lesen wurde abgebrochen: es dauerte länger als {seconds:.0f} s (oder wurde abgesagt)</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/read.py" line="26" />
        <source>no such file or folder</source>
        <translation>keine solche Datei und kein solcher Ordner</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/read.py" line="27" />
        <source>a loop of symbolic links (it never reaches a file)</source>
        <translation>eine Schleife symbolischer Links (sie erreicht nie eine Datei)</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/read.py" line="28" />
        <source>it cannot be read ({error})</source>
        <translation>sie kann nicht gelesen werden ({error})</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/read.py" line="29" />
        <source>not a regular file (a device, socket or pipe)</source>
        <translation>keine normale Datei (ein Gerät, Socket oder eine Pipe)</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/read.py" line="30" />
        <source>it holds no text</source>
        <translation>sie enthält keinen Text</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/read.py" line="31" />
        <source>the file is empty</source>
        <translation>die Datei ist leer</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/read.py" line="32" />
        <source>the folder cannot be read ({error})</source>
        <translation>der Ordner kann nicht gelesen werden ({error})</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/read.py" line="33" />
        <source>the folder has no text files</source>
        <translation>der Ordner enthält keine Textdateien</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/read.py" line="34" />
        <source>the folder has no text files ({reasons})</source>
        <translation>der Ordner enthält keine Textdateien ({reasons})</translation>
    </message>
    <message>
        <location filename="../app/engine/attachments/read.py" line="35" />
        <source>it is {size}; files over {limit} are not attached</source>
        <translation>sie ist {size} groß; Dateien über {limit} werden nicht angehängt</translation>
    </message>
</context>
<context>
    <name>ChatDatabase</name>
    <message>
        <location filename="../app/engine/store/database.py" line="63" />
        <source>the data folder cannot be used</source>
        <translation>der Datenordner kann nicht verwendet werden</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="64" />
        <source>the chat database is not a file</source>
        <translation>die Chat-Datenbank ist keine Datei</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="65" />
        <source>the chat database cannot be written</source>
        <translation>die Chat-Datenbank kann nicht geschrieben werden</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="66" />
        <source>the chat database is damaged</source>
        <translation>die Chat-Datenbank ist beschädigt</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="67" />
        <source>another Tandem window is using this data folder</source>
        <translation>ein anderes Tandem-Fenster verwendet diesen Datenordner</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="69" />
        <source>{problem} ({path}): {detail}</source>
        <translation>{problem} ({path}): {detail}</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="70" />
        <source>the chat could not be saved: the database or disk is full ({folder}: {room}{need}). Free some space; Tandem keeps the reply and saves it as soon as it can.</source>
        <translation>der Chat konnte nicht gespeichert werden: Die Datenbank oder der Datenträger ist voll ({folder}: {room}{need}). Geben Sie Speicherplatz frei; Tandem behält die Antwort und speichert sie, sobald es kann.</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="75" />
        <source>{free} free on its disk</source>
        <translation>{free} frei auf seinem Datenträger</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="76" />
        <source>free space unknown</source>
        <translation>freier Speicherplatz unbekannt</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="77" />
        <source>; about {size} more is needed</source>
        <translation>; etwa {size} mehr werden benötigt</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="78" />
        <source>the chat could not be saved: {path} has become read-only. Tandem keeps the reply in memory.</source>
        <translation>der Chat konnte nicht gespeichert werden: {path} ist schreibgeschützt geworden. Tandem behält die Antwort im Speicher.</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="81" />
        <source>the chat could not be saved: the disk reported an I/O error on {path} ({error}).</source>
        <translation>der Chat konnte nicht gespeichert werden: Der Datenträger meldete einen E/A-Fehler bei {path} ({error}).</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="84" />
        <source>the chat could not be saved: {path} is damaged ({error}). Restart Tandem to recover it.</source>
        <translation>der Chat konnte nicht gespeichert werden: {path} ist beschädigt ({error}). Starten Sie Tandem neu, um ihn wiederherzustellen.</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="87" />
        <source>the chat could not be saved: {path} is locked by another program ({error}).</source>
        <translation>der Chat konnte nicht gespeichert werden: {path} ist von einem anderen Programm gesperrt ({error}).</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="88" />
        <source>the chat could not be saved: {error}</source>
        <translation>der Chat konnte nicht gespeichert werden: {error}</translation>
    </message>
</context>
<context>
    <name>Credentials</name>
    <message>
        <location filename="../app/engine/remote/credentials.py" line="44" />
        <source>in the system keyring ({name})</source>
        <translation>im Schlüsselbund des Systems ({name})</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/credentials.py" line="45" />
        <source>in {path} (readable only by you: no system keyring is available)</source>
        <translation>in {path} (nur für Sie lesbar: Es ist kein Schlüsselbund des Systems verfügbar)</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/credentials.py" line="46" />
        <source>the system keyring could not be read: {error}</source>
        <translation>der Schlüsselbund des Systems konnte nicht gelesen werden: {error}</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/credentials.py" line="47" />
        <source>the system keyring refused the key: {error}</source>
        <translation>der Schlüsselbund des Systems hat den Schlüssel abgelehnt: {error}</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/credentials.py" line="48" />
        <source>the saved API keys in {path} cannot be read: {error}</source>
        <translation>die gespeicherten API-Schlüssel in {path} können nicht gelesen werden: {error}</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/credentials.py" line="49" />
        <source>the API key could not be saved in {path}: {error}</source>
        <translation>der API-Schlüssel konnte nicht in {path} gespeichert werden: {error}</translation>
    </message>
</context>
<context>
    <name>EngineWorker</name>
    <message>
        <location filename="../app/ui/threads/worker.py" line="144" />
        <source>"Context size" in the Settings tab</source>
        <translation>„Kontextgröße“ im Tab „Einstellungen“</translation>
    </message>
    <message>
        <location filename="../app/ui/threads/worker.py" line="149" />
        <source>unexpected {kind}: {error}</source>
        <translation>unerwarteter Fehler {kind}: {error}</translation>
    </message>
    </context>
<context>
    <name>Errors</name>
    <message>
        <location filename="../app/core/errors.py" line="21" />
        <source>close other programs, or choose a smaller model or context size</source>
        <translation>schließen Sie andere Programme oder wählen Sie ein kleineres Modell oder eine kleinere Kontextgröße</translation>
    </message>
    <message>
        <location filename="../app/core/errors.py" line="22" />
        <source>out of memory: {hint}</source>
        <translation>Speicher erschöpft: {hint}</translation>
    </message>
    <message>
        <location filename="../app/core/errors.py" line="23" />
        <source>out of memory {what}: {hint}</source>
        <translation>Speicher erschöpft beim {what}: {hint}</translation>
    </message>
    <message>
        <location filename="../app/core/errors.py" line="25" />
        <source>the context size</source>
        <translation>die Kontextgröße</translation>
    </message>
    <message>
        <location filename="../app/core/errors.py" line="26" />
        <source>the prompt is {n_prompt} tokens but the context holds {n_ctx}; shorten the prompt or raise {setting}</source>
        <translation>der Prompt hat {n_prompt} Tokens, aber der Kontext fasst {n_ctx}; kürzen Sie den Prompt oder erhöhen Sie {setting}</translation>
    </message>
    <message>
        <location filename="../app/core/errors.py" line="29" />
        <source>a context of {n_ctx} tokens could not be created for {model}; the model was trained for {trained}: set {setting} to {trained} or less</source>
        <translation>ein Kontext von {n_ctx} Tokens konnte für {model} nicht angelegt werden; das Modell wurde für {trained} trainiert: Setzen Sie {setting} auf {trained} oder weniger</translation>
    </message>
    <message>
        <location filename="../app/core/errors.py" line="34" />
        <source>a context of {n_ctx} tokens could not be created for {model}: out of memory; the model was trained for {trained}: set {setting} to {trained} or less</source>
        <translation>ein Kontext von {n_ctx} Tokens konnte für {model} nicht angelegt werden: Speicher erschöpft; das Modell wurde für {trained} trainiert: Setzen Sie {setting} auf {trained} oder weniger</translation>
    </message>
    <message>
        <location filename="../app/core/errors.py" line="39" />
        <source>a context of {n_ctx} tokens could not be created for {model}: out of memory: close other programs, or lower {setting}, or choose a smaller model</source>
        <translation>ein Kontext von {n_ctx} Tokens konnte für {model} nicht angelegt werden: Speicher erschöpft: Schließen Sie andere Programme, verringern Sie {setting} oder wählen Sie ein kleineres Modell</translation>
    </message>
    <message>
        <location filename="../app/core/errors.py" line="44" />
        <source>a context of {n_ctx} tokens could not be created for {model}: most likely out of memory: close other programs, or lower {setting}, or choose a smaller model</source>
        <translation>ein Kontext von {n_ctx} Tokens konnte für {model} nicht angelegt werden: höchstwahrscheinlich Speicher erschöpft: Schließen Sie andere Programme, verringern Sie {setting} oder wählen Sie ein kleineres Modell</translation>
    </message>
</context>
<context>
    <name>LlamaModel</name>
    <message>
        <location filename="../app/engine/llama/model.py" line="32" />
        <source>loading {name}</source>
        <translation>Laden von {name}</translation>
    </message>
    <message>
        <location filename="../app/engine/llama/model.py" line="33" />
        <source>llama.cpp could not load {name}: {error}</source>
        <translation>llama.cpp konnte {name} nicht laden: {error}</translation>
    </message>
</context>
<context>
    <name>PromptFigures</name>
    <message>
        <location filename="../app/core/decoding/events.py" line="74" />
        <source>first token {ms:,.0f} ms  ·  {speed}  ·  {cache}</source>
        <translation>erstes Token {ms:,.0f} ms  ·  {speed}  ·  {cache}</translation>
    </message>
    <message>
        <location filename="../app/core/decoding/events.py" line="75" />
        <source>prompt {rate:,.0f} tok/s</source>
        <translation>Prompt {rate:,.0f} Tok./s</translation>
    </message>
    <message>
        <location filename="../app/core/decoding/events.py" line="76" />
        <source>prompt —</source>
        <translation>Prompt —</translation>
    </message>
    <message>
        <location filename="../app/core/decoding/events.py" line="77" />
        <source>{reused:,} of {tokens:,} prompt tokens from cache</source>
        <translation>{reused:,} von {tokens:,} Prompt-Tokens aus dem Cache</translation>
    </message>
    <message>
        <location filename="../app/core/decoding/events.py" line="78" />
        <source>{tokens:,} prompt tokens (the server does not say how many it had cached)</source>
        <translation>{tokens:,} Prompt-Tokens (der Server sagt nicht, wie viele davon im Cache waren)</translation>
    </message>
</context>
<context>
    <name>SamplingField</name>
    <message>
        <location filename="../app/core/decoding/sampling.py" line="123" />
        <source>0 is greedy: exactly the target's own greedy reply</source>
        <translation>0 ist greedy: genau die eigene greedy-Antwort des Zielmodells</translation>
    </message>
    <message>
        <location filename="../app/core/decoding/sampling.py" line="131" />
        <source>keep the k most likely tokens; 0 = off</source>
        <translation>die k wahrscheinlichsten Tokens behalten; 0 = aus</translation>
    </message>
    <message>
        <location filename="../app/core/decoding/sampling.py" line="139" />
        <source>keep the most likely tokens that hold this much probability; 1 = off</source>
        <translation>die wahrscheinlichsten Tokens behalten, die zusammen so viel Wahrscheinlichkeit tragen; 1 = aus</translation>
    </message>
    <message>
        <location filename="../app/core/decoding/sampling.py" line="147" />
        <source>drop tokens less likely than this share of the most likely; 0 = off</source>
        <translation>Tokens verwerfen, die weniger wahrscheinlich sind als dieser Anteil des wahrscheinlichsten; 0 = aus</translation>
    </message>
    <message>
        <location filename="../app/core/decoding/sampling.py" line="155" />
        <source>above 1 makes recent tokens less likely; 1 = off</source>
        <translation>über 1 macht kürzlich erzeugte Tokens unwahrscheinlicher; 1 = aus</translation>
    </message>
    <message>
        <location filename="../app/core/decoding/sampling.py" line="163" />
        <source>how many recent tokens the repeat penalty looks at</source>
        <translation>wie viele der letzten Tokens die Wiederholungsstrafe betrachtet</translation>
    </message>
    <message>
        <location filename="../app/core/decoding/sampling.py" line="172" />
        <source>-1 = a fresh random seed for every reply</source>
        <translation>-1 = ein neuer zufälliger Seed für jede Antwort</translation>
    </message>
    <message>
        <location filename="../app/core/decoding/sampling.py" line="180" />
        <source>the most tokens a reply may have</source>
        <translation>die höchste Zahl an Tokens, die eine Antwort haben darf</translation>
    </message>
</context>
</TS>