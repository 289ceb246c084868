<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="de">
<context>
    <name>ShapeLine</name>
    <message>
        <location filename="../app/ui/chat/shape_line.py" />
        <source>Shaped by:</source>
        <translation>Geformt durch:</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/shape_line.py" />
        <source>What this chat's replies are held to: click a part to change it</source>
        <translation>Woran sich die Antworten dieses Chats halten: zum Ändern einen Teil anklicken</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/shape_line.py" />
        <source>JSON schema</source>
        <translation>JSON-Schema</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/shape_line.py" />
        <source>system prompt</source>
        <translation>Systemprompt</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/shape_line.py" />
        <source>Change the chat's JSON schema</source>
        <translation>Das JSON-Schema des Chats ändern</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/shape_line.py" />
        <source>Change the chat's system prompt</source>
        <translation>Den Systemprompt des Chats ändern</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/shape_line.py" />
        <source>Change the chat's tools</source>
        <translation>Die Werkzeuge des Chats ändern</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/ui/chat/shape_line.py" />
        <source>%n tool(s)</source>
        <translation><numerusform>%n Werkzeug</numerusform><numerusform>%n Werkzeuge</numerusform></translation>
    </message>
</context>
<context>
    <name>ReplyInfo</name>
    <message>
        <location filename="../app/ui/chat/reply/info.py" />
        <source>hybrid: prompt lookup where trusted, else draft model {name}</source>
        <translation>hybrid: Prompt-Lookup, wo verlässlich, sonst Draft-Modell {name}</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../app/ui/main_window.py" />
        <source>{pair} is picked: press Load pair, or send a message to load it</source>
        <translation>{pair} ist gewählt: „Paar laden“ drücken oder eine Nachricht senden, um es zu laden</translation>
    </message>
</context>
</TS>
