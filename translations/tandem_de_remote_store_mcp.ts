<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>ChatDatabaseDetail</name>
    <message>
        <location filename="../app/engine/store/database.py" line="122"/>
        <source>{reason}; set TANDEM_DATA_DIR to a folder you can write, or unset it</source>
        <translation>{reason}; setzen Sie TANDEM_DATA_DIR auf einen Ordner, in den Sie schreiben können, oder entfernen Sie die Variable</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="125"/>
        <source>it is not a folder</source>
        <translation>es ist kein Ordner</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="126"/>
        <source>the folder is read-only</source>
        <translation>der Ordner ist schreibgeschützt</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="127"/>
        <source>a folder or other non-file is in its place</source>
        <translation>an ihrer Stelle steht ein Ordner oder etwas anderes als eine Datei</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="128"/>
        <source>the file cannot be read</source>
        <translation>die Datei kann nicht gelesen werden</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="129"/>
        <source>the file is read-only</source>
        <translation>die Datei ist schreibgeschützt</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="130"/>
        <source>its header is destroyed (it does not start like an SQLite database)</source>
        <translation>ihr Kopf ist zerstört (sie beginnt nicht wie eine SQLite-Datenbank)</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="133"/>
        <source>its header is destroyed (no valid page size)</source>
        <translation>ihr Kopf ist zerstört (keine gültige Seitengröße)</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="134"/>
        <source>it is cut short ({size} bytes is not a whole number of {page_size}-byte pages)</source>
        <translation>sie ist abgeschnitten ({size} Bytes sind keine ganze Zahl von Seiten zu {page_size} Bytes)</translation>
    </message>
    <message>
        <location filename="../app/engine/store/database.py" line="137"/>
        <source>it is cut short ({there} of {pages} pages are there)</source>
        <translation>sie ist abgeschnitten ({there} von {pages} Seiten sind vorhanden)</translation>
    </message>
    <message>
        <location filename="../app/engine/store/connection.py" line="49"/>
        <source>no lock file can be made ({error})</source>
        <translation>es lässt sich keine Sperrdatei anlegen ({error})</translation>
    </message>
    <message>
        <location filename="../app/engine/store/connection.py" line="50"/>
        <source>open it read-only, or close the other window</source>
        <translation>öffnen Sie sie schreibgeschützt, oder schließen Sie das andere Fenster</translation>
    </message>
    <message>
        <location filename="../app/engine/store/connection.py" line="51"/>
        <source>no copy could be kept before updating it ({error})</source>
        <translation>vor der Aktualisierung konnte keine Kopie angelegt werden ({error})</translation>
    </message>
    <message>
        <location filename="../app/engine/store/connection.py" line="52"/>
        <source>it cannot be read even read-only ({error})</source>
        <translation>sie lässt sich nicht einmal schreibgeschützt lesen ({error})</translation>
    </message>
</context>
<context>
    <name>ChatRecovery</name>
    <message>
        <location filename="../app/engine/store/recovery.py" line="54"/>
        <source>recovered {conversations} conversations, {messages} messages and {tokens} tokens{skipped}{kept}</source>
        <translation>{conversations} Unterhaltungen, {messages} Nachrichten und {tokens} Tokens wiederhergestellt{skipped}{kept}</translation>
    </message>
    <message>
        <location filename="../app/engine/store/recovery.py" line="57"/>
        <source>; {unreadable} unreadable parts were skipped</source>
        <translation>; {unreadable} unlesbare Teile wurden übersprungen</translation>
    </message>
    <message>
        <location filename="../app/engine/store/recovery.py" line="58"/>
        <source>; the damaged file is kept as {path}</source>
        <translation>; die beschädigte Datei bleibt als {path} erhalten</translation>
    </message>
    <message>
        <location filename="../app/engine/store/recovery.py" line="59"/>
        <source>could not move {path} aside ({error})</source>
        <translation>{path} konnte nicht beiseitegelegt werden ({error})</translation>
    </message>
    <message>
        <location filename="../app/engine/store/recovery.py" line="60"/>
        <source>will not overwrite {path}</source>
        <translation>{path} wird nicht überschrieben</translation>
    </message>
    <message>
        <location filename="../app/engine/store/recovery.py" line="61"/>
        <source>could not read {path} to recover it ({error})</source>
        <translation>{path} konnte zum Wiederherstellen nicht gelesen werden ({error})</translation>
    </message>
    <message>
        <location filename="../app/engine/store/recovery.py" line="62"/>
        <source>nothing could be read from {path} ({error})</source>
        <translation>aus {path} ließ sich nichts lesen ({error})</translation>
    </message>
    <message>
        <location filename="../app/engine/store/recovery.py" line="63"/>
        <source>the recovered chats are in {path}, but could not be put in place ({error})</source>
        <translation>die wiederhergestellten Chats liegen in {path}, konnten aber nicht an ihren Platz gebracht werden ({error})</translation>
    </message>
</context>
<context>
    <name>McpClient</name>
    <message>
        <location filename="../app/engine/tools/mcp_client.py" line="49"/>
        <source>MCP server {name} did not start within {seconds:g} s ({command})</source>
        <translation>MCP-Server {name} ist nicht innerhalb von {seconds:g} s gestartet ({command})</translation>
    </message>
    <message>
        <location filename="../app/engine/tools/mcp_client.py" line="52"/>
        <source>MCP server {name} could not start: {error}</source>
        <translation>MCP-Server {name} konnte nicht starten: {error}</translation>
    </message>
    <message>
        <location filename="../app/engine/tools/mcp_client.py" line="53"/>
        <source>{error} (its last words: {tail})</source>
        <translation>{error} (seine letzte Ausgabe: {tail})</translation>
    </message>
    <message>
        <location filename="../app/engine/tools/mcp_client.py" line="54"/>
        <source>MCP tool {tool} of server {name} left out: server {owner} offers a tool of that name</source>
        <translation>MCP-Werkzeug {tool} von Server {name} ausgelassen: Server {owner} bietet ein Werkzeug dieses Namens an</translation>
    </message>
    <message>
        <location filename="../app/engine/tools/mcp_client.py" line="57"/>
        <source>MCP tool {tool} of server {name} left out: not a valid function name</source>
        <translation>MCP-Werkzeug {tool} von Server {name} ausgelassen: kein gültiger Funktionsname</translation>
    </message>
</context>
<context>
    <name>McpConfig</name>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="27"/>
        <source>{source} is not JSON: {error}</source>
        <translation>{source} ist kein JSON: {error}</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="28"/>
        <source>{source} has no &quot;mcpServers&quot; object (the mcp.json shape)</source>
        <translation>{source} hat kein „mcpServers“-Objekt (die Form von mcp.json)</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="29"/>
        <source>{source}: &quot;mcpServers&quot; must be an object of servers by name</source>
        <translation>{source}: „mcpServers“ muss ein Objekt mit Servern nach Namen sein</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="30"/>
        <source>{source}: &quot;mcpServers&quot; configures no server</source>
        <translation>{source}: „mcpServers“ richtet keinen Server ein</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="31"/>
        <source>{source}: server {name}</source>
        <translation>{source}: Server {name}</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="32"/>
        <source>{source}: a server has an empty name</source>
        <translation>{source}: ein Server hat einen leeren Namen</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="33"/>
        <source>{where} must be an object with a &quot;command&quot;</source>
        <translation>{where} muss ein Objekt mit „command“ sein</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="46"/>
        <source>{where} has both a &quot;command&quot; and a &quot;url&quot;: give one of them</source>
        <translation>{where} hat sowohl „command“ als auch „url“: bitte nur eines davon angeben</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="47"/>
        <source>{where}: &quot;url&quot; must be an http:// or https:// address</source>
        <translation>{where}: „url“ muss eine http://- oder https://-Adresse sein</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="48"/>
        <source>{where}: &quot;headers&quot; must be an object of string values without line breaks</source>
        <translation>{where}: „headers“ muss ein Objekt aus Zeichenketten ohne Zeilenumbrüche sein</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="51"/>
        <source>{where} needs a &quot;command&quot; (the program that starts it) or a &quot;url&quot; (a remote server)</source>
        <translation>{where} braucht ein „command“ (das Programm, das ihn startet) oder eine „url“ (ein entfernter Server)</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="38"/>
        <source>{where}: &quot;args&quot; must be a list of strings</source>
        <translation>{where}: „args“ muss eine Liste von Zeichenketten sein</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="39"/>
        <source>{where}: &quot;env&quot; must be an object of string values</source>
        <translation>{where}: „env“ muss ein Objekt mit Zeichenketten als Werten sein</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="40"/>
        <source>{where}: the command, arguments and environment must not contain NUL characters</source>
        <translation>{where}: Befehl, Argumente und Umgebung dürfen keine NUL-Zeichen enthalten</translation>
    </message>
    <message>
        <location filename="../app/core/tools/mcp_config.py" line="41"/>
        <source>the MCP configuration</source>
        <translation>die MCP-Konfiguration</translation>
    </message>
    <message>
        <location filename="../app/engine/tools/mcp_file.py" line="17"/>
        <source>cannot read the MCP configuration {path}: {error}</source>
        <translation>die MCP-Konfiguration {path} kann nicht gelesen werden: {error}</translation>
    </message>
    <message>
        <location filename="../app/engine/tools/mcp_file.py" line="18"/>
        <source>the MCP configuration {path} is not UTF-8 text (byte {byte})</source>
        <translation>die MCP-Konfiguration {path} ist kein UTF-8-Text (Byte {byte})</translation>
    </message>
</context>
<context>
    <name>PairLoadErrors</name>
    <message>
        <location filename="../app/engine/llama/session.py" line="42"/>
        <source>a draft model is needed for {drafter} drafting (or choose the n-gram drafter or none)</source>
        <translation>für das Drafting mit {drafter} wird ein Draft-Modell gebraucht (oder wählen Sie den N-Gramm-Drafter oder keinen)</translation>
    </message>
    <message>
        <location filename="../app/engine/llama/session.py" line="45"/>
        <source>{draft} cannot draft for {target}: {problems}</source>
        <translation>{draft} kann nicht für {target} draften: {problems}</translation>
    </message>
    <message>
        <location filename="../app/engine/llama/session.py" line="46"/>
        <source>{rule}: {detail}</source>
        <translation>{rule}: {detail}</translation>
    </message>
    <message>
        <location filename="../app/engine/llama/session.py" line="47"/>
        <source>{earlier}; {next}</source>
        <translation>{earlier}; {next}</translation>
    </message>
</context>
<context>
    <name>RemoteErrors</name>
    <message>
        <location filename="../app/engine/remote/client.py" line="53"/>
        <source>{url} did not send its model list within {seconds:g} s</source>
        <translation>{url} hat seine Modellliste nicht innerhalb von {seconds:g} s gesendet</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="54"/>
        <source>{url} is not a usable server URL: {error}</source>
        <translation>{url} ist keine brauchbare Server-URL: {error}</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="55"/>
        <source>{url} did not answer with a model list: {error}</source>
        <translation>{url} hat nicht mit einer Modellliste geantwortet: {error}</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="56"/>
        <source>{url} offers no models</source>
        <translation>{url} bietet keine Modelle an</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="57"/>
        <source>the server reported an error: {error}</source>
        <translation>der Server meldete einen Fehler: {error}</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="58"/>
        <source>the stream from {url} ended before the reply did: the partial reply is kept</source>
        <translation>der Datenstrom von {url} endete vor der Antwort: die unvollständige Antwort bleibt erhalten</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="61"/>
        <source>{error}: the partial reply is kept</source>
        <translation>{error}: die unvollständige Antwort bleibt erhalten</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="62"/>
        <source>{url} did not finish the reply within the {seconds:g} s deadline: the partial reply is kept</source>
        <translation>{url} hat die Antwort nicht innerhalb der Frist von {seconds:g} s beendet: die unvollständige Antwort bleibt erhalten</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="65"/>
        <source>{url} refused the API key ({status}): {detail}</source>
        <translation>{url} hat den API-Schlüssel abgelehnt ({status}): {detail}</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="66"/>
        <source>{url} has no such model or route (404): {detail}</source>
        <translation>{url} kennt dieses Modell oder diesen Pfad nicht (404): {detail}</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="67"/>
        <source>{url} answered {status}: {detail}</source>
        <translation>{url} antwortete mit {status}: {detail}</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="68"/>
        <source>cannot resolve the server&apos;s name in {url}</source>
        <translation>der Servername in {url} lässt sich nicht auflösen</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="69"/>
        <source>cannot connect to {url}: is the server running? ({error})</source>
        <translation>keine Verbindung zu {url}: Läuft der Server? ({error})</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="70"/>
        <source>{url} did not answer in time ({kind})</source>
        <translation>{url} hat nicht rechtzeitig geantwortet ({kind})</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="71"/>
        <source>the connection to {url} broke off mid-reply ({kind}): the partial reply is kept</source>
        <translation>die Verbindung zu {url} brach mitten in der Antwort ab ({kind}): die unvollständige Antwort bleibt erhalten</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/client.py" line="74"/>
        <source>talking to {url} failed: {kind}: {error}</source>
        <translation>die Verbindung mit {url} ist fehlgeschlagen: {kind}: {error}</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/stream.py" line="23"/>
        <source>the server sent more than {cap:,} bytes in one reply</source>
        <translation>der Server sandte mehr als {cap:,} Bytes in einer Antwort</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/stream.py" line="24"/>
        <source>the server sent no event for {seconds:g} s (only keep-alives or a trickle)</source>
        <translation>der Server sandte {seconds:g} s lang kein Ereignis (nur Keep-alives oder ein Rinnsal)</translation>
    </message>
    <message>
        <location filename="../app/engine/remote/stream.py" line="27"/>
        <source>{url}: the server sent more than {cap:,} bytes in one answer</source>
        <translation>{url}: der Server sandte mehr als {cap:,} Bytes in einer Antwort</translation>
    </message>
</context>
</TS>
