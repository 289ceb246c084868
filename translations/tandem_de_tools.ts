<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="de">
<context>
    <name>McpBox</name>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="29" />
        <source>MCP servers</source>
        <translation>MCP-Server</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="32" />
        <source>mcp.json (none: no tools)</source>
        <translation>mcp.json (keine: keine Werkzeuge)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="33" />
        <source>MCP configuration file</source>
        <translation>MCP-Konfigurationsdatei</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="38" />
        <source>Choose…</source>
        <translation>Auswählen…</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="41" />
        <source>Import…</source>
        <translation>Importieren…</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="42" />
        <source>Use Claude Desktop's or LM Studio's MCP file</source>
        <translation>Die MCP-Datei von Claude Desktop oder LM Studio verwenden</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="65" />
        <source>Neither Claude Desktop's nor LM Studio's MCP file is on this computer.</source>
        <translation>Weder die MCP-Datei von Claude Desktop noch die von LM Studio ist auf diesem Computer.</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="71" />
        <source>MCP configuration</source>
        <translation>MCP-Konfiguration</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="71" />
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="5" />
        <source>Servers allowed to start</source>
        <translation>Server, die starten dürfen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="71" />
        <source>MCP server commands allowed to start</source>
        <translation>MCP-Serverbefehle, die starten dürfen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="74" />
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="75" />
        <source>Ask again before this server next starts</source>
        <translation>Vor dem nächsten Start dieses Servers wieder fragen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="105" />
        <source>Forget saved key</source>
        <translation>Gespeicherten Schlüssel vergessen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/mcp_box.py" line="106" />
        <source>Delete the key saved for this server; it is asked about again</source>
        <translation>Den für diesen Server gespeicherten Schlüssel löschen; danach wird wieder gefragt</translation>
    </message>
</context>
<context>
    <name>PrefixCacheBox</name>
    <message>
        <location filename="../app/ui/settings/prefix_cache_box.py" line="33" />
        <source>Prefix cache (this machine)</source>
        <translation>Präfix-Cache (dieser Rechner)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/prefix_cache_box.py" line="39" />
        <source>Off</source>
        <translation>Aus</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/prefix_cache_box.py" line="43" />
        <source>Long prompts' model state (system prompt, documents, history) is saved on disk, so a new chat or a restart reads it back instead of processing it again; the least recently used goes first</source>
        <translation>Der Modellzustand langer Prompts (Systemprompt, Dokumente, Verlauf) wird auf der Festplatte gespeichert, sodass ein neuer Chat oder ein Neustart ihn zurückliest, statt ihn erneut zu verarbeiten; der am längsten nicht genutzte wird zuerst entfernt</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/prefix_cache_box.py" line="48" />
        <source>Clear</source>
        <translation>Leeren</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/prefix_cache_box.py" line="53" />
        <source>Limit</source>
        <translation>Grenze</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/prefix_cache_box.py" line="54" />
        <source>In use</source>
        <translation>Belegt</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/ui/settings/prefix_cache_box.py" line="83" />
        <source>%1 in %n saved state(s)</source>
        <translation>
            <numerusform>%1 in %n gespeichertem Zustand</numerusform>
            <numerusform>%1 in %n gespeicherten Zuständen</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ToolCallDialog</name>
    <message>
        <location filename="../app/ui/chat/tools/dialogs.py" line="44" />
        <source>Run a tool?</source>
        <translation>Ein Werkzeug ausführen?</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/dialogs.py" line="47" />
        <source>The model asks to run the tool {name} with these arguments:</source>
        <translation>Das Modell möchte das Werkzeug {name} mit diesen Argumenten ausführen:</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/dialogs.py" line="53" />
        <source>Arguments</source>
        <translation>Argumente</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/dialogs.py" line="56" />
        <source>Allow once</source>
        <translation>Einmal erlauben</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/dialogs.py" line="57" />
        <source>Always in this chat</source>
        <translation>Immer in diesem Chat</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/dialogs.py" line="58" />
        <source>Deny</source>
        <translation>Ablehnen</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/dialogs.py" line="37" />
        <source>This tool may change or delete things; it is asked about before every call.</source>
        <translation>Dieses Werkzeug kann etwas ändern oder löschen; vor jedem Aufruf wird gefragt.</translation>
    </message>
</context>
<context>
    <name>ToolFlow</name>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="122" />
        <source>Starting the MCP servers…</source>
        <translation>Die MCP-Server werden gestartet…</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="574" />
        <source>A server not in the current MCP file (confirmed as {key}…)</source>
        <translation>Ein Server, der nicht in der aktuellen MCP-Datei steht (bestätigt als {key}…)</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="130" />
        <source>MCP server {name} was not started (not confirmed).</source>
        <translation>MCP-Server {name} wurde nicht gestartet (nicht bestätigt).</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="320" />
        <source>The key saved for {address} is forgotten.</source>
        <translation>Der für {address} gespeicherte Schlüssel ist vergessen.</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="136" />
        <source>The MCP servers offer no tools.</source>
        <translation>Die MCP-Server bieten keine Werkzeuge an.</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="196" />
        <source>No MCP configuration: choose one under MCP servers in Settings.</source>
        <translation>Keine MCP-Konfiguration: wählen Sie eine unter „MCP-Server“ in den Einstellungen.</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="272" />
        <source>running the tool {name}…</source>
        <translation>Werkzeug {name} läuft…</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="276" />
        <source>the call to {name} failed: {why}</source>
        <translation>der Aufruf von {name} ist fehlgeschlagen: {why}</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="314" />
        <source>called {name} {arguments}</source>
        <translation>{name} aufgerufen {arguments}</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="324" />
        <source>tool</source>
        <translation>Werkzeug</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="326" />
        <source>denied</source>
        <translation>abgelehnt</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="328" />
        <source>error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="330" />
        <source>result</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="339" />
        <source>{count} characters</source>
        <translation>{count} Zeichen</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="343" />
        <source>fold</source>
        <translation>einklappen</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="345" />
        <source>show all</source>
        <translation>alles zeigen</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/flow.py" line="228" />
        <source>MCP server {name} waits for your answer above the chat.</source>
        <translation>MCP-Server {name} wartet auf Ihre Antwort über dem Chat.</translation>
    </message>
</context>
<context>
    <name>ToolListBox</name>
    <message>
        <location filename="../app/ui/chat/tools/tool_list.py" line="20" />
        <source>Tools for this chat</source>
        <translation>Werkzeuge für diesen Chat</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/tool_list.py" line="22" />
        <source>No MCP configuration: choose one under MCP servers.</source>
        <translation>Keine MCP-Konfiguration: wählen Sie eine unter „MCP-Server“.</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/tool_list.py" line="43" />
        <source>The model may call the checked tools; each call is asked about first.</source>
        <translation>Das Modell darf die angehakten Werkzeuge aufrufen; vor jedem Aufruf wird gefragt.</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/tool_list.py" line="35" />
        <source>Offer no tool in this chat</source>
        <translation>In diesem Chat kein Werkzeug anbieten</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/tool_list.py" line="37" />
        <source>Offer every tool in this chat</source>
        <translation>In diesem Chat alle Werkzeuge anbieten</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/tool_list.py" line="67" />
        <source>{name} (writes)</source>
        <translation>{name} (schreibt)</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/tool_list.py" line="71" />
        <source>May change things: asked about before every call.</source>
        <translation>Kann etwas ändern: vor jedem Aufruf wird gefragt.</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/tool_list.py" line="6" />
        <source>new chats</source>
        <translation>neue Chats</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/tool_list.py" line="77" />
        <source>On in every new chat</source>
        <translation>In jedem neuen Chat an</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/tool_list.py" line="78" />
        <source>{name} on in new chats</source>
        <translation>{name} in neuen Chats an</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/tool_list.py" line="90" />
        <source>The model may call the checked tools; each call is asked about first (writes: every call).</source>
        <translation>Das Modell darf die angehakten Werkzeuge aufrufen; vor jedem Aufruf wird gefragt (schreibend: bei jedem Aufruf).</translation>
    </message>
</context>
<context>
    <name>ToolNote</name>
    <message>
        <location filename="../app/core/tools/turns.py" line="28" />
        <source>the model answered with a malformed call: {excerpt}</source>
        <translation>das Modell antwortete mit einem fehlerhaften Aufruf: {excerpt}</translation>
    </message>
    <message>
        <location filename="../app/core/tools/turns.py" line="32" />
        <source>the model asked for {names} after its tool calls ended; not run</source>
        <translation>das Modell bat um {names}, nachdem seine Werkzeugaufrufe beendet waren; nicht ausgeführt</translation>
    </message>
    <message>
        <location filename="../app/core/tools/turns.py" line="30" />
        <source>the model asked for {names} again with the same arguments; not run twice, answered without tools</source>
        <translation>das Modell bat erneut um {names} mit denselben Argumenten; nicht zweimal ausgeführt, ohne Werkzeuge geantwortet</translation>
    </message>
</context>
<context>
    <name>StartBar</name>
    <message>
        <location filename="../app/ui/chat/tools/start_bar.py" line="26" />
        <source>MCP server start</source>
        <translation>Start eines MCP-Servers</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/start_bar.py" line="33" />
        <source>Allow</source>
        <translation>Erlauben</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/start_bar.py" line="35" />
        <source>Start it now and whenever this command is configured (Settings can take it back)</source>
        <translation>Jetzt starten und immer, wenn dieser Befehl eingerichtet ist (in den Einstellungen widerrufbar)</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/start_bar.py" line="37" />
        <source>Not now</source>
        <translation>Jetzt nicht</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/start_bar.py" line="56" />
        <source>Start the MCP server {name}? It runs this command on this computer: {command}</source>
        <translation>MCP-Server {name} starten? Er führt diesen Befehl auf diesem Computer aus: {command}</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/start_bar.py" line="55" />
        <source>Connect to the MCP server {name}? Its tools run at this address: {command}</source>
        <translation>Mit dem MCP-Server {name} verbinden? Seine Werkzeuge laufen unter dieser Adresse: {command}</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/start_bar.py" line="44" />
        <source>Key, if it needs one</source>
        <translation>Schlüssel, falls er einen braucht</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/start_bar.py" line="45" />
        <source>Key for the MCP server</source>
        <translation>Schlüssel für den MCP-Server</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/start_bar.py" line="46" />
        <source>Sent as its Authorization header; kept where the remote servers' keys are kept</source>
        <translation>Wird als Authorization-Header gesendet und dort aufbewahrt, wo die Schlüssel der entfernten Server liegen</translation>
    </message>
</context>
</TS>