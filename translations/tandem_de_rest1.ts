<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
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
