<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
    <context>
        <name>PairingRules</name>
        <message>
            <location filename="../app/core/pairing/own_drafter.py" line="26" />
            <source>hidden size</source>
            <translation>Verborgene Breite</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/own_drafter.py" line="27" />
            <source>target layers</source>
            <translation>Ziel-Schichten</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/own_drafter.py" line="103" />
            <source>the head reads hidden states {head} wide, the target's are {target}</source>
            <translation>der Kopf liest verborgene Zustände der Breite {head}, die des Ziels sind {target} breit</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/own_drafter.py" line="113" />
            <source>the head reads the target's layer {layer}, and the target has {count} layers</source>
            <translation>der Kopf liest Schicht {layer} des Ziels, und das Ziel hat {count} Schichten</translation>
        </message>
        <message>
            <location filename="../app/engine/remote/managed.py" line="67" />
            <source>{rule}: {detail}</source>
            <translation>{rule}: {detail}</translation>
        </message>
    </context>
    <context>
        <name>PairingReasons</name>
        <message>
            <location filename="../app/core/pairing/own_drafter.py" line="88" />
            <source>a DFlash block drafter: drafts for a target {width} wide, reading its layers {layers}</source>
            <translation>ein DFlash-Block-Drafter: entwirft für ein Ziel der Breite {width} und liest dessen Schichten {layers}</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/own_drafter.py" line="79" />
            <source>the model's own MTP layers ({n} NextN block(s)) draft for it: no second file needed</source>
            <translation>die eigenen MTP-Schichten des Modells ({n} NextN-Block/Blöcke) entwerfen für es: keine zweite Datei nötig</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/own_drafter.py" line="84" />
            <source>an EAGLE-3 head: drafts for a target {width} wide, reading its layers {layers}</source>
            <translation>ein EAGLE-3-Kopf: entwirft für ein Ziel der Breite {width} und liest dessen Schichten {layers}</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/own_drafter.py" line="70" />
            <source>the header declares {n} MTP layer(s) but the file holds none of their weights (stripped in conversion): no own drafter</source>
            <translation>der Kopf der Datei nennt {n} MTP-Schicht(en), doch die Datei enthält keines ihrer Gewichte (bei der Umwandlung entfernt): kein eigener Drafter</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/own_drafter.py" line="76" />
            <source>carries {n} MTP layer(s), but this llama.cpp has no MTP graph for {arch}</source>
            <translation>enthält {n} MTP-Schicht(en), doch dieses llama.cpp hat keinen MTP-Graphen für {arch}</translation>
        </message>
    </context>
    <context>
        <name>ManagedServer</name>
        <message>
            <location filename="../app/engine/remote/managed.py" line="35" />
            <source>{name} carries no drafter of its own (no MTP layers): choose its EAGLE-3 or DFlash file</source>
            <translation>{name} bringt keinen eigenen Drafter mit (keine MTP-Schichten): wählen Sie seine EAGLE-3- oder DFlash-Datei</translation>
        </message>
        <message>
            <location filename="../app/engine/remote/managed.py" line="38" />
            <source>{name}: {why}</source>
            <translation>{name}: {why}</translation>
        </message>
        <message>
            <location filename="../app/engine/remote/managed.py" line="39" />
            <source>{name} is not an EAGLE-3 head or a DFlash drafter</source>
            <translation>{name} ist weder ein EAGLE-3-Kopf noch ein DFlash-Drafter</translation>
        </message>
        <message>
            <location filename="../app/engine/remote/managed.py" line="40" />
            <source>{head} cannot draft for {target}: {problems}</source>
            <translation>{head} kann nicht für {target} entwerfen: {problems}</translation>
        </message>
        <message>
            <location filename="../app/engine/remote/managed.py" line="41" />
            <source>the llama-server Tandem started for {name} stopped (exit code {code}): the partial reply is kept</source>
            <translation>der llama-server, den Tandem für {name} gestartet hat, hat sich beendet (Exit-Code {code}): die bisherige Antwort bleibt erhalten</translation>
        </message>
    </context>
    <context>
        <name>OwnDrafterRow</name>
        <message>
            <location filename="../app/ui/models/own_drafter_row.py" line="52" />
            <source>Chat through llama-server</source>
            <translation>Über llama-server chatten</translation>
        </message>
        <message>
            <location filename="../app/ui/models/own_drafter_row.py" line="54" />
            <source>Tandem starts llama.cpp's own server with the model's own drafter (--spec-type draft-mtp, draft-eagle3 or draft-dflash) and chats with it as with any server; it stops when another starts or the window closes</source>
            <translation>Tandem startet den Server von llama.cpp mit dem eigenen Drafter des Modells (--spec-type draft-mtp, draft-eagle3 oder draft-dflash) und chattet mit ihm wie mit jedem Server; er endet, wenn ein anderer startet oder das Fenster schließt</translation>
        </message>
        <message>
            <location filename="../app/ui/models/own_drafter_row.py" line="106" />
            <source>starting llama-server for {name}…</source>
            <translation>llama-server für {name} wird gestartet…</translation>
        </message>
        <message>
            <location filename="../app/ui/models/own_drafter_row.py" line="128" />
            <source>llama-server runs {name} with {spec}</source>
            <translation>llama-server führt {name} mit {spec} aus</translation>
        </message>
        <message>
            <location filename="../app/ui/models/own_drafter_row.py" line="84" />
            <source>This model: {what}</source>
            <translation>Dieses Modell: {what}</translation>
        </message>
        <message>
            <location filename="../app/ui/models/own_drafter_row.py" line="86" />
            <source>{name}: {what}</source>
            <translation>{name}: {what}</translation>
        </message>
    </context>
</TS>
