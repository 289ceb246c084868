<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
    <context>
        <name>ThinkingFold</name>
        <message>
            <source>it reached the token limit (raise Max tokens in Settings, or Continue the reply)</source>
            <translation>das Token-Limit war erreicht (Max. Tokens in den Einstellungen erhöhen oder die Antwort fortsetzen)</translation>
        </message>
        <message>
            <source>it was stopped</source>
            <translation>sie wurde angehalten</translation>
        </message>
        <message>
            <source>the context is full</source>
            <translation>der Kontext ist voll</translation>
        </message>
        <message>
            <source>The reply ended after its thinking, with no answer</source>
            <translation>Die Antwort endete nach dem Gedankengang, ohne eine Antwort</translation>
        </message>
        <message>
            <source>The reply ended while thinking, before any answer</source>
            <translation>Die Antwort endete mitten im Gedankengang, vor jeder Antwort</translation>
        </message>
    </context>
    <context>
        <name>ReplyWords</name>
        <message>
            <source>lookup off for now, after it copied {n} tokens the target kept</source>
            <translation>Lookup vorerst aus, nachdem es {n} Tokens kopiert hat, die das Zielmodell behielt</translation>
        </message>
        <message>
            <source>draft model off: it would slow this machine down; lookup copied {n} tokens the target kept</source>
            <translation>Entwurfsmodell aus: es würde diesen Rechner verlangsamen; Lookup kopierte {n} Tokens, die das Zielmodell behielt</translation>
        </message>
        <message>
            <source>lookup copied {n} tokens</source>
            <translation>Lookup kopierte {n} Tokens</translation>
        </message>
    </context>
</TS>
