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
    <context>
        <name>StatsPanel</name>
        <message>
            <source>changed from {rate:.1f} tok/s at {time}</source>
            <translation>vorher {rate:.1f} tok/s, geändert um {time}</translation>
        </message>
        <message>
            <source>{ratio}×: slower than the target alone</source>
            <translation>{ratio}×: langsamer als das Zielmodell allein</translation>
        </message>
        <message>
            <source>– (no step drafted)</source>
            <translation>– (kein Schritt mit Entwurf)</translation>
        </message>
        <message>
            <source>{mean:.2f} per drafting step ({drafting} of {steps} steps drafted)</source>
            <translation>{mean:.2f} pro Schritt mit Entwurf ({drafting} von {steps} Schritten mit Entwurf)</translation>
        </message>
        <message>
            <source>exact {exact:.0%} · sample-and-match {match:.0%} expected, over {verified} judged draft tokens</source>
            <translation>exakt {exact:.0%} · Sample-and-Match {match:.0%} erwartet, über {verified} geprüfte Entwurfstokens</translation>
        </message>
    </context>
</TS>
